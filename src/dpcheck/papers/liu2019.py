"""F. Liu (2019), printed equations transcribed exactly as printed.

This module is part of the *paper transcriptions* layer (DESIGN layer 2) of
dpcheck.  It holds the displayed (and a few in-line) formulas of

    F. Liu, "Statistical Properties of Sanitized Results from Differentially
    Private Laplace Mechanism with Univariate Bounding Constraints",

as :class:`~dpcheck.papers.equation.Equation` objects.  Each formula is copied
*as printed*, typos included: nothing is corrected, simplified or "fixed".
These objects are the things under test; the reference quantities are derived
independently in the symbolic layer (layer 1) and compared against them.

Sources (``/work/shared/papers``):

* ``000_4ce1202a26cb1c23.txt`` ("000"): the arXiv 1607.08554 version, whose
  HTML carries the original LaTeX of every equation.  Its LaTeX is what the
  ``latex`` fields hold (cleaned of spacing commands such as ``\\!``).
* ``002_7e7dc3d80a31d40e.txt`` ("002"): the journal version (Markdown).

Where the two print different formulas, both are kept: the unsuffixed name is
the arXiv (000) version, which carries the LaTeX source, and the ``_JOURNAL``
name is the journal (002) version; each ``note`` says what differs.  Every
``source`` names the file and (roughly) the line.

Conventions of the transcription
--------------------------------
* One coordinate of the product densities of eqs (3)-(5) is transcribed:
  ``s_j^* -> x``, ``s_j -> s``, ``c_{j0} -> c0``, ``c_{j1} -> c1`` (and in
  eq (3) ``s_j -> mu``).
* ``F`` is the undefined function ``F`` of App. A (the Laplace(s, λ) CDF);
  integrals are unevaluated :class:`sympy.Integral` objects, as printed.
* ``E_trunc`` stands for the printed "E(x | x ∈ [c0, c1])" of App. A.
* In App. A the BIT tail masses are called ``p0`` (lower) and ``p1``
  (**upper**); in App. B ``p1`` is the lower and ``p2`` the upper tail mass.
  ``APPA_P0``/``APPA_P1`` and ``APPB_P1``/``APPB_P2`` are the printed
  definitions; every other expression has the printed definition substituted
  for its ``p``'s, so it is a function of ``s, c0, c1, lam`` (and ``x``,
  ``E_trunc``, ``F`` where printed) only.
* Chains (lists) hold one :class:`Equation` per displayed line, in the
  printed order; ``expr`` is that line's right-hand side.

``label`` names the equation / remark / appendix line ("eq (6)",
"App. B, truncated MSE chain line 4"); the rest of dpcheck cites by it.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.papers.equation import Equation
from dpcheck.symbolic import symbols as _sym
from dpcheck.symbolic.symbols import b, c0, c1, delta1, epsilon, lam, mu, p, s, x

__all__ = [
    "ALL",
    "APPA_BIT_MEAN_CHAIN",
    "APPA_MEAN_CHAIN",
    "APPA_P0",
    "APPA_P1",
    "APPA_PARTA",
    "APPA_PARTA_UNBIASED_MU1",
    "APPA_PARTA_UNBIASED_MU2",
    "APPA_PARTC",
    "APPA_PARTC_CHAIN",
    "APPB_A",
    "APPB_B",
    "APPB_BIT_BIAS2",
    "APPB_BIT_BOXED",
    "APPB_BIT_MEAN",
    "APPB_BIT_MSE_CHAIN",
    "APPB_BIT_SECOND_MOMENT",
    "APPB_B_MINUS_2SA_CHAIN",
    "APPB_P1",
    "APPB_P2",
    "APPB_TRUNC_BIAS2",
    "APPB_TRUNC_BOXED",
    "APPB_TRUNC_MEAN",
    "APPB_TRUNC_MSE_AB",
    "APPB_TRUNC_MSE_CHAIN",
    "APPB_TRUNC_MSE_DECOMPOSITION",
    "APPB_TRUNC_SECOND_MOMENT",
    "EQ2_SCALE",
    "SEC22_SD_SQRT",
    "EQ2_SCALE_JOURNAL",
    "EQ3_GG_DENSITY",
    "EQ3_GG_DENSITY_JOURNAL",
    "EQ4_NORMALISER",
    "EQ4_TRUNCATED_DENSITY",
    "EQ5_BIT_DENSITY",
    "EQ5_BIT_MASS_LOWER",
    "EQ5_BIT_MASS_UPPER",
    "EQ6_MU1",
    "EQ7_MU2",
    "EQ8_SCALE",
    "EQ8_SCALE_LHS",
    "EQ8_SCALE_RHS",
    "EQ8_WEIGHT",
    "EQ9_MU1",
    "EQ9_MU2",
    "EQ10_MU1",
    "EQ10_MU2",
    "INTRO_VARIANCE_BOUNDS",
    "REMARK1_S1_BOUNDS",
    "REMARK1_S2_BOUNDS",
    "REMARK3_GAP_LOWER",
    "REMARK3_GAP_UPPER",
    "REMARK3_LOWER_DENOMINATOR",
    "REMARK3_LOWER_FACTOR",
    "REMARK3_UPPER_DENOMINATOR",
    "REMARK3_UPPER_DENOMINATOR_JOURNAL",
    "REMARK3_UPPER_FACTOR",
    "TABLE1_VARIANCE_BOUNDS",
    "TABLE1_VARIANCE_BOUNDS_JOURNAL",
    "TABLE1_VARIANCE_SENSITIVITY",
    "E_trunc",
    "F",
    "R",
    "c",
    "c01",
    "c02",
    "c11",
    "c12",
    "delta",
    "delta_1j",
    "delta_j",
    "n",
]

_A = "000_4ce1202a26cb1c23.txt"  # arXiv version with LaTeX
_J = "002_7e7dc3d80a31d40e.txt"  # journal version


def _src(where: str, line_000: int | None, line_002: int | None) -> str:
    """A ``source`` string naming the place in the paper and both files."""
    parts = [where]
    if line_000 is not None:
        parts.append(f"{_A} line ~{line_000}")
    if line_002 is not None:
        parts.append(f"{_J} line ~{line_002}")
    return "; ".join(parts)


_SAME = "000 and 002 print the same formula."
_COORD = "One coordinate transcribed: s_j^* -> x, s_j -> s, c_{j0} -> c0, c_{j1} -> c1."

# ---------------------------------------------------------------------------
# Extra symbols (not in dpcheck.symbolic.symbols)
# ---------------------------------------------------------------------------

#: App. A's F: the CDF of Lap(s, λ), left undefined as printed.
F = sp.Function("F")
#: App. A's "E(x | x in [c0, c1])" (the truncated mean), left as a symbol.
E_trunc = sp.Symbol("E_trunc")

#: Remark 1: s1 + s2 = c, with s_j in [c_{0j}, c_{1j}] before the constraint.
c = sp.Symbol("c", real=True)
c01 = sp.Symbol("c_{01}", real=True)
c11 = sp.Symbol("c_{11}", real=True)
c02 = sp.Symbol("c_{02}", real=True)
c12 = sp.Symbol("c_{12}", real=True)

#: Eq (8) / Remark 2 sensitivities: δ_j, δ_{1j} and the undefined δ.
delta_j = sp.Symbol("delta_j", positive=True)
delta_1j = sp.Symbol("delta_1j", positive=True)
delta = sp.Symbol("delta", positive=True)

#: Table 1: sample size n and range R = c_{j1} - c_{j0}.
n = sp.Symbol("n", integer=True, positive=True)
R = sp.Symbol("R", positive=True)

_H = sp.Rational(1, 2)

# ---------------------------------------------------------------------------
# §1 Introduction (in-line)
# ---------------------------------------------------------------------------

INTRO_VARIANCE_BOUNDS = Equation(
    label="§1, variance bounds",
    source=_src("§1 Introduction, in-line", 16, 29),
    latex=r"[0,n(c_{1}-c_{0})^{2}/(4(n-1))]",
    expr=sp.Tuple(0, n * R**2 / (4 * (n - 1))),
    note=(
        "In-line: the sample variance of n values in [c0, c1] lies in the CLOSED "
        "interval [0, n(c1-c0)^2/(4(n-1))]; R stands for c1 - c0. "
        "Compare Table 1, which prints a (half-)open interval. " + _SAME
    ),
    extra={"open": False, "left_open": False, "right_open": False},
)

# ---------------------------------------------------------------------------
# §2.2 eqs (2), (3)
# ---------------------------------------------------------------------------

SEC22_SD_SQRT = Equation(
    label="§2.2, the standard deviation's sensitivity the paper warns against",
    source=_src("§2.2, in-line", 54, 69),
    latex=r"\sqrt{(c_1 - c_0)^2 n^{-1}}",
    expr=sp.sqrt(R**2 * n**-1),
    note=(
        "Printed as what δ_1 of the sample standard deviation 'cannot be simply calculated "
        "as'; R stands for c1 - c0. " + _SAME
    ),
)

EQ2_SCALE = Equation(
    label="eq (2), Laplace scale",
    source=_src("§2.2 eq (2)", 46, 60),
    latex=r"\mathbf{s}_{r\times 1}^{*}=(s_{1},\ldots,s_{r})\sim\prod_{j=1}^{r}"
    r"\mbox{Lap}\left(s_{j},\delta_{1}\epsilon^{-1}\right)",
    expr=delta1 * epsilon**-1,
    note=(
        "The scale of Lap(s_j, .) in eq (2). 000 prints δ_1 ε^{-1}; 002 prints "
        "δ_j ε^{-1} (see EQ2_SCALE_JOURNAL). Both print the left side as "
        "(s_1, ..., s_r) without stars."
    ),
)

EQ2_SCALE_JOURNAL = Equation(
    label="eq (2), Laplace scale, journal version",
    source=_src("§2.2 eq (2)", None, 60),
    latex=r"\mathbf{s}_{r \times 1}^* = (s_1, \dots, s_r) \sim \prod_{j=1}^r "
    r"\text{Lap}(s_j, \delta_j \epsilon^{-1})",
    expr=delta_j * epsilon**-1,
    note=(
        "002 prints δ_j ε^{-1}; 000 prints δ_1 ε^{-1} (see EQ2_SCALE). Remark 2 restates "
        "eq (2) as Lap(s_j, δ_1 ε^{-1}) in both versions."
    ),
)

EQ3_GG_DENSITY = Equation(
    label="eq (3)",
    source=_src("§2.2 eq (3)", 50, 64),
    latex=r"f(\mathbf{s}^{*})=\prod_{j=1}^{r}\frac{p}{2b\Gamma(p^{-1})}"
    r"\exp\{(|s^{*}_{j}-s_{j}|/b)^{p}\}=\prod_{j=1}^{r}\mbox{GG}(s_{j},b,p)",
    expr=p / (2 * b * sp.gamma(p**-1)) * sp.exp((sp.Abs(x - mu) / b) ** p),
    note=(
        "One coordinate: s_j^* -> x, s_j -> mu. 000 prints Γ(p^{-1}) AND its "
        "LaTeX has NO minus sign in the exponent: \\exp\\{\\!(|s^*_j-s_j|/b)^p\\} "
        "(a negative thin space \\!, not a minus), so the transcription is "
        "exp(+(|x-mu|/b)^p), which is not integrable. 002 prints Γ(p/2) and "
        "exp{-(|x-mu|/b)^p} (see EQ3_GG_DENSITY_JOURNAL)."
    ),
    extra={"exponent_sign": 1},
)

EQ3_GG_DENSITY_JOURNAL = Equation(
    label="eq (3), journal version",
    source=_src("§2.2 eq (3)", None, 64),
    latex=r"f(\mathbf{s}^*) = \prod_{j=1}^r \frac{p}{2b\Gamma(\frac{p}{2})} "
    r"\exp\{-(|s_j^* - s_j|/b)^p\} = \prod_{j=1}^r \text{GG}(s_j, b, p)",
    expr=p / (2 * b * sp.gamma(p / 2)) * sp.exp(-((sp.Abs(x - mu) / b) ** p)),
    note=(
        "One coordinate: s_j^* -> x, s_j -> mu. 002 prints Γ(p/2) and a minus "
        "sign in the exponent; 000 prints Γ(p^{-1}) and no minus (EQ3_GG_DENSITY)."
    ),
    extra={"exponent_sign": -1},
)

# ---------------------------------------------------------------------------
# §3.1 Definition 2: eqs (4), (5)
# ---------------------------------------------------------------------------

EQ4_NORMALISER = Equation(
    label="eq (4), normaliser",
    source=_src("§3.1 Def 2(a) eq (4), denominator", 70, 81),
    latex=r"2\lambda\left(1-\frac{1}{2}\exp(-\frac{c_{j1}-s_{j}}{\lambda})"
    r"-\frac{1}{2}\exp(\frac{c_{j0}-s_{j}}{\lambda})\right)",
    expr=2 * lam * (1 - _H * sp.exp(-(c1 - s) / lam) - _H * sp.exp((c0 - s) / lam)),
    note="The printed denominator of eq (4). " + _COORD + " " + _SAME,
)

EQ4_TRUNCATED_DENSITY = Equation(
    label="eq (4)",
    source=_src("§3.1 Def 2(a) eq (4)", 70, 81),
    latex=r"f(\mathbf{s}^{*})=\prod_{j=1}^{r}\mbox{Lap}(s_{j},\lambda|c_{j0}\leq s^{*}"
    r"\leq c_{j1})=\prod_{i=1}^{r}\frac{\exp\left(-\frac{|s_{j}^{*}-s_{j}|}{\lambda}"
    r"\right)}{2\lambda\left(1-\frac{1}{2}\exp(-\frac{c_{j1}-s_{j}}{\lambda})-\frac{1}{2}"
    r"\exp(\frac{c_{j0}-s_{j}}{\lambda})\right)}",
    expr=sp.exp(-sp.Abs(x - s) / lam)
    / (2 * lam * (1 - _H * sp.exp(-(c1 - s) / lam) - _H * sp.exp((c0 - s) / lam))),
    note=(
        "Density of one coordinate on [c0, c1]. " + _COORD + " Both versions "
        "index the second product by i but its factors by j. " + _SAME
    ),
)

EQ5_BIT_MASS_LOWER = Equation(
    label="eq (5), mass at c0",
    source=_src("§3.1 Def 2(b) eq (5), case s_j^* = c_{j0}", 75, 87),
    latex=r"\frac{1}{2}\exp(-(s_{j}-c_{j0})/\lambda)",
    expr=_H * sp.exp(-(s - c0) / lam),
    note="f(s_j^*) if s_j^* = c_{j0}. " + _COORD + " " + _SAME,
)

EQ5_BIT_DENSITY = Equation(
    label="eq (5), density on (c0, c1)",
    source=_src("§3.1 Def 2(b) eq (5), case c_{j0} < s_j^* < c_{j1}", 75, 87),
    latex=r"\mbox{Lap}(s_{j},\lambda)",
    expr=sp.exp(-sp.Abs(x - s) / lam) / (2 * lam),
    note=(
        "Printed as 'Lap(s_j, λ)' (the paper writes the law, not a formula); "
        "transcribed as the Lap(s, λ) density exp(-|x-s|/λ)/(2λ) at x. " + _COORD + " " + _SAME
    ),
)

EQ5_BIT_MASS_UPPER = Equation(
    label="eq (5), mass at c1",
    source=_src("§3.1 Def 2(b) eq (5), case s_j^* = c_{j1}", 75, 87),
    latex=r"1-\frac{1}{2}\exp(-(c_{j1}-s_{j})/\lambda)",
    expr=1 - _H * sp.exp(-(c1 - s) / lam),
    note=(
        "f(s_j^*) if s_j^* = c_{j1}, printed as 1 - ½exp(-(c_{j1}-s_j)/λ) in BOTH "
        "000 and 002 (the upper tail mass is ½exp(-(c1-s)/λ); kept as printed). " + _COORD
    ),
)

# ---------------------------------------------------------------------------
# Remark 1 (in-line)
# ---------------------------------------------------------------------------

REMARK1_S1_BOUNDS = Equation(
    label="Remark 1, bounds on s1",
    source=_src("§3.1 Remark 1, in-line", 81, 91),
    latex=r"[\max(c-c_{12},c_{01}),\min(c-c_{02},c_{11})]",
    expr=sp.Tuple(sp.Max(c - c12, c01), sp.Min(c - c02, c11)),
    note=(
        "(lower, upper) for s1 under s1 + s2 = c; c_{0j} is the lower and c_{1j} "
        "the upper bound of s_j ([c_{0j}, c_{1j}] in Remark 1). " + _SAME
    ),
)

REMARK1_S2_BOUNDS = Equation(
    label="Remark 1, bounds on s2",
    source=_src("§3.1 Remark 1, in-line", 81, 91),
    latex=r"[\max(c-c_{11},c_{02}),\min(c-c_{01},c_{12})]",
    expr=sp.Tuple(sp.Max(c - c11, c02), sp.Min(c - c01, c12)),
    note="(lower, upper) for s2 under s1 + s2 = c. " + _SAME,
)

# ---------------------------------------------------------------------------
# §3.2 Proposition 1: eqs (6), (7)
# ---------------------------------------------------------------------------

_MU1_LATEX = (
    r"\mu_{1}=s+\frac{\frac{\lambda-c_{0}+s}{2}\exp\left(\frac{c_{0}-s}{\lambda}\right)"
    r"-\frac{\lambda+c_{1}-s}{2}\exp\left(\frac{s-c_{1}}{\lambda}\right)}"
    r"{1-\frac{1}{2}\exp(\frac{c_{0}-s}{\lambda})-\frac{1}{2}\exp(\frac{s-c_{1}}{\lambda})}"
)

EQ6_MU1 = Equation(
    label="eq (6)",
    source=_src("§3.2 Proposition 1, eq (6)", 103, 111),
    latex=_MU1_LATEX,
    expr=s
    + ((lam - c0 + s) / 2 * sp.exp((c0 - s) / lam) - (lam + c1 - s) / 2 * sp.exp((s - c1) / lam))
    / (1 - _H * sp.exp((c0 - s) / lam) - _H * sp.exp((s - c1) / lam)),
    note="μ1, the mean of the truncated law. " + _SAME,
)

EQ7_MU2 = Equation(
    label="eq (7)",
    source=_src("§3.2 Proposition 1, eq (7)", 104, 113),
    latex=r"\mu_{2}=s+\frac{\lambda}{2}\left[\exp\left(\frac{c_{0}-s}{\lambda}\right)"
    r"-\exp\left(\frac{s-c_{1}}{\lambda}\right)\right]",
    expr=s + lam / 2 * (sp.exp((c0 - s) / lam) - sp.exp((s - c1) / lam)),
    note=(
        "μ2, the mean of the BIT law. " + _SAME + " (Prop 1(b) text differs: 000 "
        "conditions on s-c0 < c1-s / s-c0 > c1-s, 002 on ≤ / ≥.)"
    ),
)

# ---------------------------------------------------------------------------
# Remark 2: eq (8)
# ---------------------------------------------------------------------------

_DELTA_NOTE = (
    "δ (no subscript) is never defined in the paper; presumably δ_1 (the l1 "
    "sensitivity of the whole vector, which the left side of eq (8) uses). "
)

EQ8_WEIGHT = Equation(
    label="eq (8), w_j",
    source=_src("§3.2 Remark 2, eq (8)", 116, 123),
    latex=r"w_{j}=\delta_{1j}/\delta",
    expr=delta_1j / delta,
    note=_DELTA_NOTE + "Printed identically in eq (8) and in the sentence after it. " + _SAME,
)

EQ8_SCALE_LHS = Equation(
    label="eq (8), left-hand scale",
    source=_src("§3.2 Remark 2, eq (8)", 116, 123),
    latex=r"\delta_{1j}\left(\epsilon\frac{\delta_{1j}}{\delta_{1}}\right)^{-1}",
    expr=delta_1j * (epsilon * delta_1j / delta1) ** -1,
    note="Scale of Lap(s_j, .) on the left of eq (8). " + _SAME,
)

EQ8_SCALE_RHS = Equation(
    label="eq (8), right-hand scale",
    source=_src("§3.2 Remark 2, eq (8)", 116, 123),
    latex=r"\delta_{1j}(w_{j}\epsilon)^{-1}",
    expr=delta_1j * ((delta_1j / delta) * epsilon) ** -1,
    note=(
        "Scale on the right of eq (8), with the printed w_j = δ_1j/δ substituted. "
        + _DELTA_NOTE
        + _SAME
    ),
)

EQ8_SCALE = Equation(
    label="Remark 2, λ_j",
    source=_src("§3.2 Remark 2, in-line after eq (8)", 118, 125),
    latex=r"\lambda_{j}=\delta_{j}(w_{j}\epsilon)^{-1}",
    expr=delta_j * ((delta_1j / delta) * epsilon) ** -1,
    note=(
        "λ_j = δ_j (w_j ε)^{-1} with the printed w_j = δ_1j/δ substituted. Remark 2 "
        "writes δ_j here where eq (8) has δ_1j (δ_j is not defined; presumably "
        "δ_1j). " + _DELTA_NOTE + _SAME
    ),
)

# ---------------------------------------------------------------------------
# Remark 3: eqs (9), (10) and the bias differences
# ---------------------------------------------------------------------------

EQ9_MU1 = Equation(
    label="eq (9), μ1",
    source=_src("§3.2 Remark 3, eq (9), bounds [c0, ∞)", 124, 133),
    latex=r"\mu_{1}=s+\frac{\frac{\lambda-c_{0}+s}{2}\exp\left(\frac{c_{0}-s}{\lambda}"
    r"\right)}{1-\frac{1}{2}\exp(\frac{c_{0}-s}{\lambda})}",
    expr=s + ((lam - c0 + s) / 2 * sp.exp((c0 - s) / lam)) / (1 - _H * sp.exp((c0 - s) / lam)),
    note="Bounds [c0, ∞). " + _SAME,
)

EQ9_MU2 = Equation(
    label="eq (9), μ2",
    source=_src("§3.2 Remark 3, eq (9), bounds [c0, ∞)", 124, 133),
    latex=r"\mu_{2}=s+\frac{\lambda}{2}\exp\left(\frac{c_{0}-s}{\lambda}\right)",
    expr=s + lam / 2 * sp.exp((c0 - s) / lam),
    note="Bounds [c0, ∞). " + _SAME,
)

EQ10_MU1 = Equation(
    label="eq (10), μ1",
    source=_src("§3.2 Remark 3, eq (10), bounds (-∞, c1]", 125, 135),
    latex=r"\mu_{1}=s-\frac{\frac{\lambda+c_{1}-s}{2}\exp\left(\frac{s-c_{1}}{\lambda}"
    r"\right)}{1-\frac{1}{2}\exp(\frac{s-c_{1}}{\lambda})}",
    expr=s - ((lam + c1 - s) / 2 * sp.exp((s - c1) / lam)) / (1 - _H * sp.exp((s - c1) / lam)),
    note="Bounds (-∞, c1]. " + _SAME,
)

EQ10_MU2 = Equation(
    label="eq (10), μ2",
    source=_src("§3.2 Remark 3, eq (10), bounds (-∞, c1]", 125, 135),
    latex=r"\mu_{2}=s-\frac{\lambda}{2}\exp\left(\frac{s-c_{1}}{\lambda}\right)",
    expr=s - lam / 2 * sp.exp((s - c1) / lam),
    note="Bounds (-∞, c1]. " + _SAME,
)

REMARK3_GAP_LOWER = Equation(
    label="Remark 3, bias difference for [c0, ∞)",
    source=_src("§3.2 Remark 3, in-line", 127, 139),
    latex=r"\left[\frac{1-(c_{0}-s)/\lambda}{1-\exp(\frac{c_{0}-s}{\lambda})/2}-1\right]"
    r"\frac{\lambda}{2}\exp\left(\frac{c_{0}-s}{\lambda}\right)",
    expr=((1 - (c0 - s) / lam) / (1 - sp.exp((c0 - s) / lam) / 2) - 1)
    * lam
    / 2
    * sp.exp((c0 - s) / lam),
    note=(
        "'The difference of the two bias terms' (μ1 - μ2) for bounds [c0, ∞) "
        "(000 writes [c0, ∞], 002 [c0, ∞)); asserted > 0. " + _SAME
    ),
    extra={"asserted_sign": 1},
)

REMARK3_LOWER_DENOMINATOR = Equation(
    label="Remark 3, range of 1 - exp((c0-s)/λ)/2",
    source=_src("§3.2 Remark 3, in-line", 127, 141),
    latex=r"0<1-\exp(\frac{c_{0}-s}{\lambda})/2<1/2",
    expr=1 - sp.exp((c0 - s) / lam) / 2,
    note="Asserted to lie strictly between 0 and 1/2. " + _SAME,
    extra={"lower": 0, "upper": sp.Rational(1, 2), "strict": True},
)

REMARK3_LOWER_FACTOR = Equation(
    label="Remark 3, range of 1 - (c0-s)/λ",
    source=_src("§3.2 Remark 3, in-line", 127, 141),
    latex=r"1-(c_{0}-s)/\lambda>1",
    expr=1 - (c0 - s) / lam,
    note="Asserted > 1 (no upper bound printed; extra['upper'] = oo). " + _SAME,
    extra={"lower": 1, "upper": sp.oo, "strict": True},
)

REMARK3_GAP_UPPER = Equation(
    label="Remark 3, bias difference for (-∞, c1]",
    source=_src("§3.2 Remark 3, in-line", 127, 143),
    latex=r"\left[1-\frac{1+(c_{1}-s)/\lambda}{1-\exp(\frac{s-c_{1}}{\lambda})/2}\right]"
    r"\frac{\lambda}{2}\exp\left(\frac{s-c_{1}}{\lambda}\right)",
    expr=(1 - (1 + (c1 - s) / lam) / (1 - sp.exp((s - c1) / lam) / 2))
    * lam
    / 2
    * sp.exp((s - c1) / lam),
    note=(
        "'The bias difference between μ1 and μ2' for bounds (-∞, c1] "
        "(000 writes [-∞, c1], 002 (-∞, c1]); asserted < 0. " + _SAME
    ),
    extra={"asserted_sign": -1},
)

REMARK3_UPPER_DENOMINATOR = Equation(
    label="Remark 3, range of 1 - exp((c1-s)/λ)/2",
    source=_src("§3.2 Remark 3, in-line", 127, None),
    latex=r"0<1-\exp(\frac{c_{1}-s}{\lambda})/2<1/2",
    expr=1 - sp.exp((c1 - s) / lam) / 2,
    note=(
        "000 prints exp((c1-s)/λ) here (not the (s-c1) of the gap it is about); "
        "002 prints exp((s-c1)/λ) (REMARK3_UPPER_DENOMINATOR_JOURNAL). "
        "Asserted to lie strictly between 0 and 1/2."
    ),
    extra={"lower": 0, "upper": sp.Rational(1, 2), "strict": True},
)

REMARK3_UPPER_DENOMINATOR_JOURNAL = Equation(
    label="Remark 3, range of 1 - exp((s-c1)/λ)/2, journal version",
    source=_src("§3.2 Remark 3, in-line", None, 145),
    latex=r"0 < 1 - \exp((s - c_1)/\lambda)/2 < 1/2",
    expr=1 - sp.exp((s - c1) / lam) / 2,
    note=(
        "002 prints exp((s-c1)/λ); 000 prints exp((c1-s)/λ) "
        "(REMARK3_UPPER_DENOMINATOR). Asserted strictly between 0 and 1/2."
    ),
    extra={"lower": 0, "upper": sp.Rational(1, 2), "strict": True},
)

REMARK3_UPPER_FACTOR = Equation(
    label="Remark 3, range of 1 + (c1-s)/λ",
    source=_src("§3.2 Remark 3, in-line", 127, 145),
    latex=r"1+(c_{1}-s)/\lambda>1",
    expr=1 + (c1 - s) / lam,
    note="Asserted > 1 (no upper bound printed; extra['upper'] = oo). " + _SAME,
    extra={"lower": 1, "upper": sp.oo, "strict": True},
)

# ---------------------------------------------------------------------------
# §4.1 Table 1
# ---------------------------------------------------------------------------

TABLE1_VARIANCE_BOUNDS = Equation(
    label="Table 1, bounds of S_jj",
    source=_src("§4.1 Table 1, row 'variance S_jj'", 159, 178),
    latex=r"(0,n(c_{j1}-c_{j0})^{2}/(4(n-1))]",
    expr=sp.Tuple(0, n * R**2 / (4 * (n - 1))),
    note=(
        "R = c_{j1} - c_{j0}. 000 prints the half-open interval (0, nR^2/(4(n-1))]; "
        "002 prints the open interval (0, nR^2/(4(n-1))) "
        "(TABLE1_VARIANCE_BOUNDS_JOURNAL). §1 and §5 print the closed [0, ...]."
    ),
    extra={"open": False, "left_open": True, "right_open": False},
)

TABLE1_VARIANCE_BOUNDS_JOURNAL = Equation(
    label="Table 1, bounds of S_jj, journal version",
    source=_src("§4.1 Table 1, row 'variance S_jj'", None, 178),
    latex=r"(0, n(c_{j1} - c_{j0})^2 / (4(n-1)))",
    expr=sp.Tuple(0, n * R**2 / (4 * (n - 1))),
    note="R = c_{j1} - c_{j0}. 002 prints an open interval; 000 prints (0, ...].",
    extra={"open": True, "left_open": True, "right_open": True},
)

TABLE1_VARIANCE_SENSITIVITY = Equation(
    label="Table 1, δ1 of S_jj",
    source=_src("§4.1 Table 1, row 'variance S_jj'", 159, 178),
    latex=r"(c_{j1}-c_{j0})^{2}/n",
    expr=R**2 / n,
    note="R = c_{j1} - c_{j0}. " + _SAME,
)

# ---------------------------------------------------------------------------
# Appendix A: proof of Proposition 1
# ---------------------------------------------------------------------------

APPA_MEAN_CHAIN: list[Equation] = [
    Equation(
        label="App. A, μ1 chain line 1",
        source=_src("App. A, first display", 250, 270),
        latex=r"\mu_{1}=\mbox{E}(x|x\in(c_{0},c_{1}))=(F(c_{1})-F(c_{0}))^{-1}"
        r"\int_{c_{0}}^{c_{1}}\frac{x}{2\lambda}\exp\left(-\frac{|x-s|}{\lambda}\right)dx",
        expr=(F(c1) - F(c0)) ** -1
        * sp.Integral(x / (2 * lam) * sp.exp(-sp.Abs(x - s) / lam), (x, c0, c1)),
        note=(
            "Right-hand side only; the middle member E(x | x in (c0, c1)) is not "
            "transcribed. F is the Lap(s, λ) CDF (undefined function). " + _SAME
        ),
    ),
    Equation(
        label="App. A, μ1 chain line 2",
        source=_src("App. A, first display", 251, 270),
        latex=r"(F(c_{1})-F(c_{0}))^{-1}\left[\int_{c_{0}}^{s}\frac{x}{2\lambda}"
        r"\exp\left(\frac{x-s}{\lambda}\right)dx+\int_{s}^{c_{1}}\frac{x}{2\lambda}"
        r"\exp\left(\frac{s-x}{\lambda}\right)dx\right]",
        expr=(F(c1) - F(c0)) ** -1
        * (
            sp.Integral(x / (2 * lam) * sp.exp((x - s) / lam), (x, c0, s))
            + sp.Integral(x / (2 * lam) * sp.exp((s - x) / lam), (x, s, c1))
        ),
        note=_SAME,
    ),
    Equation(
        label="App. A, μ1 chain line 3",
        source=_src("App. A, first display", 252, 270),
        latex=r"(F(c_{1})-F(c_{0}))^{-1}\left(s+\frac{1}{2}\left((\lambda-c_{0})"
        r"\exp\left(\frac{c_{0}-s}{\lambda}\right)-(c_{1}+\lambda)"
        r"\exp\left(\frac{s-c_{1}}{\lambda}\right)\right)\right)",
        expr=(F(c1) - F(c0)) ** -1
        * (s + _H * ((lam - c0) * sp.exp((c0 - s) / lam) - (c1 + lam) * sp.exp((s - c1) / lam))),
        note=_SAME,
    ),
    Equation(
        label="App. A, μ1 chain line 4",
        source=_src("App. A, first display", 253, 270),
        latex=r"(1-\frac{1}{2}\exp(\frac{s-c_{1}}{\lambda})-\frac{1}{2}"
        r"\exp(\frac{c_{0}-s}{\lambda}))^{-1}\left(s+\frac{1}{2}\left((\lambda-c_{0})"
        r"\exp\left(\frac{c_{0}-s}{\lambda}\right)-(c_{1}+\lambda)"
        r"\exp\left(\frac{s-c_{1}}{\lambda}\right)\right)\right)",
        expr=(1 - _H * sp.exp((s - c1) / lam) - _H * sp.exp((c0 - s) / lam)) ** -1
        * (s + _H * ((lam - c0) * sp.exp((c0 - s) / lam) - (c1 + lam) * sp.exp((s - c1) / lam))),
        note=_SAME,
    ),
    Equation(
        label="App. A, μ1 chain line 5",
        source=_src("App. A, first display", 254, 270),
        latex=r"s+\left(1-\frac{1}{2}\exp(\frac{s-c_{1}}{\lambda})-\frac{1}{2}"
        r"\exp(\frac{c_{0}-s}{\lambda})\right)^{-1}\left(\frac{1}{2}(\lambda-c_{0}+s)"
        r"\exp\left(\frac{c_{0}-s}{\lambda}\right)-\frac{1}{2}(c_{1}+\lambda-s)"
        r"\exp\left(\frac{s-c_{1}}{\lambda}\right)\right)",
        expr=s
        + (1 - _H * sp.exp((s - c1) / lam) - _H * sp.exp((c0 - s) / lam)) ** -1
        * (
            _H * (lam - c0 + s) * sp.exp((c0 - s) / lam)
            - _H * (c1 + lam - s) * sp.exp((s - c1) / lam)
        ),
        note=_SAME,
    ),
]

_APPA_P_NOTE = (
    "App. A names the BIT tail masses p0 (LOWER, Pr(x < c0)) and p1 (UPPER, "
    "Pr(x > c1)); this p1 is App. B's p2, not App. B's p1. "
)

APPA_P0 = Equation(
    label="App. A, p0",
    source=_src("App. A, in-line after the BIT mean", 260, 276),
    latex=r"p_{0}=\Pr(x<c_{0})=\frac{1}{2}\exp(\frac{c_{0}-s}{\lambda})",
    expr=_H * sp.exp((c0 - s) / lam),
    note=_APPA_P_NOTE + _SAME,
)

APPA_P1 = Equation(
    label="App. A, p1",
    source=_src("App. A, in-line after the BIT mean", 260, 276),
    latex=r"p_{1}=\Pr(x>c_{1})=\frac{1}{2}\exp(\frac{s-c_{1}}{\lambda})",
    expr=_H * sp.exp((s - c1) / lam),
    note=_APPA_P_NOTE + _SAME,
)

_P0 = APPA_P0.expr
_P1_UP = APPA_P1.expr

APPA_BIT_MEAN_CHAIN: list[Equation] = [
    Equation(
        label="App. A, μ2 decomposition",
        source=_src("App. A, BIT mean display", 258, 274),
        latex=r"\mu_{2}=p_{0}c_{0}+p_{1}c_{1}+(1-p_{0}-p_{1})\mbox{E}(x|x\in[c_{0},c_{1}])",
        expr=_P0 * c0 + _P1_UP * c1 + (1 - _P0 - _P1_UP) * E_trunc,
        note=(
            "E(x | x in [c0, c1]) is the symbol E_trunc; p0 and p1 are replaced by "
            "their printed definitions (APPA_P0, APPA_P1). " + _APPA_P_NOTE + _SAME
        ),
    ),
    Equation(
        label="App. A, μ2 expanded",
        source=_src("App. A, in-line after the BIT mean", 260, 276),
        latex=r"\frac{c_{0}}{2}\exp\left(\frac{c_{0}-s}{\lambda}\right)+\frac{c_{1}}{2}"
        r"\exp\left(\frac{s-c_{1}}{\lambda}\right)+s+\frac{\lambda-c_{0}}{2}"
        r"\exp\left(\frac{c_{0}-s}{\lambda}\right)-\frac{c_{1}+\lambda}{2}"
        r"\exp\left(\frac{s-c_{1}}{\lambda}\right)",
        expr=c0 / 2 * sp.exp((c0 - s) / lam)
        + c1 / 2 * sp.exp((s - c1) / lam)
        + s
        + (lam - c0) / 2 * sp.exp((c0 - s) / lam)
        - (c1 + lam) / 2 * sp.exp((s - c1) / lam),
        note="'given the result from Part a), then μ2 is ...'. " + _SAME,
    ),
    Equation(
        label="App. A, μ2 final",
        source=_src("App. A, in-line after the BIT mean", 260, 276),
        latex=r"s+\frac{\lambda}{2}\left[\exp\left(\frac{c_{0}-s}{\lambda}\right)"
        r"-\exp\left(\frac{s-c_{1}}{\lambda}\right)\right]",
        expr=s + lam / 2 * (sp.exp((c0 - s) / lam) - sp.exp((s - c1) / lam)),
        note=_SAME,
    ),
]

APPA_PARTA_UNBIASED_MU1 = Equation(
    label="App. A, Part a), unbiasedness condition for μ1",
    source=_src("App. A, Part a), in-line", 262, 278),
    latex=r"(\lambda-c_{0}+s)\exp\left(\frac{c_{0}-s}{\lambda}\right)"
    r"=(c_{1}+\lambda-s)\exp\left(\frac{s-c_{1}}{\lambda}\right)",
    expr=sp.Tuple((lam - c0 + s) * sp.exp((c0 - s) / lam), (c1 + lam - s) * sp.exp((s - c1) / lam)),
    note="expr = Tuple(lhs, rhs) of the printed equality. " + _SAME,
)

APPA_PARTA_UNBIASED_MU2 = Equation(
    label="App. A, Part a), unbiasedness condition for μ2",
    source=_src("App. A, Part a), in-line", 262, 278),
    latex=r"\exp\left(\frac{c_{0}-s}{\lambda}\right)=\exp\left(\frac{s-c_{1}}{\lambda}\right)",
    expr=sp.Tuple(sp.exp((c0 - s) / lam), sp.exp((s - c1) / lam)),
    note="expr = Tuple(lhs, rhs) of the printed equality. " + _SAME,
)

APPA_PARTA: dict[str, Equation] = {
    "f1": Equation(
        label="App. A, Part a), f (μ1 case)",
        source=_src("App. A, Part a), in-line", 262, 278),
        latex=r"f(x)=(\lambda+|x|)\exp(-\frac{|x|}{\lambda})",
        expr=(lam + sp.Abs(x)) * sp.exp(-sp.Abs(x) / lam),
        note="x real. " + _SAME,
    ),
    "f1_prime": Equation(
        label="App. A, Part a), f' (μ1 case)",
        source=_src("App. A, Part a), in-line", 262, 278),
        latex=r"f^{\prime}(x)=-\frac{|x|}{\lambda}\exp(-\frac{|x|}{\lambda})",
        expr=-sp.Abs(x) / lam * sp.exp(-sp.Abs(x) / lam),
        note="As printed (no sign(x) factor). " + _SAME,
    ),
    "f2": Equation(
        label="App. A, Part a), f (μ2 case)",
        source=_src("App. A, Part a), in-line", 262, 278),
        latex=r"f(x)=\exp(-\frac{|x|}{\lambda})",
        expr=sp.exp(-sp.Abs(x) / lam),
        note="x real. " + _SAME,
    ),
    "f2_prime": Equation(
        label="App. A, Part a), f' (μ2 case)",
        source=_src("App. A, Part a), in-line", 262, 278),
        latex=r"f^{\prime}(x)=-\mbox{sign}(x)\exp(-\frac{|x|}{\lambda})",
        expr=-sp.sign(x) * sp.exp(-sp.Abs(x) / lam),
        note="As printed (no 1/λ factor). " + _SAME,
    ),
}

_PC_DEN = 1 - _H * sp.exp((s - c1) / lam) - _H * sp.exp((c0 - s) / lam)

APPA_PARTC_CHAIN: list[Equation] = [
    Equation(
        label="App. A, Part c), v.s. line 1",
        source=_src("App. A, Part c) display", 268, 284),
        latex=r"\frac{\frac{s-c_{0}+\lambda}{2}\exp\left(\frac{c_{0}-s}{\lambda}\right)"
        r"-\frac{c_{1}-s+\lambda}{2}\exp\left(\frac{s-c_{1}}{\lambda}\right)}{1-\frac{1}{2}"
        r"\exp(\frac{s-c_{1}}{\lambda})-\frac{1}{2}\exp(\frac{c_{0}-s}{\lambda})}\text{ v.s. }"
        r"\frac{\lambda}{2}\left[\exp\left(\frac{c_{0}-s}{\lambda}\right)"
        r"-\exp\left(\frac{s-c_{1}}{\lambda}\right)\right]",
        expr=sp.Tuple(
            (
                (s - c0 + lam) / 2 * sp.exp((c0 - s) / lam)
                - (c1 - s + lam) / 2 * sp.exp((s - c1) / lam)
            )
            / _PC_DEN,
            lam / 2 * (sp.exp((c0 - s) / lam) - sp.exp((s - c1) / lam)),
        ),
        note="expr = Tuple(lhs, rhs) of 'lhs v.s. rhs'. " + _SAME,
    ),
    Equation(
        label="App. A, Part c), v.s. line 2",
        source=_src("App. A, Part c) display", 269, 284),
        latex=r"\Rightarrow\frac{(s-c_{0})\exp\left(\frac{c_{0}-s}{\lambda}\right)-(c_{1}-s)"
        r"\exp\left(\frac{s-c_{1}}{\lambda}\right)+\frac{\lambda}{2}\left[\exp\left("
        r"\frac{c_{0}-s}{\lambda}\right)-\exp\left(\frac{s-c_{1}}{\lambda}\right)\right]"
        r"\left[\exp(\frac{s-c_{1}}{\lambda})+\exp(\frac{c_{0}-s}{\lambda})\right]}"
        r"{1-\frac{1}{2}\exp(\frac{s-c_{1}}{\lambda})-\frac{1}{2}\exp(\frac{c_{0}-s}{\lambda})}"
        r"\text{ v.s. }0",
        expr=sp.Tuple(
            (
                (s - c0) * sp.exp((c0 - s) / lam)
                - (c1 - s) * sp.exp((s - c1) / lam)
                + lam
                / 2
                * (sp.exp((c0 - s) / lam) - sp.exp((s - c1) / lam))
                * (sp.exp((s - c1) / lam) + sp.exp((c0 - s) / lam))
            )
            / _PC_DEN,
            sp.Integer(0),
        ),
        note="expr = Tuple(lhs, rhs) of 'lhs v.s. 0'. " + _SAME,
    ),
    Equation(
        label="App. A, Part c), v.s. line 3",
        source=_src("App. A, Part c) display", 270, 284),
        latex=r"\Rightarrow\frac{(s-c_{0})\exp\left(\frac{c_{0}-s}{\lambda}\right)-(c_{1}-s)"
        r"\exp\left(\frac{s-c_{1}}{\lambda}\right)+\frac{\lambda}{2}\left[\exp\left("
        r"2\frac{c_{0}-s}{\lambda}\right)-\exp\left(2\frac{s-c_{1}}{\lambda}\right)\right]}"
        r"{1-\frac{1}{2}\exp(\frac{s-c_{1}}{\lambda})-\frac{1}{2}\exp(\frac{c_{0}-s}{\lambda})}"
        r"\text{ v.s. }0",
        expr=sp.Tuple(
            (
                (s - c0) * sp.exp((c0 - s) / lam)
                - (c1 - s) * sp.exp((s - c1) / lam)
                + lam / 2 * (sp.exp(2 * (c0 - s) / lam) - sp.exp(2 * (s - c1) / lam))
            )
            / _PC_DEN,
            sp.Integer(0),
        ),
        note="expr = Tuple(lhs, rhs) of 'lhs v.s. 0'. " + _SAME,
    ),
    Equation(
        label="App. A, Part c), v.s. line 4",
        source=_src("App. A, Part c) display", 271, 284),
        latex=r"\Rightarrow(s-c_{0})\exp\left(\frac{c_{0}-s}{\lambda}\right)+\frac{\lambda}{2}"
        r"\exp\left(2\frac{c_{0}-s}{\lambda}\right)-\left[(c_{1}-s)\exp\left("
        r"\frac{s-c_{1}}{\lambda}\right)+\frac{\lambda}{2}\exp\left(2\frac{s-c_{1}}{\lambda}"
        r"\right)\right]\text{ v.s. }0\text{ (the denominator $>0$.)}",
        expr=sp.Tuple(
            (s - c0) * sp.exp((c0 - s) / lam)
            + lam / 2 * sp.exp(2 * (c0 - s) / lam)
            - ((c1 - s) * sp.exp((s - c1) / lam) + lam / 2 * sp.exp(2 * (s - c1) / lam)),
            sp.Integer(0),
        ),
        note="expr = Tuple(lhs, rhs) of 'lhs v.s. 0'; the denominator is dropped. " + _SAME,
    ),
]

_PARTC_G = 1 - x / lam - sp.exp(-x / lam)

APPA_PARTC: dict[str, Equation] = {
    "f": Equation(
        label="App. A, Part c), f",
        source=_src("App. A, Part c), after the display", 273, 286),
        latex=r"f(x)=xe^{-x/\lambda}+\lambda e^{-2x/\lambda}/2",
        expr=x * sp.exp(-x / lam) + lam * sp.exp(-2 * x / lam) / 2,
        note="x > 0 in the paper (x is only declared real here). " + _SAME,
    ),
    "f_prime": Equation(
        label="App. A, Part c), f' (first form)",
        source=_src("App. A, Part c), after the display", 273, 286),
        latex=r"f^{\prime}(x)=-e^{-2x/\lambda}+e^{-x/\lambda}-xe^{-x/\lambda}/\lambda",
        expr=-sp.exp(-2 * x / lam) + sp.exp(-x / lam) - x * sp.exp(-x / lam) / lam,
        note="x > 0. " + _SAME,
    ),
    "f_prime_factored": Equation(
        label="App. A, Part c), f' (factored form)",
        source=_src("App. A, Part c), after the display", 273, 286),
        latex=r"f^{\prime}(x)=e^{-x/\lambda}(1-x/\lambda-e^{-x/\lambda})",
        expr=sp.exp(-x / lam) * (1 - x / lam - sp.exp(-x / lam)),
        note="Second member of the printed f' equality. x > 0. " + _SAME,
    ),
    "g": Equation(
        label="App. A, Part c), g",
        source=_src("App. A, Part c), after the display", 273, 286),
        latex=r"g(x)=1-x/\lambda-e^{-x/\lambda}",
        expr=_PARTC_G,
        note="x > 0. " + _SAME,
    ),
    "g_prime": Equation(
        label="App. A, Part c), g'",
        source=_src("App. A, Part c), after the display", 273, 286),
        latex=r"g^{\prime}(x)=\lambda(e^{-x/\lambda}-1)",
        expr=lam * (sp.exp(-x / lam) - 1),
        note="As printed (λ multiplies; no 1/λ). x > 0. " + _SAME,
    ),
    "f_prime_via_g": Equation(
        label="App. A, Part c), f' = e^{-x/b} g(x)",
        source=_src("App. A, Part c), after the display", 273, None),
        latex=r"f^{\prime}(x)=e^{-x/b}g(x)<0",
        expr=sp.exp(-x / b) * _PARTC_G,
        note=(
            "000 prints e^{-x/b} (b, not λ; transcribed with the symbol b, which "
            "elsewhere is the GG scale of eq (3)); 002 prints e^{-x/λ} "
            "(key 'f_prime_via_g_journal'). g(x) is the printed g. Asserted < 0."
        ),
        extra={"asserted_sign": -1},
    ),
    "f_prime_via_g_journal": Equation(
        label="App. A, Part c), f' = e^{-x/λ} g(x), journal version",
        source=_src("App. A, Part c), after the display", None, 286),
        latex=r"f'(x) = e^{-x/\lambda}g(x) < 0",
        expr=sp.exp(-x / lam) * _PARTC_G,
        note="002 prints e^{-x/λ}; 000 prints e^{-x/b} (key 'f_prime_via_g').",
        extra={"asserted_sign": -1},
    ),
}

# ---------------------------------------------------------------------------
# Appendix B: proof of Proposition 2
# ---------------------------------------------------------------------------

_P1 = _sym.p1  # App. B p1 = ½exp((c0-s)/λ), lower tail
_P2 = _sym.p2  # App. B p2 = ½exp((s-c1)/λ), upper tail
_PNOTE = "p1, p2 replaced by their printed App. B definitions (symbols.p1, symbols.p2). "

APPB_A = Equation(
    label="App. B, A",
    source=_src("App. B, first paragraph", 277, 290),
    latex=r"A=\frac{\lambda-c_{0}+s}{2}\exp\left(\frac{c_{0}-s}{\lambda}\right)"
    r"-\frac{\lambda+c_{1}-s}{2}\exp\left(\frac{s-c_{1}}{\lambda}\right)",
    expr=(lam - c0 + s) / 2 * sp.exp((c0 - s) / lam) - (lam + c1 - s) / 2 * sp.exp((s - c1) / lam),
    note=_SAME,
)

APPB_P1 = Equation(
    label="App. B, p1",
    source=_src("App. B, first paragraph", 277, 290),
    latex=r"p_{1}=\frac{1}{2}\exp(\frac{c_{0}-s}{\lambda})",
    expr=_H * sp.exp((c0 - s) / lam),
    note="Lower tail mass (App. A calls this p0). " + _SAME,
)

APPB_P2 = Equation(
    label="App. B, p2",
    source=_src("App. B, first paragraph", 277, 290),
    latex=r"p_{2}=\frac{1}{2}\exp(\frac{s-c_{1}}{\lambda})",
    expr=_H * sp.exp((s - c1) / lam),
    note="Upper tail mass (App. A calls this p1). " + _SAME,
)

APPB_B = Equation(
    label="App. B, B",
    source=_src("App. B, first paragraph", 277, 290),
    latex=r"B=2\lambda^{2}+s^{2}-\frac{1}{2}(2\lambda^{2}-2\lambda c_{0}+c_{0}^{2})"
    r"\exp\left(\frac{c_{0}-s}{\lambda}\right)-\frac{1}{2}(2\lambda^{2}+2\lambda c_{1}"
    r"+c_{1}^{2})\exp\left(\frac{s-c_{1}}{\lambda}\right)",
    expr=2 * lam**2
    + s**2
    - _H * (2 * lam**2 - 2 * lam * c0 + c0**2) * sp.exp((c0 - s) / lam)
    - _H * (2 * lam**2 + 2 * lam * c1 + c1**2) * sp.exp((s - c1) / lam),
    note=_SAME,
)

_A_B = APPB_A.expr
_B_B = APPB_B.expr
_Q = 1 - _P1 - _P2  # printed 1 - p1 - p2

APPB_TRUNC_BIAS2 = Equation(
    label="App. B, truncated bias^2",
    source=_src("App. B, first display line 1", 279, 294),
    latex=r"\mbox{bias}^{2}=\left(\frac{A}{1-p_{1}-p_{2}}\right)^{2}",
    expr=(_A_B / _Q) ** 2,
    note=_PNOTE + "A is the printed A. " + _SAME,
)

APPB_TRUNC_MEAN = Equation(
    label="App. B, truncated E(s*)",
    source=_src("App. B, first display line 1", 279, 294),
    latex=r"s+\frac{A}{1-p_{1}-p_{2}}",
    expr=s + _A_B / _Q,
    note=(
        "Printed as (E(s*))^2 = (s + A/(1-p1-p2))^2; this is the base of that "
        "square. " + _PNOTE + _SAME
    ),
)

APPB_TRUNC_SECOND_MOMENT = Equation(
    label="App. B, truncated E(s*^2)",
    source=_src("App. B, first display line 1", 279, 294),
    latex=r"\mbox{E}(s^{*2})=\frac{B}{1-p_{1}-p_{2}}",
    expr=_B_B / _Q,
    note=_PNOTE + "B is the printed B. " + _SAME,
)

APPB_TRUNC_MSE_DECOMPOSITION = Equation(
    label="App. B, truncated MSE decomposition",
    source=_src("App. B, first display line 2", 280, 294),
    latex=r"\mbox{MSE}=\frac{B}{1-p_{1}-p_{2}}-\left(s+\frac{A}{1-p_{1}-p_{2}}\right)^{2}"
    r"+\left(\frac{A}{1-p_{1}-p_{2}}\right)^{2}",
    expr=_B_B / _Q - (s + _A_B / _Q) ** 2 + (_A_B / _Q) ** 2,
    note="First member of the MSE line. " + _PNOTE + _SAME,
)

APPB_TRUNC_MSE_AB = Equation(
    label="App. B, truncated MSE in A and B",
    source=_src("App. B, first display line 2", 280, 294),
    latex=r"\frac{B-2sA}{1-p_{1}-p_{2}}-s^{2}",
    expr=(_B_B - 2 * s * _A_B) / _Q - s**2,
    note="Second member of the MSE line. " + _PNOTE + _SAME,
)

APPB_B_MINUS_2SA_CHAIN: list[Equation] = [
    Equation(
        label="App. B, B - 2sA line 1",
        source=_src("App. B, first display line 3", 281, 294),
        latex=r"2\lambda^{2}+s^{2}-\frac{1}{2}(2\lambda^{2}-2\lambda c_{0}+c_{0}^{2})p_{1}"
        r"-\frac{1}{2}(2\lambda^{2}+2\lambda c_{1}+c_{1}^{2})p_{2}-s(\lambda-c_{0}+s)p_{1}"
        r"+s(\lambda+c_{1}-s)p_{2}",
        expr=2 * lam**2
        + s**2
        - _H * (2 * lam**2 - 2 * lam * c0 + c0**2) * _P1
        - _H * (2 * lam**2 + 2 * lam * c1 + c1**2) * _P2
        - s * (lam - c0 + s) * _P1
        + s * (lam + c1 - s) * _P2,
        note="Claimed equal to B - 2sA. " + _PNOTE + _SAME,
    ),
    Equation(
        label="App. B, B - 2sA line 2",
        source=_src("App. B, first display line 4", 282, 294),
        latex=r"-s^{2}+2(s^{2}+\lambda^{2})(1-p_{1}-p_{2})-(-\lambda c_{0}+c_{0}^{2}/2"
        r"+s(\lambda-c_{0}))p_{1}-(\lambda c_{1}+c_{1}^{2}/2-s(\lambda+c_{1}))p_{2}",
        expr=-(s**2)
        + 2 * (s**2 + lam**2) * (1 - _P1 - _P2)
        - (-lam * c0 + c0**2 / 2 + s * (lam - c0)) * _P1
        - (lam * c1 + c1**2 / 2 - s * (lam + c1)) * _P2,
        note="Claimed equal to B - 2sA. " + _PNOTE + _SAME,
    ),
]

_TRUNC_DEN_EXP = 1 - _H * sp.exp((c0 - s) / lam) - _H * sp.exp((s - c1) / lam)

APPB_TRUNC_BOXED = Equation(
    label="App. B, truncated MSE boxed expression",
    source=_src("App. B, 'Therefore, MSE' display, boxed", 294, 298),
    latex=r"\frac{\frac{\lambda}{2}\left[(s-c_{0})\exp(\frac{c_{0}-s}{\lambda})+(c_{1}-s)"
    r"\exp(\frac{s-c_{1}}{\lambda})\right]+\frac{1}{2}[(\frac{c_{0}^{2}}{4}+(\frac{c_{0}}{2}"
    r"-s)^{2})\exp(\frac{c_{0}-s}{\lambda})+(\frac{c_{1}^{2}}{4}+(\frac{c_{1}}{2}-s)^{2})"
    r"\exp(\frac{s-c_{1}}{\lambda})]}{1-\frac{1}{2}\exp(\frac{c_{0}-s}{\lambda})-\frac{1}{2}"
    r"\exp(\frac{s-c_{1}}{\lambda})}",
    expr=(
        lam / 2 * ((s - c0) * sp.exp((c0 - s) / lam) + (c1 - s) * sp.exp((s - c1) / lam))
        + _H
        * (
            (c0**2 / 4 + (c0 / 2 - s) ** 2) * sp.exp((c0 - s) / lam)
            + (c1**2 / 4 + (c1 / 2 - s) ** 2) * sp.exp((s - c1) / lam)
        )
    )
    / _TRUNC_DEN_EXP,
    note=(
        "The boxed expression alone (MSE = 2λ^2 - boxed). The paper then says "
        "'< 2λ^2 because each term in the boxed expression is < 0 as c0 ≤ s ≤ c1'. " + _SAME
    ),
    extra={"claim": "MSE = 2*lam**2 - boxed < 2*lam**2; each term of boxed asserted < 0"},
)

APPB_TRUNC_MSE_CHAIN: list[Equation] = [
    Equation(
        label="App. B, truncated MSE chain line 1",
        source=_src("App. B, 'Therefore, MSE' display", 286, 298),
        latex=r"s^{2}+2\lambda^{2}-\frac{s^{2}+(-\lambda c_{0}+\frac{c_{0}^{2}}{2}"
        r"+s(\lambda-c_{0}))p_{1}+(\lambda c_{1}+\frac{c_{1}^{2}}{2}-s(\lambda+c_{1}))p_{2}}"
        r"{1-p_{1}-p_{2}}",
        expr=s**2
        + 2 * lam**2
        - (
            s**2
            + (-lam * c0 + c0**2 / 2 + s * (lam - c0)) * _P1
            + (lam * c1 + c1**2 / 2 - s * (lam + c1)) * _P2
        )
        / (1 - _P1 - _P2),
        note=_PNOTE + _SAME,
    ),
    Equation(
        label="App. B, truncated MSE chain line 2",
        source=_src("App. B, 'Therefore, MSE' display", 287, 298),
        latex=r"s^{2}+2\lambda^{2}-\frac{s^{2}+\lambda(s-c_{0})p_{1}+(\frac{c_{0}^{2}}{2}"
        r"-sc_{0})p_{1}+\lambda(c_{1}-s)p_{2}+(\frac{c_{1}^{2}}{2}-sc_{1})p_{2}}{1-p_{1}-p_{2}}",
        expr=s**2
        + 2 * lam**2
        - (
            s**2
            + lam * (s - c0) * _P1
            + (c0**2 / 2 - s * c0) * _P1
            + lam * (c1 - s) * _P2
            + (c1**2 / 2 - s * c1) * _P2
        )
        / (1 - _P1 - _P2),
        note=_PNOTE + _SAME,
    ),
    Equation(
        label="App. B, truncated MSE chain line 3",
        source=_src("App. B, 'Therefore, MSE' display", 288, 298),
        latex=r"s^{2}+2\lambda^{2}-\frac{\lambda\left[(s-c_{0})p_{1}+(c_{1}-s)p_{2}\right]"
        r"+[(\frac{c_{0}^{2}}{2}-sc_{0})p_{1}+(\frac{c_{1}^{2}}{2}-sc_{1})p_{2}]+s^{2}}"
        r"{1-p_{1}-p_{2}}",
        expr=s**2
        + 2 * lam**2
        - (
            lam * ((s - c0) * _P1 + (c1 - s) * _P2)
            + ((c0**2 / 2 - s * c0) * _P1 + (c1**2 / 2 - s * c1) * _P2)
            + s**2
        )
        / (1 - _P1 - _P2),
        note=_PNOTE + _SAME,
    ),
    Equation(
        label="App. B, truncated MSE chain line 4",
        source=_src("App. B, 'Therefore, MSE' display", 289, 298),
        latex=r"2\lambda^{2}-\frac{\lambda\left[(s-c_{0})p_{1}+(c_{1}-s)p_{2}\right]"
        r"+[(\frac{c_{0}^{2}}{2}-sc_{0})p_{1}+(\frac{c_{1}^{2}}{2}-sc_{1})p_{2}]"
        r"+s^{2}(p_{1}+p_{2})}{1-p_{1}-p_{2}}",
        expr=2 * lam**2
        - (
            lam * ((s - c0) * _P1 + (c1 - s) * _P2)
            + ((c0**2 / 2 - s * c0) * _P1 + (c1**2 / 2 - s * c1) * _P2)
            + s**2 * (_P1 + _P2)
        )
        / (1 - _P1 - _P2),
        note=_PNOTE + _SAME,
    ),
    Equation(
        label="App. B, truncated MSE chain line 5",
        source=_src("App. B, 'Therefore, MSE' display", 290, 298),
        latex=r"2\lambda^{2}-\frac{\lambda\left[(s-c_{0})p_{1}+(c_{1}-s)p_{2}\right]"
        r"+[(\frac{c_{0}^{2}}{2}-sc_{0}+s^{2})p_{1}+(\frac{c_{1}^{2}}{2}-sc_{1}+s^{2})p_{2}]}"
        r"{1-p_{1}-p_{2}}",
        expr=2 * lam**2
        - (
            lam * ((s - c0) * _P1 + (c1 - s) * _P2)
            + ((c0**2 / 2 - s * c0 + s**2) * _P1 + (c1**2 / 2 - s * c1 + s**2) * _P2)
        )
        / (1 - _P1 - _P2),
        note=_PNOTE + _SAME,
    ),
    Equation(
        label="App. B, truncated MSE chain line 6",
        source=_src("App. B, 'Therefore, MSE' display", 291, 298),
        latex=r"2\lambda^{2}-\frac{\frac{\lambda}{2}\left[(s-c_{0})\exp(\frac{c_{0}-s}{\lambda})"
        r"+(c_{1}-s)\exp(\frac{s-c_{1}}{\lambda})\right]}{1-\frac{1}{2}\exp(\frac{c_{0}-s}"
        r"{\lambda})-\frac{1}{2}\exp(\frac{s-c_{1}}{\lambda})}+\frac{\frac{1}{2}[(\frac{c_{0}^{2}}"
        r"{2}-sc_{0}+s^{2})\exp(\frac{c_{0}-s}{\lambda})+(\frac{c_{1}^{2}}{2}-sc_{1}+s^{2})"
        r"\exp(\frac{s-c_{1}}{\lambda})]}{1-\frac{1}{2}\exp(\frac{c_{0}-s}{\lambda})-\frac{1}{2}"
        r"\exp(\frac{s-c_{1}}{\lambda})}",
        expr=2 * lam**2
        - (lam / 2 * ((s - c0) * sp.exp((c0 - s) / lam) + (c1 - s) * sp.exp((s - c1) / lam)))
        / _TRUNC_DEN_EXP
        + (
            _H
            * (
                (c0**2 / 2 - s * c0 + s**2) * sp.exp((c0 - s) / lam)
                + (c1**2 / 2 - s * c1 + s**2) * sp.exp((s - c1) / lam)
            )
        )
        / _TRUNC_DEN_EXP,
        note=(
            "Printed over two lines; the second fraction is ADDED ('... + ' at the "
            "line break), as printed in both versions. " + _SAME
        ),
    ),
    Equation(
        label="App. B, truncated MSE chain line 7 (boxed)",
        source=_src("App. B, 'Therefore, MSE' display", 293, 298),
        latex=r"2\lambda^{2}-\boxed{" + APPB_TRUNC_BOXED.latex + "}",
        expr=2 * lam**2 - APPB_TRUNC_BOXED.expr,
        note="2λ^2 minus the boxed expression (APPB_TRUNC_BOXED). " + _SAME,
    ),
]

APPB_BIT_BIAS2 = Equation(
    label="App. B, BIT bias^2",
    source=_src("App. B, BIT display line 1", 299, 304),
    latex=r"\mbox{bias}^{2}=\left(\lambda(p_{1}-p_{2})\right)^{2}",
    expr=(lam * (_P1 - _P2)) ** 2,
    note=_PNOTE + _SAME,
)

APPB_BIT_MEAN = Equation(
    label="App. B, BIT E(s*)",
    source=_src("App. B, BIT display line 2", 300, 304),
    latex=r"s+\lambda(p_{1}-p_{2})",
    expr=s + lam * (_P1 - _P2),
    note=(
        "Printed as (E(s*))^2 = (s + λ(p1-p2))^2; this is the base of that square. "
        + _PNOTE
        + _SAME
    ),
)

APPB_BIT_SECOND_MOMENT = Equation(
    label="App. B, BIT E(s*^2)",
    source=_src("App. B, BIT display line 2", 300, 304),
    latex=r"\mbox{E}(s^{*2})=2\lambda^{2}+s^{2}-2(\lambda^{2}-\lambda c_{0})p_{1}"
    r"-2(\lambda^{2}+\lambda c_{1})p_{2}",
    expr=2 * lam**2 + s**2 - 2 * (lam**2 - lam * c0) * _P1 - 2 * (lam**2 + lam * c1) * _P2,
    note=_PNOTE + _SAME,
)

APPB_BIT_BOXED = Equation(
    label="App. B, BIT MSE boxed expression",
    source=_src("App. B, BIT display, boxed", 303, 304),
    latex=r"\left(-2\lambda^{2}p_{1}-2\lambda^{2}p_{2}+2\lambda((c_{0}-s)p_{1}"
    r"+(s-c_{1})p_{2})\right)",
    expr=-2 * lam**2 * _P1 - 2 * lam**2 * _P2 + 2 * lam * ((c0 - s) * _P1 + (s - c1) * _P2),
    note=(
        "The boxed expression alone (MSE = 2λ^2 + boxed); the paper asserts each "
        "of its terms is < 0 for c0 ≤ s ≤ c1, hence MSE < 2λ^2. " + _PNOTE + _SAME
    ),
    extra={"claim": "MSE = 2*lam**2 + boxed < 2*lam**2; each term of boxed asserted < 0"},
)

APPB_BIT_MSE_CHAIN: list[Equation] = [
    Equation(
        label="App. B, BIT MSE chain line 1",
        source=_src("App. B, BIT display line 3", 301, 304),
        latex=r"\mbox{MSE}=2\lambda^{2}+s^{2}-2(\lambda^{2}-\lambda c_{0})p_{1}"
        r"-2(\lambda^{2}+\lambda c_{1})p_{2}-\left(s+\lambda(p_{1}-p_{2})\right)^{2}"
        r"+\left(\lambda(p_{1}-p_{2})\right)^{2}",
        expr=2 * lam**2
        + s**2
        - 2 * (lam**2 - lam * c0) * _P1
        - 2 * (lam**2 + lam * c1) * _P2
        - (s + lam * (_P1 - _P2)) ** 2
        + (lam * (_P1 - _P2)) ** 2,
        note=_PNOTE + _SAME,
    ),
    Equation(
        label="App. B, BIT MSE chain line 2",
        source=_src("App. B, BIT display line 4", 302, 304),
        latex=r"2\lambda^{2}(1-p_{1}-p_{2})+2\lambda((c_{0}-s)p_{1}+(s-c_{1})p_{2})",
        expr=2 * lam**2 * (1 - _P1 - _P2) + 2 * lam * ((c0 - s) * _P1 + (s - c1) * _P2),
        note=_PNOTE + _SAME,
    ),
    Equation(
        label="App. B, BIT MSE chain line 3 (boxed)",
        source=_src("App. B, BIT display line 5", 303, 304),
        latex=r"2\lambda^{2}+\boxed{" + APPB_BIT_BOXED.latex + "}",
        expr=2 * lam**2 + APPB_BIT_BOXED.expr,
        note="2λ^2 plus the boxed expression (APPB_BIT_BOXED). " + _PNOTE + _SAME,
    ),
]

# ---------------------------------------------------------------------------
# Everything, in paper order
# ---------------------------------------------------------------------------

ALL: dict[str, Equation | list[Equation] | dict[str, Equation]] = {
    "INTRO_VARIANCE_BOUNDS": INTRO_VARIANCE_BOUNDS,
    "EQ2_SCALE": EQ2_SCALE,
    "SEC22_SD_SQRT": SEC22_SD_SQRT,
    "EQ2_SCALE_JOURNAL": EQ2_SCALE_JOURNAL,
    "EQ3_GG_DENSITY": EQ3_GG_DENSITY,
    "EQ3_GG_DENSITY_JOURNAL": EQ3_GG_DENSITY_JOURNAL,
    "EQ4_TRUNCATED_DENSITY": EQ4_TRUNCATED_DENSITY,
    "EQ4_NORMALISER": EQ4_NORMALISER,
    "EQ5_BIT_MASS_LOWER": EQ5_BIT_MASS_LOWER,
    "EQ5_BIT_DENSITY": EQ5_BIT_DENSITY,
    "EQ5_BIT_MASS_UPPER": EQ5_BIT_MASS_UPPER,
    "REMARK1_S1_BOUNDS": REMARK1_S1_BOUNDS,
    "REMARK1_S2_BOUNDS": REMARK1_S2_BOUNDS,
    "EQ6_MU1": EQ6_MU1,
    "EQ7_MU2": EQ7_MU2,
    "EQ8_SCALE_LHS": EQ8_SCALE_LHS,
    "EQ8_SCALE_RHS": EQ8_SCALE_RHS,
    "EQ8_WEIGHT": EQ8_WEIGHT,
    "EQ8_SCALE": EQ8_SCALE,
    "EQ9_MU1": EQ9_MU1,
    "EQ9_MU2": EQ9_MU2,
    "EQ10_MU1": EQ10_MU1,
    "EQ10_MU2": EQ10_MU2,
    "REMARK3_GAP_LOWER": REMARK3_GAP_LOWER,
    "REMARK3_LOWER_DENOMINATOR": REMARK3_LOWER_DENOMINATOR,
    "REMARK3_LOWER_FACTOR": REMARK3_LOWER_FACTOR,
    "REMARK3_GAP_UPPER": REMARK3_GAP_UPPER,
    "REMARK3_UPPER_DENOMINATOR": REMARK3_UPPER_DENOMINATOR,
    "REMARK3_UPPER_DENOMINATOR_JOURNAL": REMARK3_UPPER_DENOMINATOR_JOURNAL,
    "REMARK3_UPPER_FACTOR": REMARK3_UPPER_FACTOR,
    "TABLE1_VARIANCE_BOUNDS": TABLE1_VARIANCE_BOUNDS,
    "TABLE1_VARIANCE_BOUNDS_JOURNAL": TABLE1_VARIANCE_BOUNDS_JOURNAL,
    "TABLE1_VARIANCE_SENSITIVITY": TABLE1_VARIANCE_SENSITIVITY,
    "APPA_MEAN_CHAIN": APPA_MEAN_CHAIN,
    "APPA_BIT_MEAN_CHAIN": APPA_BIT_MEAN_CHAIN,
    "APPA_P0": APPA_P0,
    "APPA_P1": APPA_P1,
    "APPA_PARTA_UNBIASED_MU1": APPA_PARTA_UNBIASED_MU1,
    "APPA_PARTA_UNBIASED_MU2": APPA_PARTA_UNBIASED_MU2,
    "APPA_PARTA": APPA_PARTA,
    "APPA_PARTC_CHAIN": APPA_PARTC_CHAIN,
    "APPA_PARTC": APPA_PARTC,
    "APPB_A": APPB_A,
    "APPB_P1": APPB_P1,
    "APPB_P2": APPB_P2,
    "APPB_B": APPB_B,
    "APPB_TRUNC_BIAS2": APPB_TRUNC_BIAS2,
    "APPB_TRUNC_MEAN": APPB_TRUNC_MEAN,
    "APPB_TRUNC_SECOND_MOMENT": APPB_TRUNC_SECOND_MOMENT,
    "APPB_TRUNC_MSE_DECOMPOSITION": APPB_TRUNC_MSE_DECOMPOSITION,
    "APPB_TRUNC_MSE_AB": APPB_TRUNC_MSE_AB,
    "APPB_B_MINUS_2SA_CHAIN": APPB_B_MINUS_2SA_CHAIN,
    "APPB_TRUNC_MSE_CHAIN": APPB_TRUNC_MSE_CHAIN,
    "APPB_TRUNC_BOXED": APPB_TRUNC_BOXED,
    "APPB_BIT_BIAS2": APPB_BIT_BIAS2,
    "APPB_BIT_MEAN": APPB_BIT_MEAN,
    "APPB_BIT_SECOND_MOMENT": APPB_BIT_SECOND_MOMENT,
    "APPB_BIT_MSE_CHAIN": APPB_BIT_MSE_CHAIN,
    "APPB_BIT_BOXED": APPB_BIT_BOXED,
}
"""Every exported transcription, keyed by its module name, in paper order."""
