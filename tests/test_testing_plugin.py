"""The dpcheck pytest plugin (dpcheck.testing.plugin, entry point pytest11), run for real.

Each test writes a small test file into a temporary directory with pytest's
``pytester`` fixture and runs pytest on it in-process: the plugin is loaded
from the installed entry point, as in a user's project.
"""

from __future__ import annotations

import json
import math
import re
from importlib import metadata
from pathlib import Path

# imported here, before any in-process pytester run: pytester restores sys.modules after each
# run, so a module first imported inside a run is imported afresh by the next one -- numpy's
# and scipy's extension modules cannot be loaded twice, and hypothesis (imported by its pytest
# plugin) takes seconds
import hypothesis  # noqa: F401
import numpy as np
import pytest

import dpcheck.numeric.mechanism_mp  # noqa: F401
import dpcheck.sampling.blackbox  # noqa: F401
import dpcheck.testing._law  # noqa: F401
from dpcheck.testing import _defaults
from dpcheck.testing.plugin import seed_for

pytest_plugins = ["pytester"]

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "test_my_sampler.py"


def test_the_entry_point_is_registered() -> None:
    found = [ep for ep in metadata.entry_points(group="pytest11") if ep.name == "dpcheck"]
    assert [ep.value for ep in found] == ["dpcheck.testing.plugin"]


def test_loading_the_plugin_is_cheap() -> None:
    """pytest loads the plugin in every session of an environment with dpcheck installed: it
    must not import numpy, scipy, sympy or hypothesis (the public names load on first use)."""
    import subprocess
    import sys

    code = (
        "import sys, dpcheck.testing, dpcheck.testing.plugin\n"
        "heavy = [m for m in ('numpy', 'scipy', 'sympy', 'hypothesis') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "from dpcheck.testing import assert_sampler_law, Comparison\n"
        "import dpcheck.testing as t\n"
        "assert sorted(t.__all__) == ['Comparison', 'assert_matches_exact', 'assert_private',"
        " 'assert_sampler_law']\n"
        "assert t.strategies.__name__ == 'dpcheck.testing.strategies'\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_false_alarm_option_ini_and_default(pytester: pytest.Pytester) -> None:
    """The fixture and assert_sampler_law's default follow --dpcheck-false-alarm, then the ini
    option, then 1e-6; the outer session's default is restored after the inner run."""
    pytester.makepyfile(
        """
        import json, numpy as np
        from dpcheck.testing import assert_sampler_law

        def test_level(dpcheck_false_alarm, dpcheck_rng):
            checks = assert_sampler_law(
                dpcheck_rng.normal(0.0, 1.0, 1000), "gaussian", s=0.0, sigma=1.0
            )
            explicit = assert_sampler_law(
                dpcheck_rng.normal(0.0, 1.0, 1000), "gaussian", false_alarm=0.25, s=0, sigma=1
            )
            print("LEVELS", json.dumps([dpcheck_false_alarm, sum(c.alpha for c in checks),
                                        sum(c.alpha for c in explicit)]))
        """
    )
    outer = _defaults.false_alarm()

    def levels(*args: str) -> list[float]:
        result = pytester.runpytest("-s", *args)
        result.assert_outcomes(passed=1)
        # with -s the printed line follows pytest's progress output on the same line
        found = re.search(r"LEVELS (\[.*?\])", result.stdout.str())
        assert found, result.stdout.str()
        return json.loads(found.group(1))

    def close(got: list[float], want: list[float]) -> bool:
        return all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(got, want, strict=True))

    assert close(levels(), [1e-6, 1e-6, 0.25])
    assert close(levels("--dpcheck-false-alarm", "1e-3"), [1e-3, 1e-3, 0.25])
    assert _defaults.false_alarm() == outer
    pytester.makeini("[pytest]\ndpcheck_false_alarm = 2e-4\n")
    assert close(levels(), [2e-4, 2e-4, 0.25])
    assert close(levels("--dpcheck-false-alarm=0.01"), [0.01, 0.01, 0.25])  # command line wins
    assert _defaults.false_alarm() == outer


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--dpcheck-false-alarm", "0"], "--dpcheck-false-alarm=0.0 must lie strictly between"),
        (["--dpcheck-false-alarm", "abc"], "--dpcheck-false-alarm='abc' is not a number"),
        (["--dpcheck-false-alarm", "1.5"], "must lie strictly between 0 and 1"),
        (["--dpcheck-seed", "-1"], "--dpcheck-seed -1 must be an integer >= 0"),
        (["--dpcheck-seed", "0.5"], "is not an integer"),
    ],
)
def test_bad_options_are_usage_errors(pytester: pytest.Pytester, args, needle: str) -> None:
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert needle in result.stderr.str(), result.stderr.str()


