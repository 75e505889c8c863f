"""Exhaustive L = 1 scans of Zhilyaev and Zeber (§4, §5): cross-checks and checks that can fail.

Every scan is compared, at small n, with a straightforward Fraction implementation written
here from :func:`reference_rows` (double sums over binomials, no flint, no integer tricks,
delta / alpha candidates generated independently and more densely).  The mutation tests
replace the law the scans read (``krand_exhaustive.pmf_rows``) by a wrong one and check that
the relevant scan fails with the expected smallest counterexample.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from dpcheck.enumeration import krand
from dpcheck.enumeration import krand_exhaustive as kx
from dpcheck.errors import InputError

QS = (F(1, 20), F(1, 4), F(1, 3), F(2, 5), F(49, 100))
N = 8


def frac_rows(n, q):
    """The law the scans currently read, as Fractions (a mutated one under monkeypatch)."""
    if n == 0:
        return [[F(1)]]
    rows, den = kx.pmf_rows(n, q)
    return [[F(c, den) for c in r] for r in rows]


def ref_rows(n, q):
    return kx.reference_rows(n, q)


def key_of(cex, *names):
    return tuple(cex[k] for k in names)


# --------------------------------------------------------------------------- references
def ref_pointwise(kind, rows_of, n_max, qs):
    """(checked, failures, smallest (n, m, s, q), equalities) of one pointwise claim."""
    checked = fails = eqs = 0
    best = None
    for q in qs:
        for n in range(1, n_max + 1):
            P = rows_of(n, q)

            def rho(m, s, P=P):
                return P[m][s] / P[m][s - 1]

            def pi(m, s, P=P):
                return P[m][s] / P[m + 1][s]

            if kind == "rho_s":
                inst = [(m, s, rho(m, s), rho(m, s + 1), True)
                        for m in range(n + 1) for s in range(1, n)]
            elif kind == "rho_m":
                inst = [(m, s, rho(m + 1, s), rho(m, s), True)
                        for m in range(n) for s in range(1, n + 1)]
            elif kind == "pi_s":
                inst = [(m, s, pi(m, s), pi(m, s + 1), False) for m in range(n) for s in range(n)]
            elif kind == "pi_m":
                inst = [(m, s, pi(m + 1, s), pi(m, s), False)
                        for m in range(n - 1) for s in range(n + 1)]
            elif kind == "pi_net":
                inst = [(m, s, pi(m, s), pi(m + 1, s + 1), False)
                        for m in range(n - 1) for s in range(n)]
            elif kind == "c51":
                inst = [(m, s, rho(n, s), rho(m, s), False)
                        for m in range(n) for s in range(1, n + 1)]
            else:
                raise AssertionError(kind)
            for m, s, big, small, strict in inst:  # claim: big > small (strict) / big >= small
                checked += 1
                eqs += big == small
                if big < small or (strict and big == small):
                    fails += 1
                    if best is None or (n, m, s, q) < best:
                        best = (n, m, s, q)
    return checked, fails, best, eqs


POINTWISE = {
    "rho_s": kx.rho_decreasing_in_s,
    "rho_m": kx.rho_increasing_in_m,
    "pi_s": kx.pi_decreasing_in_s,
    "pi_m": kx.pi_increasing_in_m,
    "pi_net": kx.pi_net_decreasing,
    "c51": kx.claim_5_1,
}


def check_pointwise(kind, n_max=N, qs=QS):
    scan = POINTWISE[kind](n_max, qs)
    checked, fails, best, eqs = ref_pointwise(kind, frac_rows, n_max, qs)
    assert scan.checked == checked
    assert scan.holds == (best is None)
    assert scan.extra["equalities"] == eqs
    if best is not None:
        c = scan.counterexample
        assert (c["n"], c["m"], c["s"], F(c["q"])) == best
    return scan


def pieces_candidates(lo, pts, hi=None):
    """Sorted candidate reals: every point in pts (> lo), every midpoint, and beyond."""
    pts = sorted({x for x in pts if x > lo and (hi is None or x <= hi)})
    if not pts:
        return [lo + F(1, 2)] if hi is None else [(lo + hi) / 2]
    out = [(lo + pts[0]) / 2]
    for x, y in zip(pts, [*pts[1:], None], strict=True):
        out.append(x)
        if y is not None:
            out.append((x + y) / 2)
        elif hi is None:
            out.append(x + F(1, 3))
    return out


def ref_prop41(rows_of, n_max, qs):
    """{region: (distinct pairs, smallest failing (n, m, s_m, s_0', q))} by Fractions."""
    out = {r: [0, None] for r in ("all", "unclamped", "proof_assumption")}
    for q in qs:
        p = 1 - q
        for n in range(1, n_max + 1):
            P = rows_of(n, q)
            npq = n * p * q

            def mu(j, n=n, q=q, p=p):
                return n * q + j * (p - q)

            for m in range(n + 1):
                pts = {mu(j) - k for j in (0, m) for k in range(-2, n + 4)}
                pairs = {r: set() for r in out}
                for d in pieces_candidates(npq, pts):
                    cm, c0 = math.ceil(mu(m) - d), math.ceil(mu(0) - d)
                    c0p = math.ceil(mu(0) - d - 1)
                    pair = (max(cm, 1), max(c0p, 1))
                    pairs["all"].add(pair)
                    if cm >= 2 and c0p >= 2:
                        pairs["unclamped"].add(pair)
                    if c0 >= 2:
                        pairs["proof_assumption"].add(pair)
                for r, ps in pairs.items():
                    out[r][0] += len(ps)
                    for sm, s0 in ps:
                        if not P[m][sm] / P[m][sm - 1] < P[0][s0] / P[0][s0 - 1]:
                            k = (n, m, sm, s0, q)
                            if out[r][1] is None or k < out[r][1]:
                                out[r][1] = k
    return out


def prop_key(c):
    return (c["n"], c["m"], c["s_m_delta"], c["s_0_delta_plus_1"], F(c["q"]))


def check_prop41(n_max, qs):
    scan = kx.proposition_4_1(n_max, qs)
    ref = ref_prop41(frac_rows, n_max, qs)
    assert scan.checked == ref["all"][0]
    assert scan.holds == (ref["all"][1] is None)
    if ref["all"][1] is not None:
        assert prop_key(scan.counterexample) == ref["all"][1]
    for r in ("unclamped", "proof_assumption"):
        got = scan.extra[r]
        assert got["checked"] == ref[r][0]
        assert got["holds"] == (ref[r][1] is None)
        if ref[r][1] is not None:
            assert prop_key(got["counterexample"]) == ref[r][1]
    return scan


def ref_quantiles(rows_of, n_max, qs):
    """(checked, smallest step failure (n, m, alpha, q), smallest iff failure)."""
    checked = 0
    step = iff = None
    for q in qs:
        p = 1 - q
        for n in range(1, n_max + 1):
            P, Pm1 = rows_of(n, q), rows_of(n - 1, q)
            Fs = [[sum(r[: y + 1]) for y in range(n + 1)] for r in P]
            for m in range(1, n + 1):
                T = [Fs[m - 1][t] - (p - q) * (Pm1[m - 1][t] if t < n else 0)
                     for t in range(n + 1)]
                cuts = sorted({c for c in (*Fs[m - 1], *Fs[m], *T) if 0 < c <= 1})
                alphas = [a for lo, c in zip([F(0), *cuts], cuts, strict=False)
                          for a in ((lo + c) / 2, c)]
                for al in alphas:
                    t0 = min(y for y in range(n + 1) if Fs[m - 1][y] >= al)
                    t1 = min(y for y in range(n + 1) if Fs[m][y] >= al)
                    checked += 1
                    k = (n, m, al, q)
                    if t1 not in (t0, t0 + 1) and (step is None or k < step):
                        step = k
                    lhs = Fs[m - 1][t0] - al >= (p - q) * (Pm1[m - 1][t0] if t0 < n else 0)
                    if (t1 == t0) != lhs and (iff is None or k < iff):
                        iff = k
    return checked, step, iff


def quant_key(c):
    return (c["n"], c["m"], F(c["alpha"]), F(c["q"]))


def check_quantiles(n_max, qs):
    st, iff = kx.quantile_claims(n_max, qs)
    checked, rs, ri = ref_quantiles(frac_rows, n_max, qs)
    assert st.checked == iff.checked == checked
    assert st.holds == (rs is None) and iff.holds == (ri is None)
    if rs is not None:
        assert quant_key(st.counterexample) == rs
    if ri is not None:
        assert quant_key(iff.counterexample) == ri
    return st, iff


def ref_monotone(rows_of, n_max, qs):
    """(transitions, smallest failing (n, m, s, s', q) over ALL delta <= delta', shift ok)."""
    trans, best, shift_ok = 0, None, True
    for q in qs:
        p = 1 - q
        for n in range(1, n_max + 1):
            P = rows_of(n, q)
            for m in range(n + 1):
                mu = n * q + m * (p - q)
                ds = pieces_candidates(F(0), {mu - k for k in range(-2, n + 4)})
                ss = [max(math.ceil(mu - d), 1) for d in ds]
                shift_ok &= all(
                    max(math.ceil(mu - d - 1), 1) == max(s - 1, 1)
                    for d, s in zip(ds, ss, strict=True)
                )
                trans += sum(1 for x, y in zip(ss, ss[1:], strict=False) if x != y)
                for i in range(len(ss)):
                    for j in range(i + 1, len(ss)):
                        s1, s2 = ss[i], ss[j]
                        if P[m][s1] / P[m][s1 - 1] > P[m][s2] / P[m][s2 - 1]:
                            k = (n, m, s1, s2, q)
                            if best is None or k < best:
                                best = k
    return trans, best, shift_ok


def ref_ceiling(n_max, qs, periods=3):
    """smallest (n, m, delta, q) where s_m - s_0 != ceil(m(p-q)) over several periods; and
    whether case delta_0 >= delta_m always gives ceil and the other case always floor."""
    best, case0_ok, case1_floor = None, True, True
    region_best = None
    for q in qs:
        p = 1 - q
        for n in range(1, n_max + 1):
            npq, mu0 = n * p * q, n * q
            for m in range(1, n + 1):
                mum = mu0 + m * (p - q)
                c = m * (p - q)
                pts = {mu - k for mu in (mu0, mum) for k in range(-2 * n - 8, n + 8)}
                win = pieces_candidates(npq, pts, npq + periods)
                reg = [d for d in pieces_candidates(npq, pts) if d < mu0 - 1]
                for d, in_win in [*((d, True) for d in win), *((d, False) for d in reg)]:
                    d0 = mu0 - math.ceil(mu0 - d)
                    dm = mum - math.ceil(mum - d)
                    diff = math.ceil(mum - d - 1) - math.ceil(mu0 - d - 1)
                    k = (n, m, d, q)
                    if not in_win:
                        if diff != math.ceil(c) and (region_best is None or k < region_best):
                            region_best = k
                        continue
                    if d0 >= dm:
                        case0_ok &= diff == math.ceil(c)
                    else:
                        case1_floor &= diff == math.floor(c)
                    if diff != math.ceil(c) and (best is None or k < best):
                        best = k
    return best, case0_ok, case1_floor, region_best


# --------------------------------------------------------------------------- the law itself
@pytest.mark.parametrize("q", QS)
def test_reference_rows_match_pmf_rows(q):
    for n in range(1, N + 1):
        rows, den = krand.pmf_rows(n, q)
        ref = kx.reference_rows(n, q)
        assert ref == [[F(c, den) for c in r] for r in rows]
        assert all(sum(r) == 1 for r in ref)
    assert kx.reference_rows(0, q) == [[1]]


# --------------------------------------------------------------------------- cross-checks
@pytest.mark.parametrize("kind", list(POINTWISE))
def test_pointwise_scans_match_reference(kind):
    scan = check_pointwise(kind)
    assert scan.holds
    assert scan.domain.startswith(f"n = 1..{N}")
    assert scan.extra["per_q"].keys() == {str(q) for q in QS}


def test_pointwise_strictness():
    # pi is constant in m at s = 0 (p/q) and s = n (q/p): equality exactly there
    scan = kx.pi_increasing_in_m(N, QS)
    assert not scan.extra["strict"]
    assert scan.extra["equalities"] == len(QS) * sum(2 * (n - 1) for n in range(2, N + 1))
    assert scan.extra["equalities_at_interior_s"] == 0
    e = scan.extra["first_equality"]
    assert (e["n"], e["m"], e["s"], e["q"]) == (2, 0, 0, "1/20") and e["pi_m"] == "19"
    for f in (kx.rho_decreasing_in_s, kx.rho_increasing_in_m, kx.pi_decreasing_in_s,
              kx.pi_net_decreasing, kx.claim_5_1):
        assert f(N, QS).extra["strict"], f.__name__


def test_proposition_4_1_matches_reference():
    scan = check_prop41(N, QS)
    assert not scan.holds
    c = scan.counterexample  # the clamp at 1: s_0(delta) = s_0(delta + 1) = 1 at m = 0
    assert (c["n"], c["m"], c["q"], c["s_m_delta"], c["s_0_delta_plus_1"]) == (1, 0, "1/20", 1, 1)
    assert c["equal"] and c["delta_interval"] == "(19/400, inf)"
    assert F(c["delta"]) > F(c["npq"])
    c1 = scan.extra["smallest_m_ge_1"]  # n = 1, m = 1: R_1 = p/q > q/p = R_0
    assert (c1["n"], c1["m"], c1["R_m_delta"], c1["R_0_delta_plus_1"]) == (1, 1, "19", "1/19")


def test_proposition_4_1_unclamped_region_reference():
    # the unclamped region is non-empty only once n q^2 > 2: use q near 1/2, n up to 12
    scan = check_prop41(12, (F(2, 5), F(49, 100)))
    assert scan.extra["unclamped"]["checked"] > 0 and scan.extra["unclamped"]["holds"]
    assert scan.extra["proof_assumption"]["holds"]


def test_quantiles_match_reference():
    st, iff = check_quantiles(6, (F(1, 20), F(1, 3), F(49, 100)))
    assert st.holds and iff.holds


def test_r_monotone_matches_reference():
    scan = kx.R_monotone(N, QS)
    trans, best, shift_ok = ref_monotone(frac_rows, N, QS)
    assert scan.holds and best is None and shift_ok
    assert scan.extra["monotone"]["checked"] == trans
    assert scan.extra["shift_identity"]["holds"]


def test_x1_maximiser_matches_reference():
    scan = kx.x1_zero_maximiser(N, QS)
    assert scan.holds and scan.extra["x1_one"]["holds"]
    for q in QS:
        p = 1 - q
        for n in range(1, N + 1):
            P = ref_rows(n, q)
            for s in range(n + 1):
                for x1, expect in ((0, 0), (1, n - 1)):
                    r = [P[k + 1][s] / P[k][s] if x1 == 0 else P[k][s] / P[k + 1][s]
                         for k in range(n)]
                    top = max(r)
                    arg = [k for k in range(n) if r[k] == top]
                    assert arg == (list(range(n)) if s in (0, n) else [expect])
                    w = (s, n - s) if x1 == 0 else (n - s, s)
                    assert top == (w[0] * p / q + w[1] * q / p) / n
    assert scan.checked == len(QS) * sum(n * (n + 1) for n in range(1, N + 1))


def check_location(ns, qs):
    scan = kx.location_shift(ns, qs)
    for q in qs:
        p = 1 - q
        for n in ns:
            P = frac_rows(n, q)

            def cdf(m, x, P=P, n=n):
                return sum(P[m][: min(math.floor(x), n) + 1]) if x >= 0 else F(0)

            best = F(0)
            for m in range(n + 1):
                c = m * (p - q)
                pts = sorted({F(k) for k in range(n + 1)} | {j + c for j in range(n + 1)})
                xs = [F(-1), *pts, *((x + y) / 2 for x, y in zip(pts, pts[1:], strict=False)),
                      pts[-1] + 1]
                best = max(best, *(abs(cdf(m, x) - cdf(0, x - c)) for x in xs))
            row = scan.extra["table"][str(q)][str(n)]
            assert F(row["D_n"]) == best
            assert row["D_n_sqrt_n"] == pytest.approx(float(best) * math.sqrt(n))
    return scan


def test_location_shift_matches_reference():
    check_location((2, 3, 5), (F(1, 4), F(1, 3)))


def test_location_shift_verdict_tolerance():
    scan = kx.location_shift((10, 20), (F(1, 4),), tolerance=F(11, 10))
    assert scan.holds
    tight = kx.location_shift((10, 20), (F(1, 4),), tolerance=F(1))
    assert not tight.holds and tight.counterexample["q"] == "1/4"
    # the spread is 1.0199...: decided on D_n sqrt(n), not on its square (1.040...)
    assert scan.extra["max_over_min"]["1/4"] == pytest.approx(1.0199, abs=1e-4)
    assert kx.location_shift((10, 20), (F(1, 4),), tolerance=F(103, 100)).holds
    assert not kx.location_shift((10, 20), (F(1, 4),), tolerance=F(101, 100)).holds


def test_proof_ceiling_identity_matches_reference():
    scan = kx.proof_ceiling_identity(N, QS)
    best, case0_ok, case1_floor, region_best = ref_ceiling(N, QS)
    assert case0_ok and scan.extra["case_delta_0"]["holds"]
    assert case1_floor and scan.extra["case_delta_m"]["equals_floor_always"]
    assert not scan.holds
    c = scan.counterexample
    assert (c["n"], c["m"], F(c["delta"]), F(c["q"])) == best
    assert (c["n"], c["m"], c["delta"], c["q"], c["case"]) == (1, 1, "39/800", "1/20",
                                                               "case_delta_m")
    assert c["s_m_minus_s_0"] == c["floor_m_p_minus_q"] == c["ceil_m_p_minus_q"] - 1
    reg = scan.extra["in_proof_region"]["counterexample"]
    assert (reg["n"], reg["m"], F(reg["delta"]), F(reg["q"])) == region_best
    assert F(reg["npq"]) < F(reg["delta"]) < F(reg["q"]) * reg["n"] - 1


# --------------------------------------------------------------------------- checks that fail
def mutate(monkeypatch, changes):
    """Replace the law the scans read: changes[(q, n)] = f(rows) -> rows (integer numerators)."""
    real = krand.pmf_rows

    def wrong(n, q):
        rows, den = real(n, q)
        f = changes.get((F(q), n))
        return (f([list(r) for r in rows]) if f else rows), den

    monkeypatch.setattr(kx, "pmf_rows", wrong)


def row_replaced(m, by):
    def f(rows):
        rows[m] = list(rows[by])
        return rows

    return f


def swapped(m, s1, s2):
    def f(rows):
        rows[m][s1], rows[m][s2] = rows[m][s2], rows[m][s1]
        return rows

    return f


def test_rho_increasing_fails_on_wrong_law_and_orders(monkeypatch):
    # row m replaced by row m + 1: rho(s; m) = rho(s; m + 1), strictness fails at every s
    mutate(monkeypatch, {
        (F(1, 4), 5): row_replaced(1, 2),
        (F(1, 3), 3): row_replaced(2, 3),
        (F(2, 5), 3): row_replaced(2, 3),
        (F(1, 20), 4): row_replaced(0, 1),
    })
    scan = check_pointwise("rho_m")
    assert not scan.holds
    c = scan.counterexample
    assert (c["n"], c["m"], c["s"], c["q"], c["equal"]) == (3, 2, 1, "1/3", True)


def test_rho_decreasing_fails_and_smallest_s(monkeypatch):
    # n = 6, m = 3: move half of P(3) to P(4): log-concavity breaks at s = 3, not at s <= 2
    def bump(rows):
        rows[3][4] += rows[3][3] // 2
        rows[3][3] -= rows[3][3] // 2
        return rows

    mutate(monkeypatch, {(F(1, 3), 6): bump, (F(1, 3), 7): swapped(0, 1, 2)})
    scan = check_pointwise("rho_s")
    c = scan.counterexample
    assert (c["n"], c["m"], c["q"]) == (6, 3, "1/3")
    assert c["s"] == 3 and F(c["rho_s"]) <= F(c["rho_s_plus_1"])


def test_pi_scans_fail_on_wrong_law(monkeypatch):
    # n = 3, q = 1/4: row 1 := row 2, so pi(s; 1) = 1 and pi(s; 0) = P_0 / P_2
    mutate(monkeypatch, {(F(1, 4), 3): row_replaced(1, 2)})
    inc = check_pointwise("pi_m")  # pi(0; 0) = (p/q)^2 > 1 = pi(0; 1)
    assert not inc.holds
    c = inc.counterexample
    assert (c["n"], c["m"], c["s"], c["q"]) == (3, 0, 0, "1/4")
    assert c["pi_m"] == "9" and c["pi_m_plus_1"] == "1"
    for kind in ("pi_s", "pi_net"):
        check_pointwise(kind)  # whatever they find, the scan and the reference agree


def test_claim_5_1_fails_on_wrong_law(monkeypatch):
    # n = 2, q = 1/4: the all-ones row replaced by the all-zeros row
    mutate(monkeypatch, {(F(1, 4), 2): row_replaced(2, 0), (F(1, 3), 5): row_replaced(5, 0)})
    scan = check_pointwise("c51")
    c = scan.counterexample
    assert (c["n"], c["m"], c["s"], c["q"]) == (2, 1, 1, "1/4")
    assert F(c["rho_all_ones"]) < F(c["rho_m"])


def test_proposition_4_1_unclamped_fails_on_wrong_law(monkeypatch):
    # n = 12, q = 49/100: swap P_0(1), P_0(2), so rho(2; 0) < 1 where s_0(delta + 1) = 2
    mutate(monkeypatch, {(F(49, 100), 12): swapped(0, 1, 2)})
    scan = check_prop41(12, (F(2, 5), F(49, 100)))
    u = scan.extra["unclamped"]
    assert not u["holds"]
    c = u["counterexample"]
    assert (c["n"], c["m"], c["q"], c["s_0_delta_plus_1"]) == (12, 0, "49/100", 2)
    assert F(c["R_m_delta"]) >= F(c["R_0_delta_plus_1"])
    assert not scan.extra["proof_assumption"]["holds"]


def test_r_monotone_fails_on_wrong_law(monkeypatch):
    # n = 4, q = 1/4, m = 4: (1 + 3z)^4 = 1, 12, 54, 108, 81 -> 1, 12, 30, 76, 137, so that
    # R at s = 3 is 76/30 = 38/15, just above R at s = 2, 30/12 = 5/2 (12 * 76 = 912 > 900)
    def f(rows):
        rows[4] = [1, 12, 30, 76, 137]
        return rows

    mutate(monkeypatch, {(F(1, 4), 4): f})
    scan = kx.R_monotone(5, (F(1, 4), F(1, 3)))
    trans, best, _ = ref_monotone(frac_rows, 5, (F(1, 4), F(1, 3)))
    assert not scan.holds and scan.extra["monotone"]["checked"] == trans
    c = scan.extra["monotone"]["counterexample"]
    assert (c["n"], c["m"], c["s_m_delta"], c["s_m_delta_prime"], c["q"]) == (4, 4, 3, 2, "1/4")
    assert best == (4, 4, 3, 2, F(1, 4))
    assert c["R_m_delta"] == "38/15" and c["R_m_delta_prime"] == "5/2"
    assert F(c["delta"]) < F(c["delta_prime"])


def test_quantiles_fail_on_wrong_law(monkeypatch):
    # n = 3, q = 1/4: row 1 := row 3 (mass moved two steps up): tau jumps by 2
    mutate(monkeypatch, {(F(1, 4), 3): row_replaced(1, 3)})
    st, iff = check_quantiles(4, (F(1, 4), F(1, 3)))
    assert not st.holds and not iff.holds
    c = st.counterexample
    assert (c["n"], c["m"], c["q"]) == (3, 1, "1/4")
    assert c["tau_m"] - c["tau_m_minus_1"] not in (0, 1)


def test_quantile_iff_fails_when_only_the_threshold_is_wrong(monkeypatch):
    # n = 1, q = 1/3: row 0 := row 1 (= (1/3, 2/3)), so F_{1,0} = F_{1,1}: tau never moves,
    # but the threshold F_{1,0}(0) - (p - q) P_{0,0}(0) = 1/3 - 1/3 = 0 says it must
    mutate(monkeypatch, {(F(1, 3), 1): row_replaced(0, 1)})
    st, iff = check_quantiles(2, (F(1, 3),))
    assert st.holds and not iff.holds
    c = iff.counterexample
    assert (c["n"], c["m"], c["tau_m"], c["tau_m_minus_1"], c["threshold"]) == (1, 1, 0, 0, "0")
    assert c["alpha"] == "1/6"  # the midpoint of the first gap (0, 1/3]


def test_x1_maximiser_fails_on_wrong_law(monkeypatch):
    # n = 3, q = 1/4: row 1 := row 0, then at s = 0 only k = 0 maximises (no tie)
    mutate(monkeypatch, {(F(1, 4), 3): row_replaced(1, 0)})
    scan = kx.x1_zero_maximiser(4, (F(1, 4),))
    assert not scan.holds
    c = scan.counterexample
    assert (c["n"], c["s"], c["q"], c["argmax_k"]) == (3, 0, "1/4", [0])


def test_location_shift_on_wrong_law_still_exact(monkeypatch):
    # reversed row 0 puts the sup at the far end (x = n): the piece scan must still find it
    mutate(monkeypatch, {(F(1, 4), 3): row_replaced(0, 3), (F(1, 3), 2): row_replaced(0, 2)})
    scan = check_location((2, 3), (F(1, 4), F(1, 3)))
    assert scan.extra["table"]["1/4"]["3"]["argmax_x"] == "3"


def test_proof_ceiling_cases_by_hand():
    # q = 1/4, n = 2: m = 1 (m(p-q) = 1/2) pieces 7/16, 1/2, 1 -> cases m, 0, m;
    # m = 2 (m(p-q) = 1, integer) pieces 7/16, 1/2 -> delta_0 = delta_m: the proof's case
    scan = kx.proof_ceiling_identity(2, (F(1, 4),), n_min=2)
    assert scan.extra["case_delta_0"]["checked"] == 3
    assert scan.extra["case_delta_m"]["checked"] == 2
    assert scan.extra["case_delta_m"]["differs_from_ceil"] == 2
    c = scan.counterexample
    assert (c["m"], c["delta"], c["s_m_minus_s_0"], c["ceil_m_p_minus_q"]) == (1, "7/16", 0, 1)


def test_x1_maximiser_closed_form_fails_on_wrong_law(monkeypatch):
    # n = 2, q = 1/4: row 1 = 3, 10, 3 -> 3, 11, 3 keeps every maximiser set (k = 0 at s = 1,
    # ties at s = 0, 2) but the maximum at s = 1 becomes 11/6, not (p/q + q/p)/2 = 5/3
    def f(rows):
        rows[1] = [3, 11, 3]
        return rows

    mutate(monkeypatch, {(F(1, 4), 2): f})
    scan = kx.x1_zero_maximiser(3, (F(1, 4),))
    assert not scan.holds
    c = scan.counterexample
    assert (c["n"], c["s"], c["argmax_k"], c["max"]) == (2, 1, [0], "11/6")
    assert not c["closed_form_matches"]


def test_cache_follows_the_source(monkeypatch):
    assert kx.rho_increasing_in_m(3, (F(1, 4),)).holds
    mutate(monkeypatch, {(F(1, 4), 3): row_replaced(1, 2)})
    assert not kx.rho_increasing_in_m(3, (F(1, 4),)).holds
    monkeypatch.undo()
    assert kx.rho_increasing_in_m(3, (F(1, 4),)).holds


# --------------------------------------------------------------------------- input
@pytest.mark.parametrize(
    "call, text",
    [
        (lambda: kx.rho_decreasing_in_s(0), "n_max = 0"),
        (lambda: kx.proposition_4_1(5, (F(1, 2),)), "q = 1/2"),
        (lambda: kx.claim_5_1(5, (0.7,)), "q = 0.7"),
        (lambda: kx.quantile_step(5, (0,)), "q = 0"),
        (lambda: kx.R_monotone(5, ()), "qs = ()"),
        (lambda: kx.pi_net_decreasing(3, QS, n_min=4), "n_min = 4"),
        (lambda: kx.location_shift((10, 0)), "n = 0"),
        (lambda: kx.proof_ceiling_identity("x"), "n_max"),
    ],
)
def test_bad_input(call, text):
    with pytest.raises(InputError) as e:
        call()
    assert text in str(e.value) and "\n" not in str(e.value)


def test_n_min_restricts_domain():
    scan = kx.rho_decreasing_in_s(6, (F(1, 4),), n_min=5)
    assert scan.checked == 6 * 4 + 7 * 5 and scan.domain.startswith("n = 5..6")


# --------------------------------------------------------------------------- the full run
@pytest.mark.slow
def test_full_defaults_n60():
    """The verdict-bearing results on the default domain (n = 1..60, Q_SET)."""
    for f in (kx.rho_decreasing_in_s, kx.rho_increasing_in_m, kx.pi_decreasing_in_s,
              kx.pi_increasing_in_m, kx.pi_net_decreasing, kx.R_monotone, kx.claim_5_1,
              kx.x1_zero_maximiser):
        assert f().holds, f.__name__
    st, iff = kx.quantile_claims()
    assert st.holds and iff.holds
    prop = kx.proposition_4_1()
    assert not prop.holds
    assert prop.extra["unclamped"]["holds"] and prop.extra["unclamped"]["checked"] > 0
    assert prop.extra["proof_assumption"]["holds"]
    assert prop.extra["failures_by_value_one"]["neither"] == 0
    ceil_ = kx.proof_ceiling_identity()
    assert ceil_.extra["case_delta_0"]["holds"]
    assert ceil_.extra["case_delta_m"]["equals_floor_always"]
    reg = ceil_.extra["in_proof_region"]["counterexample"]
    assert (reg["n"], reg["m"], reg["q"], reg["delta"]) == (5, 1, "9/20", "199/160")
