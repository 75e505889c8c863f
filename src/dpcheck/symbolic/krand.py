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


# =========================================================================== checked steps
# Building blocks of the zz2016 proofs (proofs/zz2016).  Each returns :class:`Fact`s: steps a
# program established in this call (``holds`` True) or failed to (``holds`` False); none of
# them is prose.  Sign steps are decided by SymPy's assumption system or by non-negative
# coefficients of a rational function in sign-constrained symbols (:func:`nonneg_rational`).


@dataclass(frozen=True)
class Fact:
    """One step of an argument as a program checked it.

    ``kind`` is ``"symbolic"`` (an exact reduction to 0) or ``"sign"`` (a sign decided by
    machine); ``holds`` whether the check succeeded in this call; ``domain`` is "" when the
    step covers the claim's whole domain, else the part it covers.
    """

    name: str
    kind: str
    holds: bool
    detail: str
    domain: str = ""


#: 0 < q < 1/2 with p = 1 - q (§2.1) is q = 1/(2(1 + t_q)) with t_q > 0 (a bijection)
T_Q = sp.Symbol("t_q", positive=True)


def on_lie_range(expr: sp.Expr) -> sp.Expr:
    """``expr`` with p = 1 - q and q = 1/(2(1 + t_q)): a claim for every t_q > 0 is a claim
    for every 0 < q < 1/2 (§2.1)."""
    return sp.sympify(expr).subs(p, 1 - q).subs(q, 1 / (2 * (1 + T_Q)))


def _positive_poly(poly: sp.Poly, gens: Sequence[sp.Symbol], pos: set[sp.Symbol]) -> bool:
    """Non-negative coefficients and a positive monomial in strictly positive symbols only."""
    if not _nonneg_poly(poly):
        return False
    return any(
        c > 0 and all(e == 0 or g in pos for g, e in zip(gens, mon, strict=True))
        for mon, c in poly.terms()
    )


def _nonneg_poly(poly: sp.Poly) -> bool:
    return all(c.is_number and c >= 0 for c in poly.coeffs())


def nonneg_rational(
    expr: sp.Expr,
    positive: Sequence[sp.Symbol] = (),
    nonnegative: Sequence[sp.Symbol] = (),
    *,
    strict: bool = False,
) -> tuple[bool, str]:
    """Decide ``expr >= 0`` (``> 0`` if ``strict``) when the symbols in ``positive`` are > 0
    and those in ``nonnegative`` are >= 0, by coefficients (the sign steps of §4 and §6).

    ``expr`` is cancelled to N/D; both must be polynomials in those symbols with non-negative
    coefficients, D with a positive monomial in strictly positive symbols (so D > 0), and N
    too if ``strict``.  Sound, not complete: False means "not shown", with the reason.
    """
    expr = sp.sympify(expr)
    pos, nonneg = set(positive), set(nonnegative)
    loose = expr.free_symbols - pos - nonneg
    if loose:
        return False, f"symbols without a sign constraint: {sorted(map(str, loose))}"
    num, den = sp.fraction(sp.cancel(sp.together(expr)))
    gens = sorted(expr.free_symbols, key=str)
    if not gens:
        ok = bool(expr.is_positive) if strict else bool(expr.is_nonnegative)
        return ok, f"{expr} is a number"
    try:
        pn, pd = sp.Poly(sp.expand(num), *gens), sp.Poly(sp.expand(den), *gens)
    except sp.PolynomialError:
        return False, "not a rational function of the sign-constrained symbols"
    if pd.coeffs() and all(c.is_number and c <= 0 for c in pd.coeffs()):
        pn, pd = -pn, -pd
    if not _positive_poly(pd, gens, pos):
        return False, f"the denominator {pd.as_expr()} is not shown positive"
    ok = _positive_poly(pn, gens, pos) if strict else _nonneg_poly(pn)
    what = "> 0" if strict else ">= 0"
    if not ok:
        return False, f"the numerator {pn.as_expr()} is not shown {what} (a negative coefficient)"
    return True, (
        f"{what}: numerator and denominator are polynomials with non-negative coefficients in "
        f"{', '.join(map(str, gens))} (positive: {', '.join(sorted(map(str, pos))) or '-'})"
    )


