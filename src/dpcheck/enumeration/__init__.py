"""Layer 5, enumeration: exact discrete and finite computations (integers, rationals).

:mod:`dpcheck.enumeration.sensitivity` — exact l1 global sensitivity of the
statistics of Liu's supplement (mean, proportion(s), histogram, variance, sd,
covariance, pooled variance and covariance) for small n, by exact KKT and
vertex enumeration over symmetry-reduced configurations.
"""

from __future__ import annotations

from dpcheck.enumeration.sensitivity import (
    NEIGHBOURS,
    PRINTED,
    STATISTICS,
    SensitivityResult,
    exact_sensitivity,
)

__all__ = ["NEIGHBOURS", "PRINTED", "STATISTICS", "SensitivityResult", "exact_sensitivity"]
