"""The folded Laplace law, derived from the Laplace density by summing its images.

diffprivlib 0.6.6's ``LaplaceFolded`` outputs fold(X), X ~ Lap(s, λ): a value
below c0 is reflected about c0, one above c1 about c1, repeatedly, until it
lies in [c0, c1] (``TruncationAndFoldingMixin._fold``).  The fold map is even
about c0 and 2R-periodic (R = c1 - c0), so fold(X) = y for y in [c0, c1]
exactly when X is one of the images

    y + 2kR   and   2c0 - y + 2kR,    k in Z,

and the density of fold(X) on [c0, c1] is the sum of the Laplace density of
Liu (2019) eq (2) (:func:`dpcheck.symbolic.laws.laplace_density`) over them.
Nothing is typed in by hand:

1. for each family and each range of k (k <= -1, k = 0, k >= 1) the side of s
   on which the image lies is *proved* from c0 <= s, y <= c1 (the sign of a
   linear form at the vertices of the box, and of its slope in k), which
   resolves |image - s|; only the k = 0 term of the direct family keeps
   |x - s|, which :func:`dpcheck.symbolic.laws.expectation` splits at s;
2. the terms of each infinite range are a geometric series a·r^k, checked
   (r independent of k, term = a·r^k exactly, r = exp(z) with z < 0 proved)
   and summed by :func:`sympy.summation`;
3. the total mass is proved to be exactly 1 (:func:`check_total_mass`).

Moments are then integrals over the law, as for the truncated and BIT laws
(:mod:`dpcheck.symbolic.laplace_family`).
"""

from __future__ import annotations

from functools import cache
from itertools import product

import sympy as sp

from dpcheck.symbolic import laws
from dpcheck.symbolic.rational import denormalise, from_u, is_identically_zero, to_rational
from dpcheck.symbolic.symbols import c0, c1, s, x

QUANTITIES = ("mean", "bias", "second_moment", "var", "mse")

#: the summation index and the width R = c1 - c0 (positive while summing)
k = sp.Symbol("k", integer=True)
width = sp.Symbol("R", positive=True)

#: the two families of images of an output y (written in x): direct and reflected about c0
FAMILIES = {"direct": x + 2 * k * width, "reflected": 2 * c0 - x + 2 * k * width}
#: the ranges of k: name → (substitution for k, its free index j >= 0, or None for k = 0)
_j = sp.Symbol("j", integer=True, nonnegative=True)
RANGES = {"k>=1": 1 + _j, "k=0": sp.Integer(0), "k<=-1": -1 - _j}


class NotDerived(RuntimeError):
    """A step of the folded-law derivation could not be checked."""


def side_of_s(image: sp.Expr, k_range: str) -> int | None:
    """The sign of image - s for every c0 <= s, x <= c1 and every k in the range.

    In the coordinates s = c0 + R·w, x = c0 + R·v (v, w in [0, 1]) and k = 1 + j
    or -1 - j (j >= 0), (image - s)/R is linear in v, w and j: its sign on the
    whole range is that of its values at the vertices of the box (j = 0) and of
    its slope in j, all of one sign.  Returns +1, -1, or None when the sign
    changes (the k = 0 direct term, whose |x - s| stays unresolved).
    """
    v, w = sp.symbols("v w", nonnegative=True)
    coords = {x: c0 + width * v, s: c0 + width * w}
    form = sp.expand(((image - s).subs(coords).subs(k, RANGES[k_range])) / width)
    for var in (v, w, _j):
        if sp.degree(form, var) > 1:
            raise NotDerived(f"(image - s)/R = {form} is not linear in {var}")
    corners = [form.subs({v: a, w: b, _j: 0}) for a, b in product((0, 1), repeat=2)]
    slope = form.coeff(_j)
    values = [*corners, slope]
    if all(val >= 0 for val in values):
        return 1
    if all(val <= 0 for val in values):
        return -1
    return None


def geometric_sum(term: sp.Expr) -> sp.Expr:
    """Σ_{k>=1} term(k) for a geometric term a·r^k, r = exp(z), z < 0 (all checked).

    The closed form comes from :func:`sympy.summation` of q^k (the |q| < 1
    branch), at q = r, times a = term(0).
    """
    term = sp.expand(term, power_exp=True)
    ratio = sp.simplify(sp.powsimp(term.subs(k, k + 1) / term))
    if k in ratio.free_symbols:
        raise NotDerived(f"term {term} is not geometric in k (ratio {ratio})")
    if not (isinstance(ratio, sp.exp) and sp.expand(ratio.args[0]).is_negative):
        raise NotDerived(f"ratio {ratio} is not shown to lie in (0, 1)")
    first = sp.powsimp(term.subs(k, 0))
    difference = sp.expand(term - first * sp.exp(k * ratio.args[0]), power_exp=True)
    if sp.simplify(difference) != 0:
        raise NotDerived(f"term {term} is not {first}·({ratio})^k")
    q = sp.Dummy("q", positive=True)
    series = sp.summation(q**k, (k, 1, sp.oo))
    closed = series
    if isinstance(series, sp.Piecewise):  # (q/(1-q), |q| < 1), (Sum, True)
        closed = next(expr for expr, cond in series.args if cond is not sp.true)
    if closed.has(sp.Sum) or not is_identically_zero(closed - q / (1 - q), normalise=False):
        raise NotDerived(f"Σ q^k summed to {series}")
    return first * closed.subs(q, ratio)


