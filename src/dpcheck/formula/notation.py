r"""The reviewer's notation: which LaTeX symbol of a pasted formula is which parameter.

Every mechanism of the algebra (DESIGN.md, "Mechanisms"; issue 18) has the
parameters ``s`` (the statistic), the bounds ``c0 < c1`` (not for an
unbounded base) and a scale: λ (Laplace, ``lam``), σ (Gaussian, ``sigma``),
or for the two-sided geometric law either its scale ``b`` or α = e^{-1/b}
(``alpha``).  The default notation writes them ``s``, ``c_0``, ``c_1``,
``\lambda``, ``\sigma``, ``\alpha``, ``b``; ``e`` is Euler's number.

A reviewer's own names are given as ``'\theta=s,b=lam,l=c0,u=c1'`` (the CLI's
``--notation``) or as a mapping ``{'\theta': 's', ...}`` (the API).  The
string is read by :func:`parse_mapping`, a small hand-written scanner (no
``eval``, no SymPy parsing): items separated by commas, each ``SYMBOL=PARAMETER``
with SYMBOL one letter or one Greek-letter command, optionally with a
subscript (``x_0``, ``x_{max}``), exactly as the formula writes it.  A
renamed parameter loses its default name (with ``\theta=s`` a bare ``s`` in
the formula is a symbol of its own).  Every error is one
:class:`~dpcheck.errors.InputError` line naming the item.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import sympy as sp

from dpcheck.errors import InputError
from dpcheck.formula.latex_parser import _GREEK, _show
from dpcheck.numeric.names import parts
from dpcheck.symbolic.symbols import alpha, c0, c1, lam, s, scale, sigma

#: the longest --notation string accepted
MAX_MAPPING_CHARS = 1000
#: the most items in one mapping
MAX_ITEMS = 20

#: the parameter words a mapping may name, per base, with the symbol each stands for
_BOUNDS = {"c0": c0, "c_0": c0, "c1": c1, "c_1": c1}
_SCALES: dict[str, dict[str, sp.Symbol]] = {
    "laplace": {"lam": lam, "lambda": lam, "scale": lam},
    "gaussian": {"sigma": sigma, "scale": sigma},
    "geometric": {"alpha": alpha, "b": scale, "scale": scale},
}
#: the default LaTeX name of each parameter symbol
DEFAULT_NAMES: Mapping[sp.Symbol, str] = MappingProxyType(
    {s: "s", c0: "c_0", c1: "c_1", lam: "\\lambda", sigma: "\\sigma", alpha: "\\alpha", scale: "b"}
)
#: the canonical word of each parameter symbol (``dpcheck eval``'s names)
WORDS: Mapping[sp.Symbol, str] = MappingProxyType(
    {s: "s", c0: "c0", c1: "c1", lam: "lam", sigma: "sigma", alpha: "alpha", scale: "scale"}
)
#: names that are not symbols: Euler's number and the built-ins of the parser
RESERVED = frozenset({"e", "\\pi"})


def parameters(mechanism: str) -> dict[str, sp.Symbol]:
    """The parameter words of ``mechanism`` (any spelling) and their symbols."""
    bounding, base = parts(mechanism)
    out: dict[str, sp.Symbol] = {"s": s}
    if bounding != "none":
        out.update(_BOUNDS)
    out.update(_SCALES[base])
    return out


def parameter_symbols(mechanism: str) -> tuple[sp.Symbol, ...]:
    """The distinct parameter symbols of ``mechanism`` in a stable order."""
    return tuple(dict.fromkeys(parameters(mechanism).values()))


@dataclass(frozen=True)
class Notation:
    """A mechanism's notation: the parser's table and the way back for reports.

    ``table`` maps each LaTeX name the formula may use to its SymPy value (the
    ``notation`` argument of :func:`~dpcheck.formula.latex_parser.parse_latex`);
    ``names`` maps each parameter symbol to the reviewer's LaTeX name;
    ``given`` is the reviewer's mapping as read (LaTeX name -> parameter word),
    empty for the default notation.
    """

    mechanism: str
    table: Mapping[str, sp.Expr]
    names: Mapping[sp.Symbol, str]
    given: Mapping[str, str]

    def name(self, symbol: sp.Symbol) -> str:
        """The reviewer's LaTeX name of a parameter symbol (or of a fresh symbol)."""
        return self.names.get(symbol, DEFAULT_NAMES.get(symbol, str(symbol)))


def display_symbol(latex_name: str) -> sp.Symbol:
    r"""A plain symbol that prints as the reviewer wrote it: '\theta' -> theta (LaTeX
    \theta), 'x_max' -> x_max (LaTeX x_{max})."""
    return sp.Symbol(latex_name.lstrip("\\"))


