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


@pytest.mark.parametrize("bounding, base, law, scale", [
    ("truncated", "laplace", "laplace", "lam"),
    ("clamped", "laplace", "laplace", "lam"),
    ("folded", "laplace", "laplace", "lam"),
    ("truncated", "gaussian", "gaussian", "sigma"),
    ("clamped", "gaussian", "gaussian", "sigma"),
    ("truncated", "geometric", "discrete-laplace", "scale"),
    ("clamped", "geometric", "discrete-laplace", "scale"),
])
@pytest.mark.parametrize("p", ["0.001", "0.3", "1/2", "0.97"])
def test_the_bounded_quantile_matches_the_mechanism_algebra(bounding, base, law, scale, p) -> None:
    """The law engine's quantile of a bounded law (bisection on the certified output CDF)
    against the algebra's (Newton's method on its derived CDF and density,
    :func:`dpcheck.numeric.mechanism_mp.quantile_at`): two routes that share no code."""
    from dpcheck.laws.quantities import evaluate_bounded

    where = {"s": "1", "c0": "-2", "c1": "4"}
    ball, _ = evaluate_bounded(bounding, registry.get(law), "quantile",
                               {**where, scale: "3/2", "p": p}, 30)
    old = mechanism_mp.evaluate(f"{bounding}-{base}.quantile",
                                {**where, scale: "3/2", "p": p}, dps=30)
    with precision(40):
        new = to_mpf(ball.ball.mid())
    assert abs(new - old) <= mpmath.mpf(10) ** -25 * max(1, abs(old)), (new, old)


def test_a_clamped_quantile_inside_the_atom_is_c0() -> None:
    from dpcheck.laws.quantities import evaluate_bounded

    ball, _ = evaluate_bounded("clamped", registry.get("gaussian"), "quantile",
                               {"s": "0", "c0": "-1/10", "c1": "3", "sigma": "1", "p": "0.4"}, 20)
    assert ball.how == "the atom at c0 holds p"
    with mpmath.workdps(60):
        assert abs(to_mpf(ball.ball.mid()) + mpmath.mpf(1) / 10) < mpmath.mpf(10) ** -40
    with pytest.raises(InputError, match="0 < p < 1"):
        evaluate_bounded("clamped", registry.get("gaussian"), "quantile",
                         {"s": "0", "c0": "-1", "c1": "3", "sigma": "1", "p": "1"}, 20)


def test_the_readme_quantile_of_a_truncated_discrete_gaussian(capsys) -> None:
    """The README's command, against direct enumeration of the truncated pmf."""
    assert main(["eval", "truncated-discrete-gaussian.quantile", "s=0", "c0=-3", "c1=5",
                 "sigma=2", "p=0.3"]) == 0
    printed = capsys.readouterr().out.strip()
    with mpmath.workdps(30):
        ks = range(-3, 6)
        w = [mpmath.exp(-mpmath.mpf(k) ** 2 / 8) for k in ks]
        total = sum(w)
        first = next(k for i, k in enumerate(ks) if sum(w[: i + 1]) / total >= mpmath.mpf(3) / 10)
    assert mpmath.mpf(printed) == first == -1
