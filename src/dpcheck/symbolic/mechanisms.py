"""Every mechanism of the algebra base noise × bounding, and its derived quantities.

A mechanism is a base noise law centred at the input s (:mod:`dpcheck.symbolic.laws`:
Laplace, Gaussian, two-sided geometric) composed with one bounding into
[c0, c1]: ``truncated`` (:func:`laws.condition`, Liu 2019 Definition 2(a),
eq (4)), ``clamped`` (:func:`laws.clamp`, Definition 2(b), eq (5)),
``folded`` (:mod:`dpcheck.symbolic.folding`, the Laplace base) or ``none``.
Either bound may be infinite (``sides='lower'``: [c0, ∞); ``'upper'``:
(-∞, c1]).  Every quantity is an expectation under the composed law
(:func:`laws.expectation`), never typed in:

* normaliser = P(c0 <= X <= c1) under the base law (eq (4)'s denominator);
* mean = E Y, bias = E Y - s, second_moment = E Y², mse = E (Y - s)²,
  var = mse - bias² (Liu 2019 §3, App. B);
* cdf = P(Y <= y), from the base CDF by the bounding's transformation
  (:func:`cdf`).

Liu's truncated and BIT Laplace are the instances ``truncated-laplace`` and
``clamped-laplace``: for them the same engine calls are made through
:mod:`dpcheck.symbolic.laplace_family`, which keeps Liu's tidy forms and the
derivations' traces (one engine, one cache).

Expressions are in s, c0, c1 and the base's own scale symbol: λ (Laplace),
σ (Gaussian), α = e^{-1/b} (two-sided geometric, whose s, c0, c1 are
integers); :func:`in_scale` writes a geometric quantity in b instead.
"""

from __future__ import annotations

from functools import cache

import sympy as sp

from dpcheck.numeric.names import LIU_NAMES, parts
from dpcheck.symbolic import atoms, folding, laws
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic.symbols import alpha, c0, c1, lam, s, scale, sigma, x

#: the base laws, each written once in :mod:`dpcheck.symbolic.laws`
BASE_LAWS = {"laplace": laws.laplace, "gaussian": laws.gaussian, "geometric": laws.geometric}
#: the symbol each base's expressions are written in
SCALE_SYMBOLS = {"laplace": lam, "gaussian": sigma, "geometric": alpha}
#: the bounds of each variant: both finite, [c0, ∞), (-∞, c1]
SIDES = {"both": (c0, c1), "lower": (c0, sp.oo), "upper": (-sp.oo, c1)}
#: the output at which the CDF is taken
y = sp.Symbol("y", real=True)
MOMENTS = ("normaliser", "mean", "bias", "second_moment", "var", "mse")


def _check_sides(mechanism: str, sides: str) -> tuple[str, str]:
    bounding, base = parts(mechanism)
    if sides not in SIDES:
        raise KeyError(sides)
    if sides != "both" and bounding in ("folded", "none"):
        raise ValueError(f"{mechanism} has no one-sided variant")
    return bounding, base


def _liu(mechanism: str, sides: str) -> str | None:
    """Liu's name when the engine path through :mod:`laplace_family` applies."""
    return LIU_NAMES.get(mechanism) if sides == "both" else None


@cache
def law(mechanism: str, sides: str = "both") -> laws.Law:
    """The law of the mechanism's output Y (derived from the base by the bounding)."""
    bounding, base = _check_sides(mechanism, sides)
    if bounding == "none":
        return BASE_LAWS[base]()
    if bounding == "folded":
        return folding.law()
    liu = _liu(mechanism, sides)
    if liu is not None:
        return lf.law(liu)
    lower, upper = SIDES[sides]
    bound = laws.condition if bounding == "truncated" else laws.clamp
    return bound(BASE_LAWS[base](), lower, upper)


