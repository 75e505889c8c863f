"""``dpcheck sensitivity`` at its ceilings (issue 40).

``sensitivity proportions --n 60 --categories 10000`` took 558 s: the categorical
enumeration built K exact fractions for each of its O(n^2) configurations.  Categories
other than the changed record's hold the same shared records in both data sets and, in
every configuration the enumeration examines, all but one of them are empty, so the
sensitivity does not depend on K beyond distinguished + 1 categories
(:func:`dpcheck.enumeration.sensitivity.categories_enumerated`).  Tested here: the
reduced enumeration gives the very result of the enumeration over all K categories
(value, witness, configurations examined), the brute force over every data set agrees
at small n, and the reported commands finish in seconds in a child process.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction as F

import pytest
from cli_subprocess import run_cli

from dpcheck.enumeration import engine
from dpcheck.enumeration import sensitivity as sens
from dpcheck.enumeration.sensitivity import evaluate_statistic, exact_sensitivity
from dpcheck.inputs.limits import ceiling


def _full(stat: str, n: int, k: int, substitute: bool) -> engine.Extremes:
    """The enumeration over all K categories (what ``_categorical`` did before)."""
    return engine.categorical(stat, n, k, substitute)


@pytest.mark.parametrize("stat", ["histogram", "proportions"])
@pytest.mark.parametrize("neighbours", ["substitute", "remove"])
@pytest.mark.parametrize("n, k", [(2, 2), (2, 3), (3, 4), (5, 7), (9, 12), (12, 40)])
def test_reduced_categories_give_the_full_enumeration(stat, neighbours, n, k):
    """Value, witness and configurations examined equal those over all K categories."""
    substitute = neighbours == "substitute"
    full = _full(stat, n, k, substitute)
    r = exact_sensitivity(stat, neighbours, n, categories=k)
    a, b, counts = full.hi_at
    shared = tuple(c for c, h in enumerate(counts) for _ in range(h))
    assert r.value == full.hi
    assert r.cases == full.cases
    assert r.witness == ((a, *shared), (b, *shared) if b is not None else shared)


@pytest.mark.parametrize("stat", ["histogram", "proportions"])
def test_reduced_categories_agree_with_brute_force(stat):
    """Every data set over K = 4 categories at n <= 4, against the engine (mutation: the
    reduction to one category fewer, which drops the rest, must fail)."""
    for neighbours in ("substitute", "remove"):
        for n in (2, 3, 4):
            best = F(0)
            for x in itertools.product(range(4), repeat=n):
                for b in range(4) if neighbours == "substitute" else (None,):
                    y = (b, *x[1:]) if b is not None else x[1:]
                    fx, fy = evaluate_statistic(stat, x, 4), evaluate_statistic(stat, y, 4)
                    best = max(best, sum((abs(u - v) for u, v in zip(fx, fy, strict=True)), F(0)))
            assert exact_sensitivity(stat, neighbours, n, categories=4).value == best


def test_one_category_too_few_is_caught(monkeypatch):
    """A reduction to the distinguished categories alone loses the rest's total, and the
    full enumeration shows it (remove, proportions: 1/n - 1/n(n - 1) missing)."""
    monkeypatch.setattr(sens, "categories_enumerated", lambda k, substitute: 2 if substitute else 1)
    full = _full("proportions", 6, 5, False)
    assert exact_sensitivity("proportions", "remove", 6, categories=5).value != full.hi


@pytest.mark.parametrize("neighbours", ["substitute", "remove"])
@pytest.mark.parametrize("stat", ["proportions", "histogram"])
def test_reported_command_at_the_ceilings_is_fast(stat, neighbours):
    """The issue's command (558 s before) at n = 60, K = 10 000, in a child process."""
    n = ceiling("sensitivity", "--n").maximum
    k = ceiling("sensitivity", "--categories").maximum
    args = ["sensitivity", stat, "--neighbours", neighbours, "--n", n, "--categories", k]
    result = run_cli([*args, "--json"], timeout=60, memory_gib=2)
    assert result.code == 0, result.describe()
    data = json.loads(result.stdout)
    # supplement §1: 2 and 1 records moved (histogram), 2/n of proportion either way
    expected = {"histogram": {"substitute": "2", "remove": "1"}}.get(stat, {})
    assert data["value"] == expected.get(neighbours, str(F(2, n)))
    assert data["categories"] == k
    assert result.seconds < 30, result.describe()
