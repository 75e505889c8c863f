"""Derivations of the mechanism algebra (issue 18): the mean and the variance of the
truncated and clamped Gaussian and two-sided geometric mechanisms and of the folded
Laplace mechanism, from the law engine, every displayed equality checked.

The truncated and clamped Laplace mechanisms are Liu's truncated and BIT
mechanisms (:mod:`dpcheck.derivations.liu2019`); they are not repeated.  The
steps are the engine's (:mod:`dpcheck.symbolic.laws`): the Gaussian's integrals
are taken in z = (x - s)/σ, each term z^k e^{-z²/2} integrated to erf and
exponentials (:func:`laws.integrate_piece`); the geometric law's sums are split
at m = 0 and summed in closed form (:func:`laws._sum_run`); a clamped law's
point masses are tail masses of the base law; the folded law's density is the
sum of the Laplace density over the images of the fold
(:mod:`dpcheck.symbolic.folding`).  Every displayed equality is proved when the
file is built (:class:`dpcheck.derivations.stepcheck.Checker`); the final
forms, in standard notation (a, b, Φ, φ for the Gaussian; α, α^{s-c_0},
α^{c_1-s} for the geometric; E_0, E_1 for the Laplace), are proved equal to
the engine's quantities (:func:`dpcheck.symbolic.mechanisms.quantity`) and
evaluated against an independent numerical route.  These mechanisms have no
paper claims: each derivation ends with the checks performed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy as sp

from dpcheck.derivations import stepcheck
from dpcheck.derivations.document import HEADER, Derivation, Step
from dpcheck.derivations.notation import E0, E1, display, tex
from dpcheck.derivations.stepcheck import Checker, Shown, StepNotChecked
from dpcheck.symbolic import folding, laws
from dpcheck.symbolic import mechanisms as M
from dpcheck.symbolic.symbols import alpha, c0, c1, lam, m, s, sigma, x, z

# --------------------------------------------------------------------------- notation
#: Gaussian: the standardised bounds, Φ and φ, the normaliser
a = Shown("a_std", "a", real=True)
b = Shown("b_std", "b", real=True)
Phi = stepcheck.shown_function("Phi", r"\Phi")
phi = stepcheck.shown_function("phi", r"\phi")
N = Shown("N_mass", "N", positive=True)
f = stepcheck.shown_function("f", "f")
p = stepcheck.shown_function("p", "p")
#: geometric: α^{s - c0}, α^{c1 - s}, the distances (as factors and as sum limits)
A0 = Shown("A_0", r"{\alpha^{s - c_{0}}}", positive=True)
A1 = Shown("A_1", r"{\alpha^{c_{1} - s}}", positive=True)
D0 = Shown("D_0", r"(s - c_{0})", nonnegative=True)
D1 = Shown("D_1", r"(c_{1} - s)", nonnegative=True)
L0 = Shown("L_0", r"s - c_{0}", nonnegative=True)
L1 = Shown("L_1", r"c_{1} - s", nonnegative=True)
J = sp.Symbol("j", integer=True, positive=True)
#: the central moments E(s* - s), E(s* - s)^2, and their displayed forms m_1, m_2
M1 = Shown("M_1", r"\mathrm{E}(s^* - s)")
M2 = Shown("M_2", r"\mathrm{E}(s^* - s)^2")
m1_ = Shown("m_1_shown", "m_1")
m2_ = Shown("m_2_shown", "m_2")


#: folded law: q = e^{-2R/λ}, R = c1 - c0 (the ratio of its geometric series in k)
Q = Shown("q_fold", "q", positive=True)
#: f_fold(x): the density of the folded law
Fold = stepcheck.shown_function("f_fold", r"f_{\mathrm{fold}}")


def _phi_rule(u: sp.Expr) -> sp.Expr:
    return sp.exp(-(u**2) / 2) / sp.sqrt(2 * sp.pi)


def _Phi_rule(u: sp.Expr) -> sp.Expr:
    return (1 + sp.erf(u / sp.sqrt(2))) / 2


#: the meaning of every notation symbol that does not depend on the mechanism
_COMMON = {
    a: (c0 - s) / sigma,
    b: (c1 - s) / sigma,
    A0: alpha ** (s - c0),
    A1: alpha ** (c1 - s),
    D0: s - c0,
    D1: c1 - s,
    L0: s - c0,
    L1: c1 - s,
    E0: sp.exp((c0 - s) / lam),
    E1: sp.exp((s - c1) / lam),
    folding.width: c1 - c0,
    Q: sp.exp(-2 * folding.width / lam),
}


def _with_q(expr: sp.Expr) -> sp.Expr:
    """e^{-2R/λ} written q."""
    return expr.subs(sp.exp(-2 * folding.width / lam), Q)


def _checker(mechanism: str, quantity: str = "mean") -> Checker:
    """The step checker with the notation of one mechanism (N for a truncated law; the
    central moments M_1, M_2 for a variance)."""
    bounding, base = M._check_sides(mechanism, "both")
    symbols: dict[sp.Symbol, sp.Expr] = dict(_COMMON)
    if bounding == "truncated":
        symbols[N] = M.quantity(mechanism, "normaliser")
    if quantity == "var":
        symbols[M1] = M.quantity(mechanism, "bias")
        symbols[M2] = M.quantity(mechanism, "mse")
    functions: dict[type, Callable[[sp.Expr], sp.Expr]] = {Phi: _Phi_rule, phi: _phi_rule}
    if base == "gaussian":
        functions[f] = lambda u: laws.gaussian_density().subs(x, u)
        return Checker(symbols, functions, standardise=(x, sigma))
    if base == "geometric":
        functions[p] = lambda u: laws.geometric_pmf().subs(m, u)
        return Checker(symbols, functions)
    functions[f] = lambda u: laws.laplace_density().subs(x, u)
    functions[Fold] = lambda u: folding.density().subs(x, u)
    return Checker(symbols, functions)


# --------------------------------------------------------------------------- presenting
def _merge_exponentials(expr: sp.Expr) -> sp.Expr:
    """Exponentials split into factors, cancelled, and merged again (exponents expanded)."""

    def expand_arg(e: sp.Expr) -> sp.Expr:
        return sp.exp(sp.expand(e.args[0]))

    expr = expr.replace(lambda e: isinstance(e, sp.exp), expand_arg)
    expr = sp.cancel(sp.together(sp.expand(expr, power_exp=True)))
    expr = sp.powsimp(expr, combine="exp")
    return expr.replace(lambda e: isinstance(e, sp.exp), expand_arg)


def in_ab(expr: sp.Expr) -> sp.Expr:
    """A Gaussian expression with c0 = s + σa, c1 = s + σb (erf and exp kept): each
    term's exponentials merged into one with an expanded exponent."""
    out = sp.expand(sp.sympify(expr).subs({c0: s + sigma * a, c1: s + sigma * b}))
    out = sp.Add(*(sp.powsimp(term, combine="exp") for term in sp.Add.make_args(out)))
    out = out.replace(lambda e: isinstance(e, sp.exp), lambda e: sp.exp(sp.expand(e.args[0])))
    return out.replace(lambda e: isinstance(e, sp.erf), lambda e: sp.erf(sp.expand(e.args[0])))


