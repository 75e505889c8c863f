"""``dpcheck privacy <mechanism>`` for any mechanism of the algebra (issue 19, "CLI").

* ``--scale`` and ``--epsilon``: δ(ε) (JSON ``"delta"``) and the worst pair;
* ``--scale`` and ``--delta``: ε(δ) (``"epsilon"``);
* ``--scale`` alone: the pure epsilon (``"pure epsilon"``, possibly ``inf``) and the plot;
* no ``--scale``: the calibrated scale (``"calibrated scale"``) for ε and δ (default 0).

``truncated`` and ``bit`` without ``--delta`` keep Liu's report (:mod:`dpcheck.cli`).
Every named mechanism is handed to the law engine as an object
(:func:`dpcheck.numeric.profile.mechanism_of`, issue 35); a law's own name
(``truncated-discrete-gaussian``) goes there through :mod:`dpcheck.laws.cli`.
"""

from __future__ import annotations

import argparse
import json

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import short
from dpcheck.numeric import profile as P


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "mechanism",
        help="any mechanism: laplace, gaussian, geometric, truncated-gaussian, clamped-geometric,"
        " ...; truncated and bit (Liu 2019) keep their report",
    )
    parser.add_argument("--sensitivity", help="sensitivity Delta, > 0 (required but for krr)")
    parser.add_argument("--lower", help="lower bound c0 (bounded mechanisms)")
    parser.add_argument("--upper", help="upper bound c1 > c0 (bounded mechanisms)")
    parser.add_argument("--scale", help="the base's scale (lambda, sigma or b)")
    parser.add_argument("--epsilon", help="epsilon >= 0")
    parser.add_argument("--delta", help="delta in [0, 1)")
    parser.add_argument("--dps", default="30", help="significant digits (Liu's report)")
    parser.add_argument("--brute-force", action="store_true", help="(Liu's report) grid search")
    parser.add_argument("--plot", help="write the privacy profile delta(epsilon) (png/pdf)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--radius", help="truncate the noise to |Z| <= radius (issue 35)")
    parser.add_argument(
        "--set", action="append", help="another parameter of the law: NAME=VALUE (repeat)"
    )
    parser.add_argument("--k", help="krr: the number of categories k >= 2")
    parser.add_argument("--delta-at", help="krr: also give delta at this epsilon'")
    from dpcheck.laws.cli import add_law_arguments

    add_law_arguments(parser)


def report(args: argparse.Namespace) -> dict[str, object]:
    """The JSON-ready answer of the four modes above."""
    if args.sensitivity is None:
        raise InputError(f"{args.mechanism} needs --sensitivity (Delta > 0)")
    nb = P.neighbours(args.mechanism, args.sensitivity, args.lower, args.upper, args.scale)
    head: dict[str, object] = {
        "mechanism": nb.mechanism,
        "sensitivity": short(nb.sensitivity),
        "lower": None if nb.lower is None else short(nb.lower),
        "upper": None if nb.upper is None else short(nb.upper),
    }
    eps = None if args.epsilon is None else P.parse_epsilon(args.epsilon)
    delta = None if args.delta is None else P.parse_delta(args.delta)
    if args.scale is None:
        if eps is None:
            raise InputError("give --scale, or --epsilon (and --delta) to calibrate the scale")
        cal = P.calibrate(nb, eps, delta or 0)
        return {**head, **cal.as_dict()}
    head["scale"] = short(nb.scale)
    if eps is not None:
        prof = P.delta_for_epsilon(nb, eps).as_dict()
        if delta is not None:
            prof["(epsilon, delta)-DP"] = P._exact_leq(prof["delta"], delta)
            prof["delta asked"] = str(delta)
        return {**head, **prof}
    if delta is not None:
        return {**head, **P.epsilon_for_delta(nb, delta).as_dict()}
    return {**head, **P.pure_epsilon(nb).as_dict()}


def text(d: dict[str, object]) -> str:
    lines = [
        f"{d['mechanism']}: sensitivity {d['sensitivity']}"
        + (f", bounds [{d['lower']}, {d['upper']}]" if d.get("lower") is not None else "")
        + (f", scale {d['scale']}" if "scale" in d else "")
    ]
    if "calibrated scale" in d:
        key = "calibrated scale"
    elif "pure epsilon" in d:
        key = "pure epsilon"
    elif "delta kind" in d:
        key = "delta"
        lines.append(f"epsilon = {d['epsilon']}")
    else:
        key = "epsilon"
        lines.append(f"delta = {d['delta']}")
    low = d.get(f"{key} lower")
    lines.append(f"{key} = {d[key]}" + (f"  (lower {low})" if low is not None else ""))
    if d.get(f"{key} kind"):
        lines.append(f"  {d[f'{key} kind']}")
    pair = d.get("worst pair") or d.get("attained at")
    if isinstance(pair, dict) and pair:
        lines.append("worst pair: " + ", ".join(f"{k} = {v}" for k, v in pair.items()))
    if "calibrated scale" in d:
        lines.append(f"0.99999999 x scale violates the target: {d['0.99999999 x scale violates']}")
        for row in d["cost"]:  # type: ignore[attr-defined]
            lines.append("  " + ", ".join(f"{k} {v}" for k, v in row.items()))
    if "(epsilon, delta)-DP" in d:
        lines.append(f"(epsilon, delta = {d['delta asked']})-DP: {d['(epsilon, delta)-DP']}")
    if "plot" in d:
        lines.append(f"plot written to {d['plot']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from dpcheck.outputs import atomic
    from dpcheck.outputs.paths import PLOT_SUFFIXES, output_file

    plot = None if args.plot is None else output_file("--plot", args.plot, PLOT_SUFFIXES)
    with atomic.transaction() as out:
        data = report(args)
        if plot is not None:
            from dpcheck.plots.profile import plot_profile

            nb = P.neighbours(
                args.mechanism,
                args.sensitivity,
                args.lower,
                args.upper,
                args.scale if args.scale is not None else data.get("calibrated scale"),
            )
            with out.writing(plot) as tmp:
                plot_profile(tmp, nb)
            data["plot"] = str(plot)
    print(json.dumps(data, indent=2) if args.json else text(data))
    return 0
