"""``dpcheck compare opendp``: OpenDP 0.16's privacy maps against dpcheck's exact values.

Issue 19, "Peers users compose with".  Each row takes one privacy claim of
OpenDP (the number its measurement's ``map(d_in)`` returns, d_in = 1) and the
exact value of the same mechanism from dpcheck's own engine
(:mod:`dpcheck.numeric.profile`, whose argument is in its module docstring):

a. ``make_laplace`` on floats (``atom_domain(T=float, nan=False)``,
   ``absolute_distance(T=float)``): a pure ε; exact: the pure ε of ``laplace``
   with λ = OpenDP's scale (Δ/λ), confirmed by the profile: δ(claim) = 0 and
   δ(0.999·claim) > 0 (:func:`~dpcheck.numeric.profile.delta_for_epsilon`).
b. ``make_laplace`` on integers = the discrete Laplace P(k) ∝ e^{-|k|/b}: the
   same with dpcheck's ``geometric`` (two-sided geometric, α = e^{-1/b}).
c. ``make_gaussian`` (output measure zCDP, ρ = map(1)) turned into (ε, δ) by
   OpenDP's own ``make_zCDP_to_approxDP`` (the curve's ``epsilon(δ)``); exact:
   ε(δ) of ``gaussian`` (:func:`~dpcheck.numeric.profile.epsilon_for_delta`,
   the analytic Gaussian mechanism of Balle and Wang 2018), and the exact δ at
   OpenDP's ε must not exceed OpenDP's δ.
d. ``make_randomized_response_bool(p)``: a pure ε; exact: derived here from the
   two-point law (keep the bit with probability p) by enumerating the four events
   of {True, False} with Fractions (:func:`rr_exact`).

A claim is safe when it is at least the exact value; it *understates* the privacy
loss (a finding) when it is below the exact value by more than ``RTOL`` relative.
OpenDP's scale is taken as the float it receives, converted exactly to a
Fraction, so a decimal scale such as 0.3 is compared at the float OpenDP used.
The float mechanisms of OpenDP sample on a grid (its proofs bound that); the exact
values here are those of the ideal continuous laws.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import ModuleType

import mpmath
from mpmath import mpf

from dpcheck.errors import InputError
from dpcheck.numeric import profile as P
from dpcheck.peers import randomized_response

#: a claim below the exact value by more than this (relative) is a finding
RTOL = mpf("1e-12")
#: working precision (decimal digits) of the exact side
DPS = 40
#: the points compared by default (issue 19 / the lead's brief)
LAPLACE_SCALES = (0.5, 1.0, 2.0)
GAUSSIAN_SCALES = (0.5, 1.0, 2.0)
GAUSSIAN_DELTAS = (1e-6, 1e-9)
RR_PROBS = (0.6, 0.75, 0.9, 0.99)
#: the factor below the claim at which δ must already be positive (the claim is tight)
BELOW = Fraction(999, 1000)

SAFE = "safe"
FINDING = "FINDING: understates"

_PIP = "opendp is not installed: pip install 'dpcheck[peers]'"


def _library() -> ModuleType:
    """``opendp.prelude`` with the "contrib" feature on, or an InputError."""
    try:
        import opendp.prelude as dp
    except ImportError:
        raise InputError(_PIP) from None
    dp.enable_features("contrib")
    return dp


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("opendp")
    except PackageNotFoundError:  # pragma: no cover - imported but not installed
        return "unknown"


# ---------------------------------------------------------------------------- rows


@dataclass
class Row:
    """One privacy claim of OpenDP next to dpcheck's exact value."""

    family: str
    parameters: str
    claim: mpf
    claim_text: str
    exact: mpf
    gap: mpf
    verdict: str
    check: str
    reproduce: str

    @property
    def finding(self) -> bool:
        return self.verdict != SAFE

    def as_dict(self) -> dict[str, object]:
        return {
            "family": self.family,
            "parameters": self.parameters,
            "opendp": self.claim_text,
            "exact": _txt(self.exact),
            "relative gap": _txt(self.gap, 6),
            "ratio": _txt(self.claim / self.exact, 15) if self.exact else "-",
            "verdict": self.verdict,
            "check": self.check,
            "reproduce": self.reproduce,
        }


def _txt(v: mpf, digits: int = 16) -> str:
    if v == mpmath.inf:
        return "inf"
    return mpmath.nstr(v, digits, min_fixed=-4, max_fixed=6)


def _exact_mpf(x: float | Fraction) -> mpf:
    f = Fraction(x)
    return mpf(f.numerator) / f.denominator


def relative_gap(claim: mpf, exact: mpf) -> mpf:
    """(claim - exact) / exact: positive = conservative, negative = understated."""
    with mpmath.workdps(DPS):
        if exact == 0:
            return mpf(0) if claim == 0 else mpmath.inf
        return (claim - exact) / exact


def verdict(claim: mpf, exact: mpf, rtol: mpf = RTOL) -> str:
    """'safe' unless the claim is below the exact value by more than ``rtol`` relative."""
    with mpmath.workdps(DPS):
        return FINDING if claim < exact * (1 - rtol) else SAFE


