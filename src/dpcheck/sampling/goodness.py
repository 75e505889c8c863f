"""Tests of draws against an exact law, each with a stated false-alarm probability.

A sampler is compared with the exact law of Liu (2019) Definition 2 (eqs (4),
(5)) by four tests whose false-alarm probability for a correct sampler is
bounded by a stated ``alpha`` without any asymptotic approximation:

* the mean, by Bernstein's inequality with the exact variance (|X - μ| <= R);
* the second moment about s, by Bernstein's inequality with
  Var((X-s)²) <= R² E(X-s)² (bounded by the exact MSE);
* the whole law, by the Dvoretzky–Kiefer–Wolfowitz inequality with
  Massart's constant, P(sup|F_n - F| > t) <= 2 e^{-2nt²}, which holds for any
  F, point masses included (:func:`ks_distance` takes the sup over the jumps
  of both F_n and F);
* each point mass of the BIT law, by an exact two-sided binomial test.

The exact values come from :mod:`dpcheck.numeric.fast`, itself checked
against 50-digit mpmath of the derived forms.

:func:`check_law` works for every mechanism of the algebra (DESIGN.md,
"Mechanisms"; exact values from :mod:`dpcheck.numeric.fast_mechanisms`).  Laws
that are unbounded on a side (the bare bases, one-sided truncation or
clamping) have no range bound for Bernstein, so their moment tests are
medians of means (:func:`median_of_means_halfwidth`), which need only an upper
bound on the variance:

* the mean, with the exact variance;
* the second moment about s, with Var((X-s)²) <= E(X-s)⁴ <= the base's own
  E(X-s)⁴ (Laplace 24λ⁴, Gaussian 3σ⁴, two-sided geometric
  2α(1 + 10α + α²)/(1 - α)⁴; :func:`base_fourth_moment`).  The second
  inequality holds for every bounding of a base that is symmetric about s:
  clamping and folding never move a point away from s (s lies in [c0, c1]),
  and truncation to an interval containing s multiplies the density of
  |X - s| at distance t by c(t)/(2N), c(t) = the number of the points s ± t
  inside [c0, c1], which is non-increasing in t, so the truncated |X - s| is
  smaller in likelihood ratio, hence stochastically, than the base's.

For bounded laws the moment tests use whichever of Bernstein and the
median of means has the smaller threshold (a choice made from n, the exact
variance and the bounds only, never from the draws, so each test keeps its
false-alarm bound).  The law is tested by DKW (point masses and the lattice
laws of the geometric base included, :func:`ks_distance`), and every point
mass -- at a finite bound of a clamped law, and at s and the finite bounds of
a geometric law -- by an exact two-sided binomial test.  A last check counts
the draws outside the support (non-finite, outside [c0, c1], non-integers of
a geometric law): each is impossible under the law, so it fails at once and
costs no share of alpha.  Every general check records the observed and the
expected value and a p-value (exact for the binomial tests, the tail bound
at the observed deviation for the others: :func:`dkw_p_value`,
:func:`bernstein_p_value`, :func:`median_of_means_p_value`), which
:mod:`dpcheck.testing` quotes when it fails.  For the geometric base at
scales near 1e70 and above its moments, kept in units of 1, overflow float64:
those moment checks are reported as not tested.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from dpcheck.errors import InputError
from dpcheck.numeric import fast
from dpcheck.sampling.binomial import two_sided_p_value


def dkw_threshold(n: int, alpha: float) -> float:
    """t with 2 exp(-2 n t²) = alpha: P(sup|F_n - F| > t) <= alpha (DKW, Massart 1990)."""
    return math.sqrt(math.log(2 / alpha) / (2 * n))


def bernstein_halfwidth(n: int, variance: float, bound: float, alpha: float) -> float:
    """t with P(|mean_n - μ| >= t) <= alpha when |X - μ| <= bound and Var X <= variance.

    Bernstein: P(|mean_n - μ| >= t) <= 2 exp(-n t² / (2σ² + 2bt/3)); t is the
    positive root of n t² = L (2σ² + 2bt/3) with L = log(2/alpha).
    """
    log_term = math.log(2 / alpha)
    linear = 2 * bound * log_term / 3
    return (linear + math.sqrt(linear * linear + 8 * n * log_term * variance)) / (2 * n)


def ks_distance(
    draws: ArrayLike,
    cdf: Callable[[np.ndarray], np.ndarray],
    atoms: Sequence[tuple[float, float]] = (),
    left: Callable[[np.ndarray], np.ndarray] | None = None,
) -> float:
    """sup_y |F_n(y) - F(y)| over the jumps of both, point masses included.

    ``cdf`` maps an array of outputs to F there (vectorised); ``atoms`` lists
    the (y, P(Y = y)) of the law.  Between consecutive jumps F_n is constant
    and F continuous and nondecreasing, so the sup is approached at the jumps:
    compare F_n(y) with F(y) and F_n(y-) with F(y-) = F(y) - P(Y = y) at every
    distinct draw and every atom.  For a law with atoms everywhere (a lattice
    law), pass ``left`` (vectorised F(y-)) instead: between two consecutive
    draws F_n is constant and F nondecreasing, so comparing F(y) and F(y-) at
    the draws (and atoms) still attains the sup.
    """
    return ks_witness(draws, cdf, atoms, left)[0]


def ks_witness(
    draws: ArrayLike,
    cdf: Callable[[np.ndarray], np.ndarray],
    atoms: Sequence[tuple[float, float]] = (),
    left: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[float, float, str, float, float]:
    """(distance, y, side, F_n, F): :func:`ks_distance` and where it is attained.

    ``side`` is ``'y'`` when the largest gap is |F_n(y) - F(y)| and ``'y-'``
    when it is |F_n(y-) - F(y-)| (the left limits); F_n and F are the two
    values compared there.
    """
    xs = np.sort(np.asarray(draws, dtype=np.float64).reshape(-1))
    n = xs.size
    if n == 0:
        raise InputError("no draws to test (expected at least one)")
    atom_at = {float(y): float(p) for y, p in atoms}
    points = np.unique(np.concatenate([xs, np.array(sorted(atom_at), dtype=np.float64)]))
    below = np.searchsorted(xs, points, side="left") / n
    upto = np.searchsorted(xs, points, side="right") / n
    f_y = np.asarray(cdf(points), dtype=np.float64)
    if left is not None:
        f_left = np.asarray(left(points), dtype=np.float64)
    else:
        jump = np.array([atom_at.get(float(y), 0.0) for y in points]) if atom_at else 0.0
        f_left = f_y - jump
    gap_at, gap_left = np.abs(upto - f_y), np.abs(below - f_left)
    i, j = int(np.argmax(gap_at)), int(np.argmax(gap_left))
    if gap_at[i] >= gap_left[j]:
        return float(gap_at[i]), float(points[i]), "y", float(upto[i]), float(f_y[i])
    return float(gap_left[j]), float(points[j]), "y-", float(below[j]), float(f_left[j])


def dkw_p_value(n: int, distance: float) -> float:
    """min(1, 2 exp(-2 n d²)): an upper bound on P(sup|F_n - F| >= d) (DKW, Massart 1990)."""
    return min(1.0, 2.0 * math.exp(-2.0 * n * distance * distance))


def bernstein_p_value(n: int, variance: float, bound: float, deviation: float) -> float:
    """min(1, 2 exp(-n t² / (2σ² + 2bt/3))) at t = ``deviation``: an upper bound on
    P(|mean_n - μ| >= t) (Bernstein; :func:`bernstein_halfwidth` inverts it)."""
    t = deviation
    if not t > 0:
        return 1.0
    denominator = 2 * variance + 2 * bound * t / 3
    if denominator <= 0:
        return 0.0
    return min(1.0, 2.0 * math.exp(-n * t * t / denominator))


def median_of_means_p_value(n: int, variance: float, blocks: int, deviation: float) -> float:
    """P(Bin(K, p) >= (K+1)/2) with p = min(1, variance/(m t²)), m = n // K, t = ``deviation``:
    an upper bound on P(|median of K block means - μ| >= t) for the fixed K of
    :func:`median_of_means_halfwidth` (the same Chebyshev-and-binomial argument)."""
    m = n // blocks
    t = deviation
    if not t > 0 or m < 1:
        return 1.0
    spread = m * t * t
    if not spread > variance:  # also when t*t underflows: Chebyshev says nothing
        return 1.0
    p = variance / spread
    return min(1.0, float(special.bdtrc(blocks // 2, blocks, p)))


@dataclass(frozen=True)
class Check:
    """One test of draws against the exact law: passes when statistic <= threshold."""

    name: str
    statistic: float
    threshold: float
    alpha: float
    detail: str
    #: the estimate compared (sample mean, F_n at the largest gap, count/n at a point mass)
    observed: float | None = None
    #: the exact value it is compared with (mean, F there, the exact mass)
    expected: float | None = None
    #: an upper bound on the p-value (Bernstein, median of means, DKW) or the exact
    #: two-sided binomial p-value; the check fails when it is below ``alpha``
    p_value: float | None = None

    @property
    def passed(self) -> bool:
        return bool(self.statistic <= self.threshold)

    def __str__(self) -> str:
        verdict = "ok" if self.passed else "FAILED"
        return (
            f"{self.name}: {self.statistic:.4g} vs threshold {self.threshold:.4g}"
            f" (false alarm <= {self.alpha:.2g}) {verdict}; {self.detail}"
        )


def _check_liu(
    x: np.ndarray,
    mechanism: str,
    s: float,
    c0: float,
    c1: float,
    lam: float,
    alpha: float,
) -> list[Check]:
    """Liu's two mechanisms at finite (s, c0, c1, λ): the original tests, unchanged.

    The tests together have false-alarm probability <= ``alpha`` (a union
    bound: alpha/4 each for mean, second moment and law; for BIT the law's
    share is split with the two point masses).
    """
    n = x.size
    width = c1 - c0
    mean, var, mse = (
        float(fast.evaluate(f"{mechanism}.{q}", s, c0, c1, lam)) for q in ("mean", "var", "mse")
    )
    share = alpha / 4 if mechanism == "truncated" else alpha / 6
    checks = []
    t_mean = bernstein_halfwidth(n, var, width, share)
    checks.append(
        Check(
            "mean",
            abs(float(x.mean()) - mean),
            t_mean,
            share,
            f"sample mean {x.mean():.10g}, exact {mean:.10g} (Bernstein, exact variance {var:.4g})",
        )
    )
    sq = (x - s) ** 2
    t_sq = bernstein_halfwidth(n, width * width * mse, width * width, share)
    checks.append(
        Check(
            "second moment about s",
            abs(float(sq.mean()) - mse),
            t_sq,
            share,
            f"sample {sq.mean():.10g}, exact MSE {mse:.10g} (Bernstein, Var <= R^2 MSE)",
        )
    )
    atoms: list[tuple[float, float]] = []
    if mechanism == "bit":
        p0, p1 = (float(p) for p in fast.point_masses("bit", s, c0, c1, lam))
        atoms = [(c0, p0), (c1, p1)]
    ks = ks_distance(x, lambda ys: fast.cdf(mechanism, ys, s, c0, c1, lam), atoms)
    checks.append(
        Check(
            "law (sup |F_n - F|)",
            ks,
            dkw_threshold(n, share),
            share,
            f"n = {n}, exact CDF of the {mechanism} law (DKW with Massart's constant)",
        )
    )
    for where, (y, p) in zip(("c0", "c1"), atoms, strict=False):
        count = int(np.count_nonzero(x == y))
        p_value = two_sided_p_value(count, n, p)
        checks.append(_point_mass_check(where, where, count, n, p, p_value, share))
    return checks


def _point_mass_check(
    where: str, at: str, count: int, n: int, p: float, p_value: float, share: float
) -> Check:
    """The exact binomial test of one point mass: the statistic log(1/p-value) passes while
    the p-value is >= share."""
    return Check(
        f"point mass at {where}",
        0.0 - math.log(max(p_value, 1e-300)),
        -math.log(share),
        share,
        f"{count}/{n} draws at {at}, exact mass {p:.6g}, two-sided binomial p = {p_value:.3g}",
        observed=count / n,
        expected=p,
        p_value=p_value,
    )


def check_law(
    draws: ArrayLike,
    mechanism: str,
    s: object = None,
    c0: object = None,
    c1: object = None,
    lam: object = None,
    alpha: float = 1e-6,
    *,
    params: Mapping[str, object] | None = None,
    **more: object,
) -> list[Check]:
    """Test draws of ``mechanism`` (any name of the algebra) against its exact law.

    ``check_law(draws, 'truncated', s, c0, c1, lam)`` and ``'bit'`` (Liu 2019,
    Definition 2, finite bounds) run the original tests unchanged: Bernstein
    on the mean and on the second moment about s, DKW on the law, exact
    binomial tests on BIT's point masses, each at a share of ``alpha``.  Any
    other mechanism, or a one-sided bound, takes its parameters by keyword as
    in :mod:`dpcheck.numeric.mechanism_params`, e.g.
    ``check_law(draws, 'truncated-gaussian', s=0.3, c0=0, c1=1, sigma=0.7)``;
    the geometric base's α (which would clash with the false-alarm level
    ``alpha``) is given as ``scale=`` or ``params={'alpha': ...}``.  The
    tests are those of the module docstring (moment tests by Bernstein or a
    median of means, DKW, binomial point-mass tests), each at alpha/K for K
    tests, so that the family-wise false-alarm probability of a correct
    sampler is <= ``alpha`` (union bound).  Returns every check, passed or not.
    """
    x = np.asarray(draws, dtype=np.float64).reshape(-1)
    if x.size == 0:
        raise InputError("no draws to test (expected at least one)")
    liu = (
        mechanism in ("truncated", "bit")
        and params is None
        and not more
        and all(isinstance(v, (int, float, np.integer, np.floating)) for v in (s, c0, c1, lam))
        and all(math.isfinite(float(v)) for v in (s, c0, c1, lam))  # type: ignore[arg-type]
    )
    if liu:
        return _check_liu(x, mechanism, s, c0, c1, lam, alpha)  # type: ignore[arg-type]
    values = {k: v for k, v in (("s", s), ("c0", c0), ("c1", c1), ("lam", lam)) if v is not None}
    for source in (params or {}, more):
        for key, value in source.items():
            if key in values:
                raise InputError(f"parameter {key!r} given twice")
            values[key] = value
    return _check_any(x, mechanism, values, alpha)


def median_of_means_halfwidth(n: int, variance: float, alpha: float) -> tuple[float, int]:
    """(t, K): P(|median of K block means - μ| > t) <= alpha for n iid draws with Var <= variance.

    The first K·m draws (m = n // K, K odd) are cut into K blocks of m.  By
    Chebyshev a block mean leaves [μ - t, μ + t] with probability at most
    p = variance/(m t²); the median leaves it only if at least (K+1)/2 block
    means do, which has probability at most P(Bin(K, p) >= (K+1)/2) (the
    blocks are independent and the binomial tail increases with p).  For each
    odd K the largest p with that tail <= alpha is found (scipy's
    ``betaincinv``, P(Bin(K, p) >= j) = I_p(j, K - j + 1), then confirmed by
    ``bdtrc`` with a relative margin of 1e-6), and the K with the smallest
    t = sqrt(variance/(m p)) is returned.  K = 1 is Chebyshev's inequality
    itself.  No moment beyond the variance is needed (the classical
    median-of-means argument; Lugosi & Mendelson 2019, "Mean estimation and
    regression under heavy-tailed distributions: a survey", §2).
    """
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha={alpha!r} must lie strictly between 0 and 1")
    if n < 1:
        raise InputError(f"n={n} must be at least 1")
    if not variance > 0.0:
        return 0.0, 1
    k_int = np.arange(1, min(n, 4001) + 1, 2, dtype=np.int64)
    ks = k_int.astype(np.float64)
    j = (ks + 1.0) / 2.0
    p = special.betaincinv(j, ks - j + 1.0, alpha)
    for _ in range(60):  # shrink until the exact tail confirms it (rarely needed)
        bad = ~(special.bdtrc(k_int // 2, k_int, p) <= alpha * (1.0 - 1e-6))
        if not bad.any():
            break
        p = np.where(bad, p * (1.0 - 1e-6), p)
    else:
        p = np.where(bad, 0.0, p)
    m = np.floor(n / ks)
    with np.errstate(divide="ignore", over="ignore"):  # inf: no block size can test it
        widths = np.sqrt(variance / (m * p))
    best = int(np.argmin(widths))
    return float(widths[best]), int(ks[best])


def median_of_means(values: np.ndarray, blocks: int) -> float:
    """The median of the means of ``blocks`` consecutive blocks of len(values)//blocks values."""
    m = values.size // blocks
    return float(np.median(values[: m * blocks].reshape(blocks, m).mean(axis=1)))


def base_fourth_moment(base: str, scale: float) -> float:
    """E((X - s)/θ)⁴ of the base law about its centre s, in units of its scale θ: the law
    object's float64 formula (``_standard_fourth_moment``: Laplace 24, Gaussian 3, the
    discrete Laplace's rational function of α, :mod:`dpcheck.laws`).
    tests/test_sampling_mechanisms.py checks each against mpmath quadrature / summation of
    the base law."""
    from dpcheck.laws import registry

    law = registry.of_base(base)
    return float(law._standard_fourth_moment(scale))  # type: ignore[attr-defined]


class _Law:
    """The exact quantities of one mechanism at scalar parameters (float64).

    From :mod:`dpcheck.numeric.fast_mechanisms`: ``evaluate`` for the
    moments, ``cdf``, ``point_masses`` and, for the geometric base, ``pmf``.
    """

    def __init__(self, name: str, values: Mapping[str, object]) -> None:
        from dpcheck.laws import registry
        from dpcheck.numeric import mechanism_params
        from dpcheck.numeric.names import parts

        self.name = name
        self.bounding, self.base = parts(name)
        self.noise = registry.of_base(self.base)
        p = mechanism_params.parse(name, values)
        self.s = float(p.s)
        self.c0 = -math.inf if p.c0 is None else float(p.c0)
        self.c1 = math.inf if p.c1 is None else float(p.c1)
        kw: dict[str, float] = {"s": self.s}
        if self.bounding != "none":
            kw.update(c0=self.c0, c1=self.c1)
        if p.alpha is not None:
            kw["alpha"] = float(p.alpha)
            self.scale = -1.0 / math.log(float(p.alpha))
        else:
            assert p.scale is not None
            kw[self.noise.scale] = float(p.scale)
            self.scale = float(p.scale)
        self.kw = kw

    def standard_moment(self, quantity: str, unit: float) -> float:
        """bias/unit, var/unit² or mse/unit², evaluated at the standardised parameters
        ((s, c0, c1, θ) - s)/unit (location-scale equivariance), so that neither
        underflows nor overflows at extreme scales.  The geometric base is only shifted
        (its lattice must stay the integers): ``unit`` must then be 1."""
        from dpcheck.numeric import fast_mechanisms

        if self.lattice:
            assert unit == 1.0
            kw = dict(self.kw, s=0.0)
            if self.bounding != "none":
                kw.update(c0=self.c0 - self.s, c1=self.c1 - self.s)
        else:
            kw = {"s": 0.0, self.noise.scale: self.scale / unit}
            if self.bounding != "none":
                kw.update(c0=(self.c0 - self.s) / unit, c1=(self.c1 - self.s) / unit)
        return float(fast_mechanisms.evaluate(f"{self.name}.{quantity}", **kw))

    def cdf(self, ys: np.ndarray) -> np.ndarray:
        from dpcheck.numeric import fast_mechanisms

        return np.asarray(fast_mechanisms.cdf(self.name, ys, **self.kw), dtype=np.float64)

    def pmf(self, ks: np.ndarray) -> np.ndarray:
        from dpcheck.numeric import fast_mechanisms

        return np.asarray(fast_mechanisms.pmf(self.name, ks, **self.kw), dtype=np.float64)

    @property
    def lattice(self) -> bool:
        """Whether the law lives on the integers: the base's law object says so."""
        return self.noise.is_lattice

    def fourth_moment(self) -> float:
        """E((X - s)/θ)⁴ of the base law (:func:`base_fourth_moment`)."""
        return base_fourth_moment(self.base, self.scale)

    def point_masses(self) -> tuple[float, float]:
        from dpcheck.numeric import fast_mechanisms

        p0, p1 = fast_mechanisms.point_masses(self.name, **self.kw)
        return float(p0), float(p1)

    def atoms(self) -> list[tuple[str, float, float]]:
        """(label, y, P(Y = y)) of the point masses given a binomial test."""
        out: list[tuple[str, float, float]] = []
        if self.bounding == "clamped":
            p0, p1 = self.point_masses()
            out += [("c0", self.c0, p0)] if math.isfinite(self.c0) else []
            out += [("c1", self.c1, p1)] if math.isfinite(self.c1) else []
        if self.lattice:
            have = {y for _, y, _ in out}
            for label, y in (("s", self.s), ("c0", self.c0), ("c1", self.c1)):
                if math.isfinite(y) and y not in have:
                    have.add(y)
                    out.append((label, y, float(self.pmf(np.array([y]))[0])))
        return out


def binomial_p_value(k: int, n: int, p: float) -> float:
    """2·min(P(K <= k), P(K >= k)) for K ~ Bin(n, p), capped at 1 (the exact two-sided test).

    The tails are scipy's ``bdtr``/``bdtrc`` (the regularised incomplete beta
    function, relative accuracy ~1e-13 even far in a tail), fast at any n;
    :func:`dpcheck.sampling.binomial.two_sided_p_value` is the mpmath route.
    """
    lower = float(special.bdtr(k, n, p))
    upper = 1.0 if k == 0 else float(special.bdtrc(k - 1, n, p))
    return min(1.0, 2.0 * min(lower, upper))


def _moment_check(
    values: np.ndarray,
    exact: float,
    variance: float,
    bound: float | None,
    share: float,
    what: str,
    shown: Callable[[float], float],
    unit: float,
) -> Check:
    """:func:`moment_check` of the draws ``values`` (in units of ``unit``)."""
    return moment_check(
        values.size, exact, variance, bound, share, what, shown, unit,
        mean=lambda: float(values.mean()),
        block_median=lambda blocks: median_of_means(values, blocks),
    )


def moment_check(
    n: int,
    exact: float,
    variance: float,
    bound: float | None,
    share: float,
    what: str,
    shown: Callable[[float], float],
    unit: float,
    *,
    mean: Callable[[], float],
    block_median: Callable[[int], float],
) -> Check:
    """|estimate - exact| against the smaller of the Bernstein (when |value - exact| <= bound)
    and median-of-means thresholds; both depend on n, variance and bound only.

    ``exact``, ``variance`` and ``bound`` are in units of ``unit`` (or its square);
    ``shown`` maps an estimate back to the mechanism's own units for the detail.  The
    estimates come from the caller: ``mean()`` (the sample mean) and ``block_median(K)``
    (the median of K block means), from an array here or from streamed sums in
    :mod:`dpcheck.testing._law`.
    """
    t_mom, blocks = median_of_means_halfwidth(n, variance, share)
    t_bern = bernstein_halfwidth(n, variance, bound, share) if bound is not None else math.inf
    if not (math.isfinite(min(t_bern, t_mom)) and math.isfinite(exact)):
        # the geometric base in units of 1 at a scale near 1e70 and above: the exact moments
        # or the variance bound overflow float64, so no finite threshold exists
        return Check(
            what,
            0.0,
            math.inf,
            share,
            f"not tested: the exact value ({exact:.4g}) or its variance bound ({variance:.4g})"
            f" overflows float64 in units of {unit:.4g} (the law and support tests still apply)",
        )
    if t_bern <= t_mom:
        assert bound is not None
        estimate = mean()
        how = f"Bernstein, variance <= {variance:.4g}, range {bound:.4g}"
        p_value = bernstein_p_value(n, variance, bound, abs(estimate - exact))
    else:
        estimate = block_median(blocks)
        how = f"median of {blocks} block means, variance <= {variance:.4g}"
        p_value = median_of_means_p_value(n, variance, blocks, abs(estimate - exact))
    return Check(
        what,
        abs(estimate - exact),
        min(t_bern, t_mom),
        share,
        f"estimate {shown(estimate):.10g}, exact {shown(exact):.10g} ({how};"
        f" statistic in units of {unit:.4g})",
        observed=shown(estimate),
        expected=shown(exact),
        p_value=p_value,
    )


def _check_any(
    x: np.ndarray, mechanism: str, values: Mapping[str, object], alpha: float
) -> list[Check]:
    """The general tests of :func:`check_law` (module docstring)."""
    from dpcheck.numeric.names import canonical_mechanism

    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise InputError(f"alpha={alpha!r} must lie strictly between 0 and 1 (a false-alarm level)")
    name = canonical_mechanism(mechanism)
    law = _Law(name, values)
    n = x.size
    bounded = math.isfinite(law.c0) and math.isfinite(law.c1)
    # every moment in units of min(scale, R): no overflow or underflow at extreme scales
    # (the geometric base in units of 1: its lattice is the integers)
    unit = min(law.scale, law.c1 - law.c0) if bounded else law.scale
    if law.lattice:
        unit = 1.0
    bias, var, mse = (law.standard_moment(q, unit) for q in ("bias", "var", "mse"))
    width = (law.c1 - law.c0) / unit if bounded else None
    atoms = law.atoms()
    share = alpha / (3 + len(atoms))
    d = (x - law.s) / unit
    checks = [_moment_check(d, bias, var, width, share, "mean", lambda b: law.s + b * unit, unit)]
    ratio = law.scale / unit
    fourth = base_fourth_moment(law.base, law.scale) * ratio**4 if ratio < 1e70 else math.inf
    if width is not None:
        fourth = min(fourth, width * width * mse)
    with np.errstate(over="ignore"):  # the geometric base in units of 1 at huge scales
        squares = d * d
    checks.append(
        _moment_check(
            squares,
            mse,
            fourth,
            None if width is None else width * width,
            share,
            "second moment about s",
            lambda m: m * unit * unit,
            unit * unit,
        )
    )
    if law.lattice:
        ks, y, side, f_n, f = ks_witness(x, law.cdf, left=lambda ys: law.cdf(ys) - law.pmf(ys))
    else:
        ks, y, side, f_n, f = ks_witness(x, law.cdf, [(y, p) for _, y, p in atoms])
    where = f"y = {y!r}" if side == "y" else f"y = {y!r}- (left limit)"
    checks.append(
        Check(
            "law (sup |F_n - F|)",
            ks,
            dkw_threshold(n, share),
            share,
            f"n = {n}, exact CDF of the {name} law (DKW with Massart's constant);"
            f" largest gap at {where}: empirical F_n = {f_n:.10g}, exact F = {f:.10g}",
            observed=f_n,
            expected=f,
            p_value=dkw_p_value(n, ks),
        )
    )
    checks.append(_support_check(x, law))
    for where, y, p in atoms:
        count = int(np.count_nonzero(x == y))
        p_value = binomial_p_value(count, n, min(max(p, 0.0), 1.0))
        checks.append(_point_mass_check(where, f"{where} = {y:.10g}", count, n, p, p_value, share))
    return checks


def _support_check(x: np.ndarray, law: _Law) -> Check:
    """The draws outside the law's support: non-finite, outside [c0, c1], or (geometric base)
    not integers.  Each has probability 0 under the law, so this check has false alarm 0
    and takes no share of alpha."""
    outside = ~np.isfinite(x) | (x < law.c0) | (x > law.c1)
    if law.lattice:
        outside |= np.isfinite(x) & (x != np.floor(x))
    bad = int(np.count_nonzero(outside))
    lo = "(-inf" if math.isinf(law.c0) else f"[{law.c0!r}"
    hi = "inf)" if math.isinf(law.c1) else f"{law.c1!r}]"
    support = "finite" if lo == "(-inf" and hi == "inf)" else f"in {lo}, {hi}"
    if law.lattice:
        support = "integers" + ("" if support == "finite" else f" {support}")
    detail = f"{bad}/{x.size} draws not {support}"
    if bad:
        detail += f", the first {float(x[np.flatnonzero(outside)[0]])!r}"
        detail += f" at index {int(np.flatnonzero(outside)[0])}"
    return Check(
        "support",
        float(bad),
        0.0,
        0.0,
        detail,
        observed=bad / x.size,
        expected=0.0,
        p_value=0.0 if bad else 1.0,
    )


def uniform_by_pit(
    draws: ArrayLike,
    mechanism: str,
    s: ArrayLike,
    c0: ArrayLike,
    c1: ArrayLike,
    lam: ArrayLike,
    rng: np.random.Generator,
) -> np.ndarray:
    """Randomised probability integral transform: iid Uniform(0, 1) iff the law is right.

    U = F(y-) + V (F(y) - F(y-)), V ~ Uniform(0, 1) independent: for draws with
    heterogeneous parameters (one draw per (s, c0, c1, λ)) this reduces the
    test of a vectorised sampler to a test of uniformity.
    """
    y = np.asarray(draws, dtype=np.float64)
    f_y = fast.cdf(mechanism, y, s, c0, c1, lam)
    jump = np.zeros_like(f_y)
    if mechanism == "bit":
        p0, p1 = fast.point_masses("bit", s, c0, c1, lam)
        c0_, c1_ = np.broadcast_arrays(np.asarray(c0, dtype=float), np.asarray(c1, dtype=float))
        jump = np.where(y == np.broadcast_to(c0_, y.shape), np.broadcast_to(p0, y.shape), jump)
        jump = np.where(y == np.broadcast_to(c1_, y.shape), np.broadcast_to(p1, y.shape), jump)
    return f_y - jump * rng.random(y.shape)


__all__ = [
    "Check",
    "base_fourth_moment",
    "bernstein_halfwidth",
    "bernstein_p_value",
    "binomial_p_value",
    "check_law",
    "dkw_p_value",
    "dkw_threshold",
    "ks_distance",
    "ks_witness",
    "median_of_means",
    "median_of_means_halfwidth",
    "median_of_means_p_value",
    "uniform_by_pit",
]
