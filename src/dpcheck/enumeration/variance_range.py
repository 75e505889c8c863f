"""The largest sample variance of m values in [0, 1] (Shiffler and Harsha 1980), exactly.

The sample variance (divisor m - 1) is a convex quadratic in the data:
Q - S²/m = Σ (x_i - x̄)², a sum of squares of linear forms.  Its maximum over
the box [0, 1]^m is therefore at a vertex, and by symmetry a vertex is fixed
by the count k of values at 1, where the variance is k(m-k)/(m(m-1)).  The
maximum, at k = floor(m/2), is m/(4(m-1)) for even m and (m+1)/(4m) for odd
m (times R² for data in [c0, c1]).  Used by Liu (2019) Table 1 and the
supplement §2, §4.
"""

from __future__ import annotations

from fractions import Fraction


def hessian_is_projection() -> bool:
    """The Hessian of the sample variance, 2/(m-1)·(I - J/m) (J the all-ones matrix), is a
    scaled orthogonal projection: with J² = mJ, (I - J/m)² = I - J/m, checked for symbolic m.
    A projection is positive semidefinite, so the variance is convex and its maximum over a
    box is at a vertex."""
    import sympy as sp

    m, J = sp.symbols("m J", positive=True)
    square = sp.expand((1 - J / m) ** 2).subs(J**2, m * J)
    return sp.simplify(square - (1 - J / m)) == 0


def variance_at_vertex(m: int, k: int) -> Fraction:
    """Sample variance of k values at 1 and m - k at 0 (units of R²)."""
    mean = Fraction(k, m)
    return (k * (1 - mean) ** 2 + (m - k) * mean**2) / (m - 1)


def max_sample_variance(m: int) -> Fraction:
    """max over [0, 1]^m of the sample variance: floor(m/2) ceil(m/2)/(m(m-1))."""
    if m < 2:
        raise ValueError(f"m={m}: a sample variance needs m >= 2 values")
    return variance_at_vertex(m, m // 2)


__all__ = ["hessian_is_projection", "max_sample_variance", "variance_at_vertex"]
