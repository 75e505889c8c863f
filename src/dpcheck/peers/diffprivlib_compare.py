"""``dpcheck compare diffprivlib``: a facade over :mod:`dpcheck.peers.diffprivlib`.

The cross-check of diffprivlib 0.6.6's bounded Laplace mechanisms
(``LaplaceTruncated``, ``LaplaceFolded``, ``LaplaceBoundedDomain``) against
dpcheck's exact values (Liu 2019 Definition 2; Holohan et al. 2018 for the
calibrated scale) lives in the package :mod:`dpcheck.peers.diffprivlib`, one
module a job; its docstring describes the method.  This module keeps the old
import path: it re-exports what the CLI (:func:`add_arguments`, :func:`run`)
and the tests use, and the rest of the public names (``__all__`` as before).
"""

from __future__ import annotations

from dpcheck.peers.diffprivlib.command import (  # noqa: F401
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    add_arguments,
    compare,
    point_from_args,
    run,
)
from dpcheck.peers.diffprivlib.exact import (  # noqa: F401
    AGREE,
    DPS,
    FLOOR,
    ExactLaw,
    exact_quantity,
    exact_scale,
    fold,
    relative_error,
    sampled_law,
)
from dpcheck.peers.diffprivlib.law_test import (
    ALPHA,
    binomial_p_value,
    dkw_threshold,
    ks_distance,
    law_rows,
)
from dpcheck.peers.diffprivlib.library import _make  # noqa: F401
from dpcheck.peers.diffprivlib.moments import library_formula, moment_row  # noqa: F401
from dpcheck.peers.diffprivlib.points import (  # noqa: F401
    APPLIES,
    LAW_POINTS,
    MECHANISMS,
    QUANTITIES,
    Point,
    grid,
    law_points,
)
from dpcheck.peers.diffprivlib.report import Summary, rank, shown, summarise
from dpcheck.peers.diffprivlib.rows import Row, _fmt  # noqa: F401
from dpcheck.peers.diffprivlib.scales import effective_epsilon_row, scale_row  # noqa: F401

__all__ = [
    "ALPHA",
    "MECHANISMS",
    "QUANTITIES",
    "ExactLaw",
    "Point",
    "Row",
    "Summary",
    "add_arguments",
    "binomial_p_value",
    "compare",
    "dkw_threshold",
    "exact_quantity",
    "exact_scale",
    "fold",
    "grid",
    "ks_distance",
    "law_points",
    "law_rows",
    "rank",
    "relative_error",
    "run",
    "sampled_law",
    "shown",
    "summarise",
]
