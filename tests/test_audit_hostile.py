"""Generated hostile inputs for ``dpcheck audit`` (issue 40).

Every case runs ``dpcheck audit ... --json`` in a child process under a time limit and an
address-space cap (:mod:`cli_subprocess`): none may end in a traceback, a signal, more
time or memory than documented, or an overstated lower bound on the privacy loss.  The
cases come from a fixed seed: a mechanism (every base, bounding and Liu's two) with the
exact or the black-box guide, and for each option a value from a pool of valid values
(claims from ε = 0 to 50, δ from 0 to 0.5, scales from 1e-3 to 1e3, bounds 1e-3 to 1e12
apart, 1 to 1e6 draws (1e7 in the slow suite), seeds up to 2^63 - 1, confidences up to
1 - 1e-9) or, in about half the cases, one hostile value (0, negative, nan, inf, not a
number, reversed bounds, beyond the ceiling of draws, a confidence of 0 or 1, an unknown
mechanism or guide).  A case with a hostile value must be refused in one line that
names the option; a case of valid values must be answered (exit 0: no violation, 1: a
violation) or refused in one line.

The safe side: the audit's ε is a lower bound on the privacy loss, at the stated
confidence.  Where the truth is known independently (:mod:`reference_privacy`: the
unbounded Laplace, Gaussian and geometric, and their clamped versions, which are
post-processing and so no less private), an audit at confidence >= 1 - 1e-8 must not
report a lower bound above the true ε(δ) (a correct audit does so with probability
<= 1e-8 per case, so below 1e-6 over the suite).

* fast (default): 24 cases, at most 1e6 draws;
* slow (CI's ``pytest -m slow``): 12 cases, with 1e7 draws among them.

The documented time is the ceiling table's (``audit --samples``: about 30 min at 1e9
draws, so 1.8 s per 10^6 draws per side, with one pass per pair and direction).
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import mpmath
import pytest
import reference_privacy as ref
from cli_subprocess import VerbCase, assert_no_traceback, assert_refused, run_cli

from dpcheck.inputs.limits import ceiling

#: Seconds per 10^6 draws per side, from the ceiling table (30 min at its ceiling).
PER_MILLION = 1800 / (ceiling("audit", "--samples").maximum / 10**6)
#: The fixed phases (imports, the plan) with room for a loaded two-core machine.
FIXED_SECONDS = 20.0
MEMORY_GIB = 4.0
REFUSE_SECONDS = 20.0
#: Confidence from which the safe-side check applies (module doc).
CHECKED_CONFIDENCE = 1 - 1e-8

UNBOUNDED = ["laplace", "gaussian", "geometric"]
BOUNDED = [
    "truncated-laplace", "clamped-laplace", "folded-laplace", "truncated-gaussian",
    "clamped-gaussian", "truncated-geometric", "clamped-geometric",
]
LIU = ["truncated", "bit"]

VALID = {
    "--epsilon": ["0", "0.1", "1", "2", "1e-12", "3/7", "50"],
    "--delta": ["0", "1e-6", "1e-3", "0.5"],
    "--sensitivity": ["1", "0.5", "2", "1e-3", "1e3"],
    "--sensitivity (lattice)": ["1", "2", "3"],
    "--scale": ["1", "0.5", "2", "1e-3", "1e3"],
    "bounds": [("0", "1"), ("0", "10"), ("-5", "5"), ("-1e-3", "1e-3"), ("0", "1e12")],
    "bounds (lattice)": [("0", "1"), ("0", "5"), ("-3", "3"), ("0", "1e9")],
    "--samples": ["1", "2", "1e3", "1e4", "1e5", "1e6"],
    "--seed": ["0", "1", "12345", "9223372036854775807"],
    "--confidence": ["0.95", "0.5", "0.99999999", "0.999999999", "1/3"],
}
SLOW_SAMPLES = ["1e6", "1e7"]
HOSTILE = {
    "--epsilon": ["-1", "nan", "inf", "x", "1e99999", ""],
    "--delta": ["1", "-1e-6", "nan", "2"],
    "--sensitivity": ["0", "-1", "nan", "inf", "x"],
    "--scale": ["0", "-2", "nan", "inf", "1/0"],
    "--lower": ["nan", "inf", "x"],
    "--upper": ["nan", "-inf", "x"],
    "--samples": ["0", "-5", "1000000001", "1e99", "1.5", "nan"],
    "--seed": ["-1", "1.5", "x", "9223372036854775808"],
    "--confidence": ["0", "1", "1.5", "nan", "-0.5"],
    "--guide": ["nosuch", ""],
    "mechanism": ["nosuch", "gaussian;rm", "clamped-", "truncated-nosuch"],
}
#: What the refusal of a hostile value must name.
NAMES = {
    "--epsilon": "epsilon",
    "--delta": "delta",
    "--sensitivity": "sensitivity",
    "--scale": "scale",
    "--lower": ("lower", "upper"),
    "--upper": ("upper", "lower"),
    "--samples": "samples",
    "--seed": "seed",
    "--confidence": "confidence",
    "--guide": "guide",
    "mechanism": "mechanism",
}


class Case(VerbCase):
    VERB = "audit"

    def seconds(self) -> float:
        """The documented time: per-draw cost over every pair and direction, plus fixed (a
        hostile count is refused before any draw)."""
        try:
            n = float(Fraction(self.value("--samples") or "1000000"))
        except (ValueError, ZeroDivisionError):
            n = 0.0
        if self.hostile is not None or not 0 < n <= ceiling("audit", "--samples").maximum:
            n = 0.0
        passes = 4  # at most two pairs (bounded edges), both directions
        return FIXED_SECONDS + PER_MILLION * passes * n / 1e6


def generate(seed: int, count: int, slow: bool) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    used: dict[str, int] = {}
    for i in range(count):
        family = rng.choice(["unbounded", "bounded", "liu"])
        mech = rng.choice({"unbounded": UNBOUNDED, "bounded": BOUNDED, "liu": LIU}[family])
        lattice = mech.endswith("geometric")
        o: dict[str, str] = {}
        o["--epsilon"] = rng.choice(VALID["--epsilon"])
        o["--sensitivity"] = rng.choice(VALID["--sensitivity (lattice)" if lattice
                                              else "--sensitivity"])
        if family != "unbounded":
            o["--lower"], o["--upper"] = rng.choice(VALID["bounds (lattice)" if lattice
                                                          else "bounds"])
        if family == "liu":
            o["--guide"] = rng.choice(["exact", "blackbox"])
            if o["--epsilon"] == "0":  # Liu's mechanisms take ε > 0 (their scale Δ/ε)
                o["--epsilon"] = "1"
        else:
            o["--guide"] = "blackbox"
            if rng.random() < 0.5:
                o["--delta"] = rng.choice(VALID["--delta"])
        if mech.endswith("gaussian") or rng.random() < 0.5 or o["--epsilon"] == "0":
            o["--scale"] = rng.choice(VALID["--scale"])
        o["--samples"] = rng.choice(SLOW_SAMPLES if slow else VALID["--samples"])
        o["--seed"] = rng.choice(VALID["--seed"])
        o["--confidence"] = rng.choice(VALID["--confidence"])
        hostile = None
        if i % (3 if slow else 2) == 1:  # the next hostile option in turn
            choices = [h for h in HOSTILE if h in o or h == "mechanism"]
            hostile = min(choices, key=lambda h: (used.get(h, 0), list(HOSTILE).index(h)))
            used[hostile] = used.get(hostile, 0) + 1
            if hostile == "mechanism":
                mech = rng.choice(HOSTILE["mechanism"])
            else:
                o[hostile] = rng.choice(HOSTILE[hostile])
        cases.append(Case(mech, tuple(o.items()), hostile))
    return cases


FAST = generate(41, 24, slow=False)
SLOW = generate(4141, 12, slow=True)


def _true_epsilon(case: Case) -> mpmath.mpf | None:
    """ε(δ) of the setting from the independent route (clamped: the unbounded's, an upper
    bound by post-processing); None where the route has no answer."""
    base = case.mechanism.removeprefix("clamped-")
    if base not in UNBOUNDED or case.value("--guide") != "blackbox":
        return None
    sens = Fraction(case.value("--sensitivity"))
    eps = Fraction(case.value("--epsilon"))
    scale = Fraction(case.value("--scale")) if case.value("--scale") else (
        sens / eps if eps else None)
    if scale is None:
        return None
    delta = Fraction(case.value("--delta") or "0")
    with mpmath.workdps(40):
        if delta == 0:
            if base == "gaussian":
                return mpmath.inf
            if base == "laplace":
                return mpmath.mpf(sens.numerator) / sens.denominator * scale.denominator / (
                    scale.numerator)
            return mpmath.mpf(int(sens)) * scale.denominator / scale.numerator
        return ref.epsilon_for(lambda x: ref.unbounded_delta(
            base, Fraction(mpmath.nstr(x, 35)), sens, scale), delta)


def check_answer(case: Case, data: dict) -> None:
    """The audit's lower bound never exceeds the true ε(δ) at a confidence >= 1 - 1e-8."""
    assert isinstance(data.get("exceeds"), bool), data
    if float(Fraction(case.value("--confidence") or "0.95")) < CHECKED_CONFIDENCE:
        return
    truth = _true_epsilon(case)
    found = data.get("epsilon_lower_bound")
    if truth is None or found is None:
        return
    with mpmath.workdps(40):
        assert mpmath.mpf(found) <= truth * (1 + mpmath.mpf(10) ** -12), (
            f"overstated audit: lower bound {found} above the true epsilon {truth}")


