"""Generated hostile inputs for ``dpcheck privacy`` (issue 40).

Every case runs ``dpcheck privacy ... --json`` in a child process under a time limit and
an address-space cap (:mod:`cli_subprocess`): none may end in a traceback, a signal, more
time or memory than documented, or an understated privacy number.  The cases come from a
fixed seed: a mechanism (every base, bounding and Liu's two), and for each option a value
drawn from a pool of valid values (the extremes included: sensitivities from 1e-1000 to
1e3, scales from 1e-3 to 1e3, bounds 1e-3 to 1e12 apart, ε from 0 to 1e400 and a hair
below a pure ε, δ from 1e-1000 to 0.5, --dps up to its ceiling) or, in about half the
cases, one hostile value (0, negative, nan, inf, not a number, reversed bounds, beyond a
ceiling, an unknown mechanism).  A case with a hostile value must be refused in one line
that names the option; a case of valid values must be answered, or refused in one line.

An answer is checked against the independent route of :mod:`reference_privacy` where
that route is cheap (unbounded mechanisms always; bounded ones with moderate parameters,
at the reported worst pair): a printed δ(ε) is never below the reference's, and the
reference's δ at a printed ε(δ) is never above δ.

* fast (default): 24 cases with moderate sizes;
* slow (CI's ``pytest -m slow``): 16 cases at the extremes (and Liu's report at --dps up to
  the ceiling), with the documented time of :data:`dpcheck.inputs.limits.CEILINGS`.
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

#: The documented time of one answer (the ceiling table's row "privacy answer"), with
#: room for a loaded two-core machine running the tests in parallel.
DOCUMENTED = ceiling("privacy", "seconds per answer").maximum
LIMIT_SECONDS = 1.5 * DOCUMENTED
#: The same for a calibration (no --scale).
CALIBRATION_SECONDS = 1.5 * ceiling("privacy", "seconds per calibration").maximum
#: Address space per process.
MEMORY_GIB = 4.0
#: A refusal comes before any work.
REFUSE_SECONDS = 20.0

UNBOUNDED = ["laplace", "gaussian", "geometric"]
BOUNDED = [
    "truncated-laplace", "clamped-laplace", "folded-laplace", "truncated-gaussian",
    "clamped-gaussian", "truncated-geometric", "clamped-geometric",
]
LIU = ["truncated", "bit"]

VALID = {
    "sensitivity": ["1", "0.5", "3/7", "2", "1e-6", "1e3", "1e-300", "1e-1000"],
    "sensitivity (lattice)": ["1", "2", "3", "7"],
    "scale": ["1", "0.5", "2", "1/3", "1e-3", "1e3", "0.05", "100"],
    "bounds": [("0", "1"), ("0", "10"), ("-5", "5"), ("0", "1e6"), ("-1e-3", "1e-3"),
               ("0", "1e12"), ("0", "3")],
    "bounds (lattice)": [("0", "1"), ("0", "5"), ("-3", "3"), ("0", "1000"), ("0", "1e9"),
                         ("0", "1e12")],
    "epsilon": ["0", "0.1", "1", "0.99999999999999999", "10", "100", "1000", "1e-300",
                "1e-12", "1e400", "3/7"],
    "delta": ["1e-6", "1e-10", "0.5", "1e-30", "0", "0.999999", "3/10"],
    "dps": ["15", "30", "70", "200"],
}
SLOW_VALID = {
    "dps": ["500", "1000"],
    "epsilon": ["1e-400", "1e-12", "1000"],
    "delta": ["1e-300", "1e-320", "1e-1000"],
}
HOSTILE = {
    "--sensitivity": ["0", "-1", "nan", "inf", "x", "1e99999", "", " ", "1/0"],
    "--scale": ["0", "-2", "nan", "inf", "1/0", "1e-99999"],
    "--epsilon": ["-1", "nan", "x", "-1e-300", "inf"],
    "--delta": ["1", "-1e-6", "2", "nan", "1.0"],
    "--lower": ["nan", "inf", "x"],
    "--upper": ["nan", "-inf", "x"],
    "--dps": ["0", "1001", "-5", "x", "1e9"],
    "mechanism": ["nosuch", "laplace;rm", "truncated-nosuch", "-laplace", "clamped-"],
}
#: What the refusal of a hostile value must name.
NAMES = {
    "--sensitivity": "sensitivity",
    "--scale": "scale",
    "--epsilon": "epsilon",
    "--delta": "delta",
    "--lower": ("lower", "upper"),
    "--upper": ("upper", "lower"),
    "--dps": "dps",
    "mechanism": "mechanism",
}


class Case(VerbCase):
    """One generated command; ``hostile`` names the option given a hostile value."""

    VERB = "privacy"


def _draw(rng: random.Random, slow: bool, key: str) -> str:
    pool = VALID[key] + (SLOW_VALID.get(key, []) if slow else [])
    return rng.choice(pool)


def generate(seed: int, count: int, slow: bool) -> list[Case]:
    """``count`` cases from a fixed seed (module doc)."""
    rng = random.Random(seed)
    cases = []
    used: dict[str, int] = {}
    for i in range(count):
        family = rng.choice(["unbounded", "bounded", "bounded", "liu"])
        mech = rng.choice({"unbounded": UNBOUNDED, "bounded": BOUNDED, "liu": LIU}[family])
        lattice = mech.endswith("geometric")
        options: dict[str, str] = {}
        options["--sensitivity"] = _draw(rng, slow, "sensitivity (lattice)" if lattice
                                         else "sensitivity")
        if family != "unbounded":
            lo, hi = rng.choice(VALID["bounds (lattice)" if lattice else "bounds"])
            if not slow and (hi in ("1e12", "1e9", "1e6")):
                lo, hi = "0", "10"
            options["--lower"], options["--upper"] = lo, hi
        if family != "liu":
            query = rng.choice(["--epsilon", "--delta", "calibrate"] + (
                ["pure"] if family == "bounded" else []))
            if query == "calibrate" and not slow and mech.startswith("truncated"):
                query = "--epsilon"  # a truncated calibration takes up to minutes: slow suite
            if query == "calibrate":  # no --scale: the smallest scale for (ε, δ)
                options["--epsilon"] = rng.choice(["1", "0.5", "2", "3/7"])
                options["--delta"] = rng.choice(["1e-6", "1e-3", "0"] if "gaussian" not in mech
                                                else ["1e-6", "1e-3"])
            else:
                options["--scale"] = _draw(rng, slow, "scale")
            if query in ("--epsilon", "--delta"):
                options[query] = _draw(rng, slow, query.removeprefix("--"))
        else:
            options["--epsilon"] = _draw(rng, slow, "epsilon")
            if rng.random() < 0.5:
                options["--dps"] = _draw(rng, slow, "dps")
        if not slow:  # the fast suite keeps to moderate sizes
            if options.get("--sensitivity") in ("1e-1000", "1e-300"):
                options["--sensitivity"] = "1"
        hostile = None
        if i % (3 if slow else 2) == 1:  # the next hostile option in turn
            choices = [o for o in HOSTILE if o in options or o == "mechanism"]
            hostile = min(choices, key=lambda o: (used.get(o, 0), list(HOSTILE).index(o)))
            used[hostile] = used.get(hostile, 0) + 1
            if hostile == "mechanism":
                mech = rng.choice(HOSTILE["mechanism"])
            else:
                options[hostile] = rng.choice(HOSTILE[hostile])
        cases.append(Case(mech, tuple(options.items()), hostile))
    return cases


FAST = generate(40, 24, slow=False)
SLOW = generate(4040, 16, slow=True)


# ------------------------------------------------------------------- the safe-side checks


def _f(text: str) -> Fraction:
    return Fraction(text)


def _moderate(case: Case) -> bool:
    """Parameters for which the reference's quadrature or summation is cheap and sure."""
    try:
        sens = _f(case.value("--sensitivity") or "1")
        scale = _f(case.value("--scale") or "1")
        lo, hi = _f(case.value("--lower") or "0"), _f(case.value("--upper") or "0")
    except (ValueError, ZeroDivisionError):
        return False
    width = hi - lo
    return (Fraction(1, 100) <= sens <= 10 and Fraction(1, 10) <= scale <= 10
            and (case.mechanism in UNBOUNDED or 0 < width <= 100)
            and case.mechanism != "folded-laplace")