def in_phi(expr: sp.Expr) -> sp.Expr:
    """erf(u/√2) = 2Φ(u) - 1 and e^{-u²/2} = √(2π)φ(u) for u = a, b (nothing else left)."""

    def erf_(u: sp.Expr) -> sp.Expr:
        w = sp.expand(sp.sqrt(2) * u)
        for v in (a, b):
            if w == v:
                return 2 * Phi(v) - 1
            if w == -v:
                return 1 - 2 * Phi(v)
        raise StepNotChecked(f"erf({u}) is not erf(a/sqrt2) or erf(b/sqrt2)")

    def exp_(u: sp.Expr) -> sp.Expr:
        out = sp.Integer(1)
        for term in sp.Add.make_args(sp.expand(u)):
            for v in (a, b):
                k = sp.cancel(term / (-(v**2) / 2))
                if k.is_Integer:
                    out *= (sp.sqrt(2 * sp.pi) * phi(v)) ** k
                    break
            else:
                raise StepNotChecked(f"exp({u}) is not a power of exp(-a²/2), exp(-b²/2)")
        return out

    out = _merge_exponentials(in_ab(expr)).replace(sp.erf, erf_).replace(sp.exp, exp_)
    return sp.cancel(sp.together(out))


def _laurent(expr: sp.Expr, den: sp.Symbol) -> sp.Expr:
    """A polynomial in 1/den, each coefficient collected in a, b and factored."""
    w = sp.Dummy("w")
    poly = sp.Poly(sp.expand(expr.subs(den, 1 / w)), w)
    out = sp.Integer(0)
    for (k,), coefficient in poly.terms():
        out += sp.collect(sp.factor(coefficient), [a, b]) / den**k
    return out


def gaussian_form(expr: sp.Expr, truncated: bool) -> sp.Expr:
    """In a, b, Φ, φ; truncated: in N = Φ(b) - Φ(a) (Φ left nowhere else)."""
    out = in_phi(expr)
    if truncated:
        out = sp.cancel(out.subs(Phi(b), N + Phi(a)))
        if out.has(Phi):
            raise StepNotChecked(f"{out} is not a function of N = Phi(b) - Phi(a)")
        return _laurent(out, N)
    return sp.collect(sp.expand(out), [a, b])


def in_alpha(expr: sp.Expr) -> sp.Expr:
    """A geometric expression in α, α^{s-c0}, α^{c1-s} and the distances s - c0, c1 - s."""
    out = sp.sympify(expr).subs({c0: s - D0, c1: s + D1})
    out = out.replace(
        lambda e: isinstance(e, sp.Pow) and e.base == alpha, lambda e: alpha ** sp.expand(e.exp)
    )
    out = sp.expand(out, power_exp=True).subs({alpha**D0: A0, alpha**D1: A1})
    if out.has(D0) and any(
        isinstance(e, sp.Pow) and e.exp.has(D0, D1) for e in sp.preorder_traversal(out)
    ):
        raise StepNotChecked(f"{out} keeps a power of alpha other than alpha^(s-c0), alpha^(c1-s)")
    return out


def _sign_normal(factor: sp.Expr) -> tuple[sp.Expr, int]:
    """(±factor, ±1) with the constant term (else the leading coefficient) positive."""
    expanded = sp.expand(factor)
    constant = expanded.subs({g: 0 for g in expanded.free_symbols})
    if constant.is_negative or (constant == 0 and expanded.could_extract_minus_sign()):
        return -expanded, -1
    return factor, 1


def arrange(expr: sp.Expr, gens: list[sp.Symbol]) -> sp.Expr:
    """One fraction: numerator collected in ``gens`` (coefficients collected in the
    distances and factored, a common factor taken out), denominator factored with
    each factor's constant term positive (1 - α, not α - 1)."""
    num, den = sp.fraction(sp.cancel(sp.together(expr)))
    coefficient, factors = sp.factor_list(den)
    sign = 1
    kept = []
    for factor, power in factors:
        factor, flip = _sign_normal(factor.as_expr())
        sign *= flip**power
        kept.append(sp.collect(factor, gens) ** power)
    num = sp.expand(num * sign)
    if coefficient < 0:
        num, coefficient = -num, -coefficient
    poly = sp.Poly(num, *gens)
    common = sp.factor(sp.gcd_list([c for _, c in poly.terms()]))
    terms = []
    for monomial, c in poly.terms():
        part = sp.collect(sp.expand(sp.cancel(c / common)), [D0, D1, E0, E1], func=sp.factor)
        terms.append(part * sp.Mul(*(g**k for g, k in zip(gens, monomial, strict=True))))
    return common * sp.Add(*terms) / (coefficient * sp.Mul(*kept))


def geometric_form(expr: sp.Expr) -> sp.Expr:
    """In α, α^{s-c0}, α^{c1-s}, s - c0, c1 - s, arranged."""
    return arrange(in_alpha(expr), [A0, A1])


def in_e(expr: sp.Expr) -> sp.Expr:
    """Every exponential e^{(p(c_0 - s) + q(s - c_1))/λ} as E_0^p E_1^q (Liu's
    abbreviations); an exponential of another argument is an error."""

    def swap(e: sp.exp) -> sp.Expr:
        u = sp.expand(e.args[0] * lam)
        p_, q_ = u.coeff(c0), -u.coeff(c1)
        if sp.expand(u - p_ * (c0 - s) - q_ * (s - c1)) != 0:
            raise StepNotChecked(f"exp({e.args[0]}) is not a product of powers of E_0, E_1")
        return E0**p_ * E1**q_

    out = sp.powsimp(sp.expand(sp.sympify(expr), power_exp=False), combine="exp", deep=True)
    return out.replace(lambda e: isinstance(e, sp.exp), swap)


