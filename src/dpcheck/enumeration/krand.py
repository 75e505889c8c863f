"""Exact laws and privacy ratios of K-randomization (Zhilyaev and Zeber 2016, §2-§4).

Each of n users holds an L-bit vector; every bit is flipped independently with
probability q (kept with p = 1 - q), 0 < q < 1/2; only the histogram s of the
2^L possible reports is released (§2.2, A = Φ ∘ R).  Everything here is exact:
with q = a/b in lowest terms a report has probability

    P[R(v) = w] = p^(L - d(v, w)) q^d(v, w) = (b - a)^(L - d) a^d / b^L       (§2.1)

so every law is an integer polynomial over the common denominator b^(nL).

Reports and vectors are the integers 0 .. 2^L - 1 (bit l of the integer is
bit l of the vector); a histogram is a tuple of 2^L counts indexed by report;
a collection is given by its *type counts* (how many users hold each vector),
since the law depends on the collection only through them (eq (2.1)).

L = 1: A_n(m) ~ Bin(m, p) + Bin(n - m, q) (§4) has the generating polynomial
(q + p z)^m (p + q z)^(n - m); :func:`pmf_rows` gives all m at once, and the
histogram of L = 1 is (n - s, s) in report order (0, 1).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from flint import fmpz_poly

from dpcheck.errors import InputError
from dpcheck.numeric.params import parse_count, parse_number, short, shown

#: Largest number of histogram outcomes an exact law may hold (memory: ~1 GB of ints).
MAX_OUTCOMES = 20_000_000
#: Largest n*L for brute force over all 2^(nL) randomizations.
MAX_BRUTE_BITS = 22


# --------------------------------------------------------------------------- input
def as_q(q: object) -> Fraction:
    """The lie probability q of §2.1 as an exact Fraction in [1e-300, 1/2).

    Below 1e-300, ln(p/q) leaves the float64 range the profiles compute in.
    """
    value = parse_number("q", q)
    if not 0 < value < Fraction(1, 2):
        given = q.strip() if isinstance(q, str) and len(q) <= 40 else short(value)
        given = repr(q) if isinstance(q, float) else given
        raise InputError(f"q = {given} must lie in (0, 1/2) (§2.1)")
    if value < Fraction(1, 10**300):
        raise InputError(f"q = {shown(q)} is below the floor of 1e-300 (eps0 = ln(p/q) <= 690)")
    return value


def outcome_count(n: int, L: int) -> int:
    """|S_n| = C(n + 2^L - 1, 2^L - 1): the histograms of n reports (§2.2)."""
    k = 2**L
    return math.comb(n + k - 1, k - 1)


def check_size(n: int, L: int) -> int:
    """The number of outcomes, or InputError if above :data:`MAX_OUTCOMES`."""
    if L > 6:
        raise InputError(f"L = {L} is beyond the exact engine (2^L reports; limit L <= 6)")
    size = outcome_count(n, L)
    if size > MAX_OUTCOMES:
        raise InputError(
            f"n = {n}, L = {L} gives {size} histograms, beyond the exact limit of"
            f" {MAX_OUTCOMES} (MAX_OUTCOMES)"
        )
    return size


# --------------------------------------------------------------------------- L = 1
def _ab(q: Fraction) -> tuple[int, int]:
    return q.numerator, q.denominator


def pmf_numerators(n: int, m: int, q: Fraction) -> list[int]:
    """Numerators of P[A_n(m) = s], s = 0..n, over b^n (§4: (q + p z)^m (p + q z)^(n-m))."""
    a, b = _ab(q)
    poly = fmpz_poly([a, b - a]) ** m * fmpz_poly([b - a, a]) ** (n - m)
    coeffs = [int(c) for c in poly.coeffs()]
    return coeffs + [0] * (n + 1 - len(coeffs))


def pmf(n: int, m: int, q: object) -> list[Fraction]:
    """P[A_n(m) = s] for s = 0..n, exact (§4, A_n(m) ~ Bin(m, p) + Bin(n - m, q))."""
    q = as_q(q)
    n = parse_count("n", n, 1)
    m = parse_count("m", m, 0)
    if m > n:
        raise InputError(f"m = {m} must be <= n = {n}")
    den = q.denominator**n
    return [Fraction(c, den) for c in pmf_numerators(n, m, q)]


def pmf_rows(n: int, q: object) -> tuple[list[list[int]], int]:
    """Numerators of P_{n,m}(s) for every m = 0..n and their common denominator b^n (§4).

    Built by exact division: row m = row (m-1) * (q + p z) / (p + q z), n polynomial
    products instead of n powers.  Tested against the recursions (4.1), (4.2).
    """
    q = as_q(q)
    n = parse_count("n", n, 1)
    a, b = _ab(q)
    up, down = fmpz_poly([a, b - a]), fmpz_poly([b - a, a])
    poly = down**n
    rows = []
    for m in range(n + 1):
        if m:
            poly = (poly * up) // down
        coeffs = [int(c) for c in poly.coeffs()]
        rows.append(coeffs + [0] * (n + 1 - len(coeffs)))
    return rows, b**n


def recursion_step(prev: Sequence[Fraction], m_prev_is_one: bool, q: Fraction) -> list[Fraction]:
    """One step of (4.1) (the added user holds a 1) or (4.2) (a 0): row n-1 → row n."""
    p = 1 - q
    hi, lo = (p, q) if m_prev_is_one else (q, p)  # weight of s-1 and of s
    ext = [Fraction(0), *prev, Fraction(0)]
    return [hi * ext[s] + lo * ext[s + 1] for s in range(len(prev) + 1)]


@dataclass(frozen=True)
class RatioMax:
    """max pi(s; x, x') with where it is attained (§3, Proposition 1.1)."""

    ratio: Fraction
    x: tuple[int, ...]  # type counts of x (index = vector)
    x_prime: tuple[int, ...]
    s: tuple[int, ...]  # histogram (index = report)
    pairs: int  # neighbouring pairs examined (up to symmetry)
    outcomes: int  # outcomes examined in all

    @property
    def epsilon(self) -> float:
        return math.log(self.ratio)


def max_ratio_L1(n: int, q: object) -> RatioMax:
    """Exact max over m, s and both orders of pi_n(s; m)^{±1} (§4, π_n = P_{n,m}/P_{n,m+1})."""
    q = as_q(q)
    rows, _ = pmf_rows(n, q)
    best: tuple[Fraction, int, int, int] | None = None
    for m in range(1, n + 1):
        hi, lo = rows[m], rows[m - 1]
        for s in range(n + 1):
            for num, den, one in ((hi[s], lo[s], m), (lo[s], hi[s], m - 1)):
                r = Fraction(num, den)
                if best is None or r > best[0]:
                    best = (r, one, 2 * m - 1 - one, s)
    assert best is not None
    r, m_x, m_xp, s = best
    return RatioMax(r, (n - m_x, m_x), (n - m_xp, m_xp), (n - s, s), 2 * n, 2 * n * (n + 1))


def hockey_stick_exact(P: Sequence[Fraction], Q: Sequence[Fraction], r: Fraction) -> Fraction:
    """sum_s max(0, P(s) - r Q(s)): delta at e^eps = r, exactly (the hockey-stick divergence)."""
    return sum((max(Fraction(0), x - r * y) for x, y in zip(P, Q, strict=True)), Fraction(0))


def delta_exact_L1(n: int, q: object, r: object) -> Fraction:
    """max over neighbours (m, m-1), both orders, of the hockey-stick at e^eps = r (exact)."""
    q = as_q(q)
    r = Fraction(str(r)) if not isinstance(r, Fraction) else r
    rows, den = pmf_rows(n, q)
    best = Fraction(0)
    for m in range(1, n + 1):
        for a_row, b_row in ((rows[m], rows[m - 1]), (rows[m - 1], rows[m])):
            tot = sum(
                max(0, x * r.denominator - r.numerator * y)
                for x, y in zip(a_row, b_row, strict=True)
            )
            best = max(best, Fraction(tot, den * r.denominator))
    return best


# --------------------------------------------------------------------------- general L
def hamming(v: int, w: int) -> int:
    return (v ^ w).bit_count()


def report_weights(L: int, q: Fraction) -> list[list[int]]:
    """W[v][w] = b^L P[R(v) = w] = (b - a)^(L - d) a^d (§2.1), integers."""
    a, b = _ab(q)
    k = 2**L
    return [
        [(b - a) ** (L - hamming(v, w)) * a ** hamming(v, w) for w in range(k)] for v in range(k)
    ]


def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of `parts` non-negative integers summing to `total` (lexicographic)."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in compositions(total - first, parts - 1):
            yield (first, *rest)


def _group_law(k: int, weights: Sequence[int], parts: int) -> dict[tuple[int, ...], int]:
    """(sum_w weights[w] z_w)^k expanded: multinomial(k; s) prod weights[w]^s_w."""
    out: dict[tuple[int, ...], int] = {}
    powers = [[1] * (k + 1) for _ in range(parts)]
    for w in range(parts):
        for j in range(1, k + 1):
            powers[w][j] = powers[w][j - 1] * weights[w]
    fact = [math.factorial(j) for j in range(k + 1)]
    kf = fact[k]

    def rec(w: int, left: int, prefix: tuple[int, ...], coef: int, dfac: int) -> None:
        if w == parts - 1:
            out[(*prefix, left)] = kf // (dfac * fact[left]) * coef * powers[w][left]
            return
        pw = powers[w]
        for j in range(left + 1):
            rec(w + 1, left - j, (*prefix, j), coef * pw[j], dfac * fact[j])

    rec(0, k, (), 1, 1)
    return out


def _convolve(
    f: dict[tuple[int, ...], int], g: dict[tuple[int, ...], int]
) -> dict[tuple[int, ...], int]:
    if len(f) < len(g):
        f, g = g, f
    out: dict[tuple[int, ...], int] = {}
    get = out.get
    for sg, cg in g.items():
        for sf, cf in f.items():
            key = tuple(x + y for x, y in zip(sf, sg, strict=True))
            out[key] = get(key, 0) + cf * cg
    return out


@dataclass(frozen=True)
class Law:
    """The exact law of the histogram A(x) (eq (2.1)): numerators over ``den`` = b^(nL)."""

    L: int
    n: int
    q: Fraction
    num: dict[tuple[int, ...], int]
    den: int

    def prob(self, s: Sequence[int]) -> Fraction:
        return Fraction(self.num.get(tuple(s), 0), self.den)

    def total(self) -> Fraction:
        return Fraction(sum(self.num.values()), self.den)

    def __len__(self) -> int:
        return len(self.num)


def types_of(collection: Sequence[int], L: int) -> tuple[int, ...]:
    """Type counts of a collection given as a list of vectors (integers 0..2^L-1)."""
    k = 2**L
    counts = [0] * k
    for v in collection:
        if not 0 <= v < k:
            raise InputError(f"vector {v} is not an L = {L} bit vector (0..{k - 1})")
        counts[v] += 1
    return tuple(counts)


def histogram_law(types: Sequence[int], L: int, q: object) -> Law:
    """P[A(x) = s] for every s, exact (eq (2.1)), from the type counts of x.

    The generating function is prod_v (sum_w P[R(v) = w] z_w)^{types[v]}: each
    group of identical users is expanded by the multinomial theorem and the
    groups are multiplied as sparse polynomials (dicts keyed by histograms).
    """
    q = as_q(q)
    L = parse_count("L", L, 1)
    k = 2**L
    if len(types) != k:
        raise InputError(f"type counts need {k} entries for L = {L}, got {len(types)}")
    if any(t < 0 for t in types):
        raise InputError(f"type counts {tuple(types)} must be >= 0")
    n = sum(types)
    parse_count("n", n, 1)
    check_size(n, L)
    W = report_weights(L, q)
    law: dict[tuple[int, ...], int] = {(0,) * k: 1}
    for v in sorted(range(k), key=lambda v: -types[v]):
        if types[v]:
            law = _convolve(law, _group_law(types[v], W[v], k))
    return Law(L, n, q, law, q.denominator ** (n * L))


def brute_force_law(collection: Sequence[int], L: int, q: object) -> Law:
    """eq (2.1) literally: every synthetic collection y (all 2^(nL) of them), summed by Φ(y)."""
    q = as_q(q)
    n = len(collection)
    if n * L > MAX_BRUTE_BITS:
        raise InputError(f"brute force over 2^{n * L} collections exceeds 2^{MAX_BRUTE_BITS}")
    a, b = _ab(q)
    k = 2**L
    out: dict[tuple[int, ...], int] = {}
    for y in itertools.product(range(k), repeat=n):
        d = sum(hamming(x, w) for x, w in zip(collection, y, strict=True))
        s = [0] * k
        for w in y:
            s[w] += 1
        key = tuple(s)
        out[key] = out.get(key, 0) + (b - a) ** (n * L - d) * a**d
    return Law(L, n, q, out, b ** (n * L))


def _with_user(background: dict[tuple[int, ...], int], weights: Sequence[int], k: int):  # type: ignore[no-untyped-def]
    """Numerators of the law of background + one user with report weights (eq (3.1))."""
    out: dict[tuple[int, ...], int] = {}
    get = out.get
    for s, c in background.items():
        for w in range(k):
            key = s[:w] + (s[w] + 1,) + s[w + 1 :]
            out[key] = get(key, 0) + c * weights[w]
    return out


def privacy_ratio(s: Sequence[int], x: Sequence[int], x_prime: Sequence[int], L: int, q: object):  # type: ignore[no-untyped-def]
    """pi(s; x, x') = P[A(x) = s] / P[A(x') = s] exactly (§3), x, x' as type counts."""
    lx, lxp = histogram_law(x, L, q), histogram_law(x_prime, L, q)
    if lx.n != lxp.n:
        raise InputError("x and x' must hold the same number of users")
    den = lxp.prob(s)
    if den == 0:
        raise InputError(f"s = {tuple(s)} is not a histogram of {lx.n} reports")
    return lx.prob(s) / den


def max_ratio(n: int, L: int, q: object) -> RatioMax:
    """Exact max of pi(s; x, x') over s and neighbouring x, x' (§3; exhaustive up to symmetry).

    x = background + one user holding vector a, x' = background + that user holding
    b != a.  XOR with a maps (x, x') to a pair whose changed user goes from 0 to
    a ^ b and permutes the reports, so fixing a = 0 loses nothing; every background
    (type counts of n - 1 users) and every b != 0 is then examined.
    """
    q = as_q(q)
    n = parse_count("n", n, 1)
    L = parse_count("L", L, 1)
    k = 2**L
    check_size(n, L)
    W = report_weights(L, q)
    best: tuple[Fraction, tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None = None
    pairs = outcomes = 0
    for bg in compositions(n - 1, k):
        base = histogram_law(bg, L, q).num if n > 1 else {(0,) * k: 1}
        p0 = _with_user(base, W[0], k)
        for bvec in range(1, k):
            pb = _with_user(base, W[bvec], k)
            pairs += 2
            outcomes += 2 * len(p0)
            for s, c0 in p0.items():
                cb = pb[s]
                for num, den, first, second in ((c0, cb, 0, bvec), (cb, c0, bvec, 0)):
                    if best is None or num * best[0].denominator > best[0].numerator * den:
                        x, xp = list(bg), list(bg)
                        x[first] += 1
                        xp[second] += 1
                        best = (Fraction(num, den), tuple(x), tuple(xp), s)
    assert best is not None
    return RatioMax(best[0], best[1], best[2], best[3], pairs, outcomes)
