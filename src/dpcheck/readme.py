"""Regenerate the README's verdict numbers from a saved report, so none of them is typed.

The README marks each generated region with an opening and a closing comment::

    <!-- dpcheck:counts liu2019 liu2019s -->...<!-- /dpcheck:counts -->
    <!-- dpcheck:verdicts zz2016 -->...<!-- /dpcheck:verdicts -->

* ``counts``: one sentence of verdict counts over the named documents (all
  documents when none is named);
* ``verdicts``: the markdown table of ``dpcheck verify --format md`` for those
  documents;
* ``krand`` (``<!-- dpcheck:krand n=10000 eps0=2 delta=1e-6 -->``): one line of
  ``dpcheck krand profile --L 1`` for that setting (the epsilon, its kind and the
  worst background), computed afresh;
* ``krandbounds`` (``<!-- dpcheck:krandbounds docs/krand_bounds.json -->``): the table of
  certified upper and attained lower bounds of multi-bit shuffled K-randomization, with
  the generic shuffle bounds, from the JSON ``bench/bench_krand_bounds.py --json`` wrote
  (a 40-minute run, so it is read, not rerun);
* ``limits`` (``<!-- dpcheck:limits -->``): the table of work ceilings of
  :mod:`dpcheck.inputs.limits`.
* ``example`` (``<!-- dpcheck:example docs/examples/truncated_gaussian.py -->``):
  the source of a Python example and what it prints, run afresh (the test
  suite runs the same file);
* ``mutation`` (``<!-- dpcheck:mutation docs/mutation_kill_rate.json -->``): the
  mutation harness's kill rates from the JSON ``bench/mutation_kill_rate.py
  --summary`` wrote (a 15-minute run, so it is read, not rerun).

The verdict numbers come from a JSON report of ``dpcheck verify --format json``
(DESIGN.md's contract)::

    dpcheck verify --format json --output verdicts.json
    python -m dpcheck.readme verdicts.json            # rewrite README.md
    python -m dpcheck.readme verdicts.json --check    # exit 1 if README.md is stale (CI)

``--skip-examples`` leaves the ``example`` blocks as they are (CI: the test suite runs
each example and compares it with its block, tests/test_readme.py; running them here too
cost CI about 110 s).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from dpcheck.claims.model import Status
from dpcheck.claims.report import md_from_data
from dpcheck.errors import InputError

_KINDS = "counts|verdicts|krandbounds|krand|mutation|limits|example"
_BLOCK = re.compile(
    rf"(?P<open><!-- dpcheck:(?P<kind>{_KINDS})(?P<docs>(?: [a-z0-9=._/+-]+)*) -->)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- /dpcheck:(?P=kind) -->)",
    re.S,
)


def load_report(path: Path) -> dict[str, Any]:
    """The JSON report, checked for the contract's keys."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"report {str(path)!r}: cannot read it ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"report {str(path)!r}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise InputError(f"report {str(path)!r}: expected dpcheck verify --format json output")
    return data


def select(data: dict[str, Any], documents: list[str]) -> dict[str, Any]:
    """The report restricted to ``documents`` (all when empty), with its summary recounted."""
    claims = [c for c in data["claims"] if not documents or c["id"].split(".", 1)[0] in documents]
    if not claims:
        raise InputError(f"the report has no claims of {' '.join(documents)!r}")
    counts: dict[str, Any] = {s.value: 0 for s in Status}
    empirical = {s.value: 0 for s in Status}
    for c in claims:
        (empirical if c.get("empirical") else counts)[c["status"]] += 1
    counts["empirical"] = empirical
    return {"claims": claims, "summary": counts}