def _py(setup: str, expr: str) -> str:
    return (
        "python -c \"import opendp.prelude as dp; dp.enable_features('contrib'); "
        f'{setup}; print({expr})"'
    )


def _domain(integer: bool) -> str:
    if integer:
        return "dp.atom_domain(T=int), dp.absolute_distance(T=int)"
    return "dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)"


def laplace_row(scale: float, integer: bool = False, claim: float | None = None) -> Row:
    """a./b.: OpenDP's pure ε of ``make_laplace`` at d_in = 1 vs Δ/scale (dpcheck's
    ``laplace`` for floats, ``geometric`` = discrete Laplace for integers), with the
    profile confirming it: δ(claim) = 0 and δ(0.999·claim) > 0.

    ``claim`` replaces OpenDP's number (the tests use it to check the verdict)."""
    dp = _library()
    T = int if integer else float
    setup = f"m = dp.m.make_laplace({_domain(integer)}, {scale!r})"
    d_in = T(1)
    if claim is None:
        domain = dp.atom_domain(T=int) if integer else dp.atom_domain(T=float, nan=False)
        m = dp.m.make_laplace(domain, dp.absolute_distance(T=T), scale)
        claim = float(m.map(d_in))
    nb = P.neighbours("geometric" if integer else "laplace", sensitivity=1, scale=Fraction(scale))
    with mpmath.workdps(DPS):
        exact = P.pure_epsilon(nb).upper
        c = _exact_mpf(claim)
        at = P.delta_for_epsilon(nb, Fraction(claim)) if claim > 0 else None
        below = P.delta_for_epsilon(nb, Fraction(claim) * BELOW) if claim > 0 else None
        parts = []
        if at is not None and below is not None:
            parts.append(f"exact delta at opendp's eps: {P._round_up(at.upper)}")
            parts.append(f"at 0.999 x eps: {P._round_down(below.lower)}")
            tight = at.upper == 0 and below.lower > 0
            parts.append("pure and tight" if tight else "NOT pure-and-tight")
        v = verdict(c, exact)  # δ(claim) > 0 iff claim < exact: the check only confirms
        return Row(
            "laplace (int = discrete)" if integer else "laplace (float)",
            f"scale={scale!r}, d_in=1",
            c,
            f"eps={claim!r}",
            exact,
            relative_gap(c, exact),
            v,
            "; ".join(parts),
            _py(setup, f"m.map({d_in!r})"),
        )


def gaussian_row(scale: float, delta: float, claim: float | None = None) -> Row:
    """c.: OpenDP's ε at ``delta`` from ``make_zCDP_to_approxDP(make_gaussian(...))``
    vs the exact ε(δ) of the Gaussian (Balle and Wang 2018); also the exact δ at
    OpenDP's ε, which must not exceed ``delta``.

    ``claim`` replaces OpenDP's ε (the tests use it to check the verdict)."""
    dp = _library()
    setup = (
        f"g = dp.m.make_gaussian({_domain(False)}, {scale!r}); m = dp.c.make_zCDP_to_approxDP(g)"
    )
    g = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale)
    rho = float(g.map(1.0))
    if claim is None:
        claim = float(dp.c.make_zCDP_to_approxDP(g).map(1.0).epsilon(delta))
    nb = P.neighbours("gaussian", sensitivity=1, scale=Fraction(scale))
    with mpmath.workdps(DPS):
        e = P.epsilon_for_delta(nb, Fraction(delta))
        exact = e.upper
        c = _exact_mpf(claim)
        at = P.delta_for_epsilon(nb, Fraction(claim))
        d = _exact_mpf(delta)
        v = verdict(c, e.lower if e.lower > 0 else exact)
        if at.lower > d * (1 + RTOL):
            v = FINDING  # the exact δ at OpenDP's ε exceeds the δ OpenDP promises
        slack = d / at.upper if at.upper > 0 else mpmath.inf
        check = (
            f"rho={rho!r}; exact delta at opendp's eps: {P._round_up(at.upper)}"
            f" (<= {delta!r}: {at.upper <= d}; delta ratio {_txt(slack, 6)});"
            f" exact eps in [{P._round_down(e.lower)}, {P._round_up(e.upper)}]"
        )
        return Row(
            "gaussian (zCDP -> approxDP)",
            f"scale={scale!r}, d_in=1, delta={delta!r}",
            c,
            f"eps={claim!r} (rho={rho!r})",
            exact,
            relative_gap(c, exact),
            v,
            check,
            _py(setup, f"m.map(1.0).epsilon({delta!r})"),
        )


# ------------------------------------------------------------------- randomized response


def rr_exact(p: Fraction) -> tuple[Fraction | None, object]:
    """The pure ε of randomized response (keep probability p) as exp(ε) = sup_E P(E)/Q(E),
    a Fraction (None when infinite), and δ(ε) as a function, both from the exact two-point
    laws (:mod:`dpcheck.peers.randomized_response`)."""

    def delta(eps: mpf) -> mpf:
        return randomized_response.delta(p, eps)

    return randomized_response.pure_ratio(p), delta


