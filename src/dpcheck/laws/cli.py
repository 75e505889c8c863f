"""``dpcheck eval`` and ``dpcheck privacy`` for the law objects of :mod:`dpcheck.laws`.

``dpcheck eval discrete-gaussian.var sigma=1``: a quantity of a shipped law
(``mean``, ``var``, ``second_moment``, ``cdf`` at y, ``sf`` at y, ``pmf`` /
``pdf`` at z, ``quantile`` at p), or of a user's law given by ``--density``
(LaTeX, read by the safe parser) with ``--param b>0`` and ``--support``.

``dpcheck privacy discrete-gaussian --sensitivity 1 --scale 2 --epsilon 1``:
δ(ε) of the additive mechanism x + Z (:mod:`dpcheck.laws.additive`), or its
pure ε without ``--epsilon``; ``--radius r`` first truncates the noise to
|Z| <= r (:func:`dpcheck.laws.transforms.truncate_noise`); ``--param
name=value`` gives the law's other parameters (the staircase's epsilon and
gamma).  ``dpcheck privacy krr --k 4 --epsilon 1`` is k-ary randomized
response (:mod:`dpcheck.laws.krr`).
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

import mpmath
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, short
from dpcheck.laws import registry
from dpcheck.laws.noise import NoiseLaw
from dpcheck.laws.numeric import Ball, precision, to_mpf
from dpcheck.laws.quantities import (
    QUANTITIES,
    bounded_name,
    evaluate,
    evaluate_bounded,
    is_law_name,
)


def add_law_arguments(parser: argparse.ArgumentParser) -> None:
    """A user's own noise law (issue 35): its density as LaTeX, its support and parameters."""
    parser.add_argument(
        "--density",
        help="a noise law's density (or pmf) in z, as LaTeX, e.g. '\\frac{1}{2b} e^{-|z|/b}'",
    )
    parser.add_argument(
        "--support", default="real", choices=("real", "integers"), help="of --density"
    )
    parser.add_argument(
        "--param", action="append", help="a parameter of --density: NAME>0 or NAME>=0 (repeat)"
    )


def law_options(args: argparse.Namespace) -> str:
    """The options that name a user's law again in a reproduce command ('' without one)."""
    import shlex

    if getattr(args, "density", None) is None:
        return ""
    words = ["--density", args.density, "--support", args.support]
    for p in args.param or []:
        words += ["--param", p]
    return " ".join(shlex.quote(w) for w in words)


def user_law(args: argparse.Namespace) -> NoiseLaw | None:
    if getattr(args, "density", None) is None:
        return None
    return registry.law(args.density, args.support, args.param or [], name="user law")


def text_value(ball: Ball, dps: int) -> str:
    with mpmath.workdps(dps):
        return mpmath.nstr(ball.mpf(), dps)


def run_eval(args: argparse.Namespace, dps: int) -> int:
    """``dpcheck eval`` for a law object (a shipped name or ``--density``)."""

    from dpcheck.numeric.params import parse_assignments

    target = law_target(args)
    if target is None:  # not a law's name: the registry's one-line refusal
        registry.get(args.quantity.rpartition(".")[0])
        raise AssertionError("unreachable")  # pragma: no cover
    law, bounding, quantity = target
    values = parse_assignments(args.assignments)
    if bounding is not None:
        ball, shown = evaluate_bounded(bounding, law, quantity, values, dps)
        return _print_eval(args, f"{bounding}-{law.name}.{quantity}", ball, shown, dps)
    ball, shown = evaluate(law, quantity, values, dps)
    return _print_eval(args, f"{law.name}.{quantity}", ball, shown, dps)


def law_target(args: argparse.Namespace) -> tuple[NoiseLaw, str | None, str] | None:
    """(law, bounding or None, quantity) that ``args.quantity`` names among the law
    objects: ``discrete-gaussian.var``, ``folded-gaussian.mean``, or the bare quantity
    with ``--density``; None for any other name (the mechanism algebra's keep their
    route).  Shared by eval and check-formula."""
    name, dot, quantity = str(args.quantity).rpartition(".")
    law = user_law(args)
    if law is not None:
        if dot and name not in ("user", "law"):
            raise InputError(
                f"quantity {args.quantity!r}: with --density give the bare quantity (e.g. var)"
            )
        return law, None, quantity
    if not is_law_name(name):
        return None
    bounded = bounded_name(name)
    if bounded is not None:
        return bounded[1], bounded[0], quantity
    return registry.LAWS[name], None, quantity


