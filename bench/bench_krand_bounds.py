"""Benchmark: certified upper and attained lower bounds of multi-bit shuffled K-randomization.

Run as ``python bench/bench_krand_bounds.py [--settings L:n:eps0:delta ...] [--budget S]
[--json docs/krand_bounds.json]``.  Issue 21 asks for the time of each upper and lower
bound: for every setting this prints the lower bound's and the upper bound's seconds, in
the same run, their ratio, the certified ratio upper / lower, and the gain over the best
generic shuffle bound (:mod:`dpcheck.enumeration.shuffle_generic`).

With ``--json`` the whole ``dpcheck krand profile --json`` output of every setting is
written (after each setting, so an interrupted run keeps what it finished); the README's
table (``<!-- dpcheck:krandbounds docs/krand_bounds.json -->``) and figure
(docs/figures/krand_bounds.png) are generated from that file.  The default settings are
the README's (about an hour on two cores); CI runs one small setting.

``--compare-processes L:n:eps0:delta:ratios`` times certifications at the given ratios
(comma-separated, x the attained lower bound) with the covers of the h values in sequence
and on two persistent workers (:mod:`dpcheck.enumeration.krand_workers`), in the same
run, and prints the ratio of the times.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from pathlib import Path

from dpcheck.enumeration import krand_profile as kp

#: The README's settings, L:n:eps0 per bit:delta (issue 21's "done when" first).
README_SETTINGS = (
    "2:1000:0.5:1e-6",
    "2:1000:1:1e-6",
    "2:1000:2:1e-6",
    "3:1000:0.5:1e-6",
    "3:1000:1:1e-6",
    "3:1000:2:1e-6",
    "2:1000:1:1e-9",
    "2:10000:1:1e-6",
    "4:1000:1:1e-6",
)


def run(setting: str, budget: float) -> dict:  # type: ignore[type-arg]
    """``dpcheck krand profile`` at ``L:n:eps0:delta`` with the wall time of the whole."""
    L, n, eps0, delta = setting.split(":")
    start = time.perf_counter()
    data = kp.summary(int(n), int(L), eps0=eps0, delta=delta, budget=budget)
    data["wall seconds"] = round(time.perf_counter() - start, 2)
    data["budget"] = budget
    data["setting"] = setting
    return data


def line(d: dict) -> str:  # type: ignore[type-arg]
    """One printed line per setting."""
    lo, up, gen = d["lower"], d["upper"], d["generic shuffle bounds"]
    ratio = d["upper / lower"]
    times = lo["seconds"], up["seconds"]
    first = up["seconds to ratio <= 1.1"]
    at = "not reached" if first is None else f"{first:.1f} s"
    return (
        f"L={d['L']} n={d['n']:>6} eps0={d['eps0']:.3g} delta={d['delta']:.0e}:"
        f" lower {lo['epsilon']:.6f} in {times[0]:6.1f} s; upper <= 1.1 x lower in {at};"
        f" upper {up['epsilon']:.6f} ({up['kind']}) in {times[1]:6.1f} s; time upper/lower"
        f" {times[1] / max(times[0], 1e-3):6.1f}x; upper/lower {ratio:.4f};"
        f" best generic {gen['best']} / upper = {gen['best / upper']:.3f}"
    )


def compare_processes(spec: str) -> None:
    """Certifications at ``L:n:eps0:delta:ratios`` in sequence, then on two persistent
    workers, in the same run (module doc)."""
    from fractions import Fraction  # noqa: PLC0415

    from dpcheck.enumeration import krand_bounds as kb  # noqa: PLC0415
    from dpcheck.enumeration.krand_l1_exact import LieProbability  # noqa: PLC0415
    from dpcheck.enumeration.krand_workers import CoverWorkers  # noqa: PLC0415

    L, n, eps0, delta, ratios = spec.split(":")
    lie = LieProbability(Fraction(eps0), from_eps0=True)
    lower = kb.lower_bound(int(L), int(n), lie, float(delta)).epsilon
    totals = {}
    for processes in (1, 2):
        totals[processes] = 0.0
        pool = CoverWorkers(processes) if processes > 1 else contextlib.nullcontext()
        with pool as workers:
            for r in ratios.split(","):
                start = time.perf_counter()
                ok, res, why = kb.certify_at(
                    int(L), int(n), lie, float(delta), float(r) * lower, workers=workers
                )
                took = time.perf_counter() - start
                totals[processes] += took
                per_h = ", ".join(
                    f"h={h} {c.seconds:.1f} s {c.evaluations} evaluations"
                    for h, c in sorted(res.items())
                )
                print(f"{processes} process(es), {r} x lower: {why} in {took:.1f} s ({per_h})")
    print(f"sequential / two workers: {totals[1] / totals[2]:.2f}x", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", nargs="*", default=list(README_SETTINGS))
    parser.add_argument("--budget", type=float, default=600.0, help="seconds per upper bound")
    parser.add_argument("--json", help="write every setting's profile here")
    parser.add_argument(
        "--compare-processes",
        metavar="L:n:eps0:delta:ratios",
        help="only time certifications with the h covers in sequence and on two workers",
    )
    args = parser.parse_args(argv)
    if args.compare_processes:
        compare_processes(args.compare_processes)
        return
    rows = []
    for setting in args.settings:
        d = run(setting, args.budget)
        rows.append(d)
        print(line(d), flush=True)
        if args.json:
            out = {
                "command": "python bench/bench_krand_bounds.py --json " + args.json,
                "budget": args.budget,
                "settings": rows,
            }
            Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
