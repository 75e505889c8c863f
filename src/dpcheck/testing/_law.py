"""``assert_sampler_law``: draws against the exact law of a mechanism (dpcheck.testing).

The tests are those of :func:`dpcheck.sampling.goodness.check_law` (its
module docstring): the mean and the second moment about s by Bernstein's
inequality or a median of means with the exact variance, the whole law by the
Dvoretzky-Kiefer-Wolfowitz inequality (Massart's constant; point masses and
lattice laws included), each point mass by an exact two-sided binomial test,
and the support (a draw the law cannot produce has probability 0, so that
check costs no false alarm).  With K statistical tests each runs at level
false_alarm/K, so a correct sampler fails with probability <= false_alarm
(union bound).

The statistics are those of :func:`~dpcheck.sampling.goodness.check_law`, computed
here with bounded memory (issue 40: 5·10^7 draws took 4.7 GB): one pass over the draws
in blocks of :data:`BLOCK` accumulates the sums, the median-of-means block sums, the
support count and the point-mass counts; the Dvoretzky-Kiefer-Wolfowitz distance is
then taken over one sorted float64 copy of the draws (sorted in place when the draws
had to be converted anyway), block by block.  Peak memory beyond the caller's array
is 8 bytes per draw plus about 30 MB (tests/test_testing_memory.py measures it),
instead of about 80 bytes per draw.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, shown
from dpcheck.numeric.names import canonical_mechanism
from dpcheck.sampling.goodness import (
    Check,
    _Law,
    _point_mass_check,
    binomial_p_value,
    dkw_p_value,
    dkw_threshold,
    median_of_means_halfwidth,
    moment_check,
)
from dpcheck.testing import _defaults

#: draws per block of the streaming pass (2 MB per float64 temporary)
BLOCK = 1 << 18


def _draws(draws: ArrayLike) -> tuple[np.ndarray, bool]:
    """The draws as a flat float64 array, and whether it is a copy of the caller's (so
    that it may be sorted in place); one-line InputError for anything else."""
    if isinstance(draws, (str, bytes, Mapping)):
        raise InputError(f"draws={shown(draws)} is not an array of numbers")
    try:
        arr = np.asarray(draws)
    except (TypeError, ValueError):
        raise InputError(f"draws={shown(draws)} is not an array of numbers") from None
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise InputError(
            f"draws of dtype {arr.dtype} are not real numbers (expected a numpy array of floats"
            " or integers)"
        )
    x = arr.astype(np.float64, copy=False).reshape(-1)
    # a fresh array (from a list, or converted from another dtype) may be sorted in place;
    # a view of the caller's memory may not
    owned = isinstance(draws, (list, tuple)) or not np.may_share_memory(x, arr)
    if x.size == 0:
        raise InputError("draws is empty (expected at least one draw)")
    count, first = 0, -1
    for start in range(0, x.size, BLOCK):
        nan = np.isnan(x[start : start + BLOCK])
        if nan.any():
            count += int(np.count_nonzero(nan))
            first = first if first >= 0 else start + int(np.flatnonzero(nan)[0])
    if count:
        raise InputError(
            f"draws contain {count} NaN value(s), the first at flat index {first}"
            " (expected real numbers)"
        )
    return x, owned


def _p_text(check: Check) -> str:
    """'p-value = 3e-9' (exact binomial) or 'p-value <= 3e-9' (an inequality's bound)."""
    p = check.p_value
    assert p is not None
    relation = "=" if check.name.startswith("point mass") else "<="
    if p == 0.0:  # below the float range: the bound is astronomically small
        return f"p-value {'<' if relation == '=' else '<='} 1e-300"
    return f"p-value {relation} {p:.3g}"


def _describe(check: Check) -> str:
    """One line: the statistic, observed vs expected, threshold and level, the p-value."""
    if check.name == "support":
        return f"- support: {check.detail}; impossible under the law (p-value 0)"
    head = f"- {check.name}:"
    if check.name.startswith("law"):
        # observed F_n and expected F at the largest gap are named in the detail
        head += f" sup |F_n - F| = {check.statistic:.4g}"
    elif check.observed is not None and check.expected is not None:
        head += (
            f" observed {check.observed:.10g}, expected {check.expected:.10g};"
            f" statistic {check.statistic:.4g}"
        )
    else:
        head += f" statistic {check.statistic:.4g}"
    head += f" > threshold {check.threshold:.4g} at level {check.alpha:.3g}"
    if check.p_value is not None:
        head += f"; {_p_text(check)}"
    return f"{head}; {check.detail}"


def assert_sampler_law(
    draws: ArrayLike,
    mechanism: Any,
    *,
    false_alarm: float | None = None,
    **params: object,
) -> list[Check]:
    """Assert that ``draws`` follow the exact law of ``mechanism`` at ``params``.

    ``mechanism`` is any name of the algebra (``dpcheck.numeric.names.MECHANISM_NAMES``:
    'truncated-gaussian', 'clamped-geometric', 'laplace', ...; Liu's aliases
    'truncated' and 'bit'); ``params`` as in :mod:`dpcheck.numeric.mechanism_params`
    (``s``, ``c0``, ``c1`` with ``c0=-inf`` or ``c1=inf`` for one-sided bounds,
    and the scale ``lam``/``sigma``/``scale``, or ``alpha`` for the geometric base,
    or ``epsilon`` and ``sensitivity`` for the Laplace base).  ``mechanism`` may also be a
    noise law (issue 35): an object of :mod:`dpcheck.laws` (a user's own law included) or
    a shipped law's name ('discrete-gaussian', 'staircase', ...), centred at ``s``
    (default 0) with its own parameters.

    ``false_alarm`` bounds the probability that draws of the correct law fail
    (family-wise over all the checks, by a union bound; default 1e-6, or the
    pytest option ``--dpcheck-false-alarm`` when the dpcheck plugin is active).
    How many draws detect a given error depends on the error: a 3% error in a
    Gaussian scale needs about 10^6.

    Returns the list of :class:`dpcheck.sampling.goodness.Check` on success.
    Raises ``AssertionError`` naming, for every failing check, the statistic,
    the observed and expected values, the threshold and its level, and the
    p-value (an upper bound for the inequality-based tests, exact for the
    binomial ones); :class:`dpcheck.errors.InputError` (one line) for bad input:
    an unknown mechanism, bad parameters, ``false_alarm`` outside (0, 1), empty
    draws or NaN draws.
    """
    level = (
        _defaults.false_alarm() if false_alarm is None else _defaults.check_false_alarm(false_alarm)
    )
    law = law_view(mechanism, params)
    x, owned = _draws(draws)
    checks = streamed_check_law(x, law, level, sort_in_place=owned)
    failed = [c for c in checks if not c.passed]
    if failed:
        given = ", ".join(f"{k}={v!r}" for k, v in params.items())
        lines = [
            f"draws of {mechanism} ({given}; n = {x.size}) do not follow its exact law:"
            f" {len(failed)} of {len(checks)} checks failed (family-wise false alarm"
            f" <= {level:.3g})",
            *(_describe(c) for c in failed),
        ]
        raise AssertionError("\n".join(lines))
    return checks


# ---------------------------------------------------------------------------------------
# check_law in bounded memory
# ---------------------------------------------------------------------------------------


@dataclass
class _Moment:
    """One moment test's accumulators: the plain sum (Bernstein's mean) and the sums of the
    first K·m values in K blocks of m consecutive ones (the median of means)."""

    blocks: int
    per_block: int
    total: float = 0.0
    block_sums: np.ndarray | None = None

    def add(self, start: int, values: np.ndarray) -> None:
        self.total += float(values.sum())
        if self.block_sums is None:
            self.block_sums = np.zeros(self.blocks)
        used = self.blocks * self.per_block
        stop = min(start + values.size, used)
        if start < stop:
            index = np.arange(start, stop) // self.per_block
            self.block_sums += np.bincount(
                index, weights=values[: stop - start], minlength=self.blocks
            )


def _moment_check(
    acc: _Moment,
    n: int,
    exact: float,
    variance: float,
    bound: float | None,
    share: float,
    what: str,
    shown: Callable[[float], float],
    unit: float,
) -> Check:
    """:func:`dpcheck.sampling.goodness.moment_check` from the accumulated sums (the same
    thresholds, estimates, p-values and wording)."""

    def block_median(blocks: int) -> float:
        assert acc.block_sums is not None and acc.blocks == blocks
        return float(np.median(acc.block_sums / acc.per_block))

    return moment_check(
        n, exact, variance, bound, share, what, shown, unit,
        mean=lambda: acc.total / n, block_median=block_median,
    )


def _plan(n: int, variance: float, share: float) -> _Moment:
    """The accumulators of a moment test (its K is fixed by n, the variance and the level)."""
    if not (math.isfinite(variance) and variance > 0):
        return _Moment(1, n)
    _, blocks = median_of_means_halfwidth(n, variance, share)
    return _Moment(blocks, n // blocks)


def _ks_blocked(
    xs: np.ndarray,
    cdf: Callable[[np.ndarray], np.ndarray],
    atoms: list[tuple[float, float]],
    left: Callable[[np.ndarray], np.ndarray] | None,
) -> tuple[float, float, str, float, float]:
    """:func:`dpcheck.sampling.goodness.ks_witness` over sorted draws ``xs``, block by block:
    the same points (every distinct draw and every atom, in increasing order; a value
    repeated across a block boundary is compared twice, which changes nothing), the same
    comparisons, the same first largest gap."""
    n = xs.size
    jumps = {float(y): float(p) for y, p in atoms}
    spots = np.array(sorted(jumps), dtype=np.float64)
    best_at = (-1.0, 0.0, 0.0, 0.0)  # (gap, y, F_n, F)
    best_left = (-1.0, 0.0, 0.0, 0.0)
    taken = 0  # atoms merged so far
    for start in range(0, n, BLOCK):
        block = xs[start : start + BLOCK]
        last = start + BLOCK >= n
        upto_atoms = spots.size if last else int(np.searchsorted(spots, block[-1], "right"))
        points = np.unique(np.concatenate([block, spots[taken:upto_atoms]]))
        taken = upto_atoms
        below = np.searchsorted(xs, points, side="left") / n
        upto = np.searchsorted(xs, points, side="right") / n
        f_y = np.asarray(cdf(points), dtype=np.float64)
        if left is not None:
            f_left = np.asarray(left(points), dtype=np.float64)
        elif jumps:
            f_left = f_y - np.array([jumps.get(float(y), 0.0) for y in points])
        else:
            f_left = f_y
        gap_at, gap_left = np.abs(upto - f_y), np.abs(below - f_left)
        i, j = int(np.argmax(gap_at)), int(np.argmax(gap_left))
        if gap_at[i] > best_at[0]:
            best_at = (float(gap_at[i]), float(points[i]), float(upto[i]), float(f_y[i]))
        if gap_left[j] > best_left[0]:
            best_left = (float(gap_left[j]), float(points[j]), float(below[j]), float(f_left[j]))
    if best_at[0] >= best_left[0]:
        return best_at[0], best_at[1], "y", best_at[2], best_at[3]
    return best_left[0], best_left[1], "y-", best_left[2], best_left[3]


def law_view(mechanism: object, params: Mapping[str, object]) -> Any:
    """The float64 law that the checks read: a mechanism of the algebra by name, or a noise
    law (an object of :mod:`dpcheck.laws`, or a shipped law's name) centred at ``s``."""
    from dpcheck.laws.noise import NoiseLaw
    from dpcheck.laws.quantities import bounded_name, is_law_name

    if isinstance(mechanism, str) and is_law_name(mechanism) and bounded_name(mechanism):
        from dpcheck.laws.float64 import BoundedAt

        bounding, law = bounded_name(mechanism)  # type: ignore[misc]
        values = dict(params)
        where = {}
        for key in ("s", "c0", "c1"):
            if key not in values:
                raise InputError(f"{mechanism} needs {key} (the input s in [c0, c1], c0 < c1)")
            where[key] = float(parse_number(key, values.pop(key)))
        return BoundedAt(law, law.parse(values), bounding, where["s"], where["c0"], where["c1"])
    if isinstance(mechanism, NoiseLaw) or is_law_name(mechanism):
        from dpcheck.laws import registry
        from dpcheck.laws.float64 import LawAt

        law = registry.get(mechanism)  # type: ignore[arg-type]
        values = dict(params)
        s = values.pop("s", 0.0)
        return LawAt(law, law.parse(values), float(s))  # type: ignore[arg-type]
    return _Law(canonical_mechanism(mechanism), params)


def streamed_check_law(
    x: np.ndarray,
    law: Any,
    alpha: float,
    sort_in_place: bool = False,
) -> list[Check]:
    """The checks of :func:`dpcheck.sampling.goodness.check_law` (its general tests, every
    mechanism of the algebra, the same order, thresholds and wording) on flat float64
    draws ``x`` in bounded memory: see the module docstring.  With ``sort_in_place`` the
    draws (a copy the caller owns) are sorted in place for the law test.  ``law`` is
    :func:`law_view`'s."""
    name = law.name
    n = x.size
    bounded = math.isfinite(law.c0) and math.isfinite(law.c1)
    # every moment in units of min(scale, R), the geometric base in units of 1 (as check_law)
    unit = min(law.scale, law.c1 - law.c0) if bounded else law.scale
    if law.lattice:
        unit = 1.0
    bias, var, mse = (law.standard_moment(q, unit) for q in ("bias", "var", "mse"))
    width = (law.c1 - law.c0) / unit if bounded else None
    atoms = law.atoms()
    share = alpha / (3 + len(atoms))
    ratio = law.scale / unit
    fourth = law.fourth_moment() * ratio**4 if ratio < 1e70 else math.inf
    if width is not None:
        fourth = min(fourth, width * width * mse)
    first, second = _plan(n, var, share), _plan(n, fourth, share)
    outside, first_bad, first_value = 0, -1, 0.0
    counts = [0] * len(atoms)
    lattice = law.lattice
    for start in range(0, n, BLOCK):
        block = x[start : start + BLOCK]
        d = block - law.s
        d /= unit
        first.add(start, d)
        with np.errstate(over="ignore"):  # the geometric base in units of 1 at huge scales
            d *= d
        second.add(start, d)
        bad = ~np.isfinite(block) | (block < law.c0) | (block > law.c1)
        if lattice:
            bad |= np.isfinite(block) & (block != np.floor(block))
        if bad.any():
            outside += int(np.count_nonzero(bad))
            if first_bad < 0:
                first_bad = start + int(np.flatnonzero(bad)[0])
                first_value = float(x[first_bad])
        for k, (_, y, _) in enumerate(atoms):
            counts[k] += int(np.count_nonzero(block == y))
    checks = [
        _moment_check(first, n, bias, var, width, share, "mean", lambda b: law.s + b * unit, unit),
        _moment_check(
            second,
            n,
            mse,
            fourth,
            None if width is None else width * width,
            share,
            "second moment about s",
            lambda m: m * unit * unit,
            unit * unit,
        ),
    ]
    if sort_in_place:
        x.sort()
        xs = x
    else:
        xs = np.sort(x)
    if lattice:
        ks, y, side, f_n, f = _ks_blocked(xs, law.cdf, [], lambda ys: law.cdf(ys) - law.pmf(ys))
    else:
        ks, y, side, f_n, f = _ks_blocked(xs, law.cdf, [(y, p) for _, y, p in atoms], None)
    del xs
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
    checks.append(_support(law, n, outside, first_bad, first_value))
    for (where_, y_, p_), count in zip(atoms, counts, strict=True):
        p_value = binomial_p_value(count, n, min(max(p_, 0.0), 1.0))
        checks.append(
            _point_mass_check(where_, f"{where_} = {y_:.10g}", count, n, p_, p_value, share)
        )
    return checks


def _support(law: Any, n: int, bad: int, first: int, value: float) -> Check:
    """:func:`dpcheck.sampling.goodness._support_check` from the counts: the draws outside
    the law's support, each impossible under it (false alarm 0, no share of alpha)."""
    lo = "(-inf" if math.isinf(law.c0) else f"[{law.c0!r}"
    hi = "inf)" if math.isinf(law.c1) else f"{law.c1!r}]"
    support = "finite" if lo == "(-inf" and hi == "inf)" else f"in {lo}, {hi}"
    if law.lattice:
        support = "integers" + ("" if support == "finite" else f" {support}")
    detail = f"{bad}/{n} draws not {support}"
    if bad:
        detail += f", the first {value!r} at index {first}"
    return Check(
        "support",
        float(bad),
        0.0,
        0.0,
        detail,
        observed=bad / n,
        expected=0.0,
        p_value=0.0 if bad else 1.0,
    )


__all__ = ["assert_sampler_law"]
