"""Derivations of Liu (2019) §3: the truncated and BIT laws, their moments, limits,
privacy loss, and the global sensitivities of §2.2.

Every displayed result is an object the verdicts are computed from: the law
engine's integrals (:func:`dpcheck.symbolic.laplace_family.expectation_trace`),
the tidy quantities (:func:`~dpcheck.symbolic.laplace_family.quantity`), the
one-sided limits, the worst-case privacy loss
(:func:`dpcheck.symbolic.privacy.worst_case`) and the exact sensitivities
(:func:`dpcheck.enumeration.sensitivity.exact_sensitivity`).  Where the display
is rewritten (the abbreviations E_0, E_1), the builder checks exactly that the
rewritten form is the same expression, and fails otherwise.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.derivations.document import Derivation, Printed, Step
from dpcheck.derivations.notation import abbreviate, display, expand_abbreviations, tex
from dpcheck.papers import liu2019 as P
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic import laws
from dpcheck.symbolic.rational import is_identically_zero
from dpcheck.symbolic.symbols import c0, c1, s, t0, t1, x

NAMES = {"truncated": "truncated", "bit": "BIT"}
TITLES = {"truncated": "Truncated", "bit": "BIT"}
DEFINITION = {"truncated": "Definition 2(a), eq (4)", "bit": "Definition 2(b), eq (5)"}
#: the moment each quantity integrates, and how it is written
MOMENTS = {
    "mean": (x, r"\mathrm{E}\,s^*", r"x"),
    "second_moment": (x**2, r"\mathrm{E}\,s^{*2}", r"x^2"),
    "mse": ((x - s) ** 2, r"\mathrm{MSE} = \mathrm{E}(s^*-s)^2", r"(x-s)^2"),
}


def shown(expr: sp.Expr) -> sp.Expr:
    """``expr`` in the E_0, E_1 abbreviations, checked to be the same expression."""
    short = abbreviate(expr)
    if not is_identically_zero(expand_abbreviations(short) - expr):
        raise AssertionError(f"abbreviated display differs from {expr}")
    return short


def _integral(a: sp.Expr, b: sp.Expr, integrand: sp.Expr) -> str:
    return rf"\int_{{{tex(a)}}}^{{{tex(b)}}} {tex(integrand)}\,dx"


def _integrated(steps: tuple[laws.IntegralStep, ...] | list[laws.IntegralStep]) -> tuple[str, ...]:
    """Each integral the law engine did, with its value."""
    return tuple(
        display(_integral(st.lower, st.upper, st.integrand), shown(st.value)) for st in steps
    )


def _laplace_mass(a: sp.Expr, b: sp.Expr, expected: sp.Expr) -> list[laws.IntegralStep]:
    """The law engine's integrals of the Laplace density over [a, b], checked to add up to
    ``expected`` (the mass the derived law holds: its normaliser or an atom)."""
    steps: list[laws.IntegralStep] = []
    value = laws.integrate_piece(sp.Integer(1), laws.Piece(a, b, laws.laplace_density()), steps)
    if not is_identically_zero(value - expected):
        raise AssertionError(f"the traced Laplace mass of [{a}, {b}] differs from {expected}")
    return steps


def _law_step(mechanism: str) -> Step:
    f = laws.laplace_density()
    if mechanism == "truncated":
        words = (
            "The truncated law (Definition 2(a)) is Lap$(s,\\lambda)$ conditioned on "
            "$[c_0, c_1]$: density $f(x)/N$ there, with the Laplace density $f$ (eq (2)) and "
            "$N = P(c_0 \\le X \\le c_1)$ derived in Section~\\ref{sec:truncated-normaliser}."
        )
        return Step(words, (display("f(x)", f), display("N", shown(lf.normaliser()))))
    atoms = lf.law("bit").atoms
    words = (
        "The BIT law (Definition 2(b)) is the law of $\\min(\\max(X, c_0), c_1)$, "
        "$X \\sim$ Lap$(s,\\lambda)$: the density $f$ on $(c_0, c_1)$ and point masses at the "
        "bounds, derived in Section~\\ref{sec:bit-law}."
    )
    math = [display("f(x)", f)]
    math += [display(f"P(s^* = {tex(a.point)})", shown(a.mass)) for a in atoms]
    return Step(words, tuple(math))


def _expectation_steps(mechanism: str, quantity: str) -> list[Step]:
    g, lhs, g_tex = MOMENTS[quantity]
    trace = lf.expectation_trace(mechanism, g)
    split = " + ".join(_integral(st.lower, st.upper, st.integrand) for st in trace.integrals)
    atoms = " + ".join(f"{tex(g.subs(x, a.point))}\\,P(s^* = {tex(a.point)})" for a in trace.atoms)
    if mechanism == "truncated":
        whole = rf"\frac{{1}}{{N}}\Bigl[{split}\Bigr]"
        words = (
            f"Write ${lhs}$ as the integral of ${g_tex}$ against the density, split at $s$ "
            "where $|x-s|$ changes sign, and resolve $|x-s|$ on each side."
        )
    else:
        whole = f"{atoms} + {split}"
        words = (
            f"Write ${lhs}$ as the point masses times ${g_tex}$ at the bounds plus the "
            "integral over $(c_0, c_1)$, split at $s$ where $|x-s|$ changes sign."
        )
    steps = [Step(words, (display(lhs.split(" = ")[-1], whole),))]
    steps.append(
        Step(
            "Integrate each piece (plain exponentials times polynomials).",
            _integrated(trace.integrals),
        )
    )
    how = (
        "Add the pieces and divide by $N$"
        if mechanism == "truncated"
        else ("Add the point masses and the pieces")
    )
    steps.append(
        Step(
            f"{how}, then cancel to one fraction in $E_0$, $E_1$.",
            (display(lhs, shown(lf.quantity(mechanism, quantity))),),
        )
    )
    return steps


def normaliser() -> Derivation:
    """N = P(c0 <= X <= c1) for X ~ Lap(s, λ) (eq (4)): the truncated law's normaliser."""
    f = laws.laplace_density()
    steps_ = _laplace_mass(c0, c1, lf.normaliser())
    split = " + ".join(_integral(st.lower, st.upper, st.integrand) for st in steps_)
    steps = (
        Step("The Laplace density of Lap$(s, \\lambda)$ (eq (2)).", (display("f(x)", f),)),
        Step(
            "The normaliser is the Laplace mass of $[c_0, c_1]$; split the integral at $s$ "
            "and resolve $|x - s|$ on each side.",
            (display("N", split),),
        ),
        Step("Integrate each piece.", _integrated(steps_)),
        Step("Add the pieces.", (display("N", shown(lf.normaliser())),)),
        Step(
            "Dividing $f$ by $N$ gives the truncated density; integrating it over "
            "$[c_0, c_1]$ gives $1$ by construction.",
            (display(r"f(x)/N", shown(lf.law("truncated").pieces[0].density)),),
        ),
    )
    return Derivation(
        "truncated-normaliser",
        "Truncated Laplace law: the normaliser",
        "Liu (2019), Definition 2(a), eq (4)",
        "The truncated mechanism draws from Lap$(s, \\lambda)$ conditioned on the bounds.",
        steps,
        (
            Printed(
                "eq (4), the truncated density",
                "liu2019.eq4.normalizer",
                P.EQ4_TRUNCATED_DENSITY.latex,
            ),
        ),
    )


