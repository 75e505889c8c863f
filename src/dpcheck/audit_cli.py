"""``dpcheck audit <mechanism> --guide blackbox``: dpcheck's own sampler as a black box.

The sampler is :func:`dpcheck.sampling.mechanisms.sample` of the named mechanism
(any of :data:`dpcheck.numeric.names.MECHANISM_NAMES`, aliases truncated and bit)
at the given scale (default Δ/ε for the Laplace and geometric bases, the
scale of the textbook Laplace mechanism; the Gaussian needs ``--scale``), and
the auditor is :func:`dpcheck.sampling.blackbox.audit_sampler`: it sees
draws only, never the law.  The neighbours are those a user would try
without knowing the worst case (:func:`pairs`): for a bounded mechanism the
two edge pairs (c0, c0 + Δ), (c1 - Δ, c1) and a middle pair, or (c0, c1) when
Δ >= c1 - c0; for an unbounded one (0, Δ) (translation invariance).  On the
integers (geometric base) Δ is floor(Δ) and the middle pair has integer ends.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, short
from dpcheck.numeric import profile
from dpcheck.sampling import mechanisms
from dpcheck.sampling.audit import FLOAT_MAGNITUDES, _epsilon
from dpcheck.sampling.blackbox import BlackBoxAudit, Sampler, audit_sampler


@dataclass(frozen=True)
class Plan:
    """What the black-box audit samples: the mechanism, its claim and the neighbours."""

    setting: profile.Neighbours
    scale_source: str
    epsilon: float
    delta: float
    pairs: tuple[tuple[int | float, int | float], ...]

    @property
    def mechanism(self) -> str:
        return self.setting.mechanism


def _float(name: str, value: Fraction) -> float:
    """``value`` as a float64 the sampler can use: 0 or a magnitude in 1e-300 .. 1e300 (the
    ceiling of the exact guide, :data:`dpcheck.sampling.audit.FLOAT_MAGNITUDES`)."""
    low, high = FLOAT_MAGNITUDES
    if value != 0 and not low <= abs(value) <= high:
        raise InputError(
            f"{name}={short(value)}: the sampler draws float64 numbers; expected a magnitude"
            " within 1e-300 .. 1e300 (or 0)"
        )
    return float(value)


def _number(value: Fraction) -> int | float:
    """An int when ``value`` is a whole number float64 holds exactly, else its float64."""
    if value.denominator == 1 and abs(value) <= 2**53:
        return int(value)
    return _float("neighbour", value)


def neighbour_pair(a: Fraction, b: Fraction, lattice: bool) -> tuple[int | float, int | float]:
    """The pair as the sampler's inputs, refused when float64 cannot keep it apart."""
    if lattice and max(abs(a), abs(b)) > 2**53:
        raise InputError(
            f"the neighbours ({short(a)}, {short(b)}) are integers beyond 2^53, which float64"
            " does not hold exactly"
        )
    x, y = _number(a), _number(b)
    if x == y:
        raise InputError(
            f"the neighbours ({short(a)}, {short(b)}) round to the same float64 number; the"
            " bounds are too far from 0 for the sensitivity"
        )
    return x, y


def edge_pairs(
    lower: Fraction, upper: Fraction, step: Fraction, lattice: bool
) -> list[tuple[Fraction, Fraction]]:
    """The neighbours audited on [lower, upper] at distance ``step`` (module docstring):
    both ends of the edge and its middle (an integer on the lattice), exact, no repeats."""
    c0, c1, d = lower, upper, step
    if d >= c1 - c0:
        return [(c0, c1)]
    mid = Fraction(math.floor((c0 + c1 - d) / 2)) if lattice else (c0 + c1 - d) / 2
    out: list[tuple[Fraction, Fraction]] = []
    for pair in ((c0, c0 + d), (c1 - d, c1), (mid, mid + d)):
        if pair not in out:
            out.append(pair)
    return out


def pairs(nb: profile.Neighbours) -> list[tuple[Fraction, Fraction]]:
    """The neighbours audited (module docstring), exact and without repeats."""
    if not nb.bounded:
        return [(Fraction(0), nb.step)]
    assert nb.lower is not None and nb.upper is not None
    return edge_pairs(nb.lower, nb.upper, nb.step, nb.lattice)


