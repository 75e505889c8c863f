"""Exact exhaustive scans of the L = 1 claims of Zhilyaev and Zeber, "K-randomization" (§4, §5).

Notation of the note (§4): A_n(m) ~ Bin(m, p) + Bin(n - m, q), 0 < q < 1/2, p = 1 - q;
P_{n,m}(s) = P[A_n(m) = s] > 0 for 0 <= s <= n;

* rho_n(s; m) = P_{n,m}(s) / P_{n,m}(s - 1), 1 <= s <= n (the probability ratio, §4.2);
* pi_n(s; m) = P_{n,m}(s) / P_{n,m+1}(s), 0 <= s <= n, 0 <= m <= n - 1 (§4);
* mu_m = nq + m(p - q) = E A_n(m) (§4.2, §4.8); F_{n,m}(x) = P[A_n(m) <= x] (§4.4).

Every scan works on the integer numerators of :func:`dpcheck.enumeration.krand.pmf_rows`
(common denominator b^n for q = a/b) and decides every inequality by cross-multiplying
integers; no float is ever used to decide anything (floats appear only as approximations
printed beside exact values).  Claims quantified over a *real* parameter (delta in §4.3,
Proposition 4.1; alpha in §4.6; x in §4.8) are made finite exactly: the quantities involved
are step functions of the parameter, so every piece between consecutive rational
breakpoints is visited once.

Each scan returns a :class:`Scan`; ``counterexample`` is the smallest one (smallest n, then
m, then s or the pair of s values, then delta / alpha, then q) with exact values as strings
``str(Fraction)`` and float approximations beside them.
"""

from __future__ import annotations

import math
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import accumulate

from dpcheck.enumeration.krand import as_q, pmf_rows
from dpcheck.errors import InputError
from dpcheck.numeric.params import parse_count

#: Default lie probabilities q (exact).
Q_SET: tuple[Fraction, ...] = tuple(
    Fraction(x) for x in ("1/20", "1/10", "1/5", "1/4", "1/3", "2/5", "9/20", "49/100")
)
#: Default largest n.
N_MAX = 60
#: Defaults of :func:`location_shift` (§4.8); n = 10 is before the n^(-1/2) regime at
#: q = 1/10 (D_n sqrt(n) still rises 5% from n = 10 to 20).
SHIFT_NS: tuple[int, ...] = (20, 40, 80, 160)
SHIFT_QS: tuple[Fraction, ...] = (Fraction(1, 10), Fraction(1, 4), Fraction(2, 5))


@dataclass(frozen=True)
class Scan:
    """The outcome of one exhaustive scan."""

    holds: bool  # no counterexample in the domain
    checked: int  # number of instances (inequalities) examined
    counterexample: dict | None  # the smallest one (see the module docstring)
    domain: str  # human text: exactly what was examined
    extra: dict = field(default_factory=dict)  # counts per q, seconds, anything informative


# --------------------------------------------------------------------------- helpers
def reference_rows(n: int, q: object) -> list[list[Fraction]]:
    """P_{n,m}(s) for m, s = 0..n straight from the definition (§4): a double sum over binomials.

    P[Bin(m, p) + Bin(n - m, q) = s] = sum_i C(m, i) p^i q^(m-i) C(n-m, s-i) q^(s-i) p^(n-m-s+i).
    Independent of :func:`pmf_rows` (no flint, no recursion); used by tests and the bench.
    """
    q = as_q(q)
    n = parse_count("n", n, 0)
    p = 1 - q
    rows = []
    for m in range(n + 1):
        row = []
        for s in range(n + 1):
            total = Fraction(0)
            for i in range(max(0, s - (n - m)), min(m, s) + 1):
                j = s - i  # ones reported by the n - m zeros
                total += (
                    math.comb(m, i) * p**i * q ** (m - i)
                    * math.comb(n - m, j) * q**j * p ** (n - m - j)
                )
            row.append(total)
        rows.append(row)
    return rows


_CACHE: dict[tuple[object, int, Fraction], tuple[list[list[int]], int]] = {}
_CACHE_LIMIT = 2048


def _rows(n: int, q: Fraction) -> tuple[list[list[int]], int]:
    """Integer numerators of P_{n,m}(s) (all m, s) and their denominator b^n, cached.

    The source is the module attribute ``pmf_rows`` (tests replace it by a wrong law), and
    the cache is keyed by the source, so a replaced source is never answered from the cache.
    n = 0 gives the law of A_0(0) = 0: P_{0,0}(0) = 1 (used by §4.6 at n = 1).
    """
    if n == 0:
        return [[1]], 1
    src = pmf_rows
    key = (src, n, q)
    got = _CACHE.get(key)
    if got is None:
        rows, den = src(n, q)
        rows = [[int(c) for c in r] for r in rows]
        if len(rows) != n + 1 or any(len(r) != n + 1 for r in rows):
            raise ValueError(f"rows for n = {n} must be (n + 1) x (n + 1)")
        if any(c <= 0 for r in rows for c in r):
            raise ValueError(f"a law for n = {n}, q = {q} has a probability <= 0")
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        got = (rows, int(den))
        _CACHE[key] = got
    return got


def _inputs(
    n_min: object, n_max: object, qs: Iterable[object]
) -> tuple[int, int, tuple[Fraction, ...]]:
    n_max = parse_count("n_max", n_max, 1)
    n_min = parse_count("n_min", n_min, 1)
    if n_min > n_max:
        raise InputError(f"n_min = {n_min} must be <= n_max = {n_max}")
    if isinstance(qs, (str, bytes)):
        raise InputError(f"qs = {qs!r} must be a collection of lie probabilities q")
    out = tuple(as_q(q) for q in qs)
    if not out:
        raise InputError("qs = () is empty: give at least one q in (0, 1/2)")
    return n_min, n_max, out


def _qtext(qs: Sequence[Fraction]) -> str:
    return "{" + ", ".join(str(q) for q in qs) + "}"


def _ex(out: dict, name: str, value: Fraction) -> None:
    """Store an exact value as a string and its float approximation beside it."""
    out[name] = str(value)
    out[f"{name}_float"] = float(value)


