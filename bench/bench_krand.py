"""K-randomization benchmarks (Zhilyaev and Zeber 2016), ratios measured in one run.

1. L = 1 worst-case epsilon at delta = 1e-6, n = 1e5, eps0 = 4 (target < 10 s), beside the
   Feldman-McMillan-Talwar bounds; fast (windowed log-space) vs straightforward (full-length
   pmfs by direct convolution, recomputed per bisection step) on the same backgrounds.
2. Exact histogram laws for L = 2, n = 100 and L = 3, n = 30 vs the naive 2^(nL) enumeration.
3. L = 2 privacy profile at n = 100 (family H on class histograms, arb confirmation): time,
   laws and cells handled vs the report histograms and the naive 2^(nL) enumeration; and
   the exhaustive searches at the limits EXHAUSTIVE_N (the timings behind them).
"""

from __future__ import annotations

import time
from fractions import Fraction

from dpcheck.enumeration import krand
from dpcheck.enumeration import krand_profile as kp
from dpcheck.enumeration import krand_profile_general as kg


def timed(f, *a):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = f(*a)
    return out, time.perf_counter() - t


def main() -> None:
    n, eps0, delta = 100_000, 4.0, 1e-6
    q = kp.q_from(eps0=eps0)
    (prof, conf), t_fast = timed(
        lambda: (lambda p: (p, kp.confirmed_epsilon(n, p.m, q, p.epsilon, delta)))(
            kp.epsilon_at_delta(n, q, delta)
        )
    )
    print(f"L = 1, n = {n}, eps0 = {eps0}, delta = {delta:g}")
    print(
        f"  exact worst-case epsilon = {conf['epsilon']:.10f} (m = {prof.m});"
        f" mpmath {conf['dps']} digits: delta(eps) = {conf['delta']}"
    )
    print(f"  {prof.assumption}")
    print(
        f"  full search + confirmation: {t_fast:.2f} s  (target < 10 s:"
        f" {'met' if t_fast < 10 else 'MISSED'})"
    )
    cf = kp.fmt_closed_form(n, eps0, delta)
    print(
        f"  FMT README numerical range [{kp.FMT_README['lower']}, {kp.FMT_README['upper']}],"
        f" FMT closed form (their code) {cf:.4f}: exact <= upper bounds:"
        f" {conf['epsilon'] <= kp.FMT_README['upper']}"
    )
    # same background, fast vs straightforward
    (_, t1) = timed(
        lambda: kp._eps_of_delta(
            *(lambda p: (p.P, p.Q))(kp.pair(n, prof.m, q)), delta, kp.pure_epsilon(q)
        )
    )
    (naive, t2) = timed(kp.naive_epsilon_at_delta, n, q, delta, [prof.m])
    print(
        f"  one background m = {prof.m}: fast {t1 * 1e3:.1f} ms, straightforward {t2:.2f} s"
        f" (eps {naive[0]:.10f}); ratio {t2 / t1:.0f}x;  straightforward over the"
        f" {len(prof.examined)} backgrounds searched would take ~{t2 * len(prof.examined):.0f} s"
    )
    n2 = 10_000
    ms = list(range(1, n2 + 1, 500)) + [n2]
    (a, ta) = timed(
        lambda: max(
            kp._eps_of_delta(*(lambda p: (p.P, p.Q))(kp.pair(n2, m, q)), delta, kp.pure_epsilon(q))
            for m in ms
        )
    )
    (b, tb) = timed(kp.naive_epsilon_at_delta, n2, q, delta, ms)
    print(
        f"  n = {n2}, {len(ms)} backgrounds: fast {ta:.2f} s, straightforward {tb:.2f} s,"
        f" ratio {tb / ta:.0f}x (eps {a:.8f} vs {b[0]:.8f})"
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
    print(
        f"  epsilon = {conf['epsilon']:.10f}, {conf['how']}: delta(eps) ="
        f" {conf['delta at epsilon']}; probabilistic {prof.probabilistic[0].epsilon:.10f}"
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