def laplace_value(expr: sp.Expr) -> sp.Expr:
    """An integral's value in E_0, E_1, arranged."""
    return arrange(in_e(expr), [E0, E1])


def laplace_form(expr: sp.Expr) -> sp.Expr:
    """A quantity in E_0, E_1 and s - c0, c1 - s, arranged."""
    return arrange(in_e(expr).subs({c0: s - D0, c1: s + D1}), [E0, E1])


# --------------------------------------------------------------------------- document
@dataclass(frozen=True)
class Checked(Derivation):
    """A derivation of the mechanism algebra: it ends with the checks performed, not with
    paper claims (``printed`` is empty)."""

    checks: tuple[str, ...] = ()
    reproduce: tuple[str, ...] = ()
    #: the last displayed form, in the engine's symbols (notation expanded)
    result: sp.Expr | None = None


def render(d: Checked) -> str:
    """The LaTeX of a checked derivation: the steps, then the checks performed."""
    out = [HEADER.format(name=d.name)]
    out.append(f"\\section{{{d.title}}}\\label{{sec:{d.name}}}\n")
    out.append(f"\\noindent\\textit{{Source: {d.source}.}} {d.summary}\n")
    for i, step in enumerate(d.steps, 1):
        out.append(f"\\paragraph{{Step {i}.}} {step.words}")
        out.extend(step.math)
        out.append("")
    out.append("\\paragraph{Checks performed.}")
    out.extend(d.checks)
    out.append("")
    text = _TEXTTT.sub(_breakable, "\n".join(out))
    commands = ",\\newline ".join(f"\\texttt{{{command}}}" for command in d.reproduce)
    return text.rstrip() + f"\n\nReproduce: {commands}.\n"


_TEXTTT = re.compile(r"\\texttt\{([^{}]*)\}")


def _breakable(match: re.Match[str]) -> str:
    """A module or mechanism name in typewriter type that may break after . and -."""
    body = re.sub(r"([.-])", r"\1\\allowbreak{}", match.group(1))
    return f"\\texttt{{{body}}}"


def _integral(integrand: sp.Expr, v: sp.Symbol, lower: sp.Expr, upper: sp.Expr) -> sp.Integral:
    return sp.Integral(integrand, (v, lower, upper))


# --------------------------------------------------------------------------- numbers
#: the points of the numerical cross-checks, per base (s inside, off-centre)
POINTS = {
    "gaussian": {
        "s": Fraction(1, 5),
        "c0": Fraction(-1, 2),
        "c1": Fraction(1),
        "sigma": Fraction(3, 5),
    },
    "geometric": {"s": Fraction(2), "c0": Fraction(-1), "c1": Fraction(6), "alpha": Fraction(1, 3)},
    "laplace": {"s": Fraction(3, 10), "c0": Fraction(0), "c1": Fraction(1), "lam": Fraction(1, 2)},
}
_NATIVE = {"s": s, "c0": c0, "c1": c1, "sigma": sigma, "alpha": alpha, "lam": lam}
_TEX = {
    "s": "s",
    "c0": "c_0",
    "c1": "c_1",
    "sigma": "\\sigma",
    "alpha": "\\alpha",
    "lam": "\\lambda",
}
DPS = 30


def _mp(v: Fraction) -> mpmath.mpf:
    return mpmath.mpf(v.numerator) / v.denominator


def _periods(scale: mpmath.mpf, width: mpmath.mpf, dps: int) -> int:
    """Periods 2K of the fold to integrate over so that the Laplace mass beyond,
    at most e^{-(K - 1)R/λ}, is below 10^{-dps-5}."""
    return 2 * (int(mpmath.ceil((dps + 5) * mpmath.log(10) * scale / width)) + 2)


def independent(
    mechanism: str, quantity: str, point: dict[str, Fraction], dps: int = DPS
) -> mpmath.mpf | Fraction:
    """The mean or variance at ``point`` by a route that uses none of the symbolic forms:
    mpmath quadrature of the Gaussian or Laplace density (the fold map applied to x,
    over :func:`_periods` periods), exact rational sums of the geometric pmf (the
    tails by symmetry, (1 - P(|X - s| <= d))/2)."""
    bounding, base = M._check_sides(mechanism, "both")
    s_, lo, hi = point["s"], point["c0"], point["c1"]
    if base == "geometric":
        q = point["alpha"]

        def pmf(j: int) -> Fraction:
            return (1 - q) / (1 + q) * q ** abs(j)

        def tail(d: int) -> Fraction:
            return (1 - sum(pmf(j) for j in range(-d, d + 1))) / 2

        inside = {j: pmf(j) for j in range(int(lo - s_), int(hi - s_) + 1)}

        def exact(k: int) -> Fraction:
            moment = sum(mass * Fraction(j) ** k for j, mass in inside.items())
            if bounding == "truncated":
                return moment / sum(inside.values())
            return (
                moment + tail(int(s_ - lo)) * (lo - s_) ** k + tail(int(hi - s_)) * (hi - s_) ** k
            )

        m1 = exact(1)
        return s_ + m1 if quantity == "mean" else exact(2) - m1**2
    with mpmath.workdps(dps + 10):
        S, C0, C1 = (_mp(v) for v in (s_, lo, hi))
        if base == "gaussian":
            sd = _mp(point["sigma"])

            def central(k: int) -> mpmath.mpf:
                inner = mpmath.quad(lambda t: (t - S) ** k * mpmath.npdf(t, S, sd), [C0, S, C1])
                below, above = mpmath.ncdf(C0, S, sd), 1 - mpmath.ncdf(C1, S, sd)
                if bounding == "truncated":
                    return inner / (1 - below - above)
                return inner + (C0 - S) ** k * below + (C1 - S) ** k * above

        else:
            scale, width = _mp(point["lam"]), C1 - C0
            half = _periods(scale, width, dps) // 2

            def folded(t: mpmath.mpf, period: int) -> mpmath.mpf:
                offset = t - C0 - period * width
                return C0 + offset if period % 2 == 0 else C1 - offset

            def central(k: int) -> mpmath.mpf:
                total = mpmath.mpf(0)
                for period in range(-half, half):
                    lo_, hi_ = C0 + period * width, C0 + (period + 1) * width
                    nodes = [lo_, S, hi_] if lo_ < S < hi_ else [lo_, hi_]
                    total += mpmath.quad(
                        lambda t, period=period: (
                            (folded(t, period) - S) ** k
                            * mpmath.exp(-abs(t - S) / scale)
                            / (2 * scale)
                        ),
                        nodes,
                    )
                return total

        m1 = central(1)
        return S + m1 if quantity == "mean" else central(2) - m1**2


