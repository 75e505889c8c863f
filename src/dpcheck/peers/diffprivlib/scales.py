"""``LaplaceBoundedDomain``'s scale and ``effective_epsilon()`` against the exact loss.

:func:`scale_row` compares diffprivlib 0.6.6's ``_find_scale()`` (the fixed
point of b = Δ/(ε - log ΔC(b) - log(1-δ)), Holohan et al. 2018/2020, "The
bounded Laplace mechanism in differential privacy") with the exact calibrated
scale of the truncated law (Liu 2019 Definition 2(a)); :func:`effective_epsilon_row`
compares ``effective_epsilon()`` (Δ/b) with the exact worst-case loss at the
library's b (:func:`dpcheck.numeric.privacy.privacy_loss`).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from mpmath import mpf

from dpcheck.peers.diffprivlib.exact import AGREE, DPS, _mp, _target, exact_scale, relative_error
from dpcheck.peers.diffprivlib.library import _as_mpf, _call, _library_scale, _make, _text
from dpcheck.peers.diffprivlib.points import Point, _num
from dpcheck.peers.diffprivlib.rows import Row, _fmt, _show


def _their_delta_c(point: Point, b: mpf) -> mpf:
    """ΔC(b) as ``_find_scale`` writes it: (2 - e^{-Δ/b} - e^{-(R-Δ)/b})/(1 - e^{-R/b})."""
    sens, lower, upper, _ = point.exact
    q, r = _mp(sens), _mp(upper - lower)
    return (2 - mpmath.exp(-q / b) - mpmath.exp(-(r - q) / b)) / (1 - mpmath.exp(-r / b))


def scale_row(point: Point) -> Row:
    """``_find_scale()`` against the exact calibrated scale."""
    from dpcheck.numeric import privacy

    command = point.command("scale")
    sens, lower, upper, _ = point.exact
    if lower == upper:
        return Row(
            point,
            "scale",
            "-",
            "-",
            None,
            "not compared",
            "not compared",
            "lower == upper: every scale gives the same output, no scale to calibrate",
            command,
        )
    lib, exc = _library_scale(point)
    with mpmath.workdps(DPS + 10):
        exact = exact_scale(point)
        if exc is not None:
            return Row(
                point,
                "scale",
                type(exc).__name__,
                _show(exact),
                mpf("inf"),
                "crash",
                "crash",
                f"_find_scale() raises {type(exc).__name__} ({exc})",
                command,
            )
        b = _as_mpf(lib)
        err = relative_error(b, exact) if b is not None else mpf("inf")
        target = _target(point)
        if b is None or not mpmath.isfinite(b):
            left = _mp(sens) / target
            dc = _their_delta_c(point, left)
            text = f"_find_scale() returns {_text(lib)}"
            if sens > upper - lower:
                text += (
                    f"; its ΔC(b), written for Δ < R, is {_fmt(dc)} at its starting point"
                    f" b = Δ/(ε - log(1-δ)) (Δ = {_num(point.sensitivity)} > R ="
                    f" {_num(float(upper - lower))}), so log ΔC is nan"
                )
            return Row(
                point,
                "scale",
                _text(lib),
                _show(exact),
                mpf("inf"),
                "compared",
                "nan",
                text,
                command,
            )
        if err <= AGREE:
            return Row(
                point,
                "scale",
                _show(b),
                _show(exact),
                err,
                "compared",
                "agrees",
                "agrees to floating-point accuracy",
                command,
            )
        loss = privacy.privacy_loss("truncated", sens, lower, upper, Fraction(float(lib)))
        verdict = "within" if loss <= target * (1 + AGREE) else "ABOVE"
        cost = (
            f"; exact worst-case loss at their b is {_fmt(loss, 6)}, {verdict} the target"
            f" ε - log(1-δ) = {_fmt(target, 6)}"
        )
        if sens > upper - lower:
            cause, text = (
                "formula",
                (
                    "for Δ > R the worst-case loss is R/b (attained at s = lower, s' = upper), but"
                    " _find_scale() solves Δ/b + log ΔC(b) with ΔC written for Δ < R"
                ),
            )
        else:
            mine = exact - _mp(sens) / (target - mpmath.log(_their_delta_c(point, exact)))
            if abs(mine) <= mpf(10) ** (-DPS) * exact:
                cause, text = (
                    "floating point",
                    (
                        "the exact scale solves their equation b = Δ/(ε - log ΔC(b) - log(1-δ))"
                        " (checked in mpmath to 1e-20): the gap is double-precision error in"
                        " evaluating and bisecting it"
                    ),
                )
            else:  # pragma: no cover - not seen on the grid
                cause, text = "formula", "their fixed-point equation differs from the exact loss"
        return Row(
            point, "scale", _show(b), _show(exact), err, "compared", cause, text + cost, command
        )


def effective_epsilon_row(point: Point) -> Row:
    """``effective_epsilon()`` against the exact worst-case loss at the library's scale."""
    from dpcheck.numeric import privacy

    command = point.command("effective_epsilon")
    sens, lower, upper, _ = point.exact
    mech = _make(point)
    lib, exc = _call(mech.effective_epsilon)
    if exc is not None:
        return Row(
            point,
            "effective_epsilon",
            type(exc).__name__,
            "-",
            mpf("inf"),
            "crash",
            "crash",
            f"effective_epsilon() raises {type(exc).__name__} ({exc})",
            command,
        )
    if lib is None:
        return Row(
            point,
            "effective_epsilon",
            "None",
            "-",
            None,
            "not compared",
            "not compared",
            "effective_epsilon() returns None when δ > 0 (by design)",
            command,
        )
    b, _ = _library_scale(point)
    b_mpf = _as_mpf(b)
    with mpmath.workdps(DPS + 10):
        if lower == upper or sens == 0:
            exact = mpf(0)  # one possible output, or equal neighbours: no loss
        elif b_mpf is None or not mpmath.isfinite(b_mpf) or b_mpf < 0:
            return Row(
                point,
                "effective_epsilon",
                _text(lib),
                "-",
                None,
                "not compared",
                "not compared",
                f"the library's scale is {_text(b)}",
                command,
            )
        elif b_mpf == 0:
            exact = mpf("inf")
        else:
            exact = privacy.privacy_loss("truncated", sens, lower, upper, Fraction(float(b)))
        lib_mpf = _as_mpf(lib)
        err = relative_error(lib_mpf, exact) if lib_mpf is not None else mpf("inf")
        if err <= AGREE:
            cause, text = "agrees", "agrees to floating-point accuracy"
        elif lib_mpf is None or not mpmath.isfinite(lib_mpf):
            cause, text = "nan", f"effective_epsilon() returns {_text(lib)}"
        elif sens >= upper - lower:
            cause, text = (
                "formula",
                ("effective_epsilon() returns Δ/b; for Δ >= R the worst-case loss is R/b"),
            )
        else:
            cause, text = (
                "formula",
                (
                    "effective_epsilon() returns Δ/b, the Laplace term only; the worst-case loss of"
                    " the truncated law at b is Δ/b + log ΔC(b) (Holohan et al. 2018)"
                ),
            )
    return Row(
        point,
        "effective_epsilon",
        _show(lib_mpf) if lib_mpf is not None else _text(lib),
        _show(exact),
        err,
        "compared",
        cause,
        text,
        command,
    )
