"""Line-by-line checks of a displayed derivation in summary statistics (Liu 2019 supplement).

Each printed line (``dpcheck.papers.liu2019s``) is put in summary statistics by
the scenario of its section (:mod:`dpcheck.symbolic.sensitivity`) and compared
exactly with the difference derived from the definitions.  A line that is not
equal is confirmed false on a small concrete data set, evaluated literally in
exact rationals against the difference computed directly from the data.  Where
a line is right only with a printed symbol read as the one evidently meant, the
line is checked both ways and the evidence says which.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from dpcheck.claims.model import Kind, Status, Verdict, step
from dpcheck.papers.equation import Equation
from dpcheck.symbolic import sensitivity as se


@dataclass
class Item:
    """One printed line to check, with an optional reading of its notation."""

    eq: Equation
    reading: Mapping[sp.Expr, sp.Expr] | None = None
    reading_text: str = ""


def witness(expr: sp.Expr, kind: str, pairs: Iterable[se.Concrete] | None = None) -> dict | None:
    """The first small data set on which the printed ``expr`` (read literally) differs
    from the directly computed difference; exact rationals."""
    for pair in pairs if pairs is not None else se.candidates(kind):
        try:
            value = se.evaluate_on(expr, pair)
        except (se.NotExpressible, ZeroDivisionError, KeyError):
            continue
        if value != pair.truth:
            return {
                "data": pair.describe(),
                "printed line on the data": str(value),
                "difference from the definitions": str(pair.truth),
            }
    return None


def symbolic(sc: se.Scenario, expr: sp.Expr, ref: sp.Expr) -> bool | None:
    try:
        return se.is_zero(sc.interpret(expr) - ref)
    except se.NotExpressible:
        return None


def terms(expr: sp.Expr) -> list[sp.Expr]:
    """The additive terms of a printed line, one product over a sum distributed:
    ``(a + b)/(n - J)`` gives ``a/(n - J)`` and ``b/(n - J)``."""
    if isinstance(expr, sp.Mul):
        sums = [f for f in expr.args if isinstance(f, sp.Add)]
        if len(sums) == 1:
            rest = sp.Mul(*[f for f in expr.args if f is not sums[0]])
            return [rest * t for t in sums[0].args]
    return list(sp.Add.make_args(expr))


def diagnose(
    sc: se.Scenario,
    expr: sp.Expr,
    target: sp.Expr,
    ref: sp.Expr,
    exchange: Mapping[sp.Basic, sp.Basic] | None = None,
) -> dict[str, Any]:
    """What a false line still gets right (exact, in summary statistics; evidence only):
    whether negating one of its terms makes it right, and whether it has the exchange
    symmetry (e.g. x <-> y) that the derived value has."""
    out: dict[str, Any] = {
        "one term with the wrong sign": any(
            symbolic(sc, expr - 2 * t, ref) is True for t in terms(expr)
        )
    }
    if exchange:
        ref_symmetric = symbolic(sc, target.xreplace(dict(exchange)), ref) is True
        try:
            line = sc.interpret(expr)
        except se.NotExpressible:
            line = None
        line_symmetric = line is not None and symbolic(sc, expr.xreplace(dict(exchange)), line)
        out["exchange symmetry of the derived value"] = ref_symmetric and line_symmetric is True
    return out


def check_lines(
    items: Sequence[Item],
    sc: se.Scenario,
    target: sp.Expr,
    kind: str,
    exchange: Mapping[sp.Basic, sp.Basic] | None = None,
) -> tuple[sp.Expr, list[dict[str, Any]]]:
    """Each item against the derived value of ``target`` in scenario ``sc``; a line that
    is not right as printed gets a :func:`diagnose` (``exchange``: a symmetry of ``target``
    such as x <-> y, to test the line against)."""
    ref = sc.interpret(target)
    out = []
    for it in items:
        entry: dict[str, Any] = {"line": it.eq.label, "printed": it.eq.latex}
        literal = symbolic(sc, it.eq.expr, ref)
        if literal is True:
            entry["status"] = "holds as printed"
            out.append(entry)
            continue
        entry["diagnosis"] = diagnose(sc, it.eq.expr, target, ref, exchange)
        wit = witness(it.eq.expr, kind)
        if wit is not None:
            entry["as printed"] = {"holds": False, "witness": wit}
        elif literal is None:
            entry["as printed"] = {"holds": "undecided (no meaning in summary statistics)"}
        else:
            entry["as printed"] = {"holds": "undecided (not reduced to 0, no witness found)"}
        if it.reading:
            read_expr = it.eq.expr.xreplace(dict(it.reading))
            read = symbolic(sc, read_expr, ref)
            entry["reading"] = it.reading_text
            if read is True:
                entry["status"] = "holds only under the reading"
            else:
                wit_r = witness(read_expr, kind)
                entry["under the reading"] = {"holds": False, "witness": wit_r}
                entry["status"] = "false" if wit_r else "undecided"
        else:
            entry["status"] = "false" if wit is not None else "undecided"
        out.append(entry)
    return ref, out


def model_agrees(sc: se.Scenario, ref: sp.Expr, kind: str, count: int = 12) -> str:
    """The derived difference at the summary statistics of concrete pairs equals the
    difference computed directly from the data (a check of the derivation itself)."""
    pairs = list(se.candidates(kind, 2))[:count]
    for pair in pairs:
        assert se.at_summary(ref, se.summary_values(sc, pair)) == pair.truth, pair.describe()
    return f"equals the directly computed difference on {len(pairs)} concrete data sets"


def verdict_of_lines(
    claim_id: str,
    lines: list[dict[str, Any]],
    ref: sp.Expr,
    *,
    domain: str,
    finding_ok: str,
    extra: dict[str, Any] | None = None,
    reference: str = "derived difference",
    method: str = (
        "each line reduced exactly (rational functions in n and the summary statistics "
        "of the shared records) to the difference derived from the definitions"
    ),
    refuted_method: str = (
        "exact comparison of each line with the difference derived from the definitions; "
        "counterexample on a concrete data set in exact rationals"
    ),
) -> Verdict:
    """The verdict on a checked chain of lines (see :func:`check_lines`): refuted at the
    first false line (its witness: ``data``, the printed line and the true value there),
    proved when every line holds (possibly under a stated reading), else inconclusive."""
    ev: dict[str, Any] = {reference: str(sp.factor(ref)), "lines": lines}
    ev.update(extra or {})
    false = [e for e in lines if e["status"] == "false"]
    open_ = [e for e in lines if e["status"] == "undecided"]
    read = [e for e in lines if e["status"] == "holds only under the reading"]
    if false:
        first = false[0]
        wit = (first.get("under the reading") or first["as printed"])["witness"]
        ev["first_broken_line"] = first["line"]
        ev["witness"] = wit
        truth_key = next(k for k in wit if k not in ("data", "printed line on the data"))
        ev["finding"] = (
            f"{first['line']} is false: on {data_text(wit['data'])} it gives "
            f"{wit['printed line on the data']}; {truth_key}: {wit[truth_key]}"
        )
        return Verdict(
            Status.REFUTED,
            refuted_method,
            ev,
            reproduce=f"dpcheck verify {claim_id} --format json",
            basis=[
                step(
                    Kind.ENUMERATION,
                    f"{first['line']} evaluated literally in exact rationals on a concrete case "
                    "differs from the value computed from the definitions",
                    domain=data_text(wit["data"]),
                )
            ],
        )
    if open_:
        ev["finding"] = "undecided: " + ", ".join(e["line"] for e in open_)
        return Verdict(Status.INCONCLUSIVE, "some line neither reduced nor refuted", ev)
    finding = finding_ok
    if read:
        finding += "; right only with the notation read as meant: " + "; ".join(
            f"{e['line']} ({e['reading']})" for e in read
        )
        domain += "; with the notation read as: " + "; ".join(sorted({e["reading"] for e in read}))
    ev["finding"] = finding
    basis = [step(Kind.SYMBOLIC, f"{len(lines)} line(s): {method}")]
    return Verdict(Status.PROVED, method, ev, domain=domain, basis=basis)


def data_text(d: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in d.items() if k != "definition")


__all__ = [
    "Item",
    "check_lines",
    "data_text",
    "diagnose",
    "model_agrees",
    "symbolic",
    "terms",
    "verdict_of_lines",
    "witness",
]