@cache
def moment(mechanism: str, k: int, about_s: bool, sides: str = "both") -> sp.Expr:
    """E[Y^k] or E[(Y - s)^k], integrated (or summed) over the law."""
    bounding, _ = _check_sides(mechanism, sides)
    liu = _liu(mechanism, sides)
    if liu is not None:
        return lf.central_moment_about_s(liu, k) if about_s else lf.raw_moment(liu, k)
    if bounding == "folded":
        return folding._moment_about(k, about_s)
    g = (x - s) ** k if about_s else x**k
    return sp.powsimp(sp.expand(laws.expectation(law(mechanism, sides), g)))


@cache
def raw(mechanism: str, name: str, sides: str = "both") -> sp.Expr:
    """A named quantity exactly as the integrals return it (see the module docstring)."""
    bounding, base = _check_sides(mechanism, sides)
    if name == "normaliser":
        if bounding == "none":
            return sp.Integer(1)
        if base == "laplace" and sides == "both":
            return lf.normaliser()
        lower, upper = SIDES[sides]
        return sp.powsimp(sp.expand(laws.mass_between(BASE_LAWS[base](), lower, upper)))
    if name == "mean":
        return moment(mechanism, 1, False, sides)
    if name == "second_moment":
        return moment(mechanism, 2, False, sides)
    if name == "bias":
        return moment(mechanism, 1, True, sides)
    if name == "mse":
        return moment(mechanism, 2, True, sides)
    if name == "var":
        return moment(mechanism, 2, True, sides) - moment(mechanism, 1, True, sides) ** 2
    raise KeyError(name)


@cache
def quantity(mechanism: str, name: str, sides: str = "both") -> sp.Expr:
    """The quantity in its tidiest derived form.

    Liu's cancelled forms for the Laplace instances, :func:`folding.tidy` for
    the folded law; the geometric law's as one cancelled fraction in α and
    α^{s-c0}, α^{c1-s} (:func:`dpcheck.symbolic.atoms.tidy`; var from the
    tidy bias and mse); the Gaussian's raw integral with each exponential
    merged (exp(-(c0 - s)²/(2σ²))).  Each tidy form is proved equal to the
    raw one by :func:`dpcheck.symbolic.atoms.is_zero` in the tests.
    """
    bounding, base = _check_sides(mechanism, sides)
    if name == "cdf":
        return cdf(mechanism, sides)
    if base == "laplace" and name != "normaliser":
        if bounding == "folded":
            return folding.tidy(name)
        liu = LIU_NAMES.get(mechanism)
        if liu is not None:
            return lf.quantity(liu, name) if sides == "both" else lf.one_sided(liu, name, sides)
    if base == "geometric":
        if name == "var":
            bias = quantity(mechanism, "bias", sides)
            return atoms.tidy(quantity(mechanism, "mse", sides) - bias**2)
        return atoms.tidy(raw(mechanism, name, sides))
    return merge_exponentials(raw(mechanism, name, sides))


def merge_exponentials(expr: sp.Expr) -> sp.Expr:
    """Each product of exponentials as one exp with a factored exponent."""
    merged = sp.powsimp(expr, combine="exp")
    return merged.replace(lambda e: isinstance(e, sp.exp), lambda e: sp.exp(sp.factor(e.args[0])))


def in_scale(expr: sp.Expr) -> sp.Expr:
    """A geometric quantity written in its scale b (α = e^{-1/b})."""
    return expr.subs(alpha, sp.exp(-1 / scale))


#: distances of s from the bounds, positive (integers on the lattice) while taking limits
_d0, _d1 = sp.Symbol("d_0", positive=True), sp.Symbol("d_1", positive=True)
_k0, _k1 = (sp.Symbol(n, integer=True, positive=True) for n in ("d_0", "d_1"))


class LimitNotDerived(ArithmeticError):
    """SymPy could not take a limit; the quantity is then evaluated, not limited."""


def _distances(expr: sp.Expr, lattice: bool) -> sp.Expr:
    d0, d1 = (_k0, _k1) if lattice else (_d0, _d1)
    # every law is a location family (on the lattice, shifted by the integer s): the law
    # of Y - s, and so bias, mse and the normaliser, depend on d0, d1 and the scale only,
    # and s = 0 may be put in once c0, c1 are written through d0, d1
    expr = expr.subs({c0: s - d0, c1: s + d1}).subs(s, 0)
    expr = expr.replace(
        lambda e: isinstance(e, (sp.erf, sp.erfc, sp.exp)),
        lambda e: e.func(sp.expand(e.args[0])),
    )
    return sp.powsimp(expr, combine="exp")


