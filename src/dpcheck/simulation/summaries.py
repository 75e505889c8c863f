"""Monte Carlo summaries with their standard errors (Liu 2019 §4.1 Figure 1, §4.2 Figures 2-5).

All functions reduce the *last* axis (the repetitions).  Standard errors are
the usual Monte Carlo ones: sd/sqrt(R) for a mean; the delta method for the
RMSE, SE(RMSE) = SE(MSE)/(2 RMSE); sqrt(CP(1 - CP)/R) for a coverage
probability (the verdicts use exact Clopper-Pearson bounds instead).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from dpcheck.numeric.arrays import Floats

#: the percentiles of Figure 1: "(2.5%, 25%, 75% and 97.5%)"
PERCENTILES = (2.5, 25.0, 75.0, 97.5)


@dataclass(frozen=True)
class ErrorSummary:
    """Bias, RMSE and coverage of an estimator of ``truth`` (§4.2), each with its MC SE."""

    bias: Floats
    bias_se: Floats
    rmse: Floats
    rmse_se: Floats
    cp: Floats
    cp_se: Floats
    covered: Floats  # number of repetitions whose interval covers the truth
    reps: int


def errors(estimate: Floats, truth: Floats | float, lower: Floats, upper: Floats) -> ErrorSummary:
    """Bias, RMSE and coverage of [lower, upper] for ``truth``, over the last axis."""
    err = estimate - np.asarray(truth)[..., None]
    reps = err.shape[-1]
    bias = err.mean(axis=-1)
    bias_se = err.std(axis=-1, ddof=1) / np.sqrt(reps)
    sq = err**2
    mse = sq.mean(axis=-1)
    rmse = np.sqrt(mse)
    mse_se = sq.std(axis=-1, ddof=1) / np.sqrt(reps)
    with np.errstate(divide="ignore", invalid="ignore"):
        rmse_se = np.where(rmse > 0, mse_se / (2 * rmse), 0.0)
    t = np.asarray(truth)[..., None]
    covered = ((lower <= t) & (t <= upper)).sum(axis=-1).astype(float)
    cp = covered / reps
    cp_se = np.sqrt(cp * (1 - cp) / reps)
    return ErrorSummary(bias, bias_se, rmse, rmse_se, cp, cp_se, covered, reps)


@dataclass(frozen=True)
class SpreadSummary:
    """Mean (with MC SE) and the Figure 1 percentiles of defined values over the last axis."""

    mean: Floats
    mean_se: Floats
    percentiles: Floats  # (..., 4) for PERCENTILES
    defined: Floats  # number of repetitions with a defined value


def spread(values: Floats) -> SpreadSummary:
    """Mean and percentiles of the non-NaN values (r* is undefined when S11* S22* = 0)."""
    defined = np.isfinite(values).sum(axis=-1).astype(float)
    # cells where fewer than 2 values are defined are NaN by design: no warnings for them
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(values, axis=-1)
        sd = np.nanstd(values, axis=-1, ddof=1)
        mean_se = sd / np.sqrt(defined)
        pct = np.moveaxis(np.nanpercentile(values, PERCENTILES, axis=-1), 0, -1)
    return SpreadSummary(mean, mean_se, pct, defined)


def wald(
    estimate: Floats, n: Floats | float, z: float = 1.959963984540054
) -> tuple[Floats, Floats]:
    """The 95% Wald interval estimate ± z sqrt(estimate (1 - estimate)/n) for a proportion.

    §4.2 computes "the 95% confidence interval for the true p based on the
    sanitized p*": the sanitised proportion is used as if it were the sample
    proportion.  The variance is clamped at 0 for estimates outside [0, 1]
    (the all-but-one proportion can be negative).
    """
    var = np.clip(estimate * (1 - estimate), 0.0, None) / np.asarray(n)
    half = z * np.sqrt(var)
    return estimate - half, estimate + half
