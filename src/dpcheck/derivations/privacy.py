"""Derivation of the exact worst-case privacy loss (Liu 2019, Definition 2).

The steps are those of :func:`dpcheck.symbolic.privacy.worst_case` (sup over
outputs, dominated candidates dropped, the inputs moved apart, the edge
s' = s + Δ), printed from its result object: the candidates, the kept ones,
where the sup is attained and the loss.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.derivations.document import Derivation, Printed, Step, escape
from dpcheck.derivations.notation import display, tex
from dpcheck.symbolic import privacy as pv
from dpcheck.symbolic.symbols import delta1, epsilon, lam

_TITLE = {"truncated": "Truncated", "bit": "BIT"}
_CLAIM = {"truncated": "liu2019.def2.privacy_truncated", "bit": "liu2019.def2.privacy_bit"}
_PART = {"truncated": "a", "bit": "b"}
_LAW = {"truncated": "truncated-normaliser", "bit": "bit-law"}


def _label(c: pv.Candidate) -> str:
    return escape(f"log {c.direction}, {c.region}")


def privacy(mechanism: str) -> Derivation:
    """The worst-case loss sup log P_s(y)/P_s'(y) over |s - s'| <= Δ and outputs y."""
    w = pv.worst_case(mechanism)
    names = {id(c): f"\\ell_{{{i}}}" for i, c in enumerate(w.candidates, 1)}
    listed = tuple(
        display(f"{names[id(c)]} \\quad \\text{{({_label(c)})}}", c.value) for c in w.candidates
    )
    dropped = [names[id(c)] for c in w.candidates if c not in w.kept]
    kept = [names[id(c)] for c in w.kept]
    steps = [
        Step(
            "Neighbouring inputs $c_0 \\le s \\le s' \\le c_1$, $s' - s \\le \\Delta = \\delta_1$ "
            "(the sensitivity; the other "
            "order is the other direction of the ratio). At an output $y$ the privacy loss is "
            "$\\log P_s(y)/P_{s'}(y)$ (densities inside $(c_0, c_1)$, point masses at the "
            "bounds). On each region between $c_0, s, s', c_1$ the log ratio is linear in $y$ "
            "(its second $y$-derivative is $0$, checked), so its sup is at an end of the region. "
            "The distinct candidates, both directions:",
            listed,
        ),
        Step(
            (
                f"Drop ${', '.join(dropped)}$: each is at most another candidate (the sign of the "
                "difference proved in the coordinates $a = (s-c_0)/\\lambda$, "
                "$d = (s'-s)/\\lambda$, $e = (c_1-s')/\\lambda$). "
                if dropped
                else ""
            )
            + f"Kept: ${', '.join(kept)}$."
        ),
    ]
    for c, at in zip(w.kept, w.attained, strict=True):
        where, other = at["s"], at["s'"]
        steps.append(
            Step(
                f"For ${names[id(c)]}$: $\\partial/\\partial s < 0$ and "
                "$\\partial/\\partial s' > 0$ (proved), so the inputs move apart to "
                "$s' = \\min(s + \\Delta, c_1)$; along $s' = s + \\Delta$ the sign of the "
                f"derivative puts the sup at $s = {tex(where)}$, $s' = {tex(other)}$"
                f", $y = {tex(at['y'])}$.",
                (
                    display(
                        f"{names[id(c)]}\\big|_{{s = {tex(where)}}}",
                        sp.simplify(c.value.subs(pv.s_prime, other).subs(pv.s, where)),
                    ),
                ),
            )
        )
    steps.append(
        Step(
            "The worst-case loss, for $\\Delta < R = c_1 - c_0$ and for $\\Delta \\ge R$ "
            "(then $s = c_0$, $s' = c_1$):",
            (
                display(r"\text{loss}_{\Delta < R}", w.loss),
                display(r"\text{loss}_{\Delta \ge R}", w.loss_wide),
            ),
        )
    )
    at_scale = w.loss_in_epsilon()
    words = "At the paper's scale $\\lambda = \\Delta/\\varepsilon$, with $R = r\\Delta$, $r > 1$:"
    math = [display(r"\text{loss}", at_scale)]
    if mechanism == "truncated":
        words += (
            " the loss equals $\\Delta/\\lambda + \\log \\Delta C(\\lambda)$ of Holohan et al. "
            f"(2018) ({'checked exactly' if pv.matches_holohan() else 'NOT equal'}), and "
            "$\\Delta C(\\lambda) - 1 > 0$ for $0 < \\Delta < R$ "
            f"({'proved' if pv.excess_positive() else 'not shown'}), so the loss exceeds "
            "$\\varepsilon$; the last line is the limit $r \\to \\infty$:"
        )
        math.append(display(r"\lim_{r\to\infty}\text{loss}", pv.limit_wide_range()))
        math.insert(0, display(r"\Delta C(\lambda)", pv.holohan_delta_c()))
    else:
        words += " exactly $\\varepsilon$ (and less when $\\Delta > R$)."
        if sp.simplify(at_scale - epsilon) != 0 or sp.simplify(w.loss - delta1 / lam) != 0:
            raise AssertionError("BIT loss is not delta1/lambda")
    steps.append(Step(words, tuple(math)))
    return Derivation(
        f"privacy-{mechanism}",
        f"{_TITLE[mechanism]} Laplace mechanism: the exact privacy loss",
        f"Liu (2019), Definition 2({_PART[mechanism]})",
        "Definition 2 calls the mechanism $\\varepsilon$-DP with $\\lambda = \\delta_1/"
        "\\varepsilon$. Here the worst-case privacy loss is derived from the law "
        f"(Section~\\ref{{sec:{_LAW[mechanism]}}}).",
        tuple(steps),
        (Printed(f"Definition 2({_PART[mechanism]})", _CLAIM[mechanism]),),
    )


__all__ = ["privacy"]
