r"""``dpcheck check-formula QUANTITY 'LATEX' [--against 'LATEX2'] [--notation MAP] [--json]``.

QUANTITY is Liu's ``truncated.mean`` ... or any ``<mechanism>.<quantity>[.lower|.upper]``
(issue 18); ``--notation '\theta=s,b=lam,l=c0,u=c1'`` reads the formula in the
reviewer's own symbols (:mod:`dpcheck.formula.notation`) and prints the findings
in them.  ``--against-latex`` is the older spelling of ``--against``.

Thin, like the rest of the CLI (DESIGN layer 7): parses the arguments, calls
:func:`dpcheck.formula.check.check_formula`, prints.  Exit code (issue 20, "CLI
contracts for CI"): 0 for ``equal``, 1 for ``differs`` or ``undecided`` (so that a
CI step fails unless the formula is shown equal); bad input raises
:class:`~dpcheck.errors.InputError`, which ``dpcheck.cli.main`` turns into one
line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dpcheck.formula.check import FormulaCheck, check_formula, known_names

HELP = (
    "compare a pasted LaTeX formula with a derived quantity of any mechanism"
    " (Liu 2019, eqs (6)-(10), App. B; truncated-gaussian.var, clamped-geometric.mean, ...)"
)
#: the exit code of each verdict: only ``equal`` passes (issue 20)
EXIT = {"equal": 0, "differs": 1, "undecided": 1}


def add_parser(sub: Any) -> None:
    """Add the ``check-formula`` subcommand to ``sub`` (the subparsers of ``dpcheck``)."""
    p = sub.add_parser(
        "check-formula",
        help=HELP,
        description=HELP + ". Known quantities: " + known_names() + ". And every law object"
        " (issue 35): <law>.<quantity> for a shipped law (discrete-gaussian, discrete-laplace,"
        " staircase, uniform) with quantity mean, second_moment, var, cdf, sf, pdf or pmf;"
        " <bounding>-<law>.<quantity> (folded-gaussian.var, truncated-discrete-gaussian.mean)"
        " with normaliser, mean, bias, second_moment, var, mse or cdf; or the bare quantity"
        " with --density.",
    )
    p.add_argument(
        "quantity",
        help="e.g. truncated.mean (eq (6)), bit.mean.lower (eq (9)), truncated-gaussian.var,"
        " discrete-gaussian.var, folded-gaussian.mean, or var with --density",
    )
    p.add_argument("latex", help=r"the formula, e.g. '\mu_{2}=s+\frac{\lambda}{2}[...]'")
    p.add_argument(
        "--against",
        "--against-latex",
        dest="against_latex",
        help="compare with this second formula instead of the derived quantity",
    )
    p.add_argument(
        "--notation",
        help=r"the formula's symbols for the parameters, e.g. '\theta=s,b=lam,l=c0,u=c1'"
        " (parameters: s, c0, c1, and lam, sigma, alpha, b or scale by the base)",
    )
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    from dpcheck.laws.cli import add_law_arguments

    add_law_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the formula and print the answer; the exit code (:data:`EXIT`: 0 equal, 1 differs
    or undecided)."""
    from dpcheck.laws import cli as laws_cli

    target = laws_cli.law_target(args)
    if target is not None:
        from dpcheck.formula.law_check import check_law_formula

        law, bounding, quantity = target
        result = check_law_formula(
            law, quantity, args.latex, args.against_latex, args.notation,
            bounding=bounding, reproduce_with=laws_cli.law_options(args),
        )
    else:
        result = check_formula(args.quantity, args.latex, args.against_latex, args.notation)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(summary(result))
    return EXIT[result.verdict]


def summary(result: FormulaCheck) -> str:
    """The human-readable answer: verdict, parsed formula, method, witness."""
    d = result.to_dict()
    label = f"{d['formula']['lhs']} = " if d["formula"]["lhs"] else ""
    lines = [
        f"{result.quantity}: {result.verdict.upper()}  (compared with {d['reference']['name']})",
    ]
    if result.notation:
        lines.append("notation:  " + ", ".join(f"{k} = {v}" for k, v in result.notation.items()))
    lines += [
        f"formula:   {label}{d['formula']['expr']}",
        f"  LaTeX:   {d['formula']['latex']}",
    ]
    if result.against is not None:
        lines += [
            f"against:   {d['against']['expr']}",
            f"  LaTeX:   {d['against']['latex']}",
        ]
    else:
        lines.append(f"derived:   {d['reference']['expr']}")
    lines += [f"domain:    {result.domain}", f"method:    {result.method}"]
    w = result.witness
    if w is not None:
        names = [k for k in w if k not in _WITNESS_KEYS]
        point = ", ".join(f"{k} = {v}" for k, v in w["point"].items())
        lines += [f"witness:   {point}"]
        lines += [f"  {name:<10} {w[name]}" for name in names]
        lines += [
            f"  {'difference':<10} {w['difference']}",
            f"  enclosure  {w['difference_enclosure']} (excludes 0; {w['digits']} digits)",
        ]
        if "reproduce" in w:
            lines.append(f"  reproduce  {w['reproduce']}  (the derived value)")
    for note in result.notes:
        lines.append(f"note:      {note}")
    return "\n".join(lines)


_WITNESS_KEYS = frozenset(
    {"point", "difference", "difference_enclosure", "sign", "digits", "confirmed", "reproduce"}
)

__all__ = ["add_parser", "run", "summary"]
