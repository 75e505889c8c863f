"""Black-box privacy audit of any sampler (issue 20, "A black-box privacy auditor").

(ε, δ)-DP requires P_x(E) <= e^ε P_x'(E) + δ for neighbouring inputs x, x'
and every output event E.  :mod:`dpcheck.sampling.audit` chooses E from the
exact law; here there is none, only ``sampler(x, rng, size)``.  The audit
follows DP-Sniper (Bichsel et al., "DP-Sniper: Black-Box Discovery of
Differential Privacy Violations using Classifiers", IEEE S&P 2021: an attack
event learned from a first sample, its probabilities bounded on a second,
independent one) and Delta-Siege (Lokna et al., "Group and Attack: Auditing
Differential Privacy", CCS 2023: a bound on ε at a given δ and on δ at a
given ε from the same pair of estimates).

For each pair (x, x') of ``neighbours``, ``samples`` draws of M(x) and of
M(x') are made, in two batches from independent seed streams:

1. **Choice** (the first n1 = ceil(samples/4) draws per side, at most
   :data:`SELECT_CAP`).  The pooled draws of both sides define the cells of
   the output line: each value seen at least :data:`ATOM_MIN` times is an
   atom (a point mass: randomized response, a geometric law, a clamped
   bound; every distinct value when there are at most :data:`DISCRETE_CAP`
   of them), at most :data:`MAX_ATOMS`; the rest is cut at pooled quantiles
   (at most :data:`BODY_BINS` equal-mass bins, refined geometrically towards
   both tails down to about :data:`TAIL_MIN` pooled draws).  For each
   direction (x against x', then x' against x) the candidate events are
   the likelihood-ratio level sets -- the first k cells in the order of the
   smoothed count ratio (a + 1)/(b + 1) of the first half of the batch,
   scored on the second half (cross-fitting: an order learned and scored on
   the same draws flatters the noisiest cells) -- and the half-lines
   {Y <= t}, {Y >= t} at every cell boundary, scored on the whole batch.
   The chosen event maximises the lower bound expected at the test size:
   the Wilson score bounds (the normal approximation of Clopper-Pearson) at
   n2 draws and level alpha/(2m), applied to pessimistic first-batch
   estimates (Wilson bounds at z = :data:`Z_SELECT`, so that an event seen
   a handful of times does not win by luck).
2. **Test** (the remaining n2 = samples - n1 draws per side, fresh streams):
   the counts k, k' in the chosen event give exact one-sided Clopper-Pearson
   bounds p_lo <= P_x(E) and p_hi >= P_x'(E), each at level alpha/(2m),
   alpha = 1 - confidence, m = 2 x (number of pairs): the Bonferroni
   correction over every pair and direction.

With probability >= 1 - alpha every bound of every audit holds at once (the
event is a function of the first batch only, independent of the second), so

    eps_lo = log((p_lo - δ)/p_hi)   (-inf when p_lo <= δ)

is a lower confidence bound on the privacy loss at δ of every audited pair,
and delta_lo = max(0, p_lo - e^ε p_hi) one on δ at the claimed ε.  The
audit reports the largest of each; ``exceeds`` (eps_lo > ε, equivalently
p_lo - e^ε p_hi > δ) is a false alarm with probability at most alpha when
the mechanism is (ε, δ)-DP, whatever the sampler and however the event was
chosen -- provided the sampler draws its randomness from the ``rng`` it is
given (a sampler with its own hidden state could tie the two batches).  Both
directions of a pair share its draws (the union bound needs no independence
between audits).

Streams: ``SeedSequence(seed).spawn(pairs)``, each pair's spawned into its two
sides and each side's into its two batches; a batch is drawn in blocks of
:data:`BLOCK` (memory stays bounded; the first batch is kept, the second only
counted per cell), and ``progress(done, total)`` is called after each block
(draws of both sides of every pair: total = 2 x pairs x samples).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_count, parse_real, shown
from dpcheck.numeric.arrays import Floats
from dpcheck.sampling import clopper_pearson
from dpcheck.sampling.audit import (
    _draws,
    _epsilon,
    _json_float,
    _normal_quantile,
    _wilson_lower,
    _wilson_upper,
    as_confidence,
)

#: sampler(x, rng, size) -> ``size`` draws of M(x) (a 1-d array of numbers)
Sampler = Callable[[Any, np.random.Generator, int], ArrayLike]
Progress = Callable[[int, int], None]

#: the first batch is ceil(samples / SELECT_DIVISOR) draws per side ...
SELECT_DIVISOR = 4
#: ... and at most this many (the event's choice gains little beyond; memory stays bounded)
SELECT_CAP = 1 << 22
#: draws per block (per side)
BLOCK = 1 << 20
#: at most this many distinct values in the first batch: every one is an atom
DISCRETE_CAP = 256
#: otherwise a value seen at least this often in the pooled first batch is an atom ...
ATOM_MIN = 5
#: ... keeping the heaviest MAX_ATOMS
MAX_ATOMS = 64
#: equal-mass bins of the non-atom part (fewer when the first batch is small) ...
BODY_BINS = 200
#: ... at least this many pooled draws per body bin ...
BIN_MIN = 50
#: ... refined geometrically towards each tail down to about TAIL_MIN pooled draws
TAIL_MIN = 8
#: pessimism of the first-batch estimates in the choice (standard deviations)
Z_SELECT = 2.0
#: smoothing of the count ratio that orders the cells of a level set
SMOOTH = 1.0
#: the most pairs one audit takes (each adds two audits to the Bonferroni correction)
MAX_PAIRS = 10_000
#: the most draws per side and pair
MAX_SAMPLES = 10**10


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class DirectionAudit:
    """One (pair, direction): the event chosen on the first batch and the test on the second.

    ``x`` is the numerator input (P_x(E) bounded from below), ``x_prime`` the other.
    """

    pair_index: int
    x: Any
    x_prime: Any
    event: str
    selection_samples: int
    selection_count: int
    selection_count_prime: int
    expected_bound: float
    samples: int
    count: int
    count_prime: int
    level: float
    p_lower: float
    p_prime_upper: float
    bound: float
    delta_bound: float

    def to_dict(self) -> dict[str, object]:
        return {
            "pair_index": self.pair_index,
            "x": _json_value(self.x),
            "x_prime": _json_value(self.x_prime),
            "event": self.event,
            "selection_samples": self.selection_samples,
            "selection_count": self.selection_count,
            "selection_count_prime": self.selection_count_prime,
            "expected_bound": _json_float(self.expected_bound),
            "samples": self.samples,
            "count": self.count,
            "count_prime": self.count_prime,
            "level": self.level,
            "p_lower": self.p_lower,
            "p_prime_upper": self.p_prime_upper,
            "epsilon_lower_bound": _json_float(self.bound),
            "delta_lower_bound": self.delta_bound,
        }


@dataclass(frozen=True)
class BlackBoxAudit:
    """The audit of every pair and direction (module docstring).

    ``bound``: the (confidence) lower confidence bound on ε at the given δ, the
    largest over pairs and directions; ``delta_bound`` the one on δ at the
    claimed ε; ``pair`` (x, x') and ``event`` attain ``bound`` (x the numerator).
    """

    exceeds: bool
    epsilon: float
    delta: float
    confidence: float
    samples: int
    bound: float
    delta_bound: float
    pair: tuple[Any, Any]
    event: str
    seed: int
    audits: tuple[DirectionAudit, ...]

    @property
    def alpha(self) -> float:
        """1 - confidence: the family-wise false-alarm probability allowed."""
        return 1.0 - self.confidence

    @property
    def worst(self) -> DirectionAudit:
        """The audit attaining ``bound`` (the first one on ties)."""
        return max(self.audits, key=lambda a: a.bound)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready (non-finite floats as the strings 'inf', '-inf'; inputs as numbers
        when they are numbers, else their repr)."""
        w = self.worst
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "confidence": self.confidence,
            "samples": self.samples,
            "selection_samples": w.selection_samples,
            "test_samples": w.samples,
            "seed": self.seed,
            "pairs": len(self.audits) // 2,
            "audits": len(self.audits),
            "level": w.level,
            "epsilon_lower_bound": _json_float(self.bound),
            "delta_lower_bound": self.delta_bound,
            "exceeds": self.exceeds,
            "pair": [_json_value(self.pair[0]), _json_value(self.pair[1])],
            "event": self.event,
            "count": w.count,
            "count_prime": w.count_prime,
            "p_lower": w.p_lower,
            "p_prime_upper": w.p_prime_upper,
            "directions": [a.to_dict() for a in self.audits],
        }

    def __str__(self) -> str:
        w = self.worst
        m = len(self.audits)
        x, xp = shown(w.x), shown(w.x_prime)
        verdict = (
            f"VIOLATION: exceeds epsilon = {self.epsilon:g}"
            + (f" at delta = {self.delta:g}" if self.delta else "")
            if self.exceeds
            else "no violation detected"
        )
        lines = [
            f"black-box audit of epsilon = {self.epsilon:g}, delta = {self.delta:g}:"
            f" {m // 2} pair(s) x 2 directions = {m} audits, each Clopper-Pearson bound at"
            f" level {self.alpha:g}/{2 * m} = {w.level:.6g} (Bonferroni)",
            f"{self.samples} draws per side and pair (seed {self.seed}):"
            f" {w.selection_samples} choose the event, {w.samples} test it",
            f"worst: x = {x}, x' = {xp}; event E = {w.event}",
            f"{w.count} of M(x) in E, {w.count_prime} of M(x') in E;"
            f" Clopper-Pearson bounds: P_x(E) >= {w.p_lower:.6g}, P_x'(E) <= {w.p_prime_upper:.6g}",
            f"lower confidence bound on epsilon at delta = {self.delta:g}: {_num(self.bound)}"
            f" (confidence {self.confidence:g})",
            f"lower confidence bound on delta at epsilon = {self.epsilon:g}:"
            f" {self.delta_bound:.6g}",
            verdict,
            "every audit (x against x'):",
        ]
        for a in self.audits:
            lines.append(
                f"  x = {shown(a.x)}, x' = {shown(a.x_prime)}: epsilon >= {_num(a.bound)}"
                f" ({a.count} vs {a.count_prime} in {a.event})"
            )
        return "\n".join(lines)


