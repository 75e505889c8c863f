"""The mutation harness (dpcheck.claims.mutation): mutants, equivalence, swaps, kills.

The fast tests use a tiny fake document (one Equation, hand-made claims); the slow test
runs the harness on every document and asserts the kill rate.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest
import sympy as sp

from dpcheck.claims import checks as ck
from dpcheck.claims import mutation as M
from dpcheck.claims.model import Claim, Kind, Status, Verdict, step
from dpcheck.papers.equation import Equation
from dpcheck.papers.liu2019s_sensitivity import Printed
from dpcheck.symbolic import krand
from dpcheck.symbolic.symbols import c0, c1, lam, s

MU2 = s + lam / 2 * (sp.exp((c0 - s) / lam) - sp.exp((s - c1) / lam))


def fake(expr: sp.Expr, document: str = "liu2019") -> tuple[Equation, M.Transcription]:
    eq = Equation("fake eq", "test", "", expr)
    vocab = (c0, c1, s, lam)
    return eq, M.Transcription(document, "FAKE", eq.label, eq, "expr", eq.expr, vocab)


# --------------------------------------------------------------------------- generation
def test_every_kind_is_generated():
    _, t = fake(MU2)
    mutants = M.generate(t)
    kinds = {m.kind for m in mutants}
    assert kinds == set(M.KINDS)
    for m in mutants:
        assert m.value != MU2 or m.kind == "swap"  # a swap of a symmetric part may coincide
    sign = [m.value for m in mutants if m.kind == "sign"]
    assert s - lam / 2 * (sp.exp((c0 - s) / lam) - sp.exp((s - c1) / lam)) in sign
    constants = [m.value for m in mutants if m.kind == "constant"]
    assert s + lam / 3 * (sp.exp((c0 - s) / lam) - sp.exp((s - c1) / lam)) in constants  # 1/2->1/3
    swaps = [m.value for m in mutants if m.kind == "swap"]
    assert swaps == [MU2.xreplace({c0: c1, c1: c0})]


def test_exponent_and_symbol_mutants_are_one_place():
    _, t = fake(c0**2 + c0 * lam)
    values = {m.description: m.value for m in M.generate(t)}
    assert values["exponent 2 -> 3 in c_0**2"] == c0**3 + c0 * lam
    one_place = [v for d, v in values.items() if d.startswith("one c_0 ->")]
    assert c1**2 + c0 * lam in one_place or c0**2 + c1 * lam in one_place


def test_zz2016_pairs_are_swapped_when_both_occur():
    p, q, n, m = krand.p, krand.q, krand.n, krand.m
    _, t = fake(n * q + m * (p - q), "zz2016")
    swaps = {m_.description: m_.value for m_ in M.generate(t) if m_.kind == "swap"}
    assert swaps["p <-> q"] == n * p + m * (q - p)
    assert swaps["n <-> m"] == m * q + n * (p - q)


def test_bound_variables_are_not_replaced():
    i, n = sp.symbols("i n", integer=True, positive=True)
    x = sp.IndexedBase("x")
    _, t = fake(sp.Sum(x[i], (i, 1, n)) / n, "liu2019s")
    for m in M.generate(t):
        assert m.value.has(sp.Sum) and i not in m.value.free_symbols


def test_printed_functions_get_wrapped_mutants():
    p = Printed("test", "1/n", lambda n, g, e: Fraction(1, n))
    t = M.Transcription("liu2019s", "P", "test", p, "normalised", p.normalised)
    values = {m.description: m.value(4, None, None) for m in M.generate(t)}
    assert values["value negated"] == Fraction(-1, 4)
    assert values["n read as n+1"] == Fraction(1, 5)
    assert values["value times 3/2"] == Fraction(3, 8)


# --------------------------------------------------------------------------- equivalence
def test_equivalence_filter_drops_an_equivalent_rewrite():
    _, t = fake(MU2)
    rewritten = sp.expand(MU2)  # the same function, written differently
    same = M.Mutant(t, "sign", "expanded", rewritten)
    other = M.Mutant(t, "sign", "changed", MU2 + lam)
    assert M.equivalence(same) == "exact"
    assert M.equivalence(other) is None
    sel = M.select([same, other], limit=5)
    assert sel.chosen == [other]
    assert [m for m, _ in sel.equivalent] == [same]
    assert sel.generated == 2 and sel.examined == 2


def test_equivalence_of_tuples_is_elementwise():
    _, t = fake(sp.Tuple(0, MU2))
    assert M.equivalence(M.Mutant(t, "sign", "-0", sp.Tuple(-sp.Integer(0), MU2))) == "exact"
    assert M.equivalence(M.Mutant(t, "constant", "0 -> 1", sp.Tuple(1, MU2))) is None


def test_non_rational_equivalence_falls_back_to_simplify():
    x = sp.Symbol("x", positive=True)
    _, t = fake(sp.sqrt(x**2))
    assert M.equivalence(M.Mutant(t, "symbol", "abs", sp.Abs(x))) in ("exact", "simplify")


def test_selection_covers_each_kind_first():
    _, t = fake(MU2)
    sel = M.select(M.generate(t), limit=len(M.KINDS))
    assert {m.kind for m in sel.chosen} == set(M.KINDS)


# --------------------------------------------------------------------------- swaps
def test_swap_is_restored_even_when_the_check_raises():
    eq, _ = fake(MU2)
    with pytest.raises(RuntimeError), M.swapped(eq, "expr", sp.Integer(7)):
        assert eq.expr == 7
        raise RuntimeError("check failed")
    assert eq.expr == MU2


def test_a_crashing_check_is_killed_and_the_equation_restored():
    eq, t = fake(MU2)

    def check() -> Verdict:
        if eq.expr != MU2:
            raise ValueError("boom")
        return _proved("fine")

    ctx = _context(
        [Claim("fake.crash.one", "t", "t", check)], eq, t, [M.Mutant(t, "sign", "x", -MU2)]
    )
    res = M.run_mutant(0, ctx)
    assert res.outcome == "status"
    assert "proved -> inconclusive" in res.changes[0]
    assert eq.expr == MU2


# --------------------------------------------------------------------------- kills
def _proved(finding: str) -> Verdict:
    return Verdict(
        Status.PROVED,
        "test",
        {"finding": finding},
        domain="all",
        basis=[step(Kind.SYMBOLIC, "test")],
    )


def _context(
    claims: list[Claim], eq: Equation, t: M.Transcription, mutants: list[M.Mutant]
) -> M.Context:
    usage = M.Usage({t.key: [c.id for c in claims]}, set(), [], {})
    ctx = M.Context(
        {c.id: c for c in claims}, usage, {}, {c.id: [t.text] for c in claims}, set(), mutants, 0
    )
    ctx.baseline = M.run_claims_for(None, [c.id for c in claims], ctx)
    return ctx


def test_a_checking_claim_kills_and_an_echoing_claim_lets_survive():
    eq, t = fake(MU2)

    def checking() -> Verdict:
        return ck.identity(eq.expr, MU2)  # proved unless the transcription changes

    def echoing() -> Verdict:
        v = _proved("echo")
        v.evidence["printed"] = str(eq.expr)  # text echo: not an outcome
        v.evidence["value at 1"] = float(eq.expr.subs({s: 1, c0: 0, c1: 2, lam: 1}))
        return v

    mutant = [M.Mutant(t, "constant", "1/2 -> 1/3", MU2.subs(sp.Rational(1, 2), sp.Rational(1, 3)))]
    killed = M.run_mutant(0, _context([Claim("fake.a.check", "", "", checking)], eq, t, mutant))
    assert killed.outcome == "status" and killed.killed
    survived = M.run_mutant(0, _context([Claim("fake.a.echo", "", "", echoing)], eq, t, mutant))
    assert survived.outcome == "survived" and not survived.killed
    assert eq.expr == MU2


def test_an_already_refuted_claim_is_killed_by_its_outcomes():
    eq, t = fake(MU2)

    def refuted_with_detail() -> Verdict:
        v = ck.identity(eq.expr, MU2 + lam)  # refuted, baseline and mutant alike
        v.evidence["agrees at s = c0"] = bool(sp.simplify((eq.expr - MU2).subs(s, c0)) == 0)
        return v

    claims = [Claim("fake.b.refuted", "", "", refuted_with_detail)]
    flipped = M.Mutant(t, "sign", "s flipped", MU2 - 2 * s)  # no longer right at s = c0
    res = M.run_mutant(0, _context(claims, eq, t, [flipped]))
    assert res.outcome == "outcome"
    assert "agrees at s = c0: True -> False" in res.changes[0]


def test_unread_transcriptions_are_unreached_survivors():
    eq, t = fake(MU2)
    ctx = _context([], eq, t, [M.Mutant(t, "sign", "x", -MU2)])
    res = M.run_mutant(0, ctx)
    assert res.outcome == "unreached" and "no claim reads it" in res.reason


# --------------------------------------------------------------------------- signatures
def test_outcome_signature_keeps_outcomes_and_drops_echoes():
    ev = {
        "finding": "wrong: something",
        "printed": "s + lambda",
        "value": 0.25,
        "lines": [{"line": "l1", "status": "holds as printed"}, {"holds": False}],
        "first_broken_line": "l2",
        "outcomes": {"equal": 3, "loose": 1},
        "note": "undecided (no meaning)",
        "key with s + lambda in it": True,
    }
    sig = dict(M.outcome_signature(ev, masks=["s + lambda"]))
    assert sig == {
        "lines/0/status": "holds as printed",
        "lines/1/holds": False,
        "first_broken_line": "l2",
        "outcomes/equal": 3,
        "outcomes/loose": 1,
        "note": "undecided",
        "key with <expr> in it": True,
    }


# --------------------------------------------------------------------------- usage map
def test_usage_is_recorded_per_claim_and_caches_that_read_are_found():
    eq, t = fake(MU2)
    other, t2 = fake(c0 + c1)
    t2.key = "OTHER"

    @functools.cache
    def cached() -> sp.Expr:
        return eq.expr  # a cache over a transcription: must be cleared between mutants

    import sys
    import types

    module = types.ModuleType("dpcheck_fake_cache_module")
    module.cached = cached  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        claims = [
            Claim("fake.c.one", "", "", lambda: ck.identity(cached(), MU2)),
            Claim("fake.c.two", "", "", lambda: ck.identity(other.expr, c1 + c0)),
            Claim("fake.c.none", "", "", lambda: _proved("reads nothing")),
        ]
        got, usage = M.record_usage(lambda: claims, [t, t2])
    finally:
        del sys.modules[module.__name__]
    assert [c.id for c in got] == [c.id for c in claims]
    assert usage.readers == {"FAKE": ["fake.c.one"], "OTHER": ["fake.c.two"]}
    assert cached in usage.caches
    assert type(eq) is Equation and type(other) is Equation  # classes restored
    assert usage.verdicts["fake.c.one"].status is Status.PROVED


# --------------------------------------------------------------------------- the documents
@pytest.mark.slow
def test_kill_rate_of_every_document():
    """liu2019, liu2019s and zz2016: at least 95 % of the non-equivalent mutants are killed
    (3 mutants per transcription here; bench/mutation_kill_rate.py runs 6)."""
    reports = M.run(["liu2019", "liu2019s", "zz2016"], per_transcription=3, jobs=2)
    assert [r.document for r in reports] == ["liu2019", "liu2019s", "zz2016"]
    for r in reports:
        survivors = [(s.key, s.description, s.reason) for s in r.survivors]
        assert r.kill_rate >= 0.95, (r.document, r.row(), survivors)