def _reference_delta(case: Case, eps: Fraction, s: Fraction, s2: Fraction) -> mpmath.mpf:
    sens, scale = _f(case.value("--sensitivity")), _f(case.value("--scale"))
    if case.mechanism in UNBOUNDED:
        return ref.unbounded_delta(case.mechanism, eps, sens, scale)
    lo, hi = _f(case.value("--lower")), _f(case.value("--upper"))
    return ref.hockey(case.mechanism, eps, s, s2, lo, hi, scale)


def check_answer(case: Case, data: dict) -> None:
    """No understated number: the printed δ(ε) is at least the reference's (at the reported
    pair), and the reference's δ at the printed ε(δ) is at most δ."""
    if case.mechanism in LIU:
        return
    if case.value("--scale") is None:  # a calibration: the printed scale must be safe
        if case.mechanism in ("laplace", "gaussian") and "calibrated scale" in data:
            sens, scale = _f(case.value("--sensitivity")), _f(data["calibrated scale"])
            eps, delta = _f(case.value("--epsilon")), _f(case.value("--delta") or "0")
            with mpmath.workdps(60):
                at = ref.unbounded_delta(case.mechanism, eps, sens, scale)
                assert at <= mpmath.mpf(delta.numerator) / delta.denominator * (
                    1 + mpmath.mpf(10) ** -20) + mpmath.mpf(10) ** -40, (
                    f"unsafe calibration: the reference's delta at scale {scale} is {at}")
        return
    if not _moderate(case):
        return
    pair = data.get("worst pair") or {}
    s, s2 = _f(pair.get("s", "0")), _f(pair.get("s'", case.value("--sensitivity")))
    with mpmath.workdps(60):
        slack = mpmath.mpf(10) ** -28  # the reference's absolute error (quadrature)
        if case.value("--epsilon") is not None and "delta" in data:
            eps = _f(case.value("--epsilon"))
            if eps > 50:  # the reference's cancellation: the extremes test covers these
                return
            truth = _reference_delta(case, eps, s, s2)
            printed = mpmath.mpf(_f(data["delta"]).numerator) / _f(data["delta"]).denominator
            assert printed >= truth * (1 - mpmath.mpf(10) ** -20) - slack, (
                f"understated delta: printed {data['delta']}, reference {truth}")
        elif case.value("--delta") is not None and "epsilon" in data:
            if data["epsilon"] in ("inf", "infinity") or _f(case.value("--delta")) < _f("1e-30"):
                return
            eps = _f(data["epsilon"])
            delta = _f(case.value("--delta"))
            at = _reference_delta(case, eps, s, s2)
            assert at <= mpmath.mpf(delta.numerator) / delta.denominator * (
                1 + mpmath.mpf(10) ** -20) + slack, (
                f"understated epsilon: printed {data['epsilon']}, the reference's delta there"
                f" is {at} > {delta}")