def _num(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else str(value)


def _json_value(x: object) -> object:
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)) and math.isfinite(float(x)):
        return float(x)
    if isinstance(x, str):
        return x
    return shown(x, 80)


# ---------------------------------------------------------------- cells of the output line


@dataclass(frozen=True)
class Cells:
    """A partition of the output line, ordered by value, built from the first batch.

    ``points`` (sorted, distinct) are the breakpoints; ``atom[j]`` marks those that
    are atoms.  The cells in value order are, for j = 0 .. len(points): the open
    interval below points[j] (closed at points[j] when it is not an atom; the
    last one is (points[-1], +inf]), then the atom {points[j]} if it is one.
    """

    points: Floats
    atom: np.ndarray

    @property
    def size(self) -> int:
        return len(self.points) + 1 + int(self.atom.sum())

    @property
    def _interval_index(self) -> np.ndarray:
        """The position of interval j in value order (j + atoms before j)."""
        before = np.concatenate(([0], np.cumsum(self.atom)))
        return np.arange(len(self.points) + 1) + before

    def index(self, y: Floats) -> np.ndarray:
        """The cell of each value."""
        j = np.searchsorted(self.points, y, side="left")
        base = self._interval_index[j]
        if len(self.points) == 0:
            return base
        jj = np.minimum(j, len(self.points) - 1)
        hit = (j < len(self.points)) & self.atom[jj] & (self.points[jj] == y)
        return base + hit

    def counts(self, y: Floats) -> np.ndarray:
        return np.bincount(self.index(y), minlength=self.size).astype(np.int64)

    def _bounds(self) -> list[tuple[str, float, float, str]]:
        """Each cell in value order as (left bracket, lo, hi, right bracket)."""
        out: list[tuple[str, float, float, str]] = []
        pts = [float(p) for p in self.points]
        for j in range(len(pts) + 1):
            lo = pts[j - 1] if j > 0 else -math.inf
            hi = pts[j] if j < len(pts) else math.inf
            left = "[" if j == 0 else "("
            right = ")" if j < len(pts) and self.atom[j] else "]"
            out.append((left, lo, hi, right))
            if j < len(pts) and self.atom[j]:
                out.append(("[", hi, hi, "]"))
        return out

    def describe(self, mask: np.ndarray, limit: int = 4) -> str:
        """The event (a set of cells) as a union of intervals and points, in value order."""
        cells = self._bounds()
        runs: list[tuple[str, float, float, str]] = []
        i = 0
        while i < len(cells):
            if not mask[i]:
                i += 1
                continue
            k = i
            while k + 1 < len(cells) and mask[k + 1]:
                k += 1
            runs.append((cells[i][0], cells[i][1], cells[k][2], cells[k][3]))
            i = k + 1
        if not runs:
            return "{} (empty)"
        parts = [_interval(*r) for r in runs]
        if len(parts) > limit:
            return " u ".join(parts[:limit]) + f" u ... ({len(parts)} pieces)"
        return " u ".join(parts)


