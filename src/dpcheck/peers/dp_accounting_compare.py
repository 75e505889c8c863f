"""``dpcheck compare dp-accounting``: Google dp_accounting 0.6's privacy loss distributions
against dpcheck's exact privacy profiles, and the export of an exact PLD for composition
(issue 19, "Peers users compose with").

**The comparison** (:func:`rows`).  For each mechanism dp_accounting models:

* Laplace (``from_laplace_mechanism(parameter=λ, sensitivity=1)``) vs dpcheck's ``laplace``;
* Gaussian (``from_gaussian_mechanism(standard_deviation=σ, sensitivity=1)``) vs ``gaussian``;
* discrete Laplace (``from_discrete_laplace_mechanism(parameter=a)``, pmf ∝ e^{-a|x|} on the
  integers, privacy_loss_mechanism.DiscreteLaplacePrivacyLoss) vs dpcheck's two-sided
  ``geometric`` with α = e^{-1/b}, i.e. scale b = 1/a;
* randomized response (``from_randomized_response(noise_parameter=p, num_buckets=2)``): by its
  docstring, with probability 1 - p it outputs the input, otherwise a uniform bucket, so
  P(output = input) = 1 - p + p/k = 1 - p/2 for k = 2 (the keep probability q).  It is not
  in dpcheck's algebra; its exact profile is derived here from the two-point laws
  (:func:`rr_delta`, :func:`rr_epsilon`),

dp_accounting's ``get_delta_for_epsilon(ε)`` (pessimistic estimate, default discretisation
1e-4) is set against dpcheck's δ(ε) (:func:`dpcheck.numeric.profile.delta_for_epsilon`: an
attained lower value and a safe upper value), and ``get_epsilon_for_delta(1e-6)`` against
dpcheck's ε(δ) (:func:`dpcheck.numeric.profile.epsilon_for_delta`).  A pessimistic PLD must
never report less than the truth (Meiser and Mohammadi 2018; Doroshenko et al. 2022,
"Connect the dots", Theorem 3.1): a peer value below dpcheck's attained lower value by more
than :data:`RTOL` (relative) is a **FINDING: understates**; otherwise the row is **safe**.

**The export** (:func:`to_dp_accounting`).  dpcheck's exact privacy loss distribution of the
worst pair (0, Δ) of an unbounded mechanism, discretised pessimistically (every loss rounded
*up* to the grid, mass beyond the computed range put at +∞) and handed to dp_accounting as
a ``PrivacyLossDistribution``; since δ(ε) = E_P[(1 - e^{ε - L})_+] is non-decreasing in the
loss L (Observation 1 of dp_accounting's supplement), rounding up can only raise δ, for one
mechanism and for any composition (the composed loss is the sum of the losses).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from types import ModuleType
from typing import Any

import mpmath
import numpy as np

from dpcheck.errors import InputError
from dpcheck.peers import randomized_response

#: a peer value below the exact lower value by more than this (relative) is a finding
RTOL = Fraction(1, 10**12)
#: the default grid of epsilon
EPSILONS = (Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2))
#: the delta of the epsilon direction
DELTA = Fraction(1, 10**6)
#: mass of the Gaussian's far tail put at +∞ by :func:`to_dp_accounting`
GAUSSIAN_TAIL = 1e-18

_PIP = "dp-accounting is not installed: pip install 'dpcheck[peers]'"

#: (mechanism, dp_accounting parameter, dpcheck scale) of the comparison
CASES: tuple[tuple[str, Fraction, Fraction], ...] = (
    ("laplace", Fraction(1), Fraction(1)),
    ("laplace", Fraction(1, 2), Fraction(1, 2)),
    ("gaussian", Fraction(1), Fraction(1)),
    ("gaussian", Fraction(2), Fraction(2)),
    ("discrete-laplace", Fraction(1), Fraction(1)),
    ("discrete-laplace", Fraction(1, 2), Fraction(2)),
    ("randomized-response", Fraction(1, 2), Fraction(3, 4)),
    ("randomized-response", Fraction(1, 4), Fraction(7, 8)),
)

_FACTORY = {
    "laplace": "from_laplace_mechanism",
    "gaussian": "from_gaussian_mechanism",
    "discrete-laplace": "from_discrete_laplace_mechanism",
    "randomized-response": "from_randomized_response",
}
_DPCHECK = {"laplace": "laplace", "gaussian": "gaussian", "discrete-laplace": "geometric"}


def _library() -> ModuleType:
    """dp_accounting.pld.privacy_loss_distribution, or the one-line InputError."""
    try:
        from dp_accounting.pld import privacy_loss_distribution
    except ImportError:
        raise InputError(_PIP) from None
    return privacy_loss_distribution


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("dp-accounting")
    except Exception:  # pragma: no cover - metadata missing
        return "unknown"


# ---------------------------------------------------------------------------- RR, exact


def keep_probability(noise_parameter: Fraction, num_buckets: int = 2) -> Fraction:
    """P(output = input) of dp_accounting's randomized response: 1 - p + p/k."""
    return 1 - noise_parameter + noise_parameter / num_buckets


