"""The ``dpcheck`` command line: thin; parses, calls the library, prints.

Bad input anywhere becomes a one-line ``dpcheck: error: ...`` on stderr and
exit code 2, without a traceback (DESIGN.md, "Contracts").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dpcheck.errors import InputError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        raise InputError(message)


def _verify(args: argparse.Namespace) -> int:
    from dpcheck.claims import registry, report, runner

    claims = registry.collect(registry.find_proofs_dir(args.proofs))
    if args.list:
        print("\n".join(c.id for c in claims))
        return 0
    chosen = runner.select(claims, args.ids)
    if args.output:
        out = Path(args.output)
        if out.parent and not out.parent.exists():
            raise InputError(f"--output {args.output!r}: folder {str(out.parent)!r} does not exist")
    results = _run_with_progress(runner, chosen, quiet=args.quiet or not sys.stderr.isatty())
    text = report.render(results, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return runner.exit_code(results)


def _run_with_progress(runner, chosen, quiet: bool):  # type: ignore[no-untyped-def]
    if quiet:
        return runner.run(chosen)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("verifying", total=len(chosen))
        results = []
        for claim in chosen:
            bar.update(task, description=claim.id)
            results.append(runner.run_one(claim))
            bar.advance(task)
    return results


def _eval(args: argparse.Namespace) -> int:
    from dpcheck.numeric import mp
    from dpcheck.numeric.params import MechanismParams, parse_assignments

    mp.split_name(args.quantity)
    params = MechanismParams.from_mapping(parse_assignments(args.assignments))
    if args.dps < 1 or args.dps > 10000:
        raise InputError(f"--dps {args.dps} must be between 1 and 10000")
    value = mp.evaluate(args.quantity, params, args.dps)
    import mpmath

    text = mpmath.nstr(value, args.dps)
    if args.json:
        data = {
            "quantity": args.quantity,
            "value": text,
            "dps": args.dps,
            "params": {k: str(getattr(params, k)) for k in ("s", "c0", "c1", "lam")},
        }
        print(json.dumps(data, indent=2))
    else:
        print(text)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dpcheck", description="Check the mathematics of differential-privacy papers."
    )
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    sub.required = True

    v = sub.add_parser("verify", help="give each claim a verdict")
    v.add_argument("ids", nargs="*", help="claim ids, prefixes or globs (default: all)")
    v.add_argument("--format", choices=("table", "json", "md", "tex"), default="table")
    v.add_argument("--output", help="write the report to this file")
    v.add_argument("--list", action="store_true", help="print the registered claim ids")
    v.add_argument("--deep", action="store_true", help="run the slower, wider checks too")
    v.add_argument("--proofs", help="the proofs folder (default: ./proofs, found upward)")
    v.add_argument("--quiet", action="store_true", help="no progress bar")
    v.set_defaults(func=_verify)

    e = sub.add_parser("eval", help="evaluate a derived quantity at any precision")
    e.add_argument("quantity", help="e.g. truncated.mean, bit.mse")
    e.add_argument(
        "assignments", nargs="*", help="s=.. c0=.. c1=.. and lam=.. or epsilon=.. sensitivity=.."
    )
    e.add_argument("--dps", type=int, default=30, help="significant digits (default 30)")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=_eval)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "deep", False):
            import os

            os.environ["DPCHECK_DEEP"] = "1"
        return int(args.func(args))
    except InputError as exc:
        print(f"dpcheck: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dpcheck: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