def counts_sentence(data: dict[str, Any]) -> str:
    """'N claims: a proved, b verified, c refuted, d inconclusive, and e empirical (...)';
    the four deductive counts exclude the empirical verdicts, counted apart."""
    s = data["summary"]
    emp = s["empirical"]
    text = (
        f"{len(data['claims'])} claims: {s['proved']} proved, {s['verified']} verified, "
        f"{s['refuted']} refuted, {s['inconclusive']} inconclusive"
    )
    n_emp = sum(emp.values())
    if n_emp:
        parts = ", ".join(f"{v} {k}" for k, v in emp.items() if v)
        text += f", and {n_emp} empirical (judged by Monte Carlo reproduction: {parts})"
    return text


def krand_line(words: list[str]) -> str:
    """One line of the L = 1 K-randomization profile for ``n=.. eps0=.. delta=..``."""
    from dpcheck.enumeration import krand_profile as kp

    args = dict(w.split("=", 1) for w in words)
    d = kp.summary(args["n"], 1, eps0=args["eps0"], delta=args["delta"])
    ap, pb = d["approximate"], d["probabilistic"]
    return (
        f"n = {d['n']}, eps0 = {args['eps0']}, delta = {args['delta']}: epsilon = "
        f"{ap['epsilon']:.10f} ({ap['kind']}, worst background m = {ap['worst background m']} "
        f"of {d['n']}), probabilistic epsilon {pb['epsilon']:.10f} ({pb['kind']}) "
        f"(`dpcheck krand profile --n {args['n']} --L 1 --eps0 {args['eps0']} --delta "
        f"{args['delta']}`)"
    )


MUTATION_COLUMNS = (
    "transcriptions",
    "mutants run",
    "equivalent dropped",
    "killed (status)",
    "killed (outcome)",
    "survived",
    "timed out",
)


def mutation_table(path: Path) -> str:
    """The kill-rate table of a ``bench/mutation_kill_rate.py --json`` file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = data["documents"]
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(
            f"mutation report {str(path)!r}: missing or not a kill-rate JSON"
        ) from None
    head = "| document | " + " | ".join(MUTATION_COLUMNS) + " | kill rate |"
    out = [head, "|" + " --- |" * (len(MUTATION_COLUMNS) + 2)]
    for r in rows:
        cells = [str(r[c]) for c in MUTATION_COLUMNS]
        out.append(
            f"| {r['document']} | " + " | ".join(cells) + f" | {100 * r['kill rate']:.1f}% |"
        )
    command = data.get("command", "python bench/mutation_kill_rate.py")
    out += ["", f"({data['seconds'] / 60:.0f} min: `{command}`)"]
    return "\n".join(out)


def _num(x: float | None, digits: int = 4) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def krand_bounds_table(path: Path) -> str:
    """The bounds table of a ``bench/bench_krand_bounds.py --json`` file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = data["settings"]
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(f"bounds report {str(path)!r}: missing or not a bounds JSON") from None
    head = (
        "| L | n | eps0 per bit | delta | lower (attained) | upper (certified) | upper / lower"
        " | s to <= 1.1 | s total | FMT numerical | FMT closed form | blanket (Bennett)"
        " | Wang et al. | best generic / upper | §3.1 probabilistic at the pair |"
    )
    out = [head, "|" + " --- |" * 15]
    for d in rows:
        lo, up, gen = d["lower"], d["upper"], d["generic shuffle bounds"]
        local = gen["local epsilon eps0 = L log(p/q)"]

        def g(name: str, gen: dict = gen, local: float = local) -> str:  # type: ignore[type-arg]
            v = gen[name]
            return "n/a" if v is None else ("vacuous" if v >= local * (1 - 1e-6) else _num(v))

        first = up.get("seconds to ratio <= 1.1")
        kind = "" if up["kind"] == "upper bound" else " (local)"
        out.append(
            f"| {d['L']} | {d['n']} | {d['eps0']:.3g} | {d['delta']:.0e} | {_num(lo['epsilon'])}"
            f" | {_num(up['epsilon'])}{kind} | {d['upper / lower']:.3f}"
            f" | {'not reached' if first is None else round(first)}"
            f" | {round(lo['seconds'] + up['seconds'])}"
            f" | {g('FMT numerical')} | {g('FMT closed form')} | {g('blanket (Bennett)')}"
            f" | {g('Wang et al.')} | {_num(gen['best / upper'], 2)}"
            f" | {_num(d['probabilistic']['epsilon'])} |"
        )
    out += ["", f"(budget {data['budget']:.0f} s per upper bound: `{data['command']}`)"]
    return "\n".join(out)


