"""K-randomization benchmarks (Zhilyaev and Zeber 2016), ratios measured in one run.

1. L = 1 worst-case epsilon at delta = 1e-6, n = 1e5, eps0 = 4: the whole summary()
   (approximate + probabilistic + arb certification, every background m = 1..n; target
   <= 10 s), beside the Feldman-McMillan-Talwar bounds; against a straightforward
   every-m computation (each background's law recomputed from scratch, epsilon by
   bisection of the hockey-stick), timed on a slice of m and EXTRAPOLATED to all n;
   and the old 65-point grid's value against the every-background value at n = 1e4.
2. Exact histogram laws for L = 2, n = 100 and L = 3, n = 30 vs the naive 2^(nL) enumeration.
3. L = 2 privacy profile at n = 100 (family H on class histograms, arb confirmation): time,
   laws and cells handled vs the report histograms and the naive 2^(nL) enumeration; and
   the exhaustive searches at the limits EXHAUSTIVE_N (the timings behind them).
"""

from __future__ import annotations

import time
from fractions import Fraction

from dpcheck.enumeration import krand
from dpcheck.enumeration import krand_l1_exact as kx
from dpcheck.enumeration import krand_profile as kp
from dpcheck.enumeration import krand_profile_general as kg


def timed(f, *a):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = f(*a)
    return out, time.perf_counter() - t


