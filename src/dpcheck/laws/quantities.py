"""The quantities of a law object by name, at exact parameters and a precision (issue 35).

:func:`evaluate` answers ``mean``, ``var``, ``second_moment``, ``cdf``, ``sf``, ``pmf`` /
``pdf`` and ``quantile`` of a noise law (:mod:`dpcheck.laws.numeric`);
:func:`evaluate_bounded` the moments, CDF and quantile of ``<bounding>-<law>``
(:mod:`dpcheck.laws.bounded`); :func:`is_law_name` and :func:`bounded_name` say which
names the law objects serve.  Shared by the CLI (:mod:`dpcheck.laws.cli`), the Python
face (:mod:`dpcheck.laws`) and ``dpcheck.testing``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING

import flint
import mpmath

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, short
from dpcheck.laws import registry
from dpcheck.laws.narrowing import narrow_to_point
from dpcheck.laws.noise import NoiseLaw
from dpcheck.laws.numeric import Ball, Evaluator, arb_of, precision, to_mpf

if TYPE_CHECKING:
    from dpcheck.laws.bounded import Bounded

#: the quantities ``eval`` knows for a law, and the extra argument each needs
QUANTITIES = {
    "mean": None,
    "var": None,
    "second_moment": None,
    "cdf": "y",
    "sf": "y",
    "pmf": "z",
    "pdf": "z",
    "quantile": "p",
}


def is_law_name(name: object) -> bool:
    """Whether ``name`` is served by the law objects (not the mechanism algebra's names):
    a shipped law, or ``<bounding>-<law>`` such as ``folded-gaussian``."""
    from dpcheck.numeric.names import MECHANISM_NAMES

    if not isinstance(name, str) or name in MECHANISM_NAMES:
        return False
    return name in registry.LAWS or bounded_name(name) is not None


def bounded_name(name: str) -> tuple[str, NoiseLaw] | None:
    """'folded-gaussian' -> ('folded', the Gaussian law); None for anything else."""
    from dpcheck.laws.bounded import BOUNDINGS

    bounding, _, base = name.partition("-")
    if bounding in BOUNDINGS and base in registry.LAWS:
        return bounding, registry.LAWS[base]
    return None


#: the quantities of a bounded law
BOUNDED_QUANTITIES = ("normaliser", "mean", "bias", "second_moment", "var", "mse", "cdf",
                      "quantile")


def evaluate_bounded(
    bounding: str, law: NoiseLaw, quantity: str, values: dict[str, str], dps: int
) -> tuple[Ball, dict]:
    """A quantity of ``law`` bounded into [c0, c1] at input s (:mod:`dpcheck.laws.bounded`)."""
    from dpcheck.laws.bounded import Bounded

    if quantity not in BOUNDED_QUANTITIES:
        raise InputError(
            f"unknown quantity {quantity!r} of {bounding}-{law.name} (expected one of:"
            f" {', '.join(BOUNDED_QUANTITIES)})"
        )
    values = dict(values)
    where = {}
    extra = {"cdf": ("y",), "quantile": ("p",)}.get(quantity, ())
    for key in ("s", "c0", "c1") + extra:
        if key not in values:
            raise InputError(f"{bounding}-{law.name}.{quantity} needs {key}=..")
        where[key] = parse_number(key, values.pop(key))
    params = law.parse(values)
    if quantity == "quantile" and not 0 < where["p"] < 1:
        raise InputError(f"p={short(where['p'])}: expected 0 < p < 1")
    how = "bounded law: closed-form pieces in ball arithmetic"
    with precision(dps):
        b = Bounded(law, params, bounding, where["s"], where["c0"], where["c1"])
        if quantity == "cdf":
            ball = b.output_cdf(where["y"])
        elif quantity == "quantile":  # guard digits: the root is as narrow as the CDF
            with precision(dps + 10):
                b = Bounded(law, params, bounding, where["s"], where["c0"], where["c1"])
                found = bounded_quantile(b, where["p"], dps + 10)
            ball, how = found.ball, found.how
        else:
            ball = b.quantity(quantity)
        if not (ball.is_zero() or ball.rel_accuracy_bits() >= dps * 3.33):
            raise InputError(
                f"{bounding}-{law.name}.{quantity}: the certified ball is not narrow enough"
                f" for {dps} digits (expected other parameters or fewer digits)"
            )
    shown = {k: short(v) for k, v in {**where, **params}.items()}
    return Ball(ball, how), shown


def evaluate(law: NoiseLaw, quantity: str, values: dict[str, str], dps: int) -> tuple[Ball, dict]:
    """(the ball, the parameters shown) of ``law.quantity`` at ``dps`` digits."""
    if quantity not in QUANTITIES:
        raise InputError(
            f"unknown quantity {quantity!r} of {law.name} (expected one of:"
            f" {', '.join(QUANTITIES)})"
        )
    extra = QUANTITIES[quantity]
    if quantity == "pmf" and not law.is_lattice or quantity == "pdf" and law.is_lattice:
        raise InputError(f"{law.name} has a {'pmf' if law.is_lattice else 'pdf'}, not a {quantity}")
    values = dict(values)
    at = None
    if extra is not None:
        if extra not in values:
            raise InputError(f"{law.name}.{quantity} needs {extra}=..")
        at = parse_number(extra, values.pop(extra))
    params = law.parse(values)
    with precision(dps):
        ev = Evaluator(law, params)
        if quantity == "mean":
            ball = ev.mean()
        elif quantity == "var":
            ball = ev.var()
        elif quantity == "second_moment":
            ball = ev.moment(2)
        elif quantity == "cdf":
            ball = ev.cdf(at)
        elif quantity == "sf":
            ball = ev.sf(at)
        elif quantity in ("pmf", "pdf"):
            if law.is_lattice and at.denominator != 1:
                raise InputError(
                    f"z={short(at)}: expected an integer ({law.name} is on the integers)"
                )
            ball = ev.pmf(at)
        else:
            if not 0 < at < 1:
                raise InputError(f"p={short(at)}: expected 0 < p < 1")
            ball = quantile(ev, at, dps)
        narrow = ball.ball.is_zero() or ball.ball.rel_accuracy_bits() >= dps * 3.33
        if ball.certified and not narrow:
            raise InputError(
                f"{law.name}.{quantity}: the certified ball is not narrow enough for {dps}"
                " digits (a value too small or too large to resolve; expected other"
                " parameters or fewer digits)"
            )
    shown = {k: short(v) for k, v in params.items()}
    if at is not None:
        shown[extra] = short(at)
    return ball, shown


def quantile(ev: Evaluator, p: Fraction, dps: int) -> Ball:
    """The smallest y with F(y) >= p: bisection on the certified CDF."""
    target = arb_of(p)
    scale = ev.values[ev.law.scale]
    lo, hi = -scale, scale
    while not ev.cdf(lo).ball < target:
        lo *= 2
    while not ev.cdf(hi).ball >= target:
        hi *= 2
    return _inverse(lambda y: ev.cdf(y).ball, target, lo, hi, ev.law.is_lattice, dps)


def bounded_quantile(b: Bounded, p: Fraction, dps: int) -> Ball:
    """The smallest y in [c0, c1] with P(Y <= y) >= p for a bounded law (the generalised
    inverse: c0 itself when a clamp's atom there holds p), by bisection on the certified
    output CDF (:meth:`dpcheck.laws.bounded.Bounded.output_cdf`)."""
    target = arb_of(p)
    if b.output_cdf(b.c0) >= target:
        return Ball(arb_of(b.c0), "the atom at c0 holds p")
    return _inverse(b.output_cdf, target, b.c0, b.c1, b.law.is_lattice, dps)


def _inverse(cdf: Callable[[Fraction], flint.arb], target: flint.arb, lo: Fraction,
             hi: Fraction, lattice: bool, dps: int) -> Ball:
    """The smallest y in (lo, hi] with cdf(y) >= target, given cdf(lo) < target <=
    cdf(hi): integer bisection on a lattice (exact); on the line, the Illinois regula
    falsi of :mod:`dpcheck.laws.narrowing` on the CDF's midpoints to ``dps`` digits (each
    probe a certified decision, about 50 bits per probe instead of bisection's one), then,
    where a probe is undecided, each end bisected towards it: the ball holds every y the
    certified CDF cannot tell apart from the root."""
    if lattice:
        lo, hi = Fraction(math.floor(lo) - 1), Fraction(math.ceil(hi) + 1)
        while hi - lo > 1:
            mid = Fraction((lo + hi) // 2)
            if cdf(mid) >= target:
                hi = mid
            else:
                lo = mid
        return Ball(arb_of(hi), "bisection on the certified CDF")

    def judge(y: Fraction) -> tuple[bool | None, mpmath.mpf]:
        c = cdf(y)
        gap = to_mpf((target - c).mid())  # positive below the root; below 1e-308 at 1000 digits
        return (True if c >= target else False if c < target else None), gap

    g_lo, g_hi = judge(lo)[1], judge(hi)[1]
    tol = Fraction(1, 10 ** (dps + 2))
    lo, hi, _, point = narrow_to_point(lo, hi, tol, judge, g_lo, g_hi)
    if point is not None:  # undecided there: narrow each end towards it separately
        left = right = point
        for _ in range(int(dps * 3.33) + 60):
            if hi - lo <= tol * max(abs(lo), abs(hi)):
                break
            m = (lo + left) / 2
            if cdf(m) < target:
                lo = m
            else:
                left = m
            m = (right + hi) / 2
            if cdf(m) >= target:
                hi = m
            else:
                right = m
    return Ball(arb_of(lo).union(arb_of(hi)),
                "regula falsi (Illinois) and bisection on the certified CDF")