def rr_delta(keep: Fraction, eps: Fraction) -> mpmath.mpf:
    """δ(ε) of randomized response (:func:`dpcheck.peers.randomized_response.delta`)."""
    return randomized_response.delta(keep, eps)


def rr_epsilon(keep: Fraction, delta: Fraction) -> mpmath.mpf:
    """ε(δ) of randomized response (:func:`dpcheck.peers.randomized_response.epsilon`)."""
    return randomized_response.epsilon(keep, delta)


# ---------------------------------------------------------------------------- rows


@dataclass
class Row:
    """One comparison of dp_accounting with dpcheck's exact value."""

    mechanism: str
    parameters: str
    direction: str  # 'delta(eps)' or 'eps(delta)'
    at: str  # the epsilon or delta given
    peer: float
    exact_lower: str
    exact_upper: str
    gap: str  # peer - exact lower
    relative_gap: str  # (peer - exact lower) / exact lower
    verdict: str
    note: str
    reproduce: str

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["peer"] = repr(self.peer)
        return d


def verdict(peer: float, lower: mpmath.mpf) -> str:
    """'FINDING: understates' when the peer is below the attained exact value by more than
    :data:`RTOL` relative (and the exact value is positive), else 'safe'."""
    with mpmath.workdps(40):
        lo = mpmath.mpf(lower)
        if lo > 0 and mpmath.mpf(peer) < lo * (1 - mpmath.mpf(RTOL.numerator) / RTOL.denominator):
            return "FINDING: understates"
    return "safe"


def _gaps(peer: float, lower: mpmath.mpf) -> tuple[str, str]:
    with mpmath.workdps(40):
        g = mpmath.mpf(peer) - lower
        if lower > 0:
            rel = mpmath.nstr(g / lower, 3)
        elif lower == 0 and peer == 0:
            rel = "0"
        elif lower == mpmath.inf:
            rel = "-"
        else:
            rel = "inf"
        return (mpmath.nstr(g, 3) if mpmath.isfinite(g) else "-"), rel


def _dec(x: Fraction) -> str:
    """A Fraction as the shortest text float() reads back to the same double."""
    return repr(float(x)) if Fraction(float(x)) == x else f"{x.numerator}/{x.denominator}"


def _peer_pld(lib: ModuleType, mechanism: str, parameter: Fraction) -> Any:
    f = getattr(lib, _FACTORY[mechanism])
    if mechanism == "randomized-response":
        return f(float(parameter), 2)
    return f(float(parameter), sensitivity=1)


def _peer_call(mechanism: str, parameter: Fraction) -> str:
    extra = ", 2" if mechanism == "randomized-response" else ", sensitivity=1"
    return f"p.{_FACTORY[mechanism]}({_dec(parameter)}{extra})"


def _reproduce(
    mechanism: str, parameter: Fraction, scale: Fraction, direction: str, at: Fraction
) -> str:
    peer = _peer_call(mechanism, parameter)
    method = "get_delta_for_epsilon" if direction == "delta(eps)" else "get_epsilon_for_delta"
    head = (
        'python -c "from fractions import Fraction as F; '
        "from dp_accounting.pld import privacy_loss_distribution as p; "
    )
    if mechanism == "randomized-response":
        fn = "rr_delta" if direction == "delta(eps)" else "rr_epsilon"
        exact = (
            f"from dpcheck.peers import dp_accounting_compare as c; "
            f"print(c.{fn}(c.keep_probability(F('{parameter}')), F('{at}')))"
        )
    else:
        fn = "delta_for_epsilon" if direction == "delta(eps)" else "epsilon_for_delta"
        exact = (
            f"from dpcheck.numeric import profile as P; "
            f"print(P.{fn}(P.neighbours('{_DPCHECK[mechanism]}', 1, scale='{scale}'),"
            f" F('{at}')).as_dict())"
        )
    return f'{head}print(repr({peer}.{method}({float(at)!r}))); {exact}"'