RNG_TESTS = """
    import json, pytest

    @pytest.mark.parametrize("k", [1, 2])
    def test_draw(dpcheck_rng, dpcheck_seed, k, request):
        print("DRAW", json.dumps([request.node.nodeid, dpcheck_seed,
                                  dpcheck_rng.integers(0, 2**62, 4).tolist()]))

    def test_other(dpcheck_rng, dpcheck_seed, request):
        print("DRAW", json.dumps([request.node.nodeid, dpcheck_seed,
                                  dpcheck_rng.integers(0, 2**62, 4).tolist()]))
"""


def _draws(result: pytest.RunResult) -> dict[str, tuple[int, list[int]]]:
    out = {}
    for found in re.finditer(r"DRAW (\[.*?\]\])", result.stdout.str()):
        nodeid, seed, values = json.loads(found.group(1))
        out[nodeid] = (seed, values)
    return out


def test_dpcheck_rng_is_reproducible_per_test_and_seed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_rng=RNG_TESTS)
    first = _draws(pytester.runpytest("-s"))
    again = _draws(pytester.runpytest("-s", "-p", "no:randomly"))
    alone = _draws(pytester.runpytest("-s", "-k", "test_other"))
    reseeded = _draws(pytester.runpytest("-s", "--dpcheck-seed", "1"))
    assert len(first) == 3 and first == again
    assert alone == {k: v for k, v in first.items() if k.endswith("test_other")}
    # each test its own stream; the documented recipe rebuilds it outside pytest
    assert len({tuple(v[1]) for v in first.values()}) == 3
    for nodeid, (seed, values) in first.items():
        assert seed == seed_for(0, nodeid)
        assert np.random.default_rng(seed).integers(0, 2**62, 4).tolist() == values
        assert reseeded[nodeid][0] == seed_for(1, nodeid) != seed
        assert reseeded[nodeid][1] != values


def test_a_failing_test_reports_its_seed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_fail="""
        def test_fails(dpcheck_rng):
            assert dpcheck_rng.random() > 2

        def test_passes(dpcheck_rng):
            assert dpcheck_rng.random() < 2

        def test_fails_without_rng():
            assert False
        """
    )
    result = pytester.runpytest("--dpcheck-seed", "7")
    result.assert_outcomes(passed=1, failed=2)
    text = result.stdout.str()
    seed = seed_for(7, "test_fail.py::test_fails")
    expected = (
        f"dpcheck_rng = numpy.random.default_rng({seed})  # from --dpcheck-seed=7 and node id"
        " 'test_fail.py::test_fails'"
    )
    assert expected in text
    assert text.count("dpcheck_rng = numpy.random.default_rng(") == 1  # only the failing user
    assert "dpcheck: false alarm 1e-06 per assert_sampler_law, seed 7" in text  # the header


