"""Generated hostile inputs for ``dpcheck krand profile`` (issue 40).

Every case runs ``dpcheck krand profile ...`` in a child process under a time limit and
an address-space cap (:mod:`cli_subprocess`): none may end in a traceback, a signal, or
more time or memory than documented.  The cases are generated from a fixed seed: random
(L, n, eps0 or q, delta, budget) drawn from pools of valid values (the extremes of every
range, and the ceilings of :mod:`dpcheck.inputs.limits`: n at and one above each L's
limit, the local epsilon's and eps0's limits, fractions, huge and tiny exponents) and of
hostile ones (0, negative, beyond a ceiling, non-numbers); a case with one hostile value
must be refused in one line naming that option, a case of valid values must be answered,
or refused in one line naming a ceiling or limit.  An answer is checked for sanity
(0 <= lower <= upper <= the local epsilon L ln(p/q)).

* fast (default): 16 cases on small n with budgets of 1 to 1.5 s, most refused;
* slow (CI's ``pytest -m slow``): 14 cases at and beyond the ceilings, with budgets of
  2 to 5 s, and the two commands of the issue (``--L 3 --n 20000 --budget 5`` at
  eps0 = 0.5, 1, 2 and q = 0.2, and ``--L 4 --n 5000 --budget 5``, now refused above the
  ceiling of 3000, with its ceiling answered).

The documented time of a certified-bounds run (L = 2..4 above the exhaustive range) is
the budget, plus the lower bound's share of it and the §3.1 epsilon's
(:func:`documented_seconds`), plus the fixed phases (the child's imports, the generic
shuffle bounds: at most about 8 s at n = 10^5) for which :data:`FIXED_SECONDS` allows a
loaded machine; other runs (L = 1, the exhaustive and family searches) stay under
:data:`OTHER_SECONDS`.  Memory: :data:`MEMORY_GIB` of address space per process (the
documented peak is about 2 GiB of resident memory per process).
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass

import pytest
from cli_subprocess import CEILING_WORDS, Result, assert_refused, run_cli

from dpcheck.enumeration import krand_bounds as kb
from dpcheck.enumeration import krand_profile_general as kg
from dpcheck.inputs.limits import ceiling

#: The fixed phases of a certified-bounds run beyond its budgets (imports, generic bounds,
#: the comparisons), with room for a loaded two-core machine.
FIXED_SECONDS = 40.0
#: L = 1 at n = 10^6, the exhaustive and the family searches (each under 25 s here).
OTHER_SECONDS = 75.0
#: A refusal comes before any work.
REFUSE_SECONDS = 20.0
#: Address space per process (RLIMIT_AS: larger than the resident peak, about 2 GiB).
MEMORY_GIB = 4.0

VALID = {
    "--L": ["1", "2", "3", "4", "5", "20", "2.0", "3/1", "1e0"],
    "--eps0": ["1", "0.5", "2", "3/7", "1e-15", "29.9", "30", "31", "699", "1e-9"],
    "--q": ["1/4", "0.018", "0.4999999", "1e-13", "1e-300", "0.2"],
    "--delta": ["1e-6", "1e-25", "0.5", "0.999999", "3/10", "1e-12"],
}
FAST_N = ["1", "2", "3", "7", "14", "15", "16", "40", "200"]
FAST_BUDGET = ["1", "1.5"]
SLOW_BUDGET = ["2", "3", "5"]
HOSTILE = {
    "--L": ["0", "-1", "21", "2.5", "1e999", "x"],
    "--n": ["0", "-5", "1000001", "1e999", "3/2", "1e-400", "nan"],
    "--eps0": ["0", "-1", "700", "1e999", "inf", "nan"],
    "--q": ["0", "0.5", "1/2", "0.7", "-0.1", "1e-400", "1e-301"],
    "--delta": ["0", "1", "1e-26", "-1e-6", "nan", "2"],
    "--budget": ["0", "0.5", "86401", "1e999", "-5", "inf"],
}
#: What the refusal of a hostile value must name.
NAMES = {
    "--L": "--L",
    "--n": "--n",
    "--eps0": "eps0",
    "--q": "q",
    "--delta": "delta",
    "--budget": "--budget",
}


def _slow_n() -> list[str]:
    """n at and just above every ceiling, and a few sizes between."""
    out = {"1000", "2000", "2001"}
    for L in (2, 3, 4):
        top = ceiling("krand profile", f"--n (L = {L})").maximum
        out |= {str(top), str(top + 1)}
    top = ceiling("krand profile", "--n").maximum
    return sorted(out | {str(top), str(top + 1)}, key=int)


@dataclass(frozen=True)
class Case:
    """One generated command; ``hostile`` names the option given a hostile value."""

    args: tuple[str, ...]
    hostile: str | None

    def value(self, option: str) -> str:
        return self.args[self.args.index(option) + 1]

    def __str__(self) -> str:  # the test id
        return " ".join(self.args)


def generate(seed: int, count: int, slow: bool) -> list[Case]:
    """``count`` cases from a fixed seed (module doc); one hostile value in about half the
    fast cases and a quarter of the slow ones, the other values valid."""
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        lie = rng.choice(["--eps0", "--q"])
        values = {
            "--L": rng.choice(VALID["--L"]),
            "--n": rng.choice(_slow_n() if slow else FAST_N),
            lie: rng.choice(VALID[lie]),
            "--delta": rng.choice(VALID["--delta"]),
            "--budget": rng.choice(SLOW_BUDGET if slow else FAST_BUDGET),
        }
        if slow and values["--L"] in ("5", "20"):
            values["--L"] = rng.choice(["1", "2", "3", "4"])  # the ceilings of n are per L
        if slow and i < 4:  # every L at its own ceiling of n, with moderate values
            L = i + 1
            option = "--n" if L == 1 else f"--n (L = {L})"
            values.update({"--L": str(L), "--n": str(ceiling("krand profile", option).maximum)})
            values.pop(lie)
            values[lie] = rng.choice(["1", "0.5", "2"] if lie == "--eps0" else ["1/4", "0.2"])
        hostile = None
        if i >= 4 and rng.random() < (0.25 if slow else 0.5):
            hostile = rng.choice([*values])
            values[hostile] = rng.choice(HOSTILE[hostile])
        args = ["krand", "profile", "--json"]
        for option, value in values.items():
            args.append(option)
            args.append(value)
        cases.append(Case(tuple(args), hostile))
    return cases


FAST = generate(40, 16, slow=False)
SLOW = generate(4040, 14, slow=True)


def documented_seconds(L: int, n: int, budget: float) -> float:
    """The documented time of a run (module doc; the ceilings of ``krand profile``)."""
    if L == 1 or L > kb.MAX_L or n <= kg.EXHAUSTIVE_N.get(L, 0):
        return OTHER_SECONDS
    lower = kb.lower_seconds(budget)
    prob = max(kb.LOWER_MIN_SECONDS, kb.PROBABILISTIC_SHARE * budget)
    return budget + lower + prob + FIXED_SECONDS


def _int(text: str) -> int | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if math.isfinite(value) and value == int(value) else None


def check_answer(case: Case, result: Result) -> None:
    """An answer's JSON: the L and n asked for, and 0 <= lower <= upper <= L ln(p/q)."""
    data = json.loads(result.stdout)
    L, n = data["L"], data["n"]
    assert (L, n) == (_int(case.value("--L")), _int(case.value("--n"))), result.describe()
    local = data["local RR epsilon"] * (1 + 1e-9)
    if "upper" in data:
        lo, up = data["lower"]["epsilon"], data["upper"]["epsilon"]
        assert 0 <= lo <= up <= local, (lo, up, local, result.describe())
        assert data["upper"]["kind"].startswith("upper bound")
        assert data["lower"]["kind"] == "lower bound"
    else:
        eps = data["approximate"]["epsilon"]
        assert 0 <= eps <= local, (eps, local, result.describe())