def positive_on_lie_range(
    expr: sp.Expr, positive: Sequence[sp.Symbol] = (), nonnegative: Sequence[sp.Symbol] = ()
) -> tuple[bool, str]:
    """``expr > 0`` for every 0 < q < 1/2 (p = 1 - q), by :func:`on_lie_range` and
    :func:`nonneg_rational` (strict)."""
    return nonneg_rational(on_lie_range(expr), (T_Q, *positive), nonnegative, strict=True)


# --------------------------------------------------------------------------- finite sums
_i, _k = sp.symbols("i k", integer=True)
_t = sp.IndexedBase("t")


def peel(summand: sp.Expr, index: sp.Symbol, lo: sp.Expr, upper: sp.Expr) -> tuple[bool, sp.Expr]:
    """Σ_{index=lo}^{upper+1} f = Σ_{lo}^{upper} f + f(upper + 1) (the induction steps of
    Prop 1.1, §3 and Lemmas 6.1, 6.2), checked by SymPy (the
    adjacent ranges merged by ``simplify``, the one-term sum evaluated); returns
    (checked, the right side)."""
    whole = sp.Sum(summand, (index, lo, upper + 1))
    head = sp.Sum(summand, (index, lo, upper))
    last = sp.Sum(summand, (index, upper + 1, upper + 1))
    merged = sp.simplify(head + last - whole) == 0
    single = sp.simplify(last.doit() - summand.subs(index, upper + 1)) == 0
    return merged and single, head + summand.subs(index, upper + 1)


def split_sum(total: sp.Sum) -> tuple[bool, sp.Expr]:
    """Σ_i Σ_k c_k f_k(i) = Σ_k c_k Σ_i f_k(i) with c_k free of i (linearity; Lemma 6.2's
    induction step), checked by SymPy; returns (checked, the right side)."""
    ((index, lo, hi),) = total.limits
    out = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(total.function)):
        c, f = term.as_independent(index, as_Add=False)
        out += c * sp.Sum(f, (index, lo, hi))
    return sp.simplify(total - out) == 0, out


def finite_sum_facts() -> list[Fact]:
    """A finite sum of non-negative terms is >= 0, of k >= 1 positive terms > 0: induction on
    the number of terms k, base and step checked by SymPy for symbolic k (used by Prop 1.1,
    §3, §4.3, Claim (5.1) and Lemmas 6.1, 6.2)."""
    base0 = sp.Sum(_t[_i], (_i, 1, 0)).doit() == 0
    base1 = sp.simplify(sp.Sum(_t[_i], (_i, 1, 1)).doit() - _t[1]) == 0
    step_ok, _ = peel(_t[_i], _i, 1, _k)
    S0, x0 = sp.Symbol("S", nonnegative=True), sp.Symbol("x", nonnegative=True)
    S1, x1 = sp.Symbol("S", positive=True), sp.Symbol("x", positive=True)
    signs = (S0 + x0).is_nonnegative is True and (S1 + x1).is_positive is True
    return [
        Fact(
            "finite sums: base and step",
            "symbolic",
            base0 and base1 and step_ok,
            "Σ_{i=1}^{0} t_i = 0, Σ_{i=1}^{1} t_i = t_1 and Σ_{i=1}^{k+1} t_i = Σ_{i=1}^{k} t_i "
            "+ t_{k+1} for symbolic k (SymPy)",
        ),
        Fact(
            "finite sums: signs",
            "sign",
            signs,
            "S >= 0, t >= 0 give S + t >= 0, and S > 0, t > 0 give S + t > 0 (SymPy "
            "assumptions): by induction on k, a finite sum of non-negative terms is >= 0, and "
            "a sum of k >= 1 positive terms is > 0",
        ),
    ]