def _symbol_name(text: str, item: str) -> str:
    r"""'\theta' -> '\theta', 'c_{0}' -> 'c_0', 'x' -> 'x'; InputError for anything else."""
    i = 0
    if text.startswith("\\"):
        i = 1
        while i < len(text) and text[i].isascii() and text[i].isalpha():
            i += 1
        head = text[:i]
        if head[1:] not in _GREEK:
            raise InputError(
                f"notation item {_show(item)}: {_show(head)} is not a Greek letter (a symbol is"
                " one letter or one Greek-letter command, e.g. \\theta, optionally with _sub)"
            )
    elif text[:1].isascii() and text[:1].isalpha():
        i = 1
        head = text[:1]
    else:
        raise InputError(
            f"notation item {_show(item)}: expected a symbol such as \\theta, b or x_0 before '='"
        )
    rest = text[i:]
    if not rest:
        return head
    sub = rest[1:]
    if sub.startswith("{") and sub.endswith("}"):
        sub = sub[1:-1]
    elif len(sub) != 1:
        sub = ""  # x_ab without braces is x_a times b in LaTeX: not one symbol
    if not rest.startswith("_") or not sub or not all(c.isascii() and c.isalnum() for c in sub):
        raise InputError(
            f"notation item {_show(item)}: {_show(text)} is not one symbol (one letter or Greek"
            " letter, optionally with a subscript _0 or _{max})"
        )
    return f"{head}_{sub}"


def _word(text: str) -> str:
    r"""A parameter as written on the right of '=': 'c_{0}' and 'c_0' -> 'c_0', '\lambda' ->
    'lambda' (so that a parameter may also be named by its default LaTeX name)."""
    return text.replace("{", "").replace("}", "").lstrip("\\")


def parse_mapping(text: object) -> dict[str, str]:
    r"""'\theta=s, b=lam' -> {'\theta': 's', 'b': 'lam'} (the CLI's --notation).

    Items are separated by commas; spaces around names are ignored.  Only the
    syntax is checked here; :func:`build` checks the names against a mechanism.
    """
    if not isinstance(text, str):
        raise InputError(f"the notation must be a string such as '\\theta=s,b=lam', not {text!r}")
    if len(text) > MAX_MAPPING_CHARS:
        raise InputError(f"notation too long: {len(text)} characters (limit {MAX_MAPPING_CHARS})")
    if not text.strip():
        raise InputError("empty notation (expected items such as '\\theta=s,b=lam')")
    out: dict[str, str] = {}
    items = text.split(",")
    if len(items) > MAX_ITEMS:
        raise InputError(f"notation has {len(items)} items (limit {MAX_ITEMS})")
    for raw in items:
        item = raw.strip()
        if item.count("=") != 1:
            raise InputError(
                f"malformed notation item {_show(item)}: expected SYMBOL=PARAMETER such as"
                " '\\theta=s'"
            )
        left, _, right = (part.strip() for part in item.partition("="))
        if not left or not right:
            raise InputError(
                f"malformed notation item {_show(item)}: expected SYMBOL=PARAMETER such as"
                " '\\theta=s'"
            )
        name = _symbol_name(left, item)
        if name in out:
            raise InputError(f"symbol {_show(name)} given twice in the notation")
        out[name] = right
    return out


def build(mechanism: str, mapping: Mapping[str, str] | str | None = None) -> Notation:
    """The notation of ``mechanism``: the defaults, with the reviewer's ``mapping`` applied.

    InputError (one line) for an unknown parameter, a symbol or a parameter
    given twice, a reserved name (e, \\pi) or a malformed item.
    """
    words = parameters(mechanism)
    symbols = parameter_symbols(mechanism)
    if isinstance(mapping, str):
        given = parse_mapping(mapping)
    elif mapping is None:
        given = {}
    elif isinstance(mapping, Mapping):
        given = {}
        for key, value in mapping.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise InputError(
                    f"notation entry {key!r}: {value!r} must map a LaTeX symbol to a parameter"
                    " name (strings)"
                )
            name = _symbol_name(key.strip(), f"{key}={value}")
            if name in given:
                raise InputError(f"symbol {_show(name)} given twice in the notation")
            given[name] = value.strip()
    else:
        raise InputError(
            f"the notation must be a mapping or a string such as '\\theta=s', not {mapping!r}"
        )
    names = {symbol: DEFAULT_NAMES[symbol] for symbol in symbols}
    renamed: dict[sp.Symbol, str] = {}
    for name, written in given.items():
        word = _word(written)
        if name in RESERVED:
            raise InputError(
                f"notation item {_show(name + '=' + written)}: {_show(name)} is reserved"
                " (e is Euler's number, \\pi the constant)"
            )
        if word not in words:
            raise InputError(
                f"notation item {_show(name + '=' + written)}: unknown parameter"
                f" {_show(written)} of {mechanism} (expected one of {', '.join(words)})"
            )
        symbol = words[word]
        if symbol in renamed:
            raise InputError(
                f"parameter {_show(WORDS[symbol])} given twice in the notation"
                f" ({_show(renamed[symbol])} and {_show(name)})"
            )
        renamed[symbol] = name
    names.update(renamed)
    taken = set(renamed.values())
    table: dict[str, sp.Expr] = {"e": sp.E}
    for symbol in symbols:
        if symbol not in renamed and names[symbol] in taken:
            # its default name is the reviewer's name of another parameter: it cannot be
            # written in the formula, and reports show it by its word ('scale')
            names[symbol] = WORDS[symbol]
        else:
            table[names[symbol]] = symbol
    return Notation(
        mechanism,
        MappingProxyType(table),
        MappingProxyType(names),
        MappingProxyType(dict(given)),
    )


__all__ = [
    "DEFAULT_NAMES",
    "Notation",
    "RESERVED",
    "WORDS",
    "build",
    "display_symbol",
    "parameter_symbols",
    "parameters",
    "parse_mapping",
]