def cross_check(mechanism: str, quantity: str, checker: Checker, final: sp.Expr) -> str:
    """The displayed result at the base's point against the independent route and
    against ``dpcheck eval``; raises StepNotChecked on a disagreement."""
    from dpcheck.numeric import mechanism_mp

    _, base = M._check_sides(mechanism, "both")
    point = POINTS[base]
    values = {_NATIVE[k]: sp.Rational(v.numerator, v.denominator) for k, v in point.items()}
    shown = checker.meaning(final).subs(values)
    reference = independent(mechanism, quantity, point)
    tolerance = mpmath.mpf(10) ** (5 - DPS)
    with mpmath.workdps(DPS):
        evaluated = mechanism_mp.evaluate(
            f"{mechanism}.{quantity}", {k: str(v) for k, v in point.items()}, dps=DPS
        )
        if isinstance(reference, Fraction):
            if sp.Rational(reference.numerator, reference.denominator) != sp.cancel(shown):
                raise StepNotChecked(f"{mechanism}.{quantity}: {shown} != {reference}")
            agreement = "are equal (exact rational arithmetic)"
            reference = _mp(reference)
        else:
            value = mpmath.mpf(str(sp.N(shown, DPS + 10)))
            if abs(value - reference) > tolerance * max(1, abs(value)):
                raise StepNotChecked(f"{mechanism}.{quantity}: {value} != {reference}")
            agreement = f"agree to within $10^{{{5 - DPS}}}$"
        if abs(evaluated - reference) > tolerance * max(1, abs(evaluated)):
            raise StepNotChecked(f"dpcheck eval {mechanism}.{quantity} = {evaluated}")
        printed = mpmath.nstr(reference, 15)
    at = ", ".join(f"${_TEX[k]} = {_frac(v)}$" for k, v in point.items())
    if base == "laplace":
        periods = _periods(_mp(point["lam"]), _mp(point["c1"] - point["c0"]), DPS)
        route = (
            "mpmath quadrature of the Laplace density with the fold map applied to $x$, "
            f"over {periods} periods of the fold (the mass beyond is below $10^{{{-DPS - 5}}}$)"
        )
    else:
        route = {
            "gaussian": "mpmath quadrature of the normal density, and its distribution "
            "function for the normaliser or the point masses",
            "geometric": "direct rational sums of the pmf over the run, the tails by symmetry, "
            "$(1 - P(|X - s| \\le d))/2$",
        }[base]
    return (
        f"At {at} the displayed result and an independent route ({route}) {agreement}: "
        f"{printed}; \\texttt{{dpcheck eval}} gives the same to {DPS - 5} digits."
    )