def run_case(case: Case) -> None:
    budget = float(case.value("--budget")) if case.hostile != "--budget" else 1.0
    L, n = _int(case.value("--L")) or 1, _int(case.value("--n")) or 1
    limit = REFUSE_SECONDS if case.hostile else documented_seconds(L, n, budget)
    result = run_cli(list(case.args), timeout=limit + 30, memory_gib=MEMORY_GIB)
    if case.hostile is not None:
        assert_refused(result, mentions=NAMES[case.hostile], within=REFUSE_SECONDS)
        return
    if result.code == 2:  # a valid value above a ceiling or a limit of the method
        assert_refused(result, mentions=(*CEILING_WORDS, "above", "rounds to"))
        return
    assert result.code == 0, result.describe()
    assert "Traceback" not in result.stderr, result.describe()
    assert result.seconds <= limit, f"{result.seconds:.1f} s > {limit:.0f} s\n{result.describe()}"
    check_answer(case, result)


def test_enough_cases_are_generated():
    """At least 30 generated cases, hostile and valid ones in both tiers."""
    assert len(FAST) + len(SLOW) >= 30
    for cases in (FAST, SLOW):
        assert any(c.hostile for c in cases) and any(c.hostile is None for c in cases)


@pytest.mark.parametrize("case", FAST, ids=str)
def test_generated_fast(case: Case) -> None:
    run_case(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=str)