def _label(mechanism: str, parameter: Fraction, scale: Fraction) -> str:
    if mechanism == "laplace":
        return f"parameter={parameter} (dpcheck laplace scale={scale}), sensitivity=1"
    if mechanism == "gaussian":
        return f"standard_deviation={parameter} (dpcheck gaussian scale={scale}), sensitivity=1"
    if mechanism == "discrete-laplace":
        return f"parameter a={parameter} (dpcheck geometric scale b=1/a={scale}), sensitivity=1"
    return f"noise_parameter={parameter}, num_buckets=2 (keep probability {scale})"


def _exact(mechanism: str, scale: Fraction, direction: str, at: Fraction):
    """(lower, upper, note) of dpcheck's exact value."""
    from dpcheck.numeric import profile as P

    if mechanism == "randomized-response":
        v = rr_delta(scale, at) if direction == "delta(eps)" else rr_epsilon(scale, at)
        return v, v, "exact (two-point laws, 4 events per direction)"
    nb = P.neighbours(_DPCHECK[mechanism], sensitivity=1, scale=scale)
    if direction == "delta(eps)":
        r = P.delta_for_epsilon(nb, at)
        return r.lower, r.upper, r.kind
    e = P.epsilon_for_delta(nb, at)
    return e.lower, e.upper, e.kind


def rows(
    epsilons: Sequence[Fraction] = EPSILONS,
    delta: Fraction | None = DELTA,
    cases: Iterable[tuple[str, Fraction, Fraction]] = CASES,
) -> list[Row]:
    """Every comparison row: δ(ε) at each ε, and ε(δ) at ``delta`` (None: skipped)."""

    lib = _library()
    out: list[Row] = []
    for mechanism, parameter, scale in cases:
        pld = _peer_pld(lib, mechanism, parameter)
        label = _label(mechanism, parameter, scale)
        todo: list[tuple[str, Fraction]] = [("delta(eps)", e) for e in epsilons]
        if delta is not None:
            todo.append(("eps(delta)", delta))
        for direction, at in todo:
            rep = _reproduce(mechanism, parameter, scale, direction, at)
            if direction == "delta(eps)":
                peer = float(pld.get_delta_for_epsilon(float(at)))
            else:
                peer = float(pld.get_epsilon_for_delta(float(at)))
            with mpmath.workdps(40):
                lower, upper, kind = _exact(mechanism, scale, direction, at)
                gap, rel = _gaps(peer, mpmath.mpf(lower))
                out.append(
                    Row(
                        mechanism,
                        label,
                        direction,
                        _dec(at),
                        peer,
                        _show(lower),
                        _show(upper),
                        gap,
                        rel,
                        verdict(peer, lower),
                        kind,
                        rep,
                    )
                )
    return out


def _show(x: mpmath.mpf) -> str:
    return "inf" if x == mpmath.inf else mpmath.nstr(x, 16, min_fixed=-30, max_fixed=30)


def summary(found: Sequence[Row]) -> dict[str, Any]:
    compared = [r for r in found if r.verdict != "skipped"]
    findings = [r for r in compared if r.verdict.startswith("FINDING")]
    rels = [float(r.relative_gap) for r in compared if r.relative_gap not in ("-", "inf")]
    return {
        "dp-accounting": _version(),
        "rows": len(found),
        "compared": len(compared),
        "findings": len(findings),
        "safe": sum(r.verdict == "safe" for r in compared),
        "skipped": len(found) - len(compared),
        "smallest relative gap": min(rels) if rels else None,
        "largest relative gap": max(rels) if rels else None,
        "rule": "FINDING when peer < exact lower * (1 - 1e-12); safe otherwise",
    }


def _ranked(found: Sequence[Row]) -> list[Row]:
    def key(r: Row) -> tuple[int, float]:
        rel = float(r.relative_gap) if r.relative_gap not in ("-", "inf") else math.inf
        return (0 if r.verdict.startswith("FINDING") else 1 if r.verdict == "safe" else 2, rel)

    return sorted(found, key=key)


