"""The study runs the claims judge: the paper's size and an independent confirmation run, cached.

The paper-size run (``PAPER_REPS`` = 500 repetitions, §4) gives the reproduced
numbers; the confirmation run (``CONFIRM_REPS``, 20-100 times larger, an independent seed) checks
every contradiction they show (:mod:`dpcheck.claims.empirical`).
"""

from __future__ import annotations

from functools import lru_cache

from dpcheck.simulation.covariance import Study1Design, Study1Result, run_study1
from dpcheck.simulation.proportions import Study2Design, Study2Result, run_study2

PAPER_REPS = 500
#: confirmation sizes: study 1 costs little, so its run is 100x the paper's; study 2's 20x
CONFIRM_REPS = {1: 100 * PAPER_REPS, 2: 20 * PAPER_REPS}
#: added to the default seeds for the confirmation run
CONFIRM_SEED_OFFSET = 1_000_003


@lru_cache(maxsize=4)
def study1(reps: int = PAPER_REPS, seed: int | None = None) -> Study1Result:
    design = Study1Design(reps=reps) if seed is None else Study1Design(reps=reps, seed=seed)
    return run_study1(design)


@lru_cache(maxsize=4)
def study2(reps: int = PAPER_REPS, seed: int | None = None) -> Study2Result:
    design = Study2Design(reps=reps) if seed is None else Study2Design(reps=reps, seed=seed)
    return run_study2(design)


def confirmation1() -> Study1Result:
    return study1(CONFIRM_REPS[1], Study1Design().seed + CONFIRM_SEED_OFFSET)


def confirmation2() -> Study2Result:
    return study2(CONFIRM_REPS[2], Study2Design().seed + CONFIRM_SEED_OFFSET)
