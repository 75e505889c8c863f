"""Liu (2019), supplement: the sensitivity derivations, transcribed exactly as printed.

Paper transcription layer (DESIGN layer 2).  The supplement ("Supplemental
Materials to 'Statistical Properties of Sanitized Results ...'") derives the
l1 global sensitivity of the mean, proportion, histogram, variance,
covariance, pooled variance and pooled covariance under "Def 1" (substitute one
record) and "Def 2" (remove one record).  Sources (``/work/shared/papers``):

* ``001_629437b50ab9225a.txt`` ("001"): the supplement alone, Markdown with
  ``$...$`` math; sections 1-6.
* ``000_4ce1202a26cb1c23.txt`` ("000"): the arXiv version, whose HTML embeds the
  original LaTeX; the supplement is its Appendices D-I (§2 = App. E, §3 = App. F,
  §4 = App. G, §5 = App. H; eq (1) = (E.1), eq (2) = (F.1), eq (3) = (F.2),
  eq (4) = (G.1), eq (5) = (H.1)).

Where the two extractions differ the LaTeX of 000 wins: the ``latex`` fields hold
000's LaTeX (cleaned of ``\\displaystyle``, ``\\textstyle``, ``\\!`` and
spacing), every ``note`` records what 001 prints differently, and 001-only
variants that are formulas (not garbles) are kept in :data:`VARIANTS_001`.

Conventions
-----------
* Notation comes from :mod:`dpcheck.symbolic.sensitivity`: ``x[i]`` is x_i,
  ``x[i, 1]`` is x_{i1} (record i, variable 1 in §3; record i of cell 1 in §4),
  ``xp`` is x', ``nc[j]`` is n_j, ``xbarm[1]`` is \\bar{x}_{1-}; a printed
  sum is an unevaluated :class:`sympy.Sum` with its printed limits.  What the
  notation *means* (definitions, which records the data sets share) lives in
  the symbolic layer's scenarios, not here.
* A displayed chain is a list with one :class:`Equation` per displayed line
  (a line broken over two rows is one entry); ``expr`` is the right-hand side
  of that line; the printed left-hand side is a separate entry (``*_LHS``).
* Typos are kept: §3 Def 1 prints ``x'_{21}`` where ``x'_{12}`` is meant and
  ``s_{12}^2 - s_{12}'^2`` for ``s_{12} - s'_{12}``; §3 case 4 prints a minus
  sign in front of its first fraction; §4 Def 1 line 2 prints ``x_{i1}`` for
  ``x'_{i1}``; §4 Def 2 line 6 prints ``\\bar{x}_1`` for ``\\bar{x}_{1-}``.
  Each ``note`` says what the transcriber noticed; deciding is left to the checks.
* Statements about the counts k1, k2, k3 (§3 cases 1-4, §5 term 1) are
  ``Equation`` objects whose ``expr`` is the printed value and whose ``extra``
  holds the printed condition (``at``: a substitution) or, for a stated
  maximum, ``argmax``, ``value`` and the branch it is taken over.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.papers.equation import Equation
from dpcheck.symbolic.sensitivity import (
    COVPM,
    S2P,
    S12,
    S12P,
    SP2M,
    XBAR,
    XBARM,
    XBARP,
    J,
    i,
    j,
    k1,
    k2,
    k3,
    n,
    nc,
    x,
    xbar,
    xbarm,
    xbarp,
    xp,
    y,
    ybar,
    ybarm,
    ybarp,
    yp,
)
from dpcheck.symbolic.sensitivity import S2 as S2_SYM

__all__ = [
    "ALL",
    "S2_DEF1_LHS",
    "S2_DEF1_CHAIN",
    "S2_DEF2_LHS",
    "S2_DEF2_CHAIN",
    "S2_DEF2_RESULT_001",
    "S2_SHIFFLER_HARSHA",
    "S2_CASE1_SUP",
    "S3_DEF1_LHS",
    "S3_DEF1_CHAIN",
    "S3_DEF1_INLINE",
    "S3_DEF2_LHS",
    "S3_DEF2_CHAIN",
    "S3_DEF2_REWRITE",
    "S3_K3_RANGE",
    "S3_CASES",
    "S4_DEF1_CHAIN",
    "S4_DEF2_SPM",
    "S4_DEF2_CHAIN",
    "S5_DEF1_CHAIN",
    "S5_DEF2_COVPM",
    "S5_DEF2_CHAIN",
    "S5_TERM1_CASES",
    "S5_DELTA_RANGE",
    "S5_EQ5",
    "S5_N1_STAR",
    "S5_DELTA_COVP",
    "VARIANTS_001",
]


def _src(place: str, line001: int | None, line000: int | None) -> str:
    where = [f"001 {place}" + (f" (line {line001})" if line001 else "")]
    if line000:
        where.append(f"000 line {line000}")
    return "; ".join(where)


def _sum(f: sp.Expr, lo: int, hi: sp.Expr) -> sp.Sum:
    return sp.Sum(f, (i, lo, hi))


_SAME = "001 prints the same formula."

# ===========================================================================
# §2 (000: Appendix E): sample variance
# ===========================================================================

_SX = _sum(x[i], 2, n)  # Σ_{i=2}^n x_i
_SX2 = _sum(x[i] ** 2, 2, n)  # Σ_{i=2}^n x_i^2

S2_DEF1_LHS = Equation(
    label="§2 Def 1, left side",
    source=_src("§2 Def 1", 30, 386),
    latex=r"s^{2}-s^{\prime 2}",
    expr=S2_SYM - S2P,
    note="s^2, s'^2: the sample variances of x and x'. " + _SAME,
)


def _s2d1(k: int, latex: str, expr: sp.Expr, note: str = _SAME, row: int = 386) -> Equation:
    return Equation(f"§2 Def 1, line {k}", _src("§2 Def 1", 30, row + k - 1), latex, expr, note)


S2_DEF1_CHAIN = [
    _s2d1(
        1,
        r"=(n-1)^{-1}\left(\sum^{n}_{i=1}(x_{i}^{2}-x_{i}^{{}^{\prime}2})"
        r"-n\left(\bar{x}^{2}-\bar{x^{\prime}}^{2}\right)\right)",
        (n - 1) ** -1 * (sp.Sum(x[i] ** 2 - xp[i] ** 2, (i, 1, n)) - n * (XBAR**2 - XBARP**2)),
        "\\bar{x}, \\bar{x'}: the means of x and x' (not defined in the text; the usual "
        "means). " + _SAME,
    ),
    _s2d1(
        2,
        r"=(n-1)^{-1}\left(x_{1}^{2}-x_{1}^{{}^{\prime}2}-n^{-1}(x_{1}-x^{\prime}_{1})"
        r"(2\sum_{i=2}^{n}x_{i}+x_{1}+x^{\prime}_{1})\right)",
        (n - 1) ** -1
        * (x[1] ** 2 - xp[1] ** 2 - n**-1 * (x[1] - xp[1]) * (2 * _SX + x[1] + xp[1])),
    ),
    _s2d1(
        3,
        r"=(n-1)^{-1}(x_{1}-x^{\prime}_{1})\left(x_{1}+x^{\prime}_{1}-n^{-1}"
        r"(2\sum_{i=2}^{n}x_{i}+x_{1}+x_{1}^{\prime})\right)",
        (n - 1) ** -1 * (x[1] - xp[1]) * (x[1] + xp[1] - n**-1 * (2 * _SX + x[1] + xp[1])),
    ),
    _s2d1(
        4,
        r"=(n-1)^{-1}(x_{1}-x^{\prime}_{1})\left((1-n^{-1})x_{1}+(1-n^{-1})x^{\prime}_{1}"
        r"-2n^{-1}\sum_{i=2}^{n}x_{i}\right)",
        (n - 1) ** -1
        * (x[1] - xp[1])
        * ((1 - n**-1) * x[1] + (1 - n**-1) * xp[1] - 2 * n**-1 * _SX),
    ),
    _s2d1(
        5,
        r"=n^{-1}(x^{2}_{1}-x_{1}^{{}^{\prime}2})-2n^{-1}(x_{1}-x^{\prime}_{1})\bar{x}_{-},"
        r"\mbox{ where }\bar{x}_{-}=(n-1)^{-1}\sum_{i=2}^{n}x_{i}",
        n**-1 * (x[1] ** 2 - xp[1] ** 2) - 2 * n**-1 * (x[1] - xp[1]) * XBARM,
        "The line defines \\bar{x}_- = (n-1)^{-1} Σ_{i=2}^n x_i (again after the display). "
        + _SAME,
    ),
    _s2d1(
        6,
        r"=n^{-1}(x^{2}_{1}-2x_{1}\bar{x}_{-}+\bar{x}_{-}^{2}-x_{1}^{{}^{\prime}2}"
        r"+2x^{\prime}_{1}\bar{x}_{-}-\bar{x}_{-}^{2})",
        n**-1
        * (x[1] ** 2 - 2 * x[1] * XBARM + XBARM**2 - xp[1] ** 2 + 2 * xp[1] * XBARM - XBARM**2),
    ),
    _s2d1(
        7,
        r"=n^{-1}(x_{1}-\bar{x}_{-})^{2}-n^{-1}(x^{\prime}_{1}-\bar{x}_{-})^{2}.",
        n**-1 * (x[1] - XBARM) ** 2 - n**-1 * (xp[1] - XBARM) ** 2,
        "Numbered (E.1) in 000; 001 prints no number but the text calls it Eq (1). " + _SAME,
    ),
]

S2_DEF2_LHS = Equation(
    label="§2 Def 2, left side",
    source=_src("§2 Def 2", 36, 397),
    latex=r"s^{2}-s^{\prime 2}",
    expr=S2_SYM - S2P,
    note="s'^2: the sample variance of x' = (x_2, ..., x_n). " + _SAME,
)


def _s2d2(k: int, latex: str, expr: sp.Expr, note: str = _SAME, row: int = 397) -> Equation:
    return Equation(f"§2 Def 2, line {k}", _src("§2 Def 2", 36, row), latex, expr, note)


S2_DEF2_CHAIN = [
    _s2d2(
        1,
        r"=\frac{x_{1}^{2}+\sum^{n}_{i=2}x_{i}^{2}-n^{-1}((n-1)\bar{x}_{-}+x_{1})^{2}}{n-1}"
        r"-\frac{\sum^{n}_{i=2}x_{i}^{2}-(n-1)\bar{x}_{-}^{2}}{n-2}",
        (x[1] ** 2 + _SX2 - n**-1 * ((n - 1) * XBARM + x[1]) ** 2) / (n - 1)
        - (_SX2 - (n - 1) * XBARM**2) / (n - 2),
    ),
    _s2d2(
        2,
        r"=[(n-1)(n-2)]^{-1}\left[(n-2)x_{1}^{2}+(n-2)\sum^{n}_{i=2}x_{i}^{2}\right."
        r"\left.-(n-2)n^{-1}\left((n-1)^{2}\bar{x}_{-}^{2}+2(n-1)x_{1}\bar{x}_{-}+x_{1}^{2}\right)"
        r"-(n-1)\sum^{n}_{i=2}x_{i}^{2}+(n-1)^{2}\bar{x}_{-}^{2}\right]",
        ((n - 1) * (n - 2)) ** -1
        * (
            (n - 2) * x[1] ** 2
            + (n - 2) * _SX2
            - (n - 2) * n**-1 * ((n - 1) ** 2 * XBARM**2 + 2 * (n - 1) * x[1] * XBARM + x[1] ** 2)
            - (n - 1) * _SX2
            + (n - 1) ** 2 * XBARM**2
        ),
        "Printed over two rows (000 lines 398-399). " + _SAME,
        row=398,
    ),
    _s2d2(
        3,
        r"=\frac{-\sum^{n}_{i=2}x_{i}^{2}+(n-2)(1-n^{-1})x_{1}^{2}+2n^{-1}(n-1)^{2}\bar{x}_{-}^{2}"
        r"-2n^{-1}(n-1)(n-2)\bar{x}_{-}x_{1}}{(n-1)(n-2)}",
        (
            -_SX2
            + (n - 2) * (1 - n**-1) * x[1] ** 2
            + 2 * n**-1 * (n - 1) ** 2 * XBARM**2
            - 2 * n**-1 * (n - 1) * (n - 2) * XBARM * x[1]
        )
        / ((n - 1) * (n - 2)),
        row=400,
    ),
    _s2d2(
        4,
        r"=-\frac{\sum^{n}_{i=2}x_{i}^{2}}{(n-1)(n-2)}+\frac{x_{1}^{2}}{n}"
        r"+2\frac{(n-1)}{n(n-2)}\bar{x}_{-}^{2}-2\frac{\bar{x}_{-}x_{1}}{n}",
        -_SX2 / ((n - 1) * (n - 2))
        + x[1] ** 2 / n
        + 2 * (n - 1) / (n * (n - 2)) * XBARM**2
        - 2 * XBARM * x[1] / n,
        row=401,
    ),
    _s2d2(
        5,
        r"=\frac{1}{n}\left[x_{1}^{2}-2\bar{x}_{-}x_{1}+\bar{x}_{-}^{2}\right]"
        r"-\frac{\bar{x}_{-}^{2}}{n}+\frac{2(n-1)\bar{x}_{-}^{2}}{n(n-2)}"
        r"-\frac{\sum^{n}_{i=2}x_{i}^{2}}{(n-1)(n-2)}",
        (x[1] ** 2 - 2 * XBARM * x[1] + XBARM**2) / n
        - XBARM**2 / n
        + 2 * (n - 1) * XBARM**2 / (n * (n - 2))
        - _SX2 / ((n - 1) * (n - 2)),
        row=402,
    ),
    _s2d2(
        6,
        r"=\frac{1}{n}(x_{1}-\bar{x}_{-})^{2}+\frac{\bar{x}_{-}^{2}}{n-2}"
        r"-\frac{\sum^{n}_{i=2}x_{i}^{2}}{(n-1)(n-2)}",
        (x[1] - XBARM) ** 2 / n + XBARM**2 / (n - 2) - _SX2 / ((n - 1) * (n - 2)),
        row=403,
    ),
    _s2d2(
        7,
        r"=\frac{1}{n}(x_{1}-\bar{x}_{-})^{2}-\frac{\sum^{n}_{i=2}x_{i}^{2}-(n-1)\bar{x}_{-}^{2}}"
        r"{(n-1)(n-2)}",
        (x[1] - XBARM) ** 2 / n - (_SX2 - (n - 1) * XBARM**2) / ((n - 1) * (n - 2)),
        "001 prints this line and then repeats it, as n^{-1}(x_1 - \\bar{x}_-)^2 - (...) / "
        "((n-1)(n-2)) (see S2_DEF2_RESULT_001), sixteen more times, ending in a truncated "
        "'n^{-1}(x_1 - x_-)^2 - \\frac{...}{(' (a bar lost); an extraction fault.",
        row=404,
    ),
    _s2d2(
        8,
        r"=n^{-1}(x_{1}-\bar{x}_{-})^{2}-(n-1)^{-1}s^{\prime 2}.",
        n**-1 * (x[1] - XBARM) ** 2 - (n - 1) ** -1 * S2P,
        "000 only: 001 never prints the (n-1)^{-1} s'^2 form (its chain ends in repeats of "
        "line 7).",
        row=404,
    ),
]

S2_DEF2_RESULT_001 = Equation(
    label="§2 Def 2, result as printed in 001",
    source=_src("§2 Def 2, last lines", 36, None),
    latex=r"= n^{-1} (x_1 - \bar{x}_-)^2 - \frac{\sum_{i=2}^n x_i^2 - (n-1)\bar{x}_-^2}"
    r"{(n-1)(n-2)}",
    expr=n**-1 * (x[1] - XBARM) ** 2 - (_SX2 - (n - 1) * XBARM**2) / ((n - 1) * (n - 2)),
    note=(
        "001's form of the result (the one CLAIMS.md quotes), printed many times over; "
        "LaTeX as printed in 001. The last copy is truncated and has x_- for \\bar{x}_-."
    ),
)

# The two case maxima of §2 Def 2, in units of R^2 = (c1 - c0)^2 (R = 1); m = n - 1 values.
m_values = sp.Symbol("m", positive=True, integer=True)

S2_SHIFFLER_HARSHA = Equation(
    label="§2 Def 2, case 1: the largest variance of n - 1 values (Shiffler and Harsha 1980)",
    source=_src("§2 Def 2, case 1", 38, 406),
    latex=r"s'^2 = (c_1 - c_0)^2\frac{n-1}{4(n-2)}",
    expr=(m_values + 1 - 1) / (4 * (m_values + 1 - 2)),
    note=(
        "printed for m = n - 1 values as (n-1)/(4(n-2)) R^2; expr is in m (n = m + 1), units "
        "of R^2. Also §4 and the main text (000 line 16: n R^2/(4(n-1)) for n values). "
        + _SAME
    ),
)

S2_CASE1_SUP = Equation(
    label="§2 Def 2, case 1: sup |s^2 - s'^2|",
    source=_src("§2 Def 2, case 1", 38, 406),
    latex=r"\sup_{\mathbf{x},\mathbf{x}':\Delta(\mathbf{x},\mathbf{x}')=1}|s^2 - s'^2|"
    r" = (c_1 - c_0)^2/(4n-8)",
    expr=1 / (4 * n - 8),
    note="units of R^2 = (c1 - c0)^2. " + _SAME,
)

# ===========================================================================
# §3 (000: Appendix F): sample covariance
# ===========================================================================

_P = _sum(x[i, 1] * x[i, 2], 2, n)  # Σ_{i=2}^n x_i1 x_i2
_S_1 = _sum(x[i, 1], 2, n)
_S_2 = _sum(x[i, 2], 2, n)

_TYPO_21 = (
    "x'_{21} is printed where x'_{12} (record 1, variable 2 of x') is meant; "
    "transcribed as printed, as xp[2, 1]. "
)

S3_DEF1_LHS = Equation(
    label="§3 eq (2), left side",
    source=_src("§3 Def 1", 46, 414),
    latex=r"s_{12}^{2}-s_{12}^{\prime 2}",
    expr=S12**2 - S12P**2,
    note=(
        "Printed s_{12}^2 - s_{12}'^2 (squares) although §3 defines s_{12}, s'_{12} as the "
        "covariances and the sensitivity is of |s_12 - s'_12|. " + _SAME
    ),
)


def _s3d1(k: int, latex: str, expr: sp.Expr, note: str, row: int) -> Equation:
    return Equation(f"§3 eq (2), line {k}", _src("§3 Def 1", 46, row), latex, expr, note)


S3_DEF1_CHAIN = [
    _s3d1(
        1,
        r"=(n-1)^{-1}[\sum^{n}_{i=1}x_{i1}x_{i2}-n\bar{x}_{1}\bar{x}_{2}"
        r"-\sum^{n}_{i=1}x^{\prime}_{i1}x^{\prime}_{i2}+n\bar{x}^{\prime}_{1}\bar{x}^{\prime}_{2}]",
        (n - 1) ** -1
        * (
            sp.Sum(x[i, 1] * x[i, 2], (i, 1, n))
            - n * xbar[1] * xbar[2]
            - sp.Sum(xp[i, 1] * xp[i, 2], (i, 1, n))
            + n * xbarp[1] * xbarp[2]
        ),
        "\\bar{x}_k, \\bar{x}'_k: the means of variable k in x and x'. " + _SAME,
        414,
    ),
    _s3d1(
        2,
        r"=(n-1)^{-1}[x_{11}x_{12}-x^{\prime}_{11}x^{\prime}_{21}-n^{-1}(x_{11}+(n-1)\bar{x}_{1-})"
        r"(x_{12}+(n-1)\bar{x}_{2-})+n^{-1}(x^{\prime}_{11}+(n-1)\bar{x}_{1-})"
        r"(x^{\prime}_{21}+(n-1)\bar{x}_{2-})]",
        (n - 1) ** -1
        * (
            x[1, 1] * x[1, 2]
            - xp[1, 1] * xp[2, 1]
            - n**-1 * (x[1, 1] + (n - 1) * xbarm[1]) * (x[1, 2] + (n - 1) * xbarm[2])
            + n**-1 * (xp[1, 1] + (n - 1) * xbarm[1]) * (xp[2, 1] + (n - 1) * xbarm[2])
        ),
        _TYPO_21 + "Printed over two rows. 001 prints the same (with a misplaced \\right]).",
        415,
    ),
    _s3d1(
        3,
        r"=n^{-1}[x_{11}x_{12}-x^{\prime}_{11}x^{\prime}_{21}-x_{11}\bar{x}_{2-}-\bar{x}_{1-}x_{12}"
        r"+x^{\prime}_{11}\bar{x}_{2-}+\bar{x}_{1-}x^{\prime}_{21}]",
        n**-1
        * (
            x[1, 1] * x[1, 2]
            - xp[1, 1] * xp[2, 1]
            - x[1, 1] * xbarm[2]
            - xbarm[1] * x[1, 2]
            + xp[1, 1] * xbarm[2]
            + xbarm[1] * xp[2, 1]
        ),
        _TYPO_21 + _SAME,
        417,
    ),
    _s3d1(
        4,
        r"=n^{-1}[x_{11}\underbrace{(x_{12}-\bar{x}_{2-})}_{\mbox{ term 1}}+\bar{x}_{1-}"
        r"\underbrace{(x^{\prime}_{21}-x_{12})}_{\mbox{ term 2}}+x^{\prime}_{11}"
        r"\underbrace{(\bar{x}_{2-}-x^{\prime}_{21})}_{\mbox{ term 3}}],",
        n**-1
        * (
            x[1, 1] * (x[1, 2] - xbarm[2])
            + xbarm[1] * (xp[2, 1] - x[1, 2])
            + xp[1, 1] * (xbarm[2] - xp[2, 1])
        ),
        _TYPO_21 + "Numbered (2) in 001, (F.1) in 000. " + _SAME,
        418,
    ),
]

_c10, _c11 = sp.symbols("c_10 c_11", real=True)

S3_DEF1_INLINE = Equation(
    label="§3 Def 1, in-line after eq (2)",
    source=_src("§3 Def 1, text after eq (2)", 53, 420),
    latex=r"n^{-1}[c_{11}(x_{12}-\bar{x}_{2-})+c_{11}(x^{\prime}_{21}-x_{12})"
    r"+c_{10}(\bar{x}_{2-}-x^{\prime}_{21})]=(c_{11}-c_{10})(x^{\prime}_{21}-\bar{x}_{2-})",
    expr=n**-1
    * (_c11 * (x[1, 2] - xbarm[2]) + _c11 * (xp[2, 1] - x[1, 2]) + _c10 * (xbarm[2] - xp[2, 1])),
    note=(
        "expr is the left side; extra['rhs'] the printed right side, which has no factor "
        "n^{-1}. The sentence before it reads 'x_{11} = \\bar{x}_{1-} = c_{11} and "
        "\\bar{x}_{1-} = c_{10}' (the second is presumably x'_{11} = c_{10}); the text also "
        "defines \\bar{x}_{k-} = (n-1)^{-1} Σ_{i=2}^n x_{ki} with the indices swapped. " + _SAME
    ),
    extra={"rhs": (_c11 - _c10) * (xp[2, 1] - xbarm[2]), "c10": _c10, "c11": _c11},
)

S3_DEF2_LHS = Equation(
    label="§3 eq (3), left side",
    source=_src("§3 Def 2", 59, 426),
    latex=r"\Delta s_{12}-s^{\prime}_{12}",
    expr=S12 - S12P,
    note=(
        "Printed '\\Delta & s_{12}-s'_{12} = ...': Δ sits in its own alignment column with no "
        "'=' after it (meant: Δ = s_12 - s'_12); expr is s_12 - s'_12. s'_12 is the sample "
        "covariance of x' = records 2..n. " + _SAME
    ),
)


def _s3d2(k: int, latex: str, expr: sp.Expr, note: str, row: int) -> Equation:
    return Equation(f"§3 eq (3), line {k}", _src("§3 Def 2", 59, row), latex, expr, note)


S3_DEF2_CHAIN = [
    _s3d2(
        1,
        r"=\frac{\sum^{n}_{i=2}x_{i1}x_{i2}+x_{11}x_{12}-n^{-1}[((n-1)\bar{x}_{1-}+x_{11})"
        r"((n-1)\bar{x}_{2-}+x_{12})]}{n-1}-\frac{\sum^{n}_{i=2}x_{i1}x_{i2}"
        r"-(n-1)\bar{x}_{1-}\bar{x}_{2-}}{n-2}",
        (
            _P
            + x[1, 1] * x[1, 2]
            - n**-1 * ((n - 1) * xbarm[1] + x[1, 1]) * ((n - 1) * xbarm[2] + x[1, 2])
        )
        / (n - 1)
        - (_P - (n - 1) * xbarm[1] * xbarm[2]) / (n - 2),
        "Printed over two rows. " + _SAME,
        426,
    ),
    _s3d2(
        2,
        r"=\frac{1}{(n-1)(n-2)}\left[(n-2)\sum^{n}_{i=2}x_{i1}x_{i2}+(n-2)x_{11}x_{12}"
        r"-(n-1)\sum^{n}_{i=2}x_{i1}x_{i2}+(n-1)^{2}\bar{x}_{1-}\bar{x}_{2-}\right."
        r"-\left.(n-2)n^{-1}\left((n-1)^{2}\bar{x}_{1-}\bar{x}_{2-}+(n-1)\bar{x}_{1-}x_{12}"
        r"+(n-1)x_{11}\bar{x}_{2-}+x_{11}x_{12}\right)\right]",
        1
        / ((n - 1) * (n - 2))
        * (
            (n - 2) * _P
            + (n - 2) * x[1, 1] * x[1, 2]
            - (n - 1) * _P
            + (n - 1) ** 2 * xbarm[1] * xbarm[2]
            - (n - 2)
            * n**-1
            * (
                (n - 1) ** 2 * xbarm[1] * xbarm[2]
                + (n - 1) * xbarm[1] * x[1, 2]
                + (n - 1) * x[1, 1] * xbarm[2]
                + x[1, 1] * x[1, 2]
            )
        ),
        "Printed over two rows. " + _SAME,
        428,
    ),
    _s3d2(
        3,
        r"=\frac{1}{(n-1)(n-2)}\left[-\sum^{n}_{i=2}x_{i1}x_{i2}+n^{-1}(n-1)(n-2)x_{11}x_{12}"
        r"+2n^{-1}(n-1)^{2}\bar{x}_{1-}\bar{x}_{2-}\right.\left.-n^{-1}(n-1)(n-2)"
        r"(\bar{x}_{1-}x_{12}+x_{11}\bar{x}_{2-})\right]",
        1
        / ((n - 1) * (n - 2))
        * (
            -_P
            + n**-1 * (n - 1) * (n - 2) * x[1, 1] * x[1, 2]
            + 2 * n**-1 * (n - 1) ** 2 * xbarm[1] * xbarm[2]
            - n**-1 * (n - 1) * (n - 2) * (xbarm[1] * x[1, 2] + x[1, 1] * xbarm[2])
        ),
        "Printed over two rows. 001 garbles this line: after its first row it repeats "
        "'- n^{-1}(n-1)(n-2) \\left[-Σ x_{i1}x_{i2} + n^{-1}(n-1)(n-2)x_{11}x_{12} + "
        "2n^{-1}(n-1)^2 \\bar{x}_{1-}\\bar{x}_{2-}' before the last row (an extraction fault).",
        430,
    ),
    _s3d2(
        4,
        r"=-\frac{\sum^{n}_{i=2}x_{i1}x_{i2}}{(n-1)(n-2)}+\frac{x_{11}x_{12}}{n}"
        r"+2\frac{(n-1)}{n(n-2)}\bar{x}_{1-}\bar{x}_{2-}-\frac{\bar{x}_{1-}x_{12}"
        r"+x_{11}\bar{x}_{2-}}{n}",
        -_P / ((n - 1) * (n - 2))
        + x[1, 1] * x[1, 2] / n
        + 2 * (n - 1) / (n * (n - 2)) * xbarm[1] * xbarm[2]
        - (xbarm[1] * x[1, 2] + x[1, 1] * xbarm[2]) / n,
        _SAME,
        432,
    ),
    _s3d2(
        5,
        r"=\frac{1}{n}\left[x_{11}x_{12}-\bar{x}_{1-}x_{12}-x_{11}\bar{x}_{2-}"
        r"+\bar{x}_{1-}\bar{x}_{2-}\right]-\frac{\bar{x}_{1-}\bar{x}_{2-}}{n}"
        r"-\frac{\sum^{n}_{i=2}x_{i1}x_{i2}}{(n-1)(n-2)}+2\frac{(n-1)}{n(n-2)}"
        r"\bar{x}_{1-}\bar{x}_{2-}",
        (x[1, 1] * x[1, 2] - xbarm[1] * x[1, 2] - x[1, 1] * xbarm[2] + xbarm[1] * xbarm[2]) / n
        - xbarm[1] * xbarm[2] / n
        - _P / ((n - 1) * (n - 2))
        + 2 * (n - 1) / (n * (n - 2)) * xbarm[1] * xbarm[2],
        _SAME,
        433,
    ),
    _s3d2(
        6,
        r"=\frac{1}{n}(x_{11}-\bar{x}_{1-})(x_{12}-\bar{x}_{2-})"
        r"+\frac{\bar{x}_{1-}\bar{x}_{2-}}{n-2}-\frac{\sum^{n}_{i=2}x_{i1}x_{i2}}{(n-1)(n-2)}",
        (x[1, 1] - xbarm[1]) * (x[1, 2] - xbarm[2]) / n
        + xbarm[1] * xbarm[2] / (n - 2)
        - _P / ((n - 1) * (n - 2)),
        _SAME,
        434,
    ),
    _s3d2(
        7,
        r"=n^{-1}(x_{11}-\bar{x}_{1-})(x_{12}-\bar{x}_{2-})-(n-1)^{-1}s^{\prime}_{12}",
        n**-1 * (x[1, 1] - xbarm[1]) * (x[1, 2] - xbarm[2]) - (n - 1) ** -1 * S12P,
        "Numbered (3) in 001, (F.2) in 000. " + _SAME,
        435,
    ),
]

S3_DEF2_REWRITE = Equation(
    label="§3, rewrite of eq (3)",
    source=_src("§3 Def 2, after eq (3)", 66, 439),
    latex=r"\Delta=n^{-1}\left(x_{11}-(n-1)^{-1}\sum_{i=2}^{n}x_{i1}\right)"
    r"\left(x_{12}-(n-1)^{-1}\sum_{i=2}^{n}x_{i2}\right)+(n-2)^{-1}(n-1)^{-2}"
    r"\sum_{i=2}^{n}x_{i1}\sum_{i=2}^{n}x_{i2}-(n-2)^{-1}(n-1)^{-1}\sum^{n}_{i=2}x_{i1}x_{i2},",
    expr=n**-1 * (x[1, 1] - (n - 1) ** -1 * _S_1) * (x[1, 2] - (n - 1) ** -1 * _S_2)
    + (n - 2) ** -1 * (n - 1) ** -2 * _S_1 * _S_2
    - (n - 2) ** -1 * (n - 1) ** -1 * _P,
    note=(
        "Followed by: 'which suggests Δ is a linear function of x_{i1} and x_{i2} for all "
        "i = 1, ..., n, indicating that the maximum ... occurs at the corners'. " + _SAME
    ),
    extra={"assertion": "Δ is a linear function of x_i1 and x_i2 for all i = 1, ..., n"},
)

S3_K3_RANGE = Equation(
    label="§3, range of k3",
    source=_src("§3 Def 2, before case 1", 68, 444),
    latex=r"k_{3}\in[\max(0,k_{1}+k_{2}-(n-1)),\min(k_{1},k_{2})]",
    expr=sp.Tuple(sp.Max(0, k1 + k2 - (n - 1)), sp.Min(k1, k2)),
    note=(
        "k1 = #{x_i1 = 1}, k2 = #{x_i2 = 1}, k3 = Σ_i x_i1 x_i2 over i = 2..n on the [0, 1] "
        "scale; the text then assumes k2 <= k1 WLOS (and later writes 'k1 <= k1' for the "
        "other order). " + _SAME
    ),
)


def _case(
    c: int,
    corner: tuple[int, int],
    line1: tuple[str, sp.Expr],
    line2: tuple[str, sp.Expr],
    values: list[tuple[str, str, sp.Expr, dict]],
    maxima: list[tuple[str, str, sp.Expr, dict, dict]],
    row: int,
    row001: int,
    note1: str = _SAME,
) -> dict:
    place = f"§3 case {c}, (x_11, x_12) = {corner}"
    lines = [
        Equation(f"§3 case {c}, line 1", _src(place, row001, row), line1[0], line1[1], note1),
        Equation(f"§3 case {c}, line 2", _src(place, row001, row), line2[0], line2[1], _SAME),
    ]
    vals = [
        Equation(label, _src(place, row001, row), latex, expr, _SAME, extra={"at": at})
        for label, latex, expr, at in values
    ]
    maxs = [
        Equation(
            label,
            _src(place, row001, row),
            latex,
            expr,
            _SAME,
            extra={"argmax": argmax, "branch": branch},
        )
        for label, latex, expr, argmax, branch in maxima
    ]
    return {"corner": corner, "lines": lines, "values": vals, "maxima": maxs}


_D12 = (n - 1) * (n - 2)
_K3TERM = (k3 - (n - 1) ** -1 * k1 * k2) / _D12
_BRANCH_TOP = {k1: n - 1, k3: k2}  # "If k1 = n-1, then k2 in [0, n-1], k3 = k2"
_BRANCH_ZERO = {k1: 0, k2: 0, k3: 0}  # "If k1 = 0, then k2 = 0, k3 = 0"
_S12D = r"s_{12}-s^{\prime}_{12}="

S3_CASES = [
    _case(
        1,
        (0, 0),
        (
            _S12D + r"\frac{k_{1}k_{2}}{n(n-1)^{2}}-\frac{k_{3}-(n-1)^{-1}k_{1}k_{2}}{(n-1)(n-2)}",
            k1 * k2 / (n * (n - 1) ** 2) - _K3TERM,
        ),
        (
            r"=\frac{2k_{1}k_{2}}{n(n-1)(n-2)}-\frac{k_{3}}{(n-1)(n-2)}",
            2 * k1 * k2 / (n * _D12) - k3 / _D12,
        ),
        [
            ("§3 case 1, k1 = 0", _S12D + "0", sp.Integer(0), _BRANCH_ZERO),
            (
                "§3 case 1, k1 = n-1",
                _S12D + r"\frac{k_{2}}{n(n-1)}",
                k2 / (n * (n - 1)),
                _BRANCH_TOP,
            ),
        ],
        [
            (
                "§3 case 1, maximum",
                r"\max|s_{12}-s^{\prime}_{12}|=n^{-1}\text{ when }k_{1}=k_{2}=k_{3}=n-1",
                1 / n,
                {k1: n - 1, k2: n - 1, k3: n - 1},
                _BRANCH_TOP,
            )
        ],
        450,
        74,
    ),
    _case(
        2,
        (0, 1),
        (
            _S12D + r"-\frac{k_{1}(n-1-k_{2})}{n(n-1)^{2}}-\frac{k_{3}-(n-1)^{-1}k_{1}k_{2}}"
            r"{(n-1)(n-2)}",
            -k1 * (n - 1 - k2) / (n * (n - 1) ** 2) - _K3TERM,
        ),
        (
            r"=\frac{2k_{1}k_{2}}{n(n-1)(n-2)}-\frac{k_{3}}{(n-1)(n-2)}-\frac{k_{1}}{n(n-1)}",
            2 * k1 * k2 / (n * _D12) - k3 / _D12 - k1 / (n * (n - 1)),
        ),
        [
            ("§3 case 2, k1 = 0", _S12D + "0", sp.Integer(0), _BRANCH_ZERO),
            (
                "§3 case 2, k1 = n-1",
                _S12D + r"\frac{k_{2}}{n(n-1)}-\frac{1}{n}",
                k2 / (n * (n - 1)) - 1 / n,
                _BRANCH_TOP,
            ),
            ("§3 case 2, k1 = n-1, k2 = 0", _S12D + r"-n^{-1}", -1 / n, {k1: n - 1, k2: 0, k3: 0}),
            (
                "§3 case 2, k1 = n-1, k2 = n-1",
                _S12D + "0",
                sp.Integer(0),
                {k1: n - 1, k2: n - 1, k3: n - 1},
            ),
        ],
        [
            (
                "§3 case 2, maximum",
                r"\max|s_{12}-s^{\prime}_{12}|=n^{-1}\text{ when }k_{1}=n-1,k_{2}=k_{3}=0",
                1 / n,
                {k1: n - 1, k2: 0, k3: 0},
                _BRANCH_TOP,
            )
        ],
        462,
        83,
    ),
    _case(
        3,
        (1, 0),
        (
            _S12D + r"-\frac{k_{2}(n-1-k_{1})}{n(n-1)^{2}}-\frac{k_{3}-(n-1)^{-1}k_{1}k_{2}}"
            r"{(n-1)(n-2)}",
            -k2 * (n - 1 - k1) / (n * (n - 1) ** 2) - _K3TERM,
        ),
        (
            r"=\frac{2k_{1}k_{2}}{n(n-1)(n-2)}-\frac{k_{3}}{(n-1)(n-2)}-\frac{k_{2}}{n(n-1)}",
            2 * k1 * k2 / (n * _D12) - k3 / _D12 - k2 / (n * (n - 1)),
        ),
        [
            ("§3 case 3, k1 = 0", _S12D + "0", sp.Integer(0), _BRANCH_ZERO),
            (
                "§3 case 3, k1 = n-1",
                _S12D + r"\frac{k_{2}}{n(n-1)}-\frac{k_{2}}{n(n-1)}=0",
                sp.Integer(0),
                _BRANCH_TOP,
            ),
        ],
        [],
        475,
        92,
    ),
    _case(
        4,
        (1, 1),
        (
            _S12D + r"-\frac{(n-1-k_{1})(n-1-k_{2})}{n(n-1)^{2}}-\frac{k_{3}-(n-1)^{-1}k_{1}k_{2}}"
            r"{(n-1)(n-2)}",
            -(n - 1 - k1) * (n - 1 - k2) / (n * (n - 1) ** 2) - _K3TERM,
        ),
        (
            r"=\frac{1}{n}+\frac{2k_{1}k_{2}}{n(n-1)(n-2)}-\frac{k_{3}}{(n-1)(n-2)}"
            r"-\frac{k_{1}}{n(n-1)}-\frac{k_{2}}{n(n-1)}",
            1 / n + 2 * k1 * k2 / (n * _D12) - k3 / _D12 - k1 / (n * (n - 1)) - k2 / (n * (n - 1)),
        ),
        [
            ("§3 case 4, k1 = 0", _S12D + r"n^{-1}", 1 / n, _BRANCH_ZERO),
            ("§3 case 4, k1 = n-1", _S12D + "0", sp.Integer(0), _BRANCH_TOP),
        ],
        [
            (
                "§3 case 4, maximum",
                r"\max|s_{12}-s^{\prime}_{12}|=n^{-1}\text{ when }k_{1}=k_{2}=k_{3}=0",
                1 / n,
                {k1: 0, k2: 0, k3: 0},
                _BRANCH_ZERO,
            )
        ],
        488,
        103,
        note1=(
            "The first fraction carries a minus sign, in 000 and in 001 alike (cases 2 and 3 "
            "have one too, but there the factor x_11 - \\bar{x}_{1-} or x_12 - \\bar{x}_{2-} "
            "is negative; here both factors are >= 0)."
        ),
    ),
]

# ===========================================================================
# §4 (000: Appendix G): pooled variance
# ===========================================================================

_SS = sp.Sum((x[i, j] - xbar[j]) ** 2, (i, 1, nc[j]), (j, 1, J))
_SS_P = sp.Sum((xp[i, j] - xbarp[j]) ** 2, (i, 1, nc[j]), (j, 1, J))
_SS_OTHER = sp.Sum((x[i, j] - xbar[j]) ** 2, (i, 1, nc[j]), (j, 2, J))
_SS1 = sp.Sum((x[i, 1] - xbar[1]) ** 2, (i, 1, nc[1]))  # Σ_{i=1}^{n_1} (x_i1 - x̄_1)^2
_SS1M = sp.Sum((x[i, 1] - xbarm[1]) ** 2, (i, 2, nc[1]))  # Σ_{i=2}^{n_1} (x_i1 - x̄_{1-})^2
n1 = nc[1]

S4_DEF1_CHAIN = [
    Equation(
        "§4 Def 1, line 1",
        _src("§4 Def 1", 127, 513),
        r"\Delta=s_{p}^{2}-s^{{}^{\prime}2}_{p}=(n-J)^{-1}\left(\sum_{j=1}^{J}\sum_{i=1}^{n_{j}}"
        r"(x_{ij}-\bar{x}_{j})^{2}\right)-(n-J)^{-1}\left(\sum_{j=1}^{J}\sum_{i=1}^{n_{j}}"
        r"(x^{\prime}_{ij}-\bar{x^{\prime}}_{j})^{2}\right)",
        (n - J) ** -1 * _SS - (n - J) ** -1 * _SS_P,
        "x_{ij}: record i of cell j; \\bar{x}_j, \\bar{x'}_j: the cell means of x and x'. " + _SAME,
    ),
    Equation(
        "§4 Def 1, line 2",
        _src("§4 Def 1", 128, 514),
        r"=(n-J)^{-1}(n_{1}-1)\underbrace{(n_{1}-1)^{-1}\left(\sum_{i=1}^{n_{1}}"
        r"(x_{i1}-\bar{x}_{1})^{2}-\sum_{i=1}^{n_{1}}(x_{i1}-\bar{x}^{\prime}_{1})^{2}\right)}"
        r"_{\text{term 1}}.",
        (n - J) ** -1
        * (n1 - 1)
        * (n1 - 1) ** -1
        * (_SS1 - sp.Sum((x[i, 1] - xbarp[1]) ** 2, (i, 1, n1))),
        "The second sum is printed with x_{i1} (unprimed) around \\bar{x}'_1: presumably "
        "x'_{i1} is meant. The text then calls term 1 'the difference in the variance in "
        "cell 1 between x and x' (printed 'x and x'). " + _SAME,
    ),
]

S4_DEF2_SPM = Equation(
    "§4 Def 2, s_{p-}^2",
    _src("§4 Def 2", 140, 525),
    r"s_{p-}^{2}=(n-1-J)^{-1}\left(\sum_{j=2}^{J}\sum_{i=1}^{n_{j}}(x_{ij}-\bar{x}_{j})^{2}"
    r"+\sum_{i=2}^{n_{1}}(x_{i1}-\bar{x}_{1-})^{2}\right),",
    (n - 1 - J) ** -1 * (_SS_OTHER + _SS1M),
    "The pooled variance of x' (record 1 of cell 1 removed); \\bar{x}_{1-}: the mean of "
    "cell 1 without its first record. " + _SAME,
)


def _s4d2(k: int, latex: str, expr: sp.Expr, note: str, row: int) -> Equation:
    return Equation(f"§4 Def 2, line {k}", _src("§4 Def 2", 146, row), latex, expr, note)


_DEN4 = (n - J) * (n - 1 - J)

S4_DEF2_CHAIN = [
    _s4d2(
        1,
        r"\Delta=s_{p}^{2}-s^{2}_{p-}=\frac{(n-1-J)\left(\sum_{j=2}^{J}\sum_{i=1}^{n_{j}}"
        r"(x_{ij}-\bar{x}_{j})^{2}+\sum_{i=1}^{n_{1}}(x_{i1}-\bar{x}_{1})^{2}\right)}"
        r"{(n-J)(n-1-J)}-\frac{(n-J)\left(\sum_{j=2}^{J}\sum_{i=1}^{n_{j}}(x_{ij}-\bar{x}_{j})^{2}"
        r"+\sum_{i=2}^{n_{1}}(x_{i1}-\bar{x}_{1-})^{2}\right)}{(n-J)(n-1-J)}",
        (n - 1 - J) * (_SS_OTHER + _SS1) / _DEN4 - (n - J) * (_SS_OTHER + _SS1M) / _DEN4,
        "Printed over two rows. 001 prints the upper limit of the last sum as n_j (000: n_1).",
        527,
    ),
    _s4d2(
        2,
        r"=\frac{(n-1-J)\sum_{i=1}^{n_{1}}(x_{i1}-\bar{x}_{1})^{2}-(n-J)\sum_{i=2}^{n_{1}}"
        r"(x_{i1}-\bar{x}_{1-})^{2}-\sum_{j=2}^{J}\sum_{i=1}^{n_{j}}(x_{ij}-\bar{x}_{j})^{2}}"
        r"{(n-J)(n-1-J)}",
        ((n - 1 - J) * _SS1 - (n - J) * _SS1M - _SS_OTHER) / _DEN4,
        _SAME,
        529,
    ),
    _s4d2(
        3,
        r"=\frac{(n-1-J)\sum_{i=1}^{n_{1}}(x_{i1}-\bar{x}_{1})^{2}-(n-J)\sum_{i=2}^{n_{1}}"
        r"(x_{i1}-\bar{x}_{1-})^{2}+\sum_{i=2}^{n_{1}}(x_{i1}-\bar{x}_{1-})^{2}}{(n-J)(n-1-J)}"
        r"-\frac{\sum_{i=2}^{n_{1}}(x_{i1}-\bar{x}_{1-})^{2}+\sum_{j=2}^{J}\sum_{i=1}^{n_{j}}"
        r"(x_{ij}-\bar{x}_{j})^{2}}{(n-J)(n-1-J)}",
        ((n - 1 - J) * _SS1 - (n - J) * _SS1M + _SS1M) / _DEN4 - (_SS1M + _SS_OTHER) / _DEN4,
        "Printed over two rows. 001 prints only the first row, with upper limit n_j in its "
        "last sum (see VARIANTS_001), and in place of the second row a different line (see "
        "VARIANTS_001 '§4 Def 2, line 4 (001)').",
        530,
    ),
    _s4d2(
        4,
        r"=\frac{\left(\sum_{i=1}^{n_{1}}(x_{i1}-\bar{x}_{1})^{2}-\sum_{i=2}^{n_{1}}"
        r"(x_{i1}-\bar{x}_{1-})^{2}\right)}{(n-J)}-\frac{s^{2}_{p-}}{n-J}",
        (_SS1 - _SS1M) / (n - J) - SP2M / (n - J),
        "000 only; 001 has no such line.",
        532,
    ),
    _s4d2(
        5,
        r"=\frac{\sum_{i=1}^{n_{1}}x_{i1}^{2}-\frac{((n_{1}-1)\bar{x}_{1-}+x_{11})^{2}}{n_{1}}"
        r"-\sum_{i=2}^{n_{1}}x_{i1}^{2}+(n_{1}-1)\bar{x}_{1-}^{2}-s_{p-}^{2}}{n-J}",
        (
            sp.Sum(x[i, 1] ** 2, (i, 1, n1))
            - ((n1 - 1) * xbarm[1] + x[1, 1]) ** 2 / n1
            - sp.Sum(x[i, 1] ** 2, (i, 2, n1))
            + (n1 - 1) * xbarm[1] ** 2
            - SP2M
        )
        / (n - J),
        "001 prints (n-1)\\bar{x}_{1-} where 000 has (n_1-1)\\bar{x}_{1-} (see VARIANTS_001), "
        "and an unbalanced '(' at the start of the numerator.",
        533,
    ),
    _s4d2(
        6,
        r"=\frac{(1-n_{1}^{-1})x_{11}^{2}+(1-n_{1}^{-1})\left(\bar{x}_{1-}^{2}-2\bar{x}_{1}x_{11}"
        r"\right)-s_{p-}^{2}}{n-J}",
        (
            (1 - n1**-1) * x[1, 1] ** 2
            + (1 - n1**-1) * (xbarm[1] ** 2 - 2 * xbar[1] * x[1, 1])
            - SP2M
        )
        / (n - J),
        "Prints \\bar{x}_1 (the mean of all of cell 1) in '-2\\bar{x}_1 x_{11}' where the "
        "lines around it have \\bar{x}_{1-}. " + _SAME,
        534,
    ),
    _s4d2(
        7,
        r"=\frac{(1-n_{1}^{-1})(x_{11}-\bar{x}_{1-})^{2}-s_{p-}^{2}}{n-J}",
        ((1 - n1**-1) * (x[1, 1] - xbarm[1]) ** 2 - SP2M) / (n - J),
        "Printed on the same row as line 6 in 000. " + _SAME,
        534,
    ),
]

# ===========================================================================
# §5 (000: Appendix H): pooled covariance (transcribed for other checks)
# ===========================================================================

_CP1 = sp.Sum((x[i, 1] - xbar[1]) * (y[i, 1] - ybar[1]), (i, 1, n1))
_CP1M = sp.Sum((x[i, 1] - xbarm[1]) * (y[i, 1] - ybarm[1]), (i, 2, n1))
_CP_OTHER = sp.Sum((x[i, j] - xbar[j]) * (y[i, j] - ybar[j]), (i, 1, nc[j]), (j, 2, J))

S5_DEF2_COVPM = Equation(
    "§5 Def 2, cov_{p-}",
    _src("§5 Def 2", 187, 580),
    r"\mbox{cov}_{p-}=\frac{\sum_{j=2}^{J}\sum_{i=1}^{n_{j}}(x_{ij}-\bar{x}_{j})(y_{ij}-\bar{y}_{j})"
    r"+\sum_{i=2}^{n_{1}}(x_{i1}-\bar{x}_{1-})(y_{i1}-\bar{y}_{1-})}{n-1-J}",
    (_CP_OTHER + _CP1M) / (n - 1 - J),
    _SAME,
)


def _s5d2(k: int, latex: str, expr: sp.Expr, note: str = "", row: int = 581) -> Equation:
    return Equation(f"§5 Def 2, line {k}", _src("§5 Def 2", 189, row), latex, expr, note)


_DEN5 = (n - J) * (n - 1 - J)
_T1_HEAD = (1 - n1**-1) * (x[1, 1] - xbarm[1]) * (y[1, 1] - ybarm[1])

S5_DEF2_CHAIN = [
    _s5d2(
        1,
        r"\mbox{Let }\Delta=\mbox{cov}_{p}-\mbox{cov}_{p-}=\frac{(n-1-J)\left(\sum_{j=2}^{J}"
        r"\sum_{i=1}^{n_{j}}(x_{ij}-\bar{x}_{j})(y_{ij}-\bar{y}_{j})+\sum_{i=1}^{n_{1}}"
        r"(x_{i1}-\bar{x}_{1})(y_{i1}-\bar{y}_{1})\right)}{(n-J)(n-1-J)}-\frac{(n-J)\left("
        r"\sum_{j=2}^{J}\sum_{i=1}^{n_{j}}(x_{ij}-\bar{x}_{j})(y_{ij}-\bar{y}_{j})+\sum_{i=2}^{n_{1}}"
        r"(x_{i1}-\bar{x}_{1-})(y_{i1}-\bar{y}_{1-})\right)}{(n-J)(n-1-J)}",
        (n - 1 - J) * (_CP_OTHER + _CP1) / _DEN5 - (n - J) * (_CP_OTHER + _CP1M) / _DEN5,
        "Printed over two rows. " + _SAME,
    ),
    _s5d2(
        2,
        r"=\frac{\sum_{i=1}^{n_{1}}(x_{i1}-\bar{x}_{1})(y_{i1}-\bar{y}_{1})-\sum_{i=2}^{n_{1}}"
        r"(x_{i1}-\bar{x}_{1-})(y_{i1}-\bar{y}_{1-})-\mbox{cov}_{p-}}{(n-J)}",
        (_CP1 - _CP1M - COVPM) / (n - J),
        _SAME,
        583,
    ),
    _s5d2(
        3,
        r"=\frac{\sum_{i=1}^{n_{1}}x_{i1}y_{i1}-n_{1}^{-1}((n_{1}-1)\bar{x}_{1-}+x_{11})"
        r"((n_{1}-1)\bar{y}_{1-}+y_{11})-\sum_{i=2}^{n_{1}}x_{i1}y_{i1}+(n_{1}-1)\bar{x}_{1-}"
        r"\bar{y}_{1-}-\mbox{cov}_{p-}}{(n-J)}",
        (
            sp.Sum(x[i, 1] * y[i, 1], (i, 1, n1))
            - n1**-1 * ((n1 - 1) * xbarm[1] + x[1, 1]) * ((n1 - 1) * ybarm[1] + y[1, 1])
            - sp.Sum(x[i, 1] * y[i, 1], (i, 2, n1))
            + (n1 - 1) * xbarm[1] * ybarm[1]
            - COVPM
        )
        / (n - J),
        _SAME,
        584,
    ),
    _s5d2(
        4,
        r"=\frac{(1-n_{1}^{-1})x_{11}y_{11}+(1-n_{1}^{-1})\left(\bar{x}_{1-}\bar{y}_{1-}"
        r"-\bar{x}_{1-}x_{11}-\bar{y}_{1-}y_{11}\right)-\mbox{cov}_{p-}}{(n-J)}",
        (
            (1 - n1**-1) * x[1, 1] * y[1, 1]
            + (1 - n1**-1) * (xbarm[1] * ybarm[1] - xbarm[1] * x[1, 1] - ybarm[1] * y[1, 1])
            - COVPM
        )
        / (n - J),
        "Prints -\\bar{x}_{1-}x_{11} - \\bar{y}_{1-}y_{11} (each mean times its own "
        "variable). " + _SAME,
        585,
    ),
    _s5d2(
        5,
        r"=\frac{(1-n_{1}^{-1})(x_{11}-\bar{x}_{1-})(y_{11}-\bar{y}_{1-})-\mbox{cov}_{p-}}{(n-J)}",
        (_T1_HEAD - COVPM) / (n - J),
        "001 wraps this line in an unclosed \\underbrace. " + _SAME,
        586,
    ),
    _s5d2(
        6,
        r"=\underbrace{\frac{(1-n_{1}^{-1})(x_{11}-\bar{x}_{1-})(y_{11}-\bar{y}_{1-})"
        r"-\frac{\sum_{i=2}^{n_{1}}(x_{i1}-\bar{x}_{1-})(y_{i1}-\bar{y}_{1-})}{(n-1-J)}}{n-J}}"
        r"_{\text{term 1}}-\underbrace{\frac{\sum_{j=2}^{J}\sum_{i=1}^{n_{j}}(x_{ij}-\bar{x}_{j})"
        r"(y_{ij}-\bar{y}_{j})}{(n-1-J)(n-J)}}_{\text{term 2}}",
        (_T1_HEAD - _CP1M / (n - 1 - J)) / (n - J) - _CP_OTHER / ((n - 1 - J) * (n - J)),
        "extra['term1'], extra['term2'] hold the two braces. 001 garbles this line: it "
        "repeats '(1-n_1^{-1})(x_{11} - \\bar{x}_{1-})(y_{11} - \\bar{y}_{1-}) - "
        "Σ_{i=2}^{n_1}(...)/(n-1-J)' seven times and ends in '(x_{11} - \\bar{y}_{1-})"
        "(x_1 - \\bar{y}_{1-})'; 000 is used.",
        587,
    ),
]
S5_DEF2_CHAIN[-1].extra.update(
    {"term1": (_T1_HEAD - _CP1M / (n - 1 - J)) / (n - J), "term2": _CP_OTHER / _DEN5}
)

_NJ = n - J
_N1J = n - 1 - J
_T1K3 = (k3 - (n1 - 1) ** -1 * k1 * k2) / _N1J
_T1_TOP = {k1: n1 - 1, k3: k2}
_T1_ZERO = {k1: 0, k2: 0, k3: 0}
_CASE_K = (n - J + n1 - 1) * k1 * k2 / (n1 * (n1 - 1) * _NJ * _N1J) - k3 / (_NJ * _N1J)


def _t1(
    corner: tuple[int, int],
    line1: tuple[str, sp.Expr],
    line2: tuple[str, sp.Expr],
    values: list[tuple[str, str, sp.Expr, dict]],
    row: int,
    row001: int,
) -> dict:
    place = f"§5 term 1, (x_11, y_11) = {corner}"
    lab = f"§5 term 1, {corner}"
    lines = [
        Equation(f"{lab}, line 1", _src(place, row001, row), line1[0], line1[1], _SAME),
        Equation(f"{lab}, line 2", _src(place, row001, row), line2[0], line2[1], _SAME),
    ]
    vals = [
        Equation(label, _src(place, row001, row), latex, expr, _SAME, extra={"at": at})
        for label, latex, expr, at in values
    ]
    return {"corner": corner, "lines": lines, "values": vals}


S5_TERM1_CASES = [
    _t1(
        (0, 0),
        (
            r"\frac{(1-n^{-1}_{1})(n_{1}-1)^{-2}k_{1}k_{2}-\frac{k_{3}-(n_{1}-1)^{-1}k_{1}k_{2}}"
            r"{n-1-J}}{(n-J)}",
            ((1 - n1**-1) * (n1 - 1) ** -2 * k1 * k2 - _T1K3) / _NJ,
        ),
        (
            r"=\frac{(n-J+n_{1}-1)k_{1}k_{2}}{n_{1}(n_{1}-1)(n-J)(n-1-J)}-\frac{k_{3}}{(n-J)(n-1-J)}",
            _CASE_K,
        ),
        [
            ("§5 term 1, (0, 0), k1 = 0", "0", sp.Integer(0), _T1_ZERO),
            ("§5 term 1, (0, 0), k1 = n1-1", r"\frac{k_{2}}{n_{1}(n-J)}", k2 / (n1 * _NJ), _T1_TOP),
            (
                "§5 term 1, (0, 0), maximum",
                r"\frac{n_{1}-1}{n_{1}(n-J)}",
                (n1 - 1) / (n1 * _NJ),
                {k1: n1 - 1, k2: n1 - 1, k3: n1 - 1},
            ),
            ("§5 term 1, (0, 0), minimum", "0", sp.Integer(0), {k1: n1 - 1, k2: 0, k3: 0}),
        ],
        593,
        195,
    ),
    _t1(
        (0, 1),
        (
            r"\frac{-(1-n^{-1}_{1})(n_{1}-1)^{-2}k_{1}(n_{1}-1-k_{2})-\frac{k_{3}-(n_{1}-1)^{-1}"
            r"k_{1}k_{2}}{n-1-J}}{(n-J)}",
            (-(1 - n1**-1) * (n1 - 1) ** -2 * k1 * (n1 - 1 - k2) - _T1K3) / _NJ,
        ),
        (
            r"=\frac{(n-J+n_{1}-1)k_{1}k_{2}}{n_{1}(n_{1}-1)(n-J)(n-1-J)}-\frac{k_{3}}{(n-J)(n-1-J)}"
            r"-\frac{k_{1}}{n_{1}(n-J)}",
            _CASE_K - k1 / (n1 * _NJ),
        ),
        [
            ("§5 term 1, (0, 1), k1 = 0", "0", sp.Integer(0), _T1_ZERO),
            (
                "§5 term 1, (0, 1), k1 = n1-1",
                r"\frac{k_{2}}{n_{1}(n-J)}-\frac{n_{1}-1}{n_{1}(n-J)}",
                k2 / (n1 * _NJ) - (n1 - 1) / (n1 * _NJ),
                _T1_TOP,
            ),
            (
                "§5 term 1, (0, 1), maximum",
                "0",
                sp.Integer(0),
                {k1: n1 - 1, k2: n1 - 1, k3: n1 - 1},
            ),
            (
                "§5 term 1, (0, 1), minimum",
                r"-\frac{n_{1}-1}{n_{1}(n-J)}",
                -(n1 - 1) / (n1 * _NJ),
                {k1: n1 - 1, k2: 0, k3: 0},
            ),
        ],
        606,
        207,
    ),
    _t1(
        (1, 0),
        (
            r"\frac{-(1-n^{-1}_{1})(n_{1}-1)^{-2}k_{2}(n_{1}-1-k_{1})-\frac{k_{3}-(n_{1}-1)^{-1}"
            r"k_{1}k_{2}}{n-1-J}}{(n-J)}",
            (-(1 - n1**-1) * (n1 - 1) ** -2 * k2 * (n1 - 1 - k1) - _T1K3) / _NJ,
        ),
        (
            r"=\frac{(n-J+n_{1}-1)k_{1}k_{2}}{n_{1}(n_{1}-1)(n-J)(n-1-J)}-\frac{k_{3}}{(n-J)(n-1-J)}"
            r"-\frac{k_{2}}{n_{1}(n-J)}",
            _CASE_K - k2 / (n1 * _NJ),
        ),
        [
            ("§5 term 1, (1, 0), k1 = 0", "0", sp.Integer(0), _T1_ZERO),
            ("§5 term 1, (1, 0), k1 = n1-1", "0", sp.Integer(0), _T1_TOP),
        ],
        619,
        220,
    ),
    _t1(
        (1, 1),
        (
            r"\frac{(1-n^{-1}_{1})(n_{1}-1)^{-2}(n_{1}-1-k_{1})(n_{1}-1-k_{2})-\frac{k_{3}"
            r"-(n_{1}-1)^{-1}k_{1}k_{2}}{n-1-J}}{(n-J)}",
            ((1 - n1**-1) * (n1 - 1) ** -2 * (n1 - 1 - k1) * (n1 - 1 - k2) - _T1K3) / _NJ,
        ),
        (
            r"=\frac{1-n^{-1}_{1}}{n-J}+\frac{(n-J+n_{1}-1)k_{1}k_{2}}{n_{1}(n_{1}-1)(n-J)(n-1-J)}"
            r"-\frac{k_{3}}{(n-J)(n-1-J)}-\frac{k_{1}}{n_{1}(n-J)}-\frac{k_{2}}{n_{1}(n-J)}",
            (1 - n1**-1) / _NJ + _CASE_K - k1 / (n1 * _NJ) - k2 / (n1 * _NJ),
        ),
        [
            (
                "§5 term 1, (1, 1), k1 = 0",
                r"\frac{n_{1}-1}{n_{1}(n-J)}",
                (n1 - 1) / (n1 * _NJ),
                _T1_ZERO,
            ),
            ("§5 term 1, (1, 1), k1 = n1-1", "0", sp.Integer(0), _T1_TOP),
        ],
        632,
        231,
    ),
]

_c20, _c21 = sp.symbols("c_20 c_21", real=True)
_R12 = (_c11 - _c10) * (_c21 - _c20)

S5_DEF1_CHAIN = [
    Equation(
        "§5 Def 1, line 1",
        _src("§5 Def 1", 178, 568),
        r"\Delta=\mbox{cov}_{p}-\mbox{cov}_{p}=(n-J)^{-1}\left(\sum_{j=1}^{J}\sum_{i=1}^{n_{j}}"
        r"(x_{ij}-\bar{x}_{j})(y_{ij}-\bar{y}_{j})-\sum_{j=1}^{J}\sum_{i=1}^{n_{j}}"
        r"(x^{\prime}_{ij}-\bar{x}^{\prime}_{j})(y^{\prime}_{ij}-\bar{y}^{\prime}_{j})\right)",
        (n - J) ** -1
        * (
            sp.Sum((x[i, j] - xbar[j]) * (y[i, j] - ybar[j]), (i, 1, nc[j]), (j, 1, J))
            - sp.Sum((xp[i, j] - xbarp[j]) * (yp[i, j] - ybarp[j]), (i, 1, nc[j]), (j, 1, J))
        ),
        "The left side is printed cov_p - cov_p (the prime of the second is missing). " + _SAME,
    ),
    Equation(
        "§5 Def 1, line 2",
        _src("§5 Def 1", 180, 569),
        r"=(n-J)^{-1}(n_{1}-1)\underbrace{(n_{1}-1)^{-1}\left(\sum_{i=1}^{n_{1}}(x_{i1}-\bar{x}_{1})"
        r"(y_{ij}-\bar{y}_{j})-\sum_{i=1}^{n_{1}}(x_{i1}-\bar{x}^{\prime}_{1})(y^{\prime}_{ij}"
        r"-\bar{y}^{\prime}_{j})\right)}_{\text{term 1}}.",
        (n - J) ** -1
        * (n1 - 1)
        * (n1 - 1) ** -1
        * (
            sp.Sum((x[i, 1] - xbar[1]) * (y[i, j] - ybar[j]), (i, 1, n1))
            - sp.Sum((x[i, 1] - xbarp[1]) * (yp[i, j] - ybarp[j]), (i, 1, n1))
        ),
        "Inside the cell-1 sums the y factors keep the cell index j (y_{ij} - \\bar{y}_j, "
        "y'_{ij} - \\bar{y}'_j; meant: cell 1) and the second sum has x_{i1} unprimed (meant: "
        "x'_{i1}); transcribed as printed, so j is free here. " + _SAME,
    ),
]

S5_DELTA_RANGE = Equation(
    "§5 Def 2, range of Δ",
    _src("§5 Def 2, 'Terms 1 and 2 taken together'", 240, 643),
    r"\Delta\in(c_{11}-c_{10})(c_{21}-c_{20})\times\left[-\left(\frac{n_{1}-1}{n_{1}(n-J)}"
    r"+\frac{n-n_{1}}{4(n-J)(n-n_{1}-J+1)}\right),\frac{n_{1}-1}{n_{1}(n-J)}"
    r"+\frac{n-n_{1}}{4(n-J)(n-1-J)}\right]",
    sp.Tuple(
        -_R12 * ((n1 - 1) / (n1 * (n - J)) + (n - n1) / (4 * (n - J) * (n - n1 - J + 1))),
        _R12 * ((n1 - 1) / (n1 * (n - J)) + (n - n1) / (4 * (n - J) * (n - 1 - J))),
    ),
    "The two ends have different second denominators: (n - n_1 - J + 1) below, (n - 1 - J) "
    "above. The text before it bounds Σ_{j≥2}(n_j - 1)cov_j by ±(c11-c10)(c21-c20)(n-n_1)/4. "
    + _SAME,
    extra={"c10": _c10, "c11": _c11, "c20": _c20, "c21": _c21},
)

S5_EQ5 = Equation(
    "eq (5)",
    _src("§5 Def 2, eq (5)", 243, 645),
    r"(n-J)^{-1}(c_{11}-c_{10})(c_{21}-c_{20})\left(1-\frac{1}{n_{1}}+\frac{n-n_{1}}{4(n-1-J)}"
    r"\right),",
    (n - J) ** -1 * _R12 * (1 - 1 / n1 + (n - n1) / (4 * (n - 1 - J))),
    "The stated maximum of |Δ|; numbered (5) in 001, (H.1) in 000. " + _SAME,
    extra={"c10": _c10, "c11": _c11, "c20": _c20, "c21": _c21},
)

S5_N1_STAR = Equation(
    "§5, maximiser of eq (5)",
    _src("§5 Def 2, after eq (5)", 245, 647),
    r"n_{1}=2\sqrt{n-1-J}",
    2 * sp.sqrt(n - 1 - J),
    _SAME,
)

S5_DELTA_COVP = Equation(
    "§5, δ_{cov_p}",
    _src("§5 Def 2, after eq (5)", 247, 649),
    r"\delta_{\mbox{cov}_{p}}=\frac{(c_{11}-c_{10})(c_{21}-c_{20})}{n-J}\left(1"
    r"+\frac{n}{4(n-1-J)}-\frac{1}{\sqrt{n-J-1}}\right)",
    _R12 / (n - J) * (1 + n / (4 * (n - 1 - J)) - 1 / sp.sqrt(n - J - 1)),
    "Stated not to be an exact bound (n_1 = 2√(n-1-J) is rarely an integer). 001 writes "
    "δ_{COV_p}. " + _SAME,
    extra={"c10": _c10, "c11": _c11, "c20": _c20, "c21": _c21},
)

# ===========================================================================
# 001-only variants (formulas, not garbles), with the reading that makes them defined
# ===========================================================================

VARIANTS_001 = {
    "§4 Def 2, line 3 (001)": Equation(
        "§4 Def 2, line 3 (001)",
        _src("§4 Def 2", 146, None),
        r"= \frac{(n-1-J)\sum_{i=1}^{n_1} (x_{i1} - \bar{x}_1)^2 - (n-J)\sum_{i=2}^{n_1} "
        r"(x_{i1} - \bar{x}_{1-})^2 + \sum_{i=2}^{n_j} (x_{i1} - \bar{x}_{1-})^2}{(n-J)(n-1-J)}",
        ((n - 1 - J) * _SS1 - (n - J) * _SS1M + _SS1M) / _DEN4,
        "001's line 3: the first row of 000's line 3 alone (its second row, -(Σ_{i=2}^{n_1}"
        "(x_{i1}-\\bar{x}_{1-})^2 + Σ_{j≥2}...)/((n-J)(n-1-J)), is missing); the upper limit "
        "n_j of its last sum is read as n_1.",
    ),
    "§4 Def 2, line 4 (001)": Equation(
        "§4 Def 2, line 4 (001)",
        _src("§4 Def 2", 146, None),
        r"= \frac{(n-1-J)\sum_{i=1}^{n_1} (x_{i1} - \bar{x}_{1-})^2 + \sum_{j=2}^J "
        r"\sum_{i=1}^{n_j} (x_{ij} - \bar{x}_j)^2}{(n-J)(n-1-J)} - \frac{\sum_{i=2}^{n_1} "
        r"(x_{i1} - \bar{x}_{1-})^2 - \sum_{i=2}^{n_1} (x_{i1} - \bar{x}_{1-})^2}{(n-J)(n-1-J)}",
        ((n - 1 - J) * sp.Sum((x[i, 1] - xbarm[1]) ** 2, (i, 1, n1)) + _SS_OTHER) / _DEN4
        - (_SS1M - _SS1M) / _DEN4,
        "001 only, in place of 000's second row of line 3 and its line 4.",
    ),
    "§4 Def 2, line 5 (001)": Equation(
        "§4 Def 2, line 5 (001)",
        _src("§4 Def 2", 146, None),
        r"= \frac{(\sum_{i=1}^{n_1} x_{i1}^2 - \frac{((n-1)\bar{x}_{1-} + x_{11})^2}{n_1} - "
        r"\sum_{i=2}^{n_1} x_{i1}^2 + (n_1 - 1)\bar{x}_{1-}^2 - s_{p-}^2}{n-J}",
        (
            sp.Sum(x[i, 1] ** 2, (i, 1, n1))
            - ((n - 1) * xbarm[1] + x[1, 1]) ** 2 / n1
            - sp.Sum(x[i, 1] ** 2, (i, 2, n1))
            + (n1 - 1) * xbarm[1] ** 2
            - SP2M
        )
        / (n - J),
        "001 prints (n-1)\\bar{x}_{1-} where 000 has (n_1-1)\\bar{x}_{1-} (the unbalanced "
        "'(' is dropped).",
    ),
}

ALL: dict[str, object] = {
    "S2_DEF1_LHS": S2_DEF1_LHS,
    "S2_DEF1_CHAIN": S2_DEF1_CHAIN,
    "S2_DEF2_LHS": S2_DEF2_LHS,
    "S2_DEF2_CHAIN": S2_DEF2_CHAIN,
    "S2_DEF2_RESULT_001": S2_DEF2_RESULT_001,
    "S2_SHIFFLER_HARSHA": S2_SHIFFLER_HARSHA,
    "S2_CASE1_SUP": S2_CASE1_SUP,
    "S3_DEF1_LHS": S3_DEF1_LHS,
    "S3_DEF1_CHAIN": S3_DEF1_CHAIN,
    "S3_DEF1_INLINE": S3_DEF1_INLINE,
    "S3_DEF2_LHS": S3_DEF2_LHS,
    "S3_DEF2_CHAIN": S3_DEF2_CHAIN,
    "S3_DEF2_REWRITE": S3_DEF2_REWRITE,
    "S3_K3_RANGE": S3_K3_RANGE,
    "S3_CASES": S3_CASES,
    "S4_DEF1_CHAIN": S4_DEF1_CHAIN,
    "S4_DEF2_SPM": S4_DEF2_SPM,
    "S4_DEF2_CHAIN": S4_DEF2_CHAIN,
    "S5_DEF1_CHAIN": S5_DEF1_CHAIN,
    "S5_DEF2_COVPM": S5_DEF2_COVPM,
    "S5_DEF2_CHAIN": S5_DEF2_CHAIN,
    "S5_TERM1_CASES": S5_TERM1_CASES,
    "S5_DELTA_RANGE": S5_DELTA_RANGE,
    "S5_EQ5": S5_EQ5,
    "S5_N1_STAR": S5_N1_STAR,
    "S5_DELTA_COVP": S5_DELTA_COVP,
    "VARIANTS_001": VARIANTS_001,
}