def test_generated_at_the_ceilings(case: Case) -> None:
    run_case(case)


# --------------------------------------------------------------------------- issue 40
@pytest.mark.slow
@pytest.mark.parametrize(
    "lie", [("--eps0", "0.5"), ("--eps0", "1"), ("--eps0", "2"), ("--q", "0.2")]
)
def test_reported_l3_n20000_budget5_stays_in_its_limits(lie: tuple[str, str]) -> None:
    """The issue's first command went over 10 GB at 133 s (an FFT box of 10^9 cells in a
    cover's two-law tool, no deadline inside an evaluation, no limit on the lower bound):
    now about 10 s and 0.3 GB, a certified answer."""
    args = ["krand", "profile", "--L", "3", "--n", "20000", *lie, "--budget", "5", "--json"]
    result = run_cli(args, timeout=120, memory_gib=3)
    assert result.code == 0, result.describe()
    assert result.seconds <= documented_seconds(3, 20000, 5.0), result.describe()
    case = Case(tuple(args), None)
    check_answer(case, result)
    data = json.loads(result.stdout)
    assert data["upper"]["seconds"] <= 5 + 2  # the budget, and one step past it at most


@pytest.mark.slow
def test_reported_l4_n5000_is_refused_and_its_ceiling_answered() -> None:
    """The issue's second command ran past 600 s (the lower bound's single-law evaluation of
    the pure background: 3 * 10^7 configurations, 16 s and 2.7 GB each, no time limit):
    n = 5000 is now above the ceiling for L = 4 (the pure background's evaluation would
    exceed the memory limit), refused at once; the ceiling itself is answered in time."""
    top = ceiling("krand profile", "--n (L = 4)").maximum
    args = ["krand", "profile", "--L", "4", "--n", "5000", "--eps0", "1", "--budget", "5"]
    line = assert_refused(run_cli(args, timeout=60, memory_gib=3), within=REFUSE_SECONDS)
    assert f"n <= {top}" in line and "ceiling" in line
    args = ["krand", "profile", "--L", "4", "--n", str(top), "--eps0", "1", "--budget", "5"]
    result = run_cli([*args, "--json"], timeout=180, memory_gib=MEMORY_GIB)
    assert result.code == 0, result.describe()
    assert result.seconds <= documented_seconds(4, top, 5.0), result.describe()
    check_answer(Case((*args, "--json"), None), result)


# --------------------------------------------------------------------------- the limits keep
# the numbers: what issue 40 changed inside the evaluators computes what it computed before
def _positive_part_one_by_enumeration(law, M, g, margin):  # type: ignore[no-untyped-def]
    """positive_part_one as it was before the cached configurations: the enumeration of
    krand_single.enumerate_counts and the loop over the runs (the reference)."""
    import numpy as np

    from dpcheck.enumeration import krand_single as ks
    from dpcheck.enumeration.krand_tables import U, binom_table, gamma

    K, R0 = law.size, M + 1
    shift = R0 * margin
    gpos = max(0.0, float(np.max(g)))
    if K == 1:
        return ks.Bound(max(0.0, float(g[law.order[0]]) * R0), 4 * U, shift)
    atoms = ks.enumerate_counts(R0, law.order[: K - 2], law.sticks[: K - 2], g)
    ca, cb = law.order[K - 2], law.order[K - 1]
    t = law.sticks[K - 2]
    D = float(g[ca]) - float(g[cb])
    total = err_abs = 0.0
    tail_abs = atoms.excluded * (gpos * R0 + shift)
    eta_tab = 0.0
    n_terms = 0
    order, groups = ks._groups(atoms.rem)
    aw, aa = atoms.w[order], atoms.a[order]
    for R, sl in groups:
        w = aw[sl]
        A = aa[sl] + float(g[cb]) * R
        tab = binom_table(R, float(t))
        eta_tab = max(eta_tab, tab.eta)
        pos, err_w = ks.linear_positive_part(A, D, tab.lo, tab.f, R)
        total += float((w * pos).sum())
        err_abs += float((w * err_w).sum()) * gamma(len(tab.f) + 8)
        tail_abs += float((w * np.maximum(A + max(D, 0.0) * R, 0.0)).sum()) * tab.tail
        n_terms += len(w)
    rel = atoms.eta + eta_tab + gamma(n_terms + 2) + 4 * U
    return ks.Bound(total, rel, err_abs * (1 + 1e-6) + shift, tail_abs)


