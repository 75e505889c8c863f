"""The exact sensitivity engine (dpcheck.enumeration.sensitivity) against
hand values, an independent brute-force continuous optimiser over the full
(unreduced) coordinates, full naive vertex enumeration where that is the right
method, exact recomputation of every witness, and bad input."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest
import sympy

from dpcheck.cli import main
from dpcheck.enumeration import PRINTED, STATISTICS, exact_sensitivity
from dpcheck.enumeration.quadratic import Quad, box_candidates
from dpcheck.enumeration.sensitivity import describe, format_text, parse_bounds
from dpcheck.errors import InputError
from dpcheck.papers.liu2019s_sensitivity import compare

F = Fraction


# ------------------------------------------------------------------ independent statistics
def _mean(v):
    return sum(v, F(0)) / len(v)


def _var(v):
    m = _mean(v)
    return sum(((a - m) ** 2 for a in v), F(0)) / (len(v) - 1)


def _cov(recs):
    mx = _mean([r[0] for r in recs])
    my = _mean([r[1] for r in recs])
    return sum(((r[0] - mx) * (r[1] - my) for r in recs), F(0)) / (len(recs) - 1)


def _pooled(groups, cross):
    total = F(0)
    for g in groups:
        if cross:
            mx, my = _mean([r[0] for r in g]), _mean([r[1] for r in g])
            total += sum(((r[0] - mx) * (r[1] - my) for r in g), F(0))
        else:
            m = _mean(g)
            total += sum(((a - m) ** 2 for a in g), F(0))
    return total / (sum(len(g) for g in groups) - len(groups))


def _gap(stat, x, y, k=2):
    """|f(x) - f(x')| by two-pass formulas written independently of the engine."""
    if stat in ("mean", "proportion"):
        return abs(_mean(x) - _mean(y))
    if stat == "variance":
        return abs(_var(x) - _var(y))
    if stat == "sd":
        return sympy.Abs(
            sympy.sqrt(sympy.Rational(str(_var(x)))) - sympy.sqrt(sympy.Rational(str(_var(y))))
        )
    if stat == "covariance":
        return abs(_cov(x) - _cov(y))
    if stat in ("pooled_variance", "pooled_covariance"):
        cross = stat == "pooled_covariance"
        return abs(_pooled(x, cross) - _pooled(y, cross))
    hx = [sum(1 for v in x if v == c) for c in range(k)]
    hy = [sum(1 for v in y if v == c) for c in range(k)]
    if stat == "histogram":
        return F(sum(abs(a - b) for a, b in zip(hx, hy, strict=True)))
    return sum((abs(F(a, len(x)) - F(b, len(y))) for a, b in zip(hx, hy, strict=True)), F(0))


# ------------------------------------------------------------------ hand values
@pytest.mark.parametrize("n", [2, 3, 4, 7])
def test_mean_is_one_over_n(n):
    for nb in ("substitute", "remove"):
        assert exact_sensitivity("mean", nb, n).value == F(1, n)


def test_variance_by_hand():
    # n = 2: x = (1, 0) has s^2 = 1/2, x' = (0, 0) has 0; nothing larger in [0, 1]^2
    assert exact_sensitivity("variance", "substitute", 2).value == F(1, 2)
    # n = 3: D = ((x1 - m)^2 - (x1' - m)^2)/3 with m the mean of the other two; max 1/3
    assert exact_sensitivity("variance", "substitute", 3).value == F(1, 3)
    assert exact_sensitivity("variance", "remove", 3).value == F(1, 3)


def test_categorical_by_hand():
    for n in (2, 3, 6):
        assert exact_sensitivity("histogram", "substitute", n, categories=3).value == 2
        assert exact_sensitivity("histogram", "remove", n, categories=3).value == 1
        assert exact_sensitivity("proportions", "substitute", n, categories=3).value == F(2, n)
        # removing the only record of a category moves every proportion: 2/n, not 1/n
        assert exact_sensitivity("proportions", "remove", n, categories=3).value == F(2, n)
        assert exact_sensitivity("proportion", "remove", n).value == F(1, n)


def test_sd_is_sqrt_of_variance_sensitivity():
    for nb in ("substitute", "remove"):
        r = exact_sensitivity("sd", nb, 5)
        assert r.exact and sympy.simplify(r.value - sympy.sqrt(sympy.Rational(1, 5))) == 0
        assert sympy.simplify(r.scaled((0, 4)) - 4 / sympy.sqrt(5)) == 0


def test_sd_lower_bound_path_when_not_tight():
    from dpcheck.enumeration import sensitivity as sens

    spec = sens._validate("sd", "remove", 4, None, 2, False)
    r = sens._sd(spec, tight=False)
    assert not r.exact and "NOT exact" in r.method
    assert sympy.N(r.upper - r.value, 30) >= 0
    assert _gap("sd", *r.witness) == r.value


def test_pooled_values():
    r = exact_sensitivity("pooled_covariance", "remove", 5, (2, 3))
    assert r.value == F(11, 36)  # eq (5) at n1 = 3 is exact here
    r = exact_sensitivity("pooled_covariance", "remove", 6, (3, 3))
    assert r.value == F(2, 9)  # eq (5) gives 11/48
    assert exact_sensitivity("pooled_variance", "substitute", 12, (3, 4, 5)).value == F(4, 45)
    r = exact_sensitivity("pooled_variance", "remove", 4, (2, 2), allow_singleton=True)
    assert r.value == F(1, 4)  # the printed n = 2J value is 3/8


def test_scaling_and_witness_for_bounds():
    r = exact_sensitivity("covariance", "remove", 4)
    assert r.scaled((0, 2, -1, 2)) == F(1, 4) * 2 * 3
    x, y = r.scaled_witness("0,2,-1,2")
    assert abs(_cov(x) - _cov(y)) == r.scaled("0,2,-1,2")
    v = exact_sensitivity("variance", "substitute", 5)
    assert v.scaled(("-1", "1/2")) == F(1, 5) * F(9, 4)
    assert v.scaled() == v.value


# ------------------------------------------------------------------ witnesses, exactly
CASES = [
    (stat, nb, n, None)
    for stat in ("mean", "proportion", "variance", "sd", "covariance")
    for nb in ("substitute", "remove")
    for n in range(2, 9)
    if not (nb == "remove" and n < 3 and stat in ("variance", "sd", "covariance"))
] + [
    (stat, nb, sum(g), g)
    for stat in ("pooled_variance", "pooled_covariance")
    for nb in ("substitute", "remove")
    for g in ((2, 3), (3, 3), (3, 4, 5), (2, 2, 3), (4,))
]


@pytest.mark.parametrize(("stat", "nb", "n", "groups"), CASES)
def test_witness_attains_value_exactly(stat, nb, n, groups):
    r = exact_sensitivity(stat, nb, n, groups)
    x, y = r.witness
    assert _gap(stat, x, y) == r.value
    if nb == "remove":  # x' is x without its first record (of the changed group)
        if groups:
            assert sum(len(a) - len(b) for a, b in zip(x, y, strict=True)) == 1
        else:
            assert tuple(x[1:]) == tuple(y)
    if stat == "proportion":
        return
    lo_hi = (F(-3), F(2), F(1), F(5)) if stat.endswith("covariance") else (F(-3), F(2))
    xs, ys = r.scaled_witness(lo_hi)
    assert _gap(stat, xs, ys) == r.scaled(lo_hi)


@pytest.mark.parametrize("stat", ["histogram", "proportions"])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_categorical_witness_and_full_enumeration(stat, k):
    for nb in ("substitute", "remove"):
        for n in (2, 3, 4):
            r = exact_sensitivity(stat, nb, n, categories=k)
            assert _gap(stat, *r.witness, k=k) == r.value
            if k ** (n + 1) > 2000:
                continue
            best = F(0)
            for x in itertools.product(range(k), repeat=n):
                for b in range(k) if nb == "substitute" else (None,):
                    y = (b, *x[1:]) if b is not None else x[1:]
                    best = max(best, _gap(stat, x, y, k))
            assert best == r.value


# ------------------------------------------------------------------ naive vertex enumeration
def _vertex_max(stat, nb, n, groups=None):
    """max |D| over every vertex of all coordinates (right for multilinear D)."""
    width = 2 if stat.endswith("covariance") else 1
    corners = list(itertools.product((F(0), F(1)), repeat=width))
    pick = (lambda c: c) if width == 2 else (lambda c: c[0])
    best = F(0)
    positions = range(len(groups)) if groups else [None]
    for g in positions:
        if groups and nb == "remove" and groups[g] < 3:
            continue
        extra = 1 if nb == "substitute" else 0
        for combo in itertools.product(corners, repeat=n + extra):
            recs = [pick(c) for c in combo]
            x_flat, changed2 = recs[:n], (recs[n] if extra else None)
            if groups:
                xs, start = [], 0
                for size in groups:
                    xs.append(x_flat[start : start + size])
                    start += size
                ys = [list(grp) for grp in xs]
                if extra:
                    ys[g][0] = changed2
                else:
                    ys[g] = ys[g][1:]
                best = max(best, _gap(stat, xs, ys))
            else:
                y = [changed2, *x_flat[1:]] if extra else x_flat[1:]
                best = max(best, _gap(stat, x_flat, y))
    return best


@pytest.mark.parametrize(
    ("stat", "nb", "n", "groups"),
    [
        ("mean", "substitute", 4, None),
        ("mean", "remove", 5, None),
        ("proportion", "substitute", 4, None),
        ("covariance", "substitute", 3, None),
        ("covariance", "remove", 4, None),
        ("pooled_covariance", "substitute", 4, (2, 2)),
        ("pooled_covariance", "remove", 5, (2, 3)),
    ],
)
def test_multilinear_stats_match_naive_vertex_enumeration(stat, nb, n, groups):
    assert _vertex_max(stat, nb, n, groups) == exact_sensitivity(stat, nb, n, groups).value


# ------------------------------------------------------------------ brute-force optimiser
def _np_stat(stat, groups_arrays):
    """The statistic of data sets stacked along axis 0 (numpy, float64)."""
    if stat == "mean":
        return groups_arrays[0][..., 0].mean(axis=1)
    if stat in ("variance", "sd"):
        v = groups_arrays[0][..., 0].var(axis=1, ddof=1)
        return np.sqrt(np.maximum(v, 0)) if stat == "sd" else v
    total, df = 0.0, 0
    for a in groups_arrays:
        c = a - a.mean(axis=1, keepdims=True)
        total = total + (
            (c[..., 0] * c[..., 1]).sum(axis=1) if a.shape[2] == 2 else (c[..., 0] ** 2).sum(axis=1)
        )
        df += a.shape[1] - 1
    return total / df


def _brute_force(stat, nb, groups, bounds, rng, starts=160, iters=120):
    """Projected gradient ascent of |f(x) - f(x')| over the FULL coordinates, many starts."""
    width = 2 if stat.endswith("covariance") else 1
    lo = np.array(bounds[0::2], dtype=float)
    hi = np.array(bounds[1::2], dtype=float)
    sub = nb == "substitute"
    best = 0.0
    eligible = [g for g, s in enumerate(groups) if sub or s >= 3 or len(groups) == 1]
    for g in eligible:
        d = (sum(groups) + sub) * width

        def objective(z, g=g):
            pts = lo + (hi - lo) * z.reshape(z.shape[0], -1, width)
            xs, ys, start = [], [], 0
            for j, size in enumerate(groups):
                block = pts[:, start : start + size]
                xs.append(block)
                if j == g:
                    ys.append(
                        np.concatenate([pts[:, -1:], block[:, 1:]], axis=1) if sub else block[:, 1:]
                    )
                else:
                    ys.append(block)
                start += size
            return np.abs(_np_stat(stat, xs) - _np_stat(stat, ys))

        z = rng.random((starts, d))
        z[: starts // 3] = rng.integers(0, 2, (starts // 3, d))
        best = max(best, objective(z).max())
        step, h, eye = 0.2, 1e-7, np.eye(d)
        for _ in range(iters):
            zp = (z[:, None, :] + h * eye).reshape(-1, d)
            zm = (z[:, None, :] - h * eye).reshape(-1, d)
            grad = (objective(zp) - objective(zm)).reshape(starts, d) / (2 * h)
            norm = np.linalg.norm(grad, axis=1, keepdims=True) + 1e-300
            z = np.clip(z + step * grad / norm, 0.0, 1.0)
            best = max(best, objective(z).max())
            step *= 0.96
    return best


def _random_setups(seed):
    rng = np.random.default_rng(seed)
    setups = []
    for stat in ("mean", "variance", "sd", "covariance", "pooled_variance", "pooled_covariance"):
        for nb in ("substitute", "remove"):
            for _ in range(2):
                if stat.startswith("pooled"):
                    sizes = tuple(int(s) for s in rng.integers(2, 4, rng.integers(1, 3)))
                    if nb == "remove" and max(sizes) < 3:
                        sizes = (3, *sizes[1:])
                else:
                    low = 3 if nb == "remove" and stat != "mean" else 2
                    sizes = (int(rng.integers(low, 6)),)
                width = 2 if stat.endswith("covariance") else 1
                c0 = rng.uniform(-5, 5, width)
                r = rng.uniform(0.2, 4, width)
                bounds = tuple(float(v) for pair in zip(c0, c0 + r, strict=True) for v in pair)
                setups.append((stat, nb, sizes, bounds))
    return setups


@pytest.mark.parametrize(("stat", "nb", "sizes", "bounds"), _random_setups(20240607))
def test_brute_force_never_beats_exact_and_gets_close(stat, nb, sizes, bounds):
    pooled = stat.startswith("pooled")
    r = exact_sensitivity(stat, nb, sum(sizes), sizes if pooled else None)
    exact = float(sympy.N(r.scaled(tuple(F(b) for b in bounds)), 30))
    scale = float(r.scale(tuple(F(b) for b in bounds)))
    found = _brute_force(stat, nb, sizes, bounds, np.random.default_rng(7))
    assert found <= exact + 1e-9 * max(1.0, scale)
    assert found >= exact - 1e-3 * scale


# ------------------------------------------------------------------ printed formulas
def test_printed_verdicts():
    def verdicts(stat, nb, n, groups=None, **kw):
        r = exact_sensitivity(stat, nb, n, groups, **kw)
        return [p["verdict"] for p in describe(r)["printed"]]

    for n in range(3, 13):
        assert verdicts("variance", "remove", n) == ["equal"]
        assert verdicts("covariance", "remove", n) == ["equal"]
        assert verdicts("proportions", "remove", n, categories=4) == ["wrong"]
        assert verdicts("sd", "substitute", n) == ["equal"]  # the paper's "not sqrt(R^2/n)"
    assert verdicts("pooled_covariance", "remove", 6, (3, 3)) == ["loose", "loose"]
    assert verdicts("pooled_covariance", "remove", 5, (2, 3)) == ["equal", "loose"]
    assert verdicts("pooled_variance", "remove", 4, (2, 2), allow_singleton=True) == ["loose"]
    assert set(PRINTED) == {(s, nb) for s in STATISTICS for nb in ("substitute", "remove")}


def test_compare_is_exact():
    assert compare(F(1, 3), F(1, 3)) == "equal"
    assert compare(F(1, 2), F(1, 3)) == "loose"
    assert compare(sympy.sqrt(2) / 3, F(1, 2)) == "wrong"
    assert compare(sympy.sqrt(sympy.Rational(1, 5)), sympy.sqrt(5) / 5) == "equal"


# ------------------------------------------------------------------ KKT building blocks
def test_quad_refuses_cubic_and_kkt_finds_interior_and_degenerate_maxima():
    x, y = Quad.var(0), Quad.var(1)
    with pytest.raises(ArithmeticError):
        _ = x * x * y
    bowl = -((x - F(1, 3)) * (x - F(1, 3)))  # max 0 at x = 1/3, min -4/9 at x = 1
    values = [v for v, _ in box_candidates(bowl, 1)]
    assert max(values) == 0 and min(values) == F(-4, 9)
    ridge = -((x - y) * (x - y)) + x  # singular Hessian on the diagonal x = y
    values = [v for v, _ in box_candidates(ridge, 2)]
    assert max(values) == 1  # at x = y = 1


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("args", "kwargs", "needle"),
    [
        (("mean", "substitute", 1), {}, "n=1"),
        (("variance", "remove", 2), {}, "n=2"),
        (("sd", "remove", 2), {}, "n=2"),
        (("varianse", "substitute", 4), {}, "varianse"),
        (("mean", "swap", 4), {}, "swap"),
        (("pooled_variance", "substitute", 6, (2, 3)), {}, "sum to 5"),
        (("pooled_variance", "substitute", 5, (1, 4)), {}, "group size 1"),
        (("pooled_variance", "remove", 4, (2, 2)), {}, "groups=(2, 2)"),
        (("pooled_covariance", "substitute", 5), {}, "needs groups"),
        (("variance", "substitute", 5, (2, 3)), {}, "only to pooled"),
        (("histogram", "substitute", 5), {"categories": 1}, "categories=1"),
        (("mean", "substitute", 10**6), {}, "above"),
        (("mean", "substitute", 2.5), {}, "n=2.5"),
    ],
)
def test_bad_input_raises_input_error(args, kwargs, needle):
    with pytest.raises(InputError, match=None) as info:
        exact_sensitivity(*args, **kwargs)
    msg = str(info.value)
    assert needle in msg and "\n" not in msg


def test_bad_bounds():
    r = exact_sensitivity("variance", "substitute", 3)
    for bad in ("1,0", "2,2", "0", "0,1,2,3", "a,b"):
        with pytest.raises(InputError):
            r.scaled(bad)
    with pytest.raises(InputError):
        parse_bounds("histogram", "0,1")
    with pytest.raises(InputError):
        parse_bounds("covariance", "0,1,3,2")


@pytest.mark.parametrize(
    "argv",
    [
        ["sensitivity", "variance", "--neighbours", "remove", "--n", "1"],
        ["sensitivity", "variance", "--neighbours", "remove", "--n", "5", "--bounds", "1,0"],
        ["sensitivity", "pooled_variance", "--neighbours", "remove", "--n", "6", "--groups", "2,3"],
        ["sensitivity", "nope", "--neighbours", "remove", "--n", "5"],
        ["sensitivity", "mean", "--neighbours", "both", "--n", "5"],
        ["sensitivity", "mean", "--neighbours", "remove", "--n", "5", "--categories", "3"],
    ],
)
def test_cli_bad_input_exits_2_with_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpcheck: error: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_cli_text_and_json(capsys):
    argv = ["sensitivity", "pooled_covariance", "--neighbours", "remove", "--n", "6"]
    assert main([*argv, "--groups", "3,3", "--bounds", "0,2,0,3"]) == 0
    out = capsys.readouterr().out
    assert "2/9" in out and "4/3" in out and "loose upper bound" in out and "11/48" in out
    assert main([*argv, "--groups", "3,3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == "2/9" and data["cases"] > 0 and data["naive_vertices"] == 2 * 4**6
    assert [p["verdict"] for p in data["printed"]] == ["loose", "loose"]
    assert "x_prime" in data["witness"]
    text = format_text(describe(exact_sensitivity("sd", "remove", 4), "0,2"))
    assert "1" in text and "sqrt(R^2/n)" in text