class _Smallest:
    """The counterexample with the smallest key seen so far (its dict is built lazily)."""

    def __init__(self) -> None:
        self.key: tuple | None = None
        self.value: dict | None = None

    def better(self, key: tuple) -> bool:
        return self.key is None or key < self.key

    def offer(self, key: tuple, build: Callable[..., dict], *args: object) -> None:
        if self.key is None or key < self.key:
            self.key = key
            self.value = build(*args)


def _case(q: Fraction, ints: dict[str, int], values: dict[str, Fraction]) -> dict:
    out: dict = {"q": str(q), "q_float": float(q), **ints}
    for name, v in values.items():
        _ex(out, name, v)
    return out


def _ceil(num: int, den: int) -> int:
    return -((-num) // den)


# --------------------------------------------------------------------------- §4.2, §4.5, §5.1
def _pair_scan(
    n_min: int,
    n_max: int,
    qs: tuple[Fraction, ...],
    instances: Callable[[int], Iterable[tuple[int, int, int, int]]],
    terms: Callable[[list[list[int]], int, int, int], tuple[int, int]],
    strict: bool,
    values: Callable[[list[list[int]], int, int, int], dict[str, Fraction]],
    names: tuple[str, str, str],
    domain: str,
    t0: float,
) -> Scan:
    """Shared loop of the pointwise claims: ``terms`` gives (lhs, rhs) of lhs > rhs (strict) or
    lhs >= rhs, cross-multiplied integers; ``instances(n)`` yields (i, j, k, l) index tuples."""
    fail, equal = _Smallest(), _Smallest()
    checked = e_int = 0
    per_q: dict[str, dict[str, int]] = {}
    for q in qs:
        c = f = e = 0
        for n in range(n_min, n_max + 1):
            rows, _ = _rows(n, q)
            for idx in instances(n):
                lhs, rhs = terms(rows, *idx[:3])
                c += 1
                if lhs > rhs:
                    continue
                if lhs == rhs:
                    e += 1
                    e_int += 0 < idx[1] < n
                    key = (n, idx[0], idx[1], q)
                    if equal.better(key):
                        equal.offer(key, _pair_case, q, n, idx, rows, values, names)
                    if not strict:
                        continue
                f += 1
                key = (n, idx[0], idx[1], q)
                if fail.better(key):
                    fail.offer(key, _pair_case, q, n, idx, rows, values, names)
        per_q[str(q)] = {"checked": c, "failures": f, "equalities": e}
        checked += c
    return Scan(
        holds=fail.value is None,
        checked=checked,
        counterexample=fail.value,
        domain=domain,
        extra={
            "strict": equal.value is None,
            "equalities": sum(v["equalities"] for v in per_q.values()),
            "first_equality": equal.value,
            "equalities_at_interior_s": e_int,  # 0 < s < n
            "per_q": per_q,
            "seconds": time.perf_counter() - t0,
        },
    )


def _pair_case(
    q: Fraction,
    n: int,
    idx: tuple[int, int, int, int],
    rows: list[list[int]],
    values: Callable[[list[list[int]], int, int, int], dict[str, Fraction]],
    names: tuple[str, str, str],
) -> dict:
    vals = values(rows, *idx[:3])
    ints = {"n": n, names[0]: idx[0], names[1]: idx[1]}
    if names[2]:
        ints[names[2]] = idx[2]
    out = _case(q, ints, vals)
    a, b = list(vals.values())[:2]
    out["equal"] = a == b
    return out


def _rho(rows: list[list[int]], m: int, s: int) -> Fraction:
    return Fraction(rows[m][s], rows[m][s - 1])


def _pi(rows: list[list[int]], m: int, s: int) -> Fraction:
    return Fraction(rows[m][s], rows[m + 1][s])


def rho_decreasing_in_s(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§4.2 (TODO, first bullet): rho_n(s; m) > rho_n(s + 1; m), 1 <= s <= n - 1, m = 0..n.

    Decided as P(s)^2 > P(s - 1) P(s + 1) on integer numerators (strict log-concavity).
    ``extra['strict']`` / ``extra['equalities']`` say whether equality ever occurs.
    """
    t0 = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    return _pair_scan(
        n_min, n_max, qs,
        lambda n: ((m, s, 0, 0) for m in range(n + 1) for s in range(1, n)),
        lambda r, m, s, _: (r[m][s] * r[m][s], r[m][s - 1] * r[m][s + 1]),
        True,
        lambda r, m, s, _: {"rho_s": _rho(r, m, s), "rho_s_plus_1": _rho(r, m, s + 1)},
        ("m", "s", ""),
        f"n = {n_min}..{n_max}, m = 0..n, s = 1..n-1, q in {_qtext(qs)}"
        "; claim rho_n(s;m) > rho_n(s+1;m)",
        t0,
    )


def rho_increasing_in_m(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§4.2 (TODO, second bullet): rho_n(s; m) < rho_n(s; m + 1), s = 1..n, m = 0..n - 1.

    Decided as P_{m+1}(s) P_m(s-1) > P_m(s) P_{m+1}(s-1) on integer numerators.
    """
    t0 = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    return _pair_scan(
        n_min, n_max, qs,
        lambda n: ((m, s, 0, 0) for m in range(n) for s in range(1, n + 1)),
        lambda r, m, s, _: (r[m + 1][s] * r[m][s - 1], r[m][s] * r[m + 1][s - 1]),
        True,
        lambda r, m, s, _: {"rho_m": _rho(r, m, s), "rho_m_plus_1": _rho(r, m + 1, s)},
        ("m", "s", ""),
        f"n = {n_min}..{n_max}, m = 0..n-1, s = 1..n, q in {_qtext(qs)}"
        "; claim rho_n(s;m) < rho_n(s;m+1)",
        t0,
    )


def pi_decreasing_in_s(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§4.5, first bullet: pi_n(s; m) >= pi_n(s + 1; m), s = 0..n - 1, m = 0..n - 1.

    ``extra['strict']`` says whether the inequality is always strict.
    """
    t0 = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    return _pair_scan(
        n_min, n_max, qs,
        lambda n: ((m, s, 0, 0) for m in range(n) for s in range(n)),
        lambda r, m, s, _: (r[m][s] * r[m + 1][s + 1], r[m][s + 1] * r[m + 1][s]),
        False,
        lambda r, m, s, _: {"pi_s": _pi(r, m, s), "pi_s_plus_1": _pi(r, m, s + 1)},
        ("m", "s", ""),
        f"n = {n_min}..{n_max}, m = 0..n-1, s = 0..n-1, q in {_qtext(qs)}"
        "; claim pi_n(s;m) >= pi_n(s+1;m)",
        t0,
    )


def pi_increasing_in_m(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§4.5, second bullet: pi_n(s; m) <= pi_n(s; m + 1), s = 0..n, m = 0..n - 2 (n >= 2)."""
    t0 = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    return _pair_scan(
        n_min, n_max, qs,
        lambda n: ((m, s, 0, 0) for m in range(n - 1) for s in range(n + 1)),
        # pi(s;m+1) >= pi(s;m):  P_{m+1}(s) P_{m+1}(s) >= P_m(s) P_{m+2}(s)
        lambda r, m, s, _: (r[m + 1][s] * r[m + 1][s], r[m][s] * r[m + 2][s]),
        False,
        lambda r, m, s, _: {"pi_m": _pi(r, m, s), "pi_m_plus_1": _pi(r, m + 1, s)},
        ("m", "s", ""),
        f"n = {n_min}..{n_max}, m = 0..n-2, s = 0..n, q in {_qtext(qs)}"
        "; claim pi_n(s;m) <= pi_n(s;m+1)",
        t0,
    )


def pi_net_decreasing(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§4.5, third bullet: pi_n(s; m) >= pi_n(s + 1; m + 1), s = 0..n - 1, m = 0..n - 2."""
    t0 = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    return _pair_scan(
        n_min, n_max, qs,
        lambda n: ((m, s, 0, 0) for m in range(n - 1) for s in range(n)),
        # P_m(s) / P_{m+1}(s) >= P_{m+1}(s+1) / P_{m+2}(s+1)
        lambda r, m, s, _: (r[m][s] * r[m + 2][s + 1], r[m + 1][s + 1] * r[m + 1][s]),
        False,
        lambda r, m, s, _: {"pi_s_m": _pi(r, m, s), "pi_s_plus_1_m_plus_1": _pi(r, m + 1, s + 1)},
        ("m", "s", ""),
        f"n = {n_min}..{n_max}, m = 0..n-2, s = 0..n-1, q in {_qtext(qs)}"
        "; claim pi_n(s;m) >= pi_n(s+1;m+1)",
        t0,
    )


def claim_5_1(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§5.1, Claim (5.1): rho_n(s; n) >= rho_n(s; m) for every m = 0..n and s = 1..n.

    The all-ones collection maximises P[A(y) = s] / P[A(y) = s - 1]; the law of A(y) depends
    on y only through its number of ones m, so y ranges over m = 0..n.  Equality at m = n is
    trivial; ``extra['equalities']`` counts equalities at m < n.
    """
    t0 = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    return _pair_scan(
        n_min, n_max, qs,
        lambda n: ((m, s, n, 0) for m in range(n) for s in range(1, n + 1)),
        # rho(s;n) >= rho(s;m): P_n(s) P_m(s-1) >= P_m(s) P_n(s-1)
        lambda r, m, s, n: (r[n][s] * r[m][s - 1], r[m][s] * r[n][s - 1]),
        False,
        lambda r, m, s, n: {"rho_all_ones": _rho(r, n, s), "rho_m": _rho(r, m, s)},
        ("m", "s", ""),
        f"n = {n_min}..{n_max}, m = 0..n-1 (m = n is equality), s = 1..n, q in {_qtext(qs)}"
        "; claim rho_n(s;n) >= rho_n(s;m)",
        t0,
    )


# --------------------------------------------------------------------------- §4.3 delta pieces
def _breakpoints(M: int, b: int, low: int) -> list[int]:
    """Scaled breakpoints 2b(M - kb) = (mu - k) * 2b^2, k = 1, 2, ..., that exceed ``low``.

    mu = M / b; ceil(mu - delta) = k exactly on delta in [mu - k, mu - k + 1), so
    max(ceil(mu - delta), 1) changes only at delta = mu - k, k >= 1.
    """
    out = []
    k = 1
    while True:
        v = 2 * b * (M - k * b)
        if v <= low:
            return out
        out.append(v)
        k += 1


def _pieces(low: int, bps: list[int], step: int) -> list[tuple[int, int | None, bool, int]]:
    """The pieces (lo, hi, lo_closed, representative) of (low, inf) cut at sorted ``bps``.

    Every step function of delta used here is right-continuous (constant on [bp_i, bp_i+1)),
    so a piece [bp_i, bp_i+1) is represented by bp_i itself, and the first piece (low, bp_0)
    by its midpoint (all values even, so the midpoint is an integer); with no breakpoint the
    single piece (low, inf) is represented by low + step.
    """
    if not bps:
        return [(low, None, False, low + step)]
    out = [(low, bps[0], False, (low + bps[0]) // 2)]
    for i, v in enumerate(bps):
        out.append((v, bps[i + 1] if i + 1 < len(bps) else None, True, v))
    return out


def _interval_text(lo: int, hi: int | None, lo_closed: bool, scale: int) -> str:
    left = "[" if lo_closed else "("
    right = "inf)" if hi is None else f"{Fraction(hi, scale)})"
    return f"{left}{Fraction(lo, scale)}, {right}"


def _prop_case(
    q: Fraction, n: int, m: int, sm: int, s0p: int, piece: list, rows: list[list[int]], S: int
) -> dict:
    a, b = q.numerator, q.denominator
    lo, hi, lo_closed, rep = piece
    out = _case(
        q,
        {"n": n, "m": m, "s_m_delta": sm, "s_0_delta_plus_1": s0p},
        {
            "delta": Fraction(rep, S),
            "npq": Fraction(n * a * (b - a), b * b),
            "mu_m": Fraction(n * a + m * (b - 2 * a), b),
            "mu_0": Fraction(n * a, b),
            "R_m_delta": _rho(rows, m, sm),
            "R_0_delta_plus_1": _rho(rows, 0, s0p),
        },
    )
    out["delta_interval"] = _interval_text(lo, hi, lo_closed, S)
    out["equal"] = out["R_m_delta"] == out["R_0_delta_plus_1"]
    return out


def proposition_4_1(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§4.3, Proposition 4.1: R_m(delta) < R_0(delta + 1) for all m, provided delta > npq.

    s_m(delta) = max(ceil(mu_m - delta), 1), R_m(delta) = rho_n(s_m(delta); m).  Complete over
    every real delta > npq: (s_m(delta), s_0(delta + 1)) is a step function of delta with
    breakpoints mu_m - k and mu_0 - k (k >= 1, which also cut s_0(delta)); every piece of
    (npq, inf) is visited, and every distinct pair (s_m(delta), s_0(delta + 1)) is tested once
    (the set of delta giving one pair is an interval, reported as ``delta_interval`` with a
    rational ``delta`` inside it).  m = 0..n.

    ``extra``: ``smallest_m_ge_1`` (the smallest counterexample with m >= 1); ``unclamped``
    (only pieces with ceil(mu_m - delta) >= 2 and ceil(mu_0 - delta - 1) >= 2);
    ``proof_assumption`` (only pieces with s_0(delta) >= 2, the proof's "Assume s_0(delta) >= 2");
    ``failures_by_value_one``: failing pairs classified by which of s_m, s_0(delta+1) is 1.
    """
    t0 = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    regions = ("all", "unclamped", "proof_assumption")
    best = {r: _Smallest() for r in regions}
    best_m1 = _Smallest()
    checked = dict.fromkeys(regions, 0)
    fails = dict.fromkeys(regions, 0)
    by_one = {"both": 0, "s_m_only": 0, "s_0_only": 0, "neither": 0}
    per_q: dict[str, dict[str, int]] = {}
    for q in qs:
        a, b = q.numerator, q.denominator
        S = 2 * b * b  # delta = D / S
        cq = dict.fromkeys(regions, 0)
        fq = dict.fromkeys(regions, 0)
        for n in range(n_min, n_max + 1):
            rows, _ = _rows(n, q)
            low = 2 * n * a * (b - a)  # npq * S
            M0 = n * a  # mu_0 * b
            bp0 = _breakpoints(M0, b, low)
            P0 = rows[0]
            for m in range(n + 1):
                Mm = M0 + m * (b - 2 * a)
                bps = sorted(set(_breakpoints(Mm, b, low)).union(bp0))
                seen: dict[str, dict[tuple[int, int], list]] = {r: {} for r in regions}
                for piece in _pieces(low, bps, S):
                    D = piece[3]
                    cm = _ceil(2 * b * Mm - D, S)  # ceil(mu_m - delta)
                    c0 = _ceil(2 * b * M0 - D, S)  # ceil(mu_0 - delta)
                    pair = (max(cm, 1), max(c0 - 1, 1))
                    flags = (True, cm >= 2 and c0 - 1 >= 2, c0 >= 2)
                    for r, inside in zip(regions, flags, strict=True):
                        if not inside:
                            continue
                        got = seen[r].get(pair)
                        if got is None:
                            seen[r][pair] = list(piece)
                        else:  # the pieces of one pair are consecutive: extend the interval
                            got[1] = piece[1]
                Pm = rows[m]
                verdict: dict[tuple[int, int], bool] = {}
                for r in regions:
                    for pair, piece in seen[r].items():
                        sm, s0p = pair
                        ok = verdict.get(pair)
                        if ok is None:  # R_m(delta) < R_0(delta + 1)
                            ok = Pm[sm] * P0[s0p - 1] < P0[s0p] * Pm[sm - 1]
                            verdict[pair] = ok
                        cq[r] += 1
                        if ok:
                            continue
                        fq[r] += 1
                        key = (n, m, sm, s0p, q)
                        args = (q, n, m, sm, s0p, piece, rows, S)
                        best[r].offer(key, _prop_case, *args)
                        if r == "all":
                            if m >= 1:
                                best_m1.offer(key, _prop_case, *args)
                            cls = (
                                "both" if sm == 1 and s0p == 1
                                else "s_m_only" if sm == 1
                                else "s_0_only" if s0p == 1
                                else "neither"
                            )
                            by_one[cls] += 1
        per_q[str(q)] = {
            **{f"pairs_{r}": cq[r] for r in regions},
            **{f"failures_{r}": fq[r] for r in regions},
        }
        for r in regions:
            checked[r] += cq[r]
            fails[r] += fq[r]
    base = f"n = {n_min}..{n_max}, m = 0..n, every real delta > npq, q in {_qtext(qs)}"
    return Scan(
        holds=best["all"].value is None,
        checked=checked["all"],
        counterexample=best["all"].value,
        domain=base + "; claim R_m(delta) < R_0(delta+1); instances = distinct pairs"
        " (s_m(delta), s_0(delta+1)) per (n, m, q)",
        extra={
            "failures": fails["all"],
            "smallest_m_ge_1": best_m1.value,
            "unclamped": {
                "holds": best["unclamped"].value is None,
                "checked": checked["unclamped"],
                "failures": fails["unclamped"],
                "counterexample": best["unclamped"].value,
                "domain": base + ", restricted to ceil(mu_m - delta) >= 2 and"
                " ceil(mu_0 - delta - 1) >= 2",
            },
            "proof_assumption": {
                "holds": best["proof_assumption"].value is None,
                "checked": checked["proof_assumption"],
                "failures": fails["proof_assumption"],
                "counterexample": best["proof_assumption"].value,
                "domain": base + ", restricted to s_0(delta) = ceil(mu_0 - delta) >= 2",
            },
            "failures_by_value_one": by_one,
            "per_q": per_q,
            "seconds": time.perf_counter() - t0,
        },
    )


def _mono_case(
    q: Fraction, n: int, m: int, s1: int, s2: int, d1: int, d2: int, rows: list[list[int]], S: int
) -> dict:
    out = _case(
        q,
        {"n": n, "m": m, "s_m_delta": s1, "s_m_delta_prime": s2},
        {
            "delta": Fraction(d1, S),
            "delta_prime": Fraction(d2, S),
            "R_m_delta": _rho(rows, m, s1),
            "R_m_delta_prime": _rho(rows, m, s2),
        },
    )
    out["part"] = "R_m(delta) <= R_m(delta')"
    return out


def _shift_case(q: Fraction, n: int, m: int, D: int, sm: int, sm1: int, S: int) -> dict:
    out = _case(q, {"n": n, "m": m, "s_m_delta": sm, "s_m_delta_plus_1": sm1},
                {"delta": Fraction(D, S)})
    out["part"] = "s_m(delta+1) = max(s_m(delta) - 1, 1)"
    return out


def R_monotone(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§4.3: R_m(delta) <= R_m(delta') for 0 < delta <= delta', and s_m(delta + 1) =
    max(s_m(delta) - 1, 1) for every real delta > 0, m = 0..n.

    Both s_m(delta) and s_m(delta + 1) are step functions of delta with breakpoints mu_m - k;
    every piece of (0, inf) is visited.  Monotonicity is checked between consecutive distinct
    values of s_m along increasing delta (exact comparisons are transitive, so this covers
    every delta <= delta'); the shift identity on every piece, computing s_m(delta + 1)
    directly from ceil(mu_m - delta - 1).
    """
    t0 = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    mono, shift = _Smallest(), _Smallest()
    n_mono = n_shift = 0
    per_q: dict[str, dict[str, int]] = {}
    for q in qs:
        a, b = q.numerator, q.denominator
        S = 2 * b * b
        cm_q = cs_q = fm = fs = 0
        for n in range(n_min, n_max + 1):
            rows, _ = _rows(n, q)
            for m in range(n + 1):
                Mm = n * a + m * (b - 2 * a)
                P = rows[m]
                prev: tuple[int, int] | None = None  # (s, representative delta)
                for piece in _pieces(0, sorted(_breakpoints(Mm, b, 0)), S):
                    D = piece[3]
                    sm = max(_ceil(2 * b * Mm - D, S), 1)
                    sm1 = max(_ceil(2 * b * Mm - D - S, S), 1)
                    cs_q += 1
                    if sm1 != max(sm - 1, 1):
                        fs += 1
                        shift.offer((n, m, Fraction(D, S), q), _shift_case, q, n, m, D, sm, sm1, S)
                    if prev is not None and prev[0] != sm:
                        s1, d1 = prev
                        cm_q += 1  # rho(s1; m) <= rho(sm; m)
                        if P[s1] * P[sm - 1] > P[sm] * P[s1 - 1]:
                            fm += 1
                            mono.offer(
                                (n, m, s1, sm, q), _mono_case, q, n, m, s1, sm, d1, D, rows, S
                            )
                    if prev is None or prev[0] != sm:
                        prev = (sm, D)
        per_q[str(q)] = {"monotone_checked": cm_q, "monotone_failures": fm,
                         "shift_checked": cs_q, "shift_failures": fs}
        n_mono += cm_q
        n_shift += cs_q
    cands = [c for c in (mono, shift) if c.value is not None]
    first = min(cands, key=lambda c: c.key[:2]) if cands else None
    return Scan(
        holds=not cands,
        checked=n_mono + n_shift,
        counterexample=None if first is None else first.value,
        domain=f"n = {n_min}..{n_max}, m = 0..n, every real delta > 0, q in {_qtext(qs)};"
        " monotonicity between consecutive distinct s_m(delta), shift identity on every piece",
        extra={
            "monotone": {"holds": mono.value is None, "checked": n_mono,
                         "counterexample": mono.value},
            "shift_identity": {"holds": shift.value is None, "checked": n_shift,
                               "counterexample": shift.value},
            "per_q": per_q,
            "seconds": time.perf_counter() - t0,
        },
    )


# --------------------------------------------------------------------------- §4.6 quantiles
def _quant_case(
    q: Fraction, n: int, m: int, alpha: Fraction, t0: int, t1: int, thr: Fraction, part: str
) -> dict:
    out = _case(
        q,
        {"n": n, "m": m, "tau_m_minus_1": t0, "tau_m": t1},
        {"alpha": alpha, "threshold": thr},
    )
    out["part"] = part
    out["threshold_is"] = "F_{n,m-1}(tau) - (p-q) P_{n-1,m-1}(tau), tau = tau_n(m-1)"
    return out


def quantile_claims(
    n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1
) -> tuple[Scan, Scan]:
    """§4.6, both claims in one pass: (:func:`quantile_step`, :func:`quantile_iff`).

    tau_n(m) = inf{y : F_{n,m}(y) >= alpha} (the alpha-quantile).  For m = 1..n:
    (step) tau_n(m) in {tau_n(m-1), tau_n(m-1) + 1};
    (iff) tau_n(m) = tau_n(m-1)  <=>  F_{n,m-1}(tau) - alpha >= (p - q) P_{n-1,m-1}(tau),
    tau = tau_n(m-1), with P_{0,0}(0) = 1 at n = 1.

    Every alpha in (0, 1]: both answers depend on alpha only through the predicates
    alpha <= c for c among the values F_{n,m-1}(y), F_{n,m}(y) and the thresholds
    T(t) = F_{n,m-1}(t) - (p - q) P_{n-1,m-1}(t) (y, t = 0..n), so they are constant on each
    (c_i, c_i+1]; every breakpoint c in (0, 1] and the midpoint of every gap (including the
    one after 0) is tested.  All values are integers over 2 b^n.
    """
    t_start = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    step_b, iff_b = _Smallest(), _Smallest()
    checked = 0
    step_fail = iff_fail = 0
    per_q: dict[str, dict[str, int]] = {}
    for q in qs:
        a, b = q.numerator, q.denominator
        gap = b - 2 * a  # (p - q) b
        cq = sf = jf = 0
        for n in range(n_min, n_max + 1):
            rows, den = _rows(n, q)
            prev_rows, _ = _rows(n - 1, q)  # numerators over b^(n-1)
            two = 2 * den
            cums = [[2 * x for x in accumulate(r)] for r in rows]
            for m in range(1, n + 1):
                Fp, Fc = cums[m - 1], cums[m]
                Pn1 = prev_rows[m - 1]
                T = [Fp[t] - 2 * gap * (Pn1[t] if t < n else 0) for t in range(n + 1)]
                cuts = sorted({c for c in (*Fp, *Fc, *T) if 0 < c <= two})
                alphas = []
                lo = 0
                for c in cuts:
                    alphas.append((lo + c) // 2)
                    alphas.append(c)
                    lo = c
                for al in alphas:
                    t0 = bisect_left(Fp, al)
                    t1 = bisect_left(Fc, al)
                    cq += 1
                    if t1 - t0 not in (0, 1):
                        sf += 1
                        key = (n, m, Fraction(al, two), q)
                        if step_b.better(key):
                            step_b.offer(key, _quant_case, q, n, m, key[2], t0, t1,
                                         Fraction(T[t0], two), "step")
                    if (t1 == t0) != (al <= T[t0]):
                        jf += 1
                        key = (n, m, Fraction(al, two), q)
                        if iff_b.better(key):
                            iff_b.offer(key, _quant_case, q, n, m, key[2], t0, t1,
                                        Fraction(T[t0], two), "iff")
        per_q[str(q)] = {"checked": cq, "step_failures": sf, "iff_failures": jf}
        checked += cq
        step_fail += sf
        iff_fail += jf
    seconds = time.perf_counter() - t_start
    dom = (
        f"n = {n_min}..{n_max}, m = 1..n, every real alpha in (0, 1] (all breakpoints and one"
        f" point per gap), q in {_qtext(qs)}"
    )
    extra = {"per_q": per_q, "seconds_both": seconds}
    return (
        Scan(step_b.value is None, checked, step_b.value,
             dom + "; claim tau_n(m) in {tau_n(m-1), tau_n(m-1)+1}",
             {**extra, "failures": step_fail}),
        Scan(iff_b.value is None, checked, iff_b.value,
             dom + "; claim tau_n(m) = tau_n(m-1) iff F_{n,m-1}(tau_n(m-1)) - alpha >="
             " (p-q) P_{n-1,m-1}(tau_n(m-1)) (P_{0,0}(0) = 1)",
             {**extra, "failures": iff_fail}),
    )


def quantile_step(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§4.6, Claim: tau_n(m) in {tau_n(m-1), tau_n(m-1) + 1}, every alpha in (0, 1]."""
    return quantile_claims(n_max, qs, n_min)[0]


def quantile_iff(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§4.6: tau_n(m) = tau_n(m-1) iff F_{n,m-1}(tau_n(m-1)) - alpha >= (p-q) P_{n-1,m-1}(.)."""
    return quantile_claims(n_max, qs, n_min)[1]


# --------------------------------------------------------------------------- §5.1 TODO
def _argmax_pattern(
    n_min: int, n_max: int, qs: tuple[Fraction, ...], x1: int
) -> tuple[_Smallest, int, int, dict]:
    """Maximisers over k of the privacy ratio of §5.1 when the changed user holds x1.

    x1 = 0, x1' = 1: pi = P_{n,k+1}(s) / P_{n,k}(s) (x~ has k ones);
    x1 = 1, x1' = 0: pi = P_{n,k}(s) / P_{n,k+1}(s).  Expected pattern: the single maximiser
    k* = 0 (x1 = 0) or k* = n - 1 (x1 = 1) for 1 <= s <= n - 1, and a tie of every k at
    s = 0 and s = n.  Also checks the closed form of the maximum (Bin(n, q) algebra):
    x1 = 0: (s p/q + (n - s) q/p) / n;  x1 = 1: ((n - s) p/q + s q/p) / n.
    """
    bad = _Smallest()
    checked = 0
    closed_ok = 0
    examples: dict[str, list[dict]] = {}
    for q in qs:
        a, b = q.numerator, q.denominator
        for n in range(n_min, n_max + 1):
            rows, _ = _rows(n, q)
            for s in range(n + 1):
                best_num = best_den = 0
                arg: list[int] = []
                for k in range(n):
                    num, den = (rows[k + 1][s], rows[k][s]) if x1 == 0 else (
                        rows[k][s], rows[k + 1][s])
                    checked += 1
                    if not arg:
                        best_num, best_den, arg = num, den, [k]
                        continue
                    d = num * best_den - best_num * den
                    if d > 0:
                        best_num, best_den, arg = num, den, [k]
                    elif d == 0:
                        arg.append(k)
                expected = list(range(n)) if s in (0, n) else [0 if x1 == 0 else n - 1]
                w1, w2 = (s, n - s) if x1 == 0 else (n - s, s)
                # max == (w1 (b-a)^2 + w2 a^2) / (n a (b-a))
                closed = best_num * n * a * (b - a) == best_den * (w1 * (b - a) ** 2 + w2 * a * a)
                closed_ok += closed
                if arg != expected or not closed:
                    bad.offer((n, s, q), lambda n=n, s=s, q=q, arg=arg, bn=best_num, bd=best_den,
                              ok=closed: {"n": n, "s": s, "q": str(q), "argmax_k": arg,
                                          "max": str(Fraction(bn, bd)),
                                          "max_float": bn / bd, "closed_form_matches": ok})
                if n <= 3 and q == qs[0]:
                    examples.setdefault(f"n={n}, q={q}", []).append(
                        {"s": s, "argmax_k": arg, "max": str(Fraction(best_num, best_den))}
                    )
    return bad, checked, closed_ok, examples


def x1_zero_maximiser(n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1) -> Scan:
    """§5.1, the TODO "what about when x1 = 0?": which background maximises the privacy ratio.

    x = (0, x~), x' = (1, x~), x~ in D^{n-1} with k ones (k = 0..n-1; the law depends on x~
    only through k): pi(s, x, x1') = P[A(x') = s] / P[A(x) = s] = P_{n,k+1}(s) / P_{n,k}(s).
    For every n, q and s = 0..n the full set of maximising k is found exactly (ties kept).
    ``holds``: for every n, s, q the maximiser set is {0} (x~ all zeros) when 1 <= s <= n-1 and
    all of 0..n-1 (every k ties) when s = 0 or s = n, and the maximum equals the closed form
    (s p/q + (n-s) q/p)/n.  ``extra['x1_one']``: the same for x1 = 1, x1' = 0 (the note's case;
    its claim is the maximiser k = n - 1, all ones), closed form ((n-s) p/q + s q/p)/n.
    """
    t0 = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    bad0, c0, ok0, ex0 = _argmax_pattern(n_min, n_max, qs, 0)
    bad1, c1, ok1, ex1 = _argmax_pattern(n_min, n_max, qs, 1)
    answer0 = (
        "x1 = 0: the maximiser is k = 0 (x~ all zeros, so x = all zeros, x' = one 1) for every"
        " 1 <= s <= n-1, uniquely; at s = 0 and s = n every k ties (values q/p and p/q); the"
        " maximum is (s p/q + (n-s) q/p)/n, largest p/q at s = n"
    )
    answer1 = (
        "x1 = 1: the maximiser is k = n-1 (x~ all ones, x = all ones) for every 1 <= s <= n-1,"
        " uniquely; at s = 0 and s = n every k ties (values p/q and q/p); the maximum is"
        " ((n-s) p/q + s q/p)/n, largest p/q at s = 0"
    )
    dom = f"n = {n_min}..{n_max}, s = 0..n, k = 0..n-1, q in {_qtext(qs)}"
    return Scan(
        holds=bad0.value is None,
        checked=c0,
        counterexample=bad0.value,
        domain=dom + "; x1 = 0, x1' = 1, ratio P_{n,k+1}(s)/P_{n,k}(s)",
        extra={
            "answer": answer0 if bad0.value is None else "pattern broken: see counterexample",
            "closed_form_matches": ok0,
            "examples": ex0,
            "x1_one": {
                "holds": bad1.value is None,
                "checked": c1,
                "counterexample": bad1.value,
                "answer": answer1 if bad1.value is None else "pattern broken: see counterexample",
                "closed_form_matches": ok1,
                "examples": ex1,
                "domain": dom + "; x1 = 1, x1' = 0, ratio P_{n,k}(s)/P_{n,k+1}(s)",
            },
            "seconds": time.perf_counter() - t0,
        },
    )


# --------------------------------------------------------------------------- §4.8
def location_shift(
    ns: Iterable[object] = SHIFT_NS,
    qs: Iterable[object] = SHIFT_QS,
    tolerance: Fraction = Fraction(11, 10),
) -> Scan:
    """§4.8: F_{n,m}(x) ~ F_{n,0}(x - m(p - q)); the exact error
    D_n = max_{m = 0..n} sup_{x real} |F_{n,m}(x) - F_{n,0}(x - m(p - q))|.

    Both functions are right-continuous steps, jumping at the integers and at j + c,
    c = m(p - q); their difference is constant on every piece [x_i, x_i+1) between these
    points, so the sup is a max over x in {k, k + frac(c) : k = -1..n+1}.  (For x < 0 both
    vanish; for x >= n the difference 1 - F_{n,0}(x - c) is largest at x = n, so points past
    n + 1 add nothing.)  ``extra['table']``: per (q, n) D_n exact and float, the argmax (m, x),
    and D_n sqrt(n).  ``holds``: for every q, max/min of D_n sqrt(n) over ns <= tolerance
    (1.1), i.e. the error scales like n^(-1/2).
    """
    t0 = time.perf_counter()
    if isinstance(ns, (str, bytes)):
        raise InputError(f"ns = {ns!r} must be a collection of n")
    ns_t = tuple(parse_count("n", n, 1) for n in ns)
    if not ns_t:
        raise InputError("ns = () is empty")
    qs_t = tuple(as_q(q) for q in qs)
    if not qs_t:
        raise InputError("qs = () is empty: give at least one q in (0, 1/2)")
    table: dict[str, dict[str, dict]] = {}
    checked = 0
    bad = None
    spreads: dict[str, float] = {}
    ratios: dict[str, list[float]] = {}
    for q in qs_t:
        a, b = q.numerator, q.denominator
        gap = b - 2 * a
        row: dict[str, dict] = {}
        for n in ns_t:
            rows, den = _rows(n, q)
            cums = [list(accumulate(r)) for r in rows]

            def F(m: int, j: int, cums: list[list[int]] = cums, n: int = n, den: int = den) -> int:
                return 0 if j < 0 else den if j >= n else cums[m][j]

            best, arg = -1, (0, Fraction(0))
            for m in range(n + 1):
                cfl, rem = divmod(m * gap, b)  # c = m(p-q) = cfl + rem/b
                ccl = cfl + (rem > 0)
                for k in range(-1, n + 2):
                    v = abs(F(m, k) - F(0, k - ccl))  # x = k: floor(k - c) = k - ceil(c)
                    checked += 1
                    if v > best:
                        best, arg = v, (m, Fraction(k))
                    if rem:
                        v = abs(F(m, k) - F(0, k - cfl))  # x = k + frac(c)
                        checked += 1
                        if v > best:
                            best, arg = v, (m, k + Fraction(rem, b))
            d = Fraction(best, den)
            row[str(n)] = {
                "D_n": str(d),
                "D_n_float": float(d),
                "argmax_m": arg[0],
                "argmax_x": str(arg[1]),
                "D_n_sqrt_n": float(d) * math.sqrt(n),
            }
        table[str(q)] = row
        vals = [v["D_n_sqrt_n"] for v in row.values()]
        spread = max(vals) / min(vals)
        spreads[str(q)] = spread
        ratios[str(q)] = [b_ / a_ for a_, b_ in zip(vals, vals[1:], strict=False)]
        # the decision compares exact squares: (max D sqrt n / min D sqrt n)^2 <= tol^2
        exact = [(Fraction(v["D_n"]) ** 2 * int(n)) for n, v in row.items()]
        if max(exact) > tolerance**2 * min(exact) and bad is None:
            bad = {"q": str(q), "D_n_sqrt_n": {n: v["D_n_sqrt_n"] for n, v in row.items()},
                   "max_over_min": spread, "tolerance": str(tolerance)}
    return Scan(
        holds=bad is None,
        checked=checked,
        counterexample=bad,
        domain=(
            f"n in {list(ns_t)}, q in {_qtext(qs_t)}, m = 0..n, real x (exact: every piece);"
            f" claim max/min over n of D_n sqrt(n) <= {tolerance}"
        ),
        extra={
            "table": table,
            "max_over_min": spreads,
            "consecutive_ratios": ratios,  # D sqrt(n) at the next n over D sqrt(n) at this n
            "seconds": time.perf_counter() - t0,
        },
    )


# --------------------------------------------------------------------------- §4.3 proof step
def _ceil_case(
    q: Fraction, n: int, m: int, D: int, S: int, sm: int, s0: int, d0: Fraction, dm: Fraction,
    case: str,
) -> dict:
    a, b = q.numerator, q.denominator
    c = Fraction(m * (b - 2 * a), b)
    out = _case(
        q,
        {"n": n, "m": m, "s_m": sm, "s_0": s0, "s_m_minus_s_0": sm - s0,
         "ceil_m_p_minus_q": math.ceil(c), "floor_m_p_minus_q": math.floor(c)},
        {"delta": Fraction(D, S), "delta_0": d0, "delta_m": dm, "m_p_minus_q": c,
         "npq": Fraction(n * a * (b - a), b * b)},
    )
    out["case"] = case
    return out


def proof_ceiling_identity(
    n_max: int = N_MAX, qs: Iterable[object] = Q_SET, n_min: int = 1
) -> Scan:
    """§4.3, proof of Proposition 4.1: the step "s_m - s_0 = ceil(m(p - q))".

    delta_j = mu_j - ceil(mu_j - delta), s_j = ceil(mu_j - delta - 1) (clamp ignored), m = 1..n.
    The proof proves the identity when delta' = delta_0 (delta_0 >= delta_m) and calls the case
    delta' = delta_m "similar".  Both s_m - s_0 and the case are unchanged by delta -> delta + 1
    (every ceil drops by 1, every delta_j rises by 1), so one period (npq, npq + 1] of delta,
    cut at its breakpoints mu_j - k, covers every real delta > npq.

    ``holds``: the identity holds in both cases.  ``extra['case_delta_0']``: the proof's case;
    ``extra['case_delta_m']``: the "similar" case, whether s_m - s_0 = floor(m(p - q)) there,
    and the smallest instance where it differs from ceil(m(p - q)) (also ``counterexample``);
    ``extra['in_proof_region']``: the same restricted to s_0(delta) >= 2, i.e. npq < delta <
    mu_0 - 1 (scanned directly, no periodicity used).
    """
    t0 = time.perf_counter()
    n_min, n_max, qs = _inputs(n_min, n_max, qs)
    cases = ("case_delta_0", "case_delta_m")
    fail = {c: _Smallest() for c in cases}
    floor_fail = _Smallest()
    region_fail = _Smallest()
    cnt = dict.fromkeys(cases, 0)
    bad = dict.fromkeys(cases, 0)
    floor_bad = 0
    region_cnt = region_bad = 0
    for q in qs:
        a, b = q.numerator, q.denominator
        S = 2 * b * b
        for n in range(n_min, n_max + 1):
            low = 2 * n * a * (b - a)
            M0 = n * a
            top0 = 2 * b * (M0 - b)  # (mu_0 - 1) * S: s_0(delta) >= 2 iff delta < mu_0 - 1
            for m in range(1, n + 1):
                Mm = M0 + m * (b - 2 * a)
                ceil_c = _ceil(m * (b - 2 * a), b)
                floor_c = (m * (b - 2 * a)) // b
                # one period: the breakpoint of each progression in (low, low + S]
                bps = set()
                for M in (M0, Mm):
                    k = (2 * b * M - low - 1) // S  # largest k with 2b(M - kb) > low
                    bps.add(2 * b * (M - k * b))
                period = [(p[3], True) for p in _pieces(low, sorted(bps), S)]
                # the proof's region, scanned directly
                if top0 > low:
                    rb = sorted(
                        v for v in set(_breakpoints(Mm, b, low)).union(_breakpoints(M0, b, low))
                        if v <= top0
                    )
                    region = [(p[3], False) for p in _pieces(low, rb, S) if p[3] < top0]
                else:
                    region = []
                for D, in_period in (*period, *region):
                    c0 = _ceil(2 * b * M0 - D, S)
                    cm = _ceil(2 * b * Mm - D, S)
                    s0, sm = c0 - 1, cm - 1
                    d0n, dmn = M0 - c0 * b, Mm - cm * b  # delta_j * b
                    case = cases[0] if d0n >= dmn else cases[1]
                    diff = sm - s0
                    args = (q, n, m, D, S, sm, s0, Fraction(d0n, b), Fraction(dmn, b), case)
                    key = (n, m, Fraction(D, S), q)
                    if not in_period:
                        region_cnt += 1
                        if diff != ceil_c:
                            region_bad += 1
                            if region_fail.better(key):
                                region_fail.offer(key, _ceil_case, *args)
                        continue
                    cnt[case] += 1
                    if diff != ceil_c:
                        bad[case] += 1
                        if fail[case].better(key):
                            fail[case].offer(key, _ceil_case, *args)
                    if case == cases[1] and diff != floor_c:
                        floor_bad += 1
                        if floor_fail.better(key):
                            floor_fail.offer(key, _ceil_case, *args)
    found = [fail[c] for c in cases if fail[c].value is not None]
    first = min(found, key=lambda s: s.key) if found else None
    return Scan(
        holds=first is None,
        checked=cnt[cases[0]] + cnt[cases[1]],
        counterexample=None if first is None else first.value,
        domain=(
            f"n = {n_min}..{n_max}, m = 1..n, every real delta > npq (one period, by pieces),"
            f" q in {_qtext(qs)}; claim s_m - s_0 = ceil(m(p-q)) with s_j = ceil(mu_j - delta"
            " - 1)"
        ),
        extra={
            cases[0]: {"holds": fail[cases[0]].value is None, "checked": cnt[cases[0]],
                       "failures": bad[cases[0]], "counterexample": fail[cases[0]].value},
            cases[1]: {
                "equals_ceil_always": fail[cases[1]].value is None,
                "checked": cnt[cases[1]],
                "differs_from_ceil": bad[cases[1]],
                "smallest_differing_from_ceil": fail[cases[1]].value,
                "equals_floor_always": floor_fail.value is None,
                "floor_counterexample": floor_fail.value,
            },
            "in_proof_region": {
                "holds": region_fail.value is None,
                "checked": region_cnt,
                "failures": region_bad,
                "counterexample": region_fail.value,
                "domain": "npq < delta < mu_0 - 1 (s_0(delta) >= 2), both cases",
            },
            "seconds": time.perf_counter() - t0,
        },
    )


#: Scans 1-8 and 10 (the ones run by the bench over n = 1..N_MAX, Q_SET), by name.
SCANS: dict[str, Callable[..., Scan]] = {
    "rho_decreasing_in_s": rho_decreasing_in_s,
    "rho_increasing_in_m": rho_increasing_in_m,
    "pi_decreasing_in_s": pi_decreasing_in_s,
    "pi_increasing_in_m": pi_increasing_in_m,
    "pi_net_decreasing": pi_net_decreasing,
    "proposition_4_1": proposition_4_1,
    "R_monotone": R_monotone,
    "quantile_step": quantile_step,
    "quantile_iff": quantile_iff,
    "claim_5_1": claim_5_1,
    "x1_zero_maximiser": x1_zero_maximiser,
    "proof_ceiling_identity": proof_ceiling_identity,
}
