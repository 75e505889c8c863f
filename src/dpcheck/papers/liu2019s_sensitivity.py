"""The sensitivities as printed in Liu's supplement (paper 001), transcribed.

Each entry of :data:`PRINTED` maps ``(stat, neighbours)`` to the printed
formulas, with their place in the supplement ("Def 1" = substitute, "Def 2" =
remove).  A formula's ``normalised(n, groups, eligible)`` is its value for
unit bounds; the value for user bounds is that times the statistic's scale
(R, R^2 or R1*R2), since every printed formula is proportional to it.
``eligible`` are the sizes of the groups the removed record may come from
(eq (5) is maximised over them).  These are the things under test, kept apart
from the exact engine (DESIGN.md, layer 2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

Groups = tuple[int, ...]


@dataclass(frozen=True)
class Printed:
    """One printed sensitivity formula.

    ``kind`` is ``"equals"`` (the paper gives this as the GS) or ``"not"`` (the
    paper says the GS is *not* this; only the standard deviation).
    """

    where: str
    text: str
    normalised: Callable[[int, Groups | None, Groups | None], object]
    kind: str = "equals"


def _nmax(groups: Groups | None) -> int:
    assert groups
    return max(groups)


def _pooled_var_remove(n: int, groups: Groups | None, eligible: Groups | None) -> object:
    assert groups
    j = len(groups)
    if n == 2 * j:
        return Fraction(n - 1, n * (n - 2))
    return (1 - Fraction(1, _nmax(groups))) / (n - j)


def _eq5(n: int, groups: Groups | None, eligible: Groups | None) -> object:
    assert groups and eligible
    j = len(groups)
    return max(
        (1 - Fraction(1, n1) + Fraction(n - n1, 4 * (n - 1 - j))) / (n - j) for n1 in eligible
    )


def _closed_form(n: int, groups: Groups | None, eligible: Groups | None) -> object:
    import sympy

    assert groups
    j = len(groups)
    return (1 + sympy.Rational(n, 4 * (n - 1 - j)) - 1 / sympy.sqrt(n - j - 1)) / sympy.Integer(
        n - j
    )


def _sqrt_over_n(n: int, groups: Groups | None, eligible: Groups | None) -> object:
    import sympy

    return sympy.sqrt(sympy.Rational(1, n))


PRINTED: dict[tuple[str, str], tuple[Printed, ...]] = {
    ("mean", "substitute"): (
        Printed("supplement §1, Def 1", "R/n", lambda n, g, e: Fraction(1, n)),
    ),
    ("mean", "remove"): (Printed("supplement §1, Def 2", "R/n", lambda n, g, e: Fraction(1, n)),),
    ("proportion", "substitute"): (
        Printed("supplement §1 (proportion)", "1/n", lambda n, g, e: Fraction(1, n)),
    ),
    ("proportion", "remove"): (
        Printed("supplement §1 (proportion)", "1/n", lambda n, g, e: Fraction(1, n)),
    ),
    ("histogram", "substitute"): (
        Printed("supplement §1, Def 1 (histogram H)", "2", lambda n, g, e: Fraction(2)),
    ),
    ("histogram", "remove"): (
        Printed("supplement §1, Def 2 (histogram H)", "1", lambda n, g, e: Fraction(1)),
    ),
    ("proportions", "substitute"): (
        Printed("supplement §1, Def 1 (proportions p)", "2/n", lambda n, g, e: Fraction(2, n)),
    ),
    ("proportions", "remove"): (
        Printed("supplement §1, Def 2 (proportions p)", "1/n", lambda n, g, e: Fraction(1, n)),
    ),
    ("variance", "substitute"): (
        Printed("supplement §2, Def 1", "R^2/n", lambda n, g, e: Fraction(1, n)),
    ),
    ("variance", "remove"): (
        Printed("supplement §2, Def 2 (n > 2)", "R^2/n", lambda n, g, e: Fraction(1, n)),
    ),
    ("sd", "substitute"): (
        Printed("main text §2.2 (no formula given)", "sqrt(R^2/n)", _sqrt_over_n, kind="not"),
    ),
    ("sd", "remove"): (
        Printed("main text §2.2 (no formula given)", "sqrt(R^2/n)", _sqrt_over_n, kind="not"),
    ),
    ("covariance", "substitute"): (
        Printed("supplement §3, Def 1", "R1*R2/n", lambda n, g, e: Fraction(1, n)),
    ),
    ("covariance", "remove"): (
        Printed("supplement §3, Def 2", "R1*R2/n", lambda n, g, e: Fraction(1, n)),
    ),
    ("pooled_variance", "substitute"): (
        Printed(
            "supplement §4, Def 1",
            "R^2 (1 - 1/n_max)/(n - J)",
            lambda n, g, e: (1 - Fraction(1, _nmax(g))) / (n - len(g or ())),
        ),
    ),
    ("pooled_variance", "remove"): (
        Printed(
            "supplement §4, Def 2",
            "R^2 (1 - 1/n_max)/(n - J) if n > 2J; R^2 (n - 1)/(n (n - 2)) if n = 2J",
            _pooled_var_remove,
        ),
    ),
    ("pooled_covariance", "substitute"): (
        Printed(
            "supplement §5, Def 1",
            "R1*R2 (1 - 1/n_max)/(n - J)",
            lambda n, g, e: (1 - Fraction(1, _nmax(g))) / (n - len(g or ())),
        ),
    ),
    ("pooled_covariance", "remove"): (
        Printed(
            "supplement §5, Def 2, eq (5) (max over the groups n1 a record may leave)",
            "R1*R2/(n - J) (1 - 1/n1 + (n - n1)/(4 (n - 1 - J)))",
            _eq5,
        ),
        Printed(
            "supplement §5, Def 2, closed form after eq (5)",
            "R1*R2/(n - J) (1 + n/(4 (n - 1 - J)) - 1/sqrt(n - J - 1))",
            _closed_form,
        ),
    ),
}


def compare(printed: object, exact: object) -> str:
    """'equal', 'loose' (printed > exact) or 'wrong' (printed < exact), decided exactly.

    Rationals are compared as Fractions; anything with a square root through
    SymPy (an exact zero test, then the sign of the difference, which SymPy
    decides by evaluation with error control), else 'undecided'.
    """
    if isinstance(printed, Fraction) and isinstance(exact, Fraction):
        d = printed - exact
        return "equal" if d == 0 else ("loose" if d > 0 else "wrong")
    import sympy

    def as_sympy(v: object) -> sympy.Expr:
        if isinstance(v, Fraction):
            return sympy.Rational(v.numerator, v.denominator)
        if isinstance(v, sympy.Basic):
            return v
        raise TypeError(f"not an exact number: {v!r}")

    d = sympy.expand(sympy.radsimp(as_sympy(printed) - as_sympy(exact)))
    if d == 0:
        return "equal"
    if d.is_positive:
        return "loose"
    if d.is_negative:
        return "wrong"
    return "undecided"
