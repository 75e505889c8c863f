"""``bias()`` and ``variance()`` of diffprivlib 0.6.6 against the exact law, and why they differ.

:func:`moment_row` compares ``LaplaceTruncated`` / ``LaplaceFolded`` /
``LaplaceBoundedDomain`` ``.bias(value)`` and ``.variance(value)`` with the
exact moments of the law ``randomise(value)`` samples (Liu 2019 Definition 2:
BIT, folded, truncated).  :func:`_diagnose` names the cause of a gap (scale
mismatch Δ/ε vs Δ/(ε - log(1-δ)), floating point, formula, value outside the
bounds) with the help of :func:`library_formula`, diffprivlib's closed forms
transcribed into mpmath.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from mpmath import mpf

from dpcheck.peers.diffprivlib.exact import (
    AGREE,
    DPS,
    ExactLaw,
    _floor,
    _mp,
    exact_quantity,
    relative_error,
    sampled_law,
)
from dpcheck.peers.diffprivlib.library import _as_mpf, _call, _make, _text
from dpcheck.peers.diffprivlib.points import Point, _num
from dpcheck.peers.diffprivlib.rows import Row, _fmt, _show


def library_formula(mechanism: str, name: str, point: Point, shape: Fraction) -> mpf:
    """diffprivlib 0.6.6's closed form for bias/variance, transcribed, at 80 digits.

    Used only to diagnose a discrepancy: if this agrees with the exact value,
    the formula is right and the library's error is floating point.
    """
    _, lower, upper, value = point.exact
    with mpmath.workdps(80):
        v, lo, hi, b = (_mp(q) for q in (value, lower, upper, shape))
        e0, e1 = mpmath.exp((lo - v) / b), mpmath.exp((v - hi) / b)
        if mechanism == "LaplaceFolded":
            if name != "bias":
                raise NotImplementedError
            num = b * (mpmath.exp((lo + hi - 2 * v) / b) - 1)
            return num / (mpmath.exp((lo - v) / b) + mpmath.exp((hi - v) / b))
        if mechanism == "LaplaceTruncated":
            bias = b / 2 * (e0 - e1)
            var = v**2 + b * (lo * e0 - hi * e1) + b**2 * (2 - e0 - e1)
        else:
            bias = ((b - lo + v) / 2 * e0 - (b + hi - v) / 2 * e1) / (1 - e0 / 2 - e1 / 2)
            var = v**2 - (e0 * lo**2 + e1 * hi**2) / 2 + b * (lo * e0 - hi * e1)
            var = (var + b**2 * (2 - e0 - e1)) / (1 - (e0 + e1) / 2)
        return bias if name == "bias" else var - (bias + v) ** 2


def moment_row(point: Point, name: str) -> Row:
    """bias(value) or variance(value) against the exact law of randomise(value)."""
    mech = _make(point)
    method = getattr(mech, name)
    lib, exc = _call(lambda: method(point.value))
    law = sampled_law(point)
    command = point.command(name)
    if isinstance(exc, NotImplementedError):
        exact = "-" if isinstance(law, str) else _show(exact_quantity(law, name, point.exact[3]))
        return Row(
            point,
            name,
            "NotImplementedError",
            exact,
            None,
            "not implemented",
            "not implemented",
            f"{point.mechanism}.{name}() is not implemented in diffprivlib 0.6.6",
            command,
        )
    if isinstance(law, str):
        shown = type(exc).__name__ if exc is not None else _text(lib)
        return Row(point, name, shown, "-", None, "not compared", "not compared", law, command)
    exact = exact_quantity(law, name, point.exact[3])
    if exc is not None:
        return Row(
            point,
            name,
            f"{type(exc).__name__}",
            _show(exact),
            mpf("inf"),
            "crash",
            "crash",
            f"{name}() raises {type(exc).__name__} ({exc}) although the constructor accepted"
            f" these parameters; randomise() samples the {law.describe()}",
            command,
        )
    lib_mpf = _as_mpf(lib)
    if lib_mpf is None:
        return Row(
            point,
            name,
            _text(lib),
            _show(exact),
            mpf("inf"),
            "crash",
            "crash",
            f"{name}() returned {_text(lib)}, not a number",
            command,
        )
    with mpmath.workdps(DPS + 10):
        err = relative_error(lib_mpf, exact, _floor(law, name, point))
        cause, text = _diagnose(point, name, law, lib_mpf, exact, err)
    return Row(point, name, _show(lib_mpf), _show(exact), err, "compared", cause, text, command)


def _diagnose(
    point: Point, name: str, law: ExactLaw, lib: mpf, exact: mpf, err: mpf
) -> tuple[str, str]:
    """(cause, diagnosis) for a compared bias/variance."""
    if not mpmath.isfinite(lib) and mpmath.isfinite(exact):
        cause = "nan"
    elif err <= AGREE:
        return "agrees", "agrees to floating-point accuracy"
    else:
        cause = ""
    sens, lower, upper, value = point.exact
    if point.mechanism == "LaplaceBoundedDomain":
        shape = law.lam
    else:
        shape = Fraction(point.sensitivity / point.epsilon)  # what bias()/variance() use
    if law.kind == "point":
        if shape != law.lam:
            return cause or "scale", (
                f"scale mismatch: {name}() uses λ = Δ/ε = {_num(float(shape))}, randomise()"
                f" samples at λ = Δ/(ε - log(1-δ)) = 0: a {law.describe()}"
            )
        return cause or "formula", f"randomise() samples a {law.describe()}; {name}() gives {lib}"
    try:
        formula = library_formula(point.mechanism, name, point, shape)
    except (ZeroDivisionError, NotImplementedError):  # pragma: no cover - guarded above
        return cause or "formula", "the closed form cannot be evaluated exactly here"
    floor = _floor(law, name, point)
    formula_err = relative_error(formula, exact, floor)
    if formula_err <= AGREE:
        what = "overflows (inf/nan)" if cause == "nan" else "loses the digits (cancellation)"
        return cause or "floating point", (
            f"the closed form is right (in exact arithmetic its error is {_fmt(formula_err)});"
            f" double precision {what}"
        )
    if shape != law.lam:
        alt = ExactLaw(law.kind, law.s, law.c0, law.c1, shape)
        alt_err = relative_error(formula, exact_quantity(alt, name, value), floor)
        if alt_err <= AGREE:
            extra = ""
            if not mpmath.isfinite(lib):
                extra = "; in double precision it overflows (inf/nan)"
            elif relative_error(lib, formula, floor) > AGREE:
                extra = f"; double precision adds {_fmt(relative_error(lib, formula, floor))}"
            return cause or "scale", (
                f"scale mismatch: {name}() uses λ = Δ/ε = {_num(float(shape))}, randomise()"
                f" samples at λ = Δ/(ε - log(1-δ)) = {_num(float(law.lam))}; the formula is"
                f" right at its own scale{extra}"
            )
    if not lower <= value <= upper:
        how = "folds" if point.mechanism == "LaplaceFolded" else "clamps"
        text = (
            f"value outside [lower, upper]: randomise() {how} it (law at s={_num(float(law.s))}),"
            f" {name}() evaluates its closed form at the raw value (off by {_fmt(formula_err)} in"
            " exact arithmetic"
        )
        if not mpmath.isfinite(lib):
            text += "; overflows to inf/nan in double precision"
        elif relative_error(lib, formula, floor) > AGREE:
            text += f"; double precision adds {_fmt(relative_error(lib, formula, floor))}"
        return cause or "formula", text + ")"
    return cause or "formula", (
        f"the closed form differs from the exact value in exact arithmetic too"
        f" ({_show(formula, 12)} at λ = {_num(float(shape))})"
    )
