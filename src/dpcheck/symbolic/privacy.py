"""The exact privacy loss of the truncated and BIT mechanisms (Liu 2019, Definition 2).

Definition 2 calls both mechanisms ε-DP with λ = δ1/ε.  Here the worst-case
privacy loss

    sup { log P_s(y) / P_{s'}(y) : c0 <= s, s' <= c1, |s - s'| <= Δ, outputs y }

(densities and point masses alike) is *derived* from the laws of
:mod:`dpcheck.symbolic.laplace_family`, in four machine-checked steps:

1. **Sup over outputs.**  Take s <= s' (the other order is the other
   direction of the ratio, which is also examined).  On each output region
   between the points c0 <= s <= s' <= c1 the log ratio is linear in y
   (checked: its second y-derivative is 0), so its sup there is at an end of
   the region; point masses give one value each.  Every (region, direction)
   gives a *candidate*, a function of (s, s').
2. **Dominated candidates** are dropped: g is dropped when g' - g >= 0 is
   proved for a kept g'.
3. **Moving the inputs apart.**  For each kept candidate, ∂g/∂s < 0 and
   ∂g/∂s' > 0 are proved (:mod:`dpcheck.symbolic.signs_poly`, in coordinates
   a = (s-c0)/λ, d = (s'-s)/λ, e = (c1-s')/λ), so the sup lies on the edge
   s' = min(s + Δ, c1).  On the part s' = c1 the candidate decreases in s,
   so it is at most its value at s = c1 - Δ.
4. **Along the edge** s' = s + Δ the sign of d/ds g(s, s+Δ) is proved (in
   coordinates a = (s-c0)/λ, w = Δ/λ, e = (c1-s-Δ)/λ), which puts the worst
   case at s = c0 (negative), s = c1 - Δ (positive) or anywhere (zero).

For Δ >= R = c1 - c0 the constraint |s - s'| <= Δ is void and step 3 puts
the worst case at (s, s') = (c0, c1).

The result is compared with the fixed-point condition of Holohan et al.
(2018/2020), "The bounded Laplace mechanism in differential privacy", as
implemented in diffprivlib's ``LaplaceBoundedDomain._find_scale``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import sympy as sp

from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic import laws
from dpcheck.symbolic.rational import is_identically_zero
from dpcheck.symbolic.signs_poly import SignProof, prove_sign
from dpcheck.symbolic.symbols import c0, c1, delta1, epsilon, lam, s, x

#: the neighbouring input s'
s_prime = sp.Symbol("s'", real=True)
#: R/Δ, the range in units of the sensitivity
ratio = sp.Symbol("r", positive=True)

_a, _d, _e, _w = sp.symbols("a d e w", positive=True)
#: coordinates for step 3: s = c0 + λa, s' = s + λd, c1 = s' + λe
INTERIOR = {s: c0 + lam * _a, s_prime: c0 + lam * (_a + _d), c1: c0 + lam * (_a + _d + _e)}
#: coordinates for step 4, on the edge s' = s + Δ
EDGE = {s: c0 + lam * _a, delta1: lam * _w, c1: c0 + lam * (_a + _w + _e)}
MECHANISMS = ("truncated", "bit")


class NotProved(RuntimeError):
    """A step of the worst-case argument could not be machine-checked."""


@dataclass(frozen=True)
class Candidate:
    """The sup over one output region of one direction of the log ratio."""

    region: str
    direction: str
    value: sp.Expr  # a function of s, s' (and c0, c1, λ)
    at: sp.Expr  # the output y where this value is taken


@dataclass(frozen=True)
class Step:
    """One step of the derivation, in words, with its result."""

    text: str
    result: str = ""


@dataclass
class WorstCase:
    """The derived worst-case privacy loss of one mechanism."""

    mechanism: str
    candidates: list[Candidate]
    kept: list[Candidate]
    #: sup over neighbours for Δ < R, a function of (Δ, λ, c0, c1)
    loss: sp.Expr
    #: sup for Δ >= R
    loss_wide: sp.Expr
    #: where the sup is attained, for Δ < R: s, s', y (expressions), region, direction
    attained: list[dict[str, object]]
    steps: list[Step] = field(default_factory=list)

    def loss_in_epsilon(self, scale: sp.Expr | None = None) -> sp.Expr:
        """The loss at ``scale`` (default the paper's λ = Δ/ε, eq (2)) with R = rΔ (r > 1): a
        function of ε, r."""
        scale = delta1 / epsilon if scale is None else scale
        expr = self.loss.subs(c1, c0 + ratio * delta1).subs(lam, scale)
        return sp.simplify(sp.expand_log(sp.powsimp(sp.expand(expr)), force=True))


def _log(expr: sp.Expr) -> sp.Expr:
    return sp.expand(sp.expand_log(sp.log(sp.powsimp(expr)), force=True))


def candidates(mechanism: str) -> list[Candidate]:
    """Step 1: the sup over outputs of each region, both directions (s <= s')."""
    law = lf.law(mechanism)
    out: list[Candidate] = []
    for atom in law.atoms:
        ratio_s = _log(atom.mass) - _log(atom.mass.subs(s, s_prime))
        where = f"y = {atom.point} (point mass)"
        out.append(Candidate(where, "P_s/P_s'", sp.simplify(ratio_s), atom.point))
        out.append(Candidate(where, "P_s'/P_s", sp.simplify(-ratio_s), atom.point))
    for piece in law.pieces:
        if (piece.lower, piece.upper) != (c0, c1):
            raise NotProved(f"density piece on [{piece.lower}, {piece.upper}] not handled")
        bounds = [(c0, s, -1, -1), (s, s_prime, 1, -1), (s_prime, c1, 1, 1)]
        for lo, hi, side_s, side_t in bounds:
            mine = laws.resolve_abs(piece.density, side_s)
            theirs = laws.resolve_abs(piece.density.subs(s, s_prime), side_t, x, s_prime)
            ell = _log(mine) - _log(theirs)
            if sp.simplify(sp.diff(ell, x, 2)) != 0:
                raise NotProved(f"log ratio is not linear in y on [{lo}, {hi}]")
            for sign, direction in ((1, "P_s/P_s'"), (-1, "P_s'/P_s")):
                for end in (lo, hi):
                    value = sp.simplify(sign * ell.subs(x, end))
                    region = f"y in [{lo}, {hi}], at y = {end}"
                    out.append(Candidate(region, direction, value, end))
    return out


def _distinct(cands: list[Candidate]) -> list[Candidate]:
    kept: list[Candidate] = []
    for cand in cands:
        if not any(is_identically_zero(cand.value - k.value, normalise=False) for k in kept):
            kept.append(cand)
    return kept


def _require(proof: SignProof | None, sign: int, what: str) -> SignProof:
    if proof is None or proof.sign != sign:
        raise NotProved(f"could not prove {what}")
    return proof


def _undominated(cands: list[Candidate], steps: list[Step]) -> list[Candidate]:
    """Step 2: drop g when g' - g >= 0 is proved for another candidate g'."""
    kept = list(cands)
    for g in cands:
        for h in kept:
            if h is g:
                continue
            proof = prove_sign(h.value - g.value, INTERIOR)
            if proof is not None and proof.sign >= 0:
                steps.append(
                    Step(
                        f"candidate {g.direction} on {g.region} is dominated by "
                        f"{h.direction} on {h.region}",
                        f"difference {sp.simplify(h.value - g.value)}: {proof.describe()}",
                    )
                )
                kept.remove(g)
                break
    return kept


@cache
def worst_case(mechanism: str) -> WorstCase:
    """Steps 1-4 for ``mechanism`` ('truncated' or 'bit'); raises NotProved if a step fails."""
    if mechanism not in MECHANISMS:
        raise KeyError(mechanism)
    steps: list[Step] = []
    cands = _distinct(candidates(mechanism))
    steps.append(
        Step(
            "Sup over outputs: on each region between c0 <= s <= s' <= c1 the log ratio "
            "is linear in y, so its sup is at an end of the region; point masses give "
            "one value each",
            "; ".join(f"{c.direction} on {c.region}: {c.value}" for c in cands),
        )
    )
    kept = _undominated(cands, steps)
    values: list[sp.Expr] = []
    wide: list[sp.Expr] = []
    attained: list[dict[str, str]] = []
    for g in kept:
        ds = _require(prove_sign(sp.diff(g.value, s), INTERIOR), -1, f"d/ds {g.value} < 0")
        dt = _require(prove_sign(sp.diff(g.value, s_prime), INTERIOR), 1, f"d/ds' {g.value} > 0")
        steps.append(
            Step(
                f"{g.direction} on {g.region}: d/ds < 0 and d/ds' > 0, so the sup is on the "
                "edge s' = min(s + Δ, c1)",
                f"d/ds {ds.describe()}; d/ds' {dt.describe()}",
            )
        )
        along = sp.diff(g.value.subs(s_prime, s + delta1), s)
        edge = prove_sign(along, EDGE)
        if edge is None:
            raise NotProved(f"sign of d/ds {g.value} along s' = s + Δ")
        where = {-1: c0, 1: c1 - delta1, 0: c0}[edge.sign]
        text = {-1: "decreasing: s = c0", 1: "increasing: s = c1 - Δ", 0: "constant"}
        steps.append(
            Step(f"along s' = s + Δ the candidate is {text[edge.sign]}", edge.describe())
        )
        values.append(sp.simplify(g.value.subs(s_prime, s + delta1).subs(s, where)))
        wide.append(sp.simplify(g.value.subs({s: c0, s_prime: c1})))
        attained.append(
            {
                "s": where,
                "s'": where + delta1,
                "y": g.at.subs(s_prime, where + delta1).subs(s, where),
                "region": g.region,
                "direction": g.direction,
            }
        )
    loss = _largest(values, "Δ < R")
    loss_wide = _largest(wide, "Δ >= R")
    steps.append(Step("worst case for Δ < R (s' - s = Δ)", str(loss)))
    steps.append(Step("worst case for Δ >= R (s = c0, s' = c1)", str(loss_wide)))
    return WorstCase(mechanism, cands, kept, loss, loss_wide, attained, steps)


def _largest(values: list[sp.Expr], case: str) -> sp.Expr:
    """The largest of the candidate sups (they must be equal or ordered by proof)."""
    best = values[0]
    for v in values[1:]:
        if is_identically_zero(sp.expand_log(v - best, force=True), normalise=False):
            continue
        raise NotProved(f"candidates {best} and {v} differ for {case}")
    return best


def holohan_delta_c(scale: sp.Expr = lam) -> sp.Expr:
    """ΔC(b) of Holohan et al. (2018), as in diffprivlib's ``_find_scale`` (typed, for comparison).

    ΔC(b) = (2 - e^{-Δ/b} - e^{-(R-Δ)/b}) / (1 - e^{-R/b}), R = c1 - c0; the
    mechanism is ε-DP iff Δ/b + log ΔC(b) <= ε.
    """
    R = c1 - c0
    return (2 - sp.exp(-delta1 / scale) - sp.exp(-(R - delta1) / scale)) / (
        1 - sp.exp(-R / scale)
    )


#: coordinates w = Δ/λ, v = (R - Δ)/λ > 0 (the case Δ < R)
_W, _V = sp.symbols("w v", positive=True)
SCALE_COORDINATES = {delta1: lam * _W, c1: c0 + lam * (_W + _V)}


@cache
def matches_holohan(mechanism: str = "truncated") -> bool:
    """The derived loss equals Δ/λ + log ΔC(λ) of Holohan et al. exactly (Δ < R)."""
    derived = worst_case(mechanism).loss
    printed = delta1 / lam + sp.log(holohan_delta_c())
    difference = sp.expand_log(derived - printed, force=True)
    expr = sp.exp(sp.expand(difference)) - 1  # log a - log b = 0  <=>  a/b - 1 = 0
    return is_identically_zero(sp.powsimp(sp.expand(sp.simplify(expr))), normalise=False)


@cache
def limit_wide_range(mechanism: str = "truncated") -> sp.Expr:
    """lim_{R/Δ → ∞} of the loss at λ = Δ/ε (for the truncated mechanism: log(2e^ε - 1))."""
    return sp.simplify(sp.limit(worst_case(mechanism).loss_in_epsilon(), ratio, sp.oo))


@cache
def excess_positive() -> SignProof | None:
    """ΔC(λ) - 1 > 0 for every 0 < Δ < R: the truncated loss exceeds Δ/λ strictly."""
    return prove_sign(holohan_delta_c() - 1, SCALE_COORDINATES)


@cache
def loss_decreasing_in_scale(mechanism: str = "truncated") -> SignProof | None:
    """d(loss)/dλ < 0 for 0 < Δ < R: so the calibrated scale is the unique root of loss = ε."""
    return prove_sign(sp.diff(worst_case(mechanism).loss, lam), SCALE_COORDINATES)


__all__ = [
    "Candidate",
    "MECHANISMS",
    "NotProved",
    "Step",
    "WorstCase",
    "candidates",
    "excess_positive",
    "holohan_delta_c",
    "limit_wide_range",
    "loss_decreasing_in_scale",
    "matches_holohan",
    "ratio",
    "s_prime",
    "worst_case",
]
