"""Checking the printed L = 1 identities of Zhilyaev and Zeber (2016), line by line.

Each displayed line (:mod:`dpcheck.papers.zz2016`) is compared with the chain's
left side, which is a quantity of the law itself (P_{n,m}(s), F_{n,m}(s), a
ratio of them): first symbolically, for every n, m and s at once
(:func:`dpcheck.symbolic.krand.prove`, generating functions or reduction by
(4.1)/(4.2)), then, as an independent route, in exact rationals on the laws of
:mod:`dpcheck.enumeration.krand` at every point of a small grid.  A false line
gets the smallest witness (smallest n, then m, then s) with both exact values.
The verdict is assembled by :func:`dpcheck.claims.lines.verdict_of_lines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sympy as sp

from dpcheck.claims.lines import verdict_of_lines
from dpcheck.claims.model import WHOLE, Kind, Step, Verdict, step
from dpcheck.papers.equation import Equation
from dpcheck.symbolic import krand as sk
from dpcheck.symbolic.krand import Fact

#: lie probabilities of the exact cross-checks and witness searches
EXACT_QS = (Fraction(1, 4), Fraction(1, 3), Fraction(1, 10))
#: the exact cross-check covers n = 1..EXACT_N
EXACT_N = 6

METHOD = (
    "each line proved equal to the left side for all n, m, s (generating function "
    "G_{n,m}(z) = (q + p z)^m (p + q z)^(n-m) of the law, or reduction by (4.1)/(4.2)); "
    "independently, every line evaluated on the exact laws at every point of a grid"
)
REFUTED_METHOD = (
    "the line differs symbolically from the law; smallest witness (n, then m, then s) "
    "evaluated on the exact law in rationals"
)


def points(n_max: int = EXACT_N) -> list[tuple[int, int, int]]:
    """Every (n, m, s) with n = 1..n_max, m = 0..n, s = -1..n+1 (ordered n, m, s)."""
    return sk.grid(n_max, 0, 0, -1, 1)


def smallest_witness(
    line: sp.Expr, truth: sp.Expr, pts: Sequence[tuple[int, int, int]], qs: Sequence[object]
) -> dict[str, Any] | None:
    """The smallest point (order of ``pts``; any q of ``qs``) where the two differ."""
    hits = [next(sk.exact_residuals(line, truth, pts, [qv]), None) for qv in qs]
    found = [h for h in hits if h is not None]
    if not found:
        return None
    best = min(found, key=lambda h: h[:3])
    nv, mv, sv, qq, left, right = best
    return {
        "data": {"n": nv, "m": mv, "s": sv, "q": str(qq)},
        "printed line on the data": str(left),
        "value of the law": str(right),
    }


def check_chain(
    chain: Sequence[Equation], pts: Sequence[tuple[int, int, int]] | None = None
) -> tuple[sp.Expr, list[dict[str, Any]]]:
    """Each displayed line of ``chain[1:]`` against the left side ``chain[0]``."""
    pts = points() if pts is None else pts
    target = chain[0].expr
    out = []
    for eq in chain[1:]:
        entry: dict[str, Any] = {"line": eq.label, "printed": eq.latex}
        proof = sk.prove(eq.expr, target)
        wit = smallest_witness(eq.expr, target, pts, EXACT_QS)
        if proof.holds and wit is None:
            entry["status"] = "holds as printed"
            entry["proof"] = proof.text()
            entry["law domain"] = proof.domain
            entry["exact check"] = (
                f"equal at all {len(pts)} points (n = 1..{max(x[0] for x in pts)}, every m, "
                f"s = -1..n+1) for q in {{{', '.join(map(str, EXACT_QS))}}}"
            )
        elif wit is not None:
            entry["as printed"] = {"holds": False, "witness": wit, "residual": str(proof.residual)}
            entry["status"] = "false"
            if proof.holds:  # the two routes disagree: never report that as settled
                entry["status"] = "undecided"
                entry["conflict"] = "symbolic route says equal, exact evaluation differs"
        else:
            entry["as printed"] = {
                "holds": "undecided (symbolic residual, no exact witness on the grid)",
                "residual": str(proof.residual),
            }
            entry["status"] = "undecided"
        out.append(entry)
    return target, out


def chain_verdict(
    claim_id: str,
    chains: Sequence[Sequence[Equation]],
    *,
    domain: str,
    finding_ok: str,
    extra: dict[str, Any] | None = None,
) -> Verdict:
    """Check every chain and give one verdict (refuted at the first false line)."""
    lines: list[dict[str, Any]] = []
    targets = []
    for chain in chains:
        target, entries = check_chain(chain)
        targets.append(target)
        lines += entries
    ref = targets[0] if len(targets) == 1 else sp.Tuple(*targets)
    return verdict_of_lines(
        claim_id,
        lines,
        ref,
        domain=domain,
        finding_ok=finding_ok,
        extra=extra,
        reference="left side (a quantity of the law)",
        method=METHOD,
        refuted_method=REFUTED_METHOD,
    )


def fact_steps(facts: Sequence[Fact]) -> list[Step]:
    """The basis steps of machine-checked facts (:class:`dpcheck.symbolic.krand.Fact`):
    checked exactly when the fact held in this run."""
    return [
        step(Kind(f.kind), f"{f.name}: {f.detail}", checked=f.holds, domain=f.domain or WHOLE)
        for f in facts
    ]


def failed_facts(facts: Sequence[Fact]) -> list[str]:
    """The names of the facts that did not hold."""
    return [f.name for f in facts if not f.holds]


def unclosed(
    facts: Sequence[Fact],
    status: Any,
    method: str,
    evidence: dict[str, Any],
    reproduce: str = "",
    *,
    basis: list[Step],
    domain: str = "",
    lead: str = "a machine step did not close: ",
) -> Verdict | None:
    """The fallback verdict of a proof whose machine-checked facts did not all hold
    (its finding names them), or None when every fact held."""
    failed = failed_facts(facts)
    if not failed:
        return None
    evidence["finding"] = lead + ", ".join(failed)
    return Verdict(status, method, evidence, reproduce, domain=domain, basis=basis)
