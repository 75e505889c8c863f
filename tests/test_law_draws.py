"""The float64 draws are the law objects' own (issue 35, dpcheck.laws.draws): a bounding
is a transformation (clamp works for any law with noise draws), a law without the draw a
bounding needs is refused in one line, a transformed law does not inherit its base's
draws, and the scalar sampler of a law object uses the law's exact draws."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.laws import draws, registry
from dpcheck.laws.float64 import sampler
from dpcheck.laws.noise import NoiseLaw, Param, z
from dpcheck.laws.transforms import truncate_noise
from dpcheck.sampling import mechanisms
from dpcheck.testing import assert_sampler_law

SHIPPED = {"laplace": "lam", "gaussian": "sigma", "discrete-laplace": "scale"}


class _NormalNoise(NoiseLaw):
    """A law that gives only its noise draws (N(0, θ²)); every bounding but clamp is
    its own to give."""

    @staticmethod
    def _noise_draws(gen, k, theta):  # type: ignore[no-untyped-def]
        return gen.standard_normal(k) * theta


def _normal_noise() -> _NormalNoise:
    w = Param("w", "positive")
    return _NormalNoise("only noise", sp.exp(-(z**2) / (2 * w.symbol**2)), "real", (w,), "w")


def test_the_clamp_is_the_same_transformation_of_any_law_with_noise_draws():
    law = _normal_noise()
    s = np.array([0.0, 0.5, 1.0])
    y = draws.block(law, "clamped")(np.random.default_rng(3), 3, s, 0.0, 1.0, 2.0)
    expected = np.clip(s + np.random.default_rng(3).standard_normal(3) * 2.0, 0.0, 1.0)
    assert np.array_equal(y, expected)
    plain = draws.block(law, "none")(np.random.default_rng(3), 3, s, None, None, 2.0)
    assert np.array_equal(plain, s + np.random.default_rng(3).standard_normal(3) * 2.0)


@pytest.mark.parametrize("bounding", ["truncated", "folded"])
def test_a_bounding_the_law_cannot_draw_is_refused_in_one_line(bounding):
    with pytest.raises(InputError, match=f"only noise has no vectorised float64 sampler of the"
                                         f" {bounding} only noise") as info:
        draws.block(_normal_noise(), bounding)
    assert "\n" not in str(info.value)
    for name in ("discrete-gaussian", "staircase"):
        with pytest.raises(InputError, match="no vectorised float64 sampler of the noise"):
            draws.block(registry.get(name), "clamped")
    with pytest.raises(InputError, match="bounding 'reflected'"):
        draws.block(registry.get("laplace"), "reflected")


def test_a_transformed_law_does_not_inherit_its_bases_draws():
    """truncate_noise(laplace) is a new law (|Z| <= r): it must not reuse the Laplace's
    exact draws, which are unbounded, and goes the generic way (polynomial inversion)."""
    law = truncate_noise(registry.get("laplace"))
    assert not hasattr(law, "_noise_draws")
    x = sampler(law, {"lam": F(1), "radius": F(1, 2)})(np.random.default_rng(11), 100_000)
    assert np.all(np.abs(x) <= 0.5)
    with pytest.raises(InputError, match="no vectorised float64 sampler"):
        draws.block(law, "clamped")


@pytest.mark.parametrize("name", list(SHIPPED))
def test_the_scalar_sampler_of_a_shipped_law_is_its_own_exact_draw(name):
    """float64.sampler(law) gives exactly the law's _noise_draws at its draw parameter (the
    same code as the named mechanisms' samplers), and the draws pass the exact law's test
    (false alarm <= 1e-6).  The named sampler draws in blocks of 65 536, so the streams
    agree draw for draw within one block."""
    law = registry.get(name)
    draw = sampler(law, {SHIPPED[name]: F(3, 2)})
    unbounded = "geometric" if name == "discrete-laplace" else name
    block = mechanisms.sample(unbounded, 20261129, 60_000, s=0.0, **{SHIPPED[name]: 1.5})
    assert np.array_equal(draw(np.random.default_rng(20261129), 60_000), block)
    x = draw(np.random.default_rng(20261129), 400_000)
    assert_sampler_law(x, law, **{SHIPPED[name]: 1.5})


@pytest.mark.parametrize("name", list(SHIPPED))
def test_a_wrong_draw_parameter_is_noticed(name, monkeypatch):
    """Mutation: the draw parameter of a 3% wider scale (λ, σ; a 3% smaller rate) fails the
    exact law's test at 400 000 draws."""
    law = registry.get(name)
    right = law._draw_theta
    factor = 0.97 if name == "discrete-laplace" else 1.03
    monkeypatch.setattr(law, "_draw_theta", lambda values: right(values) * factor)
    x = sampler(law, {SHIPPED[name]: F(3, 2)})(np.random.default_rng(20261129), 400_000)
    with pytest.raises(AssertionError, match="do not follow its exact law"):
        assert_sampler_law(x, law, **{SHIPPED[name]: 1.5})


