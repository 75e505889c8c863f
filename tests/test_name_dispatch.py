"""No layer that carries law objects dispatches on a base's name (issue 35, "Done when":
none dispatches on a base or bounding name outside the module that defines it).

The layers moved so far: the laws themselves, the samplers (sampling/), dpcheck.testing,
the audit CLI and the privacy of the named mechanisms (numeric/profile.py, its plot and
CLI).  The names of the mechanism algebra are mapped to law objects in one
place, :func:`dpcheck.laws.registry.of_base`; every other question (is the law on the
integers? what is its scale? how is it drawn?) is asked of the law object.  The list of
layers grows as the migration goes on; the test fails on a new comparison with a base
name in any of them."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "dpcheck"
MOVED = [
    *sorted((SRC / "laws").glob("*.py")),
    *sorted((SRC / "sampling").glob("*.py")),
    *sorted((SRC / "testing").glob("*.py")),
    SRC / "audit_cli.py",
    SRC / "numeric" / "profile.py",  # privacy of the named mechanisms: the law engine's
    SRC / "plots" / "profile.py",
    SRC / "privacy_cli.py",
]
#: the one module that maps the algebra's names to law objects
MAPS = {SRC / "laws" / "registry.py"}
BASE = r'"(?:laplace|gaussian|geometric)"'
DISPATCH = re.compile(
    rf"(?:==|!=)\s*{BASE}|{BASE}\s*(?:==|!=)|\bin\s*\((?:[^)]*){BASE}|\bBASES\[|\bBASES\b\s*\["
)


def dispatches(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()
            if DISPATCH.search(line) and not line.lstrip().startswith("#")]


def test_no_moved_layer_compares_a_base_name():
    found = {str(p.relative_to(SRC)): dispatches(p.read_text()) for p in MOVED if p not in MAPS}
    found = {k: v for k, v in found.items() if v}
    assert not found, found


def test_the_grep_notices_a_dispatch():
    """Mutation: each form of a name dispatch is found."""
    for line in ('    if base == "geometric":', '    if "laplace" != b:',
                 '    if nb.base in ("laplace", "geometric"):', '    key = BASES[base]'):
        assert dispatches(line), line
    assert not dispatches('    law = registry.get(registry.of_base(base))')
    assert not dispatches('    # base == "geometric" in a comment')
