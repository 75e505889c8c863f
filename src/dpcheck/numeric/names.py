"""The names of the mechanisms and their quantities: 'truncated-gaussian.mean',
'clamped-geometric.var', and Liu's 'truncated.mean', 'bit.mse' (Liu 2019, §3).

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


# ---------------------------------------------------------------------------
# the general mechanism algebra: <bounding>-<base>.<quantity> (DESIGN.md, "Mechanisms")
# ---------------------------------------------------------------------------

#: base noise laws and the name of their scale parameter
BASES = {"laplace": "lam", "gaussian": "sigma", "geometric": "scale"}
#: boundings; "none" is written as the bare base name ("gaussian")
BOUNDINGS = ("truncated", "clamped", "folded", "none")
#: combinations with no derivation, and why
UNAVAILABLE = {
    "folded-gaussian": (
        "folding is derived for the Laplace base only (its images sum to geometric"
        " series; the Gaussian's sum to a theta function with no closed form)"
    ),
    "folded-geometric": "folding is derived for the Laplace base only",
}
#: every mechanism, in a stable order
MECHANISM_NAMES = tuple(
    base if bounding == "none" else f"{bounding}-{base}"
    for base in BASES
    for bounding in BOUNDINGS
    if f"{bounding}-{base}" not in UNAVAILABLE
)
#: Liu's names for two of them (Definition 2(a), 2(b))
ALIASES = {"truncated": "truncated-laplace", "bit": "clamped-laplace"}
#: back from the general names to Liu's, where the older engine paths are keyed by them
LIU_NAMES = {v: k for k, v in ALIASES.items()}
#: quantities of every mechanism: the moments, the normaliser P(c0 <= X <= c1),
#: the CDF at y and the quantile at p (numeric inversion)
GENERAL_QUANTITIES = (
    "normaliser",
    "mean",
    "bias",
    "second_moment",
    "var",
    "mse",
    "cdf",
    "quantile",
)
#: every "<mechanism>.<quantity>" name (aliases not repeated)
ALL_NAMES = tuple(f"{m}.{q}" for m in MECHANISM_NAMES for q in GENERAL_QUANTITIES)


def canonical_mechanism(name: object) -> str:
    """'truncated-gaussian' (or an alias such as 'bit') → its canonical name.

    InputError naming the value and the known mechanisms otherwise.
    """
    if not isinstance(name, str):
        raise InputError(f"mechanism {name!r} must be a string such as 'truncated-gaussian'")
    key = ALIASES.get(name, name)
    if key in MECHANISM_NAMES:
        return key
    if key in UNAVAILABLE:
        raise InputError(f"{key} is not available: {UNAVAILABLE[key]}")
    from dpcheck.inputs.numbers import shown

    raise InputError(
        f"unknown mechanism {shown(name)} (expected <bounding>-<base> with bounding one of"
        f" truncated, clamped, folded and base one of {', '.join(BASES)}; or a bare base;"
        " or truncated, bit)"
    )


def parts(mechanism: str) -> tuple[str, str]:
    """'truncated-gaussian' → ('truncated', 'gaussian'); 'gaussian' → ('none', 'gaussian')."""
    key = canonical_mechanism(mechanism)
    bounding, _, base = key.rpartition("-")
    return (bounding or "none"), base


def resolve(name: object) -> tuple[str, str]:
    """'truncated-gaussian.mean' or 'bit.mse' → (canonical mechanism, quantity).

    InputError for an unknown mechanism or quantity, naming the value.
    """
    if not isinstance(name, str) or "." not in name:
        from dpcheck.inputs.numbers import shown

        raise InputError(
            f"quantity {shown(name)} is not of the form <mechanism>.<quantity>"
            " (e.g. truncated-gaussian.mean)"
        )
    mechanism, _, quantity = name.partition(".")
    try:
        key = canonical_mechanism(mechanism)
    except InputError as exc:
        from dpcheck.inputs.numbers import shown

        raise InputError(f"unknown quantity {shown(name)}: {exc}") from None
    if quantity not in GENERAL_QUANTITIES:
        from dpcheck.inputs.numbers import shown

        raise InputError(
            f"unknown quantity {shown(quantity)} of {key} (expected one of:"
            f" {', '.join(GENERAL_QUANTITIES)})"
        )
    return key, quantity


__all__ = [
    "ALIASES",
    "ALL_NAMES",
    "BASES",
    "BOUNDINGS",
    "GENERAL_QUANTITIES",
    "LIU_NAMES",
    "MECHANISMS",
    "MECHANISM_NAMES",
    "QUANTITIES",
    "QUANTITY_NAMES",
    "UNAVAILABLE",
    "canonical_mechanism",
    "check_mechanism",
    "parts",
    "resolve",
    "split_name",
]
