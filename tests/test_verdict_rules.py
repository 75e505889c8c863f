"""The verdict table of DESIGN.md, enforced by the runner from each verdict's basis."""

from __future__ import annotations

import json
import re

import pytest

from dpcheck.claims import report, runner
from dpcheck.claims.model import WHOLE, Claim, Kind, Status, Verdict, argument, step
from dpcheck.claims.rules import enforce, proved_problem

SYM = step(Kind.SYMBOLIC, "difference reduced to 0")
ENUM = step(Kind.ENUMERATION, "every n checked exactly", domain="n = 1..8")
MC = step(Kind.MONTE_CARLO, "reproduced at 6 SE", domain="the paper's cells")


def verdict(status: Status, *basis, domain: str = "all n >= 1") -> Verdict:
    return Verdict(status, "method", {"finding": "holds"}, domain=domain, basis=list(basis))


def test_proved_kept_with_a_checked_symbolic_step_on_the_whole_domain():
    v = enforce(verdict(Status.PROVED, SYM, step(Kind.SIGN, "G' < 0")))
    assert v.status is Status.PROVED and "verdict rules" not in v.evidence


@pytest.mark.parametrize(
    "basis, expected, reason",
    [
        ((), Status.INCONCLUSIVE, "no basis"),
        ((argument("by induction"),), Status.INCONCLUSIVE, "not checked"),
        ((SYM, argument("the general step is similar")), Status.INCONCLUSIVE, "not checked"),
        ((ENUM,), Status.VERIFIED, "no symbolic, sign, enclosure or limit step"),
        ((ENUM, argument("and so for every n")), Status.VERIFIED, "not checked"),
        ((step(Kind.SAMPLING, "3000 random instances"),), Status.INCONCLUSIVE, "covers"),
        ((step(Kind.SYMBOLIC, "m = 1..8", domain="m = 1..8"),), Status.VERIFIED, "covers"),
        ((step(Kind.SYMBOLIC, "not reduced", checked=False), ENUM), Status.VERIFIED, "checked"),
        ((MC,), Status.INCONCLUSIVE, "covers"),
    ],
)
def test_proved_demoted(basis, expected, reason):
    v = enforce(verdict(Status.PROVED, *basis))
    assert v.status is expected
    rules = v.evidence["verdict rules"]
    assert rules["asked"] == "proved" and rules["given"] == expected.value
    assert reason in rules["reason"]
    if expected is Status.VERIFIED:
        # the domain that was enumerated goes into the verdict and its finding
        assert v.domain == next(s.domain for s in basis if s.checked and s.domain != WHOLE)
        assert f"verified on {v.domain} only" in v.evidence["finding"]


def test_proved_needs_a_stated_domain():
    v = enforce(verdict(Status.PROVED, SYM, domain=""))
    assert v.status is Status.INCONCLUSIVE
    assert proved_problem(verdict(Status.PROVED, SYM, domain="")) == "no domain was stated"


def test_a_step_naming_the_stated_domain_covers_it():
    v = enforce(verdict(Status.PROVED, step(Kind.LIMIT, "lim", domain="all n >= 1")))
    assert v.status is Status.PROVED


@pytest.mark.parametrize("status", [Status.VERIFIED, Status.REFUTED])
def test_verified_and_refuted_need_an_exact_step(status):
    assert enforce(verdict(status, ENUM)).status is status
    assert enforce(verdict(status, step(Kind.ENCLOSURE, "arb", domain="x = 1"))).status is status
    for weak in ((), (argument("clearly"),), (step(Kind.SAMPLING, "draws"),)):
        v = enforce(verdict(status, *weak))
        assert v.status is Status.INCONCLUSIVE, weak
        assert v.evidence["verdict rules"]["asked"] == status.value
    # an unchecked exact step does not count
    unchecked = step(Kind.ENUMERATION, "not run", checked=False, domain="n = 1")
    assert enforce(verdict(status, unchecked)).status is Status.INCONCLUSIVE


def test_verified_gets_its_domain_from_the_steps():
    v = enforce(verdict(Status.VERIFIED, ENUM, domain=""))
    assert v.status is Status.VERIFIED and v.domain == "n = 1..8"


def test_empirical_verdicts_keep_their_status_and_are_marked():
    for status in (Status.VERIFIED, Status.REFUTED, Status.INCONCLUSIVE):
        v = enforce(verdict(status, MC))
        assert v.status is status and v.empirical
    # Monte Carlo never proves
    assert enforce(verdict(Status.PROVED, MC)).status is Status.INCONCLUSIVE
    # an exact step makes a verdict deductive, not empirical
    assert not verdict(Status.VERIFIED, MC, ENUM).empirical


def test_steps_validate_their_fields():
    with pytest.raises(ValueError):
        step("proof-by-intimidation", "trust me")
    with pytest.raises(TypeError):
        step(Kind.SYMBOLIC, "x", checked="yes")  # type: ignore[arg-type]
    assert argument("prose").checked is False
    assert SYM.as_dict("all n")["domain"] == "all n"
    assert ENUM.as_dict("all n")["domain"] == "n = 1..8"


def _claim(check) -> Claim:  # type: ignore[no-untyped-def]
    return Claim("test.rules.x", "nowhere", "x", check)


def test_the_runner_enforces_and_a_claim_cannot_opt_out():
    """A check that asks for `proved` on prose gets `inconclusive`, whatever it returns."""

    def overclaim() -> Verdict:
        return verdict(Status.PROVED, argument("obvious"))

    result = runner.run_one(_claim(overclaim))
    assert result.verdict.status is Status.INCONCLUSIVE
    assert runner.exit_code([result]) == 1

    def not_a_verdict():  # type: ignore[no-untyped-def]
        return "proved"

    bad = runner.run_one(_claim(not_a_verdict))
    assert bad.verdict.status is Status.INCONCLUSIVE and bad.verdict.evidence["crashed"]


def test_reports_carry_the_basis_and_count_empirical_apart():
    results = [
        runner.Result(_claim(lambda: None), enforce(verdict(Status.PROVED, SYM))),
        runner.Result(
            Claim("test.rules.mc", "§4", "sim", lambda: None), enforce(verdict(Status.VERIFIED, MC))
        ),
    ]
    data = json.loads(report.render_json(results))
    first, second = data["claims"]
    assert first["basis"] == [
        {"kind": "symbolic", "checked": True, "domain": "all n >= 1", "detail": SYM.detail}
    ]
    assert first["empirical"] is False and second["empirical"] is True
    assert data["summary"]["proved"] == 1 and data["summary"]["verified"] == 0
    assert data["summary"]["empirical"]["verified"] == 1
    line = runner.summary_line(results)
    assert line.endswith("empirical (Monte Carlo): verified: 1")
    for fmt in ("md", "tex", "table"):
        text = report.render(results, fmt)
        assert re.search(r"verified(\*\*|\})? \(empirical\)", text), fmt
        assert "empirical (Monte Carlo): verified: 1" in text, fmt