def _frac(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    sign = "-" if v < 0 else ""
    return f"{sign}\\frac{{{abs(v.numerator)}}}{{{v.denominator}}}"


def _eval_command(mechanism: str, quantity: str) -> str:
    _, base = M._check_sides(mechanism, "both")
    args = " ".join(f"{k}={v}" for k, v in POINTS[base].items())
    return f"dpcheck eval {mechanism}.{quantity} {args} --dps {DPS}"


# --------------------------------------------------------------------------- builders
#: the mechanisms derived here (Liu's truncated and BIT Laplace are not repeated)
MECHANISMS = (
    "truncated-gaussian",
    "clamped-gaussian",
    "truncated-geometric",
    "clamped-geometric",
    "folded-laplace",
)
LABELS = {
    "truncated-gaussian": "Truncated Gaussian",
    "clamped-gaussian": "Clamped Gaussian",
    "truncated-geometric": "Truncated geometric",
    "clamped-geometric": "Clamped geometric",
    "folded-laplace": "Folded Laplace",
}
QUANTITY_TITLES = {"mean": "the mean", "var": "the variance"}
MEAN = r"\mathrm{E}\,s^*"
VAR = r"\mathrm{Var}\,s^*"
_MOMENT_TEX = {1: M1, 2: M2}


def _central(k: int) -> sp.Expr:
    return (x - s) ** k


def _antiderivative_step(checker: Checker, integrands: list[sp.Expr]) -> Step:
    """The antiderivatives in z of the kernels z^k e^{-z^2/2} the integrands are made of."""
    kernels: list[sp.Expr] = []
    for integrand in integrands:
        for term in sp.Add.make_args(sp.expand(integrand)):
            kernel = term.as_independent(z, as_Add=False)[1]
            if kernel not in kernels:
                kernels.append(kernel)
    kernels.sort(key=lambda k: sp.degree(k.as_independent(sp.exp)[0], z))
    math = tuple(
        f"\\[ \\int {tex(k)}\\,dz = {tex(checker.antiderivative(k, z))} + C \\]" for k in kernels
    )
    return Step(
        "After the change of variable $x = s + \\sigma z$ ($dx = \\sigma\\,dz$, the bounds "
        "$c_0, c_1$ become $a, b$) every integrand is a sum of $z^k e^{-z^2/2}$ times factors "
        "free of $z$. Their antiderivatives (the engine's, each checked by differentiating "
        "it back to the integrand):",
        math,
    )


def _gaussian_trace(g: sp.Expr, lower: sp.Expr, upper: sp.Expr) -> laws.IntegralStep:
    """The engine's integral of g times the Gaussian kernel over [lower, upper], in z."""
    piece = laws.gaussian().pieces[0]
    steps: list[laws.IntegralStep] = []
    laws.integrate_piece(g, laws.Piece(lower, upper, piece.kernel, scale=sigma), steps)
    (step,) = steps
    return step


def _z_integral(step: laws.IntegralStep) -> sp.Integral:
    return _integral(step.integrand, z, in_ab(step.lower), in_ab(step.upper))


def gaussian(mechanism: str, quantity: str) -> Checked:
    """Mean or variance of the truncated or clamped Gaussian mechanism."""
    checker = _checker(mechanism, quantity)
    bounding, _ = M._check_sides(mechanism, "both")
    truncated = bounding == "truncated"
    law = M.law(mechanism)
    notation = (
        "Write $a = (c_0 - s)/\\sigma$, $b = (c_1 - s)/\\sigma$ for the standardised bounds, "
        "$\\phi(u) = e^{-u^2/2}/\\sqrt{2\\pi}$ and $\\Phi(u) = (1 + \\mathrm{erf}(u/\\sqrt{2}))/2$ "
        "for the standard normal density and distribution function."
    )
    f_x = stepcheck.typeset("f(x)", [laws.gaussian_density()])
    if truncated:
        mass = _gaussian_trace(sp.Integer(1), c0, c1)
        law_step = Step(
            "The truncated Gaussian mechanism reports $X \\sim N(s, \\sigma^2)$ conditioned on "
            "$[c_0, c_1]$ (\\texttt{laws.condition}): density $f(x)/N$ on $[c_0, c_1]$, "
            f"$N = P(c_0 \\le X \\le c_1)$. {notation} In $z = (x - s)/\\sigma$ the "
            "normaliser is an integral of $e^{-z^2/2}$:",
            (
                f_x,
                *checker.chain(
                    "N",
                    [
                        _integral(f(x), x, c0, c1),
                        _z_integral(mass),
                        in_ab(mass.value),
                        gaussian_form(mass.value, truncated=False),
                    ],
                    value=N,
                ),
            ),
        )
        traces = [mass]
        atoms_shown: dict[int, sp.Expr] = {}
    else:
        math = [f_x]
        traces = []
        atoms_shown = {}
        for atom, (lo, hi) in zip(law.atoms, ((-sp.oo, c0), (c1, sp.oo)), strict=True):
            tail = _gaussian_trace(sp.Integer(1), lo, hi)
            traces.append(tail)
            shown = gaussian_form(atom.mass, truncated=False)
            atoms_shown[0 if atom.point == c0 else 1] = shown
            math += checker.chain(
                f"P(s^* = {tex(atom.point)})",
                [_integral(f(x), x, lo, hi), _z_integral(tail), in_ab(tail.value), shown],
                value=atom.mass,
            )
        law_step = Step(
            "The clamped Gaussian mechanism reports $\\min(\\max(X, c_0), c_1)$, "
            "$X \\sim N(s, \\sigma^2)$ (\\texttt{laws.clamp}): the density $f$ on $(c_0, c_1)$ "
            f"and the two tail masses as point masses at the bounds. {notation}",
            tuple(math),
        )

    def moment_chain(g: sp.Expr, lhs: str, value: sp.Expr, final: sp.Expr) -> tuple[str, ...]:
        step = _gaussian_trace(g, c0, c1)
        traces.append(step)
        x_form = _integral(g * f(x), x, c0, c1)
        z_form = _z_integral(step)
        erf_form = in_ab(step.value)
        if truncated:
            forms = [x_form / N, z_form / N, erf_form / N, final]
        else:
            outside = sum(
                (g.subs(x, point) * atoms_shown[i] for i, point in enumerate((c0, c1))),
                sp.Integer(0),
            )
            forms = [outside + x_form, outside + z_form, outside + erf_form, final]
        return checker.chain(lhs, forms, value=value)

    def standard(moment: sp.Expr, power: int) -> sp.Expr:
        """E((s* - s)/σ)^power in the standard notation."""
        return gaussian_form(sp.expand(moment / sigma**power), truncated)

    how = (
        "divide by $N$, and write the result in $a, b, \\Phi, \\phi$ and $N = \\Phi(b) - \\Phi(a)$"
        if truncated
        else "add the point masses times the values at the bounds, and write the result in "
        "$a, b, \\Phi, \\phi$"
    )
    if quantity == "mean":
        final = s + sigma * standard(M.quantity(mechanism, "mean") - s, 1)
        moment_math = moment_chain(x, MEAN, M.quantity(mechanism, "mean"), final)
        body = [
            Step(
                f"Write ${MEAN}$ as the integral of $x$ against the law, change the variable "
                f"to $z$, integrate (Step~2), {how}.",
                moment_math,
            )
        ]
    else:
        m1 = standard(M.quantity(mechanism, "bias"), 1)
        m2 = standard(M.quantity(mechanism, "mse"), 2)
        first = moment_chain(
            _central(1), r"\mathrm{E}(s^* - s)", M.quantity(mechanism, "bias"), sigma * m1
        )
        second = moment_chain(
            _central(2), r"\mathrm{E}(s^* - s)^2", M.quantity(mechanism, "mse"), sigma**2 * m2
        )
        if truncated:
            final = sigma**2 * (m2 - m1**2)
            last = "Subtract the square of the first moment from the second."
        else:
            checker.define(m1_, m1)
            checker.define(m2_, m2)
            final = sigma**2 * (m2_ - m1_**2)
            last = (
                "Subtract the square of the first moment from the second; $m_1$ and $m_2$ are "
                "the brackets above, the moments of $(s^* - s)/\\sigma$."
            )
        body = [
            Step(
                "The variance does not change when $s$ is subtracted: "
                f"${VAR} = \\mathrm{{E}}(s^* - s)^2 - (\\mathrm{{E}}(s^* - s))^2$. Write the two "
                f"moments as integrals against the law, change the variable to $z$, integrate "
                f"(Step~2), {how}.",
                (*first, *second),
            ),
            Step(
                last,
                checker.chain(VAR, [M2 - M1**2, final], value=M.quantity(mechanism, "var")),
            ),
        ]
    steps = [law_step, _antiderivative_step(checker, [t.integrand for t in traces]), *body]
    return _finish(mechanism, quantity, checker, steps, final)


def _finish(
    mechanism: str, quantity: str, checker: Checker, steps: list[Step], final: sp.Expr
) -> Checked:
    """The derivation, ending with the checks performed and the numerical cross-check."""
    numbers = cross_check(mechanism, quantity, checker, final)
    checks = (
        "Every displayed equality above was proved when this file was built "
        f"(\\texttt{{dpcheck.derivations.stepcheck}}): {checker.report()}. "
        "The last displayed form is the engine's "
        f"\\texttt{{{mechanism}.{quantity}}} (\\texttt{{symbolic.mechanisms.quantity}}), "
        "proved equal in the same way.",
        numbers,
    )
    name = f"{mechanism}-{'mean' if quantity == 'mean' else 'variance'}"
    return Checked(
        name,
        f"{LABELS[mechanism]} mechanism: {QUANTITY_TITLES[quantity]}",
        "the mechanism algebra (issue 18), \\texttt{symbolic.laws}",
        f"{QUANTITY_TITLES[quantity].capitalize()} of the output $s^*$ of the "
        f"\\texttt{{{mechanism}}} mechanism, derived from its law by the engine's steps. "
        "No paper prints it: the derivation ends with the checks performed.",
        tuple(steps),
        (),
        checks=checks,
        reproduce=(f"dpcheck derive {name}", _eval_command(mechanism, quantity)),
        result=checker.meaning(final),
    )


# --------------------------------------------------------------------------- geometric
def _split(kernel: sp.Expr) -> sp.Expr:
    """The engine's split of Σ_{m=c0-s}^{c1-s} kernel(m) at m = 0 (|m| resolved), displayed."""
    below = laws.resolve_abs(kernel, -1, m, 0).subs(m, -J)
    above = laws.resolve_abs(kernel, 1, m, 0).subs(m, J)
    return kernel.subs(m, 0) + sp.Sum(below, (J, 1, L0)) + sp.Sum(above, (J, 1, L1))


def _runs(checker: Checker, kernel: sp.Expr) -> tuple[str, ...]:
    """Each run of the split summed in the engine's closed form (proved by induction)."""
    out: list[str] = []
    for side, limit, count in ((-1, L0, s - c0), (1, L1, c1 - s)):
        term = laws.resolve_abs(kernel, side, m, 0).subs(m, side * J)
        closed = checker.closed_sum(term).subs(stepcheck._K, count)
        out += checker.chain(
            tex(sp.Sum(term, (J, 1, limit))),
            [geometric_form(closed)],
            value=sp.Sum(term, (J, 1, limit)),
        )
    return tuple(out)


def geometric(mechanism: str, quantity: str) -> Checked:
    """Mean or variance of the truncated or clamped two-sided geometric mechanism."""
    checker = _checker(mechanism, quantity)
    bounding, _ = M._check_sides(mechanism, "both")
    truncated = bounding == "truncated"
    law = M.law(mechanism)
    pmf = laws.geometric_pmf()
    notation = (
        "The two-sided geometric law puts mass $p(m)$ at $s + m$, $m \\in \\mathbb{Z}$, with "
        "$\\alpha = e^{-1/b} \\in (0, 1)$ ($b$ the scale); $s, c_0, c_1$ are integers, so "
        "$s - c_0$ and $c_1 - s$ are integers $\\ge 0$. Powers $\\alpha^{s - c_0}$ and "
        "$\\alpha^{c_1 - s}$ are kept as they are."
    )
    math: list[str] = [stepcheck.typeset("p(m)", [pmf])]
    outside = sp.Integer(0)
    atoms_shown: list[tuple[sp.Expr, sp.Expr]] = []
    if truncated:
        math += checker.chain(
            "N",
            [
                sp.Sum(p(m), (m, c0 - s, c1 - s)),
                _split(pmf),
                geometric_form(M.quantity(mechanism, "normaliser")),
            ],
            value=N,
        )
        law_words = (
            "The truncated geometric mechanism reports $X$ conditioned on $[c_0, c_1]$ "
            "(\\texttt{laws.condition}): mass $p(m)/N$ at $s + m$ for "
            "$c_0 - s \\le m \\le c_1 - s$, $N = P(c_0 \\le X \\le c_1)$, summed by splitting "
            f"the run at $m = 0$ where $|m|$ changes sign. {notation}"
        )
    else:
        for atom, side in zip(law.atoms, (-1, 1), strict=True):
            distance = L0 if side < 0 else L1
            term = laws.resolve_abs(pmf, side, m, 0).subs(m, side * (distance + J))
            series = sp.Sum(term, (J, 1, sp.oo))
            shown = geometric_form(atom.mass)
            atoms_shown.append((atom.point, shown))
            relation = "<" if side < 0 else ">"
            math += checker.chain(
                f"P(s^* = {tex(atom.point)}) = P(X {relation} {tex(atom.point)})",
                [series, shown],
                value=atom.mass,
            )
            outside += atom.point * shown
        law_words = (
            "The clamped geometric mechanism reports $\\min(\\max(X, c_0), c_1)$ "
            "(\\texttt{laws.clamp}): the points of the run $c_0 - s \\le m \\le c_1 - s$ keep "
            "their mass $p(m)$, and the tails $X < c_0$, $X > c_1$ become point masses at the "
            "bounds, each a geometric series in the distance $j$ beyond the bound "
            f"($|m| = s - c_0 + j$ below, $c_1 - s + j$ above). {notation}"
        )
    steps = [Step(law_words, tuple(math))]

    def moment(
        g: sp.Expr, lhs: str, value: sp.Expr, final: sp.Expr
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        kernel = g.subs(x, s + m) * pmf
        shown_g = g.subs(x, s + m) * p(m)
        whole, split = sp.Sum(shown_g, (m, c0 - s, c1 - s)), _split(kernel)
        if truncated:
            forms = [whole / N, split / N, final]
        else:
            extra = sum((g.subs(x, pt) * mass for pt, mass in atoms_shown), sp.Integer(0))
            forms = [extra + whole, extra + split, final]
        return checker.chain(lhs, forms, value=value), _runs(checker, kernel)

    def standard(moment: sp.Expr) -> sp.Expr:
        if truncated:  # numerator over N
            return geometric_form(moment * M.quantity(mechanism, "normaliser")) / N
        return geometric_form(moment)

    how = "divide by $N$" if truncated else "add the point masses times the values at the bounds"
    if quantity == "mean":
        final = s + standard(M.quantity(mechanism, "mean") - s)
        chain_math, runs = moment(x, MEAN, M.quantity(mechanism, "mean"), final)
        steps += [
            Step(
                f"Write ${MEAN}$ as the sum of $s + m$ against the law, split the run at $m = 0$ "
                f"and resolve $|m|$ on each side; sum each run in closed form (next step), {how}, "
                "and cancel.",
                chain_math,
            ),
            Step(
                "Each run is a finite sum of a polynomial in $j$ times $\\alpha^j$; its closed "
                "form (the engine's, \\texttt{laws.\\_sum\\_run}) is proved by induction on the "
                "upper limit.",
                runs,
            ),
        ]
    else:
        m1, m2 = standard(M.quantity(mechanism, "bias")), standard(M.quantity(mechanism, "mse"))
        checker.define(m1_, m1)
        checker.define(m2_, m2)
        first, runs1 = moment(
            _central(1), r"\mathrm{E}(s^* - s)", M.quantity(mechanism, "bias"), m1
        )
        second, runs2 = moment(
            _central(2), r"\mathrm{E}(s^* - s)^2", M.quantity(mechanism, "mse"), m2
        )
        final = m2_ - m1_**2
        steps += [
            Step(
                "The variance does not change when $s$ is subtracted: "
                f"${VAR} = \\mathrm{{E}}(s^* - s)^2 - (\\mathrm{{E}}(s^* - s))^2$. Write both "
                "moments as sums of $m^k$ against the law, split the run at $m = 0$, sum each "
                f"run in closed form (next step), {how}, and cancel.",
                (*first, *second),
            ),
            Step(
                "Each run is a finite sum of a polynomial in $j$ times $\\alpha^j$; its closed "
                "form (the engine's, \\texttt{laws.\\_sum\\_run}) is proved by induction on the "
                "upper limit.",
                tuple(dict.fromkeys((*runs1, *runs2))),
            ),
            Step(
                "Subtract the square of the first moment from the second; $m_1$ and $m_2$ are "
                "the last forms of the two moments above.",
                checker.chain(VAR, [M2 - M1**2, final], value=M.quantity(mechanism, "var")),
            ),
        ]
    return _finish(mechanism, quantity, checker, steps, final)


# --------------------------------------------------------------------------- folded
def _image_sums(checker: Checker) -> tuple[list[str], sp.Expr]:
    """Each family and range of k: the side of s proved, |.| resolved, the series summed.

    Returns the displays and the density as the sum of the displayed closed terms.
    """
    k = folding.k
    math: list[str] = []
    density = sp.Integer(0)
    summed = {(fam, rng): term for fam, rng, term in folding.image_terms()}
    for family, image in folding.FAMILIES.items():
        for k_range in folding.RANGES:
            side = folding.side_of_s(image, k_range)
            if k_range == "k=0" and side is None:  # the direct image x itself: |x - s| kept
                density += f(x)
                continue
            if side is None:
                raise StepNotChecked(f"the side of s of {image} for {k_range} is not proved")
            shown = {"k=0": image.subs(k, 0), "k<=-1": image.subs(k, -k)}.get(k_range, image)
            resolved = laws.resolve_abs(laws.laplace_density().subs(x, shown), side, shown)
            checker.resolved(
                f(shown),
                resolved,
                shown,
                side,
                lambda image=image, k_range=k_range, side=side: (
                    folding.side_of_s(image, k_range) == side
                ),
            )
            if k_range == "k=0":
                math += checker.chain(tex(f(shown)), [resolved], value=summed[(family, k_range)])
                density += resolved
                continue
            closed = _with_q(summed[(family, k_range)])
            math += checker.chain(
                tex(sp.Sum(f(shown), (k, 1, sp.oo))),
                [sp.Sum(resolved, (k, 1, sp.oo)), closed],
            )
            density += closed
    return math, density


def _density_shown() -> sp.Expr:
    """The folded density as the sum of the closed image terms (the k = 0 direct term f(x))."""
    total = sp.Integer(0)
    for family, k_range, term in folding.image_terms():
        total += f(x) if (family, k_range) == ("direct", "k=0") else _with_q(term)
    return total


def folded_law() -> Checked:
    """The folded Laplace law: images of the fold, the series summed, total mass 1."""
    checker = _checker("folded-laplace")
    images, density = _image_sums(checker)
    steps = [
        Step(
            "The folded Laplace mechanism (diffprivlib's \\texttt{LaplaceFolded}) reflects "
            "$X \\sim \\mathrm{Lap}(s, \\lambda)$ at the bounds until it lies in $[c_0, c_1]$. "
            "The fold map is even about $c_0$ and $2R$-periodic, $R = c_1 - c_0$, so the output "
            "is $x \\in [c_0, c_1]$ exactly when $X$ is one of the images $x + 2kR$ or "
            "$2c_0 - x + 2kR$, $k \\in \\mathbb{Z}$; the density of the output is the sum of the "
            "Laplace density $f$ over them.",
            (
                stepcheck.typeset("f(x)", [laws.laplace_density()]),
                display(
                    r"f_{\mathrm{fold}}(x)",
                    r"\sum_{k \in \mathbb{Z}} \bigl[f(x + 2kR) + f(2c_0 - x + 2kR)\bigr]",
                ),
            ),
        ),
        Step(
            "For each family and each range of $k$ the side of $s$ on which every image lies "
            "is proved (\\texttt{folding.side\\_of\\_s}: the sign of the image minus $s$ at the "
            "vertices of $c_0 \\le s, x \\le c_1$ and its slope in $k$), which resolves the "
            "absolute value; only $x$ itself ($k = 0$, direct) keeps $|x - s|$. The terms of "
            "each infinite range are a geometric series in $k$ of ratio $q = e^{-2R/\\lambda}$, "
            "$0 < q < 1$, summed:",
            tuple(images),
        ),
        Step(
            "The density is the sum of these terms (the engine's \\texttt{folding.density}):",
            checker.chain(r"f_{\mathrm{fold}}(x)", [density], value=Fold(x)),
        ),
        Step(
            "Its integral over $[c_0, c_1]$ (split at $s$ for the term $f(x)$) is exactly one:",
            checker.chain(
                r"\int_{c_0}^{c_1} f_{\mathrm{fold}}(x)\,dx",
                [sp.Integer(1)],
                value=_integral(Fold(x), x, c0, c1),
            ),
        ),
    ]
    checks = (
        "Every displayed equality above was proved when this file was built "
        f"(\\texttt{{dpcheck.derivations.stepcheck}}): {checker.report()}.",
    )
    return Checked(
        "folded-laplace-law",
        "Folded Laplace law: the density",
        "the mechanism algebra (issue 18), \\texttt{symbolic.folding}",
        "The law of the folded Laplace mechanism on $[c_0, c_1]$, derived by summing the "
        "Laplace density over the images of the fold.",
        tuple(steps),
        (),
        checks=checks,
        reproduce=("dpcheck derive folded-laplace-law",),
    )


def _folded_traces(g: sp.Expr) -> tuple[sp.Expr, list[laws.IntegralStep]]:
    """E g = Σ factor·∫ g·(rest) over [c0, c1], term by term (folding.expectation), traced;
    the integrals grouped by their factor."""
    groups: dict[sp.Expr, list[sp.Expr]] = {}
    traces: list[laws.IntegralStep] = []
    for _, _, term in folding.image_terms():
        factor, rest = term.as_independent(x, as_Add=False)
        steps: list[laws.IntegralStep] = []
        laws.integrate_piece(g, laws.Piece(c0, c1, rest), steps)
        for st in steps:
            integral = _integral(_tidy_integrand(st.integrand), x, st.lower, st.upper)
            groups.setdefault(_with_q(factor), []).append(integral)
        traces += steps
    total = sp.Add(*(factor * sp.Add(*integrals) for factor, integrals in groups.items()))
    return total, traces


def _tidy_integrand(integrand: sp.Expr) -> sp.Expr:
    """An integrand as displayed: each term's exponentials merged, common factors taken
    out, the polynomial factor factored."""
    merged = sp.Add(*(sp.powsimp(t, combine="exp") for t in sp.Add.make_args(sp.expand(integrand))))
    merged = merged.replace(lambda e: isinstance(e, sp.exp), lambda e: sp.exp(sp.factor(e.args[0])))
    parts = sp.Mul.make_args(sp.factor_terms(merged))
    return sp.Mul(*(p_ if isinstance(p_, sp.exp) else sp.factor(p_) for p_ in parts))


def _integral_values(checker: Checker, traces: list[laws.IntegralStep]) -> tuple[str, ...]:
    out: list[str] = []
    for st in traces:
        integral = _integral(_tidy_integrand(st.integrand), x, st.lower, st.upper)
        out += checker.chain(tex(integral), [laplace_value(st.value)], value=integral)
    return tuple(dict.fromkeys(out))


def folded(quantity: str) -> Checked:
    """Mean or variance of the folded Laplace mechanism."""
    mechanism = "folded-laplace"
    checker = _checker(mechanism, quantity)
    law_step = Step(
        "The folded law (Section~\\ref{sec:folded-laplace-law}) has density "
        "$f_{\\mathrm{fold}}$ on $[c_0, c_1]$: the Laplace density $f(x)$ plus five terms "
        "free of $|x - s|$ ($q = e^{-2R/\\lambda}$, $R = c_1 - c_0$). Write "
        "$E_0 = e^{(c_0 - s)/\\lambda}$, "
        "$E_1 = e^{(s - c_1)/\\lambda}$ as in Liu's sections.",
        checker.chain(r"f_{\mathrm{fold}}(x)", [_density_shown()], value=Fold(x)),
    )

    def standard(name: str) -> sp.Expr:
        return laplace_form(M.quantity(mechanism, name))

    def moment(
        g: sp.Expr, lhs: str, value: sp.Expr, final: sp.Expr
    ) -> tuple[tuple[str, ...], list[laws.IntegralStep]]:
        split, traces = _folded_traces(g)
        chain = checker.chain(lhs, [_integral(g * Fold(x), x, c0, c1), split, final], value=value)
        return chain, traces

    words = (
        "integrate term by term (each term is a factor free of $x$ times an exponential in "
        "$x$; the term $f(x)$ is split at $s$ where $|x - s|$ changes sign), add the integrals "
        "(next step) and cancel to one fraction in $E_0, E_1$."
    )
    if quantity == "mean":
        final = s + laplace_form(M.quantity(mechanism, "mean") - s)
        chain, traces = moment(x, MEAN, M.quantity(mechanism, "mean"), final)
        body = [
            Step(
                f"Write ${MEAN}$ as the integral of $x$ against $f_{{\\mathrm{{fold}}}}$, {words}",
                chain,
            ),
            Step(
                "The integrals (each antiderivative checked by differentiation):",
                _integral_values(checker, traces),
            ),
        ]
    else:
        m1, m2 = standard("bias"), standard("mse")
        checker.define(m1_, m1)
        checker.define(m2_, m2)
        first, t1 = moment(_central(1), r"\mathrm{E}(s^* - s)", M.quantity(mechanism, "bias"), m1)
        second, t2 = moment(_central(2), r"\mathrm{E}(s^* - s)^2", M.quantity(mechanism, "mse"), m2)
        final = m2_ - m1_**2
        body = [
            Step(
                "The variance does not change when $s$ is subtracted: "
                f"${VAR} = \\mathrm{{E}}(s^* - s)^2 - (\\mathrm{{E}}(s^* - s))^2$. Write both "
                f"moments as integrals against $f_{{\\mathrm{{fold}}}}$, {words}",
                (*first, *second),
            ),
            Step(
                "The integrals (each antiderivative checked by differentiation):",
                _integral_values(checker, [*t1, *t2]),
            ),
            Step(
                "Subtract the square of the first moment from the second; $m_1$ and $m_2$ are "
                "the last forms of the two moments above.",
                checker.chain(VAR, [M2 - M1**2, final], value=M.quantity(mechanism, "var")),
            ),
        ]
    return _finish(mechanism, quantity, checker, [law_step, *body], final)


# --------------------------------------------------------------------------- registry
def builders() -> dict[str, Callable[[], Checked]]:
    """Every derivation of this module, by file name, in the master's order."""
    from functools import partial

    out: dict[str, Callable[[], Checked]] = {}
    for mechanism in MECHANISMS:
        if mechanism == "folded-laplace":
            out["folded-laplace-law"] = folded_law
        for quantity, stem in (("mean", "mean"), ("var", "variance")):
            if mechanism == "folded-laplace":
                out[f"{mechanism}-{stem}"] = partial(folded, quantity)
            elif mechanism.endswith("gaussian"):
                out[f"{mechanism}-{stem}"] = partial(gaussian, mechanism, quantity)
            else:
                out[f"{mechanism}-{stem}"] = partial(geometric, mechanism, quantity)
    return out


__all__ = [
    "MECHANISMS",
    "Checked",
    "arrange",
    "builders",
    "cross_check",
    "folded",
    "folded_law",
    "gaussian",
    "gaussian_form",
    "geometric",
    "geometric_form",
    "in_ab",
    "in_phi",
    "laplace_form",
    "render",
]
