"""Zhilyaev and Zeber (2016), "K-Randomization": formulas transcribed exactly as printed.

Paper transcription layer (DESIGN layer 2).  Source: ``004_c91b0f711b80a251.txt``
(a draft dated April 16, 2016; several statements are marked TODO).  Notation
comes from :mod:`dpcheck.symbolic.krand`: ``P(n', m', t)`` is P_{n',m'}(t) =
P[A_{n'}(m') = t], ``F(n', m', t)`` is F_{n',m'}(t) = P[A_{n'}(m') <= t], with
``n, m, s, p, q`` as printed.  The CDF formulas of §4.4 are printed at a real
x with ⌊x⌋ and ⌊x + 1⌋; both sides are constant on [k, k + 1), so they are
transcribed at the integer s = ⌊x⌋ (⌊x⌋ → s, ⌊x + 1⌋ → s + 1, x ± 1 → s ± 1).

A displayed chain is a list of :class:`Equation`: the printed left side first,
then each displayed right side in order.  Nothing here is used as a reference
value: the checks derive the laws and compare.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.papers.equation import Equation
from dpcheck.symbolic.krand import F, P, m, n, p, pi, q, rho, s, x

SOURCE = "004_c91b0f711b80a251.txt"


def _eq(label: str, latex: str, expr: sp.Expr, note: str = "", **extra: object) -> Equation:
    return Equation(label, SOURCE, latex, expr, note, dict(extra))


# --------------------------------------------------------------------------- §2
d, L, f = sp.symbols("delta L f", nonnegative=True)

BIT_PMF = _eq(
    "§2.1",
    r"P[R(x) = y] = (1 - q)^{L - \delta(x, y)} \cdot q^{\delta(x, y)}",
    (1 - q) ** (L - d) * q**d,
)
RR_Q = _eq("§2.1 Remark", r"q = f/2", f / 2)
#: eq (2.1), its summand: P[A(x) = s] = Σ over the synthetic collections y with Φ(y) = s
EQ2_1 = _eq(
    "(2.1)",
    r"\mathsf{P}[A(\mathbf{x}) = \mathbf{s}] = \sum_{\mathbf{y}: \Phi(\mathbf{y}) = s} "
    r"p^{nL - \delta(\mathbf{x}, \mathbf{y})} \cdot q^{\delta(\mathbf{x}, \mathbf{y})}",
    p ** (n * L - d) * q**d,
    note="the summand, with δ = δ(x, y) read as the sum of the users' Hamming distances (the "
    "note defines δ for vectors only) and p = 1 - q",
)

# --------------------------------------------------------------------------- §3
#: eq (3.1), both printed forms, over the 2^L reports d_j (j = 1..K): W_XP[j] = P[A(x_1') =
#: i_j] = P[R(x_1') = d_j], W_X[j] = P[A(x_1) = i_j], B3[j] = P[A(x~) = s - i_j]
J3 = sp.Symbol("j", integer=True, positive=True)
K3 = sp.Symbol("K", integer=True, positive=True)  # 2^L
W_XP, W_X, B3 = (sp.IndexedBase(x) for x in ("P[R(x_1')=d]", "P[R(x_1)=d]", "P[A(x~)=s-i]"))
EQ3_1 = [
    _eq(
        "(3.1) first form",
        r"\frac{\sum_{j=1}^{2^L} P[A(x_1') = \mathbf{i}_j] P[A(\tilde{\mathbf{x}}) = "
        r"\mathbf{s} - \mathbf{i}_j]}{\sum_{j=1}^{2^L} P[A(x_1') = \mathbf{i}_j] "
        r"P[A(\tilde{\mathbf{x}}) = \mathbf{s} - \mathbf{i}_j]}",
        sp.Sum(W_XP[J3] * B3[J3], (J3, 1, K3)) / sp.Sum(W_XP[J3] * B3[J3], (J3, 1, K3)),
        note="as printed; numerator and denominator are the same sum, so it is 1",
    ),
    _eq(
        "(3.1) second form",
        r"\frac{\sum_{j=1}^{2^L} P[R(x_1') = d_j] P[A(\tilde{\mathbf{x}}) = \mathbf{s} - "
        r"\mathbf{i}_j]}{\sum_{j=1}^{2^L} P[A(x_1) = \mathbf{i}_j] P[A(\tilde{\mathbf{x}}) = "
        r"\mathbf{s} - \mathbf{i}_j]}",
        sp.Sum(W_XP[J3] * B3[J3], (J3, 1, K3)) / sp.Sum(W_X[J3] * B3[J3], (J3, 1, K3)),
        note="P[R(x_1') = d_j] = P[A(x_1') = i_j] (a single record)",
    ),
]

# --------------------------------------------------------------------------- §4
MU = n * q + m * (p - q)
MOMENTS = {
    "mean": _eq(r"§4.8", r"\mathsf{E} A_n(m) = mp + (n-m)q = nq + m(p-q)", MU),
    "variance": _eq(r"§4.8", r"Var A_n(m) = mpq + (n-m)qp = npq", n * p * q),
}

EQ4_1 = [
    _eq("(4.1) left", r"P_{n,m}(s)", P(n, m, s)),
    _eq(
        "(4.1)",
        r"pP_{n-1,m-1}(s-1) + qP_{n-1,m-1}(s)",
        p * P(n - 1, m - 1, s - 1) + q * P(n - 1, m - 1, s),
    ),
]
EQ4_2 = [
    _eq("(4.2) left", r"P_{n,m}(s)", P(n, m, s)),
    _eq("(4.2)", r"qP_{n-1,m}(s-1) + pP_{n-1,m}(s)", q * P(n - 1, m, s - 1) + p * P(n - 1, m, s)),
]

GAMMA_BRACE = (m - s) * p / q + (n - m - s) * q / p
LEMMA4_1 = [
    _eq("(4.3) left", r"(s+1)P_{n,m}(s+1)", (s + 1) * P(n, m, s + 1)),
    _eq(
        "(4.3)",
        r"\left\{ (m-s)\frac{p}{q} + (n-m-s)\frac{q}{p} \right\} P_{n,m}(s) + (n-s+1)P_{n,m}(s-1)",
        GAMMA_BRACE * P(n, m, s) + (n - s + 1) * P(n, m, s - 1),
        domain="0 <= m <= n, 0 <= s <= n - 1, P_{n,m}(-1) := 0",
    ),
]

ETA = (n - s + 1) / (s + 1)
GAMMA = (m - s) * p / q / (s + 1) + (n - m - s) * q / p / (s + 1)
RHO_RECURSION = [
    _eq("§4.2 left", r"\rho(s+1;m)", rho(n, m, s + 1)),
    _eq(
        "§4.2 (display after Lemma 4.1)",
        r"\frac{m-s}{s+1} \frac{p}{q} + \frac{n-m-s}{s+1} \frac{q}{p} + \frac{n-s+1}{s+1}"
        r" \frac{1}{\rho(s;m)}",
        (m - s) / (s + 1) * p / q
        + (n - m - s) / (s + 1) * q / p
        + (n - s + 1) / (s + 1) / rho(n, m, s),
    ),
    _eq(
        "(4.4)",
        r"\eta(s)\rho(s;m)^{-1} + \gamma_m(s)",
        ETA / rho(n, m, s) + GAMMA,
        eta=r"\eta(s) := \frac{n-s+1}{s+1}",
        gamma=r"\gamma_m(s) := \frac{1}{s+1} [(m-s) \frac{p}{q} + (n-m-s) \frac{q}{p}]",
    ),
]
RHO_ONE = [
    _eq("(4.4) start", r"\rho(1;m)", rho(n, m, 1)),
    _eq("(4.4)", r"\gamma_m(0)", GAMMA.subs(s, 0)),
    _eq("§4.2", r"m \frac{p}{q} + (n-m) \frac{q}{p}", m * p / q + (n - m) * q / p),
]
GAMMA_MEAN = [
    _eq("§4.2 left", r"(s+1)\gamma_m(s)", (s + 1) * GAMMA),
    _eq(
        "§4.2",
        r"\frac{\mu_m - s}{pq} - n + 2s",
        (MU - s) / (p * q) - n + 2 * s,
        mu=r"\mu_m = nq + m(p-q)",
    ),
]

G_OF_X = _eq("§4.2", r"g(x) = \frac{q+px}{p+qx}", (q + p * x) / (p + q * x))
G_PRIME = _eq("§4.2", r"g'(x) = \frac{p - q}{(p + qx)^2}", (p - q) / (p + q * x) ** 2)
PI_VIA_RHO = [
    _eq("§4.2 left", r"\pi_n(s;m)", pi(n, m, s)),
    _eq(
        "§4.2",
        r"\frac{qP_{n-1,m}(s-1) + pP_{n-1,m}(s)}{pP_{n-1,m}(s-1) + qP_{n-1,m}(s)}",
        (q * P(n - 1, m, s - 1) + p * P(n - 1, m, s))
        / (p * P(n - 1, m, s - 1) + q * P(n - 1, m, s)),
    ),
    _eq(
        "§4.2",
        r"\frac{q + p\frac{P_{n-1,m}(s)}{P_{n-1,m}(s-1)}}"
        r"{p + q\frac{P_{n-1,m}(s)}{P_{n-1,m}(s-1)}}",
        (q + p * rho(n - 1, m, s)) / (p + q * rho(n - 1, m, s)),
        domain="s >= 1",
    ),
]
PI_AT_ZERO = [
    _eq("§4.2 left", r"\pi_n(0;m)", pi(n, m, 0)),
    _eq("§4.2", r"\pi_n(0;m) \equiv p/q", p / q),
]

# §4.4, at the integer s = ⌊x⌋
CDF_RECURSION_1 = [
    _eq("§4.4 left", r"F_{n,m}(x)", F(n, m, s)),
    _eq(
        "§4.4",
        r"p \cdot F_{n-1,m-1}(x-1) + q \cdot F_{n-1,m-1}(x)",
        p * F(n - 1, m - 1, s - 1) + q * F(n - 1, m - 1, s),
        domain="m = 1, ..., n",
    ),
]
CDF_RECURSION_2 = [
    _eq("§4.4 left", r"F_{n,m}(x)", F(n, m, s)),
    _eq(
        "§4.4",
        r"q \cdot F_{n-1,m}(x-1) + p \cdot F_{n-1,m}(x)",
        q * F(n - 1, m, s - 1) + p * F(n - 1, m, s),
        domain="m = 0, ..., n-1",
    ),
]
_F1 = lambda t: F(n - 1, m - 1, t)  # noqa: E731
_P1 = lambda t: P(n - 1, m - 1, t)  # noqa: E731
CDF_DIFFERENCE_1 = [
    _eq("§4.4 left", r"F_{n,m}(x) - F_{n,m-1}(x)", F(n, m, s) - F(n, m - 1, s)),
    _eq(
        "§4.4 line 1",
        r"pF_{n-1,m-1}(x-1) + qF_{n-1,m-1}(x) - qF_{n-1,m-1}(x-1) - pF_{n-1,m-1}(x)",
        p * _F1(s - 1) + q * _F1(s) - q * _F1(s - 1) - p * _F1(s),
    ),
    _eq(
        "§4.4 line 2",
        r"(p-q) \big[F_{n-1,m-1}(x-1) - F_{n-1,m-1}(x)\big]",
        (p - q) * (_F1(s - 1) - _F1(s)),
    ),
    _eq("§4.4 line 3", r"-(p-q)P_{n-1,m-1}(\lfloor x \rfloor)", -(p - q) * _P1(s)),
]
CDF_DIFFERENCE_2 = [
    _eq("§4.4 left", r"F_{n,m}(x+1) - F_{n,m-1}(x)", F(n, m, s + 1) - F(n, m - 1, s)),
    _eq(
        "§4.4 line 1",
        r"pF_{n-1,m-1}(x) + qF_{n-1,m-1}(x+1) - qF_{n-1,m-1}(x-1) - pF_{n-1,m-1}(x)",
        p * _F1(s) + q * _F1(s + 1) - q * _F1(s - 1) - p * _F1(s),
    ),
    _eq(
        "§4.4 line 2",
        r"q\left[F_{n-1,m-1}(x+1) - F_{n-1,m-1}(x-1)\right]",
        q * (_F1(s + 1) - _F1(s - 1)),
    ),
    _eq(
        "§4.4 line 3",
        r"q\left\{P_{n-1,m-1}(\lfloor x \rfloor) + P_{n-1,m-1}(\lfloor x + 1 \rfloor)\right\}",
        q * (_P1(s) + _P1(s + 1)),
    ),
]
#: "Therefore, F_{n,m}(x) <= F_{n,m-1}(x) <= F_{n,m}(x+1) and F_{n,m-1}(x-1) <= F_{n,m}(x)
#: <= F_{n,m-1}(x)": each pair (smaller, larger)
CDF_CHAINS = [
    _eq("§4.4 chain 1a", r"F_{n,m}(x) \le F_{n,m-1}(x)", F(n, m - 1, s) - F(n, m, s)),
    _eq("§4.4 chain 1b", r"F_{n,m-1}(x) \le F_{n,m}(x+1)", F(n, m, s + 1) - F(n, m - 1, s)),
    _eq("§4.4 chain 2a", r"F_{n,m-1}(x-1) \le F_{n,m}(x)", F(n, m, s) - F(n, m - 1, s - 1)),
    _eq("§4.4 chain 2b", r"F_{n,m}(x) \le F_{n,m-1}(x)", F(n, m - 1, s) - F(n, m, s)),
]
PMF_DIFFERENCE_1 = [
    _eq("§4.4 left", r"P_{n,m}(s) - P_{n,m-1}(s)", P(n, m, s) - P(n, m - 1, s)),
    _eq(
        "§4.4", r"-(p-q) \{ P_{n-1,m-1}(s) - P_{n-1,m-1}(s-1) \}", -(p - q) * (_P1(s) - _P1(s - 1))
    ),
]
PMF_DIFFERENCE_2 = [
    _eq("§4.4 left", r"P_{n,m}(s+1) - P_{n,m-1}(s)", P(n, m, s + 1) - P(n, m - 1, s)),
    _eq("§4.4", r"q \{ P_{n-1,m-1}(s+1) - P_{n-1,m-1}(s-1) \}", q * (_P1(s + 1) - _P1(s - 1))),
]

# §4.5
_D = lambda mm: P(n - 1, mm, s - 1) - P(n - 1, mm, s)  # noqa: E731
PI_DIFFERENCE_FORM = [
    _eq("§4.5 left", r"\pi(s;m)", pi(n, m, s)),
    _eq("§4.5 line 1", r"\frac{P_{n,m}(s)}{P_{n,m+1}(s)}", P(n, m, s) / P(n, m + 1, s)),
    _eq(
        "§4.5 line 2",
        r"\frac{P_{n,m-1}(s) + (p-q)\{P_{n-1,m-1}(s-1) - P_{n-1,m-1}(s)\}}"
        r"{P_{n,m}(s) + (p-q)\{P_{n-1,m}(s-1) - P_{n-1,m}(s)\}}",
        (P(n, m - 1, s) + (p - q) * _D(m - 1)) / (P(n, m, s) + (p - q) * _D(m)),
    ),
    _eq(
        "§4.5 line 3",
        r"\frac{\frac{P_{n,m-1}(s)}{P_{n,m}(s)} + (p-q)\frac{P_{n-1,m-1}(s-1) - P_{n-1,m-1}(s)}"
        r"{P_{n,m}(s)}}{1 + (p-q)\frac{P_{n-1,m}(s-1) - P_{n-1,m}(s)}{P_{n,m}(s)}}",
        (P(n, m - 1, s) / P(n, m, s) + (p - q) * _D(m - 1) / P(n, m, s))
        / (1 + (p - q) * _D(m) / P(n, m, s)),
    ),
]
PI_RATIO = [
    _eq("§4.5 left", r"\frac{\pi(s;m)}{\pi(s;m-1)}", pi(n, m, s) / pi(n, m - 1, s)),
    _eq(
        "§4.5 line 1",
        r"\frac{P_{n,m}(s)}{P_{n,m-1}(s)} \pi(s;m)",
        P(n, m, s) / P(n, m - 1, s) * pi(n, m, s),
    ),
    _eq(
        "§4.5 line 2",
        r"\frac{1 + (p-q) \frac{P_{n-1,m-1}(s-1) - P_{n-1,m-1}(s)}{P_{n,m-1}(s)}}"
        r"{1 + (p-q) \frac{P_{n-1,m}(s-1) - P_{n-1,m}(s)}{P_{n,m}(s)}}",
        (1 + (p - q) * _D(m - 1) / P(n, m - 1, s)) / (1 + (p - q) * _D(m) / P(n, m, s)),
    ),
]

# proof of Proposition 4.1
s0, sm, mu0, mum, R0, dp = sp.symbols("s_0 s_m mu_0 mu_m R_0 delta'")
_eta = lambda t: (n - t + 1) / (t + 1)  # noqa: E731
_gam = lambda t, mu: ((mu - t) / (p * q) - n + 2 * t) / (t + 1)  # noqa: E731
ETA_DIFFERENCE = [
    _eq("proof of Prop 4.1 left", r"\eta(s_m) - \eta(s_0)", _eta(sm) - _eta(s0)),
    _eq(
        "proof of Prop 4.1",
        r"\frac{n - s_m + 1}{s_m + 1} - \frac{n - s_0 + 1}{s_0 + 1}",
        (n - sm + 1) / (sm + 1) - (n - s0 + 1) / (s0 + 1),
    ),
    _eq(
        "proof of Prop 4.1",
        r"-\frac{(n+2)(s_m - s_0)}{(s_0 + 1)(s_m + 1)}",
        -(n + 2) * (sm - s0) / ((s0 + 1) * (sm + 1)),
    ),
]
ETA_GAMMA = [
    _eq(
        "proof of Prop 4.1 left",
        r"\eta(s_0)\gamma_m(s_m) - \eta(s_m)\gamma_0(s_0)",
        _eta(s0) * _gam(sm, mum) - _eta(sm) * _gam(s0, mu0),
        note="γ_m written through §4.2's (s+1)γ_m(s) = (μ_m - s)/pq - n + 2s, as the proof does",
    ),
    _eq(
        "proof of Prop 4.1 line 1",
        r"\frac{n - s_0 + 1}{s_0 + 1} \cdot \frac{(\mu_m - s_m)/pq - n + 2s_m}{s_m + 1}"
        r" - \frac{n - s_m + 1}{s_m + 1} \cdot \frac{(\mu_0 - s_0)/pq - n + 2s_0}{s_0 + 1}",
        (n - s0 + 1) / (s0 + 1) * ((mum - sm) / (p * q) - n + 2 * sm) / (sm + 1)
        - (n - sm + 1) / (sm + 1) * ((mu0 - s0) / (p * q) - n + 2 * s0) / (s0 + 1),
    ),
    _eq(
        "proof of Prop 4.1 line 2",
        r"\frac{(n + 2)(s_m - s_0) + (\mu_0 s_m - \mu_m s_0)/pq + (n + 1)[\mu_m - \mu_0"
        r" - (s_m - s_0)]/pq}{(s_0 + 1)(s_m + 1)}",
        (
            (n + 2) * (sm - s0)
            + (mu0 * sm - mum * s0) / (p * q)
            + (n + 1) * (mum - mu0 - (sm - s0)) / (p * q)
        )
        / ((s0 + 1) * (sm + 1)),
    ),
]
#: (4.5) and (4.6) as printed (each "> 0")
EQ4_5 = _eq(
    "(4.5)",
    r"\{\eta(s_m) - \eta(s_0)\}R_0(\delta) + \{\eta(s_0)\gamma_m(s_m)"
    r" - \eta(s_m)\gamma_0(s_0)\}",
    (_eta(sm) - _eta(s0)) * R0 + ETA_GAMMA[0].expr,
)
EQ4_6 = _eq(
    "(4.6)",
    r"(n+2)(s_m - s_0)(1 - R_0(\delta)) + \frac{\mu_0 s_m - \mu_m s_0 + (n+1)"
    r"[\mu_m - \mu_0 - (s_m - s_0)]}{pq}",
    (n + 2) * (sm - s0) * (1 - R0)
    + (mu0 * sm - mum * s0 + (n + 1) * (mum - mu0 - (sm - s0))) / (p * q),
)
a_, c_ = sp.symbols("a c", positive=True)  # a = m(p-q), c = ⌈m(p-q)⌉
#: "Applying these identities in (4.6) gives" (with s_m - s_0 = c, μ_0 - s_0 = δ' + 1)
EQ4_6_APPLIED = _eq(
    "proof of Prop 4.1, after (4.6)",
    r"(n+2)\lceil m(p-q)\rceil (1-R_0(\delta)) + \frac{m(p-q)(\delta'+1)}{pq}"
    r" + \frac{n+1-\mu_0}{pq} (m(p-q)-\lceil m(p-q)\rceil)",
    (n + 2) * c_ * (1 - R0) + a_ * (dp + 1) / (p * q) + (n + 1 - mu0) / (p * q) * (a_ - c_),
)
FINAL_CHAIN = _eq(
    "proof of Prop 4.1, last display",
    r"(n+2)(R_0(\delta)-1) < \frac{\delta'+1}{pq} \frac{m(p-q)}{\lceil m(p-q) \rceil}"
    r" < \frac{\delta'+1}{pq}",
    (dp + 1) / (p * q) * a_ / c_,
    upper=(dp + 1) / (p * q),
)

# §5.1
N1 = n - 1  # A(1) ~ Bin(n - 1, p) in §5.1
BINOMIAL_RATIO = [
    _eq(
        "§5.1",
        r"\frac{\binom{n-1}{s} p^s q^{n-1-s}}{\binom{n-1}{s-1} p^{s-1} q^{n-s}}",
        sp.binomial(N1, s)
        * p**s
        * q ** (N1 - s)
        / (sp.binomial(N1, s - 1) * p ** (s - 1) * q ** (N1 - s + 1)),
    ),
    _eq("§5.1", r"\frac{n-s}{s} \frac{p}{q}", (n - s) / s * p / q),
]
BINOMIAL_RATIO_BOUND = _eq(
    "§5.1",
    r"\le \frac{n-s+1}{s-1} \frac{p}{q}",
    (n - s + 1) / (s - 1) * p / q,
    note="the next ratio P[A(1)=s-1]/P[A(1)=s-2] (λ1/μ1)",
)

# --------------------------------------------------------------------------- §1
#: an event S = {s_1, ..., s_K} of the finite outcome set; P[A(x) = s_k], P[A(x') = s_k]
eps = sp.Symbol("epsilon", nonnegative=True)
K = sp.Symbol("K", integer=True, positive=True)
k_ = sp.Symbol("k", integer=True, positive=True)
PX, PXP = sp.IndexedBase("P_x"), sp.IndexedBase("P_x'")
DP_EVENT = _eq(
    "(1.1)",
    r"P[A(\mathbf{x}) \in S] \le \exp(\epsilon) \cdot P[A(\mathbf{x}') \in S]",
    sp.exp(eps) * sp.Sum(PXP[k_], (k_, 1, K)) - sp.Sum(PX[k_], (k_, 1, K)),
    note="as the gap right - left >= 0, for S = {s_1, ..., s_K} with P[A(x) in S] = "
    "Σ_k P[A(x) = s_k] (the proof's first display)",
)
DP_POINT = _eq(
    "(1.2)",
    r"P[A(\mathbf{x}) = s] \le \exp(\epsilon) \cdot P[A(\mathbf{x}') = s]",
    sp.exp(eps) * PXP[k_] - PX[k_],
    note="as the gap right - left >= 0, at s = s_k",
)

# --------------------------------------------------------------------------- §3
MAX_RATIO = _eq(
    "§3 TODO",
    r"\text{max value of ratio } (p/q)^L \text{ but doesn't depend on population size } n",
    (p / q) ** L,
)

# --------------------------------------------------------------------------- §4 (L = 1)
#: "A_n(m) ~ Bin(m, p) + Bin(n - m, q)": (number of trials, success probability) of each
#: independent binomial summand, as printed
SUM_OF_BINOMIALS = _eq(
    "§4",
    r"A_n(m) \sim Bin(m, p) + Bin(n - m, q)",
    sp.Tuple(sp.Tuple(m, p), sp.Tuple(n - m, q)),
    note="each pair is (trials, success probability) of one of the two independent binomials",
)
#: the privacy ratio in the two cases x_1 = 1 (entry 0) and x_1 = 0 (entry 1)
RATIO_CASES = [
    _eq(
        "§4, case x_1 = 1",
        r"\pi((s, n-s); \mathbf{x}, \mathbf{x}') = \pi_n(s; m-1)",
        pi(n, m - 1, s),
    ),
    _eq(
        "§4, case x_1 = 0",
        r"\pi((s, n-s); \mathbf{x}, \mathbf{x}') = \pi_n(s; m)^{-1}",
        pi(n, m, s) ** -1,
    ),
]
#: §4.1 bullets, each as an expression that the text says is >= 0 ("x between a and b" is
#: (x - a)(b - x) >= 0)
SHIFT_BULLETS = [
    _eq("§4.1 bullet 1", r"P[A_n(m) = 0] \le P[A_{n-1}(m) = 0]", P(n - 1, m, 0) - P(n, m, 0)),
    _eq(
        "§4.1 bullet 1",
        r"P[A_n(m) = s] \text{ falling between } P[A_{n-1}(m) = s-1] \text{ and } "
        r"P[A_{n-1}(m) = s]",
        (P(n, m, s) - P(n - 1, m, s - 1)) * (P(n - 1, m, s) - P(n, m, s)),
    ),
    _eq(
        "§4.1 bullet 2",
        r"P[A_n(m+1) = s] \text{ lies between consecutive pmf values of } A_{n-1}(m)",
        (P(n, m + 1, s) - P(n - 1, m, s - 1)) * (P(n - 1, m, s) - P(n, m + 1, s)),
        note="the bullet says P[A_n(m) = s] and P[A_n(m+1) = s] both lie between "
        "P_{n-1,m}(s-1) and P_{n-1,m}(s); the first is bullet 1",
    ),
]
#: §4.2 TODO bullets, as gaps that must be >= 0
RHO_MONOTONE = [
    _eq(
        "§4.2 TODO bullet 1",
        r"\rho \text{ decreasing in } s \text{ for fixed } m",
        rho(n, m, s) - rho(n, m, s + 1),
        note="ρ_n(s;m) - ρ_n(s+1;m) >= 0",
    ),
    _eq(
        "§4.2 TODO bullet 2",
        r"\rho \text{ increasing in } m \text{ for fixed } s",
        rho(n, m + 1, s) - rho(n, m, s),
        note="ρ_n(s;m+1) - ρ_n(s;m) >= 0",
    ),
]
#: §4.3: s_m(δ), its shift, R_m(δ); SD stands for the value s_m(δ)
delta = sp.Symbol("delta", positive=True)
SD = sp.Symbol("s_m(delta)", integer=True)
S_M = _eq(
    "§4.3", r"s_m(\delta) := \lceil \mu_m - \delta \rceil \vee 1", sp.Max(sp.ceiling(MU - delta), 1)
)
S_M_SHIFT = _eq(
    "§4.3",
    r"s_m(\delta + 1) = (s_m(\delta) - 1) \vee 1",
    sp.Max(SD - 1, 1),
    note="the right side, with SD standing for s_m(δ)",
)
R_M = _eq("§4.3", r"R_m(\delta) := \rho(s_m(\delta); m)", rho(n, m, SD), note="SD = s_m(δ)")
#: §4.5 bullets, as gaps that must be >= 0
PI_MONOTONE = [
    _eq("§4.5 bullet 1", r"\pi(s; m) \ge \pi(s+1; m)", pi(n, m, s) - pi(n, m, s + 1)),
    _eq("§4.5 bullet 2", r"\pi(s; m) \le \pi(s; m+1)", pi(n, m + 1, s) - pi(n, m, s)),
    _eq("§4.5 bullet 3", r"\pi(s; m) \ge \pi(s+1; m+1)", pi(n, m, s) - pi(n, m + 1, s + 1)),
]
#: §4.6 (τ written s: s = τ_n(m) in the first gap, s = τ_n(m-1) in the others)
alpha = sp.Symbol("alpha", positive=True)
QUANTILE_STEP = [
    _eq(
        "§4.6 proof",
        r"\alpha \le F_{n,m}(\tau_n(m)) \le F_{n,m-1}(\tau_n(m))",
        F(n, m - 1, s) - F(n, m, s),
        note="the second inequality as a gap >= 0, s = τ_n(m)",
    ),
    _eq(
        "§4.6 proof",
        r"F_{n,m}(\tau_n(m-1)+1) \ge F_{n,m-1}(\tau_n(m-1)) \ge \alpha",
        F(n, m, s + 1) - F(n, m - 1, s),
        note="the first inequality as a gap >= 0, s = τ_n(m-1)",
    ),
]
QUANTILE_IFF = [
    _eq("§4.6", r"F_{n,m}(\tau_n(m-1)) \ge \alpha", F(n, m, s) - alpha, note="gap, s = τ_n(m-1)"),
    _eq(
        "§4.6",
        r"F_{n,m-1}(\tau_n(m-1)) - \alpha \ge (p-q) P[A_{n-1}(m-1) = \tau_n(m-1)]",
        F(n, m - 1, s) - alpha - (p - q) * P(n - 1, m - 1, s),
        note="gap, s = τ_n(m-1); printed as the same condition ('i.e.')",
    ),
]

# --------------------------------------------------------------------------- §5.1
CLAIM5_1 = _eq(
    "(5.1)",
    r"\frac{P[A(\mathbf{1}) = s]}{P[A(\mathbf{1}) = s - 1]} \ge "
    r"\frac{P[A(\mathbf{y}) = s]}{P[A(\mathbf{y}) = s - 1]}",
    rho(n, n, s) - rho(n, m, s),
    note="gap >= 0; A(1) ~ A_n(n), and y with m ones has A(y) ~ A_n(m) (§4)",
)

# --------------------------------------------------------------------------- §6
i6, j6 = sp.symbols("i j", integer=True, positive=True)
M6 = sp.Symbol("m", integer=True, positive=True)  # the number of terms in §6
A6, B6, AP6, LAM6, MU6 = (sp.IndexedBase(x) for x in ("a", "b", "a'", "lambda", "mu"))
MX6 = sp.Symbol("max_i a_i/b_i")


def _s6(f: sp.Expr) -> sp.Expr:
    return sp.Sum(f, (i6, 1, M6))


LEMMA6_1 = [
    _eq(
        "Lemma 6.1 left", r"\frac{a_1 + \dots + a_m}{b_1 + \dots + b_m}", _s6(A6[i6]) / _s6(B6[i6])
    ),
    _eq(
        "Lemma 6.1 right",
        r"\max\left(\frac{a_1}{b_1}, \dots, \frac{a_m}{b_m}\right)",
        A6[i6] / B6[i6],
        note="the i-th ratio inside the max",
    ),
]
LEMMA6_2 = [
    _eq(
        "(6.1)",
        r"\frac{a_1\lambda_1 + \dots + a_m\lambda_m}{a_1\mu_1 + \dots + a_m\mu_m} \ge "
        r"\frac{a'_1\lambda_1 + \dots + a'_m\lambda_m}{a'_1\mu_1 + \dots + a'_m\mu_m}",
        _s6(A6[i6] * LAM6[i6]) / _s6(A6[i6] * MU6[i6])
        - _s6(AP6[i6] * LAM6[i6]) / _s6(AP6[i6] * MU6[i6]),
        note="gap left - right >= 0",
    ),
    _eq(
        "(6.2)",
        r"\lambda_i/\mu_i \ge \lambda_j/\mu_j",
        LAM6[i6] / MU6[i6] - LAM6[j6] / MU6[j6],
        note="gap, whenever 1 <= i < j <= m",
    ),
    _eq(
        "(6.3)",
        r"a_i/a_j \ge a'_i/a'_j",
        A6[i6] / A6[j6] - AP6[i6] / AP6[j6],
        note="gap, whenever 1 <= i < j <= m",
    ),
]
COR6_1 = [
    _eq(
        "Corollary 6.1",
        r"\frac{q \cdot a_1 + p \cdot a_2}{p \cdot a_1 + q \cdot a_2} \ge "
        r"\frac{q \cdot a_1' + p \cdot a_2'}{p \cdot a_1' + q \cdot a_2'}",
        (q * A6[1] + p * A6[2]) / (p * A6[1] + q * A6[2])
        - (q * AP6[1] + p * AP6[2]) / (p * AP6[1] + q * AP6[2]),
        note="gap >= 0; here p, q are any 0 < q < p < 1",
    ),
    _eq(
        "Corollary 6.1",
        r"\frac{a_2}{a_1} \ge \frac{a_2'}{a_1'}",
        A6[2] / A6[1] - AP6[2] / AP6[1],
        note="gap",
    ),
]
a63, ap63, b63, bp63, c63, cp63, lam63, mu63 = sp.symbols("a a' b b' c c' lambda mu")
LEMMA6_3 = [
    _eq(
        "(6.4)",
        r"\frac{a\lambda + b\mu}{c\lambda + a\mu} \ge \frac{a'\lambda + b'\mu}{c'\lambda + a'\mu}",
        (a63 * lam63 + b63 * mu63) / (c63 * lam63 + a63 * mu63)
        - (ap63 * lam63 + bp63 * mu63) / (cp63 * lam63 + ap63 * mu63),
        note="gap >= 0",
    ),
    _eq("(6.5)", r"ac' \ge a'c", a63 * cp63 - ap63 * c63, note="gap"),
    _eq("(6.5)", r"ab' \le a'b", ap63 * b63 - a63 * bp63, note="gap"),
    _eq("(6.5)", r"bc' \ge b'c", b63 * cp63 - bp63 * c63, note="gap"),
]