# ------------------------------------------------ bounded laws at scalar parameters

#: DKW with Massart's constant at false alarm 1e-6: sup_y |F_n(y) - F(y)| beyond this
#: has probability <= 1e-6 under the law
def _dkw(n: int, alpha: float = 1e-6) -> float:
    return float(np.sqrt(np.log(2 / alpha) / (2 * n)))


def _user_laplace() -> NoiseLaw:
    """The Laplace from its density in LaTeX: no draws of its own, so the generic route."""
    return registry.law(r"\frac{1}{2b} e^{-|z|/b}", "real", ["b>0"], name="my laplace")


def _user_discrete_laplace() -> NoiseLaw:
    return registry.law(r"e^{-|z|/b}", "integers", ["b>0"], name="my discrete laplace")


BOUNDED_CASES = [
    # (law, values, bounding, s, c0, c1): generic routes first, then the laws' own
    (_user_laplace, {"b": F(1)}, "truncated", F(1), F(0), F(4)),
    (_user_laplace, {"b": F(3)}, "clamped", F(1), F(0), F(4)),
    (_user_laplace, {"b": F(2)}, "folded", F(1, 2), F(0), F(3)),
    (_user_discrete_laplace, {"b": F(2)}, "truncated", F(1), F(0), F(5)),
    (lambda: registry.get("discrete-gaussian"), {"sigma": F(2)}, "truncated", F(0), F(-1), F(6)),
    (lambda: registry.get("discrete-gaussian"), {"sigma": F(3)}, "clamped", F(4), F(0), F(4)),
    (lambda: registry.get("gaussian"), {"sigma": F(1)}, "folded", F(1), F(0), F(4)),
    (lambda: registry.get("laplace"), {"lam": F(1)}, "truncated", F(1), F(0), F(4)),
]


def _bounded_cdf_gap(make, values, bounding, s, c0, c1, n: int = 200_000, seed: int = 5):
    """max over a grid of outputs of |F_n(y) - F(y)|, F the certified CDF of the bounded
    law (dpcheck.laws.bounded), F_n that of the generic or own sampler's draws."""
    from dpcheck.laws.bounded import Bounded
    from dpcheck.laws.float64 import bounded_sampler

    law = make()
    draw = bounded_sampler(law, values, bounding, float(s), float(c0), float(c1))
    x = draw(np.random.default_rng(seed), n)
    assert np.all((x >= float(c0)) & (x <= float(c1)))
    exact = Bounded(law, values, bounding, s, c0, c1)
    width = c1 - c0
    ys = [c0 + width * F(j, 16) for j in range(16)]  # every atom on these lattices too
    if law.is_lattice:
        ys = sorted({F(int(y)) for y in ys} | {c0, c1 - 1})
    gaps = [abs(float(np.mean(x <= float(y))) - float(exact.output_cdf(y).mid())) for y in ys]
    return max(gaps), n


@pytest.mark.parametrize("case", BOUNDED_CASES, ids=lambda c: f"{c[2]}-{c[1]}")
def test_the_bounded_sampler_follows_the_bounded_law(case):
    """Generic draws (truncated: the law conditioned to [c0 - s, c1 - s], by polynomial
    inversion or the restricted pmf table; clamped: clipped; folded: reflected) and the
    laws' own draws, against the certified CDF of the bounded law: within DKW's band at
    false alarm 1e-6."""
    gap, n = _bounded_cdf_gap(*case)
    assert gap <= _dkw(n), (gap, _dkw(n))