def example_block(path: Path) -> str:
    """The source of the example at ``path`` and its output, from running it now."""
    import subprocess

    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"example {str(path)!r}: cannot read it ({exc.strerror})") from None
    run = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=600, check=False
    )
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["no output"])[-1]
        raise InputError(f"example {str(path)!r} failed: {last}")
    return (
        f"```python\n{source.rstrip()}\n```\n\nprints (`python {path.as_posix()}`):\n\n"
        f"```text\n{run.stdout.rstrip()}\n```"
    )


def render(
    readme: str, data: dict[str, Any], root: Path = Path("."), examples: bool = True
) -> str:
    """``readme`` with every marked block regenerated from ``data`` (``root``: the folder
    that relative paths in blocks start from; ``examples=False`` keeps the example blocks
    as they are instead of running the examples)."""

    def fill(match: re.Match[str]) -> str:
        if match["kind"] == "example" and not examples:
            return match[0]
        if match["kind"] == "limits":
            from dpcheck.inputs.limits import markdown_table

            return match["open"] + "\n\n" + markdown_table() + "\n" + match["close"]
        if match["kind"] == "example":
            target = root / match["docs"].strip()
            shown_path = Path(match["docs"].strip())
            body = example_block(target).replace(
                f"python {target.as_posix()}", f"python {shown_path}"
            )
            return match["open"] + "\n\n" + body + "\n" + match["close"]
        if match["kind"] == "krandbounds":
            table = krand_bounds_table(root / match["docs"].strip())
            return match["open"] + "\n\n" + table + "\n" + match["close"]
        if match["kind"] == "krand":
            return match["open"] + krand_line(match["docs"].split()) + match["close"]
        if match["kind"] == "mutation":
            return (
                match["open"]
                + "\n\n"
                + mutation_table(root / match["docs"].strip())
                + "\n"
                + (match["close"])
            )
        part = select(data, match["docs"].split())
        if match["kind"] == "counts":
            body = counts_sentence(part)
        else:
            body = "\n\n" + md_from_data(part) + "\n"
        return match["open"] + body + match["close"]

    return _BLOCK.sub(fill, readme)


def blocks(readme: str) -> list[tuple[str, str, str]]:
    """(kind, documents, body) of every marked block."""
    return [(m["kind"], m["docs"].strip(), m["body"]) for m in _BLOCK.finditer(readme)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpcheck.readme", description=__doc__)
    parser.add_argument("report", help="JSON from dpcheck verify --format json")
    parser.add_argument("--readme", default="README.md", help="the file to regenerate")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    parser.add_argument(
        "--skip-examples",
        action="store_true",
        help="keep the example blocks as they are (tests/test_readme.py runs the examples)",
    )
    args = parser.parse_args(argv)
    try:
        data = load_report(Path(args.report))
        path = Path(args.readme)
        try:
            old = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"--readme {args.readme!r}: cannot read it ({exc.strerror})") from None
        if not blocks(old):
            raise InputError(f"--readme {args.readme!r}: no <!-- dpcheck:... --> blocks")
        new = render(old, data, path.parent, examples=not args.skip_examples)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        stale = [
            f"{k} {d}".strip()
            for (k, d, b), (_, _, nb) in zip(blocks(old), blocks(new), strict=True)
            if b != nb
        ]
        if stale:
            print(f"{args.readme} is stale in: {'; '.join(stale)} (run without --check)")
            return 1
        print(f"{args.readme}: every generated block is up to date")
        return 0
    if new != old:
        path.write_text(new, encoding="utf-8")
    print(f"{args.readme}: {len(blocks(new))} generated blocks written")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
