r"""The derivation of a noise law object (issue 35: ``dpcheck derive`` for every law).

``derivation(law)`` writes, from the very objects ``eval`` and ``privacy`` compute with
(:class:`dpcheck.laws.noise.NoiseLaw`), what is derived from the kernel and how:

1. the kernel as given, its support and its parameters' domains;
2. the kernel on each side of 0 (|z| and sign resolved by SymPy), proved >= 0;
3. the normaliser: SymPy's integral or sum in closed form, the law's own formula,
   or none (then every value is a certified lattice sum or a labelled estimate);
4. the moments E Z, E Z^2 and Var Z the same way;
5. the tails P(Z >= u), P(Z <= -u) for u >= 0;
6. log-concavity: d^2/dt^2 log f on each side and the kink at 0 (SymPy), or the
   law's stated reason;
7. the privacy of the additive mechanism x + Z (:mod:`dpcheck.laws.additive`): the
   worst pair and the event that attain δ(ε) for a log-concave law.

It ends with the checks performed: each closed form against an independent route at
two parameter points (mpmath quadrature split at the breakpoints, or the plain sum of
the pmf; :meth:`dpcheck.laws.numeric.Evaluator.direct_moment`), the digits they agree
to, and the commands that reproduce the numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial

import mpmath
import sympy as sp

from dpcheck.derivations.document import Step, escape
from dpcheck.derivations.mechanisms import Checked
from dpcheck.laws.noise import NoiseLaw, t
from dpcheck.laws.numeric import Evaluator, precision

#: digits of the cross-checks
DPS = 30
#: how close the independent route must come (relative), else the derivation fails
AGREEMENT = mpmath.mpf(10) ** -32


def _tex(expr: sp.Expr) -> str:
    return sp.latex(expr)


def _display(lhs: str, expr: sp.Expr | None, missing: str) -> tuple[str, ...]:
    if expr is None:
        return (f"\\[ {lhs} \\quad\\text{{{missing}}} \\]",)
    return (f"\\[ {lhs} = {_tex(expr)} \\]",)


def check_points(law: NoiseLaw) -> list[dict[str, Fraction]]:
    """Two parameter points: every parameter at 1 (0 or 1/2 on the unit interval), then
    the scale at 5/2 and the others at 3/4 of that (1/4 on the unit interval)."""
    first, second = {}, {}
    for p in law.params:
        unit = p.domain in ("unit", "open unit")
        first[p.name] = Fraction(1, 2) if unit else Fraction(1)
        if p.name == law.scale:
            second[p.name] = Fraction(5, 2)
        else:
            second[p.name] = Fraction(1, 4) if unit else Fraction(3, 4)
    return [first, second]


def _point_text(point: dict[str, Fraction]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in point.items())


def _cross_checks(law: NoiseLaw) -> list[str]:
    """Each moment (closed form or certified sum) against the independent route."""
    lines = []
    stated = getattr(law, "_moment_formula", None) is not None
    if stated:
        return [
            f"The moments are the law's own formula ({type(law).__module__}), not SymPy's"
            " integral; tests/test\\_laws.py checks them against quadrature step by step."
        ]
    route = "the plain sum of the pmf" if law.is_lattice else "mpmath quadrature"
    for point in check_points(law):
        with precision(DPS + 10):
            ev = Evaluator(law, point)
            for order, label in ((2, "E Z^2"), (1, "E Z")):
                ball = ev.moment(order)
                direct = ev.direct_moment(order, DPS)
                value = ball.mpf()
                gap = abs(value - direct)
                scale = max(abs(direct), mpmath.mpf(1))
                if gap > AGREEMENT * scale:
                    raise AssertionError(
                        f"{law.name}: {label} at {_point_text(point)}: {ball.how} {value}"
                        f" != {route} {direct}"
                    )
                lines.append(
                    f"${label}$ at {_point_text(point)}: {ball.how} "
                    f"{mpmath.nstr(value, 20)} against {route} {mpmath.nstr(direct, 20)}"
                    f" (difference {mpmath.nstr(gap, 3)})."
                )
    return lines


def derivation(law: NoiseLaw, name: str | None = None) -> Checked:
    """The derivation of ``law`` (file name ``law-<law name>`` unless ``name`` is given)."""
    f = "p" if law.is_lattice else "f"
    v = law.variable
    sum_or_int = "\\sum_{k \\in \\mathbb{Z}}" if law.is_lattice else "\\int_{-\\infty}^{\\infty}"
    d = "" if law.is_lattice else "\\,dz"
    domains = ", ".join(
        f"${sp.latex(p.symbol)}$ {escape(p.expected.split(' ', 1)[1])}" for p in law.params
    )
    steps = [
        Step(
            f"The {'pmf' if law.is_lattice else 'density'} up to a constant, on the"
            f" {'integers' if law.is_lattice else 'real line'}; parameters {domains}"
            f" (scale ${sp.latex(law.param(law.scale).symbol)}$).",
            (f"\\[ {f}({v}) \\propto {_tex(law.kernel)} \\]",),
        ),
        Step(
            "On each side of 0, with $t > 0$ ($|z|$ and the sign resolved by SymPy); both"
            " proved $\\ge 0$, as a density must be:",
            (
                f"\\[ {f}(t) \\propto {_tex(law.side(1))}, \\qquad"
                f" {f}(-t) \\propto {_tex(law.side(-1))} \\]",
            ),
        ),
    ]
    # what stands in for a missing closed form: the tails are always lattice sums or
    # estimates; the normaliser and moments may be the law's own certified form
    tails_missing = (
        "no closed form: SymPy leaves the sum; every value is a certified lattice sum"
        if law.is_lattice
        else "no closed form: every value is a labelled quadrature estimate"
    )
    own = getattr(law, "_ball_label", None)
    missing = (
        tails_missing
        if own is None
        else f"no SymPy closed form; every value is the law's own certified form, {own}"
    )
    steps.append(
        Step(
            "The normaliser, "
            + ("the law's own formula" if getattr(law, "_normaliser_formula", None) else
               f"SymPy's {'sum' if law.is_lattice else 'integral'} of the kernel")
            + ":",
            _display(f"C = {sum_or_int} {f}({v}){d}", law.normaliser, missing),
        )
    )
    m1, m2 = law.moment(1), law.moment(2)
    var = None if m1 is None or m2 is None else sp.simplify(m2 - m1**2)
    steps.append(
        Step(
            "The moments of the normalised law (each the integral or sum of $z^n$ times the"
            " kernel, over $C$):",
            _display("\\mathbb{E} Z", m1, missing)
            + _display("\\mathbb{E} Z^2", m2, missing)
            + _display("\\operatorname{Var} Z", var, missing),
        )
    )
    steps.append(
        Step(
            "The tails, for $u \\ge 0$:",
            _display("P(Z \\ge u)", law.tail(1), tails_missing)
            + _display("P(Z \\le -u)", law.tail(-1), tails_missing),
        )
    )
    concave, reason = law.log_concave()
    second = [sp.simplify(sp.diff(sp.log(law.side(sign)), t, 2)) for sign in (1, -1)]
    math: tuple[str, ...] = ()
    if not any(e.has(sp.Derivative, sp.Subs) for e in second):  # not through a step
        math = tuple(
            f"\\[ \\frac{{d^2}}{{dt^2}} \\log {f}({'-' if sign < 0 else ''}t) = {_tex(e)} \\]"
            for sign, e in zip((1, -1), second, strict=True)
        )
    steps.append(
        Step(f"Log-concavity: {'proved' if concave else 'not proved'} ({escape(reason)}).", math)
    )
    if concave:
        privacy = (
            "Privacy of $M(x) = x + Z$ for $|x - x'| \\le \\Delta$: the kernel is log-concave,"
            " so the likelihood ratio $f(y)/f(y - \\Delta)$ is non-increasing in $y$; the"
            " worst pair is $(0, \\Delta)$ and $\\delta(\\varepsilon) = P(Z \\le y^*) -"
            " e^{\\varepsilon} P(Z \\le y^* - \\Delta)$, with $y^*$ the last output whose"
            " ratio exceeds $e^{\\varepsilon}$, found exactly piece by piece"
            " (dpcheck.laws.additive); the pure $\\varepsilon$ is the ratio's limit on the"
            " left ($\\infty$ on a bounded support)."
        )
    else:
        privacy = (
            "Privacy of $M(x) = x + Z$: no monotone likelihood ratio is proved, so"
            " \\texttt{dpcheck privacy} refuses $\\delta(\\varepsilon)$ for this law rather"
            " than guess its worst event."
        )
    steps.append(Step(privacy))
    stem = name or f"law-{law.name.replace(' ', '-')}"
    point = check_points(law)[0]
    args = " ".join(f"{k}={v}" for k, v in point.items())
    shown = law.name if law.source != "user-defined" else ""
    reproduce = [f"dpcheck derive {stem}"] if shown else []
    reproduce.append(f"dpcheck eval {shown + '.' if shown else ''}var {args} --dps 30")
    if shown and concave:
        scale = point[law.scale]
        others = " ".join(f"--set {k}={v}" for k, v in point.items() if k != law.scale)
        reproduce.append(
            f"dpcheck privacy {law.name} --sensitivity 1 --scale {scale} --epsilon 1"
            + (f" {others}" if others else "")
        )
    return Checked(
        name=stem,
        title=f"The noise law {law.name}",
        source=law.source or "dpcheck.laws",
        summary="Everything below is derived from the kernel alone by dpcheck.laws.",
        steps=tuple(steps),
        printed=(),
        checks=tuple(_cross_checks(law)),
        reproduce=tuple(reproduce),
    )


def builders() -> dict[str, Callable[[], Checked]]:
    """One derivation per shipped law, by file name (``law-<name>``)."""
    from dpcheck.laws.registry import LAWS

    return {f"law-{name}": partial(derivation, law) for name, law in LAWS.items()}


__all__ = ["builders", "check_points", "derivation"]
