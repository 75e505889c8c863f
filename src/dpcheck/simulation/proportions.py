"""Simulation study 2 (Liu 2019 §4.2, Figures 2-5, S1-S2): a sanitised proportion vector with sum 1.

``reps`` multinomial(n, p) data sets are drawn for every n; their sample
proportions are sanitised by the truncated and the BIT mechanism (bounds
[0, 1], delta_1 = 1/n as in the paper) at every epsilon, and the equality
constraint is met in one of three ways, plus multiple synthesis:

* ``rescaling`` (Figure 2): each proportion sanitised with scale 1/(n epsilon), then
  divided by their sum;
* ``all_but_one`` (Figure 4): p2, p3, p4 sanitised, p1 = 1 - their sum (it can leave [0, 1]);
* ``uh`` (Figure 5): the modified universal histogram, six nodes sanitised with
  scale 2/(n epsilon), steps 3-5 with footnote 3 (:mod:`.universal_histogram`);
* ``ms`` (Figure 3): 5 re-scaled releases at epsilon/5 each, combined by Liu's rule
  (:mod:`.combining`).

The same data sets serve every epsilon, mechanism and approach (common random
numbers), so comparisons between them are paired.  Each estimate is judged
for the 4 proportions and the pairwise sums of Figures S1-S2 with the 95%
Wald interval of :func:`.summaries.wald` (the combined interval for ``ms``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dpcheck.numeric.arrays import Floats
from dpcheck.simulation import combining, summaries
from dpcheck.simulation import universal_histogram as uh
from dpcheck.simulation.mechanisms import MECHANISMS, sanitise

#: §4.2: "p = (0.1, 0.2, 0.3, 0.4)"
P = (0.1, 0.2, 0.3, 0.4)
EPSILONS = (0.1, 0.5, 1.0)
#: §4.2: "n = 50 ~ 500"; the paper does not list its grid, this one is evenly spaced
SIZES = tuple(range(50, 501, 50))
APPROACHES = ("rescaling", "all_but_one", "uh", "ms")
#: the approaches in words (summaries and figure titles)
APPROACH_WORDS = {
    "rescaling": "re-scaling",
    "all_but_one": "all-but-one",
    "uh": "universal histogram",
    "ms": "multiple synthesis (5 sets at ε/5, re-scaled)",
}
#: the targets: the 4 proportions and the pairwise sums of Figures S1-S2
TARGETS = ("p1", "p2", "p3", "p4", "p1+p2", "p2+p3", "p2+p4")
_SUMS = ((0, 1), (1, 2), (1, 3))


@dataclass(frozen=True)
class Study2Design:
    """The design of §4.2; the defaults are the paper's (500 data sets, 5 synthetic sets)."""

    p: tuple[float, ...] = P
    epsilons: tuple[float, ...] = EPSILONS
    sizes: tuple[int, ...] = SIZES
    reps: int = 500
    sets: int = 5
    seed: int = 20190402

    @property
    def truth(self) -> Floats:
        return targets(np.array(self.p))


def targets(p: Floats) -> Floats:
    """The 4 proportions and the sums p1+p2, p2+p3, p2+p4 along the last axis."""
    sums = [p[..., a] + p[..., b] for a, b in _SUMS]
    return np.concatenate([p, np.stack(sums, axis=-1)], axis=-1)


@dataclass
class Study2Result:
    """Per-repetition errors and coverage, keyed by (approach, mechanism).

    ``errors[key]`` holds estimate - truth and ``covered[key]`` whether the
    95% interval covers the truth, both of shape (epsilons, sizes, reps,
    targets); ``summary[key]`` reduces them over the repetitions to arrays of
    shape (epsilons, sizes, targets).  ``original`` is the sample proportion
    itself (no sanitisation), shape (sizes, ...).  ``diagnostics`` gives the
    frequency of the events the paper's procedures leave open (footnote 3
    firing, a zero sum to re-scale, p1 outside [0, 1]), shape (epsilons, sizes).
    """

    design: Study2Design
    errors: dict[tuple[str, str], Floats] = field(default_factory=dict)
    covered: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    summary: dict[tuple[str, str], summaries.ErrorSummary] = field(default_factory=dict)
    original_errors: Floats | None = None
    original_covered: np.ndarray | None = None
    original: summaries.ErrorSummary | None = None
    diagnostics: dict[str, Floats] = field(default_factory=dict)


def _rescale(q: Floats) -> tuple[Floats, Floats]:
    """q / sum(q) on the last axis; an all-zero release (possible under BIT) becomes uniform."""
    total = q.sum(axis=-1, keepdims=True)
    zero = total <= 0
    k = q.shape[-1]
    return np.where(zero, 1.0 / k, q / np.where(zero, 1.0, total)), zero[..., 0]


def _single(estimate: Floats, n: Floats) -> tuple[Floats, Floats, Floats]:
    """Targets of one release per repetition, with Wald intervals (reps on axis -2)."""
    est = targets(estimate)
    lo, hi = summaries.wald(est, n[..., None])
    return est, lo, hi


