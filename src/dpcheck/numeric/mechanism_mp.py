"""mpmath evaluation of every mechanism's quantities at any precision.

Each quantity of :mod:`dpcheck.symbolic.mechanisms` is compiled once with
``sympy.lambdify`` (common subexpressions shared) into an mpmath function of
(y, s, c0, c1, scale) -- erf and erfc are mpmath's -- and run by
:func:`dpcheck.numeric.mp.adaptive`, which raises the working precision until
two precisions agree to the requested digits (the closed forms cancel when the
scale is far from the width).  The CDF is taken branch by branch (y below
c0, in [c0, s), in [s, c1), at or above c1); the quantile inverts it by Newton's
method with the derived density, to dps significant digits for every p in (0, 1)
(the generalised inverse inf{y : F(y) >= p}; on the integers for the geometric
base; :func:`quantile_at`).  Liu's two Laplace mechanisms keep the compiled forms
of :mod:`dpcheck.numeric.mp` (their normalised forms), so every earlier value
is unchanged.  ``dps`` is checked as the CLI checks ``eval --dps``
(:func:`checked_dps`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import mpmath
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import MAX_EXPONENT, parse_count, short
from dpcheck.numeric import mp
from dpcheck.numeric.mechanism_params import Params, parse
from dpcheck.numeric.names import LIU_NAMES, parts, resolve
from dpcheck.numeric.params import MechanismParams
from dpcheck.symbolic.symbols import alpha, c0, c1, lam, s, sigma

#: the compiled functions' scale argument
_THETA = sp.Symbol("theta", positive=True)
_Y = sp.Symbol("y", real=True)


def _native(base: str) -> sp.Symbol:
    return {"laplace": lam, "gaussian": sigma, "geometric": alpha}[base]


def _reduced_exp(x: mpmath.mpf) -> mpmath.mpf:
    """e^x to the working precision, as 2^k·e^r with k = round(x/ln 2) and |r| <= ln 2/2.

    The same value as ``mpmath.exp``, but mpmath raises e to an integer-valued argument by
    repeated squaring, which at |x| = 10^2000 takes seconds at 1 000 digits (the folded
    forms hold e^{4c0/λ}); here x/ln 2 is taken at the working precision plus the bits of
    x, so r (and k·ln 2) carry every bit e^r needs, in milliseconds.
    """
    size = mpmath.mag(x)
    if size < 64:
        return mpmath.exp(x)
    prec = mpmath.mp.prec
    with mpmath.workprec(prec + size + 30):
        k = int(mpmath.nint(x / mpmath.ln2))
        r = x - k * mpmath.ln2
    with mpmath.workprec(prec + 10):
        value = mpmath.ldexp(mpmath.exp(r), k)
    return +value


def _negligible_exp(x: mpmath.mpf) -> mpmath.mpf:
    """e^x (:func:`_reduced_exp`), but 0 when x < -(precision + 64)·ln 2: a term below every
    bit of the working precision.  :func:`compiled` uses this only where every exponential
    enters the CDF additively next to terms of order 1 or appears in its density as a
    factor (see there)."""
    if x < -(mpmath.mp.prec + 64) * 0.6931471805599453:
        return mpmath.mpf(0)
    return _reduced_exp(x)


@cache
def compiled(
    mechanism: str, quantity: str, sides: str, by_alpha: bool = False, quick: bool = False
) -> Callable[..., mpmath.mpf]:
    """mpmath function (y, s, c0, c1, θ) → the quantity (θ = λ, σ, b; or α when ``by_alpha``).

    For ``cdf`` the branch y < s is compiled with ``quantity='cdf:below'`` and
    y >= s with ``'cdf:above'``; ``'pdf:below'`` and ``'pdf:above'`` are their
    derivatives in y (the density, derived by SymPy from the derived CDF; for the
    geometric base, of the CDF's continuous extension α^y, used by the quantile's
    Newton steps).  With ``quick`` (the quantile's CDF and density) exponentials are
    taken by :func:`_reduced_exp`, and for the Laplace and Gaussian bases truncated,
    clamped or bare (whose exponentials all have arguments <= 0 and are added to terms
    of order 1 or multiply the result) one below every bit of the working precision is
    taken as 0 (:func:`_negligible_exp`); the folded forms take ratios of huge
    exponentials and the geometric ones powers in denominators, so not those.
    """
    from dpcheck.symbolic import mechanisms as sym

    _, base = parts(mechanism)
    if quantity.startswith("cdf:"):
        expr = sym.cdf_branches(mechanism, sides)[quantity[4:]]
    elif quantity.startswith("pdf:"):
        expr = sp.diff(sym.cdf_branches(mechanism, sides)[quantity[4:]], sym.y)
    else:
        expr = sym.quantity(mechanism, quantity, sides)
    native = _native(base)
    if base == "geometric" and not by_alpha:
        theta_value = sp.exp(-1 / _THETA)
    else:
        theta_value = _THETA
    expr = expr.subs({native: theta_value, sym.y: _Y})
    bounding, _ = parts(mechanism)
    modules: list[object] = ["mpmath"]
    if quick and quantity[:4] in ("cdf:", "pdf:"):
        additive = base != "geometric" and bounding != "folded"
        modules = [{"exp": _negligible_exp if additive else _reduced_exp}, "mpmath"]
    return sp.lambdify((_Y, s, c0, c1, _THETA), expr, modules=modules, cse=True)


def _args(params: Params, y: Fraction | None = None) -> tuple[Fraction, ...]:
    """(y, s, c0, c1, θ) with a stand-in for an infinite bound (unused by the compiled
    one-sided forms; it only informs the cancellation estimate of :func:`mp.adaptive`)."""
    theta = params.alpha if params.alpha is not None else params.scale
    assert theta is not None
    width = theta if params.alpha is None else Fraction(1)
    lo = params.c0 if params.c0 is not None else params.s - width
    hi = params.c1 if params.c1 is not None else params.s + width
    return (params.s if y is None else y, params.s, lo, hi, theta)


def _liu_params(params: Params) -> MechanismParams | None:
    if params.mechanism in LIU_NAMES and params.sides == "both":
        assert params.c0 is not None and params.c1 is not None and params.scale is not None
        return MechanismParams(params.s, params.c0, params.c1, params.scale)
    return None


def _moment(params: Params, quantity: str, dps: int) -> mpmath.mpf:
    liu = _liu_params(params)
    if liu is not None and quantity != "normaliser":
        return mp.evaluate(f"{LIU_NAMES[params.mechanism]}.{quantity}", liu, dps)
    f = compiled(params.mechanism, quantity, params.sides, params.alpha is not None)
    power = {"normaliser": 0, "mean": 1, "bias": 1}.get(quantity, 2)
    value = mp.adaptive_relative(
        f, _args(params), dps, _magnitude(params, power), what=f"{params.mechanism}.{quantity}"
    )
    with mpmath.workdps(dps + 5):  # a constant form (an unbounded law's normaliser, 1) is an int
        return mpmath.mpf(value)


def _magnitude(params: Params, power: int) -> mpmath.mpf:
    """(max of 1, |s|, |c0|, |c1|, θ)^power: the size of the terms a quantity is made of."""
    values = [params.s, params.c0, params.c1, params.scale]
    with mpmath.workdps(30):
        biggest = max([mpmath.mpf(1)] + [abs(mp._mpf(v)) for v in values if v is not None])
        return biggest**power


def cdf_at(params: Params, y: Fraction, dps: int) -> mpmath.mpf:
    """P(Y <= y), branch by branch (see the module docstring)."""
    bounding, base = parts(params.mechanism)
    if params.c0 is not None and y < params.c0:
        return mpmath.mpf(0)
    if params.c1 is not None and y >= params.c1:
        return mpmath.mpf(1)
    if base == "geometric":
        y = Fraction(int(y // 1))  # P(Y <= y) = P(Y <= floor(y)) on the integers
    branch = "cdf:below" if y < params.s else "cdf:above"
    f = compiled(params.mechanism, branch, params.sides, params.alpha is not None)
    return mp.adaptive_relative(
        f, _args(params, y), dps, mpmath.mpf(1), what=f"{params.mechanism}.cdf"
    )


# ---------------------------------------------------------------------------
# the quantile: Newton's method on the derived CDF with its derived density
# ---------------------------------------------------------------------------

#: working digits the quantile may use beyond 2·(dps + 20): enough for a tail mass down to
#: 10^-1000, a scale 10^2000 times the width (the Laplace forms cancel that much), a
#: quantile 10^2000 times smaller than the bound it is measured from, and the
#: exponentials of arguments up to 10^2000 (every legal input; the numbers' ceiling)
_EXTRA_DIGITS = 10 * MAX_EXPONENT
#: relative width to which the bracketing phase locates the root (then Newton)
_LOCATED = 10
_BRANCHES = ("below", "above")


@dataclass(frozen=True)
class _Frame:
    """Where the quantile y is sought: y = anchor + direction·δ with δ > 0 (δ <= limit).

    The mass D(δ) = kappa·(F(y) - ref) grows from 0 at δ = 0 (an anchor frame: ref is
    F at the anchor) or falls to 0 as δ → ∞ (a tail frame: ref is 0 or 1 and the anchor
    is s), and the target is m = kappa·(p - ref) > 0, so D(δ) - m = kappa·(F(y) - p).
    ``ref`` is exact (a Fraction) or F on ``branch`` at a point.  D is measured from the
    end nearer the answer, so that a tiny p (or 1 - p, or p - F(s)) is a tiny target
    reached at a tiny δ, found on a logarithmic scale and resolved relatively.
    """

    branch: str
    anchor: Fraction
    direction: int
    kappa: int
    ref: Fraction | tuple[str, Fraction]
    limit: Fraction | None
    tail: bool = False


class _Quantile:
    """inf{y : F(y) >= p} of one law (:func:`quantile_at` says how)."""

    def __init__(self, params: Params, p: Fraction, dps: int) -> None:
        self.params, self.p, self.dps = params, p, dps
        self.bounding, self.base = parts(params.mechanism)
        self.lattice_law = self.base == "geometric"
        by_alpha = params.alpha is not None
        name, sides = params.mechanism, params.sides
        self.cdf = {b: compiled(name, f"cdf:{b}", sides, by_alpha, True) for b in _BRANCHES}
        self.pdf = {b: compiled(name, f"pdf:{b}", sides, by_alpha, True) for b in _BRANCHES}
        self.args = _args(params)[1:]
        #: the largest working precision (digits); an answer needing more is refused
        self.cap = 2 * (dps + 20) + _EXTRA_DIGITS
        #: digits the evaluations need beyond those asked for (learned, never lowered); it
        #: starts at what a tail mass min(p, 1 - p) cancels in a difference of probabilities
        tail = min(p, 1 - p)
        lost = (tail.denominator.bit_length() - tail.numerator.bit_length()) * 0.30103
        self.loss = 10 + max(0, int(lost) + 1)
        if self.lattice_law:
            # α = e^{-1/b} (or the given α) rounds to 1 unless the precision resolves 1 - α:
            # about log10(b) digits more (with α exactly 1 at two precisions, the masses
            # would agree on nonsense)
            if params.alpha is not None:
                gap = 1 - params.alpha
                near_one = (gap.denominator.bit_length() - gap.numerator.bit_length()) * 0.30103
            else:
                assert params.scale is not None
                b = params.scale
                near_one = (b.numerator.bit_length() - b.denominator.bit_length()) * 0.30103
            # and the forms divide by 1 - α² and subtract: twice that in all
            self.near_one = max(0, int(near_one) + 1)
            self.loss += 2 * self.near_one

    # -- evaluation at a controlled precision -----------------------------------------
    def terms(self) -> mpmath.mpf:
        """K, the size of the terms of the derived CDF, for an exact 0 at two precisions
        (everything absorbed) to be read as a mass below 10^-w·K: 1 for the clamped and
        bare laws, about 1/N for the truncated and folded ones (N the base's mass of
        [c0, c1], tiny when the scale dwarfs the width), taken as 4·θ·f(s) with f the
        derived density (f(s) = g(s)/N, g(s) <= 1/(2θ) for every base's density at s)."""
        if not hasattr(self, "_terms"):
            s = self.params.s
            (f,), _, _ = self.settle(
                lambda: (self.at("below", s, density=True),),
                lambda v, e, w: e[0] < abs(v[0]) / 4,
                10,
            )
            with mpmath.workdps(30):
                self._terms = max(mpmath.mpf(1), 4 * abs(f) * self.scale())
                if self.lattice_law:  # terms of size 1/(1 - α) ~ b, whatever f(s) says
                    self._terms = max(self._terms, mpmath.mpf(10) ** self.near_one)
        return self._terms

    def absorbed(self, w: int, m: mpmath.mpf) -> bool:
        """An exact 0 of a mass D at precision w (y = anchor ± δ resolved, see the callers'
        need) says D < m/2: the terms' error 10^-(w - 10)·K is far below m."""
        with mpmath.workdps(30):
            return mpmath.mpf(10) ** -(w - 10) * self.terms() < m / 1000

    def at(self, branch: str, y: Fraction | int | mpmath.mpf, density: bool = False) -> mpmath.mpf:
        """F (or its derived density) on ``branch`` at y, at the ambient precision."""
        f = (self.pdf if density else self.cdf)[branch]
        y_ = mp._mpf(y) if isinstance(y, (Fraction, int)) else +y
        return f(y_, *(mp._mpf(v) for v in self.args))

    def settle(
        self,
        fn: Callable[[], tuple[mpmath.mpf, ...]],
        ok: Callable[..., bool],
        need: int,
    ) -> tuple[tuple[mpmath.mpf, ...], tuple[mpmath.mpf, ...], bool]:
        """``fn()`` at precisions w and w' = 1.25w + 15 (values at w', their differences from
        those at w as error estimates), w raised from ``need`` plus the learned loss and
        doubled until ``ok(values, errors, w)`` or the cap; the flag says whether ok held.

        An error estimate is an estimate of the error at w (the values at w' are better by
        about 10^-(w' - w)); a value that is exactly 0 at both precisions may be a
        cancellation that absorbed everything, so ``ok`` decides what it may conclude."""
        w = min(max(need + self.loss, 30), self.cap)
        values: tuple[mpmath.mpf, ...] = ()
        errors: tuple[mpmath.mpf, ...] = ()
        while True:
            try:
                with mpmath.workdps(w):
                    low = fn()
                with mpmath.workdps(w + w // 4 + 15):
                    values = fn()
                    errors = tuple(abs(a - b) for a, b in zip(low, values, strict=True))
                done = ok(values, errors, w)
            except ZeroDivisionError:  # cancellation left an exact zero: w is too small
                done = False
            if done:
                self.loss = max(self.loss, w - need)
                return values, errors, True
            if w >= self.cap:
                return values, errors, False
            w = min(2 * w, self.cap)

    def compare(self, value: Callable[[], mpmath.mpf], exact: Fraction | None = None) -> int:
        """The sign of value() - p: exact when ``exact`` is its exact value, else by raising
        the precision until it is resolved; 0 when it is not resolved at the cap."""
        if exact is not None:
            return (exact > self.p) - (exact < self.p)
        p = self.p

        def fn() -> tuple[mpmath.mpf, ...]:
            f = value()
            return f - mp._mpf(p), f

        first = max(10 + self.loss, 30)

        def ok(v: tuple[mpmath.mpf, ...], e: tuple[mpmath.mpf, ...], w: int) -> bool:
            # every point compared lies where 0 < F < 1: an exact 0 or 1 at both precisions
            # may be absorption (the terms cancelled entirely), so it is believed only when
            # it survives a doubled precision (F within 10^-w of 1 is legitimately 1)
            exactly = e[1] == 0 and v[1] in (0, 1)
            return (not exactly or w >= 2 * first) and abs(v[0]) > 2 * e[0]

        (d, _), _, resolved = self.settle(fn, ok, 10)
        return (1 if d > 0 else -1) if resolved else 0

    # -- the frames ---------------------------------------------------------------------
    def masses(self, fr: _Frame, delta: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
        """(D(δ), m) at the ambient precision."""
        y = mp._mpf(fr.anchor) + fr.direction * delta
        ref = mp._mpf(fr.ref) if isinstance(fr.ref, Fraction) else self.at(*fr.ref)
        return fr.kappa * (self.at(fr.branch, y) - ref), fr.kappa * (mp._mpf(self.p) - ref)

    def slope(self, fr: _Frame, delta: mpmath.mpf) -> mpmath.mpf:
        """dD/dδ = kappa·direction·f(y), f the derived density."""
        y = mp._mpf(fr.anchor) + fr.direction * delta
        return fr.kappa * fr.direction * self.at(fr.branch, y, density=True)

    def spread(self, fr: _Frame, delta: mpmath.mpf) -> int:
        """log10(|anchor|/δ): the digits y = anchor ± δ needs before δ shows in it at all."""
        if fr.anchor == 0:
            return 0
        with mpmath.workdps(30):
            return max(0, int(mpmath.ceil(mpmath.log10(abs(mp._mpf(fr.anchor)) / delta))))

    def scale(self) -> mpmath.mpf:
        """The base's scale (b = -1/log α when the geometric law was given by α)."""
        if self.params.alpha is not None:
            return -1 / mpmath.log(mp._mpf(self.params.alpha))
        assert self.params.scale is not None
        return mp._mpf(self.params.scale)

    def locate(self, fr: _Frame) -> mpmath.mpf:
        """δ with D(δ) = m to about 10 digits: a bracket grown geometrically from the
        linearisation at the anchor (from the scale, for a tail frame), then Newton's
        method on log D - log m safeguarded by bisection, in u = log δ for an anchor frame
        (where log D is about log δ + const) and in u = δ for a tail frame (where log D is
        concave: linear for the Laplace base, quadratic for the Gaussian)."""
        rising = fr.kappa * fr.direction
        logarithmic = not fr.tail
        one = mpmath.mpf(1)

        def delta_at(u: mpmath.mpf) -> mpmath.mpf:
            with mpmath.workdps(40):
                return mpmath.exp(u) if logarithmic else +u

        def h(u: mpmath.mpf) -> tuple[int, mpmath.mpf | None, mpmath.mpf | None]:
            """(sign, value, derivative) of H(u) = rising·log(D/m); no value where D is
            not resolved (far below m)."""
            delta = delta_at(u)

            def fn() -> tuple[mpmath.mpf, ...]:
                return (*self.masses(fr, delta), self.slope(fr, delta))

            def ok(v: tuple[mpmath.mpf, ...], e: tuple[mpmath.mpf, ...], w: int) -> bool:
                d, m, f = v
                if not (m > 0 and e[1] < m / 4):
                    return False
                if d == 0 and e[0] == 0:
                    # D > 0, so an exact 0 at both precisions is absorption: D is below the
                    # terms' error (:meth:`absorbed`), which says D < m/2 once w resolves
                    # m next to the terms; below that, raise w
                    return self.absorbed(w, m)
                if abs(d) + e[0] < m / 2:
                    return True  # far below m: the sign suffices
                if not (d > 0 and e[0] <= d / 1000 and e[2] <= abs(f) / 1000):
                    return False
                if d > 2 * m:
                    return True  # far above m: three digits suffice
                tight = mpmath.mpf(10) ** -12
                return e[0] <= tight * d and e[1] <= tight * m and e[2] <= abs(f) * 10**-6

            (d, m, f), (ed, em, _), resolved = self.settle(fn, ok, 15 + self.spread(fr, delta))
            if not resolved:
                if m > 0 and em < m / 4 and abs(d - m) <= ed + em:
                    return 0, None, None  # D = m as far as the cap resolves: δ is the root
                raise ArithmeticError(f"{self.params.mechanism}.quantile: unresolved mass")
            sign = rising * (1 if d > m else -1)
            if not (d > 0 and ed <= d / 1000):
                return sign, None, None
            slope = f * delta if logarithmic else f
            return sign, rising * (mpmath.log(d) - mpmath.log(m)), rising * slope / d

        with mpmath.workdps(30):
            (m,), _, _ = self.settle(
                lambda: (self.masses(fr, mpmath.mpf(0))[1],),
                lambda v, e, w: e[0] < abs(v[0]) / 4,
                10,
            )
            if fr.tail:
                # the base's own tail beyond s + δ: e^{-δ/θ}/2 (Laplace, geometric), about
                # e^{-δ²/2σ²} (Gaussian); so δ = θ·log(1/2m) or σ·sqrt(2 log(1/m)) to start
                depth = mpmath.log(1 / (2 * m)) if m < mpmath.mpf(1) / 4 else mpmath.mpf(1)
                depth = max(mpmath.mpf(1), depth)
                guess = self.scale() * (
                    mpmath.sqrt(2 * depth) if self.base == "gaussian" else depth
                )
            else:
                (f,), _, _ = self.settle(
                    lambda: (self.slope(fr, mpmath.mpf(0)),),
                    lambda v, e, w: e[0] < abs(v[0]) / 4,
                    10,
                )
                guess = abs(m / f) if f != 0 and mpmath.isfinite(m / f) else self.scale()
            if fr.limit is not None:
                guess = min(guess, mp._mpf(fr.limit))
            top = None if fr.limit is None else mp._mpf(fr.limit)
            u0 = mpmath.log(guess) if logarithmic else guess
            if logarithmic and top is not None:
                top = mpmath.log(top)

        def converged(q: tuple[mpmath.mpf, mpmath.mpf | None, mpmath.mpf | None]) -> bool:
            """The Newton step from q is below the located precision."""
            u, v, sl = q
            if v is None or sl is None or sl == 0:
                return False
            with mpmath.workdps(40):
                size = one if logarithmic else abs(u)
                return abs(v / sl) <= mpmath.mpf(10) ** -_LOCATED * size

        def newton(q: tuple[mpmath.mpf, mpmath.mpf | None, mpmath.mpf | None]) -> mpmath.mpf:
            u, v, sl = q
            assert v is not None and sl is not None
            with mpmath.workdps(40):
                return delta_at(u - v / sl)

        sign0, v0, s0 = h(u0)
        if sign0 == 0:
            return delta_at(u0)
        if converged((u0, v0, s0)):
            return newton((u0, v0, s0))
        lo = hi = last = (u0, v0, s0)
        for j in range(1, 80):
            # grow: u0 ± ln2·2^(j-1) (log scale) or δ0·2^±j (linear), or less: a Newton step
            # from the last point, 10% beyond (so the next point brackets the root without
            # evaluating the mass far past it, where it is costly to resolve)
            with mpmath.workdps(40):
                if logarithmic:
                    u = u0 - sign0 * mpmath.log(2) * 2 ** (j - 1)
                else:
                    u = u0 * mpmath.mpf(2) ** (-sign0 * j)
                if last[1] is not None and last[2]:
                    target = last[0] - last[1] / last[2] * mpmath.mpf("1.1")
                    if (last[0] < target < u) or (u < target < last[0]):
                        u = target
                if top is not None and u >= top:
                    u = top
            sign, v, sl = h(u)
            if sign == 0:
                return delta_at(u)
            last = (u, v, sl)
            if sign0 < 0:
                if sign > 0:
                    hi = last
                    break
                lo = last
                if top is not None and u >= top:  # D(limit) < m can only be rounding
                    return delta_at(top)
            else:
                if sign < 0:
                    lo = last
                    break
                hi = last
            if converged(last):
                return newton(last)
        else:  # pragma: no cover - the masses are monotone and reach every target
            raise ArithmeticError(f"{self.params.mechanism}.quantile: no bracket")
        # Newton's method on H(u), safeguarded by bisection (rtsafe)
        u_lo, u_hi = lo[0], hi[0]
        cur = min((q for q in (lo, hi) if q[1] is not None), key=lambda q: abs(q[1]), default=None)
        if cur is not None and converged(cur):
            return newton(cur)
        with mpmath.workdps(40):
            step_old = u_hi - u_lo
        for _ in range(400):
            with mpmath.workdps(40):
                width = u_hi - u_lo
                scale_u = one if logarithmic else abs(u_hi)
                if width <= mpmath.mpf(10) ** -_LOCATED * scale_u:
                    break
                u_new = None
                if cur is not None and cur[2] != 0:
                    step = cur[1] / cur[2]
                    candidate = cur[0] - step
                    if u_lo < candidate < u_hi and abs(step) <= step_old / 2:
                        u_new, step_old = candidate, abs(step)
                if u_new is None:
                    u_new, step_old = (u_lo + u_hi) / 2, width / 2
            sign, v, sl = h(u_new)
            if sign == 0:
                return delta_at(u_new)
            if sign < 0:
                u_lo = u_new
            else:
                u_hi = u_new
            if v is not None:
                cur = (u_new, v, sl)
                if converged(cur):
                    return newton(cur)
        with mpmath.workdps(40):
            return delta_at((u_lo + u_hi) / 2)

    def refine(
        self, fr: _Frame, delta: mpmath.mpf, digits: Callable[[mpmath.mpf, int], int]
    ) -> mpmath.mpf:
        """Newton's method on D(δ) - m with the derived density, the relative digits c of
        δ doubling from those of :meth:`locate` to ``digits(δ, c)``, which is re-read as δ
        is refined: a quantile near 0 measured from a distant anchor needs more digits of
        δ than first estimated, and until y = anchor ± δ is resolved it asks for more."""
        c = _LOCATED - 1
        small = True
        for _ in range(200):
            goal = digits(delta, c)
            if c >= goal and small:
                return delta
            c_next = min(2 * c, goal) if c < goal else c
            if c_next + 10 > self.cap:
                raise InputError(
                    f"{self.params.mechanism}.quantile at p={short(self.p)}: the quantile lies"
                    f" too close to 0 for its {self.dps} significant digits to be resolved"
                    f" within {self.cap} working digits"
                )
            step_tol = mpmath.mpf(10) ** -(c_next + 2)
            slope_tol = mpmath.mpf(10) ** -(c_next // 2 + 3)

            def fn(delta: mpmath.mpf = delta) -> tuple[mpmath.mpf, ...]:
                d, m = self.masses(fr, delta)
                return d - m, self.slope(fr, delta), d

            def ok(
                v: tuple[mpmath.mpf, ...],
                e: tuple[mpmath.mpf, ...],
                w: int,
                bound: mpmath.mpf = step_tol * delta,
                slope_tol: mpmath.mpf = slope_tol,
            ) -> bool:
                f, absorbed = v[1], v[2] == 0 and e[2] == 0  # D > 0 (see locate)
                return (
                    f != 0
                    and not absorbed
                    and e[1] <= slope_tol * abs(f)
                    and e[0] <= bound * abs(f)
                )

            (g, f, _), _, resolved = self.settle(fn, ok, c_next + 10 + self.spread(fr, delta))
            if not resolved:
                raise InputError(
                    f"{self.params.mechanism}.quantile at p={short(self.p)} would need more"
                    f" than {self.cap} working digits for {self.dps} significant digits"
                )
            with mpmath.workdps(c_next + 20):
                step = g / f
                delta = delta - step
                small = abs(step) <= mpmath.mpf(10) ** -c_next * delta
            if delta <= 0 or (fr.limit is not None and delta > 2 * mp._mpf(fr.limit)):
                raise ArithmeticError(f"{self.params.mechanism}.quantile: Newton left the bracket")
            c = c_next
        raise ArithmeticError(  # pragma: no cover - quadratic convergence from 10 digits
            f"{self.params.mechanism}.quantile did not converge"
        )

    def point(self, fr: _Frame, delta: mpmath.mpf, digits: int) -> mpmath.mpf:
        """anchor + direction·δ to ``digits`` significant digits (the working precision
        raised by what the sum cancels)."""
        with mpmath.workdps(30):
            big = abs(mp._mpf(fr.anchor)) + delta
        work = digits + 10
        while True:
            with mpmath.workdps(work):
                y = mp._mpf(fr.anchor) + fr.direction * delta
                if y != 0 and mpmath.log10(big / abs(y)) + digits + 10 <= work:
                    return y
                if work > 4 * (self.cap + digits):  # pragma: no cover - refine resolved y
                    return y
                work = 2 * work if y == 0 else int(mpmath.log10(big / abs(y))) + digits + 20

    def relative_digits(self, fr: _Frame, dps: int) -> Callable[[mpmath.mpf, int], int]:
        """digits(δ, c): the relative digits of δ for y = anchor ± δ to carry ``dps``
        significant digits, given δ to c digits; while y is below δ's uncertainty
        (anchor ± δ cancels beyond c digits), 2c + 10 (more digits, until it shows)."""

        def digits(delta: mpmath.mpf, c: int) -> int:
            with mpmath.workdps(30):
                spread = max(0, int(mpmath.log10(abs(mp._mpf(fr.anchor)) / delta + 1)))
            with mpmath.workdps(c + 40 + spread):
                y = mp._mpf(fr.anchor) + fr.direction * delta
                if y == 0 or abs(y) < delta * mpmath.mpf(10) ** -(c - 2):
                    return 2 * c + 10
                extra = max(0, int(mpmath.ceil(mpmath.log10(delta / abs(y)))))
            return dps + 3 + extra

        return digits

    # -- the two kinds of law ------------------------------------------------------------
    def exact_at_s(self) -> Fraction | None:
        """F(s) (left limit) when it is exact: 1/2 for a symmetric continuous law about s."""
        P, half = self.params, Fraction(1, 2)
        if self.bounding in ("none", "clamped"):
            return half
        if P.s == P.c0:
            return Fraction(0)
        if P.s == P.c1:
            return Fraction(1)
        if self.bounding == "truncated" and P.c0 is not None and P.c1 is not None:
            return half if P.s - P.c0 == P.c1 - P.s else None
        return None

    def near(self, point: Fraction, what: str) -> mpmath.mpf:
        """p agrees with F(point) beyond the cap: the quantile is ``point`` to every digit
        asked for, unless the point is 0 (then its significant digits are out of reach)."""
        if point == 0:
            raise InputError(
                f"{self.params.mechanism}.quantile: p={short(self.p)} agrees with {what} to"
                f" {self.cap} digits, so the quantile lies within about 10^-{self.cap} of 0"
                f" and its {self.dps} significant digits cannot be resolved"
            )
        with mpmath.workdps(self.dps + 5):
            return mp._mpf(point)

    def solve(
        self,
        lower: bool,
        end: Fraction | None,
        ref: Fraction | tuple[str, Fraction],
        f_s: Fraction | tuple[str, Fraction],
    ) -> tuple[_Frame, mpmath.mpf, bool]:
        """The frame of the quantile on one side of s, δ located in it (:meth:`locate`),
        and whether δ is below 10^-(dps+5) of the anchor (y is the anchor to every digit
        asked for, so δ need not be resolved: y = 10^1000 - 68·10^-1000 is 10^1000).

        The mass is measured from whichever of the outer ``end`` (where F is ``ref``) and
        s lies nearer to p (so the target m is the smaller of |p - F(end)| and |F(s) - p|,
        never a difference of two near-equal probabilities).  Measured from s, y = s ∓ δ.
        Measured from the end, y = end ± δ when y lies in the half of the side next to
        the end (the mass from the end to the midpoint reaches m); otherwise, and for an
        infinite end, y = s ∓ δ again (a tail frame: the end lies in the far tail).
        """
        s = self.params.s
        branch = "below" if lower else "above"
        out = -1 if lower else 1  # the direction away from s, towards the end
        kappa = 1 if lower else -1  # D = kappa·(F(y) - F(end)) is the mass between end and y
        span = None if end is None else abs(end - s)
        inner = _Frame(branch, s, out, -kappa, f_s, span)
        outer_ref = Fraction(0 if lower else 1) if end is None else ref
        tail = _Frame(branch, s, out, kappa, outer_ref, span, tail=True)
        at_end = None if end is None else _Frame(branch, end, -out, kappa, ref, span)

        def fn() -> tuple[mpmath.mpf, ...]:
            return self.masses(tail, mpmath.mpf(0))[1], self.masses(inner, mpmath.mpf(0))[1]

        (m_end, m_s), _, _ = self.settle(fn, lambda v, e, w: e[0] < abs(v[0]) / 4, 10)
        if m_end > m_s:
            fr = inner
        elif at_end is not None and span and self.side(at_end, mp._mpf(span) / 2) >= 0:
            fr = at_end
        else:
            fr = tail
        if fr.anchor != 0:
            with mpmath.workdps(30):
                tiny = abs(mp._mpf(fr.anchor)) * mpmath.mpf(10) ** -(self.dps + 5)
                inside = fr.limit is None or tiny < mp._mpf(fr.limit)
            if inside and self.side(fr, tiny) >= 0:
                return fr, tiny, True
        return fr, self.locate(fr), False

    def side(self, fr: _Frame, delta: mpmath.mpf) -> int:
        """+1 when the root lies within δ of the anchor (D(δ) has passed m), -1 when beyond
        it, 0 when D(δ) = m as far as the cap resolves."""
        rising = fr.kappa * fr.direction

        def ok(v: tuple[mpmath.mpf, ...], e: tuple[mpmath.mpf, ...], w: int) -> bool:
            d, m = v
            if not (m > 0 and e[1] < m / 4):
                return False
            if d == 0 and e[0] == 0:  # absorbed (y resolved: see need), so D < m
                return self.absorbed(w, m)
            return abs(d - m) > e[0] + e[1]

        (d, m), _, resolved = self.settle(
            lambda: self.masses(fr, delta), ok, 15 + self.spread(fr, delta)
        )
        if not resolved:
            return 0
        return rising * (1 if d > m else -1)

    def continuous(self) -> mpmath.mpf:
        P, s = self.params, self.params.s
        lo, hi = P.c0, P.c1
        half = Fraction(1, 2)
        if self.bounding == "clamped":  # the atoms: P(Y = c0) = F(c0), P(Y = c1) = 1 - F(c1-)
            if lo is not None:
                side = self.compare(lambda: self.at("below", lo), half if lo == s else None)
                if side > 0 or (side == 0 and lo == s):
                    with mpmath.workdps(self.dps + 5):
                        return mp._mpf(lo)
                if side == 0:
                    return self.near(lo, "F(c0)")
            if hi is not None:
                side = self.compare(lambda: self.at("above", hi), half if hi == s else None)
                if side < 0:
                    with mpmath.workdps(self.dps + 5):
                        return mp._mpf(hi)
                if side == 0 and hi != s:
                    return self.near(hi, "F(c1-)")
        exact = self.exact_at_s()
        side = self.compare(lambda: self.at("below", s), exact)
        if side == 0:
            if exact is not None:
                with mpmath.workdps(self.dps + 5):
                    return mp._mpf(s)
            return self.near(s, "F(s)")
        outer = self.bounding in ("truncated", "folded")
        lower = side > 0
        if lower:
            end, ref = lo, Fraction(0) if outer or lo is None else ("below", lo)
        else:
            end, ref = hi, Fraction(1) if outer or hi is None else ("above", hi)
        fr, delta, close = self.solve(lower, end, ref, exact if exact is not None else ("below", s))
        if close:  # y is the anchor to dps + 5 digits
            with mpmath.workdps(self.dps + 5):
                return mp._mpf(fr.anchor)
        delta = self.refine(fr, delta, self.relative_digits(fr, self.dps))
        y = self.point(fr, delta, self.dps + 5)
        with mpmath.workdps(self.dps + 5):
            return +y

    def lattice_value(self, k: int) -> mpmath.mpf:
        """F(k) at an integer k inside [c0, c1), at the ambient precision."""
        return self.at("below" if k <= self.params.s else "above", Fraction(k))

    def exact_lattice(self, k: int) -> Fraction | None:
        """F(k) exactly, when α is a given rational and the powers are small."""
        P = self.params
        if P.alpha is None:
            return None
        powers = [abs(k - P.s)] + [abs(b - P.s) for b in (P.c0, P.c1) if b is not None]
        bits = P.alpha.numerator.bit_length() + P.alpha.denominator.bit_length()
        if max(powers) * bits > 2_000_000:
            return None
        from dpcheck.symbolic import mechanisms as sym
        from dpcheck.symbolic.symbols import alpha as a_

        branch = "below" if k <= P.s else "above"
        expr = sym.cdf_branches(P.mechanism, P.sides)[branch]
        subs = {
            a_: sp.Rational(P.alpha.numerator, P.alpha.denominator),
            s: sp.Integer(int(P.s)),
            sym.y: sp.Integer(k),
        }
        for symbol, bound in ((c0, P.c0), (c1, P.c1)):
            if bound is not None:
                subs[symbol] = sp.Integer(int(bound))
        value = expr.subs(subs)
        if not value.is_Rational:  # pragma: no cover - integer powers of a rational
            return None
        return Fraction(int(value.p), int(value.q))

    def compare_k(self, k: int) -> int:
        """The sign of F(k) - p on the lattice; one-line refusal when out of reach."""
        P = self.params
        if P.c0 is not None and k < P.c0:
            return -1
        if P.c1 is not None and k >= P.c1:
            return 1
        exact = self.exact_lattice(k)
        if exact is not None:
            return (exact > self.p) - (exact < self.p)
        side = self.compare(lambda: self.lattice_value(k))
        if side == 0:
            raise InputError(
                f"{P.mechanism}.quantile: p={short(self.p)} agrees with F({k}) to {self.cap}"
                " digits, too close to decide which integer is the quantile"
            )
        return side

    def lattice(self) -> mpmath.mpf:
        """The generalised inverse on the integers: the real root y* of the continuous
        extension of the derived CDF (α^y for real y), then ceil(y*) confirmed by
        comparing F(k - 1) < p <= F(k) (exactly when α is a given rational)."""
        P = self.params
        s = int(P.s)
        lo = None if P.c0 is None else int(P.c0)
        hi = None if P.c1 is None else int(P.c1)

        def answer(k: int) -> mpmath.mpf:
            with mpmath.workdps(self.dps + 5):
                return mpmath.mpf(k)

        if lo is not None and self.compare_k(lo) >= 0:
            return answer(lo)
        if hi is not None and self.compare_k(hi - 1) < 0:
            return answer(hi)
        side = self.compare_k(s)  # sign(F(s) - p)
        if side == 0 or (side > 0 and (lo == s or self.compare_k(s - 1) < 0)):
            return answer(s)
        lower = side > 0
        end: Fraction | None
        ref: Fraction | tuple[str, Fraction]
        if lower:  # the lattice's ends: F(c0), and F(c1 - 1) below the last point
            end, ref = (
                (None, Fraction(0)) if lo is None else (Fraction(lo), ("below", Fraction(lo)))
            )
        else:
            end, ref = (
                (None, Fraction(1))
                if hi is None
                else (Fraction(hi - 1), ("above", Fraction(hi - 1)))
            )
        fr, delta, close = self.solve(lower, end, ref, ("below", Fraction(s)))

        def digits(delta: mpmath.mpf, c: int) -> int:  # δ to ±0.01, or dps digits of y
            with mpmath.workdps(30):
                return min(self.dps + 5, max(_LOCATED, int(mpmath.log10(delta)) + 3))

        if not close:
            delta = self.refine(fr, delta, digits)
        y = self.point(fr, delta, self.dps + 5)
        with mpmath.workdps(30):
            huge = abs(y) > mpmath.mpf(10) ** (self.dps + 5)
        if huge:  # every integer within 1 of y has the same dps significant digits
            with mpmath.workdps(self.dps + 5):
                return +y
        k = math.ceil(_exact(y))  # exactly: ceil at the ambient precision would round y
        for _ in range(64):  # y is within 0.01 of the root: one or two steps at most
            if self.compare_k(k) < 0:
                k += 1
            elif (lo is None or k > lo) and self.compare_k(k - 1) >= 0:
                k -= 1
            else:
                return answer(k)
        raise ArithmeticError(f"{P.mechanism}.quantile: no integer found")  # pragma: no cover


def _exact(x: mpmath.mpf) -> Fraction:
    """The exact binary value of a finite mpf."""
    sign, man, exp, _ = x._mpf_
    value = Fraction(int(man)) * (Fraction(2) ** int(exp))
    return -value if sign else value


def quantile_at(params: Params, p: Fraction, dps: int) -> mpmath.mpf:
    """inf{y : P(Y <= y) >= p} to ``dps`` significant digits, for every p in (0, 1).

    The answer is located from the end nearer to it *in mass* -- the bound c0 (or c1), or
    s, or an infinite end -- as y = anchor ± δ with D(δ), the mass between the anchor and
    y, equal to the target (p, 1 - p, p - F(c0), |p - F(s)|, ...), so that p = 10^-1000
    or 1 - 10^-1000 is a target like any other (:meth:`_Quantile.solve`).  A bracket
    grown from the linearisation at the anchor (or from the base's own tail, for a tail
    frame) and Newton's method on log D safeguarded by bisection give about 10 digits
    (:meth:`_Quantile.locate`); Newton's method on D - m with the derived density
    (:func:`compiled`, ``pdf:``) then doubles the digits at each step up to what y needs
    (:meth:`_Quantile.refine`): dps + 3 relative digits of y, so δ needs more when
    y = anchor ± δ cancels (a quantile near 0 measured from a distant bound), and none at
    all when y lies within 10^-(dps+5)·|anchor| of the anchor (y is then the anchor to
    every digit asked for: the distance to a bound is resolved only as far as the
    digits of y show it).  Every mass is evaluated by the derived CDF at two working
    precisions raised until they agree to what the step needs (the closed forms cancel by
    up to log10(1/p) digits, and more when the scale dwarfs the width; the exponentials
    of huge arguments are reduced modulo ln 2, :func:`_reduced_exp`); the precision is
    capped at 2·(dps + 20) + 10·MAX_EXPONENT digits, and a quantile that would need more
    (only a p agreeing with F at a point to thousands of digits, the quantile then within
    10^-cap of 0; no number text of at most 400 characters can) is refused in one line.
    Exact values are used where the law has them (F(s) = 1/2 for symmetric laws, the
    clamped atoms at s, a geometric CDF with a rational α), so the generalised inverse is
    exact there.  The geometric base (integers) takes the real root of the CDF's
    continuous extension and confirms ceil of it by F(k - 1) < p <= F(k).  Cost: a few
    evaluations at the full precision; the time at the ceiling of 1 000 digits is in
    :mod:`dpcheck.inputs.limits` (``eval --dps (quantile)``), measured by
    tests/test_quantile_precision.py's slow tests.
    """
    q = _Quantile(params, p, dps)
    y = q.lattice() if q.lattice_law else q.continuous()
    # the law lives on [c0, c1], so its quantile does too: a bound's digits beyond the dps
    # asked for may round the solution past the bound (p = 1e-30 at dps 5 gave c0 - 4e-13)
    with mpmath.workprec(max(mpmath.mp.prec, 256)):  # the bounds to far more than dps
        if params.c0 is not None:
            y = max(y, mpmath.mpf(params.c0.numerator) / params.c0.denominator)
        if params.c1 is not None:
            y = min(y, mpmath.mpf(params.c1.numerator) / params.c1.denominator)
    return y


def checked_dps(value: object, quantity: str = "") -> int:
    """``dps`` as the CLI reads ``eval --dps``: a count (an int, or text such as '30' or
    '1e3'; a float only if integer-valued; never a bool) from 1 to the ceiling of
    :mod:`dpcheck.inputs.limits` (``eval --dps``, or ``eval --dps (quantile)`` for the
    quantile); one-line :class:`InputError` naming dps otherwise."""
    from dpcheck.inputs import limits

    option = "--dps (quantile)" if quantity == "quantile" else "--dps"
    c = limits.ceiling("eval", option)
    return parse_count("dps", value, 1, c.maximum, c.describe())


def evaluate(name: str, values: Params | dict[str, object], dps: object = 50) -> mpmath.mpf:
    """The quantity ``name`` ('truncated-gaussian.mean', 'bit.var', ...) correct to
    about ``dps`` significant digits (:func:`checked_dps`: the CLI's ceilings apply)."""
    mechanism, quantity = resolve(name)
    digits = checked_dps(dps, quantity)
    params = values if isinstance(values, Params) else parse(mechanism, values, quantity)
    if quantity == "cdf":
        if params.y is None:
            raise InputError(f"{name} needs y (the point of the CDF)")
        return cdf_at(params, params.y, digits)
    if quantity == "quantile":
        if params.p is None:
            raise InputError(f"{name} needs p in (0, 1)")
        return quantile_at(params, params.p, digits)
    return _moment(params, quantity, digits)


__all__ = ["cdf_at", "checked_dps", "compiled", "evaluate", "quantile_at"]