def test_the_seed_reaches_junit_xml(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x(dpcheck_rng):\n    pass\n")
    result = pytester.runpytest("--junitxml=out.xml")
    result.assert_outcomes(passed=1)
    xml = (pytester.path / "out.xml").read_text()
    seed = seed_for(0, "test_x.py::test_x")
    assert re.search(rf'<property name="dpcheck_seed" value="{seed}"\s*/>', xml), xml


def test_the_plugin_can_be_disabled(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x(dpcheck_rng):\n    pass\n")
    result = pytester.runpytest("-p", "no:dpcheck")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'dpcheck_rng' not found*"])


def test_a_pytest_file_using_only_dpcheck_testing_catches_wrong_samplers(
    pytester: pytest.Pytester,
) -> None:
    """Issue 20, "Done when": a truncated-Laplace sampler with a wrong normaliser and a Gaussian
    one with the wrong sigma fail; the correct ones pass (10^6 draws, false alarm 1e-6 each)."""
    pytester.makepyfile(
        test_user="""
        import math
        import numpy as np
        import pytest
        from dpcheck.testing import assert_sampler_law

        S, C0, C1, LAM, SIGMA = 0.3, 0.0, 1.0, 0.7, 0.7

        def truncated_laplace(rng, n, wrong_normaliser=False):
            # inversion of the Laplace CDF G between G(c0) and G(c1)
            def g(y):
                return 0.5 * math.exp((y - S) / LAM) if y < S else 1 - 0.5 * math.exp((S - y) / LAM)

            z = g(C1) - g(C0)
            if wrong_normaliser:
                z = 1 - math.exp(-(C1 - C0) / (2 * LAM))  # the mass about the midpoint
            p = g(C0) + z * rng.random(n)
            with np.errstate(all="ignore"):
                y = np.where(p < 0.5, S + LAM * np.log(2 * p), S - LAM * np.log(2 - 2 * p))
            return np.clip(y, C0, C1)

        @pytest.mark.parametrize("wrong", [False, True])
        def test_truncated_laplace(dpcheck_rng, wrong):
            draws = truncated_laplace(dpcheck_rng, 10**6, wrong_normaliser=wrong)
            assert_sampler_law(draws, "truncated-laplace", s=S, c0=C0, c1=C1, lam=LAM)

        @pytest.mark.parametrize("factor", [1.0, 1.03])
        def test_gaussian(dpcheck_rng, factor):
            draws = dpcheck_rng.normal(S, SIGMA * factor, 10**6)
            assert_sampler_law(draws, "gaussian", s=S, sigma=SIGMA)
        """
    )
    result = pytester.runpytest("-rf")
    result.assert_outcomes(passed=2, failed=2)
    text = result.stdout.str()
    assert "FAILED test_user.py::test_truncated_laplace[True] - AssertionError: draws of" in text
    assert "FAILED test_user.py::test_gaussian[1.03] - AssertionError: draws of gaussian" in text
    assert "- law (sup |F_n - F|): sup |F_n - F| =" in text
    assert "- second moment about s: observed" in text


#: one mutation per test of the example: each must make exactly that test fail
MUTATIONS = [
    (
        "draws = my_truncated_gaussian(dpcheck_rng, 10**6, **params)",
        "draws = my_truncated_gaussian(dpcheck_rng, 10**6, **dict(params, sigma=0.7 * 1.05))",
        "test_my_sampler_follows_the_exact_law",
    ),
    (
        "return sigma * (phi_a - phi_b) / (Phi_b - Phi_a)",
        "return sigma * (phi_b - phi_a) / (Phi_b - Phi_a)",
        "test_my_bias_formula_matches_the_exact_value",
    ),
    (
        "rng.laplace(0.0, sensitivity / epsilon, size)",
        "rng.laplace(0.0, sensitivity / (2 * epsilon), size)",
        "test_my_laplace_mechanism_is_private",
    ),
]


def test_mutated_copies_of_the_example_fail(pytester: pytest.Pytester) -> None:
    """docs/examples/test_my_sampler.py (run as is by tests/test_testing_api.py) with one
    mutation per test: each of its three tests must then fail."""
    source = EXAMPLE.read_text(encoding="utf-8")
    for old, _, _ in MUTATIONS:
        assert source.count(old) == 1, old
    mutated = source
    for old, new, _ in MUTATIONS:
        mutated = mutated.replace(old, new)
    pytester.makepyfile(test_my_sampler=mutated)
    result = pytester.runpytest("-rf")
    result.assert_outcomes(failed=3)
    out = result.stdout.str()
    for _, _, test in MUTATIONS:
        assert f"FAILED test_my_sampler.py::{test}" in out
    assert "do not follow its exact law" in out  # assert_sampler_law's message
    assert "does not match dpcheck's exact truncated-gaussian.bias at 12 of 12 points" in out
    assert "VIOLATION: exceeds epsilon = 1" in out  # the audit's report
    assert "dpcheck_rng = numpy.random.default_rng(" in out  # the seed, printed on failure