def _print_eval(args: argparse.Namespace, name: str, ball: Ball, shown: dict, dps: int) -> int:
    import json
    import sys

    value = text_value(ball, dps)
    if args.json:
        data = {"quantity": name, "value": value, "dps": dps,
                "params": shown, "method": ball.how, "certified": ball.certified}
        print(json.dumps(data, indent=2))
    else:
        print(value)
        if not ball.certified:
            print(f"({ball.how}: not certified)", file=sys.stderr)
    return 0


def run_privacy(args: argparse.Namespace) -> int:
    """``dpcheck privacy`` for a law object or krr."""
    import json

    data = privacy_report(args)
    print(json.dumps(data, indent=2) if args.json else privacy_text(data))
    return 0


def _refuse_unsupported(args: argparse.Namespace) -> None:
    """Options the law objects do not serve yet: refused, never silently ignored."""
    for option in ("lower", "upper", "plot", "brute_force"):
        if getattr(args, option, None) not in (None, False):
            flag = "--" + option.replace("_", "-")
            raise InputError(
                f"{flag}: not available for the noise law {args.mechanism!r} yet (the additive"
                " mechanism x + Z on the real line or the integers; bounded outputs:"
                " `dpcheck privacy truncated-<law> --lower .. --upper ..`)"
            )


def _law_values(args: argparse.Namespace, law: NoiseLaw,
                calibrating: bool = False) -> dict[str, Fraction]:
    """The law's parameters: ``--scale``, ``--set NAME=VALUE`` and ``--radius``; with
    ``calibrating`` (``privacy`` only), no ``--scale`` but ``--epsilon`` is a calibration
    and the scale a placeholder."""
    values: dict[str, object] = {}
    for item in args.set or []:
        name, sep, value = item.partition("=")
        if not sep:
            raise InputError(f"--set {item!r}: expected NAME=VALUE")
        values[name.strip()] = value.strip()
    if args.scale is None:
        if not calibrating or args.epsilon is None:
            raise InputError(
                f"{law.name}: give --scale ({law.param(law.scale).expected})"
                + (", or --epsilon (and --delta) to calibrate the scale" if calibrating else "")
            )
        values[law.scale] = "1"  # a placeholder: calibration sets the scale
    else:
        values[law.scale] = args.scale
    if getattr(args, "radius", None) is not None:
        values["radius"] = args.radius
    return law.parse(values)


def _sensitivity(args: argparse.Namespace, law: NoiseLaw) -> Fraction:
    if args.sensitivity is None:
        raise InputError(f"{law.name} needs --sensitivity (Delta > 0)")
    return parse_number("sensitivity", args.sensitivity)


def _additive(args: argparse.Namespace, calibrating: bool = False,
              ) -> tuple[NoiseLaw, dict[str, Fraction], Fraction]:
    """The law (``--radius``: truncated), its parameters (``--scale``, ``--set``) and Δ."""
    _refuse_unsupported(args)
    assert user_law(args) is not None or bounded_name(args.mechanism) is None  # routed before
    law = user_law(args) or registry.of_base(args.mechanism)
    if getattr(args, "radius", None) is not None:
        from dpcheck.laws.transforms import truncate_noise

        law = truncate_noise(law)
    params = _law_values(args, law, calibrating)
    return law, params, _sensitivity(args, law)


def _bounded_options(args: argparse.Namespace, boundings: tuple[str, ...]) -> tuple[str, NoiseLaw]:
    """(bounding, law) of a ``<bounding>-<law>`` name, with the options a bounded law
    takes: ``--lower`` and ``--upper`` required, ``--plot``, ``--brute-force`` and
    ``--radius`` refused."""
    found = bounded_name(args.mechanism)
    assert found is not None
    bounding, law = found
    if bounding not in boundings:
        raise InputError(
            f"{args.mechanism}: {bounding} is not available here (expected one of:"
            f" {', '.join(boundings)})"
        )
    for option in ("plot", "brute_force", "radius"):
        if getattr(args, option, None) not in (None, False):
            flag = "--" + option.replace("_", "-")
            raise InputError(f"{flag}: not available for the bounded law {args.mechanism!r}")
    for key in ("lower", "upper"):
        if getattr(args, key) is None:
            raise InputError(f"{args.mechanism} needs --{key} (bounds c0 < c1)")
    return bounding, law


