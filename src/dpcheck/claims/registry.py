"""Registering claims and collecting them from proofs/ (like pytest collects tests/).

A proof module under ``proofs/<document>/`` declares claims with the
:func:`claim` decorator::

    @claim("liu2019.eq6.mu1", source="eq (6)", statement=r"\\mu_1 = \\dots")
    def _() -> Verdict: ...

:func:`collect` imports every ``*.py`` file below the proofs folder (sorted by
path), so the registry fills in a deterministic order.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Callable
from itertools import count
from pathlib import Path

from dpcheck.claims.model import Claim, Verdict
from dpcheck.errors import InputError

REGISTRY: dict[str, Claim] = {}
_ORDER = count()
_ID = re.compile(r"^[a-z][a-z0-9]*(\.[A-Za-z0-9_]+)+$")


def claim(
    id: str, *, source: str, statement: str
) -> Callable[[Callable[[], Verdict]], Callable[[], Verdict]]:
    """Register the decorated function as the check of claim ``id``."""
    if not _ID.match(id):
        raise ValueError(f"claim id {id!r} is not of the form <document>.<place>.<name>")

    def register(check: Callable[[], Verdict]) -> Callable[[], Verdict]:
        if id in REGISTRY and REGISTRY[id].check.__code__ is not check.__code__:
            raise ValueError(f"claim {id!r} registered twice")
        REGISTRY[id] = Claim(id, source, statement, check, check.__module__, next(_ORDER))
        return check

    return register


def find_proofs_dir(explicit: str | None = None) -> Path:
    """The proofs folder: --proofs, $DPCHECK_PROOFS, ./proofs upward from the
    working directory, or the one beside the installed sources."""
    candidates: list[Path] = []
    if explicit:
        candidates.append(Path(explicit))
    elif os.environ.get("DPCHECK_PROOFS"):
        candidates.append(Path(os.environ["DPCHECK_PROOFS"]))
    else:
        here = Path.cwd().resolve()
        candidates += [d / "proofs" for d in (here, *here.parents)]
        candidates.append(Path(__file__).resolve().parents[3] / "proofs")
        candidates.append(Path(__file__).resolve().parents[1] / "_proofs")
    for path in candidates:
        if path.is_dir() and any(path.glob("*/*.py")):
            return path
    where = candidates[0] if candidates else Path("proofs")
    raise InputError(f"no proofs folder found (looked for {where}); pass --proofs DIR")


def collect(proofs_dir: Path | None = None) -> list[Claim]:
    """Import every proof module and return the registered claims in order."""
    root = proofs_dir or find_proofs_dir()
    for path in sorted(root.glob("*/*.py")):
        if path.name.startswith("_"):
            continue
        name = "dpcheck_proofs." + ".".join(path.relative_to(root).with_suffix("").parts)
        if name in sys.modules:
            continue
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sorted(REGISTRY.values(), key=lambda c: (c.document, c.module, c.order))