def plan(
    mechanism: str,
    epsilon: object,
    delta: object,
    sensitivity: object,
    lower: object,
    upper: object,
    scale: object,
) -> Plan:
    """Validated inputs (one-line InputError otherwise) and the neighbours."""
    eps = _epsilon(epsilon)
    dlt = 0.0 if delta is None else float(profile.parse_delta(delta))
    nb = profile.neighbours(mechanism, sensitivity, lower, upper, scale)
    if scale is None:
        default = getattr(nb.law, "_pure_dp_scale", None)
        if default is None:
            raise InputError(
                f"{nb.mechanism} needs --scale ({nb.law.scale}): the {nb.law.name} law has no"
                " default scale from epsilon alone"
            )
        exact_eps = parse_number("epsilon", epsilon)
        if exact_eps == 0:
            raise InputError("epsilon=0 gives no default scale delta1/epsilon; give --scale")
        nb = nb.with_scale(default(nb.sensitivity, exact_eps))
        source = "default delta1/epsilon"
    else:
        source = "given"
    for name, value in (("scale", nb.scale), ("lower", nb.lower), ("upper", nb.upper)):
        if value is not None:
            _float(name, value)
    chosen = tuple(neighbour_pair(a, b, nb.lattice) for a, b in pairs(nb))
    return Plan(nb, source, eps, dlt, chosen)


def sampler(p: Plan) -> Sampler:
    """sampler(x, rng, size): ``size`` draws of the mechanism at s = x."""
    nb = p.setting
    params: dict[str, float] = {"scale": float(nb.scale)}
    if nb.bounded:
        params.update(c0=float(nb.lower), c1=float(nb.upper))  # type: ignore[arg-type]

    def draw(x: object, rng: np.random.Generator, size: int) -> np.ndarray:
        return mechanisms.sample(nb.mechanism, rng, size, s=x, **params)  # type: ignore[arg-type]

    return draw


def run(
    p: Plan,
    samples: int,
    seed: int,
    confidence: float,
    progress: Callable[[int, int], None] | None = None,
) -> BlackBoxAudit:
    """The black-box audit of the plan's sampler on its neighbours."""
    return audit_sampler(
        sampler(p),
        list(p.pairs),
        epsilon=p.epsilon,
        delta=p.delta,
        samples=samples,
        confidence=confidence,
        seed=seed,
        progress=progress,
    )


def _show(value: Fraction | None) -> str | None:
    if value is None:
        return None
    return str(value) if value.denominator <= 10**6 else f"{float(value):.15g}"


def to_dict(p: Plan, result: BlackBoxAudit) -> dict[str, object]:
    """JSON-ready: the setting, then :meth:`BlackBoxAudit.to_dict`."""
    nb = p.setting
    return {
        "guide": "blackbox",
        "mechanism": nb.mechanism,
        "sensitivity": _show(nb.sensitivity),
        "lower": _show(nb.lower),
        "upper": _show(nb.upper),
        "scale": _show(nb.scale),
        "scale_source": p.scale_source,
        "neighbours": [list(pair) for pair in p.pairs],
        **result.to_dict(),
    }


def reproduce_exact(p: Plan) -> str:
    """The ``dpcheck privacy`` command printing the exact value the audit bounds."""
    nb = p.setting
    words = ["dpcheck privacy", nb.mechanism, "--sensitivity", _show(nb.sensitivity)]
    if nb.bounded:
        words += ["--lower", _show(nb.lower), "--upper", _show(nb.upper)]
    words += ["--scale", _show(nb.scale)]
    if p.delta:
        words += ["--delta", f"{p.delta:g}"]
    return " ".join(str(w) for w in words)


def text(p: Plan, result: BlackBoxAudit) -> str:
    nb = p.setting
    bounds = f", bounds [{_show(nb.lower)}, {_show(nb.upper)}]" if nb.bounded else ""
    head = (
        f"{nb.mechanism} mechanism: sensitivity = {_show(nb.sensitivity)}{bounds},"
        f" scale = {_show(nb.scale)} ({p.scale_source});"
        " dpcheck's sampler audited as a black box on the neighbours "
        + ", ".join(f"({a}, {b})" for a, b in p.pairs)
    )
    what = "pure epsilon" if not p.delta else f"epsilon at delta = {p.delta:g}"
    tail = f"exact {what}, for comparison: {reproduce_exact(p)}"
    return "\n".join([head, str(result), tail])


__all__ = ["Plan", "pairs", "plan", "reproduce_exact", "run", "sampler", "text", "to_dict"]
