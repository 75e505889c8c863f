"""An independent numerical route: the quantities by quadrature over the laws.

Nothing here uses SymPy or :mod:`dpcheck.symbolic`.  The Laplace density of
Liu (2019) eq (2), exp(-|x - s|/λ)/(2λ), is written once as a plain mpmath
function, and every quantity is an expectation computed with
:func:`mpmath.quad` (tanh-sinh) directly over the law of s*:

* truncated (Definition 2(a), eq (4)): the density restricted to [c0, c1]
  and divided by its mass there, the normaliser itself being a quadrature;
* BIT (Definition 2(b), eq (5)): the same density on [c0, c1] plus point
  masses P(X <= c0) at c0 and P(X >= c1) at c1, both computed by quadrature
  over the tails (-inf, c0] and [c1, inf) (no closed form for e^{-t}/2).

When λ ≪ c1 - c0 the density is a spike of width λ at s (with a kink at s),
and far from s it is exponentially small; tanh-sinh on [c0, c1] in one piece
would miss the spike.  Each range is therefore split at s and at the points
s ± λ·10^k, bound ± λ·10^k (k = 0, 1, ..., until e^{-10^k} is far below the
working precision) that fall inside it, so that on every piece the integrand
is smooth and varies on the scale of the piece.  The integrals run at a
working precision of dps + 20 digits (more when λ is tiny against the
bounds), and each one is checked against mpmath's error estimate relative to
the sum of the magnitudes of its pieces; the precision is raised until the
estimate is small enough.

A quantity whose value cancels against that scale (the bias at the midpoint,
which is 0, or λ ≪ R with s inside, where the bias is ~e^{-(c1-c0)/(2λ)}) is
therefore accurate to dps digits *absolutely* on the scale of E|g(s*)|, not
relatively: quadrature cannot resolve e^{-10^6} against a value of order λ.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache

import mpmath
from mpmath import mpf

from dpcheck.errors import InputError
from dpcheck.numeric.params import MechanismParams

MECHANISMS = ("truncated", "bit")
QUANTITIES = ("mean", "bias", "second_moment", "var", "mse")
#: the names this route computes; the same as :data:`dpcheck.numeric.names.QUANTITY_NAMES`
QUAD_NAMES = tuple(f"{m}.{q}" for m in MECHANISMS for q in QUANTITIES)

Integrand = Callable[[mpf], mpf]


def laplace_density(x: mpf, s: mpf, lam: mpf) -> mpf:
    """Lap(s, λ) density exp(-|x - s|/λ)/(2λ) (Liu 2019, eq (2))."""
    return mpmath.exp(-abs(x - s) / lam) / (2 * lam)


def _mpf(q: Fraction) -> mpf:
    return mpf(q.numerator) / q.denominator


def _max_k(work: int) -> int:
    """Smallest K with e^{-10^K} < 10^{-(work + 10)}: splitting beyond 10^K·λ is pointless."""
    return max(1, math.ceil(math.log10((work + 10) * math.log(10))))


def _near(a: mpf, b: mpf, s: mpf) -> mpf:
    """The point of [a, b] closest to s (where the density peaks on [a, b])."""
    return min(max(s, a), b)


def split_points(a: mpf, b: mpf, s: mpf, lam: mpf, work: int) -> list[mpf]:
    """[a, b] (a may be -inf, b may be +inf) cut where the integrand changes scale.

    The cuts are the point c of [a, b] nearest s (s itself when a < s < b: the
    kink; the bound nearest s for a tail) and c ± λ·10^k for k = 0..K, with
    e^{-10^K} far below the working precision, as far as they fall inside.
    """
    cuts = {a, b}
    centre = _near(a, b, s)
    if a < centre < b:
        cuts.add(centre)
    for k in range(_max_k(work) + 1):
        step = lam * mpf(10) ** k
        for p in (centre - step, centre + step):
            if a < p < b:
                cuts.add(p)
    return sorted(cuts)


def _integrate(g: Integrand, a: mpf, b: mpf, s: mpf, lam: mpf, work: int) -> tuple[mpf, mpf, mpf]:
    """(∫_a^b g(x)·f(x) dx, Σ|pieces|, Σ error estimates) at the current precision.

    f is divided by its peak on [a, b] and by the width min(λ, b - a) of that
    peak before integrating, and multiplied back after: mpmath's convergence
    test is absolute, and this makes it relative to the size of the integral
    (a tail mass e^{-t0}/2 ≈ 10^-434294 is then still found to full precision).
    """
    width = min(lam, b - a) if mpmath.isfinite(b - a) else lam
    norm = laplace_density(_near(a, b, s), s, lam) * width

    def phi(x: mpf) -> mpf:
        return g(x) * (laplace_density(x, s, lam) / norm)

    points = split_points(a, b, s, lam, work)
    total = scale = error = mpf(0)
    for left, right in zip(points[:-1], points[1:], strict=True):
        value, err = mpmath.quad(phi, [left, right], error=True)
        total += value
        scale += abs(value)
        error += err
    return total * norm, scale * norm, error * norm


def laplace_mass(a: mpf, b: mpf, s: mpf, lam: mpf, work: int) -> mpf:
    """P(a <= X <= b) for X ~ Lap(s, λ), by split quadrature (relative accuracy in tails)."""
    return _integrate(_one, a, b, s, lam, work)[0]


def _working_dps(params: MechanismParams, dps: int) -> int:
    """dps + 20, plus the digits x - s loses near s when λ is tiny against the bounds, plus
    twice the digits of the bounds' offset from 0 against their width (a variance
    E[X^2] - E[X]^2 of values near 10^40 cancels 80 digits)."""

    def log10(x: Fraction) -> float:  # of the exact ratio: a float would under- or overflow
        return math.log10(x.numerator) - math.log10(x.denominator)

    width = params.c1 - params.c0
    span = max(abs(params.c0), abs(params.c1), width)
    return (
        dps + 20 + max(0, math.ceil(log10(span / params.lam))) + 2 * math.ceil(log10(span / width))
    )


def _check(mechanism: str, params: MechanismParams, dps: int) -> None:
    if mechanism not in MECHANISMS:
        raise InputError(f"unknown mechanism {mechanism!r} (expected truncated or bit)")
    if not isinstance(params, MechanismParams):
        raise InputError(f"params={params!r} is not a MechanismParams")
    if not isinstance(dps, int) or isinstance(dps, bool) or dps < 1:
        raise InputError(f"dps={dps!r} must be a positive integer")


def _one(x: mpf) -> mpf:
    return mpf(1)


@lru_cache(maxsize=256)
def _mass_integrals(params: MechanismParams, work: int) -> dict[str, tuple[mpf, mpf]]:
    """{'below', 'inside', 'above'} → (mass, error estimate) of Lap(s, λ), by quadrature.

    The same for every g, so cached per (params, working precision).  Call
    under ``mpmath.workdps(work)``.
    """
    s, lam = _mpf(params.s), _mpf(params.lam)
    c0, c1 = _mpf(params.c0), _mpf(params.c1)
    out = {}
    for key, a, b in (("below", mpmath.ninf, c0), ("inside", c0, c1), ("above", c1, mpmath.inf)):
        value, _, err = _integrate(_one, a, b, s, lam, work)
        out[key] = (value, err)
    return out


def _expectation_at(
    mechanism: str, g: Integrand, params: MechanismParams, work: int
) -> tuple[mpf, mpf, mpf]:
    """(E g, scale ≈ E|g|, error estimate) at working precision ``work``."""
    s, lam = _mpf(params.s), _mpf(params.lam)
    c0, c1 = _mpf(params.c0), _mpf(params.c1)
    inside, inside_scale, inside_err = _integrate(g, c0, c1, s, lam, work)
    masses = _mass_integrals(params, work)
    if mechanism == "truncated":
        # Definition 2(a), eq (4): the density on [c0, c1] over its mass there
        mass, mass_err = masses["inside"]
        value = inside / mass
        scale = inside_scale / mass
        error = inside_err / mass + abs(inside) * mass_err / mass**2
        return value, scale, error
    # Definition 2(b), eq (5): the tails' masses sit at c0 and c1
    (below, below_err), (above, above_err) = masses["below"], masses["above"]
    g0, g1 = g(c0), g(c1)
    value = below * g0 + inside + above * g1
    scale = abs(below * g0) + inside_scale + abs(above * g1)
    error = below_err * abs(g0) + inside_err + above_err * abs(g1)
    return value, scale, error


def _converged(mechanism: str, g: Integrand, params: MechanismParams, dps: int) -> mpf:
    """Raise the working precision until the error estimate is below 10^-(dps+10)·E|g|."""
    work = _working_dps(params, dps)
    for _ in range(6):
        with mpmath.workdps(work):
            value, scale, error = _expectation_at(mechanism, g, params, work)
            if error <= mpf(10) ** (-(dps + 10)) * scale or scale == 0:
                return value
        work += work // 2
    raise ArithmeticError(  # pragma: no cover - not reached for valid params
        f"quadrature did not converge for {mechanism} at {params}"
        f" (error {mpmath.nstr(error, 5)}, scale {mpmath.nstr(scale, 5)})"
    )


def law_masses(mechanism: str, params: MechanismParams, dps: int = 50) -> dict[str, mpf]:
    """Probability masses by quadrature, to check that the laws are laws.

    For X ~ Lap(s, λ): 'below' = P(X <= c0) over (-inf, c0], 'inside' =
    P(c0 < X < c1) over [c0, c1], 'above' = P(X >= c1) over [c1, inf) (for
    ``bit`` these are the two point masses and the mass of the density part).
    For ``truncated`` also 'renormalised': the integral over [c0, c1] of the
    density divided by 1 - below - above (the mass of [c0, c1] found from
    the tails), which must be 1 (eq (4)).
    """
    _check(mechanism, params, dps)
    work = _working_dps(params, dps)
    with mpmath.workdps(work):
        out = {key: value for key, (value, _) in _mass_integrals(params, work).items()}
        if mechanism == "truncated":
            normaliser = 1 - out["below"] - out["above"]
            s, lam = _mpf(params.s), _mpf(params.lam)
            c0, c1 = _mpf(params.c0), _mpf(params.c1)
            out["renormalised"] = _integrate(lambda x: 1 / normaliser, c0, c1, s, lam, work)[0]
    return out


def quad_expectation(
    mechanism: str, g: Callable[[mpf], mpf], params: MechanismParams, dps: int = 50
) -> mpf:
    """E[g(s*)] for s* under ``mechanism`` ('truncated' or 'bit') by quadrature.

    ``g`` is called with mpf arguments at the working precision (dps + 20 or
    more).  The result is accurate to about ``dps`` digits relative to
    E|g(s*)| (relative to the value itself unless it cancels; see the module
    docstring), and is returned at the working precision.
    """
    _check(mechanism, params, dps)
    return _converged(mechanism, g, params, dps)


@lru_cache(maxsize=1024)
def _named(mechanism: str, quantity: str, params: MechanismParams, dps: int) -> mpf:
    with mpmath.workdps(_working_dps(params, dps)):
        s = _mpf(params.s)
        if quantity == "mean":
            return quad_expectation(mechanism, lambda x: x, params, dps)
        if quantity == "bias":
            return quad_expectation(mechanism, lambda x: x - s, params, dps)
        if quantity == "second_moment":
            return quad_expectation(mechanism, lambda x: x * x, params, dps)
        if quantity == "mse":
            return quad_expectation(mechanism, lambda x: (x - s) ** 2, params, dps)
        # var: the error δ in m enters E(s* - m)² only as δ², so m to dps digits is plenty
        m = _named(mechanism, "mean", params, dps)
        return quad_expectation(mechanism, lambda x: (x - m) ** 2, params, dps)


def quad_quantity(name: str, params: MechanismParams, dps: int = 50) -> mpf:
    """The quantity ``name`` ('truncated.mean', ..., 'bit.mse') by quadrature.

    mean = E s*, bias = E(s* - s), second_moment = E s*², mse = E(s* - s)²,
    var = E(s* - m)² with m = E s* computed first (no cancellation as in
    E s*² - m²).  Results are cached per (name, params, dps).
    """
    if name not in QUAD_NAMES:
        raise InputError(f"unknown quantity {name!r} (expected one of: {', '.join(QUAD_NAMES)})")
    if not isinstance(params, MechanismParams):
        raise InputError(f"params={params!r} is not a MechanismParams")
    if not isinstance(dps, int) or isinstance(dps, bool) or dps < 1:
        raise InputError(f"dps={dps!r} must be a positive integer")
    mechanism, _, quantity = name.partition(".")
    return _named(mechanism, quantity, params, dps)