def _interval(left: str, lo: float, hi: float, right: str) -> str:
    if lo == hi:
        return f"{{{lo:.6g}}}"
    if lo == -math.inf:
        return f"Y {'<=' if right == ']' else '<'} {hi:.6g}"
    if hi == math.inf:
        return f"Y {'>=' if left == '[' else '>'} {lo:.6g}"
    return f"{left}{lo:.6g}, {hi:.6g}{right}"


def cells_from(pooled: Floats) -> Cells:
    """The cells of the module docstring from the pooled first batch (both sides)."""
    values, counts = np.unique(pooled, return_counts=True)
    if len(values) <= DISCRETE_CAP:
        return Cells(values, np.ones(len(values), dtype=bool))
    heavy = np.flatnonzero(counts >= ATOM_MIN)
    if len(heavy) > MAX_ATOMS:
        heavy = heavy[np.argsort(-counts[heavy], kind="stable")[:MAX_ATOMS]]
    is_atom = np.zeros(len(values), dtype=bool)
    is_atom[heavy] = True
    rest = np.repeat(values[~is_atom], counts[~is_atom])  # sorted
    edges = _quantile_edges(rest)
    points = np.concatenate((values[is_atom], edges))
    atom = np.concatenate((np.ones(is_atom.sum(), dtype=bool), np.zeros(len(edges), dtype=bool)))
    order = np.argsort(points, kind="stable")
    return Cells(points[order], atom[order])