def main() -> None:
    n, eps0, delta = 100_000, 4.0, 1e-6
    q = kp.q_from(eps0=eps0)
    d, t_all = timed(lambda: kp.summary(n, 1, eps0=eps0, delta=delta))
    ap, pb = d["approximate"], d["probabilistic"]
    print(f"L = 1, n = {n}, eps0 = {eps0}, delta = {delta:g}")
    print(
        f"  {ap['kind']} worst-case epsilon = {ap['epsilon']:.12f}"
        f" (m = {ap['worst background m']}); probabilistic ({pb['kind']})"
        f" {pb['epsilon']:.12f} (m = {pb['worst background m']})"
    )
    print(f"  how: {ap['established']}")
    print(
        f"  whole summary (approximate + probabilistic + certification): {t_all:.2f} s"
        f"  (target <= 10 s: {'met' if t_all <= 10 else 'MISSED'})"
    )
    cf = kp.fmt_closed_form(n, eps0, delta)
    print(
        f"  FMT README numerical range [{kp.FMT_README['lower']}, {kp.FMT_README['upper']}],"
        f" FMT closed form (their code) {cf:.4f}: {d['FMT comparison']}"
    )
    # straightforward every-m computation on a slice, extrapolated
    fp, t_pass = timed(lambda: kx.float_pass(n, q, [delta], estimates=False))
    hi = kp.pure_epsilon(q)
    ms = list(range(n - 39, n + 1)) + list(range(1, 21)) + list(range(n // 2, n // 2 + 20))

    def slice_eps():  # type: ignore[no-untyped-def]
        return [kp._eps_of_delta(*(lambda p: (p.P, p.Q))(kp.pair(n, m, q)), delta, hi) for m in ms]

    vals, t_slice = timed(slice_eps)
    per_m = t_slice / len(ms)
    gap = max(abs(v - fp.eps_hi(0)[m - 1]) for v, m in zip(vals, ms, strict=True))
    print(
        f"  straightforward (law from scratch + bisection per m) on a slice of {len(ms)} m:"
        f" {per_m * 1e3:.2f} ms per m, EXTRAPOLATED to all {n} m: ~{per_m * n:.0f} s;"
        f" the every-background float pass: {t_pass:.2f} s; ratio ~{per_m * n / t_pass:.0f}x"
        f" (largest difference on the slice {gap:.1e})"
    )
    (naive, t_naive) = timed(kp.naive_epsilon_at_delta, n, q, delta, [ap["worst background m"]])
    print(
        f"  full-length pmfs by direct convolution, recomputed per bisection step, one m:"
        f" {t_naive:.2f} s (eps {naive[0]:.10f}); all {n} m would take ~{t_naive * n:.0f} s"
        " (extrapolated)"
    )
    n2, e2 = 10_000, 2.0
    q2 = kp.q_from(eps0=e2)
    old, t_old = timed(kp.grid_epsilon_at_delta, n2, q2, delta)
    new, t_new = timed(lambda: kp.summary(n2, 1, eps0=e2, delta=delta)["approximate"])
    print(
        f"  n = {n2}, eps0 = {e2}: old grid ({len(old.examined)} backgrounds, m = {old.m})"
        f" {old.epsilon:.10f} in {t_old:.2f} s vs every background ({new['kind']}, m ="
        f" {new['worst background m']}) {new['epsilon']:.10f} in {t_new:.2f} s: the grid is"
        f" {new['epsilon'] - old.epsilon:.2e} too low"
    )

    for nn in (1_000_000, 10_000_000):  # above the every-background pass: pruned search
        dd, tt = timed(lambda nn=nn: kp.summary(nn, 1, eps0=eps0, delta=delta))
        a, b = dd["approximate"], dd["probabilistic"]
        print(
            f"  n = {nn}, eps0 = {eps0}: approximate {a['epsilon']:.12f} ({a['kind']}),"
            f" probabilistic {b['epsilon']:.12f} ({b['kind']}) in {tt:.2f} s: {a['established']}"
        )

    qq = Fraction(1, 4)
    for L, nn, types in ((2, 100, (97, 1, 1, 1)), (3, 30, (30, 0, 0, 0, 0, 0, 0, 0))):
        law, t = timed(krand.histogram_law, types, L, qq)
        assert law.total() == 1
        print(
            f"L = {L}, n = {nn}, x types {types}, q = 1/4: exact law in {t:.2f} s,"
            f" {len(law)} outcomes (= C(n + 2^L - 1, 2^L - 1)) vs naive 2^(nL) = 2^{nn * L}"
            f" = {float(2 ** (nn * L)):.3g} randomizations; ratio {2 ** (nn * L) / len(law):.3g}"
        )

    general_profiles()


def general_profiles() -> None:
    """Section 3: L >= 2 profiles (krand_profile_general)."""
    n, L, eps0, delta = 100, 2, 1.0, 1e-6
    q = Fraction(str(kp.q_from(eps0=eps0)))
    prof, t = timed(kg.profile, n, L, q, [delta])
    w = prof.approximate[0]
    assert w.pair is not None
    conf, tc = timed(kg.confirm, prof.mode, w.pair, q, delta, w.epsilon)
    hist = krand.outcome_count(n, L)
    print(f"L = {L}, n = {n}, eps0 = {eps0}, delta = {delta:g} ({prof.mode} search)")
    kind = (
        "the worst case (exhaustive)"
        if prof.mode == "exhaustive"
        else "a lower bound on the worst case (family H search)"
    )
    print(
        f"  the pair found has epsilon <= {conf['epsilon']:.10f} ({conf['how']}: delta(eps)"
        f" = {conf['delta at epsilon']}); its epsilon is {kind};"
        f" probabilistic {prof.probabilistic[0].epsilon:.10f}"
    )
    print(f"  worst: {w.pair.describe()}")
    print(
        f"  search {t:.2f} s + confirmation {tc:.2f} s: {prof.laws} pairs of laws, up to"
        f" {prof.cells} class histograms each ({prof.outcomes_examined} cells over"
        f" {prof.pairs_examined} ordered pairs)"
    )
    print(
        f"  vs report histograms: C(n + 3, 3) = {hist} per law"
        f" ({hist * prof.pairs_examined:.3g} cells for the same pairs); vs naive enumeration:"
        f" 2^(nL) = 2^{n * L} = {float(2 ** (n * L)):.3g} randomizations per collection"
    )
    for L, n in sorted(kg.EXHAUSTIVE_N.items()):
        if L == 1:
            continue
        prof, t = timed(kg.exhaustive_profile, n, L, Fraction(1, 4), [delta])
        print(
            f"  exhaustive L = {L}, n = {n} (limit), q = 1/4: {t:.2f} s, {prof.laws} pairs of"
            f" exact laws of {prof.cells} histograms (every background orbit and b)"
        )


if __name__ == "__main__":
    main()
