"""Boundings as transformations of any law (dpcheck.laws.bounded, issue 35).

Two independent routes: the mechanism algebra's own closed forms
(dpcheck.numeric.mechanism_mp, derived by dpcheck.symbolic) for every combination both
engines have -- the before/after check of the migration -- and, for the folded Gaussian
that had no route before, mpmath quadrature of the folded density summed over images.
"""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest

from dpcheck.cli import main
from dpcheck.errors import InputError
from dpcheck.laws import registry
from dpcheck.laws.bounded import Bounded
from dpcheck.laws.numeric import precision, to_mpf
from dpcheck.numeric import mechanism_mp, mechanism_params

COMBINATIONS = [
    ("truncated", "laplace", "lam"),
    ("clamped", "laplace", "lam"),
    ("folded", "laplace", "lam"),
    ("truncated", "gaussian", "sigma"),
    ("clamped", "gaussian", "sigma"),
    ("truncated", "discrete-laplace", "scale"),
    ("clamped", "discrete-laplace", "scale"),
]
OLD_BASE = {"discrete-laplace": "geometric"}
POINTS = {
    False: [(F(3, 10), F(0), F(1), F(7, 10)), (F(1, 2), F(-1), F(2), F(1, 20)),
            (F(0), F(0), F(1, 4), F(5))],
    True: [(F(2), F(0), F(5), F(3, 2)), (F(0), F(0), F(3), F(1, 3)), (F(4), F(-2), F(9), F(7))],
}


@pytest.mark.parametrize(("bounding", "base", "scale"), COMBINATIONS)
@pytest.mark.parametrize("point", range(3))
def test_the_generic_bounding_reproduces_the_mechanism_algebra(bounding, base, scale, point):
    law = registry.get(base)
    s, c0, c1, v = POINTS[law.is_lattice][point]
    name = f"{bounding}-{OLD_BASE.get(base, base)}"
    with precision(30):
        b = Bounded(law, {scale: v}, bounding, s, c0, c1)
        for q in ("normaliser", "mean", "bias", "second_moment", "var", "mse"):
            got = b.quantity(q)
            params = mechanism_params.parse(
                name, {"s": str(s), "c0": str(c0), "c1": str(c1), scale: str(v)}, q
            )
            ref = mechanism_mp.evaluate(f"{name}.{q}", params, 40)
            with mpmath.workdps(40):
                assert abs(to_mpf(got.mid()) - ref) <= mpmath.mpf(10) ** -25 * max(1, abs(ref)), q
                assert got.rad() < 1e-25 * max(1, abs(float(ref))), q


def folded_gaussian_reference(s, c0, c1, sigma):
    """(mean, var, cdf at (c0 + c1)/2) of the folded Gaussian by quadrature of its density,
    the sum over images taken directly (mpmath, 40 digits)."""
    with mpmath.workdps(40):
        s, c0, c1, sigma = (mpmath.mpf(x.numerator) / x.denominator for x in (s, c0, c1, sigma))
        width = c1 - c0

        def g(y):
            return mpmath.fsum(
                mpmath.npdf(y + 2 * n * width, s, sigma)
                + mpmath.npdf(2 * c0 - y + 2 * n * width, s, sigma)
                for n in range(-60, 61)
            )

        mass = mpmath.quad(g, [c0, c1])
        mean = mpmath.quad(lambda y: y * g(y), [c0, c1])
        second = mpmath.quad(lambda y: y * y * g(y), [c0, c1])
        half = mpmath.quad(g, [c0, (c0 + c1) / 2])
        return mass, mean, second - mean**2, half


@pytest.mark.parametrize(
    "point", [(F(3, 10), F(0), F(1), F(7, 10)), (F(1, 2), F(-1), F(2), F(3)),
              (F(0), F(0), F(1, 4), F(1, 50))]
)
def test_the_folded_gaussian_against_quadrature_over_images(point):
    s, c0, c1, sigma = point
    mass, mean, var, half = folded_gaussian_reference(s, c0, c1, sigma)
    with precision(35):
        b = Bounded(registry.get("gaussian"), {"sigma": sigma}, "folded", s, c0, c1)
        got = {"mean": b.quantity("mean"), "var": b.quantity("var"),
               "cdf": b.output_cdf((c0 + c1) / 2)}
    with mpmath.workdps(40):
        assert abs(mass - 1) < mpmath.mpf(10) ** -30
        for key, ref in (("mean", mean), ("var", var), ("cdf", half)):
            assert abs(to_mpf(got[key].mid()) - ref) < mpmath.mpf(10) ** -28 * max(1, abs(ref))


def test_folding_a_wrong_law_is_noticed():
    """Mutation: the folded Laplace is not the folded Gaussian of the same scale."""
    s, c0, c1, v = F(3, 10), F(0), F(1), F(7, 10)
    _, mean, _, _ = folded_gaussian_reference(s, c0, c1, v)
    with precision(30):
        wrong = Bounded(registry.get("laplace"), {"lam": v}, "folded", s, c0, c1).quantity("mean")
    assert abs(to_mpf(wrong.mid()) - mean) > 1e-3


def test_eval_folded_gaussian_from_the_cli(capsys):
    assert main(["eval", "folded-gaussian.var", "s=0.3", "c0=0", "c1=1", "sigma=0.7",
                 "--dps", "35", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    _, _, var, _ = folded_gaussian_reference(F(3, 10), F(0), F(1), F(7, 10))
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(data["value"]) - var) < mpmath.mpf(10) ** -33


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("folded", "discrete-laplace", {"scale": F(1)}, F(0), F(0), F(3)), "real line"),
        (("truncated", "gaussian", {"sigma": F(1)}, F(2), F(0), F(1)), "c0 <= s <= c1"),
        (("clamped", "gaussian", {"sigma": F(1)}, F(0), F(1), F(0)), "c0 < c1"),
        (("rounded", "gaussian", {"sigma": F(1)}, F(0), F(0), F(1)), "bounding"),
    ],
)
def test_bad_boundings_are_one_line_errors(args, message):
    bounding, base, values, s, c0, c1 = args
    with pytest.raises(InputError, match=message) as err:
        Bounded(registry.get(base), values, bounding, s, c0, c1)
    assert "\n" not in str(err.value)