def bit_law() -> Derivation:
    """The BIT law: clamping Lap(s, λ) to [c0, c1] (eq (5))."""
    f = laws.laplace_density()
    derived = lf.law("bit")
    tails = []
    for (a, b), atom in zip(((-sp.oo, c0), (c1, sp.oo)), derived.atoms, strict=True):
        (st,) = _laplace_mass(a, b, atom.mass)
        tails.append(
            display(
                f"P(s^* = {tex(atom.point)})",
                f"{_integral(a, b, st.integrand)} = {tex(shown(atom.mass))}",
            )
        )
    total = laws.total_mass(derived)
    steps = (
        Step(
            "BIT reports $\\min(\\max(X, c_0), c_1)$ with $X \\sim$ Lap$(s, \\lambda)$: every "
            "draw below $c_0$ is reported as $c_0$, every draw above $c_1$ as $c_1$, and inside "
            "the density is unchanged.",
            (display("f(x)", f),),
        ),
        Step(
            "The point masses are the two tail probabilities of the Laplace law; "
            "$|x - s|$ has one sign on each tail.",
            tuple(tails),
        ),
        Step(
            "Check: the masses and the density on $(c_0, c_1)$ add up to one.",
            (display(r"\text{total mass}", sp.simplify(total)),),
        ),
    )
    return Derivation(
        "bit-law",
        "BIT Laplace law: the point masses at the bounds",
        "Liu (2019), Definition 2(b), eq (5)",
        "The boundary-inflated truncated (BIT) mechanism clamps a Laplace draw to the bounds.",
        steps,
        (
            Printed("eq (5), mass at $c_0$", "liu2019.eq5.bit_law", P.EQ5_BIT_MASS_LOWER.latex),
            Printed("eq (5), mass at $c_1$", "liu2019.eq5.bit_law", P.EQ5_BIT_MASS_UPPER.latex),
        ),
    )


