"""Liu (2019) Definition 2: are the truncated and BIT mechanisms ε-DP with λ = δ1/ε?

The worst-case privacy loss is derived in :mod:`dpcheck.symbolic.privacy`
(sup over outputs, then over neighbouring inputs, every step machine-checked),
confirmed by rigorous ball arithmetic on a grid of (ε, R/Δ) and by an
independent brute force over (s, s', y) that uses only the Laplace density
and quadrature.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import arb

from dpcheck.claims import checks as ck
from dpcheck.claims.model import Kind, Status, Step, Verdict, step
from dpcheck.claims.registry import claim
from dpcheck.numeric import privacy as num
from dpcheck.numeric.rigorous import arb_eval, digits
from dpcheck.papers import liu2019 as P
from dpcheck.symbolic import privacy as pv
from dpcheck.symbolic.symbols import c0, c1, delta1, epsilon, lam

#: (ε, R/Δ) grid for the rigorous check of the closed form
EPSILONS = (
    Fraction(1, 100),
    Fraction(1, 10),
    Fraction(1, 2),
    Fraction(1),
    Fraction(2),
    Fraction(5),
)
RATIOS = (
    Fraction(101, 100),
    Fraction(3, 2),
    Fraction(2),
    Fraction(5),
    Fraction(10),
    Fraction(1000),
)
#: the witness (ε, Δ, c0, c1) shown in reports
WITNESS = (Fraction(1), Fraction(1), Fraction(0), Fraction(2))


def _steps(mechanism: str) -> list[str]:
    return [f"{st.text}: {st.result}" for st in pv.worst_case(mechanism).steps]


def _derivation_steps(mechanism: str) -> list[Step]:
    """The machine-checked worst-case derivation of :func:`dpcheck.symbolic.privacy.worst_case`
    (it raises NotProved when a step cannot be checked), as basis steps."""
    return [
        step(
            Kind.SYMBOLIC,
            f"{mechanism} worst-case loss, derived in {len(pv.worst_case(mechanism).steps)} "
            "steps (sup over outputs incl. point masses, then over neighbours); each sign "
            "certified by dpcheck.symbolic.signs",
        )
    ]


def _brute_step(brute: object, enclosure: arb) -> Step:
    return step(
        Kind.SAMPLING,
        "float brute force over an (s, s', y) grid agrees with the closed form (corroboration)",
        checked=_agrees(brute, enclosure),
        domain="the witness setting",
    )


def _grid_excess(mechanism: str) -> dict[str, object]:
    """Rigorous enclosures of loss - ε at λ = Δ/ε on the (ε, R/Δ) grid."""
    expr = pv.worst_case(mechanism).loss_in_epsilon(P.EQ2_SCALE.expr) - epsilon
    signs: dict[int, int] = {}
    worst: tuple[Fraction, Fraction, str] | None = None
    smallest = None
    for eps in EPSILONS:
        for r in RATIOS:
            value = arb_eval(expr, {epsilon: eps, pv.ratio: r}, dps=40)
            sign = 1 if value > 0 else -1 if value < 0 else 0
            if not (value > 0 or value < 0) and not (value.is_exact() and value == 0):
                sign = 99  # undecided
            signs[sign] = signs.get(sign, 0) + 1
            mid = value.mid()
            if smallest is None or mid < smallest:
                smallest, worst = mid, (eps, r, digits(value, 12))
    return {
        "grid": f"epsilon in {[str(e) for e in EPSILONS]}, R/Delta in {[str(r) for r in RATIOS]}",
        "sign counts of loss - epsilon (+1 / 0 / -1)": {str(k): v for k, v in signs.items()},
        "smallest loss - epsilon on the grid": {
            "epsilon": str(worst[0]) if worst else "",
            "R/Delta": str(worst[1]) if worst else "",
            "value": worst[2] if worst else "",
        },
    }


def _witness(mechanism: str) -> dict[str, object]:
    eps, delta, lo, hi = WITNESS
    scale = Fraction(str(P.EQ2_SCALE.expr.subs({delta1: delta, epsilon: eps})))  # eq (2)
    env = {delta1: delta, c0: lo, c1: hi, lam: scale}
    exact = pv.worst_case(mechanism).loss
    enclosure = arb_eval(exact, env, dps=40)
    brute = num.brute_force_loss(mechanism, delta, lo, hi, scale)
    setting = num.Setting(eps, delta, lo, hi)
    calibrated = num.calibrated_scale(mechanism, setting)
    return {
        "epsilon, sensitivity, [c0, c1]": f"{eps}, {delta}, [{lo}, {hi}]",
        "lambda = delta1/epsilon": str(scale),
        "exact loss (arb enclosure)": enclosure.str(20),
        "brute force over (s, s', y) grid": {
            "loss": ck.fmt(brute.loss, 20),
            "at": {"s": ck.fmt(brute.s, 6), "s'": ck.fmt(brute.s_prime, 6), "y": brute.output},
            "pairs x outputs": f"{brute.pairs} x {brute.outputs}",
        },
        "attained at": num.attained(mechanism, setting),
        "calibrated scale (smallest lambda with loss <= epsilon)": ck.fmt(calibrated, 20),
        "_enclosure": enclosure,
        "_brute": brute.loss,
    }


def _agrees(brute: object, enclosure: arb) -> bool:
    """The grid contains the worst case, so brute force must hit the closed form (1e-15)."""
    exact = float(enclosure.mid())
    return abs(float(brute) - exact) <= 1e-15 * max(1.0, abs(exact))  # type: ignore[arg-type]


@claim(
    "liu2019.def2.privacy_truncated",
    source="Def 2(a)",
    statement=r"\text{the truncated mechanism with }\lambda=\delta_1/\epsilon\text{ is }"
    r"\epsilon\text{-DP}",
)
def privacy_truncated() -> Verdict:
    worst = pv.worst_case("truncated")
    excess = pv.excess_positive()
    decreasing = pv.loss_decreasing_in_scale()
    witness = _witness("truncated")
    enclosure, brute = witness.pop("_enclosure"), witness.pop("_brute")
    eps = WITNESS[0]
    confirmed = (
        enclosure > arb(eps.numerator) / eps.denominator and excess is not None and excess.sign == 1
    )
    evidence = {
        "derivation": _steps("truncated"),
        "worst-case loss (Delta < R)": str(worst.loss),
        "worst-case loss (Delta >= R)": str(worst.loss_wide),
        "at lambda = Delta/epsilon, R = r*Delta": str(worst.loss_in_epsilon(P.EQ2_SCALE.expr)),
        "equals Holohan et al. (2018) Delta/b + log DeltaC(b)": pv.matches_holohan(),
        "DeltaC(lambda) - 1 > 0 for 0 < Delta < R": excess.describe() if excess else "not shown",
        "loss strictly decreasing in lambda": decreasing.describe() if decreasing else "not shown",
        "limit R/Delta -> infinity (derived)": str(pv.limit_wide_range()),
        "rigorous grid": _grid_excess("truncated"),
        "witness": witness,
        "brute force agrees with closed form": _agrees(brute, enclosure),
    }
    eps_, delta_, lo_, hi_ = WITNESS
    basis = [
        *_derivation_steps("truncated"),
        step(
            Kind.SIGN,
            "ΔC(λ) - 1 > 0 for 0 < Δ < R (so the loss exceeds ε at λ = Δ/ε)",
            checked=excess is not None and excess.sign == 1,
        ),
        step(
            Kind.ENCLOSURE,
            f"arb enclosure of the exact loss {enclosure.str(10, radius=False)} > ε",
            checked=bool(enclosure > arb(eps.numerator) / eps.denominator),
            domain=f"ε = {eps_}, Δ = {delta_}, [c0, c1] = [{lo_}, {hi_}]",
        ),
        _brute_step(brute, enclosure),
    ]
    if not confirmed:
        return Verdict(
            Status.INCONCLUSIVE,
            "derived worst-case loss; witness not confirmed",
            evidence,
            basis=basis,
        )
    evidence["finding"] = (
        "the truncated mechanism with lambda = delta1/epsilon is NOT epsilon-DP whenever "
        "delta1 < c1 - c0: its normaliser depends on s, and the loss is "
        "delta1/lambda + log DeltaC(lambda) > epsilon, attained at s = c0, s' = c0 + delta1, "
        "y = c0 (and by symmetry at s = c1, s' = c1 - delta1, y = c1). At epsilon = "
        f"{WITNESS[0]}, delta1 = {WITNESS[1]}, [c0, c1] = [{WITNESS[2]}, {WITNESS[3]}] the loss "
        f"is {enclosure.str(6, radius=False)}. It is epsilon-DP at the calibrated scale "
        "(Holohan et al. 2018), or when delta1 >= c1 - c0."
    )
    return Verdict(
        Status.REFUTED,
        "derived worst-case loss (machine-checked signs), witness confirmed by arb "
        "enclosure and by brute force",
        evidence,
        reproduce="dpcheck privacy truncated --epsilon 1 --sensitivity 1 --lower 0 --upper 2",
        domain="refuted for every epsilon > 0 and 0 < delta1 < c1 - c0; "
        "holds when delta1 >= c1 - c0",
        basis=basis,
    )


@claim(
    "liu2019.def2.privacy_bit",
    source="Def 2(b)",
    statement=r"\text{the BIT mechanism with }\lambda=\delta_1/\epsilon\text{ is }\epsilon\text{-DP}",
)
def privacy_bit() -> Verdict:
    worst = pv.worst_case("bit")
    at_naive = sp.simplify(worst.loss.subs(lam, P.EQ2_SCALE.expr))
    wide = sp.simplify(worst.loss_wide.subs(lam, P.EQ2_SCALE.expr))
    witness = _witness("bit")
    enclosure, brute = witness.pop("_enclosure"), witness.pop("_brute")
    holds = sp.simplify(at_naive - epsilon) == 0
    evidence = {
        "derivation": _steps("bit"),
        "worst-case loss (Delta < R)": str(worst.loss),
        "worst-case loss (Delta >= R)": str(worst.loss_wide),
        "at lambda = Delta/epsilon": {"Delta <= R": str(at_naive), "Delta >= R": str(wide)},
        "witness": witness,
        "brute force agrees with closed form": _agrees(brute, enclosure),
    }
    basis = [
        *_derivation_steps("bit"),
        step(Kind.SYMBOLIC, "the worst-case loss at λ = Δ/ε simplifies to ε", checked=holds),
        _brute_step(brute, enclosure),
    ]
    if not holds:
        return Verdict(Status.INCONCLUSIVE, "derived loss is not epsilon", evidence, basis=basis)
    evidence["finding"] = (
        "BIT is epsilon-DP: its worst-case loss is min(delta1, c1 - c0)/lambda, which is "
        "epsilon at lambda = delta1/epsilon when delta1 <= c1 - c0 (attained at the point mass "
        "at c0 with s = c0, s' = c0 + delta1) and less otherwise"
    )
    return Verdict(
        Status.PROVED,
        "derived worst-case loss over outputs (point masses included) and neighbours, "
        "every sign machine-checked",
        evidence,
        reproduce="dpcheck privacy bit --epsilon 1 --sensitivity 1 --lower 0 --upper 2",
        domain="all epsilon > 0, delta1 > 0, c0 < c1, s, s' in [c0, c1] with |s - s'| <= "
        "delta1: loss = min(delta1, c1 - c0)*epsilon/delta1 <= epsilon, with equality "
        "when delta1 <= c1 - c0",
        basis=basis,
    )