def test_a_truncation_that_forgets_its_domain_is_noticed(monkeypatch):
    """Mutation: the generic truncated route drawing the whole law and clipping it (a clamp
    in disguise) is far outside the band."""
    from dpcheck.laws import float64

    right = float64._polynomial_inversion
    monkeypatch.setattr(float64, "_polynomial_inversion",
                        lambda law, values, domain=None: right(law, values))
    gap, n = _bounded_cdf_gap(*BOUNDED_CASES[0])
    assert gap > 10 * _dkw(n)


def test_the_bounded_sampler_refuses_what_is_not_a_bounded_law():
    from dpcheck.laws.float64 import bounded_sampler

    dg = registry.get("discrete-gaussian")
    cases = [
        ((dg, {"sigma": F(1)}, "folded", 0.0, 0.0, 3.0), "folding is defined for laws on the real"),
        ((dg, {"sigma": F(1)}, "reflected", 0.0, 0.0, 3.0), "bounding 'reflected'"),
        ((dg, {"sigma": F(1)}, "clamped", 4.0, 0.0, 3.0), "expected c0 <= s <= c1"),
        ((dg, {"sigma": F(1)}, "clamped", 1.0, 3.0, 3.0), "expected c0 <= s <= c1, c0 < c1"),
        ((registry.get("gaussian"), {"sigma": F(10**7)}, "folded", 0.0, 0.0, 3.0),
         "expected a scale at most 10\\^6 times"),
    ]
    for args, message in cases:
        with pytest.raises(InputError, match=message) as info:
            bounded_sampler(*args)
        assert "\n" not in str(info.value)


def test_the_truncated_lattice_cdf_holds_the_atom_at_the_lower_bound():
    """Found by the sampler test above: P(Y <= c0) of a truncated lattice law is the atom
    at c0 (it was 0: the sum over a <= z <= b skipped a = b).  Against the plain sum."""
    import math

    from dpcheck.laws.bounded import Bounded

    law = registry.get("discrete-gaussian")
    exact = Bounded(law, {"sigma": F(2)}, "truncated", F(0), F(-1), F(6))
    weights = [math.exp(-k * k / 8) for k in range(-1, 7)]
    for y in range(-1, 7):
        direct = sum(weights[: y + 2]) / sum(weights)
        assert abs(float(exact.output_cdf(F(y)).mid()) - direct) < 1e-14, y


# ------------------------------------------------------------ audit of a bounded law


def _audit(*args: str):
    from cli_subprocess import run_cli

    return run_cli(["audit", *args], timeout=240)


def test_audit_of_a_bounded_law_passes_the_truth_and_catches_a_false_claim():
    """truncated-discrete-gaussian on [0, 4] at σ = 2, Δ = 1: the certified δ(1) of
    `dpcheck privacy` (upper bound) passes at confidence 1 - 1e-6; pure ε = 0.5 is refuted
    (its certified pure ε is larger)."""
    import json

    from dpcheck.laws.bounded_privacy import BoundedMechanism

    law = registry.get("discrete-gaussian")
    mech = BoundedMechanism(law, {"sigma": F(2)}, "truncated", F(0), F(4), F(1))
    delta = mech.delta(F(1)).upper
    common = ["truncated-discrete-gaussian", "--scale", "2", "--sensitivity", "1",
              "--lower", "0", "--upper", "4", "--samples", "200000"]
    ok = _audit(*common, "--epsilon", "1", "--delta", str(float(delta) * 1.000001),
                "--confidence", "0.999999", "--json")
    assert ok.code == 0, ok.describe()
    data = json.loads(ok.stdout)
    assert data["neighbours"] == [[0, 1], [3, 4], [1, 2]]
    assert data["mechanism"] == "truncated discrete-gaussian on [0, 4]"
    assert mech.pure_epsilon().lower > 0.5
    bad = _audit(*common, "--epsilon", "0.5")
    assert bad.code == 1 and "VIOLATION" in bad.stdout, bad.describe()


