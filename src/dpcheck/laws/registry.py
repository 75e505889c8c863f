"""The shipped noise laws by name, and a user's own law (issue 35).

``get("discrete-gaussian")`` returns the law object; :func:`law` builds a
user's law from a density or pmf given as a SymPy expression or as LaTeX
(read by the safe parser of :mod:`dpcheck.formula.latex_parser`, never
sympify), with its parameters ``"b>0"``-style.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Mapping, Sequence

import sympy as sp

from dpcheck.errors import InputError
from dpcheck.laws.noise import NoiseLaw, Param, Support, k, z

#: the shipped laws' names and the module (under dpcheck.laws) that defines each as ``LAW``
SHIPPED = {
    "laplace": "laplace",
    "gaussian": "gaussian",
    "discrete-laplace": "discrete_laplace",
    "discrete-gaussian": "discrete_gaussian",
    "staircase": "staircase",
    "uniform": "uniform",
}


class _Shipped(Mapping[str, NoiseLaw]):
    """The shipped laws by name, each built on first use: a law checks its kernel with
    SymPy when it is built (about 0.1-0.5 s each), which a command that only lists the
    names (``dpcheck --help``, every refusal) should not pay."""

    def __getitem__(self, name: str) -> NoiseLaw:
        if name not in SHIPPED:
            raise KeyError(name)
        law: NoiseLaw = importlib.import_module(f"dpcheck.laws.{SHIPPED[name]}").LAW
        return law

    def __iter__(self) -> Iterator[str]:
        return iter(SHIPPED)

    def __len__(self) -> int:
        return len(SHIPPED)


LAWS: Mapping[str, NoiseLaw] = _Shipped()


#: the mechanism algebra's base names that name a shipped law differently (its
#: "geometric" is the two-sided geometric, the discrete Laplace); gone with that algebra
ALGEBRA_BASES = {"geometric": "discrete-laplace"}


def of_base(base: str) -> NoiseLaw:
    """The shipped law of a base name of the mechanism algebra."""
    return get(ALGEBRA_BASES.get(base, base))


def get(name: str | NoiseLaw) -> NoiseLaw:
    """A shipped law by name (or the law itself); one-line InputError otherwise."""
    if isinstance(name, NoiseLaw):
        return name
    if name not in LAWS:
        raise InputError(f"unknown noise law {name!r} (expected one of: {', '.join(LAWS)})")
    return LAWS[name]


_PARAM = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*(>=|>)\s*0\s*$")


def parse_param(text: str) -> Param:
    """'b>0' -> Param('b', 'positive'); 'g>=0' -> nonnegative."""
    m = _PARAM.match(text)
    if not m:
        raise InputError(f"--param {text!r}: expected NAME>0 or NAME>=0 (e.g. b>0)")
    return Param(m.group(1), "positive" if m.group(2) == ">" else "nonnegative")


def law(
    density: str | sp.Expr,
    support: Support = "real",
    params: Sequence[str | Param] = (),
    scale: str | None = None,
    name: str = "user law",
) -> NoiseLaw:
    """A user's noise law: ``density`` (or pmf) in the offset z, LaTeX or SymPy.

    ``params`` are ``Param`` objects or ``"b>0"`` texts; ``scale`` defaults to
    the first parameter.  LaTeX is read by the restricted parser with the
    offset ``z`` and the parameters as the only symbols.
    """
    if support not in ("real", "integers"):
        raise InputError(f"support {support!r}: expected 'real' or 'integers'")
    ps = tuple(p if isinstance(p, Param) else parse_param(p) for p in params)
    if not ps:
        raise InputError("a law needs at least one parameter (its scale), e.g. params=['b>0']")
    variable = z if support == "real" else k
    if isinstance(density, str):
        from dpcheck.formula.latex_parser import parse_latex

        notation = {"z": variable, "e": sp.E, **{p.name: p.symbol for p in ps}}
        density = parse_latex(density, notation).expr
    elif isinstance(density, sp.Basic):
        density = density.subs({sp.Symbol("z"): variable, sp.Symbol("z", real=True): variable})
    else:
        raise InputError(f"density {density!r}: expected LaTeX text or a SymPy expression")
    return NoiseLaw(name, density, support, ps, scale or ps[0].name, source="user-defined")