_PRINTED = {
    ("truncated", "mean"): (Printed("eq (6)", "liu2019.eq6.mu1", P.EQ6_MU1.latex),),
    ("bit", "mean"): (Printed("eq (7)", "liu2019.eq7.mu2", P.EQ7_MU2.latex),),
    ("truncated", "second_moment"): (
        Printed("App. B, with $B$ and $p_1$, $p_2$ as printed there",
                "liu2019.appB.truncated_moments", P.APPB_TRUNC_SECOND_MOMENT.latex),
        Printed("App. B, $B$", "liu2019.appB.truncated_moments", P.APPB_B.latex),
    ),
    ("bit", "second_moment"): (
        Printed("App. B", "liu2019.appB.bit_moments", P.APPB_BIT_SECOND_MOMENT.latex),
    ),
    ("truncated", "mse"): (
        Printed("App. B, the MSE in $A$ and $B$", "liu2019.appB.truncated_mse_AB",
                P.APPB_TRUNC_MSE_AB.latex),
        Printed("App. B, the boxed expression (the paper's MSE is $2\\lambda^2$ minus it)",
                "liu2019.appB.truncated_mse_chain", P.APPB_TRUNC_BOXED.latex),
    ),
    ("bit", "mse"): (
        Printed("App. B, the last line of the BIT MSE chain", "liu2019.appB.bit_mse",
                P.APPB_BIT_MSE_CHAIN[-1].latex),
    ),
}  # fmt: skip

_TITLES = {"mean": "mean", "second_moment": "second moment", "mse": "mean squared error"}


def moment(mechanism: str, quantity: str) -> Derivation:
    """E s* (eqs (6), (7)), E s*² and MSE (App. B) of one mechanism, from its law."""
    steps = [_law_step(mechanism), *_expectation_steps(mechanism, quantity)]
    source = {
        "mean": "Liu (2019), Proposition 1, eqs (6)-(7)",
        "second_moment": "Liu (2019), Appendix B",
        "mse": "Liu (2019), Proposition 2 and Appendix B",
    }[quantity]
    return Derivation(
        f"{mechanism}-{quantity.replace('_', '-')}",
        f"{TITLES[mechanism]} Laplace mechanism: the {_TITLES[quantity]}",
        source,
        f"The {_TITLES[quantity]} of the sanitised $s^*$ under the {NAMES[mechanism]} law "
        f"({DEFINITION[mechanism]}).",
        tuple(steps),
        _PRINTED[(mechanism, quantity)],
    )