def _run(case: Case) -> None:
    limit = case.seconds()
    result = run_cli(case.args, timeout=limit + REFUSE_SECONDS, memory_gib=MEMORY_GIB)
    assert_no_traceback(result)
    if case.hostile is not None:
        assert_refused(result, mentions=NAMES[case.hostile], within=REFUSE_SECONDS)
        return
    if result.code == 2:
        assert_refused(result)
        return
    assert result.code in (0, 1), result.describe()
    assert result.seconds <= limit, result.describe()
    data = json.loads(result.stdout)
    assert (result.code == 1) == data["exceeds"], result.describe()
    check_answer(case, data)


@pytest.mark.parametrize("case", FAST, ids=str)
def test_audit_hostile_fast(case: Case) -> None:
    _run(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=str)
def test_audit_hostile_slow(case: Case) -> None:
    _run(case)


def test_the_generated_suite_covers_every_option() -> None:
    cases = FAST + SLOW
    assert len(cases) >= 30
    assert {c.hostile for c in cases} >= set(HOSTILE) - {"--guide"}
    answered = {c.mechanism for c in cases if c.hostile is None}
    assert answered & set(UNBOUNDED) and answered & set(BOUNDED) and answered & set(LIU)


def test_the_safe_side_check_catches_an_overstated_bound() -> None:
    """Mutation: a lower bound above the Laplace's ε = Δ/λ fails check_answer."""
    case = Case("laplace", (("--epsilon", "1"), ("--sensitivity", "1"), ("--scale", "1"),
                            ("--guide", "blackbox"), ("--confidence", "0.999999999")), None)
    with pytest.raises(AssertionError, match="overstated audit"):
        check_answer(case, {"exceeds": True, "epsilon_lower_bound": 1.01})
    check_answer(case, {"exceeds": False, "epsilon_lower_bound": 0.99})
