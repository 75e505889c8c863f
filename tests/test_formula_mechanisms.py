r"""``dpcheck check-formula`` for every mechanism of the algebra (issue 18, "formula").

The textbook forms below are typed in as LaTeX -- they are the things under
test, as a reviewer would paste them.  Each is first checked against an
*independent* route: mpmath quadrature (or direct summation on the lattice)
of the base law written here from scratch (:func:`oracle`), not the symbolic
engine.  Then ``check_formula`` must say ``equal``; every one-place mutant
(a sign, σ for σ², c_0 for c_1 in one place, Φ for φ) that the oracle sees
as a different function must say ``differs``, and its witness is
re-evaluated here with mpmath at 50 digits and the derived value at the
witness compared with the oracle.  Each check is timed (< 60 s, issue 18's
"done when").  The reviewer's own notation (``\theta=s,b=lam,l=c0,u=c1``)
is read, and the findings are printed back in it.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck import cli
from dpcheck.errors import InputError
from dpcheck.formula import check as fc
from dpcheck.formula import notation as nt
from dpcheck.formula.latex_parser import LIU2019, parse_latex
from dpcheck.numeric import rigorous
from dpcheck.numeric.names import MECHANISM_NAMES, parts
from dpcheck.symbolic.symbols import alpha, c0, c1, lam, s, scale, sigma

#: each check must answer within this many seconds (issue 18, "done when")
LIMIT = 60.0

# ---------------------------------------------------------------------------
# the independent oracle: quadrature / summation of the base laws, typed in here
# ---------------------------------------------------------------------------

_MP = mpmath.mpf


def _density(base: str, sv: mpmath.mpf, scale_v: mpmath.mpf):
    if base == "laplace":
        return lambda x: mpmath.exp(-abs(x - sv) / scale_v) / (2 * scale_v)
    return lambda x: (
        mpmath.exp(-(((x - sv) / scale_v) ** 2) / 2) / (scale_v * mpmath.sqrt(2 * mpmath.pi))
    )


def _fold(x: mpmath.mpf, lo: mpmath.mpf, hi: mpmath.mpf) -> mpmath.mpf:
    """Reflect x at lo and hi until it lies in [lo, hi] (a triangle wave of period 2R)."""
    width = hi - lo
    u = mpmath.fmod(x - lo, 2 * width)
    if u < 0:
        u += 2 * width
    return lo + (u if u <= width else 2 * width - u)


def _expect_continuous(bounding, base, sv, lo, hi, scale_v, g):
    """E g(Y) and P(lo <= X <= hi) by mpmath.quad, split at s and the bounds."""
    p = _density(base, sv, scale_v)
    inf = mpmath.inf

    def quad(f, a, b):
        cuts = sorted({a, b, *(v for v in (sv, lo, hi) if v is not None and a < v < b)})
        return mpmath.quad(f, cuts)

    a = -inf if lo is None else lo
    b = inf if hi is None else hi
    inside = quad(lambda x: g(x) * p(x), a, b)
    mass = quad(p, a, b)
    if bounding == "none":
        return quad(lambda x: g(x) * p(x), -inf, inf), _MP(1)
    if bounding == "truncated":
        return inside / mass, mass
    if bounding == "clamped":
        below = _MP(0) if lo is None else g(lo) * quad(p, -inf, lo)
        above = _MP(0) if hi is None else g(hi) * quad(p, hi, inf)
        return below + inside + above, mass
    # folded: integrate g(fold(x)) over the images, piece by piece (kinks at lo + kR)
    width = hi - lo
    reach = int(mpmath.ceil(50 * scale_v / width)) + 2
    cuts = sorted({sv, *(lo + k * width for k in range(-reach, reach + 2))})
    total = mpmath.quad(lambda x: g(_fold(x, lo, hi)) * p(x), [-inf, *cuts, inf])
    return total, mass


def _expect_lattice(bounding, sv, lo, hi, alpha_v, g):
    """E g(Y) and P(lo <= X <= hi) by direct summation of the two-sided geometric pmf."""
    reach = int(mpmath.ceil(120 / -mpmath.log(alpha_v))) + 5
    total = mass = _MP(0)
    weights = []
    for m in range(-reach, reach + 1):
        w = (1 - alpha_v) / (1 + alpha_v) * alpha_v ** abs(m)
        xv = sv + m
        weights.append((xv, w))
        if (lo is None or xv >= lo) and (hi is None or xv <= hi):
            mass += w
    for xv, w in weights:
        if bounding == "none":
            total += g(xv) * w
        elif bounding == "truncated":
            if (lo is None or xv >= lo) and (hi is None or xv <= hi):
                total += g(xv) * w
        else:  # clamped
            yv = xv if lo is None or xv >= lo else lo
            yv = yv if hi is None or yv <= hi else hi
            total += g(yv) * w
    if bounding == "truncated":
        total /= mass
    if bounding == "none":
        mass = _MP(1)
    return total, mass


def oracle(name: str, point: dict[str, Fraction]) -> mpmath.mpf:
    """The quantity ``name`` ('truncated-gaussian.var', '... .lower') at ``point`` (keys
    s, c0, c1 and lam, sigma, alpha or scale), by quadrature or summation at 40 digits."""
    mechanism, _, rest = name.partition(".")
    quantity, _, side = rest.partition(".")
    bounding, base = parts(mechanism)

    def mp(key):
        v = point[key]
        return _MP(v.numerator) / v.denominator

    with mpmath.workdps(40):
        sv = mp("s")
        lo = None if bounding == "none" or side == "upper" else mp("c0")
        hi = None if bounding == "none" or side == "lower" else mp("c1")
        if base == "geometric":
            a = mp("alpha") if "alpha" in point else mpmath.exp(-1 / mp("scale"))

            def run(g):
                return _expect_lattice(bounding, sv, lo, hi, a, g)

        else:
            scale_v = mp("lam" if base == "laplace" else "sigma")

            def run(g):
                return _expect_continuous(bounding, base, sv, lo, hi, scale_v, g)

        if quantity == "normaliser":
            return run(lambda y: _MP(1))[1] if bounding != "none" else _MP(1)
        mean = run(lambda y: y)[0]
        if quantity == "mean":
            return mean
        if quantity == "bias":
            return mean - sv
        second = run(lambda y: y * y)[0]
        if quantity == "second_moment":
            return second
        if quantity == "var":
            return second - mean**2
        return run(lambda y: (y - sv) ** 2)[0]


# ---------------------------------------------------------------------------
# evaluating a parsed formula with mpmath (independent of arb)
# ---------------------------------------------------------------------------

_WORD = {s: "s", c0: "c0", c1: "c1", lam: "lam", sigma: "sigma", alpha: "alpha", scale: "scale"}


def mp_eval(expr: sp.Expr, env: dict[sp.Symbol, Fraction], dps: int = 50) -> mpmath.mpf:
    symbols = sorted(env, key=str)
    f = sp.lambdify(symbols, expr, modules="mpmath")
    with mpmath.workdps(dps):
        return f(*(_MP(env[x].numerator) / env[x].denominator for x in symbols))


def oracle_points(mechanism: str, in_b: bool = False) -> list[dict[str, Fraction]]:
    """A few points of the mechanism's domain (s at a bound, near one, inside); the
    geometric scale as alpha, or as b when ``in_b``."""
    _, base = parts(mechanism)
    key = {"laplace": "lam", "gaussian": "sigma", "geometric": "alpha"}[base]
    if base == "geometric":
        key = "scale" if in_b else key
        scales = ("2", "1/2", "3", "10") if in_b else ("1/2", "9/10", "1/3", "3/5")
        rows = [(2, 0, 5), (-3, -3, 1), (4, 1, 4), (0, -2, 7)]
    else:
        scales = ("1/2", "3", "1/7", "1")
        rows = [("1/3", 0, 1), (2, -1, "7/2"), ("-1/5", -2, 0), (0, 0, 1)]
    return [
        {"s": Fraction(a), "c0": Fraction(b), "c1": Fraction(c), key: Fraction(d)}
        for (a, b, c), d in zip(rows, scales, strict=True)
    ]


def same_as_oracle(name: str, latex: str, notation: dict | str | None = None) -> bool:
    """The parsed formula equals the oracle at every oracle point (to 1e-20)."""
    mechanism = name.split(".")[0]
    table = nt.build(mechanism, notation).table
    expr = parse_latex(latex, table).expr
    in_b = scale in expr.free_symbols
    if in_b:
        expr = expr.xreplace({alpha: sp.exp(-1 / scale)})
    for point in oracle_points(mechanism, in_b):
        env = {sym: point[_WORD[sym]] for sym in expr.free_symbols if _WORD.get(sym) in point}
        with mpmath.workdps(40):
            value = mp_eval(expr, env, 40)
            want = oracle(name, point)
            if not abs(value - want) <= mpmath.mpf(10) ** -20 * (1 + abs(want)):
                return False
    return True


def assert_witness(result: fc.FormulaCheck, notation: dict | str | None = None) -> None:
    """The witness is real: mpmath at 50 digits reproduces both values and the sign of
    their difference, and the derived value agrees with the oracle at the witness."""
    assert result.verdict == "differs", result.to_dict()
    assert "arb" in result.method
    w = result.witness
    mechanism = result.quantity.split(".")[0]
    table = nt.build(mechanism, notation).table
    env = {table[k]: Fraction(v) for k, v in w["point"].items()}
    other = "derived" if "derived" in w else "against"
    formula = result.formula.expr
    if scale in env:  # compared in b: alpha = e^{-1/b}
        formula = formula.xreplace({alpha: sp.exp(-1 / scale)})
    with mpmath.workdps(50):
        a = mp_eval(formula, env)
        b = mp_eval(result.reference, env)
        diff = a - b
        assert abs(diff) > mpmath.mpf(10) ** -45 * (1 + abs(a) + abs(b))
        assert mpmath.sign(diff) == w["sign"]
        for name, value in (("formula", a), (other, b)):
            assert abs(mpmath.mpf(w[name]) - value) <= mpmath.mpf(10) ** -25 * (1 + abs(value))
    if other == "derived":
        point = {_WORD[sym]: value for sym, value in env.items() if sym in _WORD}
        want = oracle(result.quantity, point)
        with mpmath.workdps(40):
            err = abs(mpmath.mpf(w["derived"]) - want)
            assert err <= mpmath.mpf(10) ** -20 * (1 + abs(want)), (err, point)


# ---------------------------------------------------------------------------
# the textbook forms (typed in as a reviewer would paste them) and their mutants
# ---------------------------------------------------------------------------

A = r"\frac{c_0-s}{\sigma}"
B = r"\frac{c_1-s}{\sigma}"


def phi(u: str) -> str:
    return r"\phi\left(" + u + r"\right)"


def Phi(u: str) -> str:
    return r"\Phi\left(" + u + r"\right)"


Z = rf"\left({Phi(B)}-{Phi(A)}\right)"

TG_MEAN = rf"\mu = s+\sigma\frac{{{phi(A)}-{phi(B)}}}{{{Phi(B)}-{Phi(A)}}}"
TG_MEAN_ERF = (
    r"s+\sigma\sqrt{\frac{2}{\pi}}\,\frac{e^{-\frac{(c_0-s)^2}{2\sigma^2}}"
    r"-e^{-\frac{(c_1-s)^2}{2\sigma^2}}}{\mathrm{erf}\left(\frac{c_1-s}{\sqrt{2}\sigma}\right)"
    r"-\operatorname{erf}\left(\frac{c_0-s}{\sqrt{2}\,\sigma}\right)}"
)
TG_VAR = (
    rf"\operatorname{{Var}}(Y)=\sigma^2\left[1+\frac{{{A}{phi(A)}-{B}{phi(B)}}}{{{Z}}}"
    rf"-\left(\frac{{{phi(A)}-{phi(B)}}}{{{Z}}}\right)^2\right]"
)
CG_MEAN = (
    rf"c_0{Phi(A)}+c_1\left(1-{Phi(B)}\right)+s\left({Phi(B)}-{Phi(A)}\right)"
    rf"+\sigma\left({phi(A)}-{phi(B)}\right)"
)
#: derived by hand: E clamp(M, -t0, t1) = E(-M - t0)^+ - E(M - t1)^+ and
#: E(M - t)^+ = sum_k k p(t + k) = alpha^{t+1}/((1 - alpha)(1 + alpha)) for t >= 0
CGEO_MEAN = r"s+\frac{\alpha\left(\alpha^{s-c_0}-\alpha^{c_1-s}\right)}{1-\alpha^2}"
CGEO_MEAN_B = r"s+\frac{e^{-(s-c_0+1)/b}-e^{-(c_1-s+1)/b}}{1-e^{-2/b}}"
FL_BIAS = (
    r"\lambda\frac{e^{-(s-c_0)/\lambda}-e^{-(c_1-s)/\lambda}}"
    r"{1+e^{-(s-c_0)/\lambda-(c_1-s)/\lambda}}"
)
REVIEWER = r"\theta=s,b=lam,l=c0,u=c1"
TL_MEAN_REVIEWER = (
    r"\mathbb{E}[Y]=\theta+\frac{(b-l+\theta)e^{(l-\theta)/b}-(b+u-\theta)e^{(\theta-u)/b}}"
    r"{2-e^{(l-\theta)/b}-e^{(\theta-u)/b}}"
)


def one_place(latex: str, old: str, new: str, k: int = 0) -> str:
    """``latex`` with the k-th occurrence of ``old`` (after any label) replaced by ``new``."""
    start = latex.index("=") + 1 if re.match(r"^[^=]*=[^=]*$", latex) else 0
    spots = [m.start() for m in re.finditer(re.escape(old), latex) if m.start() >= start]
    assert len(spots) > k, (old, latex)
    i = spots[k]
    return latex[:i] + new + latex[i + len(old) :]


@dataclass
class Case:
    id: str
    quantity: str
    latex: str
    mutants: list[tuple[str, str]] = field(default_factory=list)
    notation: str | None = None


CASES = [
    Case(
        "truncated-gaussian.mean Phi/phi",
        "truncated-gaussian.mean",
        TG_MEAN,
        [
            ("wrong sign", one_place(TG_MEAN, "s+", "s-")),
            ("sigma^2 for sigma", one_place(TG_MEAN, r"\sigma\frac", r"\sigma^2\frac")),
            ("c_0 for c_1 in one place", one_place(TG_MEAN, "c_1", "c_0", 0)),
            ("Phi for phi", one_place(TG_MEAN, r"\phi", r"\Phi", 0)),
            ("phi for Phi", one_place(TG_MEAN, r"\Phi", r"\phi", 1)),
        ],
    ),
    Case(
        "truncated-gaussian.mean erf",
        "truncated-gaussian.mean",
        TG_MEAN_ERF,
        [
            ("wrong sign", one_place(TG_MEAN_ERF, "-e^", "+e^")),
            ("sigma for sigma^2", one_place(TG_MEAN_ERF, r"2\sigma^2", r"2\sigma", 1)),
            ("c_0 for c_1 in one place", one_place(TG_MEAN_ERF, "c_1", "c_0", 0)),
            ("erfc for erf", one_place(TG_MEAN_ERF, r"\mathrm{erf}", r"\mathrm{erfc}")),
            ("2 for sqrt 2", one_place(TG_MEAN_ERF, r"\sqrt{2}\sigma", r"2\sigma")),
        ],
    ),
    Case(
        "truncated-gaussian.var",
        "truncated-gaussian.var",
        TG_VAR,
        [
            ("wrong sign", one_place(TG_VAR, "1+", "1-")),
            ("sigma for sigma^2", one_place(TG_VAR, r"\sigma^2", r"\sigma")),
            ("c_0 for c_1 in one place", one_place(TG_VAR, "c_1", "c_0", 1)),
            ("Phi for phi", one_place(TG_VAR, r"\phi", r"\Phi", 2)),
            ("square dropped", one_place(TG_VAR, r"\right)^2", r"\right)")),
        ],
    ),
    Case(
        "clamped-gaussian.mean",
        "clamped-gaussian.mean",
        CG_MEAN,
        [
            ("wrong sign", one_place(CG_MEAN, r"+\sigma", r"-\sigma")),
            ("sigma^2 for sigma", one_place(CG_MEAN, r"+\sigma", r"+\sigma^2")),
            ("c_0 for c_1 in one place", one_place(CG_MEAN, "c_1", "c_0", 0)),
            ("Phi for phi", one_place(CG_MEAN, r"\phi", r"\Phi", 1)),
        ],
    ),
    Case(
        "clamped-geometric.mean alpha",
        "clamped-geometric.mean",
        CGEO_MEAN,
        [
            ("wrong sign", one_place(CGEO_MEAN, r"^{s-c_0}-", r"^{s-c_0}+")),
            ("alpha for alpha^2", one_place(CGEO_MEAN, r"\alpha^2", r"\alpha")),
            ("c_0 for c_1 in one place", one_place(CGEO_MEAN, "c_1", "c_0")),
            ("alpha factor dropped", one_place(CGEO_MEAN, r"{\alpha\left(", r"{\left(")),
        ],
    ),
    Case(
        "clamped-geometric.mean b",
        "clamped-geometric.mean",
        CGEO_MEAN_B,
        [
            ("wrong sign", one_place(CGEO_MEAN_B, "+1)/b}-", "+1)/b}+")),
            ("+1 dropped", one_place(CGEO_MEAN_B, "s-c_0+1", "s-c_0")),
            ("c_0 for c_1 in one place", one_place(CGEO_MEAN_B, "c_1", "c_0")),
        ],
    ),
    Case(
        "folded-laplace.bias",
        "folded-laplace.bias",
        FL_BIAS,
        [
            ("wrong sign", one_place(FL_BIAS, "{1+", "{1-")),
            ("lambda^2 for lambda", one_place(FL_BIAS, r"\lambda\frac", r"\lambda^2\frac")),
            ("c_0 for c_1 in one place", one_place(FL_BIAS, "c_1", "c_0", 1)),
        ],
    ),
    Case(
        "truncated-laplace.mean in the reviewer's notation",
        "truncated-laplace.mean",
        TL_MEAN_REVIEWER,
        [
            ("wrong sign", one_place(TL_MEAN_REVIEWER, r"{2-", r"{2+")),
            ("b^2 for b", one_place(TL_MEAN_REVIEWER, "(b-l", "(b^2-l")),
            ("l for u in one place", one_place(TL_MEAN_REVIEWER, "(b+u", "(b+l")),
        ],
        REVIEWER,
    ),
]
_IDS = [c.id for c in CASES]


def timed(quantity: str, latex: str, notation: str | None = None) -> tuple[fc.FormulaCheck, float]:
    fc.derived(fc.get_quantity(quantity).name)  # the derivation is timed apart
    start = time.perf_counter()
    result = fc.check_formula(quantity, latex, notation=notation)
    return result, time.perf_counter() - start


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_textbook_form_is_right_by_the_oracle_and_equal(case):
    assert same_as_oracle(case.quantity, case.latex, case.notation), case.id
    result, seconds = timed(case.quantity, case.latex, case.notation)
    assert result.verdict == "equal", result.to_dict()
    assert result.method.startswith("exact symbolic reduction"), result.method
    assert seconds < LIMIT


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_one_place_mutants_differ(case):
    assert case.mutants
    for what, latex in case.mutants:
        assert latex != case.latex
        assert not same_as_oracle(case.quantity, latex, case.notation), what
        result, seconds = timed(case.quantity, latex, case.notation)
        assert result.verdict == "differs", (what, result.to_dict())
        assert_witness(result, case.notation)
        assert seconds < LIMIT, (what, seconds)


def test_the_reviewer_notation_is_printed_back():
    latex = one_place(TL_MEAN_REVIEWER, r"{2-", r"{2+")
    result = fc.check_formula("truncated-laplace.mean", latex, notation=REVIEWER)
    d = result.to_dict()
    assert list(result.witness["point"]) == ["\\theta", "l", "u", "b"]
    assert d["notation"] == {"\\theta": "s", "b": "lam", "l": "c0", "u": "c1"}
    for text in (d["formula"]["expr"], d["reference"]["expr"]):
        assert "theta" in text and "lambda" not in text and "c_0" not in text
    assert "\\theta" in d["reference"]["latex"]
    assert d["domain"] == "real l < u, \\theta in [l, u], b > 0"
    w = result.witness
    assert w["reproduce"] == (
        f"dpcheck eval truncated-laplace.mean s={w['point'][chr(92) + 'theta']}"
        f" c0={w['point']['l']} c1={w['point']['u']} lam={w['point']['b']} --dps 30"
    )


# ---------------------------------------------------------------------------
# every one-place mutant of the Gaussian forms, generated
# ---------------------------------------------------------------------------


def generated_mutants(latex: str) -> list[tuple[str, str]]:
    """Each + / - flipped, each c_0 <-> c_1, each \\phi <-> \\Phi, each \\sigma^2 -> \\sigma,
    one place at a time (right of any label)."""
    start = latex.index("=") + 1 if "=" in latex else 0
    out = []
    for i, ch in enumerate(latex):
        if i >= start and ch in "+-":
            out.append((f"sign at {i}", latex[:i] + ("-" if ch == "+" else "+") + latex[i + 1 :]))
    for old, new in (
        ("c_0", "c_1"),
        ("c_1", "c_0"),
        (r"\phi", r"\Phi"),
        (r"\Phi", r"\phi"),
        (r"\sigma^2", r"\sigma"),
    ):
        for m in re.finditer(re.escape(old), latex):
            if m.start() >= start:
                i = m.start()
                out.append((f"{old} -> {new} at {i}", latex[:i] + new + latex[i + len(old) :]))
    return out


@pytest.mark.parametrize(
    "quantity,latex",
    [("truncated-gaussian.mean", TG_MEAN), ("clamped-gaussian.mean", CG_MEAN)],
    ids=["truncated-gaussian.mean", "clamped-gaussian.mean"],
)
def test_every_generated_mutant(quantity, latex):
    cases = generated_mutants(latex)
    assert len(cases) >= 12
    differs = 0
    for what, mutant in cases:
        try:
            result, seconds = timed(quantity, mutant)
        except InputError as exc:  # e.g. Phi(a) - Phi(a) in a denominator: undefined
            assert "division by zero" in str(exc), (what, exc)
            differs += 1
            continue
        assert seconds < LIMIT
        if same_as_oracle(quantity, mutant):
            assert result.verdict == "equal", (what, mutant)
            continue
        assert result.verdict == "differs", (what, mutant, result.to_dict())
        assert_witness(result)
        differs += 1
    assert differs >= len(cases) - 2


@pytest.mark.slow
def test_every_generated_mutant_of_the_variance():
    cases = generated_mutants(TG_VAR)
    assert len(cases) >= 20
    for what, mutant in cases:
        try:
            result, seconds = timed("truncated-gaussian.var", mutant)
        except InputError as exc:  # Phi(a) - Phi(a) in a denominator: undefined
            assert "division by zero" in str(exc), (what, exc)
            continue
        assert seconds < LIMIT
        if same_as_oracle("truncated-gaussian.var", mutant):
            assert result.verdict == "equal", (what, mutant)
        else:
            assert result.verdict == "differs", (what, mutant)
            assert_witness(result)


_EDITS = st.sampled_from(["sign", "swap", "constant", "scale", "phi"])


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    kind=_EDITS,
    index=st.integers(0, 60),
    q=st.integers(2, 10**6),
    which=st.sampled_from(["mean", "erf", "clamped"]),
)
def test_random_gaussian_edits(kind, index, q, which):
    quantity, latex = {
        "mean": ("truncated-gaussian.mean", TG_MEAN),
        "erf": ("truncated-gaussian.mean", TG_MEAN_ERF),
        "clamped": ("clamped-gaussian.mean", CG_MEAN),
    }[which]
    start = latex.index("=") + 1 if "=" in latex else 0
    if kind == "sign":
        spots = [i for i, ch in enumerate(latex) if i >= start and ch in "+-"]
        i = spots[index % len(spots)]
        latex = latex[:i] + ("-" if latex[i] == "+" else "+") + latex[i + 1 :]
    elif kind == "swap":
        spots = [m.start() + 2 for m in re.finditer("c_", latex) if m.start() >= start]
        i = spots[index % len(spots)]
        latex = latex[:i] + ("1" if latex[i] == "0" else "0") + latex[i + 1 :]
    elif kind == "constant":
        latex = latex + rf"+\frac{{1}}{{{q}}}"
    elif kind == "scale":
        spots = [m.start() for m in re.finditer(r"\\sigma", latex)]
        i = spots[index % len(spots)]
        latex = latex[:i] + rf"\left(1+\frac{{1}}{{{q}}}\right)" + latex[i:]
    else:
        spots = [m.start() for m in re.finditer(r"\\(phi|Phi)", latex)] or [None]
        i = spots[index % len(spots)]
        if i is None:
            return
        new = r"\Phi" if latex[i + 1 : i + 4] == "phi" else r"\phi"
        latex = latex[:i] + new + latex[i + 4 :]
    try:
        result, seconds = timed(quantity, latex)
    except InputError as exc:  # Phi(a) - Phi(a) in a denominator: undefined, refused
        assert "division by zero" in str(exc)
        return
    assert seconds < LIMIT
    if same_as_oracle(quantity, latex):
        assert result.verdict == "equal"
    else:
        assert_witness(result)


# ---------------------------------------------------------------------------
# every quantity of every mechanism is accepted
# ---------------------------------------------------------------------------


def _general_names() -> list[str]:
    return [n for n, q in fc.REGISTRY.items() if not q.legacy]


def test_every_name_is_registered():
    expected = set()
    for mechanism in MECHANISM_NAMES:
        bounding, _ = parts(mechanism)
        sides = ("", ".lower", ".upper") if bounding in ("truncated", "clamped") else ("",)
        for quantity in ("normaliser", "mean", "bias", "second_moment", "var", "mse"):
            expected |= {f"{mechanism}.{quantity}{side}" for side in sides}
    assert set(_general_names()) == expected and len(expected) == 132
    # Liu's aliases reach the general names too
    assert fc.get_quantity("bit.normaliser").name == "clamped-laplace.normaliser"
    assert fc.get_quantity("truncated.normaliser").legacy
    for bad, message in (
        ("folded-gaussian.mean", "not available"),
        ("gaussian.mean.lower", "unknown quantity"),
        ("truncated-gaussian.cdf", "unknown quantity"),
        ("truncated-gaussian.foo", r"\(known: truncated\.mean"),
    ):
        with pytest.raises(InputError, match=message):
            fc.check_formula(bad, "s")


FAST_NAMES = [
    "truncated-gaussian.normaliser",
    "clamped-gaussian.var.lower",
    "gaussian.mse",
    "clamped-geometric.second_moment.upper",
    "laplace.var",
    "clamped-laplace.mse.lower",
]


def _roundtrip(name: str) -> None:
    """The derived form, printed by SymPy as LaTeX and pasted back, is equal; plus 1/1000
    it differs, with a witness the oracle confirms."""
    latex = sp.latex(fc.derived(name))
    result, seconds = timed(name, latex)
    assert result.verdict == "equal", (name, latex, result.to_dict())
    assert seconds < LIMIT
    result, seconds = timed(name, latex + r"+\frac{1}{1000}")
    assert seconds < LIMIT
    assert_witness(result)
    assert abs(mpmath.mpf(result.witness["difference"]) - mpmath.mpf(1) / 1000) < 1e-25


@pytest.mark.parametrize("name", FAST_NAMES)
def test_roundtrip_some_names(name):
    _roundtrip(name)


@pytest.mark.slow
def test_roundtrip_every_name():
    for name in _general_names():
        _roundtrip(name)


# ---------------------------------------------------------------------------
# notation
# ---------------------------------------------------------------------------


def test_default_notation_per_base():
    assert set(nt.build("truncated-laplace").table) == {"e", "s", "c_0", "c_1", "\\lambda"}
    assert set(nt.build("truncated-gaussian").table) == {"e", "s", "c_0", "c_1", "\\sigma"}
    assert set(nt.build("clamped-geometric").table) == {
        "e",
        "s",
        "c_0",
        "c_1",
        "\\alpha",
        "b",
    }
    assert set(nt.build("gaussian").table) == {"e", "s", "\\sigma"}


def test_notation_mapping_is_read():
    n = nt.build("truncated-laplace", " \\theta = s , b=lam, l=c_{0},u = c1")
    assert dict(n.table) == {"e": sp.E, "\\theta": s, "b": lam, "l": c0, "u": c1}
    assert n.name(s) == "\\theta"
    n = nt.build("truncated-gaussian", {"x_{max}": "c1", "\\tau": "sigma"})
    assert n.table["x_max"] == c1 and n.table["\\tau"] == sigma and "\\sigma" not in n.table
    # a renamed parameter loses its default name
    assert "s" not in nt.build("gaussian", "m=s").table


@pytest.mark.parametrize(
    "mapping,message",
    [
        ("\\theta=s,\\theta=c0", r"symbol '\\theta' given twice"),
        ("x=s,y=s", "parameter 's' given twice"),
        ("x=sigma", r"unknown parameter 'sigma' of truncated-laplace \(expected one of s, c0"),
        ("x=", "malformed notation item 'x='"),
        ("x", "malformed notation item 'x'"),
        ("x=s,", "malformed notation item ''"),
        ("x==s", "malformed"),
        ("xy=s", "'xy' is not one symbol"),
        ("\\foo=s", "is not a Greek letter"),
        ("1=s", "expected a symbol"),
        ("e=s", "'e' is reserved"),
        ("\\pi=lam", "reserved"),
        ("", "empty notation"),
        ("x=s," * 30, "items"),
        ("x" * 2000, "too long"),
        ("__import__('os')=s", "expected a symbol"),
    ],
)
def test_bad_notation_is_one_line(mapping, message):
    with pytest.raises(InputError) as info:
        fc.check_formula("truncated-laplace.mean", "s", notation=mapping)
    text = str(info.value)
    assert "\n" not in text and len(text) < 400
    assert re.search(message, text), text


def test_bad_notation_mapping_type():
    with pytest.raises(InputError, match="mapping or a string"):
        nt.build("truncated-laplace", 3)
    with pytest.raises(InputError, match="must map a LaTeX symbol"):
        nt.build("truncated-laplace", {"x": 1})


def test_stray_symbol_differs_with_a_value_for_it():
    result = fc.check_formula("truncated-gaussian.mean", one_place(TG_MEAN, "s+", "s+x+"))
    assert result.verdict == "differs"
    assert "x" in result.witness["point"]
    assert any("neither in the notation" in n and "x" in n for n in result.notes)
    x_value = Fraction(result.witness["point"]["x"])
    with mpmath.workdps(40):
        exact = mpmath.mpf(x_value.numerator) / x_value.denominator
        assert abs(mpmath.mpf(result.witness["difference"]) - exact) < mpmath.mpf(10) ** -25
    # one that drops out is equal (and noted)
    result = fc.check_formula("truncated-gaussian.mean", TG_MEAN + r"+\theta-\theta")
    assert result.verdict == "equal"
    # with the Liu names and no notation, an unknown symbol is still refused (unchanged)
    with pytest.raises(InputError, match="unknown symbol 'y'"):
        fc.check_formula("truncated.mean", "y")


def test_liu_names_with_a_notation_use_the_general_route():
    result = fc.check_formula("truncated.mean", TL_MEAN_REVIEWER, notation=REVIEWER)
    assert result.verdict == "equal" and result.quantity == "truncated.mean"
    assert result.notation == {"\\theta": "s", "b": "lam", "l": "c0", "u": "c1"}


def test_one_sided_extra_symbol_is_noted():
    # the two-sided mean against the lower one-sided quantity: c_1 matters
    result = fc.check_formula("truncated-gaussian.mean.lower", TG_MEAN)
    assert result.verdict == "differs" and "c_1" in result.witness["point"]
    assert any("c_1" in n and "does not depend" in n for n in result.notes)
    assert "c1=inf" in result.witness["reproduce"]
    assert_witness(result)


def test_geometric_in_b_and_in_alpha_agree():
    both = r"s+\frac{\alpha e^{-(s-c_0)/b}-e^{-(c_1-s+1)/b}}{1-\alpha^2}"
    result = fc.check_formula("clamped-geometric.mean", both)
    assert result.verdict == "equal"
    assert any("compared in b" in n for n in result.notes)
    result = fc.check_formula("clamped-geometric.mean", one_place(CGEO_MEAN_B, "-2/b", "-1/b"))
    assert result.verdict == "differs"
    point = result.witness["point"]
    assert set(point) == {"s", "c_0", "c_1", "b"}
    assert all(Fraction(point[k]).denominator == 1 for k in ("s", "c_0", "c_1"))
    assert "scale=" in result.witness["reproduce"]


def test_geometric_points_are_in_the_domain():
    for in_b in (False, True):
        points = fc.geometric_points(in_b)
        assert len(points) >= fc.MIN_EVIDENCE_POINTS
        key = scale if in_b else alpha
        for p in points:
            assert all(p[k].denominator == 1 for k in (s, c0, c1))
            assert p[c0] < p[c1] and p[c0] <= p[s] <= p[c1]
            assert p[key] > 0 and (in_b or p[key] < 1)
        assert any(p[s] == p[c0] for p in points) and any(p[s] == p[c1] for p in points)
        assert any(p[s] == p[c0] + 1 for p in points)
        assert any(p[s] == p[c1] - 1 for p in points)
    alphas = {p[alpha] for p in fc.geometric_points()}
    assert min(alphas) <= Fraction(1, 100) and max(alphas) >= Fraction(99, 100)


def test_gaussian_points_cover_tiny_and_large_sigma():
    points = fc.gaussian_points()
    assert len(points) >= fc.MIN_EVIDENCE_POINTS
    sigmas = {p[sigma] for p in points}
    assert min(sigmas) <= Fraction(1, 10**6) and max(sigmas) >= 10**6
    for p in points:
        assert p[c0] < p[c1] and p[c0] <= p[s] <= p[c1] and p[sigma] > 0


def test_equal_by_evidence_when_the_exact_step_cannot(monkeypatch):
    """The honest fall-back: without the exact step an equal formula is 'equal' by
    numerical evidence, and says so."""
    monkeypatch.setattr(fc, "atoms_zero", lambda diff: False)
    monkeypatch.setattr(fc, "simplifies_to_zero", lambda diff: False)
    result, seconds = timed("truncated-gaussian.var", TG_VAR)
    assert result.verdict == "equal"
    assert result.method.startswith("numerical evidence, not a symbolic proof")
    assert result.points_checked >= fc.MIN_EVIDENCE_POINTS
    assert seconds < LIMIT


# ---------------------------------------------------------------------------
# the parser's new functions, against mpmath's own
# ---------------------------------------------------------------------------

_X = Fraction(3, 7)


@pytest.mark.parametrize(
    "latex,value",
    [
        (r"\Phi(s)", lambda x: mpmath.ncdf(x)),
        (r"\Phi\left(s\right)", lambda x: mpmath.ncdf(x)),
        (r"\phi(s)", lambda x: mpmath.npdf(x)),
        (r"\varphi{s}", lambda x: mpmath.npdf(x)),
        (r"\mathrm{erf}(s)", lambda x: mpmath.erf(x)),
        (r"\operatorname{erf}(s)", lambda x: mpmath.erf(x)),
        (r"\erf s", lambda x: mpmath.erf(x)),
        (r"\text{erf}(s)", lambda x: mpmath.erf(x)),
        (r"\mathrm{erfc}(s)", lambda x: mpmath.erfc(x)),
        (r"\operatorname{erfc}\left(s\right)", lambda x: mpmath.erfc(x)),
        (r"\erfc(s)", lambda x: mpmath.erfc(x)),
        (r"\sqrt{2\pi}", lambda x: mpmath.sqrt(2 * mpmath.pi)),
        (r"\Phi(s)^2", lambda x: mpmath.ncdf(x) ** 2),
        (r"2\phi(s)\Phi(-s)", lambda x: 2 * mpmath.npdf(x) * mpmath.ncdf(-x)),
    ],
)
def test_new_functions(latex, value):
    expr = parse_latex(latex).expr
    with mpmath.workdps(40):
        got = mp_eval(expr, {s: _X} if expr.free_symbols else {}, 40)
        want = value(_MP(3) / 7)
        assert abs(got - want) < mpmath.mpf(10) ** -35
        # the arb enclosure contains the same value
        ball = rigorous.arb_eval(expr, {s: _X}, 40)
        assert float(ball.rad()) < 1e-35
        assert abs(mpmath.mpf(ball.mid().str(40, radius=False)) - want) < mpmath.mpf(10) ** -35


def test_greek_names_in_the_notation_win_over_the_functions():
    table = dict(LIU2019) | {"\\phi": s, "\\pi": c0}
    assert parse_latex(r"\phi\pi", table).expr == s * c0
    for bad, message in (
        (r"\Phi", "expected the argument of \\\\Phi"),
        (r"\frac{1}\phi", "needs its argument"),
        (r"\mathrm{erfx}(s)", "only allowed in a left-hand-side label"),
        (r"\sigma", "unknown symbol"),  # not in Liu's notation
    ):
        with pytest.raises(InputError, match=message):
            parse_latex(bad)


def test_rigorous_erf_and_powers_of_balls_around_zero():
    x = sp.Symbol("x", real=True)
    for v in (Fraction(0), Fraction(1, 3), Fraction(-7, 2), Fraction(10**6)):
        for f, g in ((sp.erf, mpmath.erf), (sp.erfc, mpmath.erfc)):
            ball = rigorous.arb_eval(f(x), {x: v}, 40)
            with mpmath.workdps(60):
                want = g(_MP(v.numerator) / v.denominator)
                mid = mpmath.mpf(ball.mid().str(50, radius=False))
                rad = mpmath.mpf(ball.rad().str(5, radius=False))
                assert abs(mid - want) <= rad + mpmath.mpf(10) ** -45 * abs(want)
    # a ball around 0 squared: python-flint's ** gives nan; the enclosure must be finite
    ball = rigorous.arb_eval((sp.erf(x) - sp.erf(x)) ** 2, {x: Fraction(1, 3)}, 40)
    assert ball.is_finite() and ball.contains(0)
    assert not (flint.arb(0, 1e-10) ** 2).is_finite()  # python-flint's nan: the reason
    with pytest.raises(rigorous.NotRigorous):
        rigorous.arb_eval(sp.besselj(0, x), {x: Fraction(1)}, 40)


# ---------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------


def test_cli_done_when(capsys):
    """issue 18: check-formula truncated-gaussian.mean with Phi/phi and with erf: equal."""
    for latex in (TG_MEAN, TG_MEAN_ERF):
        start = time.perf_counter()
        assert cli.main(["check-formula", "truncated-gaussian.mean", latex]) == 0
        out = capsys.readouterr().out
        assert out.startswith("truncated-gaussian.mean: EQUAL"), out
        assert time.perf_counter() - start < LIMIT
    mutant = one_place(TG_MEAN, r"\phi", r"\Phi", 0)
    assert cli.main(["check-formula", "truncated-gaussian.mean", mutant]) == 1  # differs
    out = capsys.readouterr().out
    assert "DIFFERS" in out and "witness:" in out
    assert "reproduce  dpcheck eval truncated-gaussian.mean s=" in out


def test_cli_notation_json_and_against(capsys):
    argv = ["check-formula", "truncated-laplace.mean", one_place(TL_MEAN_REVIEWER, "{2-", "{2+")]
    assert cli.main([*argv, "--notation", REVIEWER]) == 1  # differs
    out = capsys.readouterr().out
    assert "notation:  \\theta = s, b = lam, l = c0, u = c1" in out
    assert "witness:   \\theta = " in out and ", l = " in out and ", b = " in out
    assert cli.main([*argv, "--notation", REVIEWER, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "differs" and data["notation"]["\\theta"] == "s"
    assert set(data["witness"]["point"]) == {"\\theta", "l", "u", "b"}
    argv = ["check-formula", "truncated-gaussian.mean", TG_MEAN, "--against", TG_MEAN_ERF]
    assert cli.main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "equal" and data["against"]["source"] == TG_MEAN_ERF


@pytest.mark.parametrize(
    "argv",
    [
        ["check-formula", "truncated-laplace.mean", "s", "--notation", "x=nope"],
        ["check-formula", "truncated-laplace.mean", "s", "--notation", "x=s,x=c0"],
        ["check-formula", "truncated-laplace.mean", "s", "--notation", "x=s,,"],
        # folded-gaussian exists since issue 35 (a law object); a quantity it lacks does not
        ["check-formula", "folded-gaussian.pdf", "s"],
        ["check-formula", "truncated-gaussian.mean", r"\Phi"],
        ["check-formula", "truncated-gaussian.mean", "s", "--against", r"\erf"],
    ],
)
def test_cli_bad_input_is_one_line(argv, capsys):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpcheck: error: ")


def test_no_eval_exec_sympify_while_checking_the_new_syntax():
    """The new functions, the notation and the general route never turn a string into
    code (the traps of tests/test_check_formula.py)."""
    from test_check_formula import booby_traps

    fc.check_formula("truncated-gaussian.mean", TG_MEAN)  # derivations first (SymPy's own)
    fc.check_formula("truncated-laplace.mean", "s", notation=REVIEWER)
    with booby_traps() as calls:
        verdicts = [
            fc.check_formula("truncated-gaussian.mean", TG_MEAN_ERF).verdict,
            fc.check_formula("truncated-gaussian.mean", TG_MEAN + "+x").verdict,
            fc.check_formula("truncated-laplace.mean", TL_MEAN_REVIEWER, notation=REVIEWER).verdict,
        ]
        for bad in ("__import__('os')=s", "eval('1')=s", "x=__import__('os')"):
            with pytest.raises(InputError):
                nt.build("truncated-laplace", bad)
    assert calls == []
    assert verdicts == ["equal", "differs", "equal"]


@pytest.mark.parametrize(
    "latex,message",
    [
        (r"\Phi" * 120 + " s", "nesting deeper than 50"),
        (r"\mathrm{erf}" * 120 + " s", "nesting deeper than 50"),
        (r"\phi(" * 60 + "s" + ")" * 60, "nesting deeper than 50"),
        (r"\Phi(s)^{1001}", "exponent '1001'"),
        (r"\erf(s)" * 800, "formula too long"),
    ],
)
def test_new_functions_keep_the_limits(latex, message):
    start = time.perf_counter()
    with pytest.raises(InputError, match=re.escape(message)):
        fc.check_formula("truncated-gaussian.mean", latex)
    assert time.perf_counter() - start < 2
