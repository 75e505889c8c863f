"""The verdict table of DESIGN.md, enforced from a verdict's basis.

A check proposes a status; :func:`enforce` (called by the runner on every
verdict, so no claim file can opt out) keeps it only if the basis allows it:

* ``proved``: a stated domain, every step checked by a program, and at least one
  step of kind symbolic, sign, enclosure or limit covering the whole stated
  domain.  Otherwise the claim is ``verified`` on the part that exact steps
  covered (e.g. an enumeration's ``n <= 8``; the domain goes into the finding),
  or ``inconclusive`` when nothing exact covers any part of it.
* ``verified``: a checked step in exact or rigorous arithmetic (symbolic, sign,
  enclosure, limit, enumeration), and a stated domain.
* ``refuted``: a checked step in exact or rigorous arithmetic (the counterexample's
  confirmation).
* Empirical verdicts, whose basis is a Monte Carlo reproduction and nothing exact
  (:attr:`Verdict.empirical`), keep ``verified``/``refuted``: DESIGN.md judges
  simulation claims by reproduction with stated Monte Carlo error; the reports
  mark them as empirical and count them apart.  They are never ``proved``.

Sampling and prose alone never settle a claim.  When the table changes a status,
the evidence says what was asked, what was given and why (``"verdict rules"``).
"""

from __future__ import annotations

from dpcheck.claims.model import EXACT, RIGOROUS, Status, Step, Verdict


def covers_whole(step: Step, verdict: Verdict) -> bool:
    """The step's domain is the verdict's whole stated domain."""
    return step.whole or (bool(verdict.domain) and step.domain == verdict.domain)


def proved_problem(v: Verdict) -> str | None:
    """Why ``v`` may not be ``proved`` (None when it may)."""
    if not v.basis:
        return "no basis was given"
    if not v.domain:
        return "no domain was stated"
    unchecked = [s for s in v.basis if not s.checked]
    if unchecked:
        kinds = sorted({s.kind.value for s in unchecked})
        return f"{len(unchecked)} step(s) not checked by a program ({', '.join(kinds)})"
    if not any(s.kind in RIGOROUS and covers_whole(s, v) for s in v.basis):
        partial = sorted({s.kind.value for s in v.basis})
        return (
            "no symbolic, sign, enclosure or limit step covers the whole stated domain"
            f" (steps: {', '.join(partial)})"
        )
    return None


def _exact_steps(v: Verdict) -> list[Step]:
    return [s for s in v.basis if s.checked and s.kind in EXACT]


def _record(v: Verdict, asked: Status, reason: str) -> None:
    v.evidence["verdict rules"] = {"asked": asked.value, "given": v.status.value, "reason": reason}


def enforce(v: Verdict) -> Verdict:
    """Apply the table to ``v`` in place (see the module docstring); returns ``v``."""
    asked = v.status
    if asked is Status.PROVED:
        reason = proved_problem(v)
        if reason is None:
            return v
        partial = [s for s in _exact_steps(v) if not covers_whole(s, v)]
        if partial and not v.empirical:
            domain = "; ".join(dict.fromkeys(s.domain for s in partial))
            v.status = Status.VERIFIED
            v.domain = domain
            v.evidence["finding"] = (
                f"verified on {domain} only ({reason}): {v.evidence.get('finding', v.method)}"
            )
        else:
            v.status = Status.INCONCLUSIVE
            v.domain = ""
            v.evidence["finding"] = f"not proved ({reason}): {v.evidence.get('finding', v.method)}"
        _record(v, asked, reason)
    elif asked in (Status.VERIFIED, Status.REFUTED) and not v.empirical:
        exact = _exact_steps(v)
        if not exact:
            v.status = Status.INCONCLUSIVE
            reason = "no checked step in exact or rigorous arithmetic" + (
                " (sampling and prose never settle a claim)" if v.basis else ": no basis"
            )
            v.evidence["finding"] = f"not settled ({reason}): {v.evidence.get('finding', '')}"
            _record(v, asked, reason)
        elif asked is Status.VERIFIED and not v.domain:
            v.domain = "; ".join(dict.fromkeys(s.domain for s in exact))
    return v