# -------------------------------------------------------------------------------- the tests


def _run(case: Case) -> None:
    limit = LIMIT_SECONDS
    if case.value("--scale") is None and case.mechanism not in LIU:
        limit = CALIBRATION_SECONDS
    result = run_cli(case.args, timeout=limit + REFUSE_SECONDS, memory_gib=MEMORY_GIB)
    assert_no_traceback(result)
    if case.hostile is not None:
        assert_refused(result, mentions=NAMES[case.hostile], within=REFUSE_SECONDS)
        return
    if result.code == 2:
        assert_refused(result)
        return
    assert result.code == 0, result.describe()
    assert result.seconds <= limit, result.describe()
    check_answer(case, json.loads(result.stdout))


@pytest.mark.parametrize("case", FAST, ids=str)
def test_privacy_hostile_fast(case: Case) -> None:
    _run(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=str)
def test_privacy_hostile_slow(case: Case) -> None:
    _run(case)


def test_the_generated_suite_covers_every_option() -> None:
    """At least 30 cases, every mechanism family and every hostile option, both suites."""
    cases = FAST + SLOW
    assert len(cases) >= 30
    assert {c.hostile for c in cases} >= set(HOSTILE)
    assert {c.mechanism for c in cases if c.hostile is None} & set(UNBOUNDED)
    assert {c.mechanism for c in cases if c.hostile is None} & set(BOUNDED)
    assert {c.mechanism for c in cases if c.hostile is None} & set(LIU)


def test_the_safe_side_check_catches_an_understated_delta() -> None:
    """Mutation: a printed δ one part in 1e6 below the truth fails check_answer."""
    case = Case("gaussian", (("--sensitivity", "1"), ("--scale", "1"), ("--epsilon", "1")),
                None)
    with mpmath.workdps(40):
        truth = ref.gaussian_delta(1, 1, 1)
    low = mpmath.nstr(truth * (1 - mpmath.mpf(10) ** -6), 20)
    with pytest.raises(AssertionError, match="understated delta"):
        check_answer(case, {"delta": low, "worst pair": {"s": "0", "s'": "1"}})
    check_answer(case, {"delta": mpmath.nstr(truth * (1 + mpmath.mpf(10) ** -12), 20),
                        "worst pair": {"s": "0", "s'": "1"}})
    case = Case("gaussian", (("--sensitivity", "1"), ("--scale", "1"), ("--delta", "1e-6")),
                None)
    with pytest.raises(AssertionError, match="understated epsilon"):
        check_answer(case, {"epsilon": "4.7", "worst pair": {"s": "0", "s'": "1"}})