def power_facts() -> list[Fact]:
    """r^k >= 1 for r >= 1 and every integer k >= 0: induction on k, base and step checked
    (the bound (p/q)^L of §3)."""
    kk = sp.Symbol("k", integer=True, nonnegative=True)
    r = sp.Symbol("r", positive=True)
    t, u = sp.Symbol("t", nonnegative=True), sp.Symbol("u", nonnegative=True)
    base = (r**0 - 1) == 0
    step = sp.simplify(r ** (kk + 1) - 1 - (r * (r**kk - 1) + (r - 1))) == 0
    sign, why = nonneg_rational((1 + t) * u + t, (), (t, u))
    return [
        Fact(
            "powers: base and step",
            "symbolic",
            base and step,
            "r^0 - 1 = 0 and r^(k+1) - 1 = r (r^k - 1) + (r - 1) for symbolic k (SymPy)",
        ),
        Fact(
            "powers: sign",
            "sign",
            sign,
            f"with r = 1 + t, t >= 0 and r^k - 1 = u >= 0: (1 + t) u + t {why}; so r^k >= 1 "
            "for every integer k >= 0",
        ),
    ]


# --------------------------------------------------------------------------- the law itself
def count_law_facts() -> list[Fact]:
    """G_{n,m} is the generating function of the count of ones, derived from the mechanism.

    One report is R(b; ξ) = bξ + (1 - b)(1 - ξ), ξ ~ Ber(p) (§2.1): its indicator of a 1 has
    generating function Σ_ξ P(ξ) z^{R(b; ξ)}; the count of ones over m original 1s and n - m
    original 0s, reported independently, has the product of those (SymPy ``Product`` with
    symbolic m, n).  Checked equal to :data:`G`.
    """
    i = sp.Dummy("i", integer=True)
    prob = {1: p, 0: q}

    def indicator(b: int) -> sp.Expr:
        return sum((prob[v] * z ** (b * v + (1 - b) * (1 - v)) for v in (0, 1)), sp.Integer(0))

    g1, g0 = indicator(1), indicator(0)
    derived = sp.Product(g1, (i, 1, m)).doit() * sp.Product(g0, (i, 1, n - m)).doit()
    ok = sp.simplify(derived - G) == 0
    return [
        Fact(
            "law of the count of ones",
            "symbolic",
            ok,
            f"from R(b; ξ) = bξ + (1-b)(1-ξ), ξ ~ Ber(p): an original 1 reports 1 with generating "
            f"function {g1}, an original 0 with {g0}; the product over m ones and n - m zeros "
            f"(independent reports, SymPy Product with symbolic m, n) is {derived} = G_(n,m)",
        )
    ]


def binomial_gf_facts() -> list[Fact]:
    """[z^k] (1 - θ + θz)^N = C(N, k) θ^k (1 - θ)^(N - k), the Bin(N, θ) pmf, for every N >= 0:
    induction on N (multiplying by 1 - θ + θz maps coefficients h_k to (1-θ)h_k + θh_{k-1})."""
    N, k = sp.symbols("N k", integer=True)
    kp = sp.Symbol("k", integer=True, positive=True)
    th = sp.Symbol("theta", positive=True)

    def pmf(NN: sp.Expr, kk: sp.Expr) -> sp.Expr:
        return sp.binomial(NN, kk) * th**kk * (1 - th) ** (NN - kk)

    base = pmf(0, 0) == 1 and sp.binomial(0, kp) == 0
    step = sp.simplify((1 - th) * pmf(N, k) + th * pmf(N, k - 1) - pmf(N + 1, k)) == 0
    return [
        Fact(
            "binomial generating function",
            "symbolic",
            base and step,
            "the Bin(N, θ) pmf C(N,k)θ^k(1-θ)^(N-k) is the coefficient sequence of "
            "(1 - θ + θz)^N: N = 0 gives 1 at k = 0 and 0 at k >= 1, and "
            "(1-θ)pmf(N, k) + θ pmf(N, k-1) - pmf(N+1, k) simplifies to 0 for symbolic N, k",
        )
    ]