def _lattice_zero_limit(expr: sp.Expr) -> sp.Expr:
    """lim_{α→0+} of a rational function of α and α^{d0}, α^{d1} (d0, d1 >= 1 integers):
    every atom α^{d} tends to 0 with α, so the limit is the value at 0 when the
    denominator does not vanish there."""
    rational = atoms.reduce(expr).rational
    num, den = sp.fraction(sp.together(rational))
    zero = {sym: 0 for sym in rational.free_symbols if sym == alpha or sym.name.startswith("A_")}
    at_den = sp.expand(den).subs(zero)
    if at_den == 0:
        raise LimitNotDerived(f"the denominator of {expr} vanishes at alpha = 0")
    return sp.simplify(sp.expand(num).subs(zero) / at_den)


def _limit(expr: sp.Expr, variable: sp.Symbol, point: sp.Expr, direction: str) -> sp.Expr:
    """lim expr; for a sum SymPy cannot take at once, the sum of the terms' finite limits."""
    try:
        return sp.limit(expr, variable, point, direction)
    except (NotImplementedError, ValueError):
        if not isinstance(expr, sp.Add):
            raise
    parts_ = [sp.limit(term, variable, point, direction) for term in expr.args]
    if any(p.has(sp.oo, -sp.oo, sp.zoo, sp.nan, sp.Limit) for p in parts_):
        raise NotImplementedError("a term of the sum has no finite limit")
    return sp.Add(*parts_)


@cache
def scale_limit(mechanism: str, name: str, to: str) -> sp.Expr:
    """The limit of a quantity as the scale → 0+ (``to='zero'``) or → ∞ (``'infinity'``),
    with c0 < s < c1 fixed (Liu 2019 §3.1 and Proposition 2 for the Laplace instances).

    bias, mse and the normaliser depend only on the distances d0 = s - c0,
    d1 = c1 - s (positive; integers for the geometric law, whose scale → 0, ∞
    is α → 0+, 1-), every law being a location family; their
    limits are taken by SymPy (Gruntz) and the others composed from them:
    mean = s + bias, second moment = s² + 2s·bias + mse, var = mse - bias².
    Raises :class:`LimitNotDerived` when SymPy cannot take a limit.
    """
    if to not in ("zero", "infinity"):
        raise KeyError(to)
    if name == "mean":
        return sp.expand(s + scale_limit(mechanism, "bias", to))
    if name == "second_moment":
        bias, mse = scale_limit(mechanism, "bias", to), scale_limit(mechanism, "mse", to)
        return sp.expand(s**2 + 2 * s * bias + mse)
    if name == "var":
        bias, mse = scale_limit(mechanism, "bias", to), scale_limit(mechanism, "mse", to)
        return sp.factor(sp.expand(mse - bias**2))
    bounding, base = parts(mechanism)
    liu = LIU_NAMES.get(mechanism)
    if liu is not None and name in ("bias", "mse"):
        return lf.scale_limit(liu, name, to)  # Liu's normalised forms (§3.1)
    lattice = base == "geometric"
    expr = _distances(quantity(mechanism, name), lattice)
    if lattice and to == "zero":
        return _lattice_zero_limit(expr)
    variable = SCALE_SYMBOLS[base]
    if lattice:
        point, direction = (0, "+") if to == "zero" else (1, "-")
    else:
        point, direction = (0, "+") if to == "zero" else (sp.oo, "-")
    try:
        value = _limit(expr, variable, point, direction)
    except (NotImplementedError, ValueError) as exc:
        raise LimitNotDerived(f"{mechanism}.{name} as the scale -> {to}: {exc!r}") from None
    if value.has(sp.Limit) or value.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        raise LimitNotDerived(f"{mechanism}.{name} as the scale -> {to}: {value}")
    d0, d1 = (_k0, _k1) if lattice else (_d0, _d1)
    return sp.factor(sp.simplify(value.subs({d0: s - c0, d1: c1 - s})))


