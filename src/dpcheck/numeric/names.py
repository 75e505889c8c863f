"""The names of the derived quantities: 'truncated.mean', 'bit.mse', ... (Liu 2019, §3).

Kept free of SymPy so that the float64 fast path imports quickly; the symbolic
layer's :data:`dpcheck.symbolic.laplace_family.QUANTITIES` is the same list
(tests/test_fast_path.py checks it).
"""

from __future__ import annotations

from dpcheck.errors import InputError

MECHANISMS = ("truncated", "bit")
QUANTITIES = ("mean", "bias", "second_moment", "var", "mse")
#: the quantities `dpcheck eval` and the fast path know, as "mechanism.name"
QUANTITY_NAMES = tuple(f"{m}.{q}" for m in MECHANISMS for q in QUANTITIES)


def split_name(name: str) -> tuple[str, str]:
    """'truncated.mean' → ('truncated', 'mean'); InputError for an unknown name."""
    if name not in QUANTITY_NAMES:
        raise InputError(
            f"unknown quantity {name!r} (expected one of: {', '.join(QUANTITY_NAMES)})"
        )
    mechanism, _, quantity = name.partition(".")
    return mechanism, quantity


def check_mechanism(mechanism: object) -> str:
    """'truncated' or 'bit' (Definition 2(a), 2(b)); InputError otherwise."""
    if mechanism not in MECHANISMS:
        raise InputError(f"unknown mechanism {mechanism!r} (expected one of: truncated, bit)")
    return str(mechanism)


__all__ = ["MECHANISMS", "QUANTITIES", "QUANTITY_NAMES", "check_mechanism", "split_name"]