def _record(
    est: Floats, lo: Floats, hi: Floats, truth: Floats
) -> tuple[Floats, np.ndarray, summaries.ErrorSummary]:
    """Errors, coverage and their summary over the repetitions, for arrays (..., reps, targets)."""
    move = [np.moveaxis(a, -2, -1) for a in (est, lo, hi)]
    summary = summaries.errors(move[0], truth, move[1], move[2])
    return est - truth, (lo <= truth) & (truth <= hi), summary


def run_study2(
    design: Study2Design | None = None, progress: Callable[[int], None] | None = None
) -> Study2Result:
    """Run study 2: every approach, mechanism, epsilon, size and repetition (§4.2)."""
    d = design or Study2Design()
    rng = np.random.default_rng(d.seed)
    p = np.array(d.p)
    n_sizes = np.array(d.sizes)
    counts = rng.multinomial(n_sizes[:, None], p, size=(len(d.sizes), d.reps))
    n = n_sizes[:, None, None].astype(float)  # (N, 1, 1)
    phat = counts / n  # (N, R, K)
    truth = d.truth
    result = Study2Result(d)
    result.original_errors, result.original_covered, result.original = _record(
        *_single(phat, n[..., 0]), truth
    )
    eps = np.array(d.epsilons)[:, None, None, None]  # (E, 1, 1, 1)
    n_e = n[None]  # (1, N, 1, 1)
    shape = (len(d.epsilons), *phat.shape)
    for mechanism in MECHANISMS:
        draws = {
            "rescaling": lambda m=mechanism: _rescaling(rng, m, phat, n_e, eps, shape, result),
            "all_but_one": lambda m=mechanism: _all_but_one(rng, m, phat, n_e, eps, shape, result),
            "uh": lambda m=mechanism: _uh(rng, m, phat, n_e, eps, shape, result),
            "ms": lambda m=mechanism: _ms(rng, m, phat, n_e, eps, shape, d.sets, result),
        }
        for approach in APPROACHES:
            key = (approach, mechanism)
            result.errors[key], result.covered[key], result.summary[key] = _record(
                *draws[approach](), truth
            )
            if progress:
                progress(1)
    return result


def _rescaling(rng, mechanism, phat, n, eps, shape, result):  # type: ignore[no-untyped-def]
    q = sanitise(rng, mechanism, np.broadcast_to(phat, shape), 0.0, 1.0, 1 / (n * eps))
    pstar, zero = _rescale(q)
    result.diagnostics[f"rescaling/{mechanism}: all-zero release"] = zero.mean(axis=-1)
    return _single(pstar, n[..., 0])


def _all_but_one(rng, mechanism, phat, n, eps, shape, result):  # type: ignore[no-untyped-def]
    q = sanitise(
        rng, mechanism, np.broadcast_to(phat[..., 1:], (*shape[:-1], 3)), 0.0, 1.0, 1 / (n * eps)
    )
    pstar = np.concatenate([1 - q.sum(axis=-1, keepdims=True), q], axis=-1)
    outside = (pstar[..., 0] < 0) | (pstar[..., 0] > 1)
    result.diagnostics[f"all_but_one/{mechanism}: p1 outside [0, 1]"] = outside.mean(axis=-1)
    return _single(pstar, n[..., 0])


def _uh(rng, mechanism, phat, n, eps, shape, result):  # type: ignore[no-untyped-def]
    nodes = np.stack(uh.tree(phat), axis=-1)  # (N, R, 6)
    full = np.broadcast_to(nodes, (*shape[:-1], 6))
    sanitised = sanitise(rng, mechanism, full, 0.0, 1.0, 2 / (n * eps))
    parts = [sanitised[..., i] for i in range(6)]
    released = uh.release(parts)
    unclipped = uh.correct(parts)
    fired = np.any(np.stack(unclipped, axis=-1) < 0, axis=-1)
    result.diagnostics[f"uh/{mechanism}: footnote 3 fired"] = fired.mean(axis=-1)
    return _single(uh.leaves_to_p(released), n[..., 0])


def _ms(rng, mechanism, phat, n, eps, shape, sets, result):  # type: ignore[no-untyped-def]
    full = np.broadcast_to(phat[..., None, :], (*shape[:-1], sets, shape[-1]))
    q = sanitise(rng, mechanism, full, 0.0, 1.0, sets / (n[..., None] * eps[..., None]))
    pstar, zero = _rescale(q)  # (E, N, R, sets, K)
    result.diagnostics[f"ms/{mechanism}: all-zero release"] = zero.mean(axis=(-1, -2))
    est = np.moveaxis(targets(pstar), -2, -1)  # (E, N, R, targets, sets)
    within = np.clip(est * (1 - est), 0.0, None) / n[..., None]
    return combining.combine(est, within)
