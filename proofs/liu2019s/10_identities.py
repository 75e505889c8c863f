"""Liu (2019) supplement §§2-4: every displayed algebraic step, checked line by line.

Each printed line (``dpcheck.papers.liu2019s``) is put in summary statistics by
the scenario of its section (``dpcheck.symbolic.sensitivity``) and compared
exactly with the difference derived from the definitions (so also with the line
before it).  A line that is not equal is confirmed false on a small concrete
data set, evaluated literally in exact rationals against the difference
computed directly from the data.  Where a line is right only with a printed
symbol read as the one evidently meant (x'_{21} for x'_{12}, ...), the line is
checked both ways and the evidence says which.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp

from dpcheck.claims.lines import (
    Item,
    check_lines,
    data_text,
    diagnose,
    model_agrees,
    symbolic,
    verdict_of_lines,
    witness,
)
from dpcheck.claims.model import Kind, Status, Verdict, step
from dpcheck.claims.registry import claim
from dpcheck.papers import liu2019s as P
from dpcheck.symbolic import sensitivity as se
from dpcheck.symbolic.sensitivity import k1, k2, k3, n

N_MAX = 40  # exhaustive checks over the counts k1, k2, k3 run for n = 3..N_MAX


# ---------------------------------------------------------------------------
# §2: sample variance
# ---------------------------------------------------------------------------


@claim(
    "liu2019s.s2.variance_def1_identity",
    source="§2 Def 1, eq (1) (000: (E.1))",
    statement=r"s^2-s'^2=n^{-1}(x_1-\bar{x}_-)^2-n^{-1}(x'_1-\bar{x}_-)^2"
    r"\text{ and each displayed line before it}",
)
def variance_def1_identity() -> Verdict:
    items = [Item(P.S2_DEF1_LHS)] + [Item(e) for e in P.S2_DEF1_CHAIN]
    ref, lines = check_lines(items, se.VARIANCE_DEF1, se.S2 - se.S2P, "variance1")
    return verdict_of_lines(
        "liu2019s.s2.variance_def1_identity",
        lines,
        ref,
        domain="every real data set x and replacement x'_1, every n >= 2",
        finding_ok=f"all {len(lines) - 1} displayed lines equal s^2 - s'^2 exactly (any n >= 2)",
        extra={"derivation check": model_agrees(se.VARIANCE_DEF1, ref, "variance1")},
    )


@claim(
    "liu2019s.s2.variance_def2_identity",
    source="§2 Def 2",
    statement=r"s^2-s'^2=n^{-1}(x_1-\bar{x}_-)^2-\frac{\sum_{i\ge2}x_i^2-(n-1)\bar{x}_-^2}"
    r"{(n-1)(n-2)}\text{ and each displayed line of the chain}",
)
def variance_def2_identity() -> Verdict:
    items = [Item(P.S2_DEF2_LHS)] + [Item(e) for e in P.S2_DEF2_CHAIN]
    items.append(Item(P.S2_DEF2_RESULT_001))
    ref, lines = check_lines(items, se.VARIANCE_DEF2, se.S2 - se.S2P, "variance2")
    return verdict_of_lines(
        "liu2019s.s2.variance_def2_identity",
        lines,
        ref,
        domain="every real data set x of size n >= 3, x' = x without record 1",
        finding_ok=(
            f"all {len(P.S2_DEF2_CHAIN)} displayed lines (000) and 001's form of the result "
            "equal s^2 - s'^2 exactly (any n >= 3)"
        ),
        extra={
            "derivation check": model_agrees(se.VARIANCE_DEF2, ref, "variance2"),
            "extractions": (
                "000 ends the chain with n^{-1}(x_1 - \\bar{x}_-)^2 - (n-1)^{-1}s'^2; 001 "
                "prints line 7 and then repeats it (as n^{-1}(...)^2 - (...)/((n-1)(n-2))) "
                "sixteen more times, the last copy truncated with x_- for \\bar{x}_-"
            ),
        },
    )


# ---------------------------------------------------------------------------
# §3: sample covariance
# ---------------------------------------------------------------------------

_READ_21 = {se.xp[2, 1]: se.xp[1, 2]}
_READ_21_TEXT = "x'_{21} read as x'_{12}"
_READ_SQ = {se.S12**2: se.S12, se.S12P**2: se.S12P}
_READ_SQ_TEXT = "s_{12}^2 - s_{12}'^2 read as s_{12} - s'_{12}"


@claim(
    "liu2019s.s3.covariance_def1_identity",
    source="§3 Def 1, eq (2) (000: (F.1))",
    statement=r"\text{each displayed line of }s_{12}-s'_{12}\text{ under Def 1, eq (2)}",
)
def covariance_def1_identity() -> Verdict:
    items = [Item(P.S3_DEF1_LHS, _READ_SQ, _READ_SQ_TEXT)]
    items += [Item(e, _READ_21, _READ_21_TEXT) for e in P.S3_DEF1_CHAIN]
    ref, lines = check_lines(items, se.COVARIANCE_DEF1, se.S12 - se.S12P, "covariance1")
    literal = {
        "left side": (
            "as printed (squares of the covariances) it is false; it is the notation of §2 "
            "(s^2 for a variance) carried over"
        ),
        "x'_{21}": (
            "read literally, x'_{21} is variable 1 of record 2 of x', i.e. x_{21} (shared "
            "under Def 1), and lines 2-4 are false; with x'_{12} they are right. The text "
            "after eq (2) keeps x'_{21}, so it is a consistent misprint of one symbol"
        ),
    }
    return verdict_of_lines(
        "liu2019s.s3.covariance_def1_identity",
        lines,
        ref,
        domain="every real bivariate data set and replacement record 1, every n >= 2",
        finding_ok="every displayed line of eq (2) equals s_12 - s'_12 exactly",
        extra={
            "derivation check": model_agrees(se.COVARIANCE_DEF1, ref, "covariance1"),
            "as printed": literal,
            "right as printed": [e["line"] for e in lines if e["status"] == "holds as printed"],
        },
    )


@claim(
    "liu2019s.s3.covariance_def2_identity",
    source="§3 Def 2, eq (3) (000: (F.2)) and its rewrite",
    statement=r"s_{12}-s'_{12}=n^{-1}(x_{11}-\bar{x}_{1-})(x_{12}-\bar{x}_{2-})"
    r"-(n-1)^{-1}s'_{12}\text{, each line before it, and the rewrite of }\Delta",
)
def covariance_def2_identity() -> Verdict:
    items = [Item(P.S3_DEF2_LHS)] + [Item(e) for e in P.S3_DEF2_CHAIN]
    items.append(Item(P.S3_DEF2_REWRITE))
    ref, lines = check_lines(items, se.COVARIANCE_DEF2, se.S12 - se.S12P, "covariance2")
    affine, degrees = se.is_multi_affine_covariance_def2()
    linearity = {
        "printed": P.S3_DEF2_REWRITE.extra["assertion"],
        "degrees of Δ in each single coordinate": degrees,
        "affine in each coordinate separately": affine,
        "reading": (
            "Δ is not linear (it has the products x_11 x_12 and x_k1 x_k2, total degree 2) "
            "but it is affine in each single coordinate, which is what the corner argument "
            "needs: |Δ| is then convex in each coordinate, so its maximum over the box is at "
            "a vertex"
        ),
    }
    v = verdict_of_lines(
        "liu2019s.s3.covariance_def2_identity",
        lines,
        ref,
        domain="every real bivariate data set of size n >= 3, x' = x without record 1",
        finding_ok=(
            f"all {len(P.S3_DEF2_CHAIN)} lines of eq (3) and the rewrite equal s_12 - s'_12 "
            "exactly; 'Δ is linear' is loose (Δ is affine in each coordinate separately, "
            "proved, which is enough for the corner argument)"
        ),
        extra={
            "derivation check": model_agrees(se.COVARIANCE_DEF2, ref, "covariance2"),
            "linear function of x_i1, x_i2": linearity,
            "extractions": (
                "001 garbles line 3 (a repeated fragment); 000's LaTeX is used. Both print the "
                "left side as '\\Delta s_{12} - s'_{12}' (Δ = s_12 - s'_12 with the '=' lost)"
            ),
        },
    )
    if v.status is Status.PROVED and not affine:
        v.status = Status.INCONCLUSIVE
        v.evidence["finding"] = "the multi-affinity of Δ was not shown"
    return v


def _int_numerator(expr: sp.Expr):  # type: ignore[no-untyped-def]
    """n(n-1)(n-2)·expr as a polynomial in n, k1, k2, k3 compiled to exact integer arithmetic."""
    poly = sp.expand(sp.cancel(expr * n * (n - 1) * (n - 2)))
    assert sp.denom(sp.together(poly)) == 1, poly
    return sp.lambdify((n, k1, k2, k3), poly, modules=[])


def _k_symmetric(expr: sp.Expr) -> bool:
    """Unchanged by exchanging k1 and k2 (the two variables' counts)."""
    return se.is_zero(expr - expr.xreplace({k1: k2, k2: k1}))


def _case_checks(case: dict) -> dict[str, Any]:
    a, b = case["corner"]
    ref = se.covariance_def2_on_unit_corner(a, b)
    kind_pairs = [
        se.unit_pair(a, b, size, *ks)
        for size in range(3, 7)
        for ks in sorted(se.unit_counts_feasible(size - 1))
    ]
    ref_symmetric = _k_symmetric(ref)
    lines = []
    for eq in case["lines"]:
        entry: dict[str, Any] = {"line": eq.label, "printed": eq.latex}
        if se.is_zero(eq.expr - ref):
            entry["status"] = "holds as printed"
        else:
            wit = witness(eq.expr, "", kind_pairs)
            entry["status"] = "false" if wit else "undecided"
            entry["as printed"] = {"holds": False, "witness": wit}
            entry["derived"] = str(sp.factor(ref))
            entry["one term with the wrong sign"] = False
            for term in sp.Add.make_args(eq.expr):
                if se.is_zero(eq.expr - 2 * term - ref):
                    entry["one term with the wrong sign"] = True
                    entry["diagnosis"] = (
                        f"the term {sp.factor(term)} has the wrong sign: negated, the line "
                        "equals the derived difference"
                    )
                    break
            entry["k1 <-> k2 symmetry as the derived value's"] = (
                _k_symmetric(eq.expr) == ref_symmetric
            )
        lines.append(entry)
    values = []
    for eq in case["values"]:
        at = eq.extra["at"]
        right = se.is_zero(ref.subs(at) - eq.expr)
        own = se.is_zero(case["lines"][1].expr.subs(at) - eq.expr)
        values.append(
            {
                "statement": eq.label,
                "printed": eq.latex,
                "at": {str(k): str(v) for k, v in at.items()},
                "status": "holds as printed" if right else "false",
                "derived value": str(sp.factor(ref.subs(at))),
                "follows from the printed line 2": own,
            }
        )
    maxima = []
    num = _int_numerator(ref)
    for eq in case["maxima"]:
        arg, branch = eq.extra["argmax"], eq.extra["branch"]
        at_arg = sp.simplify(ref.subs(arg))
        # the printed maximum of |Δ| is |Δ| at the printed argmax (so it is >= 0)
        ok_value = se.is_zero(at_arg - eq.expr) or se.is_zero(at_arg + eq.expr)
        ok_value = ok_value and all(eq.expr.subs(n, size) >= 0 for size in range(3, N_MAX + 1))
        # the branch the text takes the maximum over, every n = 3..N_MAX, exactly
        branch_ok = True
        for size in range(3, N_MAX + 1):
            m = size - 1
            pts = (
                [(m, kk2, kk2) for kk2 in range(m + 1)] if branch.get(k1) == n - 1 else [(0, 0, 0)]
            )
            best = max(abs(num(size, *p)) for p in pts)
            # |Δ| = printed  <=>  |num| = printed · n(n-1)(n-2)
            target = eq.expr.subs(n, size) * size * (size - 1) * (size - 2)
            branch_ok &= best == target
        maxima.append(
            {
                "statement": eq.label,
                "printed": eq.latex,
                "derived value at the printed argmax": str(at_arg),
                "|value| = printed maximum": ok_value,
                f"maximum over the branch, n = 3..{N_MAX} (exact)": branch_ok,
                "status": "holds as printed" if (ok_value and branch_ok) else "false",
            }
        )
    return {"lines": lines, "values": values, "maxima": maxima, "num": num}


@claim(
    "liu2019s.s3.covariance_def2_cases",
    source="§3 Def 2, cases 1-4",
    statement=r"\text{each displayed }k_1,k_2,k_3\text{ formula of cases 1-4 and its corner "
    r"values and maxima}",
)
def covariance_def2_cases() -> Verdict:
    ev: dict[str, Any] = {}
    broken: list[dict] = []
    wrong_values: list[str] = []
    case_max_ok = True
    for c, case in enumerate(P.S3_CASES, 1):
        res = _case_checks(case)
        num = res.pop("num")
        # context: the case maximum over the whole feasible (k1, k2, k3) set, not just the branches
        whole = True
        for size in range(3, N_MAX + 1):
            feas = se.unit_counts_feasible(size - 1)
            whole &= max(abs(num(size, *p)) for p in feas) == (size - 1) * (size - 2)
        res[f"max |s12 - s'12| over every feasible (k1, k2, k3) equals 1/n, n = 3..{N_MAX}"] = whole
        case_max_ok &= whole
        ev[f"case {c}, (x_11, x_12) = {case['corner']}"] = res
        broken += [e for e in res["lines"] if e["status"] != "holds as printed"]
        wrong_values += [
            e["statement"]
            for e in res["values"] + res["maxima"]
            if e["status"] != "holds as printed"
        ]
    # the printed range of k3, [lo, hi] evaluated at n = m + 1 (m records besides record 1)
    lo, hi = (
        sp.lambdify((k1, k2, n), e, modules=[{"Max": max, "Min": min}]) for e in P.S3_K3_RANGE.expr
    )
    m_ok = all(
        se.unit_counts_feasible(m)
        == {
            (a, b, c)
            for a in range(m + 1)
            for b in range(m + 1)
            for c in range(int(lo(a, b, m + 1)), int(hi(a, b, m + 1)) + 1)
        }
        for m in range(2, N_MAX)
    )
    ev["k3 range"] = {
        "printed": P.S3_K3_RANGE.latex,
        f"equals the set of realisable (k1, k2, k3), n = 3..{N_MAX}": m_ok,
    }
    ev["corner argument"] = (
        "each case calls s12 - s'12 'linear in k1, k2 and k3' and examines only k1 = 0 and "
        "k1 = n-1; it is bilinear (k1 k2 term) and its feasible set has vertices with "
        "0 < k1 < n-1 (e.g. k1 = k2 = (n-1)/2, k3 = 0). "
        + (
            "Still, in every case the maximum of |s12 - s'12| over every feasible "
            f"(k1, k2, k3) is n^-1 (exhaustive, exact, n = 3..{N_MAX}), as the text concludes"
            if case_max_ok
            else "In some case the maximum over the feasible set is not n^-1 (see the cases)"
        )
    )
    ev["extractions"] = (
        "000 and 001 print the same case formulas (001 drops minus signs in the bullets)"
    )
    if broken:
        first = broken[0]
        wit = first["as printed"]["witness"]
        ev["first_broken_line"] = first["line"]
        ev["witness"] = wit
        diagnosis = first.get("diagnosis", "")
        rest_ok = len(broken) == 1 and not wrong_values
        ev["finding"] = (
            f"{first['line']} is false"
            + (f" ({diagnosis})" if diagnosis else "")
            + f": on {data_text(wit['data'])} it gives {wit['printed line on the data']}, "
            f"s12 - s'12 = {wit['difference from the definitions']}"
            + (
                "; every other case formula (its line 2 included) and every stated corner "
                "value and maximum is right"
                if rest_ok
                else "; also wrong: " + ", ".join([e["line"] for e in broken[1:]] + wrong_values)
            )
        )
        return Verdict(
            Status.REFUTED,
            "exact comparison with the difference derived on the [0,1] corners (symbolic n); "
            "counterexample on a 0/1 data set in exact rationals; maxima by exhaustive exact "
            f"enumeration, n = 3..{N_MAX}",
            ev,
            reproduce="dpcheck verify liu2019s.s3.covariance_def2_cases --format json",
            basis=[
                step(
                    Kind.ENUMERATION,
                    f"{first['line']} evaluated literally in exact rationals differs from "
                    "s12 - s'12 computed from the data",
                    domain=data_text(wit["data"]),
                )
            ],
        )
    if wrong_values or not m_ok:
        ev["finding"] = "wrong: " + ", ".join(wrong_values or ["k3 range"])
        return Verdict(
            Status.REFUTED,
            "exact comparison",
            ev,
            reproduce="dpcheck verify liu2019s.s3.covariance_def2_cases --format json",
            basis=[
                step(
                    Kind.ENUMERATION,
                    "exact comparison of the stated values: " + ", ".join(wrong_values or ["k3"]),
                    domain=f"n = 3..{N_MAX}",
                )
            ],
        )
    ev["finding"] = "every case formula, corner value and maximum is right"
    return Verdict(
        Status.VERIFIED,
        "formulas and corner values reduced exactly (symbolic n); maxima and the k3 range by "
        f"exhaustive exact enumeration, n = 3..{N_MAX}",
        ev,
        domain=f"formulas for every n >= 3; maxima and k3 range for n = 3..{N_MAX}",
        basis=[
            step(Kind.SYMBOLIC, "case formulas and corner values reduced exactly, symbolic n"),
            step(
                Kind.ENUMERATION,
                "maxima and the k3 range by exhaustive exact enumeration",
                domain=f"n = 3..{N_MAX}",
            ),
        ],
    )


# ---------------------------------------------------------------------------
# §4: pooled variance
# ---------------------------------------------------------------------------

_READ_S4D1 = {
    sp.Sum((se.x[se.i, 1] - se.xbarp[1]) ** 2, (se.i, 1, se.nc[1])): sp.Sum(
        (se.xp[se.i, 1] - se.xbarp[1]) ** 2, (se.i, 1, se.nc[1])
    )
}
_READ_S4D1_TEXT = "x_{i1} in the second sum read as x'_{i1}"
_READ_S4D2 = {se.xbar[1]: se.xbarm[1]}
_READ_S4D2_TEXT = "\\bar{x}_1 in '-2\\bar{x}_1 x_{11}' read as \\bar{x}_{1-}"


#: 001's line 5 prints (n-1)\bar{x}_{1-} where 000 has (n_1-1)\bar{x}_{1-} (its note)
_READ_001 = {
    "§4 Def 2, line 5 (001)": (
        {(se.n - 1) * se.xbarm[1]: (se.nc[1] - 1) * se.xbarm[1]},
        "(n-1)\\bar{x}_{1-} read as 000's (n_1-1)\\bar{x}_{1-}",
    )
}


@claim(
    "liu2019s.s4.pooled_variance_def2_identity",
    source="§4 Def 1 and Def 2 (000: App. G)",
    statement=r"\Delta=\frac{(1-n_1^{-1})(x_{11}-\bar{x}_{1-})^2-s^2_{p-}}{n-J}"
    r"\text{, and the displayed steps of §4 Def 1 and Def 2}",
)
def pooled_variance_def2_identity() -> Verdict:
    d1_items = [Item(P.S4_DEF1_CHAIN[0]), Item(P.S4_DEF1_CHAIN[1], _READ_S4D1, _READ_S4D1_TEXT)]
    ref1, lines1 = check_lines(d1_items, se.POOLED_VARIANCE_DEF1, se.SP2 - se.SP2P, "pooled1")
    d2_items = [
        Item(e, _READ_S4D2, _READ_S4D2_TEXT) if e.label.endswith("line 6") else Item(e)
        for e in P.S4_DEF2_CHAIN
    ]
    ref2, lines2 = check_lines(d2_items, se.POOLED_VARIANCE_DEF2, se.SP2 - se.SP2M, "pooled2")
    spm = se.is_zero(
        se.POOLED_VARIANCE_DEF2.interpret(P.S4_DEF2_SPM.expr)
        - se.POOLED_VARIANCE_DEF2.interpret(se.SP2M)
    )
    lines2.insert(
        0,
        {
            "line": P.S4_DEF2_SPM.label,
            "printed": P.S4_DEF2_SPM.latex,
            "status": "holds as printed" if spm else "false",
            "note": "the pooled variance of x' (a definition; checked against the general one)",
        },
    )
    variants = {}
    for label, eq in P.VARIANTS_001.items():
        read = eq.expr  # 001's n_j upper limit is already read as n_1 in the transcription
        ok = symbolic(se.POOLED_VARIANCE_DEF2, read, ref2)
        variants[label] = {
            "printed (001)": eq.latex,
            "equals Δ": ok,
            "witness": None if ok else witness(read, "pooled2"),
            "diagnosis": None
            if ok
            else diagnose(se.POOLED_VARIANCE_DEF2, read, se.SP2 - se.SP2M, ref2),
        }
        if label in _READ_001:
            reading, text = _READ_001[label]
            variants[label]["reading"] = text
            variants[label]["equals Δ under the reading"] = symbolic(
                se.POOLED_VARIANCE_DEF2, read.xreplace(reading), ref2
            )
    lines = lines1 + lines2
    v = verdict_of_lines(
        "liu2019s.s4.pooled_variance_def2_identity",
        lines,
        ref2,
        domain=(
            "every real data set in J cells with n_1 >= 2 and n - 1 - J > 0 "
            "(Def 1: any replacement x'_11)"
        ),
        finding_ok=(
            f"the {len(lines1)} lines of Def 1 and the {len(lines2)} of Def 2 (000) equal "
            "their differences exactly; Δ = ((1 - 1/n1)(x11 - x̄1-)^2 - s²_p-)/(n-J)"
        ),
        extra={
            "derivation check (Def 1)": model_agrees(se.POOLED_VARIANCE_DEF1, ref1, "pooled1"),
            "derivation check (Def 2)": model_agrees(se.POOLED_VARIANCE_DEF2, ref2, "pooled2"),
            "derived difference (Def 1)": str(sp.factor(ref1)),
            "001 variants (not 000's LaTeX; not part of the verdict)": variants,
        },
    )
    return v


# ---------------------------------------------------------------------------
# §5: pooled covariance, term 1 at the corners of cell 1
# ---------------------------------------------------------------------------

N1_MAX = 12  # the extrema of term 1 are checked for n_1 = 2..N1_MAX
GAPS = (0, 1, 2, 5)  # (n - J) - n_1 for the extrema (the other cells' records beyond one each)


def _term1_lines(case: dict, ref: sp.Expr) -> list[dict[str, Any]]:
    a, b = case["corner"]
    pairs = [
        se.unit_pooled_pair(a, b, n1, *ks)
        for n1 in range(2, 6)
        for ks in sorted(se.unit_counts_feasible(n1 - 1))
    ]
    out = []
    for eq in case["lines"]:
        entry: dict[str, Any] = {"line": eq.label, "printed": eq.latex}
        if se.is_zero(eq.expr - ref):
            entry["status"] = "holds as printed"
        else:
            wit = witness(eq.expr, "", pairs)
            entry["status"] = "false" if wit else "undecided"
            entry["as printed"] = {"holds": False, "witness": wit}
            entry["derived"] = str(sp.factor(ref))
            entry["one term with the wrong sign"] = any(
                se.is_zero(eq.expr - 2 * t - ref) for t in sp.Add.make_args(eq.expr)
            )
        out.append(entry)
    return out


def _branches(n1: int) -> list[tuple[int, int, int]]:
    """The points the text examines: k1 = 0 (then k2 = k3 = 0) and k1 = n1 - 1 (k3 = k2)."""
    return [(0, 0, 0)] + [(n1 - 1, kk2, kk2) for kk2 in range(n1)]


def _term1_values(case: dict, ref: sp.Expr) -> list[dict[str, Any]]:
    n1 = se.nc[1]
    g = sp.lambdify((k1, k2, k3, n1, se.n, se.J), ref)

    def f(*args: int) -> Fraction:  # exact: Fractions in, Fractions out
        return g(*map(Fraction, args))

    out = []
    for eq in case["values"]:
        at = eq.extra["at"]
        entry: dict[str, Any] = {
            "statement": eq.label,
            "printed": eq.latex,
            "at": {str(k): str(v) for k, v in at.items()},
            "derived value": str(sp.factor(ref.subs(at))),
        }
        right = se.is_zero(ref.subs(at) - eq.expr)
        entry["value at the stated point"] = right
        extreme = next((w for w in ("maximum", "minimum") if eq.label.endswith(w)), None)
        if extreme:
            pick = max if extreme == "maximum" else min
            branch = whole = True
            for size in range(2, N1_MAX + 1):
                for gap in GAPS:
                    nn, jj = size + gap + 2, 2  # n - J = n_1 + gap
                    value = Fraction(str(eq.expr.subs({n1: size, se.n: nn, se.J: jj})))
                    branch &= pick(f(*k, size, nn, jj) for k in _branches(size)) == value
                    feasible = se.unit_counts_feasible(size - 1)
                    whole &= pick(f(*k, size, nn, jj) for k in feasible) == value
            entry[f"{extreme} over the examined branches k1 = 0, k1 = n1 - 1 (exact)"] = branch
            entry[f"{extreme} over every feasible (k1, k2, k3) (context)"] = whole
            right = right and branch
        entry["status"] = "holds as printed" if right else "false"
        out.append(entry)
    return out


@claim(
    "liu2019s.s5.pooled_covariance_def2_cases",
    source="§5 Def 2, term 1 at the corners (x_11, y_11)",
    statement=r"\text{each displayed }k_1,k_2,k_3\text{ formula of term 1 at the four corners, "
    r"its values at }k_1=0,\ k_1=n_1-1\text{ and its stated maxima and minima}",
)
def pooled_covariance_def2_cases() -> Verdict:
    ev: dict[str, Any] = {}
    broken: list[dict] = []
    wrong: list[str] = []
    for case in P.S5_TERM1_CASES:
        a, b = case["corner"]
        ref = se.pooled_covariance_term1_on_unit_corner(a, b)
        lines, values = _term1_lines(case, ref), _term1_values(case, ref)
        ev[f"(x_11, y_11) = {case['corner']}"] = {"lines": lines, "values": values}
        broken += [e for e in lines if e["status"] != "holds as printed"]
        wrong += [e["statement"] for e in values if e["status"] != "holds as printed"]
    ev["reference"] = (
        "term 1 of §5 Def 2 (Δ with the other cells' cross products W_xy = 0) derived on 0/1 "
        "data of cell 1: record 1 at the corner, k1, k2, k3 the counts of the others"
    )
    ev["extrema"] = (
        "like §3, the text examines k1 = 0 and k1 = n1 - 1 only; the extrema are checked over "
        f"those branches for n1 = 2..{N1_MAX}, (n - J) - n1 in {GAPS} (exact); the extremum over "
        "every feasible (k1, k2, k3) is shown for context"
    )
    reproduce = "dpcheck verify liu2019s.s5.pooled_covariance_def2_cases --format json"
    if broken:
        first = broken[0]
        wit = first["as printed"]["witness"]
        ev["first_broken_line"] = first["line"]
        if wit is None:
            ev["finding"] = f"{first['line']} was not reduced and no witness was found"
            return Verdict(Status.INCONCLUSIVE, "exact comparison; no witness", ev)
        ev["witness"] = wit
        ev["finding"] = (
            f"{first['line']} is false: on {data_text(wit['data'])} it gives "
            f"{wit['printed line on the data']}, term 1 = {wit['difference from the definitions']}"
        )
        return Verdict(
            Status.REFUTED,
            "exact comparison with term 1 derived on the [0,1] corners; counterexample on a "
            "0/1 data set in exact rationals",
            ev,
            reproduce=reproduce,
            basis=[
                step(
                    Kind.ENUMERATION,
                    f"{first['line']} evaluated literally in exact rationals differs from "
                    "term 1 computed from the data",
                    domain=data_text(wit["data"]),
                )
            ],
        )
    if wrong:
        ev["finding"] = "wrong: " + ", ".join(wrong)
        return Verdict(
            Status.REFUTED,
            "exact comparison of the stated values and extrema",
            ev,
            reproduce=reproduce,
            basis=[
                step(
                    Kind.ENUMERATION,
                    "exact comparison of the stated values: " + ", ".join(wrong),
                    domain=f"n1 = 2..{N1_MAX}",
                )
            ],
        )
    ev["finding"] = (
        "every displayed formula of term 1 at the four corners, every stated value and the "
        "stated maxima and minima over the examined branches are right"
    )
    return Verdict(
        Status.VERIFIED,
        "formulas and values reduced exactly (symbolic n, J, n1); extrema over the examined "
        f"branches by exhaustive exact evaluation, n1 = 2..{N1_MAX}",
        ev,
        reproduce=reproduce,
        domain=f"formulas and values for every n, J, n1 >= 2; extrema for n1 = 2..{N1_MAX}",
        basis=[
            step(Kind.SYMBOLIC, "term-1 formulas and values reduced exactly, symbolic n, J, n1"),
            step(
                Kind.ENUMERATION,
                "the stated extrema over the branches k1 = 0, k1 = n1 - 1, exact",
                domain=f"n1 = 2..{N1_MAX}, (n - J) - n1 in {GAPS}",
            ),
        ],
    )