def variance(mechanism: str) -> Derivation:
    """Var s* = E s*² - (E s*)², checked against MSE - bias² (both derived)."""
    mean = lf.quantity(mechanism, "mean")
    second = lf.quantity(mechanism, "second_moment")
    var = lf.quantity(mechanism, "var")
    if not is_identically_zero(second - mean**2 - var):
        raise AssertionError("E s*^2 - (E s*)^2 differs from MSE - bias^2")
    bias = lf.quantity(mechanism, "bias")
    steps = (
        Step(
            "Take the mean and the second moment derived in "
            f"Sections~\\ref{{sec:{mechanism}-mean}} and~\\ref{{sec:{mechanism}-second-moment}}.",
            (
                display(r"\mathrm{E}\,s^*", shown(mean)),
                display(r"\mathrm{E}\,s^{*2}", shown(second)),
            ),
        ),
        Step(
            "Subtract the square of the mean and cancel.",
            (display(r"\mathrm{Var}\,s^* = \mathrm{E}\,s^{*2} - (\mathrm{E}\,s^*)^2", shown(var)),),
        ),
        Step(
            "The same expression is $\\mathrm{MSE} - \\mathrm{bias}^2$ with "
            "$\\mathrm{bias} = \\mathrm{E}\\,s^* - s$ (checked exactly: the difference "
            "reduces to $0$).",
            (display(r"\mathrm{bias}", shown(bias)),),
        ),
    )
    return Derivation(
        f"{mechanism}-variance",
        f"{TITLES[mechanism]} Laplace mechanism: the variance",
        "Liu (2019), §3.2 (the variance enters the MSE of Proposition 2)",
        f"The variance of $s^*$ under the {NAMES[mechanism]} law. The paper prints no "
        "separate formula for it; the verdict below is on the MSE it enters, "
        "$\\mathrm{MSE} = \\mathrm{Var} + \\mathrm{bias}^2$.",
        steps,
        _PRINTED[(mechanism, "mse")][:1],
    )


def one_sided() -> Derivation:
    """The limits c1 → ∞ (eq (9)) and c0 → -∞ (eq (10)) of both means."""
    steps = [
        Step(
            "Write the bias in the normalised distances $t_0 = (s - c_0)/\\lambda$, "
            "$t_1 = (c_1 - s)/\\lambda$: it is $\\lambda$ times a function of $t_0, t_1$.",
            tuple(
                display(
                    f"\\mathrm{{bias}}_{{\\text{{{NAMES[m]}}}}}/\\lambda", lf.normalised(m, "bias")
                )
                for m in ("truncated", "bit")
            ),
        )
    ]
    sides = (
        ("lower", t1, "c_1 \\to \\infty", "(9)", "$[c_0, \\infty)$"),
        ("upper", t0, "c_0 \\to -\\infty", "(10)", "$(-\\infty, c_1]$"),
    )
    for side, var, bound, eq, interval in sides:
        steps.append(
            Step(
                f"Bounds {interval}: "
                f"${bound}$ is ${tex(var)} \\to \\infty$ with the other distance fixed; take "
                f"the limit and add $s$ (compare eq {eq}).",
                tuple(
                    display(f"\\mu_{{{i}}}", shown(lf.one_sided(m, "mean", side)))
                    for i, m in ((1, "truncated"), (2, "bit"))
                ),
            )
        )
    return Derivation(
        "one-sided-limits",
        "One-sided bounds: the limits of the means",
        "Liu (2019), Remark 3, eqs (9)-(10)",
        "With one bound only, the means are the limits of eqs (6)-(7) as the other bound "
        "moves to infinity.",
        tuple(steps),
        (
            Printed("eq (9), $\\mu_1$", "liu2019.eq9.one_sided_lower", P.EQ9_MU1.latex),
            Printed("eq (9), $\\mu_2$", "liu2019.eq9.one_sided_lower", P.EQ9_MU2.latex),
            Printed("eq (10), $\\mu_1$", "liu2019.eq10.one_sided_upper", P.EQ10_MU1.latex),
            Printed("eq (10), $\\mu_2$", "liu2019.eq10.one_sided_upper", P.EQ10_MU2.latex),
        ),
    )


__all__ = ["bit_law", "moment", "normaliser", "one_sided", "shown", "variance"]