def rr_row(prob: float, claim: float | None = None) -> Row:
    """d.: OpenDP's pure ε of ``make_randomized_response_bool(prob)`` vs the exact ε of
    :func:`rr_exact` at the float ``prob`` OpenDP received; δ(claim) = 0 and
    δ(0.999·claim) > 0 confirm it."""
    dp = _library()
    if claim is None:
        claim = float(dp.m.make_randomized_response_bool(prob).map(1))
    with mpmath.workdps(DPS):
        ratio, delta = rr_exact(Fraction(prob))
        exact = mpmath.inf if ratio is None else mpmath.log(_exact_mpf(ratio))
        c = _exact_mpf(claim)
        at, below = delta(c), delta(c * _exact_mpf(BELOW))
        v = verdict(c, exact)  # δ(claim) > 0 iff claim < exact: the check only confirms
        check = (
            f"exp(eps) = {ratio} (events enumerated); delta at opendp's eps:"
            f" {P._round_up(at)}; at 0.999 x eps: {P._round_down(below)}"
        )
        return Row(
            "randomized response (bool)",
            f"prob={prob!r}, d_in=1",
            c,
            f"eps={claim!r}",
            exact,
            relative_gap(c, exact),
            v,
            check,
            _py(f"m = dp.m.make_randomized_response_bool({prob!r})", "m.map(1)"),
        )


def rows() -> list[Row]:
    """Every default row, in the order of the module docstring (a, b, c, d)."""
    out = [laplace_row(s) for s in LAPLACE_SCALES]
    out += [laplace_row(s, integer=True) for s in LAPLACE_SCALES]
    out += [gaussian_row(s, d) for s in GAUSSIAN_SCALES for d in GAUSSIAN_DELTAS]
    out += [rr_row(p) for p in RR_PROBS]
    return out


# ---------------------------------------------------------------------------- report


def ranked(rs: Sequence[Row]) -> list[Row]:
    """Findings first (most understated first), then the rest in their order."""
    findings = sorted((r for r in rs if r.finding), key=lambda r: r.gap)
    return findings + [r for r in rs if not r.finding]


def summary(rs: Sequence[Row]) -> dict[str, object]:
    families: dict[str, dict[str, object]] = {}
    for r in rs:
        f = families.setdefault(r.family, {"rows": 0, "findings": 0, "gaps": []})
        f["rows"] += 1  # type: ignore[operator]
        f["findings"] += r.finding  # type: ignore[operator]
        f["gaps"].append(r.gap)  # type: ignore[union-attr]
    out: dict[str, object] = {}
    for name, f in families.items():
        gaps = f.pop("gaps")
        f["smallest relative gap"] = _txt(min(gaps), 6)  # type: ignore[type-var]
        f["largest relative gap"] = _txt(max(gaps), 6)  # type: ignore[type-var]
        out[name] = f
    return {
        "opendp": _version(),
        "rows": len(rs),
        "findings": sum(r.finding for r in rs),
        "rule": "FINDING when opendp's epsilon is below the exact by more than"
        f" {mpmath.nstr(RTOL, 3)} relative (or the exact delta at it exceeds its delta)",
        "families": out,
    }


def _print_table(rs: Sequence[Row], summ: dict[str, object]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(width=None if sys.stdout.isatty() else 220, soft_wrap=False)
    console.print(
        f"OpenDP {summ['opendp']} privacy maps vs dpcheck's exact values.  gap ="
        " (opendp - exact) / exact; FINDING when opendp's epsilon is below the exact by"
        f" more than {mpmath.nstr(RTOL, 3)} relative.",
        highlight=False,
        markup=False,
    )
    table = Table(title="OpenDP: findings first", show_lines=True)
    for col in ("family", "parameters", "opendp", "exact", "gap", "verdict", "check"):
        table.add_column(col, overflow="fold")
    table.add_column("reproduce", overflow="fold", no_wrap=False)
    for r in rs:
        d = r.as_dict()
        cells = (
            r.family,
            r.parameters,
            r.claim_text,
            d["exact"],
            d["relative gap"],
            r.verdict,
            r.check,
            r.reproduce,
        )
        table.add_row(*(Text(str(c)) for c in cells))
    console.print(table)
    fams = summ["families"]
    assert isinstance(fams, dict)
    for name, f in fams.items():
        console.print(
            f"{name}: {f['rows']} checked, {f['findings']} findings, relative gap"
            f" {f['smallest relative gap']} .. {f['largest relative gap']}",
            highlight=False,
            markup=False,
        )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``dpcheck compare opendp``."""
    parser.add_argument("--json", action="store_true", help="JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    """Compare, print the table (or JSON); 1 when any claim understates, else 0."""
    _library()
    rs = ranked(rows())
    summ = summary(rs)
    if getattr(args, "json", False):
        print(
            json.dumps(
                {"rows": [r.as_dict() for r in rs], "summary": summ}, indent=2, ensure_ascii=False
            )
        )
    else:
        _print_table(rs, summ)
    return 1 if any(r.finding for r in rs) else 0
