"""The float64 face of a noise law at one parameter point: vectorised CDF and pmf,
moments and a sampler (issue 35), for ``dpcheck.testing`` and the samplers.

* The CDF of a law with closed-form tails (:meth:`NoiseLaw.tail`) is compiled once
  to numpy (:mod:`dpcheck.laws.numpy_eval`): the left tail for y <= 0 and one
  minus the right tail above, so neither tail cancels.  A lattice law's CDF and
  pmf are taken at the distinct draws only, each from the certified ball of
  :mod:`dpcheck.laws.numeric` rounded to float64.
* Moments are the certified balls rounded to float64.
* :func:`sampler` draws with the law's own vectorised draws where it has them
  (``_noise_draws``, :mod:`dpcheck.laws.draws`: exact for the Laplace, Gaussian and
  discrete Laplace), else by inversion: a lattice law from its pmf on [-N, N]
  with the mass outside below 2^-64 (the probability of a draw the table cannot
  produce), a real law by scipy's polynomial inversion of its CDF
  (``NumericalInversePolynomial``, u-resolution 1e-12).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import flint
import numpy as np

from dpcheck.errors import InputError
from dpcheck.laws.noise import NoiseLaw, u
from dpcheck.laws.numeric import Evaluator, arb_of, precision, to_mpf

#: the widest range of lattice points the float64 CDF walks (else per-point balls)
MAX_RANGE = 5_000_000


def _float(ball: flint.arb) -> float:
    return float(to_mpf(ball.mid()))


class _Moments:
    """``standard_moment`` and ``fourth_moment`` (what ``dpcheck.testing`` reads) from the
    moments about the centre s, E (Y - s)^k (``_about_s``)."""

    scale: float

    def _about_s(self, k: int) -> float:
        raise NotImplementedError

    def standard_moment(self, quantity: str, unit: float) -> float:
        """bias/unit, var/unit² or mse/unit² of Y (bias = E (Y - s))."""
        m1, m2 = self._about_s(1), self._about_s(2)
        if quantity == "bias":
            return m1 / unit
        if quantity == "var":
            return (m2 - m1 * m1) / unit**2
        if quantity == "mse":
            return m2 / unit**2
        raise KeyError(quantity)

    def fourth_moment(self) -> float:
        """E((Y - s)/scale)⁴."""
        return self._about_s(4) / self.scale**4


class LawAt(_Moments):
    """A noise law centred at ``s`` with exact parameters, in float64 (the interface of
    :class:`dpcheck.sampling.goodness._Law` that ``dpcheck.testing`` reads)."""

    def __init__(self, law: NoiseLaw, values: dict[str, Fraction], s: float = 0.0) -> None:
        self.law = law
        self.values = values
        self.name = law.name
        self.s = float(s)
        self.lattice = law.is_lattice
        if self.lattice and self.s != math.floor(self.s):
            raise InputError(f"s={s!r}: {law.name} lives on the integers, expected an integer s")
        self.scale = float(values[law.scale])
        env = law.symbols(values)
        r = None if law.radius is None else float(law.radius.subs(env))
        self.c0 = -math.inf if r is None else self.s - r
        self.c1 = math.inf if r is None else self.s + r
        self._tails = None
        if not self.lattice and law.normaliser is not None:
            tails = {side: law.tail(side) for side in (1, -1)}
            if all(t is not None for t in tails.values()):
                from dpcheck.laws.numpy_eval import compile_numpy

                self._tails = {
                    side: (compile_numpy(expr, [u, *self._symbols]), self._args)
                    for side, expr in tails.items()
                }

    def _ev(self) -> Evaluator:
        return Evaluator(self.law, self.values)

    def moment(self, order: int) -> float:
        """E Z^order (certified, rounded to float64)."""
        with precision(20):
            return _float(self._ev().moment(order).ball)

    def _about_s(self, k: int) -> float:
        return self.moment(k)

    def cdf(self, ys: np.ndarray) -> np.ndarray:
        z = np.asarray(ys, dtype=np.float64) - self.s
        if self._tails is not None:
            (left, la), (right, ra) = self._tails[-1], self._tails[1]
            out = np.empty_like(z)
            neg = z <= 0
            out[neg] = left(-z[neg], *la)
            out[~neg] = 1.0 - right(z[~neg], *ra)
            return out
        if self.lattice:
            return self._lattice_cdf(z)
        return self._at_distinct(z, "cdf")

    def _lattice_cdf(self, z: np.ndarray) -> np.ndarray:
        """The CDF of a lattice law at every offset, from two certified tails and the pmf.

        F(k) = P(Z <= lo - 1) + Σ_{lo <= j <= k} p(j) for k <= 0 and
        F(k) = 1 - P(Z > hi) - Σ_{k < j <= hi} p(j) above, with lo, hi the extreme draws:
        two certified tail sums (:class:`~dpcheck.laws.numeric.Evaluator`) and one pmf
        pass over [lo, hi] in float64 (the kernel compiled to numpy over the
        certified normaliser), summed in extended precision from each tail inwards,
        so no value cancels.  Cost O(hi - lo), not a lattice sum per distinct draw.
        """
        finite = np.isfinite(z)
        ks = np.floor(z[finite])
        if ks.size == 0:
            return np.where(z < 0, 0.0, 1.0)
        lo, hi = int(ks.min()), int(ks.max())
        if hi - lo > MAX_RANGE:
            return self._at_distinct(z, "cdf")
        from dpcheck.laws.numpy_eval import compile_numpy

        ev = self._ev()
        with precision(20):
            below = _float(ev.cdf(Fraction(lo - 1)).ball)
            above = _float(ev.sf(Fraction(hi)).ball)
            norm = _float(ev.normaliser.ball)
        kernel = compile_numpy(self.law.kernel, [self.law.variable, *self._symbols])
        grid = np.arange(lo, hi + 1, dtype=np.float64)
        pmf = np.asarray(kernel(grid, *self._args), dtype=np.longdouble) / np.longdouble(norm)
        left = np.longdouble(below) + np.cumsum(pmf)
        right = np.longdouble(above) + np.cumsum(pmf[::-1])[::-1]  # P(Z >= k)
        # F(k) = 1 - P(Z >= k + 1): shift the right sums by one
        upper = np.empty_like(right)
        upper[:-1] = 1 - right[1:]
        upper[-1] = 1 - np.longdouble(above)
        table = np.where(grid <= 0, left, upper).astype(np.float64)
        out = np.where(z < 0, 0.0, 1.0)
        out[finite] = table[(ks - lo).astype(np.int64)]
        return out

    @property
    def _symbols(self) -> list:
        return [p.symbol for p in self.law.params]

    @property
    def _args(self) -> list[float]:
        return [float(self.values[p.name]) for p in self.law.params]

    def pmf(self, ks: np.ndarray) -> np.ndarray:
        return self._at_distinct(np.asarray(ks, dtype=np.float64) - self.s, "pmf")

    def _at_distinct(self, z: np.ndarray, what: str) -> np.ndarray:
        values, inverse = np.unique(z, return_inverse=True)
        if values.size > 100_000:
            raise InputError(
                f"{self.name}: its {what} has no closed form to vectorise and there are"
                f" {values.size} distinct values (expected at most 100000)"
            )
        ev = self._ev()
        out = np.empty(values.size)
        with precision(20):
            for i, v in enumerate(values):
                if not math.isfinite(v):
                    out[i] = 0.0 if v < 0 or what == "pmf" else 1.0
                    continue
                point = Fraction(float(v))
                if what == "pmf":
                    out[i] = _float(ev.pmf(point).ball) if point.denominator == 1 else 0.0
                else:
                    ball = ev.cdf(point)
                    if not ball.certified:
                        raise InputError(f"{self.name}: no certified CDF at {v!r}")
                    out[i] = _float(ball.ball)
        return out[inverse]

    def atoms(self) -> list[tuple[str, float, float]]:
        """The lattice point s and its mass (a binomial test), as for the geometric base."""
        if not self.lattice:
            return []
        return [("s", self.s, float(self.pmf(np.array([self.s]))[0]))]


class BoundedAt(_Moments):
    """``bounding``(s + Z) into [c0, c1] in float64: the face :class:`LawAt` gives
    ``dpcheck.testing`` (moments, CDF, pmf, atoms), for the truncated and clamped laws.

    Moments and lattice CDFs are the certified balls of :class:`dpcheck.laws.bounded.Bounded`
    (of Y - s, so nothing cancels at a large s) rounded to float64.  A real law's CDF at
    the draws is the unbounded law's float64 CDF (:class:`LawAt`) clamped, or rescaled by
    the normaliser for the truncation; that difference of two CDF values loses about
    1e-16/P(c0 <= X <= c1) absolutely, so a normaliser below 1e-9 is refused (the error
    would approach the law test's resolution)."""

    def __init__(
        self,
        law: NoiseLaw,
        values: dict[str, Fraction],
        bounding: str,
        s: float,
        c0: float,
        c1: float,
    ) -> None:
        from dpcheck.laws.bounded import Bounded

        if bounding not in ("truncated", "clamped"):
            raise InputError(
                f"{bounding}-{law.name}: dpcheck.testing does not take a {bounding} law yet"
                " (expected truncated-<law> or clamped-<law>)"
            )
        self.law, self.values, self.bounding = law, values, bounding
        self.name = f"{bounding}-{law.name}"
        self.s, self.c0, self.c1 = float(s), float(c0), float(c1)
        self.lattice = law.is_lattice
        if self.lattice and any(v != math.floor(v) for v in (self.s, self.c0, self.c1)):
            raise InputError(
                f"s={s!r}, c0={c0!r}, c1={c1!r}: {law.name} lives on the integers, expected"
                " integers"
            )
        self.scale = float(values[law.scale])
        # the law of Y - s: bounding(Z) into [c0 - s, c1 - s]
        self.exact = Bounded(law, values, bounding, Fraction(0),
                             Fraction(self.c0) - Fraction(self.s),
                             Fraction(self.c1) - Fraction(self.s))
        self.noise = LawAt(law, values, self.s)
        self.normaliser = 1.0
        if bounding == "truncated":
            with precision(20):
                self.normaliser = _float(self.exact.normaliser())
            if not self.lattice and self.normaliser < 1e-9:
                raise InputError(
                    f"{self.name} at s={s!r} on [{c0!r}, {c1!r}]: P(c0 <= X <= c1) ="
                    f" {self.normaliser:.3g} is below 1e-9, too small for a float64 CDF"
                    " (expected a scale at most about 1e9 times c1 - c0)"
                )

    def _about_s(self, k: int) -> float:
        """E (Y - s)^k: the raw moment of the law of Y - s, so nothing cancels at large s."""
        with precision(20):
            return _float(self.exact.raw_moment(k))

    def _lattice_cdf(self, ys: np.ndarray) -> np.ndarray:
        values, inverse = np.unique(np.floor(ys - self.s), return_inverse=True)
        if values.size > 100_000:
            raise InputError(f"{self.name}: {values.size} distinct draws (expected at most 100000)")
        out = np.empty(values.size)
        with precision(20):
            for i, v in enumerate(values):
                out[i] = (0.0 if v < self.c0 - self.s else 1.0 if v >= self.c1 - self.s
                          else _float(self.exact.output_cdf(Fraction(float(v)))))
        return out[inverse]

    def cdf(self, ys: np.ndarray) -> np.ndarray:
        y = np.asarray(ys, dtype=np.float64)
        if self.lattice:
            return self._lattice_cdf(y)
        f = self.noise.cdf(y)
        if self.bounding == "truncated":
            lo, hi = self.noise.cdf(np.array([self.c0, self.c1]))
            f = (f - lo) / (hi - lo)
        f = np.clip(f, 0.0, 1.0)
        f[y < self.c0] = 0.0
        f[y >= self.c1] = 1.0
        return f

    def pmf(self, ks: np.ndarray) -> np.ndarray:
        k = np.asarray(ks, dtype=np.float64)
        return self.cdf(k) - self.cdf(k - 1.0)

    def atoms(self) -> list[tuple[str, float, float]]:
        """The clamp's masses at c0 and c1, and on the lattice the atoms at s, c0, c1."""
        out: list[tuple[str, float, float]] = []
        if self.bounding == "clamped":
            below = float(self.cdf(np.array([self.c0]))[0])
            if self.lattice:
                above = float(self.pmf(np.array([self.c1]))[0])
            else:
                above = 1.0 - float(self.noise.cdf(np.array([self.c1]))[0])
            out += [("c0", self.c0, below), ("c1", self.c1, above)]
        if self.lattice:
            have = {y for _, y, _ in out}
            for label, y in (("s", self.s), ("c0", self.c0), ("c1", self.c1)):
                if y not in have:
                    have.add(y)
                    out.append((label, y, float(self.pmf(np.array([y]))[0])))
        return out


def _lattice_table(law: NoiseLaw, values: dict[str, Fraction]) -> tuple[np.ndarray, np.ndarray]:
    """(k, pmf(k)) on [-N, N] with the mass outside below 2^-64 (float64 from balls)."""
    ev = Evaluator(law, values)
    with precision(30):
        n = 1
        tiny = arb_of(2) ** -64
        while not (ev.tail(1, n).ball + ev.tail(-1, n).ball < tiny):
            n *= 2
            if n > 10**7:
                raise InputError(f"{law.name}: the sampler's table would exceed 10^7 points")
        ks = np.arange(-n + 1, n)
        p = np.array([_float(ev.pmf(int(k)).ball) for k in ks])
    return ks, p


def _table_draws(ks: np.ndarray, p: np.ndarray):  # type: ignore[no-untyped-def]
    """Inversion of the finite table (ks, p) (p need not be normalised)."""
    cum = np.cumsum(p)
    cum /= cum[-1]

    def draw_lattice(rng: np.random.Generator, size: int) -> np.ndarray:
        return ks[np.searchsorted(cum, rng.random(size), side="right")].astype(np.float64)

    return draw_lattice


def _polynomial_inversion(
    law: NoiseLaw, values: dict[str, Fraction], domain: tuple[float, float] | None = None
):  # type: ignore[no-untyped-def]
    """scipy's polynomial inversion of the law's density (u-resolution 1e-12), on
    ``domain`` (the law conditioned to it) when one is given."""
    from scipy.stats.sampling import NumericalInversePolynomial

    from dpcheck.laws.numpy_eval import compile_numpy

    view = LawAt(law, values)
    with precision(20):
        norm = _float(Evaluator(law, values).normaliser.ball)
    symbols = [p.symbol for p in law.params]
    args = [float(values[p.name]) for p in law.params]
    kernel = compile_numpy(law.kernel, [law.variable, *symbols])

    class _Dist:
        def pdf(self, x: float) -> float:
            return float(kernel(x, *args)) / norm

        def support(self) -> tuple[float, float]:
            return view.c0, view.c1

    class _DistWithCdf(_Dist):
        """With the float64 CDF, which UNU.RAN uses to estimate its u-error."""

        def cdf(self, x: float) -> float:
            return float(view.cdf(np.array([x]))[0])

    try:
        view.cdf(np.array([0.0]))
        dist: _Dist = _DistWithCdf()
    except InputError:  # no certified CDF (the staircase): the density alone
        dist = _Dist()
    try:
        with warnings.catch_warnings():
            # on a bounded domain UNU.RAN reports the (zero) mass beyond it as NaN, assumed 0
            warnings.filterwarnings("ignore", ".*tail probability gives NaN", RuntimeWarning)
            gen = NumericalInversePolynomial(
                dist, center=0.0, domain=domain, u_resolution=1e-12
            )
    except Exception as err:  # UNU.RAN's setup error, e.g. a density too flat or too narrow
        raise InputError(
            f"{law.name} at {', '.join(f'{k} = {v}' for k, v in values.items())}: scipy's"
            f" polynomial inversion could not be set up ({type(err).__name__}: {err})"
        ) from None

    def draw_real(rng: np.random.Generator, size: int) -> np.ndarray:
        return np.asarray(gen.rvs(size, random_state=rng), dtype=np.float64)

    return draw_real


def sampler(law: NoiseLaw, values: dict[str, Fraction]):  # type: ignore[no-untyped-def]
    """A function (rng, n) -> n draws of Z (float64; integers on the lattice)."""
    from dpcheck.laws import draws

    if draws.has_own(law, "none"):
        own, theta = law._noise_draws, draws.theta(law, values)  # type: ignore[attr-defined]

        def draw_own(rng: np.random.Generator, size: int) -> np.ndarray:
            return np.asarray(own(rng, size, theta), dtype=np.float64)

        return draw_own
    if law.is_lattice:
        return _table_draws(*_lattice_table(law, values))
    return _polynomial_inversion(law, values)


def bounded_sampler(  # type: ignore[no-untyped-def]
    law: NoiseLaw,
    values: dict[str, Fraction],
    bounding: str,
    s: float,
    c0: float,
    c1: float,
):
    """A function (rng, n) -> n draws of ``bounding``(s + Z) in [c0, c1] (c0 <= s <= c1).

    The law's own vectorised draws where it has the one the bounding needs
    (:func:`dpcheck.laws.draws.block`); otherwise generic: ``clamped`` clips the draws of
    :func:`sampler`; ``truncated`` inverts the law conditioned to [c0 - s, c1 - s] (the
    pmf table restricted to it on the lattice, scipy's polynomial inversion on that
    domain on the real line); ``folded`` reflects s + Z into [c0, c1] in float64
    (y -> c0 + min(t, 2R - t), t = (y - c0) mod 2R: exact in law up to the rounding of
    s + Z, which is refused once the scale passes 10^6·R: the reflected position would
    keep fewer than about 30 bits).
    """
    from dpcheck.laws import draws

    if not (c0 < c1 and c0 <= s <= c1):
        raise InputError(f"s = {s!r}, [c0, c1] = [{c0!r}, {c1!r}]: expected c0 <= s <= c1, c0 < c1")
    if bounding not in ("truncated", "clamped", "folded"):
        raise InputError(f"bounding {bounding!r} (expected one of: truncated, clamped, folded)")
    if bounding == "folded" and law.is_lattice:
        raise InputError(f"folded {law.name}: folding is defined for laws on the real line")
    if draws.has_own(law, bounding):
        block, theta = draws.block(law, bounding), draws.theta(law, values)

        def draw_own(rng: np.random.Generator, size: int) -> np.ndarray:
            return block(rng, size, s, c0, c1, theta)

        return draw_own
    if bounding == "folded" and float(values[law.scale]) > 1e6 * (c1 - c0):
        raise InputError(
            f"folded {law.name} at {law.scale} = {float(values[law.scale]):.3g} on"
            f" [{c0!r}, {c1!r}]: the generic fold reflects float64 draws, whose position"
            " modulo 2(c1 - c0) is lost at this scale (expected a scale at most 10^6 times"
            " c1 - c0)"
        )
    if bounding == "truncated":
        if law.is_lattice:
            ks, p = _lattice_table(law, values)
            keep = (ks >= c0 - s) & (ks <= c1 - s)
            noise = _table_draws(ks[keep], p[keep])
        else:
            noise = _polynomial_inversion(law, values, (c0 - s, c1 - s))
    else:
        noise = sampler(law, values)
    width = c1 - c0

    def draw(rng: np.random.Generator, size: int) -> np.ndarray:
        y = s + noise(rng, size)
        if bounding == "folded":
            t = np.mod(y - c0, 2.0 * width)
            y = c0 + np.minimum(t, 2.0 * width - t)
        return draws.clip(y, c0, c1)

    return draw


def additive_sampler(law: NoiseLaw, values: dict[str, Fraction]):  # type: ignore[no-untyped-def]
    """``sampler(x, rng, size)``: draws of x + Z, the form ``dpcheck.testing.assert_private``
    takes."""
    draw = sampler(law, values)

    def sample(x: float, rng: np.random.Generator, size: int) -> np.ndarray:
        return x + draw(rng, size)

    return sample