def same_power_product(a: sp.Expr, b: sp.Expr, one: bool = True) -> bool:
    """a = b for products of powers with symbolic exponents (all bases positive; the laws of
    §2.1, §3 and §4 as generating functions or pmfs): bases
    factored (after p = 1 - q, q = 1/(2(1 + t_q)) when ``one``: :func:`on_lie_range`), powers
    of products split and powers of equal bases combined, then the difference (or the ratio)
    simplified."""

    def canon(e: sp.Expr) -> sp.Expr:
        e = on_lie_range(e) if one else sp.sympify(e)
        e = e.replace(lambda x: x.is_Pow, lambda x: sp.Pow(sp.factor(x.base), x.exp))
        return sp.powsimp(sp.expand_power_base(e, force=True), force=True)

    ca, cb = canon(a), canon(b)
    return sp.simplify(ca - cb) == 0 or sp.simplify(ca / cb) == 1


# --------------------------------------------------------------------------- log-concavity
def lc(nn: sp.Expr, mm: sp.Expr, t: sp.Expr) -> sp.Expr:
    """LC(t) = P_{n',m'}(t)² - P_{n',m'}(t-1) P_{n',m'}(t+1) (log-concavity at t; §4.2)."""
    return P(nn, mm, t) ** 2 - P(nn, mm, t - 1) * P(nn, mm, t + 1)


def xc(nn: sp.Expr, mm: sp.Expr, t: sp.Expr) -> sp.Expr:
    """X(t) = P_{n',m'}(t-1) P_{n',m'}(t) - P_{n',m'}(t-2) P_{n',m'}(t+1) (§4.2, §4.5)."""
    return P(nn, mm, t - 1) * P(nn, mm, t) - P(nn, mm, t - 2) * P(nn, mm, t + 1)


LC_STATEMENT = (
    "for every n' >= 0 and 0 <= m' <= n', with c_t = P_{n',m'}(t) (0 outside 0..n'): "
    "(i) c_t > 0 on 0..n'; (ii) LC(t) = c_t² - c_{t-1}c_{t+1} >= 0 for every integer t and > 0 "
    "on 0..n'; (iii) X(t) = c_{t-1}c_t - c_{t-2}c_{t+1} >= 0 for every integer t"
)


