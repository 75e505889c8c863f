"""Benchmark: compiled mpmath evaluation vs SymPy evalf vs quadrature, 50 digits.

Run as ``python bench/bench_eval.py`` (from a checkout: falls back to ./src
when dpcheck is not installed).  For truncated.mse and bit.mse (Liu 2019,
Proposition 2 / Appendix B) it times, on the same random exact-rational
points:

* ``compiled``: ``dpcheck.numeric.mp.compiled(name)`` (lambdify'd to mpmath)
  called under ``mpmath.workdps(70)``;
* ``evaluate``: the full adaptive ``dpcheck.numeric.mp.evaluate(name, p, 50)``;
* ``evalf``: ``expr.evalf(50, subs={...})`` of the same SymPy expression
  ``dpcheck.symbolic.laplace_family.quantity(mechanism, q)``;
* ``quad``: the independent quadrature route
  ``dpcheck.numeric.quadrature.quad_quantity`` (on fewer points: it is slow);

and prints per-call times, the speed-up of compiled/evaluate over evalf
(target >= 50x) and how many digits the routes agree to.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

try:
    import dpcheck  # noqa: F401
except ImportError:  # a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import mpmath
import sympy as sp

from dpcheck.numeric.mp import compiled, evaluate
from dpcheck.numeric.params import MechanismParams
from dpcheck.numeric.quadrature import quad_quantity
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic.symbols import c0, c1, lam, s

NAMES = ("truncated.mse", "bit.mse")
DPS = 50


def points(n: int, seed: int = 2019) -> list[MechanismParams]:
    """n exact-rational points: boxes of several widths, log10(λ/R) in [-3, 3], s
    uniform in the box, and every 10th point with s exactly at a bound."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        lo = Fraction(rng.randint(-40, 40), rng.randint(1, 8))
        width = Fraction(rng.randint(1, 100), rng.randint(1, 20))
        ratio = Fraction(round(10 ** rng.uniform(-3, 3), 6)).limit_denominator(10**6)
        ratio = max(ratio, Fraction(1, 1000))
        if i % 10 == 0:
            x = lo
        elif i % 10 == 5:
            x = lo + width
        else:
            x = lo + width * Fraction(rng.randint(0, 10**4), 10**4)
        out.append(MechanismParams(x, lo, lo + width, width * ratio))
    return out


def mpf(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def timed(fn, args_list) -> tuple[float, list]:
    """(seconds per call, results)."""
    start = time.perf_counter()
    results = [fn(a) for a in args_list]
    return (time.perf_counter() - start) / len(args_list), results


def agreement(a: list, b: list) -> float:
    """The fewest significant digits on which two lists of values agree."""
    worst = mpmath.inf
    with mpmath.workdps(120):
        for x, y in zip(a, b, strict=True):
            x, y = mpmath.mpf(x), mpmath.mpf(y)
            diff = abs(x - y)
            if diff == 0:
                continue
            worst = min(worst, -mpmath.log10(diff / max(abs(x), abs(y))))
    return float(worst)


def bench(name: str, pts: list[MechanismParams], quad_pts: int) -> dict[str, object]:
    mechanism, _, quantity = name.partition(".")
    expr = lf.quantity(mechanism, quantity)
    f = compiled(name)

    def run_compiled(p: MechanismParams) -> mpmath.mpf:
        with mpmath.workdps(DPS + 20):
            return f(mpf(p.s), mpf(p.c0), mpf(p.c1), mpf(p.lam))

    def run_evaluate(p: MechanismParams) -> mpmath.mpf:
        return evaluate(name, p, DPS)

    def run_evalf(p: MechanismParams) -> sp.Float:
        subs = {
            s: sp.Rational(p.s.numerator, p.s.denominator),
            c0: sp.Rational(p.c0.numerator, p.c0.denominator),
            c1: sp.Rational(p.c1.numerator, p.c1.denominator),
            lam: sp.Rational(p.lam.numerator, p.lam.denominator),
        }
        return expr.evalf(DPS, subs=subs)

    def run_quad(p: MechanismParams) -> mpmath.mpf:
        return quad_quantity(name, p, DPS)

    run_compiled(pts[0])  # warm mpmath caches
    t_compiled, v_compiled = timed(run_compiled, pts)
    t_evaluate, v_evaluate = timed(run_evaluate, pts)
    t_evalf, v_evalf = timed(run_evalf, pts)
    t_quad, v_quad = timed(run_quad, pts[:quad_pts])
    with mpmath.workdps(DPS + 20):  # parse evalf's 50 digits at full precision
        v_evalf_mp = [mpmath.mpf(str(sp.Float(v, DPS))) for v in v_evalf]
    return {
        "name": name,
        "times": {
            "compiled": t_compiled,
            "evaluate": t_evaluate,
            "evalf": t_evalf,
            "quad": t_quad,
        },
        "agree": {
            "compiled vs evalf": agreement(v_compiled, v_evalf_mp),
            "evaluate vs evalf": agreement(v_evaluate, v_evalf_mp),
            "evaluate vs quad": agreement(v_evaluate[:quad_pts], v_quad),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=200, help="points per quantity")
    parser.add_argument("--quad-points", type=int, default=20, help="points for quadrature")
    args = parser.parse_args(argv)
    pts = points(args.points)
    quad_pts = min(args.quad_points, len(pts))

    start = time.perf_counter()
    for name in NAMES:
        compiled(name)
    print(f"derive + compile {', '.join(NAMES)}: {time.perf_counter() - start:.1f} s (once)")
    print(f"{len(pts)} points per quantity ({quad_pts} for quadrature), {DPS} digits\n")

    rows = [bench(name, pts, quad_pts) for name in NAMES]
    header = (
        f"{'quantity':<15}{'compiled':>11}{'evaluate':>11}{'evalf':>11}{'quad':>11}"
        f"{'evalf/compiled':>16}{'evalf/evaluate':>16}"
    )
    print("per-call time (ms)")
    print(header)
    ok = True
    for row in rows:
        t = row["times"]
        r1, r2 = t["evalf"] / t["compiled"], t["evalf"] / t["evaluate"]
        ok &= r1 >= 50
        print(
            f"{row['name']:<15}{1e3 * t['compiled']:>11.3f}{1e3 * t['evaluate']:>11.3f}"
            f"{1e3 * t['evalf']:>11.3f}{1e3 * t['quad']:>11.1f}{r1:>15.0f}x{r2:>15.0f}x"
        )
    print("\nagreement (fewest significant digits over the points; inf = identical)")
    for row in rows:
        cells = "  ".join(f"{k}: {v:.1f}" for k, v in row["agree"].items())
        print(f"{row['name']:<15}{cells}")
    print(f"\ntarget evalf/compiled >= 50x: {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