@cache
def image_terms() -> tuple[tuple[str, str, sp.Expr], ...]:
    """(family, range of k, density term in x) with every series summed."""
    out = []
    for family, image in FAMILIES.items():
        for k_range in RANGES:
            dens = laws.laplace_density().subs(x, image)
            side = side_of_s(image, k_range)
            if k_range == "k=0":
                term = dens.subs(k, 0)
                if side is None:
                    if family != "direct":
                        raise NotDerived(f"{family} k=0 image: side of s undetermined")
                    term = laws.laplace_density()  # |x - s| kept; expectation splits it
                else:
                    term = laws.resolve_abs(term, side, image.subs(k, 0))
                out.append((family, k_range, term))
                continue
            if side is None:
                raise NotDerived(f"{family} images, {k_range}: side of s undetermined")
            resolved = laws.resolve_abs(dens, side, image)
            if resolved.has(sp.Abs):
                raise NotDerived(f"|image - s| not resolved in {resolved}")
            if k_range == "k<=-1":
                resolved = resolved.subs(k, -k)  # k <= -1 is -k for k >= 1
            out.append((family, k_range, geometric_sum(resolved)))
    return tuple(out)


@cache
def density() -> sp.Expr:
    """The density of fold(X) on [c0, c1], in x (R back as c1 - c0)."""
    total = sum((term for _, _, term in image_terms()), sp.Integer(0))
    return total.subs(width, c1 - c0)


@cache
def law() -> laws.Law:
    """The law of fold(X), X ~ Lap(s, λ), into [c0, c1] (diffprivlib ``LaplaceFolded``)."""
    return laws.Law("Laplace folded into [c_0, c_1]", (), (laws.Piece(c0, c1, density()),))


def expectation(g: sp.Expr) -> sp.Expr:
    """E g(fold(X)) = ∫_{c0}^{c1} g·density, term by term.

    Same value as ``laws.expectation(law(), g)`` (the integral is linear): each
    image term is (factor free of x)·(exponential in x), and only the second
    factor goes to :func:`dpcheck.symbolic.laws.integrate_piece` (split at s
    for the k = 0 term), which keeps SymPy off the Risch algorithm for the
    geometric factor 1/(1 - exp(-2R/λ)).
    """
    total = sp.Integer(0)
    for _, _, term in image_terms():
        factor, rest = term.as_independent(x, as_Add=False)
        total += factor * laws.integrate_piece(g, laws.Piece(c0, c1, rest))
    return total.subs(width, c1 - c0)


@cache
def total_mass() -> sp.Expr:
    """∫ density over [c0, c1] (:func:`expectation` of 1)."""
    return expectation(sp.Integer(1))


def check_total_mass() -> bool:
    """True when the total mass is proved to be exactly 1 (exact rational reduction)."""
    return is_identically_zero(total_mass() - 1)


@cache
def _moment_about(k_: int, about_s: bool) -> sp.Expr:
    g = (x - s) ** k_ if about_s else x**k_
    return sp.powsimp(sp.expand(expectation(g)))


@cache
def quantity(name: str) -> sp.Expr:
    """mean = E fold(X); bias = E fold(X) - s; second_moment; mse = E(fold(X) - s)²;
    var = mse - bias² (mirrors :func:`dpcheck.symbolic.laplace_family.raw`)."""
    if name == "mean":
        return _moment_about(1, False)
    if name == "second_moment":
        return _moment_about(2, False)
    if name == "bias":
        return _moment_about(1, True)
    if name == "mse":
        return _moment_about(2, True)
    if name == "var":
        return _moment_about(2, True) - _moment_about(1, True) ** 2
    raise KeyError(name)


@cache
def tidy(name: str) -> sp.Expr:
    """:func:`quantity` as one cancelled fraction in exp(-(s-c0)/λ), exp(-(c1-s)/λ).

    The exact rational reduction of :mod:`dpcheck.symbolic.rational` (as for
    :func:`dpcheck.symbolic.laplace_family.quantity`); this is the form compiled
    for evaluation.  E.g. bias = λ(e^{-t0} - e^{-t1})/(1 + e^{-t0-t1}).
    """
    rational, back = to_rational(quantity(name))
    return denormalise(from_u(rational, back))


__all__ = [
    "FAMILIES",
    "NotDerived",
    "QUANTITIES",
    "check_total_mass",
    "density",
    "expectation",
    "geometric_sum",
    "image_terms",
    "law",
    "quantity",
    "side_of_s",
    "tidy",
    "total_mass",
]
