"""Identities of the L = 1 K-randomization laws, proved through generating functions.

Symbolic layer (DESIGN layer 1) for Zhilyaev and Zeber (2016), §4.  With m of n
original bits equal to 1, the count of reported ones is a sum of independent
indicators: I(R(1) = 1) ~ Ber(p), with generating function q + p z, and
I(R(0) = 1) ~ Ber(q), with p + q z (§2.1).  So

    G_{n,m}(z) = sum_s P_{n,m}(s) z^s = (q + p z)^m (p + q z)^(n - m)          (§4)

is derived from the law, and every statement about the pmf P and the cdf F is a
statement about G:

* P_{n-a,m-b}(s - k)  has generating function  z^k G_{n,m} (q+pz)^-b (p+qz)^(b-a);
* F_{n-a,m-b}(s - k)  the same divided by (1 - z) (partial sums), for integer s;
* a coefficient polynomial c(s) acts as c(θ) with θ = z d/dz, and
  θ(G_{n,m} R) = G_{n,m} z (R' + R G'/G), G'/G = m p/(q+pz) + (n-m) q/(p+qz).

A *linear* identity between such terms (eq (4.1), (4.2), (4.3), the CDF
recursions and differences of §4.4, ...) holds for every integer s (with P = 0
outside 0..n) iff its generating function cancels to 0: one rational function
in z, p, q with n and m symbolic, so it is proved for all n and m at once.

A *non-linear* identity (a ratio of probabilities, §4.2, §4.5) is reduced by
(4.1) and (4.2) to the one law A_{n-a0}(m-b0) that all its terms descend from
(:func:`base_of`): each P_{n-a,m-b}(s-k) is a fixed combination of the values
β_j = P_{n-a0,m-b0}(s+j), and if the identity holds with the β_j as free
symbols it holds for the pmf.

The printed formulas are written with the undefined functions ``P(n', m', t)``
and ``F(n', m', t)`` (P_{n',m'}(t), F_{n',m'}(t)) in the symbols below; the
transcriptions live in :mod:`dpcheck.papers.zz2016`.  An independent route,
:func:`exact_residuals`, evaluates any such formula on the exact laws of
:mod:`dpcheck.enumeration.krand` in rationals.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache
from itertools import accumulate

import sympy as sp
from sympy.core.function import AppliedUndef

from dpcheck.enumeration.krand import as_q, pmf_rows

n, m, s = sp.symbols("n m s", integer=True)
p, q, z = sp.symbols("p q z", positive=True)
x = sp.Symbol("x", positive=True)  # the argument of g (§4.2)
P = sp.Function("P")  # P(n', m', t) = P[A_{n'}(m') = t]
F = sp.Function("F")  # F(n', m', t) = P[A_{n'}(m') <= t]

#: p + q = 1 (§2.1): applied only where an identity needs it (and then reported)
ONE = {q: 1 - p}

#: the generating function of A_n(m), derived from the law of one report (§2.1, §4)
G = (q + p * z) ** m * (p + q * z) ** (n - m)
LOG_DERIVATIVE = sp.cancel(sp.diff(sp.log(G), z))


def rho(nn: sp.Expr, mm: sp.Expr, t: sp.Expr) -> sp.Expr:
    """ρ_{n'}(t; m') = P_{n',m'}(t) / P_{n',m'}(t - 1) (§4.2)."""
    return P(nn, mm, t) / P(nn, mm, t - 1)


def pi(nn: sp.Expr, mm: sp.Expr, t: sp.Expr) -> sp.Expr:
    """π_{n'}(t; m') = P_{n',m'}(t) / P_{n',m'+1}(t) (§4)."""
    return P(nn, mm, t) / P(nn, mm + 1, t)


# --------------------------------------------------------------------------- atoms
@dataclass(frozen=True)
class Atom:
    """P or F of A_{n-a}(m-b) at s - k."""

    kind: str  # "P" or "F"
    a: int
    b: int
    k: int


def _offset(expr: sp.Expr, base: sp.Symbol, what: str) -> int:
    d = sp.simplify(base - expr)
    if not d.is_Integer:
        raise ValueError(f"{what} argument {expr} is not {base} minus an integer")
    return int(d)


def atom_of(term: AppliedUndef) -> Atom:
    nn, mm, t = term.args
    return Atom(term.func.__name__, _offset(nn, n, "n"), _offset(mm, m, "m"), _offset(t, s, "s"))


def atoms(expr: sp.Expr) -> set[AppliedUndef]:
    return {a for a in expr.atoms(AppliedUndef) if a.func in (P, F)}


def domain_of(terms: set[AppliedUndef]) -> str:
    """The n, m for which every law in the terms exists: 0 <= m - b <= n - a."""
    ats = [atom_of(t) for t in terms]
    lo = max([0, *(at.b for at in ats)])
    slack = max([0, *(at.a - at.b for at in ats)])
    upper = f"n - {slack}" if slack else "n"
    return f"{lo} <= m <= {upper}, every integer s (P = 0 outside 0..n')"


# --------------------------------------------------------------------------- linear route
def _theta(R: sp.Expr) -> sp.Expr:
    return sp.cancel(z * (sp.diff(R, z) + R * LOG_DERIVATIVE))


def generating_function(coef: sp.Expr, atom: Atom) -> sp.Expr:
    """sum_s coef(s) X_{n-a,m-b}(s-k) z^s divided by G_{n,m}(z), X = P or F (integer s)."""
    R = z**atom.k * (q + p * z) ** (-atom.b) * (p + q * z) ** (atom.b - atom.a)
    if atom.kind == "F":
        R = R / (1 - z)
    poly = sp.Poly(sp.expand(coef), s)
    total = sp.Integer(0)
    power = R
    for j in range(poly.degree() + 1):
        c = poly.coeff_monomial(s**j)
        if c != 0:
            total += c * power
        power = _theta(power)
    return total


@dataclass
class Proof:
    """The outcome of :func:`prove`: ``holds`` (True/False), how, and the residual."""

    holds: bool
    route: str  # "generating function", "reduction ...", "algebra"
    needs_p_plus_q_1: bool
    residual: sp.Expr
    denominators: list[str] = field(default_factory=list)
    domain: str = ""

    def text(self) -> str:
        how = f"{self.route}; " + ("uses p + q = 1" if self.needs_p_plus_q_1 else "any p, q")
        if self.denominators:
            how += "; multiplied through by " + ", ".join(self.denominators)
        return how


def _zero(expr: sp.Expr) -> tuple[bool, bool, sp.Expr]:
    """(is zero, needed p + q = 1, residual)."""
    r = sp.cancel(sp.together(expr))
    if r == 0:
        return True, False, r
    r1 = sp.factor(sp.cancel(sp.together(r.subs(ONE))))
    return r1 == 0, True, r1


def _linear_parts(numer: sp.Expr, terms: set[AppliedUndef]) -> dict[AppliedUndef, sp.Expr] | None:
    """numer = sum coef_t * t with coefficients free of atoms, or None."""
    syms = {t: sp.Dummy() for t in terms}
    poly = sp.Poly(sp.expand(numer.xreplace(syms)), *syms.values())
    if poly.total_degree() > 1 or poly.coeff_monomial(1) != 0:
        return None
    return {t: poly.coeff_monomial(d) for t, d in syms.items()}


def base_of(ats: Sequence[Atom]) -> tuple[int, int]:
    """(a0, b0): the law A_{n-a0}(m-b0) every atom reaches by (4.1) and (4.2) alone."""
    b0 = max(at.b for at in ats)
    return b0 + max(at.a - at.b for at in ats), b0


def base_combination(atom: Atom, base: tuple[int, int]) -> sp.Expr:
    """P_{n-a,m-b}(s-k) in terms of β_j = P_{n-a0,m-b0}(s+j), by (4.1) and (4.2)."""
    a0, b0 = base
    i, j = b0 - atom.b, (a0 - b0) - (atom.a - atom.b)  # (q+pz)^i (p+qz)^j over the base
    if atom.kind != "P" or i < 0 or j < 0:
        raise ValueError(f"{atom} is not reachable from A_(n-{a0})(m-{b0}) by (4.1)/(4.2)")
    mult = sp.Poly(sp.expand((q + p * z) ** i * (p + q * z) ** j), z)
    return sum(
        (mult.coeff_monomial(z**d) * beta(-atom.k - d) for d in range(mult.degree() + 1)),
        sp.Integer(0),
    )


@cache
def beta(j: int) -> sp.Symbol:
    """β_j = the base law at s + j (:func:`base_of`), a free positive symbol."""
    return sp.Symbol(f"beta_{j}" if j >= 0 else f"beta_m{-j}", positive=True)


def coefficient(nn: sp.Expr, mm: sp.Expr, t: int) -> sp.Expr:
    """P_{nn,mm}(t) at a fixed small t: [z^t] of the generating function, symbolic n, m."""
    g = (q + p * z) ** mm * (p + q * z) ** (nn - mm)
    return sp.simplify(sp.diff(g, z, t).subs(z, 0) / sp.factorial(t))


def _fixed_points(expr: sp.Expr) -> sp.Expr:
    """Replace P_{n',m'}(t) at a fixed integer t (no s in it) by its coefficient of G."""
    sub = {}
    for term in atoms(expr):
        nn, mm, t = term.args
        if not t.has(s):
            if term.func is not P or not (t.is_Integer and 0 <= int(t) <= 3):
                raise ValueError(f"{term}: only P at a fixed t = 0..3 has a closed form here")
            sub[term] = coefficient(nn, mm, int(t))
    return expr.xreplace(sub)


def _shifted(name: str, k: int) -> str:
    return name if k == 0 else f"{name}-{k}" if k > 0 else f"{name}+{-k}"


def prove(lhs: sp.Expr, rhs: sp.Expr) -> Proof:
    """Decide lhs = rhs for all n, m, s (see the module docstring for the routes).

    ``holds`` False means the routes found a non-zero residual: for the linear
    route that refutes the identity for some integer s; for the reduction route
    it only says the identity is not a consequence of (4.1)/(4.2) alone, and a
    concrete witness must be found with :func:`exact_residuals`.
    """
    diff = sp.together(_fixed_points(sp.sympify(lhs) - sp.sympify(rhs)))
    numer, denom = sp.fraction(diff)
    numer = sp.expand(numer)
    terms = atoms(numer)
    dens = [str(f) for f in sp.Mul.make_args(sp.factor(denom)) if not f.is_number]
    domain = domain_of(terms | atoms(denom)) if terms else "all n, m, s"
    if not terms:
        ok, used, res = _zero(numer)
        return Proof(ok, "algebra", used, res, dens, domain)
    parts = _linear_parts(numer, terms)
    if parts is not None:
        gf = sum((generating_function(c, atom_of(t)) for t, c in parts.items()), sp.Integer(0))
        ok, used, res = _zero(gf)
        return Proof(ok, "generating function (θ = z d/dz)", used, res, dens, domain)
    base = base_of([atom_of(t) for t in terms])
    sub = {t: base_combination(atom_of(t), base) for t in terms}
    ok, used, res = _zero(numer.xreplace(sub))
    law = f"A_{_shifted('n', base[0])}({_shifted('m', base[1])})"
    route = f"reduction by (4.1)/(4.2) to free values of the law of {law}"
    return Proof(ok, route, used, res, dens, domain)


# --------------------------------------------------------------------------- exact route
@lru_cache(maxsize=256)
def _laws(nn: int, qq: Fraction) -> tuple[tuple[tuple[Fraction, ...], ...], ...]:
    if nn == 0:
        return (((Fraction(1),)),)
    rows, den = pmf_rows(nn, qq)
    return tuple(tuple(Fraction(c, den) for c in row) for row in rows)


def law_value(kind: str, nn: int, mm: int, t: int, qq: Fraction) -> Fraction:
    """P_{nn,mm}(t) or F_{nn,mm}(t) exactly (0 / 1 outside the support)."""
    if not 0 <= mm <= nn:
        raise ValueError(f"A_{nn}({mm}) does not exist")
    row = _laws(nn, qq)[mm]
    if kind == "P":
        return row[t] if 0 <= t <= nn else Fraction(0)
    if t < 0:
        return Fraction(0)
    return Fraction(1) if t >= nn else list(accumulate(row))[t]


def evaluate(expr: sp.Expr, nv: int, mv: int, sv: int, qq: Fraction) -> Fraction | None:
    """expr at n, m, s, q = qq (p = 1 - qq) in exact rationals; None if undefined there."""
    rq = sp.Rational(qq.numerator, qq.denominator)
    values: dict[sp.Basic, sp.Basic] = {n: sp.Integer(nv), m: sp.Integer(mv), s: sp.Integer(sv)}
    values.update({q: rq, p: 1 - rq})
    for term in atoms(expr):
        nn, mm, t = (int(arg.xreplace(values)) for arg in term.args)
        if not 0 <= mm <= nn:
            return None
        v = law_value(term.func.__name__, nn, mm, t, qq)
        values[term] = sp.Rational(v.numerator, v.denominator)
    try:
        out = sp.sympify(expr).xreplace(values)
    except ZeroDivisionError:
        return None
    if out.has(sp.zoo, sp.nan, sp.oo) or not out.is_Rational:
        return None
    return Fraction(int(out.p), int(out.q))


def exact_residuals(
    lhs: sp.Expr,
    rhs: sp.Expr,
    points: Sequence[tuple[int, int, int]],
    qs: Sequence[object],
) -> Iterator[tuple[int, int, int, Fraction, Fraction, Fraction]]:
    """(n, m, s, q, lhs, rhs) at every point where both sides are defined and differ."""
    for qv in qs:
        qq = as_q(qv)
        for nv, mv, sv in points:
            left, right = evaluate(lhs, nv, mv, sv, qq), evaluate(rhs, nv, mv, sv, qq)
            if left is not None and right is not None and left != right:
                yield nv, mv, sv, qq, left, right


def grid(n_max: int, m_lo: int = 0, m_slack: int = 0, s_lo: int = 0, s_hi: int = 0):  # type: ignore[no-untyped-def]
    """Points (n, m, s): n = 1..n_max, m_lo <= m <= n - m_slack, s_lo <= s <= n + s_hi."""
    return [
        (nv, mv, sv)
        for nv in range(1, n_max + 1)
        for mv in range(m_lo, nv - m_slack + 1)
        for sv in range(s_lo, nv + s_hi + 1)
    ]
