"""Probability laws on the real line, written once, and expectations under them.

A :class:`Law` is a finite set of point masses (:class:`Atom`), densities on
intervals (:class:`Piece`) and probability mass functions on runs of the
lattice s + Z (:class:`Lattice`).  The base laws are typed in once each: the
Laplace law of Liu (2019) eq (1)-(2), the Gaussian law, and the discrete
Laplace (two-sided geometric) law on the integers.  Every bounding is derived
from a base by one transformation: truncation (Liu 2019 Definition 2(a),
eq (4); Holohan et al.'s bounded domain) by :func:`condition`, boundary
inflation (Definition 2(b), eq (5)) by :func:`clamp`, each with either bound
infinite for the one-sided variants.  Every moment used elsewhere comes from
:func:`expectation`, which integrates piece by piece -- splitting each
integral at the kink of ``|x - s|`` so that SymPy integrates plain
exponentials, or, for a smooth kernel with a scale (the Gaussian), in the
standardised variable z = (x - s)/σ -- and sums lattice runs in closed form
(:func:`sum_lattice`, split at the kink of |m|).

Throughout, ``c0 <= s <= c1`` (the statistic lies within its bounds; see the
README, "s outside the bounds").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from dpcheck.symbolic.symbols import alpha, c0, c1, lam, m, s, sigma, x, z

#: Known order of the symbolic points, used to place the kink of |x - s|.
_ORDER = {-sp.oo: 0, c0: 1, s: 2, c1: 3, sp.oo: 4}


@dataclass(frozen=True)
class Atom:
    """A point mass ``mass`` at ``point``."""

    point: sp.Expr
    mass: sp.Expr


@dataclass(frozen=True)
class Piece:
    """A density ``kernel / normaliser`` (``kernel`` an expression in :data:`x`) on
    ``[lower, upper]``.

    The normaliser is kept apart (1 unless the law was conditioned, eq (4)) so
    that an integral over the piece is the integral of the plain kernel divided
    by one constant: the derivations show exactly those integrals.
    """

    lower: sp.Expr
    upper: sp.Expr
    kernel: sp.Expr
    normaliser: sp.Expr = sp.Integer(1)
    #: a smooth kernel's scale: integrals are taken in z = (x - s)/scale
    scale: sp.Expr | None = None

    @property
    def density(self) -> sp.Expr:
        """The density itself, kernel / normaliser."""
        return self.kernel if self.normaliser == 1 else self.kernel / self.normaliser


@dataclass(frozen=True)
class Lattice:
    """Probability ``pmf / normaliser`` (``pmf`` an expression in :data:`m`) at the
    points s + m, for the integers m in ``[lower, upper]`` (either may be ±oo).

    The discrete counterpart of :class:`Piece`: the two-sided geometric law
    puts mass (1 - α)/(1 + α)·α^|m| at s + m.
    """

    lower: sp.Expr
    upper: sp.Expr
    pmf: sp.Expr
    normaliser: sp.Expr = sp.Integer(1)

    @property
    def mass(self) -> sp.Expr:
        """The probability of s + m itself, pmf / normaliser."""
        return self.pmf if self.normaliser == 1 else self.pmf / self.normaliser


@dataclass(frozen=True)
class Law:
    """A law: point masses, densities on intervals and lattice runs; ``name`` is for reports."""

    name: str
    atoms: tuple[Atom, ...]
    pieces: tuple[Piece, ...]
    lattices: tuple[Lattice, ...] = ()


@dataclass(frozen=True)
class IntegralStep:
    """One integral the expectation engine evaluated (kept for derivations).

    ``integrand`` is g(x) times the piece's kernel with |x - s| resolved on
    (lower, upper); ``value`` its integral, before any division by the
    piece's normaliser.
    """

    lower: sp.Expr
    upper: sp.Expr
    integrand: sp.Expr
    value: sp.Expr


def laplace_density(location: sp.Expr = s, scale: sp.Expr = lam) -> sp.Expr:
    """Lap(s, λ) density exp(-|x - s|/λ)/(2λ) (Liu 2019, §2.2, eq (2))."""
    return sp.exp(-sp.Abs(x - location) / scale) / (2 * scale)


def laplace() -> Law:
    """The Laplace law Lap(s, λ) on the whole line (Liu 2019, eq (2))."""
    return Law("Laplace", (), (Piece(-sp.oo, sp.oo, laplace_density()),))


def gaussian_density(location: sp.Expr = s, scale: sp.Expr = sigma) -> sp.Expr:
    """N(s, σ²) density exp(-(x - s)²/(2σ²))/(σ√(2π)) (the Gaussian mechanism's noise)."""
    return sp.exp(-((x - location) ** 2) / (2 * scale**2)) / (scale * sp.sqrt(2 * sp.pi))


def gaussian() -> Law:
    """The Gaussian law N(s, σ²) on the whole line (integrated in z = (x - s)/σ)."""
    return Law("Gaussian", (), (Piece(-sp.oo, sp.oo, gaussian_density(), scale=sigma),))


def geometric_pmf() -> sp.Expr:
    """P(X = s + m) = (1 - α)/(1 + α)·α^|m|, m in Z: the discrete Laplace (two-sided
    geometric) law of scale b, α = e^{-1/b} (Ghosh, Roughgarden and Sundararajan 2009)."""
    return (1 - alpha) / (1 + alpha) * alpha ** sp.Abs(m)


def geometric() -> Law:
    """The two-sided geometric law on s + Z (s, c0, c1 integers in the mechanisms)."""
    return Law("two-sided geometric", (), (), (Lattice(-sp.oo, sp.oo, geometric_pmf()),))


def resolve_abs(expr: sp.Expr, side: int, a: sp.Expr = x, b: sp.Expr = s) -> sp.Expr:
    """Replace |a - b| by (a - b)·side: valid where sign(a - b) = side.

    The one place where an absolute value of the Laplace density is resolved
    (expectations, CDFs, the folded law's images, privacy-loss ratios).
    """
    target = sp.expand(a - b)
    return expr.replace(
        lambda e: isinstance(e, sp.Abs) and sp.expand(e.args[0] ** 2 - target**2) == 0,
        lambda e: side * target,
    )


def split_at_kink(lower: sp.Expr, upper: sp.Expr) -> list[tuple[sp.Expr, sp.Expr, int]]:
    """Split ``[lower, upper]`` at ``s``; return (a, b, sign of x - s on (a, b))."""
    lo, hi, mid = _ORDER[lower], _ORDER[upper], _ORDER[s]
    if hi <= mid:
        return [(lower, upper, -1)]
    if lo >= mid:
        return [(lower, upper, 1)]
    return [(lower, s, -1), (s, upper, 1)]


def _standardised_bound(bound: sp.Expr, scale: sp.Expr) -> sp.Expr:
    return bound if bound in (sp.oo, -sp.oo) else (bound - s) / scale


def _antiderivative_at(kernel: sp.Expr, point: sp.Expr) -> sp.Expr:
    """F(point) for the antiderivative F of ``kernel`` in z (a limit at ±oo).

    The definite integral is F(b) - F(a): SymPy's own definite integrals with
    an infinite bound come back with removable 0/0 singularities at a = 0.
    """
    antiderivative = _antiderivative(kernel)
    if point in (sp.oo, -sp.oo):
        return sp.limit(antiderivative, z, point)
    return antiderivative.subs(z, point)


_ANTIDERIVATIVES: dict[sp.Expr, sp.Expr] = {}


def _antiderivative(kernel: sp.Expr) -> sp.Expr:
    if kernel not in _ANTIDERIVATIVES:
        value = sp.integrate(kernel, z)
        if value.has(sp.Integral):
            raise ArithmeticError(f"SymPy left ∫ {kernel} dz unevaluated")
        _ANTIDERIVATIVES[kernel] = value
    return _ANTIDERIVATIVES[kernel]


def integrate_standardised(
    g: sp.Expr, piece: Piece, steps: list[IntegralStep] | None = None
) -> sp.Expr:
    """∫ g(x)·kernel(x) dx over the piece, in z = (x - s)/scale (dx = scale·dz).

    For a smooth kernel (no kink): after the change of variable each term is
    (factor free of z)·z^k·e^{-z²/2}, which SymPy integrates to erf and
    exponentials; integrating in x instead leaves unevaluated integrals.
    """
    scale = piece.scale
    assert scale is not None
    integrand = sp.expand(g.subs(x, s + scale * z) * piece.kernel.subs(x, s + scale * z) * scale)
    integrand = sp.expand(sp.powsimp(integrand, combine="exp"))
    a, b_ = _standardised_bound(piece.lower, scale), _standardised_bound(piece.upper, scale)
    total = sp.Integer(0)
    for term in sp.Add.make_args(integrand):
        factor, rest = term.as_independent(z, as_Add=False)
        total += factor * (_antiderivative_at(rest, b_) - _antiderivative_at(rest, a))
    total = sp.expand(total)
    if steps is not None:
        steps.append(IntegralStep(a, b_, integrand, total))
    return total


def integrate_piece(g: sp.Expr, piece: Piece, steps: list[IntegralStep] | None = None) -> sp.Expr:
    """∫ g(x)·density(x) dx over the piece: split at the kink of |x - s|,
    integrate g·kernel on each part, add, divide by the normaliser.  A smooth
    kernel with a scale is integrated in z (:func:`integrate_standardised`)."""
    if piece.scale is not None and not piece.kernel.has(sp.Abs):
        total = integrate_standardised(g, piece, steps)
        return total if piece.normaliser == 1 else total / piece.normaliser
    total = sp.Integer(0)
    for a, b_, side in split_at_kink(piece.lower, piece.upper):
        integrand = resolve_abs(sp.expand(g * piece.kernel), side)
        value = sp.integrate(integrand, (x, a, b_), conds="none")
        value = sp.powsimp(sp.expand(value))
        if steps is not None:
            steps.append(IntegralStep(a, b_, integrand, value))
        total += value
    return total if piece.normaliser == 1 else total / piece.normaliser


#: a nonnegative integer standing for a finite index bound while summing
_d = sp.Symbol("d", integer=True, nonnegative=True)
_j = sp.Symbol("j", integer=True, positive=True)


def _closed_branch(result: sp.Expr) -> sp.Expr:
    """The α ≠ 1, |α| < 1 branch of what :func:`sympy.summation` returned.

    0 < α < 1 for every scale > 0; the branch is checked against direct
    summation by :func:`_check_sum`.
    """
    if not isinstance(result, sp.Piecewise):
        return result
    for expr, cond in result.args:
        if expr.has(sp.Sum):
            continue
        if isinstance(cond, sp.Eq):
            continue
        return expr
    raise ArithmeticError(f"no closed branch in {result}")


def _check_sum(term: sp.Expr, count: sp.Expr, closed: sp.Expr) -> None:
    """Σ_{j=1}^{count} term(j) = closed at α in {1/3, 5/7}, s in {0, 2}, count in {0..4}
    (or a 60-term partial sum within the geometric tail bound when count = oo)."""
    for a_, s_ in ((sp.Rational(1, 3), 0), (sp.Rational(5, 7), 2)):
        env = {alpha: a_, s: s_, c0: s_ - 2, c1: s_ + 3}
        for other in (term.free_symbols | closed.free_symbols) - {_j, _d, *env}:
            env[other] = s_ - 1  # e.g. the output y of a CDF
        if count is sp.oo:
            partial = sum(term.subs(env).subs(_j, j) for j in range(1, 400))
            value = closed.subs(env)
            if abs(float(value - partial)) > 1e-30 * max(1.0, abs(float(value))):
                raise ArithmeticError(f"Σ {term} to oo summed to {closed}")
            continue
        for n in range(5):
            exact = sum((term.subs(env).subs(_j, j) for j in range(1, n + 1)), sp.Integer(0))
            if sp.nsimplify(closed.subs(env).subs(_d, n)) != sp.nsimplify(exact):
                if sp.simplify(closed.subs(env).subs(_d, n) - exact) != 0:
                    raise ArithmeticError(f"Σ {term} to {n} summed to {closed}")


def _sum_run(term: sp.Expr, count: sp.Expr) -> sp.Expr:
    """Σ_{j=1}^{count} term(j) in closed form (count a length or oo), checked."""
    if count == 0:
        return sp.Integer(0)
    upper = sp.oo if count is sp.oo else _d
    grouped: dict[sp.Expr, sp.Expr] = {}
    for part in sp.Add.make_args(sp.expand(term, power_exp=True)):
        factor, rest = part.as_independent(_j, as_Add=False)
        grouped[rest] = grouped.get(rest, sp.Integer(0)) + factor
    closed = sp.Integer(0)
    for rest, factor in grouped.items():
        closed += factor * _closed_branch(sp.summation(rest, (_j, 1, upper)))
    if closed.has(sp.Sum) or closed.has(sp.oo) or closed.has(sp.zoo):
        raise ArithmeticError(f"SymPy left Σ {term} unevaluated")
    _check_sum(term, count, closed)
    return closed if count is sp.oo else closed.subs(_d, count)


def sum_lattice(g: sp.Expr, lattice: Lattice) -> sp.Expr:
    """Σ_m g(s + m)·mass(m) over the run, in closed form.

    Split at the kink of |m|: m = -j (j = 1..-lower), m = 0, m = j (j = 1..upper),
    with |m| resolved on each part, each part a checked closed-form sum.
    """
    total = sp.Integer(0)
    kernel = g.subs(x, s + m) * lattice.pmf
    lo, hi = lattice.lower, lattice.upper
    if _is_nonpositive(lo) and _is_nonnegative(hi):
        total += kernel.subs(m, 0)
        below = sp.oo if lo == -sp.oo else -lo
        above = hi
        total += _sum_run(sp.expand(resolve_abs(kernel, -1, m, 0).subs(m, -_j)), below)
        total += _sum_run(sp.expand(resolve_abs(kernel, 1, m, 0).subs(m, _j)), above)
    else:  # pragma: no cover - the mechanisms keep s inside the run
        raise ArithmeticError(f"lattice run [{lo}, {hi}] does not contain m = 0")
    total = sp.powsimp(sp.expand(total))
    return total if lattice.normaliser == 1 else total / lattice.normaliser


def _is_nonpositive(e: sp.Expr) -> bool:
    return e == -sp.oo or e == 0 or sp.expand(e) in (c0 - s,)


def _is_nonnegative(e: sp.Expr) -> bool:
    return e == sp.oo or e == 0 or sp.expand(e) in (c1 - s,)


def expectation(law: Law, g: sp.Expr, steps: list[IntegralStep] | None = None) -> sp.Expr:
    """E[g(X)] for X ~ law: Σ mass·g(point) + Σ ∫ g·density + Σ_lattice g·pmf."""
    total = sp.Integer(0)
    for atom in law.atoms:
        total += atom.mass * g.subs(x, atom.point)
    for piece in law.pieces:
        total += integrate_piece(g, piece, steps)
    for lattice in law.lattices:
        total += sum_lattice(g, lattice)
    return total


def _index(bound: sp.Expr) -> sp.Expr:
    """The lattice index m of the point ``bound`` = s + m (±oo stays)."""
    return bound if bound in (sp.oo, -sp.oo) else bound - s


def _single(law: Law) -> Piece | Lattice:
    parts = (*law.pieces, *law.lattices)
    if law.atoms or len(parts) != 1:
        raise ValueError(f"{law.name}: bounding applies to a base law of one piece")
    return parts[0]


def mass_between(law: Law, lower: sp.Expr, upper: sp.Expr) -> sp.Expr:
    """P(lower <= X <= upper) under a base law (one piece or one lattice run)."""
    part = _single(law)
    if isinstance(part, Lattice):
        return sum_lattice(sp.Integer(1), Lattice(_index(lower), _index(upper), part.pmf))
    return integrate_piece(sp.Integer(1), replace(part, lower=lower, upper=upper))


def _tail(law: Law, bound: sp.Expr, side: str) -> sp.Expr:
    """P(X < bound) (``side='below'``) or P(X > bound) (``'above'``) under a base law.

    For a density these are P(X <= bound), P(X >= bound); on the lattice the
    point ``bound`` itself is excluded (it stays inside the clamped run).
    """
    part = _single(law)
    if isinstance(part, Lattice):
        # below: m = -(d + j), d = s - bound >= 0, j >= 1; above: m = d + j, d = bound - s
        sign = -1 if side == "below" else 1
        d = sign * _index(bound)
        term = resolve_abs(part.pmf, sign, m, 0).subs(m, sign * (d + _j))
        return sp.powsimp(sp.expand(_sum_run(sp.expand(term), sp.oo)))
    if side == "below":
        return integrate_piece(sp.Integer(1), replace(part, lower=-sp.oo, upper=bound))
    return integrate_piece(sp.Integer(1), replace(part, lower=bound, upper=sp.oo))


def condition(law: Law, lower: sp.Expr = c0, upper: sp.Expr = c1) -> Law:
    """The law conditioned on [lower, upper] and renormalised (truncation, eq (4)).

    Derived: the normaliser is P(lower <= X <= upper) computed from ``law``;
    either bound may be infinite (one-sided truncation).
    """
    part = _single(law)
    name = f"{law.name} conditioned on [{lower}, {upper}]"
    if isinstance(part, Lattice):
        mass = mass_between(law, lower, upper)
        run = Lattice(_index(lower), _index(upper), part.mass, mass)
        return Law(name, (), (), (run,))
    mass = integrate_piece(sp.Integer(1), Piece(lower, upper, part.density, scale=part.scale))
    return Law(name, (), (Piece(lower, upper, part.density, mass, part.scale),))


def clamp(law: Law, lower: sp.Expr = c0, upper: sp.Expr = c1) -> Law:
    """The law of min(max(X, lower), upper) (boundary inflation, eq (5)).

    Derived: the point masses are the tail probabilities P(X <= lower) and
    P(X >= upper) of ``law`` (P(X < lower), P(X > upper) on a lattice, whose
    points at the bounds stay in the run); the density is unchanged inside.
    An infinite bound has no point mass (one-sided clamping).
    """
    part = _single(law)
    name = f"{law.name} clamped to [{lower}, {upper}]"
    atoms = []
    if lower != -sp.oo:
        atoms.append(Atom(lower, _tail(law, lower, "below")))
    if upper != sp.oo:
        atoms.append(Atom(upper, _tail(law, upper, "above")))
    if isinstance(part, Lattice):
        return Law(name, tuple(atoms), (), (Lattice(_index(lower), _index(upper), part.mass),))
    if part.scale is None:  # the Laplace path, unchanged (Liu 2019 eq (5))
        below = integrate_piece(sp.Integer(1), Piece(-sp.oo, lower, part.density))
        above = integrate_piece(sp.Integer(1), Piece(upper, sp.oo, part.density))
        return Law(
            name,
            (Atom(lower, below), Atom(upper, above)),
            (Piece(lower, upper, part.density),),
        )
    return Law(name, tuple(atoms), (Piece(lower, upper, part.density, scale=part.scale),))


def total_mass(law: Law) -> sp.Expr:
    """Total probability of the law (1 for a law)."""
    return expectation(law, sp.Integer(1))


def cdf(law: Law, y: sp.Expr) -> sp.Expr:
    """P(X <= y) for y one of the ordered points (-oo, c0, s, c1, oo)."""
    total = sp.Integer(0)
    for atom in law.atoms:
        if _ORDER[atom.point] <= _ORDER[y]:
            total += atom.mass
    for piece in law.pieces:
        if _ORDER[y] <= _ORDER[piece.lower]:
            continue
        upper = piece.upper if _ORDER[piece.upper] <= _ORDER[y] else y
        total += integrate_piece(sp.Integer(1), Piece(piece.lower, upper, piece.density))
    return total


__all__ = [
    "Atom",
    "IntegralStep",
    "Lattice",
    "Law",
    "Piece",
    "cdf",
    "clamp",
    "condition",
    "expectation",
    "gaussian",
    "gaussian_density",
    "geometric",
    "geometric_pmf",
    "integrate_piece",
    "integrate_standardised",
    "laplace",
    "laplace_density",
    "mass_between",
    "resolve_abs",
    "split_at_kink",
    "sum_lattice",
    "total_mass",
]