def _quantile_edges(rest: Floats) -> Floats:
    """Values of ``rest`` (sorted) at equal-mass levels and at levels 2^-k, 1 - 2^-k."""
    n = len(rest)
    if n == 0:
        return rest
    bins = int(min(BODY_BINS, max(1, n // BIN_MIN)))
    levels = [np.linspace(0.0, 1.0, bins + 1)[1:-1]]
    k = 1
    while n * 2.0**-k >= TAIL_MIN:
        levels.append(np.array([2.0**-k, 1.0 - 2.0**-k]))
        k += 1
    lv = np.concatenate(levels)
    idx = np.clip(np.ceil(lv * n).astype(np.int64) - 1, 0, n - 1)
    return np.unique(rest[idx])


# ---------------------------------------------------------------- the choice


@dataclass(frozen=True)
class Choice:
    """The event of one direction: a mask over cells, the counts and size it was scored on,
    and its score."""

    mask: np.ndarray
    count: int
    count_prime: int
    samples: int
    expected_bound: float


def expected_bounds(
    a: np.ndarray, b: np.ndarray, n1: int, n2: int, z: float, delta: float
) -> np.ndarray:
    """The lower bound on ε expected at n2 test draws for events with counts a, b of n1.

    log(W_lo(p̃; n2, z) - δ) - log(W_hi(q̃; n2, z)) with p̃, q̃ the Wilson bounds at
    z = Z_SELECT on the n1 choice draws (W: the Wilson score bounds of
    :mod:`dpcheck.sampling.audit`); -inf where nothing is left above δ.
    """
    p = _wilson_lower(a / n1, n1, Z_SELECT)
    q = _wilson_upper(b / n1, n1, Z_SELECT)
    top = _wilson_lower(p, n2, z) - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(top) - np.log(_wilson_upper(q, n2, z))
    return np.where(top > 0.0, out, -np.inf)


def choose(
    first: tuple[np.ndarray, np.ndarray],
    second: tuple[np.ndarray, np.ndarray],
    n_first: int,
    n_second: int,
    n2: int,
    z: float,
    delta: float,
) -> Choice:
    """The candidate event of largest :func:`expected_bounds`, for P_x(E) against P_x'(E).

    ``first`` and ``second``: the cell counts of M(x) and of M(x') in the two halves
    of the first batch (``n_first``, ``n_second`` draws per side).  The likelihood-ratio
    level sets order the cells by the smoothed count ratio (a + 1)/(b + 1) of the
    first half and are scored on the second, so that the order's noise does not
    flatter them (cross-fitting); the half-lines {Y <= t}, {Y >= t} (no order to
    learn) are scored on both halves.
    """
    (a1, b1), (a2, b2) = first, second
    size = len(a1)
    order = np.argsort(-(a1 + SMOOTH) / (b1 + SMOOTH), kind="stable")
    both = (a1 + a2, b1 + b2, n_first + n_second)
    values = np.arange(size)
    families = [
        (order, (a2, b2, n_second)),  # level sets: the first k cells of the order
        (values, both),  # {Y <= t}
        (values[::-1], both),  # {Y >= t}
    ]
    best: Choice | None = None
    for perm, (a, b, n) in families:
        ca, cb = np.cumsum(a[perm]), np.cumsum(b[perm])
        score = expected_bounds(ca, cb, n, n2, z, delta)
        k = int(np.argmax(score))
        if best is None or score[k] > best.expected_bound:
            mask = np.zeros(size, dtype=bool)
            mask[perm[: k + 1]] = True
            best = Choice(mask, int(ca[k]), int(cb[k]), n, float(score[k]))
    assert best is not None
    return best


# ---------------------------------------------------------------- validation and draws


def _neighbours(neighbours: object) -> list[tuple[Any, Any]]:
    what = "neighbours must be a non-empty sequence of pairs (x, x')"
    if isinstance(neighbours, np.ndarray):
        neighbours = neighbours.tolist()
    if isinstance(neighbours, (str, bytes)) or not isinstance(neighbours, Sequence):
        raise InputError(f"{what}, not {shown(neighbours)}")
    if not neighbours:
        raise InputError(f"{what}, not an empty sequence")
    if len(neighbours) > MAX_PAIRS:
        raise InputError(f"{len(neighbours)} pairs of neighbours: at most {MAX_PAIRS}")
    out = []
    for i, pair in enumerate(neighbours):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise InputError(f"neighbours[{i}]={shown(pair)} is not a pair (x, x')")
        out.append((pair[0], pair[1]))
    return out


def _delta(value: object) -> float:
    return parse_real("delta", value, lambda d: 0.0 <= d < 1.0, "a number in [0, 1)")


def _checked(out: object, size: int, x: object, pair: tuple[Any, Any], i: int) -> Floats:
    """The sampler's output as float64, or a one-line InputError naming the pair."""
    where = f"sampler(x={shown(x)}, rng, {size}) (pair {i}: {shown(pair, 60)})"
    try:
        arr = np.asarray(out)
    except (TypeError, ValueError):
        raise InputError(f"{where} did not return an array of numbers") from None
    if arr.shape != (size,):
        raise InputError(f"{where} returned shape {arr.shape}, expected ({size},)")
    if arr.dtype.kind not in "biuf":
        raise InputError(f"{where} returned dtype {arr.dtype}, expected numbers")
    return _draws(where + " output", arr)


def _batch(
    sampler: Sampler,
    x: object,
    rng: np.random.Generator,
    size: int,
    pair: tuple[Any, Any],
    i: int,
    tick: Callable[[int], None],
    sink: Callable[[Floats], None],
) -> None:
    """``size`` draws of M(x) in blocks, each passed to ``sink``."""
    done = 0
    while done < size:
        k = min(BLOCK, size - done)
        sink(_checked(sampler(x, rng, k), k, x, pair, i))
        done += k
        tick(k)


def audit_sampler(
    sampler: Sampler,
    neighbours: Sequence[tuple[Any, Any]],
    *,
    epsilon: float,
    delta: float = 0.0,
    samples: int = 1_000_000,
    confidence: float = 0.95,
    seed: int = 0,
    progress: Progress | None = None,
) -> BlackBoxAudit:
    """Audit the (ε, δ)-DP claim of ``sampler`` on ``neighbours`` (module docstring).

    ``sampler(x, rng, size)`` returns ``size`` draws of M(x) (a 1-d array of numbers;
    ``rng`` a numpy Generator spawned from ``seed``); ``samples`` draws per side of
    each pair (at least 2: a quarter choose the event, the rest test it).  The
    family-wise false-alarm probability over every pair and direction is at most
    1 - ``confidence``.  Bad input: one-line :class:`InputError`.
    """
    if not callable(sampler):
        raise InputError(f"sampler={shown(sampler)} is not callable (sampler(x, rng, size))")
    pairs = _neighbours(neighbours)
    eps = _epsilon(epsilon)
    dlt = _delta(delta)
    n = parse_count("samples", samples, 2, MAX_SAMPLES)
    level_c = as_confidence(confidence)
    seed_ = parse_count("seed", seed, 0, 2**128)
    if progress is not None and not callable(progress):
        raise InputError(f"progress={shown(progress)} is not callable (progress(done, total))")
    n1 = min(-(-n // SELECT_DIVISOR), SELECT_CAP)
    n2 = n - n1
    m = 2 * len(pairs)
    level = (1.0 - level_c) / (2 * m)
    z = _normal_quantile(1.0 - level)
    total = 2 * len(pairs) * n
    done = 0

    def tick(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None:
            progress(done, total)

    audits: list[DirectionAudit] = []
    streams = np.random.SeedSequence(seed_).spawn(len(pairs))
    for i, (pair, stream) in enumerate(zip(pairs, streams, strict=True)):
        sides = [side.spawn(2) for side in stream.spawn(2)]  # [side][batch]
        first: list[list[Floats]] = [[], []]
        for s in range(2):
            rng = np.random.default_rng(sides[s][0])
            _batch(sampler, pair[s], rng, n1, pair, i, tick, first[s].append)
        draws = [np.concatenate(f) for f in first]
        cells = cells_from(np.concatenate(draws))
        half = n1 // 2  # the level sets' order from draws [:half] (cross-fitting)
        first_half = tuple(cells.counts(d[:half]) for d in draws)
        second_half = tuple(cells.counts(d[half:]) for d in draws)
        seen = [h1 + h2 for h1, h2 in zip(first_half, second_half, strict=True)]
        del first, draws
        choices = [
            choose(first_half, second_half, half, n1 - half, n2, z, dlt),
            choose(first_half[::-1], second_half[::-1], half, n1 - half, n2, z, dlt),
        ]
        test = [np.zeros(cells.size, dtype=np.int64) for _ in range(2)]
        for s in range(2):
            rng = np.random.default_rng(sides[s][1])

            def add(y: Floats, s: int = s, out: list = test, c: Cells = cells) -> None:
                out[s] += c.counts(y)

            _batch(sampler, pair[s], rng, n2, pair, i, tick, add)
        for d, choice in enumerate(choices):
            num, den = (0, 1) if d == 0 else (1, 0)
            k = int(test[num][choice.mask].sum())
            k_prime = int(test[den][choice.mask].sum())
            p_lo = clopper_pearson.lower(k, n2, level)
            p_hi = clopper_pearson.upper(k_prime, n2, level)
            audits.append(
                DirectionAudit(
                    pair_index=i,
                    x=pair[num],
                    x_prime=pair[den],
                    event=cells.describe(choice.mask),
                    selection_samples=n1,
                    selection_count=int(seen[num][choice.mask].sum()),
                    selection_count_prime=int(seen[den][choice.mask].sum()),
                    expected_bound=choice.expected_bound,
                    samples=n2,
                    count=k,
                    count_prime=k_prime,
                    level=level,
                    p_lower=p_lo,
                    p_prime_upper=p_hi,
                    bound=_eps_bound(p_lo, p_hi, dlt),
                    delta_bound=_delta_bound(p_lo, p_hi, eps),
                )
            )
    worst = max(audits, key=lambda a: a.bound)
    bound = worst.bound
    return BlackBoxAudit(
        exceeds=bound > eps,
        epsilon=eps,
        delta=dlt,
        confidence=level_c,
        samples=n,
        bound=bound,
        delta_bound=max(a.delta_bound for a in audits),
        pair=(worst.x, worst.x_prime),
        event=worst.event,
        seed=seed_,
        audits=tuple(audits),
    )


def _eps_bound(p_lo: float, p_hi: float, delta: float) -> float:
    """log((p_lo - δ)/p_hi), -inf when p_lo <= δ (p_hi > 0 always: n2 is finite)."""
    top = p_lo - delta
    if not top > 0.0:
        return -math.inf
    return math.log(top) - math.log(p_hi)


def _delta_bound(p_lo: float, p_hi: float, eps: float) -> float:
    """max(0, p_lo - e^ε p_hi) (0 when e^ε p_hi overflows or exceeds p_lo)."""
    if not p_lo > 0.0 or eps > 700.0:  # e^700 p_hi > 1 >= p_lo: p_hi >= 1 - alpha^(1/n2)
        return 0.0
    return max(0.0, p_lo - math.exp(eps) * p_hi)


__all__ = [
    "BlackBoxAudit",
    "Cells",
    "DirectionAudit",
    "Sampler",
    "audit_sampler",
    "cells_from",
    "choose",
    "expected_bounds",
]