@pytest.mark.parametrize("args, mentions", [
    (["folded-discrete-gaussian", "--lower", "0", "--upper", "4"], "real line"),
    (["clamped-discrete-gaussian", "--lower", "0"], "needs --upper"),
    (["clamped-discrete-gaussian", "--lower", "0", "--upper", "4.5"], "integer bounds"),
    (["clamped-discrete-gaussian", "--lower", "4", "--upper", "0"], "c0 < c1"),
    (["truncated-gaussian-x", "--lower", "0", "--upper", "4"], "truncated-gaussian-x"),
])
def test_audit_of_a_bounded_law_refuses_bad_input_in_one_line(args, mentions):
    from cli_subprocess import assert_refused, run_cli

    full = ["audit", *args, "--scale", "2", "--sensitivity", "1", "--epsilon", "1"]
    assert_refused(run_cli(full, timeout=60), mentions=mentions, within=60)


# ------------------------------------------------- dpcheck.testing on a bounded law


OLD_NAMES = [("laplace", "lam", "laplace"), ("gaussian", "sigma", "gaussian"),
             ("geometric", "scale", "discrete-laplace")]


@pytest.mark.parametrize("bounding", ["truncated", "clamped"])
@pytest.mark.parametrize("base, key, name", OLD_NAMES)
@pytest.mark.parametrize("s, c0, c1, scale", [(1, 0, 4, 1.0), (3, -2, 7, 0.5), (0, 0, 2, 30.0)])
def test_the_bounded_view_of_a_law_object_equals_the_closed_forms(bounding, base, key, name,
                                                                  s, c0, c1, scale):
    """BoundedAt (certified balls of laws.bounded, the law's float64 CDF) against the
    mechanism algebra's closed forms that dpcheck.testing reads for the named mechanisms
    (two independent routes): CDF, bias/var/mse and atoms."""
    from dpcheck.laws.float64 import BoundedAt
    from dpcheck.testing._law import law_view

    old = law_view(f"{bounding}-{base}", {"s": s, "c0": c0, "c1": c1, key: scale})
    law = registry.get(name)
    new = BoundedAt(law, law.parse({key: scale}), bounding, s, c0, c1)
    lattice = law.is_lattice
    ys = np.arange(c0 - 1, c1 + 2, dtype=float) if lattice else np.linspace(c0 - 0.5, c1 + 0.5, 41)
    # the truncated float64 CDF loses ~1e-16/normaliser (the class docstring)
    assert np.max(np.abs(old.cdf(ys) - new.cdf(ys))) <= 1e-14 / new.normaliser
    unit = 1.0 if lattice else min(scale, c1 - c0)
    for q in ("bias", "var", "mse"):
        a, b = old.standard_moment(q, unit), new.standard_moment(q, unit)
        assert abs(a - b) <= 1e-13 * abs(a) + 1e-300, q
    assert [a[:2] for a in old.atoms()] == [a[:2] for a in new.atoms()]
    assert all(abs(a[2] - b[2]) < 1e-13 for a, b in zip(old.atoms(), new.atoms(), strict=True))


@pytest.mark.parametrize("bounding", ["truncated", "clamped"])
def test_assert_sampler_law_on_a_bounded_law_object(bounding):
    """truncated-/clamped-discrete-gaussian by name in dpcheck.testing: the right sampler
    passes (false alarm <= 1e-6), a 3% wider one is caught at 10^6 draws, and a folded or
    incomplete request is refused in one line."""
    from dpcheck.laws.float64 import bounded_sampler

    law = registry.get("discrete-gaussian")
    name = f"{bounding}-discrete-gaussian"

    def draws(sigma):
        return bounded_sampler(law, {"sigma": sigma}, bounding, 1.0, 0.0, 4.0)(
            np.random.default_rng(20261129), 1_000_000)

    assert_sampler_law(draws(F(2)), name, sigma=2, s=1, c0=0, c1=4)
    with pytest.raises(AssertionError, match="do not follow its exact law"):
        assert_sampler_law(draws(F(206, 100)), name, sigma=2, s=1, c0=0, c1=4)
    with pytest.raises(InputError, match="needs c1"):
        assert_sampler_law(draws(F(2)), name, sigma=2, s=1, c0=0)
    with pytest.raises(InputError, match="expected integers"):
        assert_sampler_law(draws(F(2)), name, sigma=2, s=1, c0=0, c1=4.5)
    with pytest.raises(InputError, match="does not take a folded law yet"):
        assert_sampler_law(draws(F(2)), "folded-gaussian", sigma=2, s=1, c0=0, c1=4)