def _bounded(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """``privacy truncated-<law>`` / ``clamped-<law>`` / ``folded-<law>`` with
    ``--lower c0 --upper c1``."""
    from dpcheck.laws.bounded_privacy import BOUNDINGS, BoundedMechanism
    from dpcheck.laws.folded_privacy import FoldedMechanism

    bounding, law = _bounded_options(args, (*BOUNDINGS, "folded"))
    params = _law_values(args, law, calibrating=True)
    lower, upper = parse_number("lower", args.lower), parse_number("upper", args.upper)
    if bounding == "folded":
        return FoldedMechanism(law, params, lower, upper, _sensitivity(args, law))
    return BoundedMechanism(law, params, bounding, lower, upper, _sensitivity(args, law))


def run_audit(args: argparse.Namespace) -> int:
    """``dpcheck audit <law> --epsilon E [--delta D]``: the black-box auditor on draws of
    x + Z at the neighbours (0, Δ) (translation invariance), or of a bounded law
    (``truncated-``, ``clamped-``, ``folded-<law>`` with ``--lower``/``--upper``) at the
    pairs of the edge |s - s'| = min(Δ, c1 - c0): both ends and the middle; exit 1 on a
    violation."""
    import json
    import sys

    from dpcheck.inputs import limits
    from dpcheck.inputs.numbers import parse_count
    from dpcheck.numeric.profile import parse_delta
    from dpcheck.sampling import audit
    from dpcheck.sampling.blackbox import audit_sampler

    if args.guide == "exact":
        raise InputError("--guide exact is for truncated and bit; a noise law is audited blackbox")
    if user_law(args) is None and bounded_name(args.mechanism) is not None:
        law, params, d, pairs, sample, what = _bounded_audit(args)
    else:
        law, params, d, pairs, sample, what = _additive_audit(args)
    samples = limits.count("audit", "--samples", args.samples, 1)
    seed = parse_count("seed", args.seed, 0, 2**63 - 1)
    confidence = audit.as_confidence(args.confidence)
    eps = float(parse_number("epsilon", args.epsilon))
    delta = 0.0 if args.delta is None else float(parse_delta(args.delta))
    result = audit_sampler(sample, pairs, epsilon=eps, delta=delta,
                           samples=samples, confidence=confidence, seed=seed)
    if args.json:
        data = {"guide": "blackbox", "mechanism": what, "sensitivity": short(d),
                "params": {k: short(v) for k, v in params.items()},
                "neighbours": [list(pair) for pair in pairs], **result.to_dict()}
        print(json.dumps(data, indent=2))
    else:
        shown_pairs = ", ".join(str(pair) for pair in pairs)
        print(f"{what}: sensitivity {short(d)}, "
              + ", ".join(f"{k} = {short(v)}" for k, v in params.items())
              + f"; dpcheck's sampler audited as a black box on the neighbours {shown_pairs}")
        print(result)
    sys.stdout.flush()
    return 1 if result.exceeds else 0


def _additive_audit(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """x + Z at the neighbours (0, Δ)."""
    from dpcheck.laws.additive import Additive
    from dpcheck.laws.float64 import additive_sampler

    law, params, d = _additive(args)
    Additive(law, params, d)  # validates the sensitivity against the support
    pair = (0, int(d)) if law.is_lattice else (0.0, float(d))
    return law, params, d, [pair], additive_sampler(law, params), law.name


def _bounded_audit(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """bounding(s + Z) into [c0, c1] at the edge pairs (:func:`dpcheck.audit_cli.edge_pairs`),
    drawn by :func:`dpcheck.laws.float64.bounded_sampler` (the law's own draws, or the
    generic ones)."""
    import math

    from dpcheck.audit_cli import edge_pairs, neighbour_pair
    from dpcheck.laws.bounded import Bounded
    from dpcheck.laws.float64 import bounded_sampler

    bounding, law = _bounded_options(args, ("truncated", "clamped", "folded"))
    params = _law_values(args, law)
    d = _sensitivity(args, law)
    c0, c1 = parse_number("lower", args.lower), parse_number("upper", args.upper)
    if law.is_lattice:
        if c0.denominator != 1 or c1.denominator != 1:
            raise InputError(f"--lower {short(c0)}, --upper {short(c1)}: {law.name} lives on"
                             " the integers, expected integer bounds")
        if d < 1:
            raise InputError(f"sensitivity={short(d)}: {law.name} lives on the integers,"
                             " expected a sensitivity of at least 1")
    Bounded(law, params, bounding, c0, c0, c1)  # validates the bounds and the bounding
    step = min(Fraction(math.floor(d)) if law.is_lattice else d, c1 - c0)
    pairs = [neighbour_pair(a, b, law.is_lattice)
             for a, b in edge_pairs(c0, c1, step, law.is_lattice)]
    lo, hi = float(c0), float(c1)
    drawers: dict[float, object] = {}

    def sample(x: float, rng, size: int):  # type: ignore[no-untyped-def]
        if x not in drawers:
            drawers[x] = bounded_sampler(law, params, bounding, float(x), lo, hi)
        return drawers[x](rng, size)  # type: ignore[operator]

    what = f"{bounding} {law.name} on [{short(c0)}, {short(c1)}]"
    return law, params, d, pairs, sample, what


def wants_laws(mechanism: str, args: argparse.Namespace) -> bool:
    """Whether ``dpcheck privacy`` goes to the law objects."""
    return (
        mechanism == "krr"
        or is_law_name(mechanism)
        or getattr(args, "density", None) is not None
        or getattr(args, "radius", None) is not None
    )


# ---------------------------------------------------------------------------- privacy


def privacy_report(args: argparse.Namespace) -> dict[str, object]:
    """The JSON-ready answer of ``dpcheck privacy`` for a law object or krr."""
    from dpcheck.laws.additive import Additive
    from dpcheck.numeric.profile import parse_epsilon

    if args.mechanism == "krr":
        _refuse_unsupported(args)
        return _krr_report(args)
    if user_law(args) is None and bounded_name(args.mechanism) is not None:
        return _bounded_report(args)
    law, params, sensitivity = _additive(args, calibrating=True)
    if args.scale is None:
        head = {"mechanism": law.name, "sensitivity": short(sensitivity)}
        return {**head, **_calibrated(
            args, law.name, lambda b: Additive(law, {**params, law.scale: b}, sensitivity))}
    mech = Additive(law, params, sensitivity)
    head = {
        "mechanism": law.name,
        "sensitivity": short(sensitivity),
        "params": {k: short(v) for k, v in params.items()},
        "scale": short(params[law.scale]),
    }
    if args.delta is not None and args.epsilon is None:
        from dpcheck.numeric.profile import parse_delta

        return {**head, **mech.epsilon(parse_delta(args.delta)).as_dict()}
    if args.epsilon is None:
        pure = mech.pure_epsilon()
        return {
            **head,
            "pure epsilon": "inf" if pure is sp.oo else _exact_text(pure),
            "pure epsilon kind": "exact (SymPy)",
        }
    eps = parse_epsilon(args.epsilon)
    return _judged({**head, **mech.delta(eps).as_dict()}, args)


def _judged(out: dict[str, object], args: argparse.Namespace) -> dict[str, object]:
    """``--delta D`` beside ``--epsilon``: whether the printed (certified) δ is <= D."""
    if args.delta is not None:
        from dpcheck.numeric.profile import _exact_leq, parse_delta

        delta = parse_delta(args.delta)
        out["(epsilon, delta)-DP"] = _exact_leq(out["delta"], delta)
        out["delta asked"] = str(delta)
    return out


def _bounded_report(args: argparse.Namespace) -> dict[str, object]:
    """δ(ε) of a truncated or clamped law (:mod:`dpcheck.laws.bounded_privacy`)."""
    from dpcheck.numeric.profile import parse_delta, parse_epsilon

    mech = _bounded(args)
    out: dict[str, object] = {
        "mechanism": args.mechanism,
        "sensitivity": short(mech.sensitivity),
        "lower": short(mech.c0),
        "upper": short(mech.c1),
    }
    if args.scale is None:
        from dataclasses import replace

        key = mech.law.scale
        return {**out, **_calibrated(
            args, args.mechanism, lambda b: replace(mech, values={**mech.values, key: b}))}
    out["params"] = {k: short(v) for k, v in mech.values.items()}
    out["scale"] = short(mech.values[mech.law.scale])
    if args.epsilon is None and args.delta is None:
        return {**out, **mech.pure_epsilon().as_dict()}
    if args.epsilon is None:
        return {**out, **mech.epsilon(parse_delta(args.delta)).as_dict()}
    out.update(mech.delta(parse_epsilon(args.epsilon)).as_dict())
    return _judged(out, args)


def _calibrated(args: argparse.Namespace, name: str, at_scale) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """No ``--scale``: the smallest scale giving (ε, δ)-DP (:mod:`dpcheck.laws.calibrate`),
    with a spinner on a terminal (each decision is a certified δ(ε) or pure ε)."""
    from dpcheck.laws.calibrate import calibrate
    from dpcheck.laws.cost import cost
    from dpcheck.numeric.profile import parse_delta, parse_epsilon

    eps = parse_epsilon(args.epsilon)
    delta = parse_delta(args.delta) if args.delta is not None else Fraction(0)
    if not sys.stderr.isatty():
        result = calibrate(at_scale, eps, delta, name)
    else:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
        with Progress(*columns, transient=True) as bar:
            task = bar.add_task("calibrating", total=None)

            def step(n: int) -> None:
                bar.update(task, description=f"calibrating: certified decision {n}")

            result = calibrate(at_scale, eps, delta, name, step)
    result.cost = cost(at_scale(result.scale))  # bias and MSE at the printed scale
    return result.as_dict()


def _exact_text(value: sp.Expr) -> str:
    value = sp.nsimplify(value) if value.is_Float else value
    if value.is_Rational:
        return short(Fraction(int(value.p), int(value.q)))
    with precision(20):
        from dpcheck.laws.arb_eval import evaluate_arb

        ball = evaluate_arb(value, {})
    return f"{sp.sstr(value)} = {mpmath.nstr(to_mpf(ball.mid()), 13)}"


def _krr_report(args: argparse.Namespace) -> dict[str, object]:
    from dpcheck.inputs.numbers import parse_count
    from dpcheck.laws.krr import RandomizedResponse

    if args.k is None or args.epsilon is None:
        raise InputError("krr needs --k (the number of categories) and --epsilon (its design)")
    k = parse_count("--k", args.k, 2, 10**6)
    mech = RandomizedResponse(k, parse_number("epsilon", args.epsilon))
    q = sp.Symbol("epsilon'", nonnegative=True)
    eps = sp.Rational(mech.epsilon)
    out: dict[str, object] = {
        "mechanism": f"k-ary randomized response, k = {k}",
        "epsilon (design)": short(mech.epsilon),
        "pure epsilon": sp.sstr(mech.pure_epsilon()),
        "pure epsilon kind": "exact (enumeration of the output law)",
        "worst pair": {"x": 0, "x'": 1},
        "delta(epsilon')": f"({sp.sstr(sp.exp(eps))} - exp({q}))/({sp.sstr(sp.exp(eps) + k - 1)})"
        f" for 0 <= {q} < {short(mech.epsilon)}, 0 above",
    }
    if args.delta_at is not None:
        at = parse_number("--delta-at", args.delta_at)
        value = mech.delta(at)
        lo, hi = mech.delta_interval(at)
        out["delta at"] = {"epsilon'": short(at), "delta": sp.sstr(value),
                           "value": mpmath.nstr(hi, 13), "lower": mpmath.nstr(lo, 13)}
    return out


def privacy_text(d: dict[str, object]) -> str:
    lines = [f"{d['mechanism']}" + (f": sensitivity {d['sensitivity']}" if "sensitivity" in d
                                    else "")]
    for key, value in d.items():
        if key in ("mechanism", "sensitivity", "argument"):
            continue
        if key == "cost" and isinstance(value, list):  # one line per input, as the old engine
            lines += ["  " + ", ".join(f"{k} {v}" for k, v in row.items()) for row in value]
            continue
        lines.append(f"{key}: {value}")
    return "\n".join(lines)


__all__ = ["QUANTITIES", "evaluate", "is_law_name", "privacy_report", "privacy_text"]