def log_concavity_facts() -> list[Fact]:
    """The law of A_n(m) is strictly log-concave on its support (:data:`LC_STATEMENT`): the
    step behind the monotonicity statements of §4.2, §4.3, §4.5 and Claim (5.1).

    Induction on n'.  Base n' = 0: A_0(0) = 0.  Step: by (4.2) (m' <= n'-1) or (4.1)
    (m' >= 1, which covers m' = n') the new law is e_t = u c_{t-1} + v c_t with (u, v) =
    (q, p) or (p, q), c the law one record back; every sign below is for any u, v > 0:

    * e_t > 0 on 0..n' (c_t > 0 when t <= n'-1, c_{t-1} > 0 when t >= 1), 0 outside;
    * LC_e(t) = v² LC_c(t) + u² LC_c(t-1) + uv X_c(t) (identity), so >= 0 everywhere and > 0
      on 0..n' (LC_c(t) > 0 when t <= n'-1, LC_c(t-1) > 0 when t >= 1);
    * e_{t-1}e_t X_e(t) = e_t² LC_e(t-1) + e_{t-2}e_t LC_e(t) (identity), so X_e(t) >= 0 where
      e_{t-1}e_t > 0 (1 <= t <= n'), and X_e(t) = 0 elsewhere (two of its factors vanish).
    """
    facts: list[Fact] = []
    r42 = prove(P(n, m, s), q * P(n - 1, m, s - 1) + p * P(n - 1, m, s))
    r41 = prove(P(n, m, s), p * P(n - 1, m - 1, s - 1) + q * P(n - 1, m - 1, s))
    facts.append(
        Fact(
            "log-concavity: one record more",
            "symbolic",
            r42.holds and r41.holds,
            "P_{n,m}(t) = q P_{n-1,m}(t-1) + p P_{n-1,m}(t) (4.2) and "
            "P_{n,m}(t) = p P_{n-1,m-1}(t-1) + q P_{n-1,m-1}(t) (4.1) for all n, m, t "
            f"({r42.text()}; {r41.text()})",
        )
    )
    base = sp.simplify(G.subs({n: 0, m: 0})) == 1
    facts.append(
        Fact(
            "log-concavity: base n' = 0",
            "symbolic",
            base,
            "G_{0,0}(z) = 1: A_0(0) = 0, so c_0 = 1 > 0, LC(0) = 1 > 0, and LC = X = 0 elsewhere",
        )
    )
    u, v = sp.symbols("u v", positive=True)
    c = {j: sp.Symbol(f"c{j}".replace("-", "_m"), nonnegative=True) for j in range(-3, 3)}

    def e(j: int) -> sp.Expr:  # e_{t+j}
        return u * c[j - 1] + v * c[j]

    def lc_c(j: int) -> sp.Expr:
        return c[j] ** 2 - c[j - 1] * c[j + 1]

    def x_c(j: int) -> sp.Expr:
        return c[j - 1] * c[j] - c[j - 2] * c[j + 1]

    a0, b0 = sp.Symbol("a", nonnegative=True), sp.Symbol("b", positive=True)
    pos_ok = (u * a0 + v * b0).is_positive is True and (u * b0 + v * a0).is_positive is True
    zero_ok = e(0).subs({c[-1]: 0, c[0]: 0}) == 0
    facts.append(
        Fact(
            "log-concavity: support",
            "sign",
            pos_ok and zero_ok,
            "e_t = u c_{t-1} + v c_t with u, v > 0: one of c_{t-1}, c_t > 0 and the other >= 0 "
            "give e_t > 0 (SymPy assumptions) for every t in 0..n' (t <= n'-1 or t >= 1); "
            "c_{t-1} = c_t = 0 give e_t = 0 outside 0..n'",
        )
    )
    lc_e = e(0) ** 2 - e(-1) * e(1)
    ident = sp.expand(lc_e - (v**2 * lc_c(0) + u**2 * lc_c(-1) + u * v * x_c(0))) == 0
    A, B, C = (sp.Symbol(x, nonnegative=True) for x in "ABC")
    Ap, Bp = sp.Symbol("A", positive=True), sp.Symbol("B", positive=True)
    comb = v**2 * A + u**2 * B + u * v * C
    lc_sign = (
        comb.is_nonnegative is True
        and comb.subs(A, Ap).is_positive is True
        and comb.subs(B, Bp).is_positive is True
    )
    facts.append(
        Fact(
            "log-concavity: LC step identity",
            "symbolic",
            ident,
            "(u c_{t-1} + v c_t)² - (u c_{t-2} + v c_{t-1})(u c_t + v c_{t+1}) = "
            "v² LC_c(t) + u² LC_c(t-1) + uv X_c(t) (SymPy expand)",
        )
    )
    facts.append(
        Fact(
            "log-concavity: LC step signs",
            "sign",
            lc_sign,
            "v²A + u²B + uvC >= 0 for A, B, C >= 0, and > 0 when A > 0 or B > 0 (SymPy "
            "assumptions); with A = LC_c(t) > 0 for t <= n'-1 and B = LC_c(t-1) > 0 for t >= 1 "
            "(induction hypothesis), LC_e > 0 on 0..n' and >= 0 everywhere",
        )
    )
    E = {j: sp.Symbol(f"e{j}".replace("-", "_m"), nonnegative=True) for j in range(-3, 2)}
    lc_E = lambda j: E[j] ** 2 - E[j - 1] * E[j + 1]  # noqa: E731
    x_E = E[-1] * E[0] - E[-2] * E[1]
    cert = sp.expand(E[-1] * E[0] * x_E - (E[0] ** 2 * lc_E(-1) + E[-2] * E[0] * lc_E(0))) == 0
    facts.append(
        Fact(
            "log-concavity: X certificate",
            "symbolic",
            cert,
            "e_{t-1}e_t X_e(t) = e_t² LC_e(t-1) + e_{t-2}e_t LC_e(t) for every sequence "
            "(SymPy expand)",
        )
    )
    e_1p, e_0p = sp.Symbol("e_m1", positive=True), sp.Symbol("e0", positive=True)
    L1, L0 = sp.Symbol("L1", nonnegative=True), sp.Symbol("L0", nonnegative=True)
    inside, why = nonneg_rational(
        (e_0p**2 * L1 + E[-2] * e_0p * L0) / (e_1p * e_0p), (e_1p, e_0p), (E[-2], L1, L0)
    )
    below = x_E.subs({E[-1]: 0, E[-2]: 0}) == 0
    above = x_E.subs({E[0]: 0, E[1]: 0}) == 0
    facts.append(
        Fact(
            "log-concavity: X signs",
            "sign",
            inside and below and above,
            f"for 1 <= t <= n' (e_{{t-1}}, e_t > 0): X_e(t) = (e_t² LC_e(t-1) + e_{{t-2}}e_t "
            f"LC_e(t))/(e_{{t-1}}e_t) {why}; for t <= 0 (e_{{t-1}} = e_{{t-2}} = 0) and "
            "t >= n'+1 (e_t = e_{t+1} = 0) X_e(t) = 0",
        )
    )
    return facts


