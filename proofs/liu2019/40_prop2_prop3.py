"""Liu (2019) §3.2: Proposition 2 (MSE bound and rate), Proposition 3 (on a concrete model)."""

from __future__ import annotations

import mpmath
import sympy as sp

from dpcheck.claims import checks as ck
from dpcheck.claims.model import Status, Verdict
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


def _prop3(part: str) -> Verdict:
    n, eps, th = sp.symbols("n epsilon theta", positive=True)
    lam_n = 1 / (n * eps)
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
    return Verdict(
        Status.PROVED if ok else Status.INCONCLUSIVE,
        "bound from the proved Prop 2 + SymPy limit; exact model values as illustration",
        ev,
        domain="the binomial-proportion model, every θ in [0, 1], every ε > 0",
    )


@claim("liu2019.prop3.a", source="Prop 3(a)", statement=r"E(s^*\mid\theta)\to\theta")
def prop3_a() -> Verdict:
    return _prop3("a")


@claim("liu2019.prop3.b", source="Prop 3(b)", statement=r"s^*\xrightarrow{p}\theta")
def prop3_b() -> Verdict:
    return _prop3("b")