def _lie(eps0: str):  # type: ignore[no-untyped-def]
    from dpcheck.enumeration.krand_profile import lie_from

    return lie_from(None, eps0)


@pytest.mark.parametrize("L, h, M", [(2, 2, 999), (3, 2, 300), (3, 3, 60), (4, 4, 40), (2, 2, 0)])
def test_cached_single_law_evaluator_is_the_enumeration(L, h, M):
    """The configurations cached across eps (one_atoms) and the runs of one configuration
    summed at once (_one_per_run) give the very floats of the enumeration, for every
    class's law and for g of both signs and 0 (mutation: the stacked sums shifted by one
    entry differ)."""
    import numpy as np

    from dpcheck.enumeration import krand_single as ks
    from dpcheck.enumeration.krand_cells import nclone_system, orbit_system

    lie = _lie("1")
    cells = orbit_system(L, h, lie) if h == L else nclone_system(L, h, lie)
    for c in {(0, 0), (h, 0), (h // 2, 0)}:
        law = ks.CloneLaw.of(cells.clone_law(c))
        gs, _ = ks.coefficients(cells, law.arb(), 0.4)
        for g in [*gs, np.zeros(cells.size), np.abs(gs[0]), -np.abs(gs[0])]:
            new = ks.positive_part_one(law, M, g, 1e-12)
            old = _positive_part_one_by_enumeration(law, M, g, 1e-12)
            assert (new.value, new.rel, new.err, new.tail) == (
                old.value, old.rel, old.err, old.tail
            ), (c, g)


def test_a_cover_stops_at_its_deadline_inside_an_evaluation():
    """L = 3, n = 20000 (an evaluation of seconds): the cover says out_of_budget within
    about a second of its time, and names the box it was working on."""
    import time

    from dpcheck.enumeration.krand_cover import Cover

    start = time.perf_counter()
    res = Cover(3, 3, _lie("1"), 20000, 1e-6, 0.08).run(max_seconds=0.5)
    assert res.out_of_budget and not res.ok and res.failed is not None
    assert time.perf_counter() - start < 4


def test_a_lower_bound_out_of_time_falls_back_to_one_bit():
    """With no time for the candidates, the histogram of one bit still gives a certified,
    attained lower bound (below the full search's), and the skipped ones say why."""
    lie = _lie("1")
    quick = kb.lower_bound(3, 2000, lie, 1e-6, max_seconds=1e-3)
    assert quick.epsilon > 0 and "histogram of one bit" in quick.how
    assert "time budget (skipped)" in quick.candidates.values()
    full = kb.lower_bound(3, 2000, lie, 1e-6)
    assert quick.epsilon <= full.epsilon


def test_an_evaluation_above_the_memory_limit_is_refused_before_it_allocates(monkeypatch):
    """Configurations and FFT boxes are counted first: TooLarge, and a cover's tool that
    meets it gives the trivial bound (the box is then split or left unsettled)."""
    import tracemalloc

    from dpcheck.enumeration import krand_multi as km
    from dpcheck.enumeration import krand_single as ks
    from dpcheck.enumeration import krand_work as kw
    from dpcheck.enumeration.krand_cells import orbit_system
    from dpcheck.enumeration.krand_cover import Cover

    monkeypatch.setattr(kw, "EVAL_BYTES", 2**20)
    lie = _lie("1")
    cells = orbit_system(3, 3, lie)
    law = km.natural_law(cells.clone_law((1, 0)))
    tracemalloc.start()
    with pytest.raises(kw.TooLarge):
        km.pair_arrays(cells, ((900, law),))
    with pytest.raises(kw.TooLarge):
        ks.delta_single(orbit_system(4, 4, lie), ks.CloneLaw.of(cells.clone_law((0, 0))), 900, 1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2**24
    cover = Cover(3, 3, lie, 900, 1e-6, 0.5)

    def fails(exc: type[BaseException]):  # type: ignore[no-untyped-def]
        def tool() -> float:
            raise exc("too big")

        return tool

    tools = [("big", fails(kw.TooLarge)), ("memory", fails(MemoryError)), ("ok", lambda: 2e-7)]
    monkeypatch.setattr(cover, "_tools", lambda lo, hi: iter(tools))
    assert cover.box_bound((0,) * 4, (899,) * 4) == (2e-7, "ok")
    monkeypatch.setattr(cover, "_tools", lambda lo, hi: iter(tools[:2]))
    assert cover.box_bound((0,) * 4, (899,) * 4) == (1.0, "none")


def test_byte_cache_drops_the_least_recently_used():
    from dpcheck.enumeration.krand_work import byte_cache

    calls = []

    @byte_cache(lambda: 10, lambda v: 4)
    def f(x: int) -> int:
        calls.append(x)
        return x

    for x in (1, 2, 1, 3, 1, 2):  # 3 entries of 4 bytes exceed 10: the oldest goes
        f(x)
    assert calls == [1, 2, 3, 2] and f.cache_info() == (2, 8)
    f.cache_clear()
    assert f.cache_info() == (0, 0)


def test_wang_laws_by_blocks_are_the_whole_grid():
    """The Wang et al. laws built by blocks of rows, and delta from them, are the floats of
    the whole-grid formula (rows 2.5 blocks: the blocks' seams are inside)."""
    import numpy as np
    from scipy.special import gammaln

    from dpcheck.enumeration import shuffle_generic as sg

    for n, eps0 in ((400, 0.3), (60, 2.0), (3000, 1.0)):
        r = 1.0 / (math.exp(eps0) + 1)
        own = math.exp(eps0) / (math.exp(eps0) + 1)
        N = n - 1
        i = j = sg._binom_window(N, r)
        ii, jj = np.meshgrid(i, j, indexing="ij")
        rest = N - ii - jj
        ok = rest >= 0
        lp = gammaln(N + 1) - gammaln(ii + 1) - gammaln(jj + 1) - gammaln(np.maximum(rest, 0) + 1)
        lp = lp + (ii + jj) * math.log(r) + np.where(ok, rest, 0) * math.log1p(-2 * r)
        B = np.where(ok, np.exp(np.where(ok, lp, -np.inf)), 0.0)
        P = np.zeros((B.shape[0] + 1, B.shape[1] + 1))
        Q = np.zeros_like(P)
        P[1:, :-1] += own * B
        P[:-1, 1:] += (1 - own) * B
        Q[1:, :-1] += (1 - own) * B
        Q[:-1, 1:] += own * B
        P2, Q2 = sg.wang_laws(n, eps0)
        assert np.array_equal(P, P2) and np.array_equal(Q, Q2)
        for eps in (0.0, eps0 / 3):
            E = math.exp(eps)
            want = max(float(np.maximum(P - E * Q, 0).sum()), float(np.maximum(Q - E * P, 0).sum()))
            assert sg.wang_delta(n, eps0, eps) == want
    assert sg.generic_bounds(100, 1e-300, 1e-6)["Wang et al."] is None  # 2r = 1 in floats


def test_bernoulli_sums_on_the_windows_keep_the_rounding():
    """The clone count's pmf convolved on the tables' windows is the zero-padded one within
    a relative 1e-14 (the chain bound allows 1e-9), on the same support."""
    import numpy as np

    from dpcheck.enumeration import krand_cover as kc
    from dpcheck.enumeration.krand_tables import binom_table

    rng = random.Random(40)
    for _ in range(60):
        groups = [
            (rng.randrange(0, 400), rng.choice([rng.random(), 0.0, 1.0, 1e-12]))
            for _ in range(rng.randrange(1, 4))
        ]
        padded = np.ones(1)
        for m, t in groups:
            if m == 0:
                continue
            part = np.zeros(m + 1)
            if t >= 1.0:
                part[m] = 1.0
            elif t <= 0.0:
                part[0] = 1.0
            else:
                tab = binom_table(m, t)
                part[tab.lo : tab.hi + 1] = tab.f
            padded = np.convolve(padded, part)
        got = kc.bernoulli_sum_pmf(groups)
        assert len(got) == len(padded)
        np.testing.assert_allclose(got, padded, rtol=1e-14, atol=0)


def test_epsilon_zero_is_certified_from_both_sides(capsys):
    """delta(0) <= delta at every candidate (delta = 0.5, eps0 = 0.01): the lower bound is
    0 (it used to raise TooLarge, a traceback) and the cover certifies epsilon = 0."""
    from dpcheck.cli import main

    args = ["krand", "profile", "--L", "2", "--n", "100", "--eps0", "0.01", "--delta", "0.5"]
    assert main([*args, "--budget", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["lower"]["epsilon"] == 0 and data["upper"]["epsilon"] == 0
    assert data["upper"]["kind"] == "upper bound"
