"""Benchmark: exact exhaustive scans of the L = 1 claims of Zhilyaev and Zeber (§4, §5).

Run as ``python bench/bench_krand_claims.py [--n-max 60] [--ref-n-max 24]``.  In one run it

1. runs scans 1-8 and 10 of :mod:`dpcheck.enumeration.krand_exhaustive` (§4.2 rho, §4.5 pi,
   §4.3 Proposition 4.1 and R_m, §4.6 quantiles, §5.1 Claim (5.1) and the x1 = 0 TODO, the
   ceiling step of the proof of Proposition 4.1) over n = 1..n-max and the default q set,
   printing each verdict, the smallest counterexample and the seconds per scan and in total
   (target: well under 60 s on a 2-core machine at n-max = 60);
2. times scans 1-3 (rho and pi monotonicity, 5 claims) on n = 1..ref-n-max both ways, from an
   empty cache: the integer engine, and a straightforward route (laws by
   :func:`reference_rows`, a double sum over binomials in Fractions, then one Fraction
   comparison per inequality); checks that both give the same verdicts and counts, and
   prints the speed ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

try:
    import dpcheck  # noqa: F401
except ImportError:  # a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from dpcheck.enumeration import krand_exhaustive as kx


def timed(f, *a, **k):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = f(*a, **k)
    return out, time.perf_counter() - t


def short(cex: dict | None, keys: tuple[str, ...]) -> str:
    if cex is None:
        return "none"
    return ", ".join(f"{k} = {cex[k]}" for k in keys if k in cex)


KEYS = {
    "rho_decreasing_in_s": ("q", "n", "m", "s", "rho_s", "rho_s_plus_1"),
    "rho_increasing_in_m": ("q", "n", "m", "s", "rho_m", "rho_m_plus_1"),
    "pi_decreasing_in_s": ("q", "n", "m", "s", "pi_s", "pi_s_plus_1"),
    "pi_increasing_in_m": ("q", "n", "m", "s", "pi_m", "pi_m_plus_1"),
    "pi_net_decreasing": ("q", "n", "m", "s", "pi_s_m", "pi_s_plus_1_m_plus_1"),
    "proposition_4_1": ("q", "n", "m", "delta", "delta_interval", "s_m_delta",
                        "s_0_delta_plus_1", "R_m_delta", "R_0_delta_plus_1"),
    "R_monotone": ("q", "n", "m", "part", "delta"),
    "quantile_step": ("q", "n", "m", "alpha", "tau_m_minus_1", "tau_m"),
    "quantile_iff": ("q", "n", "m", "alpha", "tau_m_minus_1", "tau_m", "threshold"),
    "claim_5_1": ("q", "n", "m", "s", "rho_all_ones", "rho_m"),
    "x1_zero_maximiser": ("q", "n", "s", "argmax_k", "max"),
    "proof_ceiling_identity": ("q", "n", "m", "delta", "case", "s_m_minus_s_0",
                               "ceil_m_p_minus_q", "floor_m_p_minus_q"),
}


def details(name: str, scan: kx.Scan) -> list[str]:
    """The verdict-bearing parts of ``extra``, one line each."""
    e = scan.extra
    out = []
    if "strict" in e:
        out.append(f"strict: {e['strict']} (equalities {e['equalities']},"
                   f" at 0 < s < n: {e['equalities_at_interior_s']})")
    if name == "proposition_4_1":
        m1 = e["smallest_m_ge_1"]
        out.append(f"smallest with m >= 1: {short(m1, KEYS[name])}")
        for r in ("unclamped", "proof_assumption"):
            x = e[r]
            out.append(f"{r}: holds {x['holds']}, checked {x['checked']},"
                       f" counterexample {short(x['counterexample'], KEYS[name])}")
        out.append(f"failing pairs by which s is 1: {e['failures_by_value_one']}")
    if name == "R_monotone":
        for r in ("monotone", "shift_identity"):
            out.append(f"{r}: holds {e[r]['holds']}, checked {e[r]['checked']}")
    if name == "x1_zero_maximiser":
        out.append(f"answer: {e['answer']}")
        out.append(f"x1 = 1 (note's case): holds {e['x1_one']['holds']}; {e['x1_one']['answer']}")
    if name == "proof_ceiling_identity":
        a, b, r = e["case_delta_0"], e["case_delta_m"], e["in_proof_region"]
        out.append(f"case delta_0 >= delta_m: identity holds {a['holds']} ({a['checked']} pieces)")
        out.append(f"case delta_m > delta_0: s_m - s_0 = floor(m(p-q)) always:"
                   f" {b['equals_floor_always']}; differs from ceil in {b['differs_from_ceil']}"
                   f" of {b['checked']} pieces")
        out.append(f"restricted to s_0(delta) >= 2: holds {r['holds']} ({r['checked']} pieces),"
                   f" smallest {short(r['counterexample'], KEYS[name])}")
    return out


# --------------------------------------------------------------------------- straightforward
def straightforward_laws(n_max: int, qs: tuple[Fraction, ...]) -> dict:
    """Every law P_{n,m}(s), n = 1..n_max, as Fractions by the double sum (reference_rows)."""
    return {(n, q): kx.reference_rows(n, q) for q in qs for n in range(1, n_max + 1)}


def straightforward_scans_1_3(laws: dict) -> dict[str, tuple[bool, int]]:
    """Scans 1-3 the plain way: one Fraction comparison per inequality, on Fraction laws."""
    out = {}
    claims = {
        "rho_decreasing_in_s": lambda P, n: [
            P[m][s] / P[m][s - 1] > P[m][s + 1] / P[m][s] for m in range(n + 1) for s in range(1, n)
        ],
        "rho_increasing_in_m": lambda P, n: [
            P[m][s] / P[m][s - 1] < P[m + 1][s] / P[m + 1][s - 1]
            for m in range(n) for s in range(1, n + 1)
        ],
        "pi_decreasing_in_s": lambda P, n: [
            P[m][s] / P[m + 1][s] >= P[m][s + 1] / P[m + 1][s + 1]
            for m in range(n) for s in range(n)
        ],
        "pi_increasing_in_m": lambda P, n: [
            P[m][s] / P[m + 1][s] <= P[m + 1][s] / P[m + 2][s]
            for m in range(n - 1) for s in range(n + 1)
        ],
        "pi_net_decreasing": lambda P, n: [
            P[m][s] / P[m + 1][s] >= P[m + 1][s + 1] / P[m + 2][s + 1]
            for m in range(n - 1) for s in range(n)
        ],
    }
    for name, claim in claims.items():
        ok, count = True, 0
        for (n, _q), P in laws.items():
            res = claim(P, n)
            ok &= all(res)
            count += len(res)
        out[name] = (ok, count)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-max", type=int, default=kx.N_MAX)
    parser.add_argument("--ref-n-max", type=int, default=24,
                        help="n range of the straightforward-route comparison")
    args = parser.parse_args(argv)
    qs = kx.Q_SET
    print(f"L = 1 claims, n = 1..{args.n_max}, q in {{{', '.join(str(q) for q in qs)}}}")
    kx._CACHE.clear()
    total = 0.0
    rows = []
    for name, fn in kx.SCANS.items():
        if name == "quantile_iff":
            continue  # computed together with quantile_step
        if name == "quantile_step":
            (st, iff), sec = timed(kx.quantile_claims, args.n_max, qs)
            rows += [("quantile_step", st, sec / 2), ("quantile_iff", iff, sec / 2)]
        else:
            scan, sec = timed(fn, args.n_max, qs)
            rows.append((name, scan, sec))
        total += sec
    width = max(len(r[0]) for r in rows)
    for name, scan, sec in rows:
        verdict = "holds" if scan.holds else "FAILS"
        print(f"  {name:<{width}}  {verdict:<5}  checked {scan.checked:>9,}  {sec:6.2f} s")
        if not scan.holds:
            print(f"      smallest counterexample: {short(scan.counterexample, KEYS[name])}")
        for line in details(name, scan):
            print(f"      {line}")
    print("  (quantile_step and quantile_iff share one pass; each is shown with half its time)")
    print(f"  total: {total:.2f} s for scans 1-8 and 10 (target: well under 60 s on 2 cores)")

    shift, sec = timed(kx.location_shift)
    print(f"\n§4.8 location shift (scan 9), {shift.domain}: holds {shift.holds} ({sec:.2f} s)")
    for q, row in shift.extra["table"].items():
        vals = ", ".join(f"n={n}: {v['D_n_float']:.4f} ({v['D_n_sqrt_n']:.4f})"
                         for n, v in row.items())
        print(f"  q = {q}: D_n (D_n sqrt n): {vals}; max/min {shift.extra['max_over_min'][q]:.4f}")

    nr = args.ref_n_max
    names = list(kx.SCANS)[:5]
    kx._CACHE.clear()
    fast_t0 = time.perf_counter()
    fast = {name: kx.SCANS[name](nr, qs) for name in names}
    fast_t = time.perf_counter() - fast_t0
    warm_t0 = time.perf_counter()
    for name in names:
        kx.SCANS[name](nr, qs)
    warm_t = time.perf_counter() - warm_t0
    laws, laws_t = timed(straightforward_laws, nr, qs)
    slow, cmp_t = timed(straightforward_scans_1_3, laws)
    slow_t = laws_t + cmp_t
    agree = all((fast[k].holds, fast[k].checked) == slow[k] for k in names)
    print(
        f"\nscans 1-3 (5 claims), n = 1..{nr}, {len(qs)} q; same verdicts and counts: {agree}"
        f"\n  laws + comparisons: integer engine {fast_t:.3f} s (empty cache), straightforward"
        f" {slow_t:.2f} s (laws {laws_t:.2f} s + comparisons {cmp_t:.2f} s),"
        f" ratio {slow_t / fast_t:.0f}x"
        f"\n  comparisons only (laws built): integer engine {warm_t:.3f} s, Fractions"
        f" {cmp_t:.2f} s, ratio {cmp_t / warm_t:.0f}x"
    )
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
