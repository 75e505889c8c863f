"""The quantities of a law object by name, at exact parameters and a precision (issue 35).

:func:`evaluate` answers ``mean``, ``var``, ``second_moment``, ``cdf``, ``sf``, ``pmf`` /
``pdf`` and ``quantile`` of a noise law (:mod:`dpcheck.laws.numeric`);
:func:`evaluate_bounded` the moments and CDF of ``<bounding>-<law>``
(:mod:`dpcheck.laws.bounded`); :func:`is_law_name` and :func:`bounded_name` say which
names the law objects serve.  Shared by the CLI (:mod:`dpcheck.laws.cli`), the Python
face (:mod:`dpcheck.laws`) and ``dpcheck.testing``.
"""

from __future__ import annotations

from fractions import Fraction

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, short
from dpcheck.laws import registry
from dpcheck.laws.noise import NoiseLaw
from dpcheck.laws.numeric import Ball, Evaluator, arb_of, precision

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
BOUNDED_QUANTITIES = ("normaliser", "mean", "bias", "second_moment", "var", "mse", "cdf")


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
    for key in ("s", "c0", "c1") + (("y",) if quantity == "cdf" else ()):
        if key not in values:
            raise InputError(f"{bounding}-{law.name}.{quantity} needs {key}=..")
        where[key] = parse_number(key, values.pop(key))
    params = law.parse(values)
    with precision(dps):
        b = Bounded(law, params, bounding, where["s"], where["c0"], where["c1"])
        ball = b.output_cdf(where["y"]) if quantity == "cdf" else b.quantity(quantity)
        if not (ball.is_zero() or ball.rel_accuracy_bits() >= dps * 3.33):
            raise InputError(
                f"{bounding}-{law.name}.{quantity}: the certified ball is not narrow enough"
                f" for {dps} digits (expected other parameters or fewer digits)"
            )
    shown = {k: short(v) for k, v in {**where, **params}.items()}
    return Ball(ball, "bounded law: closed-form pieces in ball arithmetic"), shown


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
    if ev.law.is_lattice:
        lo, hi = Fraction(int(lo) - 1), Fraction(int(hi) + 1)
        while hi - lo > 1:
            mid = Fraction((lo + hi) // 2)
            if ev.cdf(mid).ball >= target:
                hi = mid
            else:
                lo = mid
        return Ball(arb_of(hi), "bisection on the certified CDF")
    for _ in range(int(dps * 3.33) + 60):
        mid = (lo + hi) / 2
        c = ev.cdf(mid).ball
        if c >= target:
            hi = mid
        elif c < target:
            lo = mid
        else:
            break
    return Ball(arb_of(lo).union(arb_of(hi)), "bisection on the certified CDF")
