"""Liu (2019) §3.2: Proposition 2 (MSE bound and rate), Proposition 3 (on a concrete model)."""

from __future__ import annotations

import mpmath
import sympy as sp

from dpcheck.claims import checks as ck
from dpcheck.claims.model import Kind, Status, Verdict, merged_basis, step
from dpcheck.claims.registry import claim
from dpcheck.symbolic import laplace_family as lf

t = sp.Symbol("t", positive=True)
H_DEN = 1 - sp.exp(-t)


def _mse_arguments() -> dict[str, tuple[bool, dict]]:
    """2 - MSE/λ² as an exact sum of positive univariate terms over a positive denominator."""
    return {
        "truncated": ck.separable_argument(
            2 - lf.normalised("truncated", "mse"), (t**2 + 2 * t) * sp.exp(-t), "sum", H_DEN
        ),
        "bit": ck.separable_argument(2 - lf.normalised("bit", "mse"), (1 + t) * sp.exp(-t), "sum"),
    }


@claim("liu2019.prop2.bound", source="Prop 2", statement=r"E(s^*-s)^2\le2\lambda^2")
def prop2_bound() -> Verdict:
    return ck.arguments_verdict(
        _mse_arguments(),
        finding="2λ² - MSE = λ²(G(t0) + G(t1))/den with G >= 0 (G > 0 for t > 0) and den > 0, "
        "for both mechanisms: MSE < 2λ² strictly on the whole domain",
        method="exact separable form of 2 - MSE/λ² + machine-checked positivity",
    )


@claim(
    "liu2019.prop2.rate",
    source="Prop 2",
    statement=r"\mathrm{MSE}\to0\ (\lambda\to0);\ \delta_1\propto n^{-k}\Rightarrow\mathrm{MSE}=O(n^{-2k})",
)
def prop2_rate() -> Verdict:
    bound = prop2_bound()
    n, k, C, eps = sp.symbols("n k C epsilon", positive=True)
    lam_n = C * n ** (-k) / eps
    rate = sp.limit(2 * lam_n**2 / n ** (-2 * k), n, sp.oo)
    ratios = {m: str(lf.small_scale_ratio(m, "mse")) for m in lf.MECHANISMS}
    ok = bound.status is Status.PROVED and rate.is_finite and rate.is_positive
    ev: dict = {
        "MSE <= 2 lambda^2": bound.status.value,
        "2 lambda^2 / n^(-2k) with lambda = C n^-k / eps": str(
            sp.simplify(2 * lam_n**2 / n ** (-2 * k))
        ),
        "lim MSE/lambda^2 as lambda -> 0 (s inside)": ratios,
        "finding": "MSE <= 2λ² = 2C²ε⁻²n^(-2k) → 0; and MSE/λ² → 2 for s inside, so the rate "
        "n^(-2k) is exact, not just an upper bound"
        if ok
        else "bound not established",
    }
    return Verdict(
        Status.PROVED if ok else Status.INCONCLUSIVE,
        "from the proved bound; SymPy limits for the rate and its sharpness",
        ev,
        domain="fixed epsilon > 0, delta_1 = C n^-k, k > 0",
        basis=[
            *merged_basis({"Prop 2 bound MSE <= 2λ²": bound}),
            step(
                Kind.LIMIT,
                f"SymPy: lim_n 2λ²/n^(-2k) = {rate} with λ = C n^-k/ε (finite, > 0)",
                checked=bool(rate.is_finite and rate.is_positive),
            ),
        ],
    )


