"""The dpcheck pytest plugin (entry point ``pytest11``: loaded whenever dpcheck is installed).

Options (command line, or the ini file: ``[tool.pytest.ini_options]`` of
pyproject.toml, pytest.ini, setup.cfg's ``[tool:pytest]``):

* ``--dpcheck-false-alarm P`` / ini ``dpcheck_false_alarm`` (default 1e-6): the
  family-wise false-alarm probability of each
  :func:`dpcheck.testing.assert_sampler_law` call that does not pass
  ``false_alarm=`` itself (the plugin sets the default for the session and
  restores it afterwards), and the value of the fixture ``dpcheck_false_alarm``;
* ``--dpcheck-seed K`` / ini ``dpcheck_seed`` (default 0): mixed into every
  ``dpcheck_rng``, so that ``--dpcheck-seed 1``, ``2``, ... rerun the statistical
  tests with fresh draws.

Fixtures:

* ``dpcheck_rng``: a ``numpy.random.Generator`` seeded from the seed and the
  test's node id (``tests/test_x.py::test_y[param]``), so every test has its own
  reproducible stream, independent of test order, selection and xdist.  When
  the test fails, the report gets a "dpcheck" section naming the seed, e.g.
  ``numpy.random.default_rng(1234...)``, to rebuild the generator outside pytest;
* ``dpcheck_seed``: that seed (an int);
* ``dpcheck_false_alarm``: the option's value, to pass on explicitly
  (``assert_sampler_law(x, ..., false_alarm=dpcheck_false_alarm)``).

Disable the plugin with ``-p no:dpcheck``.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

_FALSE_ALARM = pytest.StashKey[float]()
_SEED = pytest.StashKey[int]()
_PUSHED = pytest.StashKey[bool]()
_RNG_NOTE = pytest.StashKey[str]()

_HELP_FALSE_ALARM = (
    "family-wise false-alarm probability of each dpcheck.testing.assert_sampler_law call"
    " (default 1e-6)"
)
_HELP_SEED = "integer mixed into the seed of every dpcheck_rng fixture (default 0)"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpcheck", "dpcheck.testing: statistical assertions")
    group.addoption(
        "--dpcheck-false-alarm",
        action="store",
        dest="dpcheck_false_alarm",
        default=None,
        metavar="P",
        help=_HELP_FALSE_ALARM,
    )
    group.addoption(
        "--dpcheck-seed",
        action="store",
        dest="dpcheck_seed",
        default=None,
        metavar="K",
        help=_HELP_SEED,
    )
    parser.addini("dpcheck_false_alarm", _HELP_FALSE_ALARM, default="1e-6")
    parser.addini("dpcheck_seed", _HELP_SEED, default="0")


def _setting(config: pytest.Config, name: str) -> tuple[str, object]:
    """(where it came from, the value): the command line wins over the ini file."""
    value = config.getoption(name)
    if value is not None:
        return "--" + name.replace("_", "-"), value
    return name + " (ini)", config.getini(name)


def pytest_configure(config: pytest.Config) -> None:
    from dpcheck.errors import InputError
    from dpcheck.inputs.numbers import parse_count, parse_number
    from dpcheck.testing import _defaults

    where, value = _setting(config, "dpcheck_false_alarm")
    try:
        level = _defaults.check_false_alarm(float(parse_number(where, str(value).strip())), where)
    except InputError as exc:
        raise pytest.UsageError(f"dpcheck: {exc}") from None
    where, value = _setting(config, "dpcheck_seed")
    try:
        seed = parse_count(where, str(value).strip(), minimum=0)
    except InputError as exc:
        raise pytest.UsageError(f"dpcheck: {exc}") from None
    config.stash[_FALSE_ALARM] = level
    config.stash[_SEED] = seed
    _defaults.push(level)
    config.stash[_PUSHED] = True


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(_PUSHED, False):
        from dpcheck.testing import _defaults

        _defaults.pop()
        config.stash[_PUSHED] = False


def pytest_report_header(config: pytest.Config) -> str:
    return (
        f"dpcheck: false alarm {config.stash[_FALSE_ALARM]:g} per assert_sampler_law,"
        f" seed {config.stash[_SEED]}"
    )


def seed_for(seed: int, nodeid: str) -> int:
    """The 128-bit seed of ``dpcheck_rng``: SHA-256 of '<seed>:<node id>', first 16 bytes."""
    digest = hashlib.sha256(f"{seed}:{nodeid}".encode()).digest()
    return int.from_bytes(digest[:16], "big")


@pytest.fixture
def dpcheck_false_alarm(request: pytest.FixtureRequest) -> float:
    """The family-wise false-alarm probability of --dpcheck-false-alarm (default 1e-6)."""
    return request.config.stash[_FALSE_ALARM]


@pytest.fixture
def dpcheck_seed(request: pytest.FixtureRequest) -> int:
    """This test's seed, from --dpcheck-seed and its node id (:func:`seed_for`)."""
    seed = seed_for(request.config.stash[_SEED], request.node.nodeid)
    request.node.stash[_RNG_NOTE] = (
        f"dpcheck_rng = numpy.random.default_rng({seed})"
        f"  # from --dpcheck-seed={request.config.stash[_SEED]} and node id"
        f" {request.node.nodeid!r}"
    )
    request.node.user_properties.append(("dpcheck_seed", seed))
    return seed


@pytest.fixture
def dpcheck_rng(dpcheck_seed: int) -> Any:
    """A numpy Generator seeded per test (:func:`dpcheck_seed`); printed when the test fails."""
    import numpy as np

    return np.random.default_rng(dpcheck_seed)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    report = outcome.get_result()
    note = item.stash.get(_RNG_NOTE, None)
    if note is not None and report.failed:
        report.sections.append(("dpcheck", note))