def _known_nonneg(f: sp.Expr) -> bool:
    """f is P_{n',m'}(t), a square, or LC / X of a law (:func:`log_concavity_facts`)."""
    if isinstance(f, AppliedUndef) and f.func is P:
        return True
    if f.is_Pow and f.exp == 2 and f.base.is_real is not False:
        return True
    for term in atoms(f):
        if term.func is P and any(sp.expand(f - g(*term.args)) == 0 for g in (lc, xc)):
            return True
    return False


def certify(
    gap: sp.Expr,
    multiplier: sp.Expr,
    combination: Sequence[tuple[sp.Expr, sp.Expr]],
    name: str,
) -> list[Fact]:
    """A gap the paper says is >= 0 (§4.1-§4.6, §5.1), certified:
    ``gap * multiplier = Σ coef·fact`` for all n, m, s (:func:`prove`), each coef > 0 for
    0 < q < 1/2 (:func:`positive_on_lie_range`).  The facts (LC, X, a probability) are >= 0
    by :func:`log_concavity_facts`; ``multiplier`` is a product of probabilities inside the
    support (> 0 by the same lemma), so gap >= 0 (> 0 where a fact is > 0)."""
    target = sum((cf * f for cf, f in combination), sp.Integer(0))
    known = all(_known_nonneg(f) for _, f in combination)
    try:
        pr = prove(gap * multiplier, target)
        ok, how = pr.holds, pr.text()
    except ValueError as exc:
        ok, how = False, f"not reduced ({exc})"
    signs = [positive_on_lie_range(cf) for cf, _ in combination]
    shown = ", ".join(f"{sp.factor(cf)}" for cf, _ in combination)
    return [
        Fact(
            f"{name}: identity",
            "symbolic",
            ok,
            f"({gap}) · {multiplier} = {target} for all n, m, s ({how})",
        ),
        Fact(
            f"{name}: signs",
            "sign",
            bool(signs) and all(sg for sg, _ in signs) and known,
            f"the coefficients {shown} are > 0 for 0 < q < 1/2 (q = 1/(2(1 + t_q)): "
            + "; ".join(why for _, why in signs)
            + "); each term they multiply is a probability, a square, or an LC or X of a law "
            "(>= 0 by the log-concavity lemma)" + ("" if known else " [a term is none of these]"),
        ),
    ]


def negative_point(
    gap: sp.Expr, points: Sequence[tuple[int, int, int]], qs: Sequence[object]
) -> dict[str, str] | None:
    """A counterexample to a printed gap >= 0 (§4.1-§5.1): the first grid point (order of
    ``points``, then ``qs``) where ``gap`` evaluates, on the
    exact laws, to a negative rational; None if there is none."""
    for nv, mv, sv in points:
        for qv in qs:
            qq = as_q(qv)
            try:
                val = evaluate(gap, nv, mv, sv, qq)
            except ValueError:
                continue
            if val is not None and val < 0:
                return {"n": str(nv), "m": str(mv), "s": str(sv), "q": str(qq), "value": str(val)}
    return None
