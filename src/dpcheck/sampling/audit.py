"""Empirical privacy audit of the bounded Laplace mechanisms (Liu 2019, Definition 2, §3.1).

ε-DP requires P_s(E) <= e^ε P_s'(E) for neighbouring inputs s, s' and every
output event E.  The audit follows DP-Sniper (Bichsel et al., "DP-Sniper:
Black-Box Discovery of Differential Privacy Violations using Classifiers",
IEEE S&P 2021) and Delta-Siege (Lokna et al., "Group and Attack: Auditing
Differential Privacy", CCS 2023): draw n outputs of M(s) and n of M(s'),
count those in E (k and k'), and bound the two probabilities with exact
Clopper–Pearson bounds at level alpha/2 each (:mod:`.clopper_pearson`):

    p_lo <= P_s(E)  and  p'_hi >= P_s'(E)  jointly with probability >= 1 - alpha,

so log(p_lo / p'_hi) is a (1 - alpha) lower confidence bound on
log P_s(E)/P_s'(E), which is at most the privacy loss.  If it exceeds ε the
mechanism is not ε-DP, and a mechanism whose event ratio is <= e^ε raises
such an alarm with probability <= alpha (union bound).

Unlike DP-Sniper, which must learn the attack event from samples, dpcheck
knows the exact law: :func:`dpcheck.numeric.privacy.attained` names the
neighbours and the worst output y (c0 or c1), and :func:`choose_event` picks
the event among [c0, c0 + w] (mirrored [c1 - w, c1]; w = 0, the point mass,
for BIT) with the exact float64 law (:mod:`dpcheck.numeric.fast`).  The exact
probabilities only *choose* the event, before any draw; they never enter the
estimate, so the confidence statement holds whatever event is chosen.  The
draws come from :mod:`dpcheck.sampling.samplers` (Definition 2(a) by exact
inversion, 2(b) by clamping).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import mpmath
import numpy as np
from numpy.typing import ArrayLike

from dpcheck.errors import InputError
from dpcheck.numeric import fast, names
from dpcheck.numeric.arrays import Floats
from dpcheck.numeric.names import check_mechanism
from dpcheck.numeric.params import parse_count, parse_number, parse_real, short
from dpcheck.numeric.privacy import Setting, attained, privacy_loss
from dpcheck.sampling import clopper_pearson, samplers

MECHANISMS = names.MECHANISMS
#: widths w of the event family: GRID_POINTS log-spaced values from GRID_LOW·R to R
GRID_POINTS = 121
GRID_LOW = 1e-6
#: draws per block (per side): memory stays bounded whatever ``samples`` is
BLOCK = 1 << 20
#: an exact log ratio within this relative tolerance of ε counts as <= ε (float64 law)
RATIO_TOL = 1e-12
_NEEDED_CAP = 1e300

Progress = Callable[[int, int], None]


# ---------------------------------------------------------------- validation


def as_confidence(value: object) -> float:
    """A confidence level strictly between 0 and 1 (float or string)."""
    return parse_real("confidence", value, lambda c: 0.0 < c < 1.0, "strictly between 0 and 1")


def _epsilon(value: object) -> float:
    finite = "a finite number >= 0"
    return parse_real("epsilon", value, lambda e: math.isfinite(e) and e >= 0, finite)


def _exact(name: str, value: object) -> Fraction:
    """A Fraction from a number, string or mpf (mpf through its decimal string)."""
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise InputError(f"{name}={value} is not a finite number")
        return parse_number(name, str(value))
    if isinstance(value, np.floating):
        value = float(value)
    return parse_number(name, value)  # type: ignore[arg-type]


def _event(event: object) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in event)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise InputError(f"event={event!r} is not a pair (lo, hi) of numbers") from None
    if math.isnan(lo) or math.isnan(hi) or not lo <= hi:
        raise InputError(f"event={event!r} must be a closed interval (lo, hi) with lo <= hi")
    return lo, hi


def _draws(name: str, draws: ArrayLike) -> Floats:
    try:
        x = np.asarray(draws, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise InputError(f"{name} is not an array of numbers") from None
    if x.size == 0:
        raise InputError(f"{name} is empty")
    if np.isnan(x).any():
        raise InputError(f"{name} contains NaN")
    return x


# ---------------------------------------------------------------- the test


@dataclass(frozen=True)
class DrawsAudit:
    """The confidence bound from counts in one event: everything :func:`audit_draws` found."""

    event: tuple[float, float]
    epsilon: float
    confidence: float
    samples: int
    samples_prime: int
    count: int
    count_prime: int
    p_lower: float
    p_prime_upper: float
    bound: float
    exceeds: bool

    @property
    def alpha(self) -> float:
        """1 - confidence: the false-alarm probability allowed in total (alpha/2 per side)."""
        return 1.0 - self.confidence

    def to_dict(self) -> dict[str, object]:
        """JSON-ready (non-finite floats as the strings 'inf', '-inf')."""
        return {
            "event": [_json_float(self.event[0]), _json_float(self.event[1])],
            "epsilon": self.epsilon,
            "confidence": self.confidence,
            "samples": self.samples,
            "samples_prime": self.samples_prime,
            "count": self.count,
            "count_prime": self.count_prime,
            "p_lower": self.p_lower,
            "p_prime_upper": self.p_prime_upper,
            "loss_lower_bound": _json_float(self.bound),
            "exceeds": self.exceeds,
        }


def count_in(draws: Floats, lo: float, hi: float) -> int:
    """How many draws lie in the closed interval [lo, hi] (lo == hi: an atom)."""
    return int(np.count_nonzero((draws >= lo) & (draws <= hi)))


def audit_counts(
    count: int,
    samples: int,
    count_prime: int,
    samples_prime: int,
    event: tuple[float, float],
    epsilon: float,
    confidence: float = 0.95,
) -> DrawsAudit:
    """The audit from counts: k of n draws of M(s) and k' of n' draws of M(s') fell in E.

    p_lo = Clopper–Pearson lower bound of P_s(E) at alpha/2, p'_hi = upper bound
    of P_s'(E) at alpha/2; bound = log(p_lo/p'_hi) (-inf when k = 0);
    exceeds = bound > ε.  If log P_s(E)/P_s'(E) <= ε, P(exceeds) <= alpha.
    """
    n = parse_count("samples", samples, 1)
    n_prime = parse_count("samples_prime", samples_prime, 1)
    k = parse_count("count", count, 0)
    k_prime = parse_count("count_prime", count_prime, 0)
    if k > n or k_prime > n_prime:
        raise InputError(f"counts ({k}, {k_prime}) exceed the samples ({n}, {n_prime})")
    eps, level, span = _epsilon(epsilon), as_confidence(confidence), _event(event)
    half = (1.0 - level) / 2.0
    p_lo = clopper_pearson.lower(k, n, half)
    p_hi = clopper_pearson.upper(k_prime, n_prime, half)
    bound = math.log(p_lo) - math.log(p_hi) if p_lo > 0.0 else -math.inf
    return DrawsAudit(span, eps, level, n, n_prime, k, k_prime, p_lo, p_hi, bound, bound > eps)


def audit_draws(
    draws: ArrayLike,
    draws_prime: ArrayLike,
    event: tuple[float, float],
    epsilon: float,
    confidence: float = 0.95,
) -> DrawsAudit:
    """Audit any sampler: draws of M(s), draws of M(s'), a closed event (lo, hi), ε.

    The lower confidence bound log(p_lo/p'_hi) on log P_s(E)/P_s'(E) (see
    :func:`audit_counts`; DP-Sniper, Bichsel et al. 2021).  The event must be
    fixed before the draws are seen, or the guarantee is lost.
    """
    span = _event(event)
    x, x_prime = _draws("draws", draws), _draws("draws_prime", draws_prime)
    k, k_prime = count_in(x, *span), count_in(x_prime, *span)
    return audit_counts(k, x.size, k_prime, x_prime.size, span, epsilon, confidence)


# ---------------------------------------------------------------- the event


@dataclass(frozen=True)
class Event:
    """An event [lo, hi] of the family, with its exact float64 probabilities (for choice only)."""

    lo: float
    hi: float
    side: str
    width: float
    probability: float
    probability_prime: float
    log_ratio: float
    expected_bound: float

    @property
    def is_atom(self) -> bool:
        return self.lo == self.hi

    def describe(self) -> str:
        if self.is_atom:
            return f"{{{self.lo:.12g}}} (the point mass at {self.side})"
        return f"[{self.lo:.12g}, {self.hi:.12g}]"

    def to_dict(self) -> dict[str, object]:
        return {
            "lo": self.lo,
            "hi": self.hi,
            "side": self.side,
            "width": self.width,
            "kind": "point mass" if self.is_atom else "interval",
            "description": self.describe(),
        }


@dataclass(frozen=True)
class _Family:
    """The events [c0, c0 + w] (side 'c0') or [c1 - w, c1] (side 'c1') and their exact laws."""

    side: str
    c0: Fraction
    c1: Fraction
    widths: Floats
    p: Floats
    q: Floats

    def log_ratios(self) -> Floats:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.log(self.p) - np.log(self.q)
        return np.where(self.p > 0.0, out, -np.inf)

    def expected_bounds(self, samples: float, confidence: float) -> Floats:
        """The lower bound expected at this sample size (Wilson score approximation of CP)."""
        z = _normal_quantile(1.0 - (1.0 - confidence) / 2.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.log(_wilson_lower(self.p, samples, z))
            out -= np.log(_wilson_upper(self.q, samples, z))
        return np.where(self.p > 0.0, out, -np.inf)

    def event(self, i: int, samples: float, confidence: float) -> Event:
        w = float(self.widths[i])
        if self.side == "c0":
            lo, hi = float(self.c0), float(self.c0 + Fraction(w))
        else:
            lo, hi = float(self.c1 - Fraction(w)), float(self.c1)
        bound = float(self.expected_bounds(samples, confidence)[i])
        ratio = float(self.log_ratios()[i])
        return Event(lo, hi, self.side, w, float(self.p[i]), float(self.q[i]), ratio, bound)


def _normal_quantile(q: float) -> float:
    return float(mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(q) - 1))


def _wilson_lower(p: Floats, n: float, z: float) -> Floats:
    """Wilson's lower score bound at p̂ = p, written without cancellation: p²/(p + c + zS)."""
    c = z * z / (2.0 * n)
    root = np.sqrt(p * (1.0 - p) / n + c * c / (z * z))
    return p * p / (p + c + z * root)


def _wilson_upper(q: Floats, n: float, z: float) -> Floats:
    c = z * z / (2.0 * n)
    root = np.sqrt(q * (1.0 - q) / n + c * c / (z * z))
    return np.minimum((q + c + z * root) / (1.0 + 2.0 * c), 1.0)


def _family(
    mechanism: str, s: Fraction, s_prime: Fraction, c0: Fraction, c1: Fraction, lam: float, y: str
) -> _Family:
    """Exact float64 probabilities of the family, in coordinates shifted to [0, R].

    Both laws are symmetric about the midpoint, so [c1 - w, c1] under s has the
    probability of [c0, c0 + w] under c0 + c1 - s; working with the offsets
    s - c0 (or c1 - s), computed exactly, keeps full relative accuracy.
    """
    width = float(c1 - c0)
    grid = width * np.logspace(math.log10(GRID_LOW), 0.0, GRID_POINTS)
    widths = np.concatenate(([0.0], grid)) if mechanism == "bit" else grid

    def offset(v: Fraction) -> float:
        return float(v - c0) if y == "c0" else float(c1 - v)

    p = fast.cdf(mechanism, widths, offset(s), 0.0, width, lam)
    q = fast.cdf(mechanism, widths, offset(s_prime), 0.0, width, lam)
    return _Family(y, c0, c1, widths, np.asarray(p), np.asarray(q))


def _inputs(
    mechanism: object, *values: object
) -> tuple[str, Fraction, Fraction, Fraction, Fraction, float, str]:
    """Validated (mechanism, s, s', c0, c1, λ, side) from (s, s', lower, upper, scale, y)."""
    mech = check_mechanism(mechanism)
    names = ("s", "s_prime", "lower", "upper", "scale", "y")
    s_, sp_, c0, c1, lam, y_ = (_exact(n, v) for n, v in zip(names, values, strict=True))
    if not c0 < c1:
        raise InputError(f"lower={c0} must be smaller than upper={c1}")
    if not lam > 0:
        raise InputError(f"scale={lam} must be positive")
    for name, v in (("s", s_), ("s_prime", sp_)):
        if not c0 <= v <= c1:
            raise InputError(f"{name}={v} is outside [lower, upper] = [{c0}, {c1}]")
    if y_ not in (c0, c1):
        raise InputError(f"y={y_} must be a bound (lower={c0} or upper={c1}): the worst output")
    return mech, s_, sp_, c0, c1, float(lam), "c0" if y_ == c0 else "c1"


def choose_event(
    mechanism: str,
    s: object,
    s_prime: object,
    lower: object,
    upper: object,
    scale: object,
    samples: int,
    confidence: float,
    y: object,
) -> Event:
    """The event with the largest expected lower bound at this sample size.

    Family: [c0, c0 + w] when the worst output y is c0 (mirrored [c1 - w, c1]
    when y = c1), w on a log grid from 1e-6 R to R, plus w = 0 (the point mass
    at c0) for BIT (Liu 2019, Definition 2, eqs (4)-(5)).  The exact float64
    probabilities (:func:`dpcheck.numeric.fast.cdf`, point masses included)
    only choose the event, before any draw; they are never used in the
    estimate.  The expected bound is the Wilson (normal) approximation of the
    Clopper–Pearson bounds at the exact probabilities.
    """
    mech, s_, sp_, c0, c1, lam, side = _inputs(mechanism, s, s_prime, lower, upper, scale, y)
    n = parse_count("samples", samples, 1)
    level = as_confidence(confidence)
    family = _family(mech, s_, sp_, c0, c1, lam, side)
    best = int(np.argmax(family.expected_bounds(n, level)))
    return family.event(best, n, level)


def _samples_needed(family: _Family, epsilon: float, confidence: float) -> int | None:
    """Smallest n per side whose best expected bound over the family exceeds ε (None: never).

    The expected bounds rise with n toward the exact log ratios, so the search
    doubles n until it is enough and then bisects (exactly below 2^53, to 1e-12
    relative above: an event of probability e^-100 needs about 10^44 draws).
    """
    if not family.log_ratios().max() > epsilon + RATIO_TOL * max(1.0, epsilon):
        return None

    def enough(n: float) -> bool:
        return bool(family.expected_bounds(n, confidence).max() > epsilon)

    hi = 1.0
    while not enough(hi):
        if hi > _NEEDED_CAP:
            return None
        hi *= 2.0
    lo = hi / 2.0  # not enough (or below 1)
    while hi - lo > max(1.0, 1e-12 * hi):
        mid = math.floor((lo + hi) / 2.0)
        if enough(mid):
            hi = mid
        else:
            lo = mid
    return math.ceil(hi)


# ---------------------------------------------------------------- the plan and the audit


@dataclass(frozen=True)
class Plan:
    """Everything fixed before the draws: neighbours, event, and exact context."""

    mechanism: str
    setting: Setting
    scale: Fraction
    scale_source: str
    s: Fraction
    s_prime: Fraction
    y: Fraction
    samples: int
    confidence: float
    event: Event
    exact_loss: float
    samples_needed: int | None


def plan(
    mechanism: str,
    setting: Setting,
    scale: object = None,
    samples: object = 10**6,
    confidence: object = 0.95,
) -> Plan:
    """What :func:`audit` will do, from the exact analysis alone (no draws).

    Scale: λ = Δ/ε of Liu (2019) Definition 2 unless given.  Neighbours and
    worst output: the first place of :func:`dpcheck.numeric.privacy.attained`.
    Event: :func:`choose_event`.  ``samples_needed``: the sample size per side
    at which the expected lower bound exceeds ε (None when no event of the
    family has an exact log ratio above ε).
    """
    mech = check_mechanism(mechanism)
    if not isinstance(setting, Setting):
        raise InputError(f"setting={setting!r} is not a dpcheck.numeric.privacy.Setting")
    lam = None if scale is None else _exact("scale", scale)
    if lam is not None and not lam > 0:
        raise InputError(f"scale={lam} must be positive")
    n = parse_count("samples", samples, 1)
    float_domain(setting, setting.naive_scale if lam is None else lam)
    return _plan(mech, setting, lam, n, as_confidence(confidence))


#: The audit draws float64 samples: its numbers must be float64 numbers, and the
#: bounds resolvable at their offset from 0.
FLOAT_MAGNITUDES = (Fraction(1, 10**300), Fraction(10**300))
MAX_OFFSET = 10**12


def float_domain(setting: Setting, lam: Fraction) -> None:
    """Refuse (one line) a setting the float64 sampler cannot represent faithfully."""
    lo_mag, hi_mag = FLOAT_MAGNITUDES
    width = setting.upper - setting.lower
    values = {
        "epsilon": setting.epsilon,
        "sensitivity": setting.sensitivity,
        "lower": setting.lower,
        "upper": setting.upper,
        "scale": lam,
        "upper - lower": width,
        "(upper - lower)/scale": width / lam,
        "sensitivity/scale": setting.sensitivity / lam,
    }
    for name, v in values.items():
        if v != 0 and not lo_mag <= abs(v) <= hi_mag:
            raise InputError(
                f"audit draws float64 samples: {name} = {short(v)} is outside the ceiling of"
                " magnitudes 1e-300 .. 1e300"
            )
    if max(abs(setting.lower), abs(setting.upper)) > MAX_OFFSET * width:
        raise InputError(
            f"audit draws float64 samples: the bounds [{short(setting.lower)},"
            f" {short(setting.upper)}] are more than {MAX_OFFSET:.0e} times their width from 0"
        )


@lru_cache(maxsize=256)
def _plan(
    mechanism: str, setting: Setting, scale: Fraction | None, samples: int, confidence: float
) -> Plan:
    lam = setting.naive_scale if scale is None else scale
    source = "naive delta1/epsilon (Definition 2)" if scale is None else "given"
    where = attained(mechanism, setting)[0]
    s, s_prime, y = (parse_number(k, where[k]) for k in ("s", "s'", "y"))
    c0, c1 = setting.lower, setting.upper
    side = "c0" if y == c0 else "c1"
    family = _family(mechanism, s, s_prime, c0, c1, float(lam), side)
    best = int(np.argmax(family.expected_bounds(samples, confidence)))
    event = family.event(best, samples, confidence)
    loss = float(privacy_loss(mechanism, setting.sensitivity, c0, c1, lam))
    needed = _samples_needed(family, float(setting.epsilon), confidence)
    return Plan(
        mechanism, setting, lam, source, s, s_prime, y, samples, confidence, event, loss, needed
    )


@dataclass(frozen=True)
class AuditResult:
    """An audit: its plan (fixed before sampling), the seed, and the test on the draws."""

    plan: Plan
    seed: int
    test: DrawsAudit

    @property
    def bound(self) -> float:
        """The lower confidence bound on the privacy loss."""
        return self.test.bound

    @property
    def exceeds(self) -> bool:
        return self.test.exceeds

    @property
    def samples_needed(self) -> int | None:
        return self.plan.samples_needed

    def to_dict(self) -> dict[str, object]:
        """Every number, JSON-ready (exact inputs as strings, non-finite floats as strings)."""
        p, t, st = self.plan, self.test, self.plan.setting
        return {
            "mechanism": p.mechanism,
            "epsilon": str(st.epsilon),
            "sensitivity": str(st.sensitivity),
            "lower": str(st.lower),
            "upper": str(st.upper),
            "scale": _show(p.scale),
            "scale_source": p.scale_source,
            "s": _show(p.s),
            "s_prime": _show(p.s_prime),
            "event": p.event.to_dict(),
            "samples": t.samples,
            "seed": self.seed,
            "confidence": t.confidence,
            "count": t.count,
            "count_prime": t.count_prime,
            "p_lower": t.p_lower,
            "p_prime_upper": t.p_prime_upper,
            "loss_lower_bound": _json_float(t.bound),
            "exceeds": t.exceeds,
            "exact_event_probability": p.event.probability,
            "exact_event_probability_prime": p.event.probability_prime,
            "exact_event_log_ratio": _json_float(p.event.log_ratio),
            "exact_worst_case_loss": p.exact_loss,
            "samples_needed": p.samples_needed,
        }


def _draw_counts(p: Plan, seed: int, progress: Progress | None) -> tuple[int, int]:
    """Counts in the event of n draws of M(s) and of M(s'): two independent streams."""
    streams = [np.random.default_rng(q) for q in np.random.SeedSequence(seed).spawn(2)]
    sampler = samplers.truncated if p.mechanism == "truncated" else samplers.bit
    c0, c1, lam = float(p.setting.lower), float(p.setting.upper), float(p.scale)
    inputs = (float(p.s), float(p.s_prime))
    counts = [0, 0]
    done = 0
    while done < p.samples:
        size = min(BLOCK, p.samples - done)
        for i, (gen, s) in enumerate(zip(streams, inputs, strict=True)):
            counts[i] += count_in(sampler(gen, s, c0, c1, lam, size), p.event.lo, p.event.hi)
        done += size
        if progress is not None:
            progress(done, p.samples)
    return counts[0], counts[1]


def audit(
    mechanism: str,
    setting: Setting,
    scale: object = None,
    samples: object = 10**6,
    seed: object = 0,
    confidence: object = 0.95,
    progress: Progress | None = None,
) -> AuditResult:
    """Audit the ε-DP claim of Liu (2019) Definition 2 empirically.

    Plan (:func:`plan`) from the exact analysis, then ``samples`` draws of the
    mechanism at s and at s' (two independent streams spawned from ``seed``),
    then the Clopper–Pearson test of :func:`audit_counts`.  ``exceeds`` means
    a violation is detected at the given confidence.  ``progress(done, total)``
    is called after each block of draws.
    """
    mech = check_mechanism(mechanism)
    n = parse_count("samples", samples, 1)
    seed_ = parse_count("seed", seed, 0)
    level = as_confidence(confidence)
    p = plan(mech, setting, scale, n, level)
    k, k_prime = _draw_counts(p, seed_, progress)
    span = (p.event.lo, p.event.hi)
    test = audit_counts(k, n, k_prime, n, span, float(setting.epsilon), level)
    return AuditResult(p, seed_, test)


def _show(value: Fraction) -> str:
    """Exact for short fractions, else 15 significant digits."""
    if value.denominator <= 10**6:
        return str(value)
    return f"{float(value):.15g}"


def _json_float(value: float) -> float | str:
    return value if math.isfinite(value) else str(value)


__all__ = [
    "AuditResult",
    "DrawsAudit",
    "Event",
    "MECHANISMS",
    "Plan",
    "as_confidence",
    "audit",
    "audit_counts",
    "audit_draws",
    "choose_event",
    "count_in",
    "plan",
]
