"""Reusable checks that turn SymPy comparisons into verdicts.

One mechanism serves every identity claim: :func:`identity` first tries an
exact reduction to 0 (:mod:`dpcheck.symbolic.rational`, then SymPy's
``simplify``); if that fails it looks for a witness point where the two sides
differ, confirmed in ball arithmetic (:mod:`dpcheck.numeric.rigorous`).
:func:`chain` applies it line by line to a displayed derivation and reports
the first line that breaks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from itertools import product
from typing import Any

import mpmath
import sympy as sp

from dpcheck.claims.model import Kind, Status, Step, Verdict, step
from dpcheck.numeric import rigorous
from dpcheck.symbolic import laws
from dpcheck.symbolic.rational import is_identically_zero, to_rational
from dpcheck.symbolic.symbols import c0, c1, lam, s, u0, u1

F = Fraction
Point = Mapping[sp.Symbol, Fraction]

#: the standing domain of Liu (2019) §3: c0 <= s <= c1, c0 < c1, λ > 0
DOMAIN = "all real c0 < c1, s in [c0, c1], lambda > 0"


def mechanism_points() -> list[dict[sp.Symbol, Fraction]]:
    """Witness candidates for (s, c0, c1, λ), simplest first (small integers)."""
    points = []
    boxes = [(F(0), F(1)), (F(-1), F(1)), (F(0), F(2)), (F(-1), F(2)), (F(1), F(3))]
    for (lo, hi), lam_v in product(boxes, (F(1), F(2), F(1, 2), F(10), F(1, 10))):
        for frac in (F(0), F(1, 2), F(1), F(1, 4), F(3, 4), F(1, 3)):
            points.append({c0: lo, c1: hi, lam: lam_v, s: lo + frac * (hi - lo)})
    return points


def fmt(value: Any, n: int = 30) -> str:
    """An exact rational as a string, an arb ball by its midpoint, an mpf, to n digits."""
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, mpmath.mpf):
        return mpmath.nstr(value, n)
    return rigorous.digits(value, n)


def point_str(point: Point) -> dict[str, str]:
    return {str(k): str(v) for k, v in point.items()}


def find_witness(diff: sp.Expr, points: Iterable[Point]) -> tuple[Point, int] | None:
    """The first point where ``diff`` is certainly nonzero, with its sign."""
    for point in points:
        try:
            sign = rigorous.sign(diff, point)
        except (rigorous.NotRigorous, ZeroDivisionError, ValueError):
            continue
        if sign not in (0, None):
            return point, sign
    return None


def evaluate_side(expr: sp.Expr, point: Point) -> str:
    return fmt(rigorous.arb_eval(expr, point))


def identity(
    lhs: sp.Expr,
    rhs: sp.Expr,
    *,
    lhs_name: str = "printed",
    rhs_name: str = "derived",
    points: Iterable[Point] | None = None,
    domain: str = DOMAIN,
    normalise: bool = True,
    finding_equal: str = "",
    finding_differs: str = "",
    evidence: dict[str, Any] | None = None,
) -> Verdict:
    """Proved if lhs - rhs reduces to 0; refuted with a confirmed witness; else inconclusive."""
    ev: dict[str, Any] = {lhs_name: str(lhs), rhs_name: str(rhs)}
    ev.update(evidence or {})
    diff = lhs - rhs
    if is_identically_zero(diff, normalise):
        ev["finding"] = finding_equal or f"{lhs_name} = {rhs_name} identically"
        return Verdict(
            Status.PROVED,
            "exact symbolic reduction of the difference to 0 "
            "(rational form in t0, t1, e^-t0, e^-t1)",
            ev,
            domain=domain,
            basis=[
                step(
                    Kind.SYMBOLIC,
                    f"{lhs_name} - {rhs_name} reduced exactly to 0 "
                    "(rational form in t0, t1, e^-t0, e^-t1)",
                )
            ],
        )
    if sp.simplify(diff) == 0:
        ev["finding"] = finding_equal or f"{lhs_name} = {rhs_name} identically"
        return Verdict(
            Status.PROVED,
            "SymPy simplify reduces the difference to 0",
            ev,
            domain=domain,
            basis=[step(Kind.SYMBOLIC, f"SymPy simplify reduced {lhs_name} - {rhs_name} to 0")],
        )
    hit = find_witness(diff, points if points is not None else mechanism_points())
    if hit is None:
        ev["finding"] = "not reduced to 0, and no witness found"
        return Verdict(
            Status.INCONCLUSIVE,
            "symbolic reduction failed; witness search found none",
            ev,
            basis=[
                step(Kind.SYMBOLIC, "the difference did not reduce to 0", checked=False),
                step(Kind.ENCLOSURE, "no point with a nonzero enclosure found", checked=False),
            ],
        )
    point, _ = hit
    ev.update(witness_evidence(lhs, rhs, point, lhs_name, rhs_name))
    ev["diagnosis"] = diagnose(lhs, rhs, normalise)
    ev["finding"] = finding_differs or (
        f"{lhs_name} != {rhs_name}: at {_short(point)} "
        f"{lhs_name} = {ev['witness'][lhs_name][:12]}, {rhs_name} = {ev['witness'][rhs_name][:12]}"
    )
    return Verdict(
        Status.REFUTED,
        "counterexample confirmed in ball arithmetic (python-flint arb)",
        ev,
        basis=[witness_step(f"{lhs_name} - {rhs_name}", point)],
    )


#: the reflection x -> -x of the setting: s -> -s, and the bounds exchange (c0 -> -c1, c1 -> -c0)
MIRROR = {s: -s, c0: -c1, c1: -c0}


def mirror_parity(expr: sp.Expr, normalise: bool = True) -> str:
    """ "even" (unchanged by :data:`MIRROR`), "odd" (negated) or "neither" (not shown)."""
    image = expr.xreplace(MIRROR)
    if is_identically_zero(expr - image, normalise):
        return "even"
    if is_identically_zero(expr + image, normalise):
        return "odd"
    return "neither"


def agrees_in_the_bulk(diff: sp.Expr, normalise: bool = True) -> bool | str:
    """Does ``diff`` vanish once the terms in e^-t0 = e^{(c0-s)/λ} and e^-t1 = e^{(s-c1)/λ}
    (the corrections the bounds make) are dropped?  "undecided" if that is not defined."""
    rational, _ = to_rational(diff, normalise)
    bulk = rational.subs({u0: 0, u1: 0})
    if bulk.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return "undecided"
    return sp.cancel(bulk) == 0


def diagnose(line: sp.Expr, reference: sp.Expr, normalise: bool = True) -> dict[str, Any]:
    """What a line that is not equal to ``reference`` still gets right: whether it has the
    mirror symmetry of the reference, and whether it agrees with it away from the bounds
    (the terms in e^{(c0-s)/λ}, e^{(s-c1)/λ} dropped).  Exact; evidence only."""
    ref_parity, line_parity = mirror_parity(reference, normalise), mirror_parity(line, normalise)
    return {
        "mirror symmetry (s -> -s, c0 -> -c1, c1 -> -c0)": line_parity,
        "same mirror symmetry as the reference": line_parity == ref_parity
        and ref_parity != "neither",
        "equals the reference once the e^{(c0-s)/lambda}, e^{(s-c1)/lambda} terms are dropped": (
            agrees_in_the_bulk(line - reference, normalise)
        ),
    }


def witness_step(what: str, point: Point) -> Step:
    """The enclosure step of a counterexample: the arb ball of ``what`` excludes 0 at ``point``."""
    return step(
        Kind.ENCLOSURE,
        f"the arb enclosure of {what} at the witness excludes 0",
        domain=f"the point {_short(point)}",
    )


def _short(point: Point) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items())


def witness_evidence(
    lhs: sp.Expr, rhs: sp.Expr, point: Point, lhs_name: str, rhs_name: str
) -> dict:
    a = rigorous.arb_eval(lhs, point)
    b = rigorous.arb_eval(rhs, point)
    return {
        "witness": {
            "point": point_str(point),
            lhs_name: fmt(a),
            rhs_name: fmt(b),
            "difference": fmt(a - b),
        }
    }


def chain(
    lines: Sequence[tuple[str, sp.Expr]],
    reference: sp.Expr,
    *,
    reference_name: str = "derived",
    points: Iterable[Point] | None = None,
    domain: str = DOMAIN,
    normalise: bool = True,
) -> Verdict:
    """Check each displayed line against the one before and against the derivation.

    Refuted at the first line that is not equal to its predecessor (a broken
    step), with a witness; the evidence lists every line's status.
    """
    points = list(points) if points is not None else mechanism_points()
    steps = []
    first_break = None
    for i, (label, expr) in enumerate(lines):
        vs_ref = is_identically_zero(expr - reference, normalise)
        entry = {"line": label, "expr": str(expr), f"equals_{reference_name}": vs_ref}
        if not vs_ref:
            entry["diagnosis"] = diagnose(expr, reference, normalise)
        if i > 0:
            same = is_identically_zero(expr - lines[i - 1][1], normalise)
            entry["equals_previous"] = same
            if not same and first_break is None:
                hit = find_witness(expr - lines[i - 1][1], points)
                if hit is None:
                    entry["equals_previous"] = "undecided"
                else:
                    first_break = i
                    entry.update(
                        witness_evidence(lines[i - 1][1], expr, hit[0], "previous", "this")
                    )
        steps.append(entry)
    if first_break is None and all(st.get("equals_previous", True) is True for st in steps):
        ends_right = steps[-1][f"equals_{reference_name}"]
        if ends_right:
            finding = f"all {len(lines)} lines equal each other and the {reference_name} value"
            return Verdict(
                Status.PROVED,
                "each line reduced exactly to the previous one",
                {"finding": finding, "lines": steps},
                domain=domain,
                basis=[
                    step(
                        Kind.SYMBOLIC,
                        f"each of the {len(lines)} lines reduced exactly to the line before, "
                        f"and the last to the {reference_name} value",
                    )
                ],
            )
        return Verdict(
            Status.INCONCLUSIVE,
            f"every step holds, but the chain does not end at the {reference_name} value",
            {
                "finding": f"the chain's lines agree but differ from the {reference_name} value",
                "lines": steps,
            },
        )
    if first_break is None:
        return Verdict(
            Status.INCONCLUSIVE,
            "some step neither reduced to 0 nor refuted",
            {"finding": "undecided step", "lines": steps},
        )
    label = lines[first_break][0]
    finding = f"first broken step: {label} (does not equal the line before)"
    wit = steps[first_break]["witness"]["point"]
    return Verdict(
        Status.REFUTED,
        "line-by-line exact reduction; break confirmed in ball arithmetic",
        {"finding": finding, "first_broken_line": label, "lines": steps},
        basis=[
            step(
                Kind.ENCLOSURE,
                f"the arb enclosure of ({label}) - (the line before) excludes 0 at the witness",
                domain="the point " + ", ".join(f"{k}={v}" for k, v in wit.items()),
            )
        ],
    )


def expand_printed(expr: sp.Expr) -> sp.Expr:
    """Evaluate what a printed line leaves symbolic: integrals (by the law engine,
    split at s) and the Laplace CDF F (derived from the Laplace law)."""
    from dpcheck.papers import liu2019 as paper

    def do_integral(e: sp.Integral) -> sp.Expr:
        ((var, a, b_),) = e.limits
        integrand = e.function.subs(var, laws.x)
        return laws.integrate_piece(sp.Integer(1), laws.Piece(a, b_, integrand))

    expr = expr.replace(lambda e: isinstance(e, sp.Integral), do_integral)
    if hasattr(paper, "F"):
        expr = expr.replace(
            lambda e: getattr(e, "func", None) == paper.F,
            lambda e: laws.cdf(laws.laplace(), e.args[0]),
        )
    return expr


def separable_argument(
    target: sp.Expr,
    G: sp.Expr,
    kind: str,
    H: sp.Expr | None = None,
) -> tuple[bool, dict[str, Any]]:
    """Machine-check a sign argument in the normalised distances t0, t1.

    Shows ``target ≡ (G(t0) - G(t1)) / (H(t0) + H(t1))`` (``kind='difference'``)
    or ``target ≡ (G(t0) + G(t1)) / (H(t0) + H(t1))`` (``kind='sum'``) exactly,
    with G, H univariate in the symbol ``t``.  Then, by :mod:`dpcheck.symbolic.signs`:
    for 'difference', G' < 0 on t > 0, so the sign of target is the sign of
    t1 - t0; for 'sum', G > 0 on t > 0.  H > 0 on t > 0 (when given) makes the
    denominator positive whenever t0 + t1 > 0, i.e. c0 < c1.
    """
    from dpcheck.symbolic.signs import prove_negative, prove_positive
    from dpcheck.symbolic.symbols import t0, t1

    t = sp.Symbol("t", positive=True)
    num = G.subs(t, t0) + (-1 if kind == "difference" else 1) * G.subs(t, t1)
    den = (H.subs(t, t0) + H.subs(t, t1)) if H is not None else sp.Integer(1)
    ev: dict[str, Any] = {
        "decomposition": f"({num}) / ({den})",
        "G": str(G),
        "H": str(H) if H is not None else "1",
    }
    ev["decomposition exact"] = is_identically_zero(target - num / den, normalise=False)
    if kind == "difference":
        steps = prove_negative(sp.diff(G, t), t)
        ev["G strictly decreasing on t > 0"] = steps or "not shown"
    else:
        steps = prove_positive(G, t)
        ev["G > 0 on t > 0"] = steps or "not shown"
        ev["G(0)"] = str(G.subs(t, 0))
    ok = bool(ev["decomposition exact"]) and steps is not None
    if H is not None:
        h_steps = prove_positive(H, t)
        ev["H > 0 on t > 0"] = h_steps or "not shown"
        ev["H(0)"] = str(H.subs(t, 0))
        ok = ok and h_steps is not None and bool(sp.simplify(H.subs(t, 0)) >= 0)
    return ok, ev


def arguments_verdict(
    arguments: dict[str, tuple[bool, dict[str, Any]]],
    *,
    finding: str,
    method: str,
    domain: str = DOMAIN,
) -> Verdict:
    """Proved when every machine-checked argument closed; inconclusive otherwise.

    ``arguments`` maps a name to the (ok, evidence) pair of
    :func:`separable_argument`; ``finding`` is reported only if all closed.
    """
    ok = all(a[0] for a in arguments.values())
    ev: dict[str, Any] = {k: a[1] for k, a in arguments.items()}
    basis = [s for name, (_, e) in arguments.items() for s in argument_steps(name, e)]
    if ok:
        ev["finding"] = finding
        return Verdict(Status.PROVED, method, ev, domain=domain, basis=basis)
    open_ = [k for k, a in arguments.items() if not a[0]]
    ev["finding"] = "the argument did not close for: " + ", ".join(open_)
    return Verdict(Status.INCONCLUSIVE, method, ev, basis=basis)


def argument_steps(name: str, ev: dict[str, Any]) -> list[Step]:
    """The basis steps of one :func:`separable_argument` (from its evidence): the exact
    decomposition, and each sign fact, checked when :mod:`dpcheck.symbolic.signs` showed it."""
    out = [
        step(
            Kind.SYMBOLIC,
            f"{name} = {ev['decomposition']} exactly",
            checked=bool(ev["decomposition exact"]),
        )
    ]
    for key in ("G strictly decreasing on t > 0", "G > 0 on t > 0", "H > 0 on t > 0"):
        if key in ev:
            shown = ev[key] != "not shown"
            out.append(step(Kind.SIGN, f"{name}: {key} (dpcheck.symbolic.signs)", checked=shown))
    return out