# ---------------------------------------------------------------------------- CLI


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``dpcheck compare dp-accounting``."""
    parser.add_argument(
        "--epsilons",
        default=",".join(str(e) for e in EPSILONS),
        help="comma-separated epsilon grid (default 0,1/4,1/2,1,2)",
    )
    parser.add_argument("--json", action="store_true", help="JSON instead of a table")


def parse_epsilons(text: object) -> list[Fraction]:
    from dpcheck.numeric.profile import parse_epsilon

    if not isinstance(text, str) or not text.strip():
        raise InputError(f"--epsilons={text!r}: expected a comma-separated list of numbers >= 0")
    return [parse_epsilon(part.strip()) for part in text.split(",")]


def run(args: argparse.Namespace) -> int:
    """Print the table (findings first) or JSON; 1 when any FINDING, else 0."""
    text = getattr(args, "epsilons", None)
    epsilons = list(EPSILONS) if text is None else parse_epsilons(text)
    _library()
    found = _ranked(rows(epsilons))
    summ = summary(found)
    if getattr(args, "json", False):
        print(
            json.dumps(
                {"rows": [r.as_dict() for r in found], "summary": summ},
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        _print_table(found, summ)
    return 1 if summ["findings"] else 0


def _print_table(found: Sequence[Row], summ: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(width=None if sys.stdout.isatty() else 220, soft_wrap=False)
    console.print(
        f"dp_accounting {summ['dp-accounting']} (pessimistic PLDs, discretisation 1e-4) vs"
        " dpcheck's exact privacy profiles.  FINDING when dp_accounting is below the exact"
        " (attained) value by more than 1e-12 relative.",
        highlight=False,
        markup=False,
    )
    table = Table(title="dp_accounting vs exact (findings first)", show_lines=True)
    for col in (
        "verdict",
        "mechanism",
        "parameters",
        "value",
        "dp_accounting",
        "exact lower",
        "exact upper",
        "relative gap",
        "reproduce",
    ):
        table.add_column(col, overflow="fold")
    for r in found:
        cells = (
            r.verdict,
            r.mechanism,
            r.parameters,
            f"{r.direction} at {r.at}",
            repr(r.peer),
            r.exact_lower,
            r.exact_upper,
            r.relative_gap,
            r.reproduce,
        )
        table.add_row(*(Text(c) for c in cells))
    console.print(table)
    console.print(
        f"{summ['compared']} compared: {summ['findings']} findings, {summ['safe']} safe,"
        f" {summ['skipped']} skipped; relative gap from {summ['smallest relative gap']}"
        f" to {summ['largest relative gap']}",
        highlight=False,
        markup=False,
    )


# ---------------------------------------------------------------------------- export


def _ceil_index(loss: np.ndarray, h: float) -> np.ndarray:
    """ceil(loss / h) as integers: the pessimistic grid index of each loss."""
    return np.ceil(loss / h).astype(np.int64)


def _continuous_part(k_lo: int, k_hi: int, h: float, y_of_loss, mass_between) -> dict[int, float]:
    """Mass of the upper law on the losses in ((k - 1)h, kh] for k in [k_lo, k_hi]: the loss
    is decreasing in y, so that is the output interval [y(kh), y((k - 1)h))."""
    k = np.arange(k_lo, k_hi + 1, dtype=np.int64)
    a = y_of_loss(k * h)
    b = y_of_loss((k - 1) * h)
    m = mass_between(a, b)
    return {int(i): float(v) for i, v in zip(k, m, strict=True) if v > 0}


def _add(target: dict[int, float], part: dict[int, float]) -> None:
    for k, v in part.items():
        target[k] = target.get(k, 0.0) + v


def _laplace_pmf(delta: float, lam: float, h: float) -> tuple[dict[int, float], float]:
    """Loss of the pair (0, Δ): L(y) = (|y - Δ| - |y|)/λ; atoms Δ/λ (y <= 0, mass 1/2)
    and -Δ/λ (y >= Δ, mass e^{-Δ/λ}/2), linear L = (Δ - 2y)/λ on (0, Δ)."""
    top, bottom = delta / lam, -delta / lam
    pmf: dict[int, float] = {}
    _add(pmf, {int(_ceil_index(np.array(top), h)): 0.5})
    _add(pmf, {int(_ceil_index(np.array(bottom), h)): 0.5 * math.exp(-delta / lam)})

    def y_of_loss(loss: np.ndarray) -> np.ndarray:
        return np.clip((delta - lam * loss) / 2, 0.0, delta)

    def mass_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # ∫_a^b e^{-y/λ}/(2λ) dy for 0 <= a <= b, without cancellation
        return np.where(b > a, -0.5 * np.exp(-a / lam) * np.expm1(-(b - a) / lam), 0.0)

    _add(
        pmf,
        _continuous_part(
            int(math.floor(bottom / h)), int(math.ceil(top / h)) + 1, h, y_of_loss, mass_between
        ),
    )
    return pmf, 0.0


def _gaussian_pmf(delta: float, sigma: float, h: float) -> tuple[dict[int, float], float]:
    """Loss of the pair (0, Δ): L(y) = Δ(Δ - 2y)/(2σ²), decreasing; y below y_lo =
    σ Φ^{-1}(GAUSSIAN_TAIL) goes to +∞, y above Δ - y_lo is rounded up to L(Δ - y_lo)."""
    from scipy.special import ndtr, ndtri

    y_lo = sigma * float(ndtri(GAUSSIAN_TAIL))
    y_hi = delta - y_lo
    infinity = float(ndtr(y_lo / sigma))

    def loss(y: float) -> float:
        return delta * (delta - 2 * y) / (2 * sigma * sigma)

    def y_of_loss(l_: np.ndarray) -> np.ndarray:
        return np.clip(delta / 2 - sigma * sigma * l_ / delta, y_lo, np.inf)

    def mass_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # Φ(b/σ) - Φ(a/σ), through the smaller tail on each side
        za, zb = a / sigma, b / sigma
        left = ndtr(zb) - ndtr(za)
        right = ndtr(-za) - ndtr(-zb)
        return np.where(b > a, np.where(za + zb < 0, left, right), 0.0)

    k_hi = int(math.ceil(loss(y_lo) / h))
    k_lo = int(math.ceil(loss(y_hi) / h))
    pmf = _continuous_part(k_lo + 1, k_hi, h, y_of_loss, mass_between)
    # everything with y >= y(k_lo h) has loss <= k_lo h: rounded up to k_lo
    _add(pmf, {k_lo: float(ndtr(-(delta / 2 - sigma * sigma * k_lo * h / delta) / sigma))})
    return pmf, infinity


def _geometric_pmf(delta: int, b: Fraction, h: float) -> tuple[dict[int, float], float]:
    """Loss of the pair (0, Δ) on the integers: L(m) = (|m - Δ| - |m|)/b; P_0(m <= 0) =
    1/(1 + α), P_0(m >= Δ) = α^Δ/(1 + α), P_0(m) = (1 - α)/(1 + α) α^|m| between."""
    pmf: dict[int, float] = {}
    with mpmath.workdps(40):
        bb = mpmath.mpf(b.numerator) / b.denominator
        alpha = mpmath.exp(-1 / bb)
        c = (1 - alpha) / (1 + alpha)
        terms = [
            (mpmath.mpf(delta) / bb, 1 / (1 + alpha)),
            (-mpmath.mpf(delta) / bb, alpha**delta / (1 + alpha)),
        ]
        terms += [((delta - 2 * m) / bb, c * alpha**m) for m in range(1, delta)]
        for loss, mass in terms:
            k = int(mpmath.ceil(loss / h))
            pmf[k] = pmf.get(k, 0.0) + float(mass)
    return pmf, 0.0


def to_dp_accounting(
    mechanism: str,
    *,
    sensitivity: object,
    scale: object,
    lower: object = None,
    upper: object = None,
    value_discretization_interval: float = 1e-4,
) -> Any:
    """dpcheck's exact privacy loss distribution of the worst pair, as a pessimistic
    ``dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution``.

    Unbounded mechanisms ('laplace', 'gaussian', 'geometric') are translation invariant and
    their worst pair is (0, Δ) at every ε (profile.py, step 2).  The REMOVE direction is
    (upper = P_0, lower = P_Δ); the ADD direction (P_Δ, P_0) is its mirror image y -> Δ - y
    (the noise is symmetric), the same loss distribution, so the PLD is symmetric.  Losses
    are rounded up to multiples of ``value_discretization_interval`` (``pld_pmf.create_pmf``
    with pessimistic_estimate=True), so every δ(ε) it reports, composed or not, is >= the
    truth up to float64 rounding of the bucket masses.

    Bounded mechanisms are refused: their worst pair depends on ε, so no single pair of laws
    dominates them (a dominating pair would need the whole profile, not one PLD).
    """
    from dpcheck.numeric import profile as P

    lib = _library()
    nb = P.neighbours(mechanism, sensitivity, lower, upper, scale)
    if nb.bounded:
        raise InputError(
            f"{nb.mechanism}: export is available for the unbounded mechanisms (laplace,"
            " gaussian, geometric) only; a bounded one has no single worst pair"
        )
    h = float(value_discretization_interval)
    if not (math.isfinite(h) and h > 0):
        raise InputError(f"value_discretization_interval={h!r} must be a positive float")
    if nb.base == "laplace":
        pmf, inf_mass = _laplace_pmf(float(nb.step), float(nb.scale), h)
    elif nb.base == "gaussian":
        pmf, inf_mass = _gaussian_pmf(float(nb.step), float(nb.scale), h)
    else:
        pmf, inf_mass = _geometric_pmf(int(nb.step), nb.scale, h)
    return lib.PrivacyLossDistribution.create_from_rounded_probability(
        pmf, inf_mass, h, pessimistic_estimate=True
    )