# ---------------------------------------------------------------------------
# distribution functions
# ---------------------------------------------------------------------------


@cache
def base_cdf(base: str, branch: str) -> sp.Expr:
    """F(y) = P(X <= y) of the base law, for y <= s (``'below'``) or y >= s (``'above'``).

    Integrated (summed) from the base law: on the lattice, y is a point s + k
    with k an integer; below s F(y) = P(X < y + 1) (the left tail of
    :func:`laws.clamp`), above it 1 - P(X > y).
    """
    law_ = BASE_LAWS[base]()
    if base == "geometric":
        if branch == "below":
            return laws._tail(law_, y + 1, "below")
        return sp.powsimp(sp.expand(1 - laws._tail(law_, y, "above")))
    (piece,) = law_.pieces
    if piece.scale is not None:  # smooth: one expression for every y
        tail = laws.Piece(-sp.oo, y, piece.density, scale=piece.scale)
        return laws.integrate_piece(sp.Integer(1), tail)
    if branch == "below":  # x < y <= s throughout
        density = laws.resolve_abs(piece.density, -1)
        return sp.powsimp(sp.expand(sp.integrate(density, (x, -sp.oo, y), conds="none")))
    density = laws.resolve_abs(piece.density, 1)  # x > y >= s throughout
    return sp.powsimp(sp.expand(1 - sp.integrate(density, (x, y, sp.oo), conds="none")))


def _at(expr: sp.Expr, point: sp.Expr) -> sp.Expr:
    return expr.subs(y, point)


@cache
def cdf_branches(mechanism: str, sides: str = "both") -> dict[str, sp.Expr]:
    """P(Y <= y) for c0 <= y <= s (``'below'``) and s <= y < c1 (``'above'``).

    From the base CDF F by the bounding's transformation: truncated,
    (F(y) - F(c0-))/(F(c1) - F(c0-)); clamped, F(y) itself on [c0, c1)
    (the atom at c0 is F(c0), the one at c1 is 1 - F(c1-)); none, F.  The
    folded Laplace law's CDF is :func:`dpcheck.symbolic.cdf.cdf`.
    """
    bounding, base = _check_sides(mechanism, sides)
    if bounding == "folded":
        from dpcheck.symbolic import cdf as folded_cdf

        return {b: folded_cdf.cdf("folded", b) for b in ("below", "above")}
    branches = {b: base_cdf(base, b) for b in ("below", "above")}
    if bounding in ("none", "clamped"):
        return branches
    lower, upper = SIDES[sides]
    if base == "geometric":
        left = 0 if lower == -sp.oo else _at(branches["below"], lower - 1)
    else:
        left = 0 if lower == -sp.oo else _at(branches["below"], lower)
    right = 1 if upper == sp.oo else _at(branches["above"], upper)
    return {b: (f - left) / (right - left) for b, f in branches.items()}


def cdf(mechanism: str, sides: str = "both") -> sp.Expr:
    """P(Y <= y) as one Piecewise in y (the branches of :func:`cdf_branches`)."""
    bounding, _ = _check_sides(mechanism, sides)
    branches = cdf_branches(mechanism, sides)
    lower, upper = SIDES[sides] if bounding != "none" else (-sp.oo, sp.oo)
    pieces = []
    if lower != -sp.oo:
        pieces.append((sp.Integer(0), y < lower))
    pieces.append((branches["below"], y < s))
    if upper != sp.oo:
        pieces.append((branches["above"], y < upper))
        pieces.append((sp.Integer(1), True))
    else:
        pieces.append((branches["above"], True))
    return sp.Piecewise(*pieces)


__all__ = [
    "BASE_LAWS",
    "MOMENTS",
    "SCALE_SYMBOLS",
    "SIDES",
    "base_cdf",
    "cdf",
    "cdf_branches",
    "in_scale",
    "law",
    "merge_exponentials",
    "moment",
    "quantity",
    "raw",
    "scale_limit",
    "LimitNotDerived",
    "y",
]