def _binomial_model(
    n: int, theta: mpmath.mpf, eps: int, mechanism: str
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Exact E(s*|θ) - θ and E(s* - θ)² for s = X/n, X ~ Bin(n, θ), bounds [0, 1], λ = 1/(nε)."""
    from dpcheck.numeric.mp import compiled

    mean = compiled(f"{mechanism}.mean")
    second = compiled(f"{mechanism}.second_moment")
    lam = mpmath.mpf(1) / (n * eps)
    e1 = e2 = mpmath.mpf(0)
    for j in range(n + 1):
        w = mpmath.binomial(n, j) * theta**j * (1 - theta) ** (n - j)
        sj = mpmath.mpf(j) / n
        e1 += w * mean(sj, 0, 1, lam)
        e2 += w * second(sj, 0, 1, lam)
    return e1 - theta, e2 - 2 * theta * e1 + theta**2


def _moment_steps(n: sp.Symbol, th: sp.Symbol) -> tuple[bool, str]:
    """E s = θ and Var s = θ(1-θ)/n for s = X/n, X ~ Bin(n, θ), from the probability generating
    function G(z) = (1 - θ + θz)^n (a product of n Bernoulli PGFs), symbolic n."""
    z = sp.Symbol("z")
    pgf = (1 - th + th * z) ** n
    d1 = sp.diff(pgf, z).subs(z, 1)  # E X
    d2 = sp.diff(pgf, z, 2).subs(z, 1)  # E X(X - 1)
    mean_ok = sp.simplify(d1 / n - th) == 0
    var_ok = sp.simplify((d2 + d1 - d1**2) / n**2 - th * (1 - th) / n) == 0
    return mean_ok and var_ok, (
        "E s = θ and Var s = θ(1-θ)/n: derivatives of the PGF (1 - θ + θz)^n at z = 1, symbolic n"
    )


def _prop3(part: str) -> Verdict:
    n, eps, th = sp.symbols("n epsilon theta", positive=True)
    lam_n = 1 / (n * eps)
    a, b = sp.symbols("a b", real=True)
    square_ok = sp.expand(2 * a**2 + 2 * b**2 - (a + b) ** 2 - (a - b) ** 2) == 0
    # (E Y)² <= E Y²: by linearity E(Y - m1)² = m2 - m1² (moments m_k = E Y^k), a mean of a square
    Y, m1, m2 = sp.symbols("Y m1 m2", real=True)
    centred = sp.Poly(sp.expand((Y - m1) ** 2), Y)
    by_linearity = sum(c * (m1, m2)[k - 1] if k else c for (k,), c in centred.terms())
    jensen_ok = sp.expand(by_linearity - (m2 - m1**2)) == 0
    if part == "a":
        bound = sp.sqrt(2) * lam_n  # |E(s*|θ) - θ| <= E|bias(s)| <= sqrt(MSE) <= √2 λ
        what = "|E(s*|θ) - θ| <= E_s|μ(s) - s| <= √(2) λ (Jensen + Prop 2), E s = θ"
    else:
        bound = 4 * lam_n**2 + 2 * th * (1 - th) / n  # E(s*-θ)² <= 2E(s*-s)² + 2E(s-θ)²
        what = (
            "E(s* - θ)² <= 2·E(s* - s)² + 2·Var(s) <= 4λ² + 2θ(1-θ)/n (Prop 2); L² ⇒ in probability"
        )
    limit = sp.limit(bound, n, sp.oo)
    table = {}
    with mpmath.workdps(30):
        theta = mpmath.mpf(1) / 10
        for n_v in (10, 100, 1000):
            row = {}
            for mech in lf.MECHANISMS:
                bias, mse = _binomial_model(n_v, theta, 1, mech)
                value = abs(bias) if part == "a" else mse
                b_v = bound.subs({n: n_v, eps: 1, th: sp.Rational(1, 10)})
                row[mech] = {
                    "value": mpmath.nstr(value, 12),
                    "bound": str(sp.N(b_v, 12)),
                    "within": bool(value <= mpmath.mpf(str(sp.N(b_v, 40)))),
                }
            table[f"n={n_v}"] = row
    ok = limit == 0 and all(r["within"] for row in table.values() for r in row.values())
    ev = {
        "model": "s = X/n, X ~ Bin(n, θ), bounds [0, 1], δ1 = 1/n, λ = 1/(nε)",
        "argument": what,
        "bound": str(bound),
        "limit n → ∞": str(limit),
        "exact values at θ = 1/10, ε = 1 (30-digit sums over the binomial)": table,
        "finding": (
            "asymptotically unbiased: bias bound √2/(nε) → 0"
            if part == "a"
            else "consistent: E(s* - θ)² <= 4/(nε)² + 2θ(1-θ)/n → 0"
        ),
    }
    moments_ok, moments = _moment_steps(n, th)
    basis = [
        *merged_basis({"Prop 2 bound MSE <= 2λ²": prop2_bound()}),
        step(Kind.SYMBOLIC, moments, checked=moments_ok),
        step(Kind.LIMIT, f"SymPy: the bound {bound} → {limit} as n → ∞", checked=limit == 0),
    ]
    if part == "a":
        basis.append(
            step(
                Kind.SIGN,
                "(E Y)² <= E Y² (the variance is >= 0), applied to Y = s* - s given s and to "
                "Y = μ(s) - s over s: |E(s*|θ) - θ| <= √(max_s MSE(s)) <= √2 λ; "
                "E(Y - E Y)² = E Y² - (E Y)² reduced exactly by linearity",
                checked=jensen_ok,
            )
        )
    else:
        basis.append(
            step(
                Kind.SIGN,
                "(a + b)² <= 2a² + 2b²: the difference is (a - b)², reduced exactly; with "
                "a = s* - s, b = s - θ and E(s - θ)² = Var s; L² convergence gives convergence "
                "in probability (Markov)",
                checked=square_ok,
            )
        )
    return Verdict(
        Status.PROVED if ok and moments_ok else Status.INCONCLUSIVE,
        "bound from the proved Prop 2 + SymPy limit; exact model values as illustration",
        ev,
        domain="the binomial-proportion model, every θ in [0, 1], every ε > 0",
        basis=basis,
    )


@claim("liu2019.prop3.a", source="Prop 3(a)", statement=r"E(s^*\mid\theta)\to\theta")
def prop3_a() -> Verdict:
    return _prop3("a")


@claim("liu2019.prop3.b", source="Prop 3(b)", statement=r"s^*\xrightarrow{p}\theta")
def prop3_b() -> Verdict:
    return _prop3("b")
