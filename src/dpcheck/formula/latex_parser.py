r"""A restricted LaTeX parser for pasted formulas (Liu 2019 notation by default).

The formulas of Liu (2019) -- eq (6) ``\mu_{1}=s+\frac{...}{...}``, eq (7),
eqs (9)/(10), the App. B lines with ``p_{1}``, ``p_{2}``, ``A``, ``B`` -- are
parsed by a small tokenizer and a recursive-descent parser of our own.  The
input string is never passed to ``eval``, ``exec``, ``compile``, ``sympify``,
``parse_expr`` or ``sympy.S``: every SymPy object is built from a constructor
(``Integer``, ``Rational``, ``Add``, ``Mul``, ``Pow``, ``exp``, ``log``) or
looked up in a whitelist of symbols (the *notation*, a mapping passed in), as
DESIGN.md ("Contracts") requires.

Grammar (whitespace, ``~`` and the spacing commands ``\, \; \: \! \quad
\qquad \displaystyle`` are ignored; ``\left \right \big \Big \bigg \Bigg``
and their ``l/r/m`` forms are dropped in front of a delimiter)::

    formula  := [label '='] expr
    expr     := term (('+' | '-') term)*
    term     := factor (('\cdot' | '\times' | '\div' | '/') factor | power)*
                                      -- juxtaposition multiplies; '/' and
                                      -- juxtaposition bind equally, left to
                                      -- right: a/2b = (a/2) b
    factor   := ('+' | '-')* power
    power    := primary ['^' script]
    primary  := number | symbol | group | \frac A B | \tfrac | \dfrac | \cfrac
              | \sqrt[n] A | \exp ARG | \log ARG | \ln ARG | \boxed{expr}
              | \mathrm{e} | \pi | ERF ARG | \Phi ARG | \phi ARG | \varphi ARG
    ERF      := \erf | \erfc | \mathrm{erf} | \operatorname{erf} | \text{erf}
              | \mbox{erf} | \textrm{erf} (and the same with erfc)
    group    := '(' expr ')' | '[' expr ']' | '{' expr '}' | '\{' expr '\}'
    ARG      := group | power          -- \exp(x), \exp\left(x\right), \exp{x},
                                       -- \exp x^2 = exp(x^2)
    A, B, script := '{' expr '}' | one digit | one letter | a Greek letter
                                       -- \frac12 = 1/2, e^x, x^23 = x^2 * 3
    symbol   := letter ['_' sub] | \greek ['_' sub]   -- looked up in the notation
    sub      := '{' letters/digits '}' | one letter/digit  -- c_0 = c_{0}
    number   := digits ['.' digits] | '.' digits      -- decimals are exact: 0.5 = 1/2

Built-in names, used unless the notation maps the same name to a symbol:
``\pi`` (the constant), ``\Phi(u)`` = (1 + erf(u/√2))/2 (the standard normal
CDF), ``\phi(u)`` = ``\varphi(u)`` = exp(-u²/2)/√(2π) (its density), erf and
erfc (the Gaussian quantities of issue 18).  With ``fresh`` (a dict) a symbol
that the notation does not know becomes a new real symbol recorded there
instead of an error: :func:`dpcheck.formula.check.check_formula` then
compares the formula as a function of it too.

The optional ``label`` (the left-hand side of a single ``=``) is reported,
not used; it may only hold letters, digits, ``_``, ``^``, ``*``, ``'``,
``,``, brackets, ``\mu \sigma \lambda`` and ``\mbox{..} \mathrm{..}
\text{..} \operatorname{..} \mathbb{..}`` with letters, digits and spaces inside
(``\mu_{1}=``, ``\mbox{MSE}=``, ``\mbox{E}(s^{*2})=``, ``\mathbb{E}[Y]=``).  ``*`` is not
multiplication in LaTeX and is rejected on the right-hand side.

Limits against resource exhaustion: at most 5000 characters, 30 digits per
number, nesting depth 50 (brackets and function arguments; the paper needs
7), |exponent| <= 1000 (numerator and denominator of a rational exponent),
and a power of two numbers may have at most 1000 digits (``2^{10^{10}}`` is
refused at once).  Each of those bounds one token or one power; the *whole*
formula is bounded too (issue 40), because nested powers multiply their
exponents: ``(((s^{1000})^{1000})^{1000})^{1000}`` is s^(10^12), and SymPy's
polynomial gcd (flint) died of SIGFPE on it.  While the formula is built, the
:class:`Size` of every subexpression -- upper bounds on the total degree and on
the digits of the coefficients of the fraction of polynomials it becomes in the
exact reductions of :mod:`dpcheck.formula.check` -- is computed from its parts,
and a formula whose total degree would exceed :data:`MAX_DEGREE` (100 000) or
whose constants could need more than :data:`MAX_CONSTANT_DIGITS` (4000) digits
is refused, naming the ceiling, before the offending power, product or sum is
formed.  An exponential counts its argument's coefficients (``e^{10^{12} s}`` has
degree 10^12 in e^s).  (Large *numerators* of exponents, as in ``s^{1/997}
s^{1/991}`` = s^{1988/988027}, are allowed; check.py keeps SymPy's polynomial
routines away from them, see :attr:`Size.exact`.)  A constant subexpression
that SymPy shows is not real (``\sqrt{-1}``, ``\log(-2)``, ``(-1)^{\pi}``,
``(-8)^{1/3}``, whose principal value is complex) is refused: formulas must be
real-valued.  Every failure is a
:class:`~dpcheck.errors.InputError` with one line that names the offending
token, its position (0-based character offset) and what was expected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

import sympy as sp

from dpcheck.errors import InputError
from dpcheck.inputs.limits import ceiling
from dpcheck.papers import liu2019 as _paper
from dpcheck.symbolic.symbols import c0, c1, lam, p1, p2, s

MAX_LENGTH = ceiling("check-formula", "formula").maximum


def _is_digit(ch: str) -> bool:
    """ASCII 0-9 only: '٥', '１' and '²' are not digits here (str.isdigit says they are)."""
    return len(ch) == 1 and "0" <= ch <= "9"


MAX_DIGITS = 30
#: nesting of brackets and function arguments (the paper needs 7; SymPy's own recursive
#: algorithms overflow Python's stack on much deeper trees)
MAX_DEPTH = 50
MAX_EXPONENT = 1000
MAX_NUMBER_DIGITS = 1000
#: the ceiling on the total degree of a whole formula (:class:`Size`; issue 40).  The
#: project's formulas need at most 3600 ((s+c_0+c_1+\sigma)^{900} in the tests); the
#: exact reductions of check.py run in C (flint) without a time limit at about 0.2 s and
#: 30 MB per 10^6 of degree and die of SIGFPE near 10^12
MAX_DEGREE = ceiling("check-formula", "total degree").maximum
#: the ceiling on the digits of the integers a formula's constants may form (:class:`Size`):
#: below the 4300 digits above which Python refuses to print an integer (10^{999} written
#: five times in a product ended in that traceback before issue 40)
MAX_CONSTANT_DIGITS = ceiling("check-formula", "constant digits").maximum

#: Liu (2019) notation: s, the bounds c_0 < c_1, the scale λ; App. B's
#: p_1 = ½exp((c0-s)/λ), p_2 = ½exp((s-c1)/λ) (symbols.p1, p2) and its
#: abbreviations A, B (the printed definitions APPB_A, APPB_B); e is Euler's number.
LIU2019: Mapping[str, sp.Expr] = MappingProxyType(
    {
        "s": s,
        "c_0": c0,
        "c_1": c1,
        "\\lambda": lam,
        "p_1": p1,
        "p_2": p2,
        "A": _paper.APPB_A.expr,
        "B": _paper.APPB_B.expr,
        "e": sp.E,
    }
)

_GREEK = frozenset(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda "
    "mu nu xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split()
)
_SPACING = frozenset({",", ";", ":", "!", " ", "quad", "qquad", "displaystyle", "textstyle"})
_SIZING = frozenset(
    f"{size}{side}"
    for size in ("left", "right", "big", "Big", "bigg", "Bigg")
    for side in (("",) if size in ("left", "right") else ("", "l", "r", "m"))
)
_TEXT = frozenset({"mbox", "mathrm", "text", "textrm", "operatorname", "mathbb"})
_FUNCTIONS = {"exp": sp.exp, "log": sp.log, "ln": sp.log, "erf": sp.erf, "erfc": sp.erfc}
#: Greek letters that are built-in functions (\Phi, \phi, \varphi) or constants (\pi)
#: unless the notation maps them to a symbol
_GREEK_FUNCTIONS = frozenset({"Phi", "phi", "varphi"})
_GREEK_CONSTANTS = {"pi": sp.pi}
#: text commands whose argument may name a function (\mathrm{erf}, \operatorname{erfc})
_TEXT_FUNCTIONS = frozenset({"erf", "erfc"})
_FRACS = frozenset({"frac", "tfrac", "dfrac", "cfrac"})
_OPERATORS = frozenset({"cdot", "times", "div"})
_OTHER = frozenset({"sqrt", "boxed"})
_DELIMS = {"{": "\\{", "}": "\\}", "lbrace": "\\{", "rbrace": "\\}"}
#: absolute-value bars: '|' opens or closes, \lvert opens, \rvert closes (issue 35)
_BARS = {"lvert": "open", "rvert": "close", "vert": "either"}
_CLOSES = {")": "(", "]": "[", "}": "{", "\\}": "\\{"}
_SINGLE = frozenset("+-*/^_=,'")
_SUPPORTED = (
    "\\frac \\tfrac \\dfrac \\sqrt \\exp \\log \\ln \\erf \\erfc \\Phi \\phi \\cdot "
    "\\times \\left \\right \\big \\boxed \\mathrm{e} \\mathrm{erf} |x| \\lvert \\rvert,"
    " Greek letters, spacing"
)
_LABEL_COMMANDS = frozenset({"\\mu", "\\sigma", "\\lambda"})
_LABEL_OPS = frozenset("_^*,'")


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` is num, letter, cmd, text, op, open or close.

    ``text`` is the token as written (for messages), ``pos`` its 0-based offset
    in the source; ``value`` is the command name (cmd, text), the text content
    (text) or the normalised bracket ('(', '[', '{', '\\{') of open/close.
    """

    kind: str
    text: str
    pos: int
    value: str = ""


@dataclass(frozen=True)
class ParsedFormula:
    """A parsed formula: its SymPy ``expr``, the ``lhs`` label (or None) and the ``source``."""

    expr: sp.Expr
    lhs: str | None
    source: str


def _show(text: str, limit: int = 40) -> str:
    """``text`` quoted on one line (control characters escaped, long text cut)."""
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
    if len(shown) > limit:
        shown = shown[:limit] + "..."
    return f"'{shown}'"


# ---------------------------------------------------------------------------
# tokenizer
# ---------------------------------------------------------------------------


class _Tokenizer:
    """Characters to tokens; checks lengths, bracket balance and depth on the way."""

    def __init__(self, source: str) -> None:
        self.src = source
        self.i = 0
        self.tokens: list[Token] = []
        self.stack: list[Token] = []
        self.need_delim: Token | None = None

    def run(self) -> list[Token]:
        while self.i < len(self.src):
            ch = self.src[self.i]
            if ch.isspace() or ch == "~":
                self.i += 1
            elif _is_digit(ch) or (ch == "." and self._peek_digit()):
                self._number()
            elif ch.isascii() and ch.isalpha():
                self._emit(Token("letter", ch, self.i, ch))
                self.i += 1
            elif ch == "\\":
                self._command()
            elif ch in "([{":
                self._emit(Token("open", ch, self.i, ch))
                self.i += 1
            elif ch in ")]}":
                self._emit(Token("close", ch, self.i, _CLOSES[ch]))
                self.i += 1
            elif ch == "|":
                self._emit(Token("bar", ch, self.i, "either"))
                self.i += 1
            elif ch in _SINGLE:
                self._emit(Token("op", ch, self.i, ch))
                self.i += 1
            else:
                raise InputError(
                    f"unexpected character {_show(ch)} at position {self.i} (expected digits, "
                    "letters, + - / ^ _ = ( ) [ ] { } or a LaTeX command)"
                )
        if self.need_delim is not None:
            raise InputError(
                f"expected a delimiter after {_show(self.need_delim.text)} at position "
                f"{self.need_delim.pos}, found end of input"
            )
        if self.stack:
            tok = self.stack[-1]
            raise InputError(f"unbalanced {_show(tok.text)} at position {tok.pos} (never closed)")
        return self.tokens

    def _peek_digit(self) -> bool:
        nxt = self.src[self.i + 1 : self.i + 2]
        return _is_digit(nxt)

    def _number(self) -> None:
        start = self.i
        while self.i < len(self.src) and _is_digit(self.src[self.i]):
            self.i += 1
        if self.src[self.i : self.i + 1] == "." and self._peek_digit():
            self.i += 1
            while self.i < len(self.src) and _is_digit(self.src[self.i]):
                self.i += 1
        text = self.src[start : self.i]
        if len(text.replace(".", "")) > MAX_DIGITS:
            raise InputError(
                f"number {_show(text, 20)} at position {start} has more than {MAX_DIGITS} digits"
            )
        self._emit(Token("num", text, start, text))

    def _command(self) -> None:
        start = self.i
        j = self.i + 1
        if j < len(self.src) and self.src[j].isascii() and self.src[j].isalpha():
            while j < len(self.src) and self.src[j].isascii() and self.src[j].isalpha():
                j += 1
        elif j < len(self.src):
            j += 1
        else:
            raise InputError(f"lone '\\' at position {start} (end of input)")
        name = self.src[start + 1 : j]
        text = self.src[start:j]
        self.i = j
        if name in _SPACING:
            return
        if name in _SIZING:
            if self.need_delim is not None:
                raise InputError(
                    f"expected a delimiter after {_show(self.need_delim.text)} at position "
                    f"{self.need_delim.pos}, found {_show(text)} at position {start}"
                )
            self.need_delim = Token("cmd", text, start, name)
            return
        if name in _BARS:
            self._emit(Token("bar", text, start, _BARS[name]))
            return
        if name in _DELIMS:
            value = _DELIMS[name]
            if value == "\\{":
                self._emit(Token("open", text, start, value))
            else:
                self._emit(Token("close", text, start, _CLOSES[value]))
            return
        if name in _TEXT:
            self._text(name, text, start)
            return
        known = _GREEK | set(_FUNCTIONS) | _FRACS | _OPERATORS | _OTHER
        if name not in known:
            raise InputError(
                f"unknown command {_show(text)} at position {start} (supported: {_SUPPORTED})"
            )
        self._emit(Token("cmd", text, start, name))

    def _text(self, name: str, text: str, start: int) -> None:
        """``\\mbox{...}`` and friends: the braces hold plain text (no commands, no braces)."""
        j = self.i
        while j < len(self.src) and self.src[j].isspace():
            j += 1
        if self.src[j : j + 1] != "{":
            raise InputError(f"expected '{{' after {_show(text)} at position {start}")
        end = j + 1
        while end < len(self.src) and self.src[end] not in "{}\\":
            end += 1
        if self.src[end : end + 1] != "}":
            what = "end of input" if end >= len(self.src) else _show(self.src[end])
            raise InputError(
                f"unbalanced '{{' at position {j} (the argument of {_show(text)} must be plain "
                f"text; found {what} at position {end})"
            )
        self.i = end + 1
        self._emit(Token("text", self.src[start : end + 1], start, self.src[j + 1 : end]))

    def _emit(self, tok: Token) -> None:
        if self.need_delim is not None:
            if tok.kind not in ("open", "close", "bar"):
                raise InputError(
                    f"expected a delimiter such as '(' after {_show(self.need_delim.text)} at "
                    f"position {self.need_delim.pos}, found {_show(tok.text)} at position "
                    f"{tok.pos}"
                )
            self.need_delim = None
        if tok.kind == "open":
            self.stack.append(tok)
            if len(self.stack) > MAX_DEPTH:
                raise InputError(
                    f"nesting deeper than {MAX_DEPTH} at position {tok.pos} ({_show(tok.text)})"
                )
        elif tok.kind == "close":
            if not self.stack:
                raise InputError(f"unbalanced {_show(tok.text)} at position {tok.pos}")
            opened = self.stack.pop()
            if opened.value != tok.value:
                raise InputError(
                    f"unbalanced {_show(tok.text)} at position {tok.pos} (it does not close "
                    f"{_show(opened.text)} at position {opened.pos})"
                )
        self.tokens.append(tok)


def tokenize(source: str) -> list[Token]:
    """The tokens of ``source``; InputError for bad characters, commands or brackets."""
    return _Tokenizer(source).run()


# ---------------------------------------------------------------------------
# parser
# ---------------------------------------------------------------------------

_STARTS_PRIMARY = frozenset({"num", "letter", "open", "text"})
_PRIMARY_COMMANDS = _GREEK | set(_FUNCTIONS) | _FRACS | _OTHER


def _starts_primary(tok: Token | None) -> bool:
    if tok is None:
        return False
    if tok.kind == "bar":
        return tok.value != "close"
    if tok.kind == "cmd":
        return tok.value in _PRIMARY_COMMANDS
    return tok.kind in _STARTS_PRIMARY


def _known(notation: Mapping[str, sp.Expr]) -> str:
    return ", ".join(notation)


class _Parser:
    """Recursive descent over the tokens of one right-hand side (grammar in the module doc)."""

    def __init__(
        self,
        tokens: list[Token],
        notation: Mapping[str, sp.Expr],
        source: str,
        fresh: dict[str, sp.Symbol] | None = None,
    ) -> None:
        self.toks = tokens
        self.k = 0
        self.notation = notation
        self.src = source
        self.depth = 0
        self.fresh = fresh
        #: the :class:`Size` of every subexpression built or measured so far
        self.sizes: dict[sp.Basic, Size] = {}
        #: how many absolute values are open: inside one, '|' closes (no nested bars)
        self.bars = 0

    def lookup(self, name: str, tok: Token) -> sp.Expr:
        """The notation's value of ``name``; a built-in constant (\\pi); a fresh symbol
        (when allowed); InputError otherwise."""
        if name in self.notation:
            return self.notation[name]
        if name.startswith("\\") and name[1:] in _GREEK_CONSTANTS:
            return _GREEK_CONSTANTS[name[1:]]
        if self.fresh is not None:
            if name not in self.fresh:
                self.fresh[name] = sp.Dummy(name.lstrip("\\"), real=True)
            return self.fresh[name]
        raise InputError(
            f"unknown symbol {_show(name)} at position {tok.pos} (known: {_known(self.notation)})"
        )

    def builtin_function(self, tok: Token | None) -> str | None:
        """The function ``tok`` names (exp, log, ln, erf, erfc, Phi, phi), or None."""
        if tok is None:
            return None
        if tok.kind == "text" and tok.text.startswith("\\"):
            word = tok.value.strip()
            return word if word in _TEXT_FUNCTIONS else None
        if tok.kind != "cmd":
            return None
        if tok.value in _FUNCTIONS:
            return tok.value
        if tok.value in _GREEK_FUNCTIONS and tok.text not in self.notation:
            return "phi" if tok.value == "varphi" else tok.value
        return None

    # -- helpers ----------------------------------------------------------
    def peek(self) -> Token | None:
        return self.toks[self.k] if self.k < len(self.toks) else None

    def take(self) -> Token:
        tok = self.toks[self.k]
        self.k += 1
        return tok

    def is_op(self, value: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "op" and tok.value == value

    def fail(self, expected: str) -> InputError:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.value == "*":
            return InputError(
                f"'*' at position {tok.pos} is not multiplication in LaTeX "
                "(write \\cdot, \\times or put the factors side by side)"
            )
        if tok is None:
            found = f"end of input at position {len(self.src)}"
        else:
            found = f"{_show(tok.text)} at position {tok.pos}"
        return InputError(f"expected {expected}, found {found}")

    # -- sizes and reality (issue 40) ---------------------------------------
    def size(self, expr: sp.Expr) -> Size:
        """The :class:`Size` of ``expr`` (memoised for the whole formula)."""
        return size_of(expr, self.sizes)

    def checked(self, value: sp.Expr, where: str) -> sp.Expr:
        """``value`` (just built from checked parts: cheap), refused over the ceilings."""
        check_size(self.size(value), where)
        return value

    def end(self) -> int:
        """The offset just after the last token taken."""
        tok = self.toks[self.k - 1]
        return tok.pos + len(tok.text)

    def real(self, value: sp.Expr, start: int, hint: str = "") -> sp.Expr:
        """``value``, refused when it is a constant that SymPy shows is not real (the source
        from ``start`` to the last token taken is named)."""
        if value.free_symbols or value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            return value
        if _not_real(value):
            shown = _show(self.src[start : self.end()])
            raise InputError(
                f"{shown} at position {start} is not real{hint}: formulas must be real-valued"
            )
        return value

    def raise_to(self, base: sp.Expr, exponent: sp.Expr, pos: int, start: int) -> sp.Expr:
        """base^exponent: the checks of :func:`_check_power`, the size ceilings (also before
        the power is formed: SymPy multiplies nested exponents and expands (k s)^n at
        once), then reality; ``pos`` is the '^' or the command, ``start`` where it begins."""
        _check_power(base, exponent, pos)
        where = f"the power at position {pos}"
        check_size(_power_size(self.size(base), exponent, self.size(exponent)), where)
        value = self.checked(sp.Pow(base, exponent), where)
        hint = ""
        if base.is_Rational and base.is_negative and exponent.is_Rational and exponent.q % 2:
            hint = (
                " (SymPy's principal value of an odd root of a negative number is complex;"
                " for the real root write the minus sign outside)"
            )
        return self.real(value, start, hint)

    def multiply(self, left: sp.Expr, right: sp.Expr, pos: int) -> sp.Expr:
        """left * right, refused over the size ceilings."""
        where = f"the product at position {pos}"
        check_size(_product_size([self.size(left), self.size(right)]), where)
        return self.checked(sp.Mul(left, right), where)

    def negate(self, value: sp.Expr) -> sp.Expr:
        return sp.Mul(sp.Integer(-1), value)

    # -- grammar ----------------------------------------------------------
    def parse(self) -> sp.Expr:
        value = self.expr()
        if self.peek() is not None:
            raise self.fail("an operator or end of input")
        check_size(self.size(value), "the formula")
        return value

    def expr(self) -> sp.Expr:
        terms = [self.term()]
        first = None
        while self.is_op("+") or self.is_op("-"):
            sign = self.take()
            first = first or sign
            term = self.term()
            terms.append(term if sign.value == "+" else self.negate(term))
        if first is None:
            return terms[0]
        where = f"the sum at position {first.pos}"
        check_size(_sum_size([self.size(term) for term in terms]), where)
        return self.checked(sp.Add(*terms), where)

    def term(self) -> sp.Expr:
        value = self.factor()
        while True:
            tok = self.peek()
            if tok is not None and tok.kind == "cmd" and tok.value in _OPERATORS:
                self.take()
                rhs = self.factor()
                if tok.value == "div":
                    value = self._divide(value, rhs, tok)
                else:
                    value = self.multiply(value, rhs, tok.pos)
            elif self.is_op("/"):
                self.take()
                value = self._divide(value, self.factor(), tok)
            elif _starts_primary(tok) and not (tok.kind == "bar" and self.bars):
                value = self.multiply(value, self.power(), tok.pos)
            else:
                return value

    def factor(self) -> sp.Expr:
        negative = False
        while self.is_op("+") or self.is_op("-"):
            negative ^= self.take().value == "-"
        value = self.power()
        return self.negate(value) if negative else value

    def power(self) -> sp.Expr:
        start = self.peek().pos if self.peek() is not None else len(self.src)
        base = self.primary()
        if not self.is_op("^"):
            return base
        hat = self.take()
        exponent = self.script("an exponent after '^'")
        if self.is_op("^"):
            raise InputError(f"double superscript at position {self.peek().pos}: use braces")
        return self.raise_to(base, exponent, hat.pos, start)

    def primary(self) -> sp.Expr:
        tok = self.peek()
        if not _starts_primary(tok):
            raise self.fail("an operand")
        leaf = tok.kind in ("num", "letter", "text") or tok.value in _GREEK
        if leaf and self.builtin_function(tok) is None:
            return self._primary(tok)  # a leaf: no nesting
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise InputError(f"nesting deeper than {MAX_DEPTH} at position {tok.pos}")
        try:
            return self._primary(tok)
        finally:
            self.depth -= 1

    def _primary(self, tok: Token) -> sp.Expr:
        if tok.kind == "num":
            return _number(self.take().text)
        if self.builtin_function(tok) is not None:
            self.take()
            return self.function(tok)
        if tok.kind == "letter" or (tok.kind == "cmd" and tok.value in _GREEK):
            return self.symbol()
        if tok.kind == "open":
            return self.group()
        if tok.kind == "bar":
            return self.absolute()
        if tok.kind == "text":
            return self.text()
        self.take()
        if tok.value in _FRACS:
            num = self.script(f"the numerator of {tok.text} at position {tok.pos}")
            den = self.script(f"the denominator of {tok.text} at position {tok.pos}")
            return self._divide(num, den, tok)
        if tok.value == "sqrt":
            return self.sqrt(tok)
        if tok.value == "boxed":
            if not (self.peek() and self.peek().kind == "open" and self.peek().value == "{"):
                raise self.fail(f"'{{' after \\boxed at position {tok.pos}")
            return self.group()
        return self.function(tok)

    def group(self) -> sp.Expr:
        opener = self.take()
        if self.peek() is not None and self.peek().kind == "close":
            raise InputError(f"empty group {_show(opener.text)} at position {opener.pos}")
        value = self.expr()
        tok = self.peek()
        if tok is None or tok.kind != "close":
            raise self.fail(f"the bracket closing {_show(opener.text)} at position {opener.pos}")
        self.take()
        return value

    def absolute(self) -> sp.Expr:
        """|expr| (or \\lvert expr \\rvert): SymPy's Abs; bars do not nest."""
        opener = self.take()
        if self.bars:
            raise InputError(
                f"nested absolute value at position {opener.pos}: use parentheses inside |...|"
            )
        self.bars += 1
        try:
            value = self.expr()
        finally:
            self.bars -= 1
        tok = self.peek()
        if tok is None or tok.kind != "bar" or tok.value == "open":
            raise self.fail(f"the bar closing {_show(opener.text)} at position {opener.pos}")
        self.take()
        return self.checked(sp.Abs(value), f"the absolute value at position {opener.pos}")

    def symbol(self) -> sp.Expr:
        tok = self.take()
        name = tok.text
        if self.is_op("_"):
            name += "_" + self.subscript(tok)
        return self.lookup(name, tok)

    def subscript(self, base: Token) -> str:
        self.take()
        tok = self.peek()
        if tok is not None and tok.kind == "open" and tok.value == "{":
            self.take()
            parts = []
            while self.peek() is not None and self.peek().kind in ("letter", "num"):
                parts.append(self.take().text)
            if not parts or self.peek() is None or self.peek().kind != "close":
                raise self.fail(f"letters or digits and '}}' in the subscript of {base.text}")
            self.take()
            return "".join(parts)
        if tok is not None and tok.kind == "letter":
            return self.take().text
        if tok is not None and tok.kind == "num":
            return self._first_digit().text
        raise self.fail(f"a subscript after '_' (of {base.text} at position {base.pos})")

    def script(self, what: str) -> sp.Expr:
        """A TeX macro argument: a ``{...}`` group or a single digit, letter or Greek letter."""
        tok = self.peek()
        if tok is not None and tok.kind == "open" and tok.value == "{":
            return self.group()
        if tok is not None and tok.kind == "num":
            return _number(self._first_digit().text)
        if self.builtin_function(tok) is not None:
            raise InputError(
                f"{_show(tok.text)} at position {tok.pos} needs its argument: put it in braces"
                f" ({what})"
            )
        if tok is not None and (
            tok.kind == "letter" or (tok.kind == "cmd" and tok.value in _GREEK)
        ):
            self.take()
            return self.lookup(tok.text, tok)
        raise self.fail(f"{what}: '{{...}}' or a single character")

    def _first_digit(self) -> Token:
        """Take one digit of a number token (TeX reads ``\\frac12`` as 1 over 2)."""
        tok = self.toks[self.k]
        if len(tok.text) == 1:
            self.k += 1
            return tok
        rest = tok.text[1:]
        if rest.startswith("."):
            raise InputError(
                f"ambiguous number {_show(tok.text)} at position {tok.pos}: use braces"
            )
        self.toks[self.k] = Token("num", rest, tok.pos + 1, rest)
        return Token("num", tok.text[0], tok.pos, tok.text[0])

    def sqrt(self, tok: Token) -> sp.Expr:
        index = 2
        nxt = self.peek()
        if nxt is not None and nxt.kind == "open" and nxt.value == "[":
            self.take()
            num = self.peek()
            if num is None or num.kind != "num" or not all(map(_is_digit, num.text)):
                raise self.fail(f"a whole number as the index of \\sqrt at position {tok.pos}")
            self.take()
            index = int(num.text)
            if not 2 <= index <= MAX_EXPONENT:
                raise InputError(
                    f"root index {index} at position {num.pos} must be 2..{MAX_EXPONENT}"
                )
            if self.peek() is None or self.peek().kind != "close":
                raise self.fail(f"']' closing the index of \\sqrt at position {tok.pos}")
            self.take()
        radicand = self.script(f"the argument of \\sqrt at position {tok.pos}")
        return self.raise_to(radicand, sp.Rational(1, index), tok.pos, tok.pos)

    def function(self, tok: Token) -> sp.Expr:
        name = self.builtin_function(tok)
        nxt = self.peek()
        if nxt is not None and nxt.kind == "open":
            arg = self.group()
        elif _starts_primary(nxt):
            arg = self.power()
        else:
            raise self.fail(f"the argument of {tok.text} at position {tok.pos}")
        if name in ("log", "ln") and arg.is_zero:
            raise InputError(f"log of 0 at position {tok.pos}")
        if name == "exp":
            return self.raise_to(sp.E, arg, tok.pos, tok.pos)
        if name == "Phi":
            return normal_cdf(arg)
        if name == "phi":
            value = normal_pdf(arg)  # exp(-u²/2): its degree counts the coefficients of u²
            check_size(self.size(value), f"{tok.text} at position {tok.pos}")
            return value
        hint = " (the log of a negative number is complex)" if name in ("log", "ln") else ""
        return self.real(_FUNCTIONS[name](arg), tok.pos, hint)

    def text(self) -> sp.Expr:
        tok = self.take()
        if tok.value.strip() == "e" and tok.text.startswith("\\mathrm"):
            return sp.E
        # a multi-letter parameter written upright (\mathrm{width}, \text{scale}): only a
        # name the notation defines in that spelling
        upright = "\\mathrm{" + tok.value.strip() + "}"
        if upright in self.notation and not tok.text.startswith("\\mathbb"):
            return self.notation[upright]
        raise InputError(
            f"{_show(tok.text)} at position {tok.pos} is only allowed in a left-hand-side "
            "label (or as \\mathrm{e})"
        )

    def _divide(self, num: sp.Expr, den: sp.Expr, tok: Token) -> sp.Expr:
        """num / den, refused for a zero den and over the size ceilings."""
        if den.is_zero:
            raise InputError(f"division by zero at position {tok.pos}")
        where = f"the quotient at position {tok.pos}"
        check_size(_product_size([self.size(num), _reciprocal_size(self.size(den))]), where)
        return self.checked(sp.Mul(num, sp.Pow(den, sp.Integer(-1))), where)


def normal_cdf(u: sp.Expr) -> sp.Expr:
    """Φ(u) = (1 + erf(u/√2))/2, the standard normal CDF (built from constructors)."""
    return sp.Mul(sp.Rational(1, 2), sp.Add(sp.Integer(1), sp.erf(sp.Mul(u, _SQRT2_INV))))


def normal_pdf(u: sp.Expr) -> sp.Expr:
    """φ(u) = exp(-u²/2)/√(2π), the standard normal density (bounded by 1/√(2π) for real
    u; the parser bounds the size of exp(-u²/2) as for any exponential)."""
    exponent = sp.Mul(sp.Rational(-1, 2), sp.Pow(u, sp.Integer(2)))
    return sp.Mul(sp.exp(exponent), sp.Pow(sp.Mul(2, sp.pi), sp.Rational(-1, 2)))


_SQRT2_INV = sp.Pow(sp.Integer(2), sp.Rational(-1, 2))


def _number(text: str) -> sp.Rational:
    """A decimal literal as an exact rational: '0.5' -> 1/2, '12' -> 12."""
    whole, _, frac = text.partition(".")
    digits = int((whole or "0") + frac)
    return sp.Rational(digits, 10 ** len(frac))


def _not_real(value: sp.Expr) -> bool:
    """True when SymPy shows that the constant ``value`` is not real: i in it, its
    assumptions (sqrt(-2), log(-1)), or else a nonzero imaginary part ((-1)^π)."""
    if value.has(sp.I) or value.is_extended_real is False:
        return True
    if value.is_extended_real:
        return False
    try:
        return sp.im(value).is_zero is False
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return False


def _check_power(base: sp.Expr, exponent: sp.Expr, pos: int) -> None:
    """Refuse base^exponent when one exponent or one number would exhaust time or memory.

    Checked before anything is evaluated: a rational exponent
    has numerator and denominator at most MAX_EXPONENT; a constant power (no
    symbol in it, e.g. e^{e^{100}}) may have at most MAX_NUMBER_DIGITS digits
    (each of its parts is already bounded, so their sizes are cheap to bound).
    The whole formula's degree and digits are bounded by :meth:`_Parser.raise_to`.
    """
    if exponent.is_Rational:
        p, q = int(exponent.p), int(exponent.q)
        if abs(p) > MAX_EXPONENT or q > MAX_EXPONENT:
            raise InputError(
                f"exponent {_show(str(exponent), 20)} at position {pos} is too large "
                f"(|numerator| and denominator at most {MAX_EXPONENT})"
            )
        if base.is_Rational:
            if base.is_zero and p < 0:
                raise InputError(f"division by zero (0 to a negative power) at position {pos}")
            if not base.is_zero:
                size = max(_log10(abs(int(base.p))), _log10(int(base.q)))
                if size * abs(p) / q > MAX_NUMBER_DIGITS:
                    raise InputError(
                        f"the power at position {pos} would be a number of about "
                        f"{int(size * abs(p) / q)} digits (limit {MAX_NUMBER_DIGITS})"
                    )
    if not (base.free_symbols or exponent.free_symbols):
        digits = _constant_power_digits(base, exponent)
        if digits is None or digits > MAX_NUMBER_DIGITS:
            shown = "too many" if digits is None else f"about {digits:.3g}"
            raise InputError(
                f"the power at position {pos} would be a number of {shown} digits"
                f" (limit {MAX_NUMBER_DIGITS})"
            )


def _constant_power_digits(base: sp.Expr, exponent: sp.Expr) -> float | None:
    """About |exponent| * log10|base| (decimal digits of base^exponent), or None if unbounded.

    Both parts are built from bounded parts (this check runs on every power),
    so evaluating them to 20 digits (evalf: no code is generated or executed)
    cannot itself run away.
    """
    try:
        b = sp.N(base, 20)
        x = sp.N(exponent, 20)
        if not (b.is_number and x.is_number) or b.has(sp.I) or x.has(sp.I):
            return None
        if b == 0:
            return 0.0
        size = sp.N(abs(x) * abs(sp.log(abs(b), 10)), 20)
        if not size.is_finite:
            return None
        return float(size)
    except (OverflowError, ValueError, TypeError, ZeroDivisionError):
        return None


def _log10(n: int) -> float:
    """log10 of a positive integer of any size (math.log10 accepts big ints)."""
    return math.log10(n)


# ---------------------------------------------------------------------------
# size bounds of a whole formula (issue 40)
# ---------------------------------------------------------------------------

#: bounds are capped here, far above every ceiling (keeps the arithmetic small)
_CAP = 10**40
_LOG_CAP = 40.0


@dataclass(frozen=True)
class Size:
    r"""Upper bounds on the work a (sub)formula costs (issue 40), from :func:`size_of`.

    Every symbol and every atom (π, e, log(.), erf(.)) is a *generator*; written as one
    fraction N/D of polynomials in the generators, with e^{c m} (c rational, m a
    monomial) the power g_m^c of a generator g_m = e^m:

    * ``num`` and ``den`` bound the total degrees of N and D: ``s^{1000}`` has 1000
      and 0, ``((s^{10})^{10})^{10}`` too, ``\sqrt{s}`` 1 and 0, ``e^{1000 s}`` 1000 and
      1000 (in e^s; the sign of the exponent is not tracked);
    * ``digits`` bounds log10 of the sum of the absolute values of the integer
      coefficients of N and of D (with the constants' numerators and denominators):
      no integer SymPy forms from the formula, expanded or over a common
      denominator, is longer;
    * ``scale`` bounds log10 of the sum of the absolute values of the (rational)
      coefficients once expanded; it is what e^{...} multiplies the degree by;
    * ``exact`` bounds the degree that SymPy's polynomial routines (``cancel``,
      ``gcd``, ``simplify``) see: they write s^{p/q} as (s^{1/q})^p and
      e^{(p/q) m} as (e^{m/q})^p, so the *numerators* count, and
      ``s^{1/997} s^{1/991}`` = s^{1988/988027} has 1988.  The parser does not
      refuse on it (a correct formula may hold e^{-\frac{q^2 (c_0 - s)^2}{2 (q+1)^2
      \sigma^2}}); :mod:`dpcheck.formula.check` skips those routines above
      ``MAX_EXACT_DEGREE``.

    Rules: a sum over a common denominator adds the denominators' degrees (and
    ``exact`` and the digits, plus log10 of the number of terms); a product adds
    everything; ``b^{p/q}`` multiplies degrees by p/q rounded up (``exact`` by |p|,
    the digits by p/q, plus once more for a root); a power with a non-rational exponent
    ``b^x`` (e^x included) has degree 10^scale(x) times that of b (at least 1) and
    ``exact`` 10^digits(x) times.
    """

    num: int
    den: int
    digits: float
    scale: float
    exact: int

    @property
    def degree(self) -> int:
        """The total degree of numerator and denominator."""
        return self.num + self.den


_GENERATOR = Size(1, 0, 0.0, 0.0, 1)


def _capped(value: int | float | Fraction) -> int:
    return int(min(math.ceil(value), _CAP))


def _times(log: float) -> int:
    """ceil(10^log), at least 1 and at most the cap (10^log10(50000) is 50000.000...01 or
    49999.99...: a relative 1e-12 is forgiven, so that e^{50000 s} counts 50000)."""
    return max(1, _capped(10 ** min(log, _LOG_CAP) * (1 - 1e-12)))


def _rational_size(value: sp.Rational) -> Size:
    p, q = abs(int(value.p)), int(value.q)
    digits = math.log10(max(p, q)) if max(p, q) > 1 else 0.0
    scale = math.log10(p) - math.log10(q) if p else -_LOG_CAP
    return Size(0, 0, digits, scale, 0)


def _sum_size(sizes: list[Size]) -> Size:
    """A sum over a common denominator: N = sum_i N_i prod_{j != i} D_j, D = prod_j D_j."""
    den = sum(z.den for z in sizes)
    num = max(z.num + den - z.den for z in sizes)
    extra = math.log10(len(sizes))
    return Size(
        _capped(num),
        _capped(den),
        sum(z.digits for z in sizes) + extra,
        max(z.scale for z in sizes) + extra,
        _capped(sum(z.exact for z in sizes)),
    )


def _product_size(sizes: list[Size]) -> Size:
    """A product: everything adds."""
    return Size(
        _capped(sum(z.num for z in sizes)),
        _capped(sum(z.den for z in sizes)),
        sum(z.digits for z in sizes),
        sum(z.scale for z in sizes),
        _capped(sum(z.exact for z in sizes)),
    )


def _reciprocal_size(size: Size) -> Size:
    """1/b: numerator and denominator swap; the coefficients of 1/b's expansion are
    bounded by the digits (1/(k s) = (1/k)/s)."""
    return Size(size.den, size.num, size.digits, size.digits, size.exact)


def _power_size(base: Size, exponent: sp.Expr, exponent_size: Size) -> Size:
    """The size of ``base^exponent`` from the sizes of its parts (also before it is formed)."""
    if exponent.is_Rational:
        p, q = abs(int(exponent.p)), int(exponent.q)
        k = Fraction(p, q)
        num, den = _capped(base.num * k), _capped(base.den * k)
        if exponent.is_negative:
            num, den = den, num
        digits = base.digits * (float(k) + (1 if q > 1 else 0))
        # a positive integer power is expanded; any other stays one monomial (SymPy
        # takes a rational factor out of the base: the digits bound it)
        scale = base.scale * p if q == 1 and p > 0 else digits
        return Size(num, den, digits, scale, _capped(p * max(1, base.exact)))
    # a generator power: e^{c m} is g_m^c, and b^{x + r} expands to b^x b^r
    times = _times(exponent_size.scale)
    degree = _capped(times * max(1, base.degree))
    digits = min(base.digits * times, float(_CAP))
    exact = _capped(_times(exponent_size.digits) * max(1, base.exact))
    return Size(degree, degree, digits, digits, exact)


def size_of(expr: sp.Expr, memo: dict[sp.Basic, Size] | None = None) -> Size:
    """The :class:`Size` of a SymPy expression (recursive; ``memo`` caches subexpressions)."""
    memo = {} if memo is None else memo
    hit = memo.get(expr)
    if hit is not None:
        return hit
    if expr.is_Rational:
        size = _rational_size(expr)
    elif expr.is_Atom:
        size = _GENERATOR
    elif isinstance(expr, sp.Add):
        size = _sum_size([size_of(a, memo) for a in expr.args])
    elif isinstance(expr, sp.Mul):
        size = _product_size([size_of(a, memo) for a in expr.args])
    elif isinstance(expr, sp.Pow):
        size = _power_size(size_of(expr.base, memo), expr.exp, size_of(expr.exp, memo))
    elif isinstance(expr, sp.exp):
        arg = expr.args[0]
        size = _power_size(_GENERATOR, arg, size_of(arg, memo))
    else:  # log, erf, erfc, ...: one generator (its argument is reduced on its own)
        size = _GENERATOR
    memo[expr] = size
    return size


def _amount(value: int) -> str:
    """A degree for a message: 12 345, 10^12 or about 3.2 x 10^15."""
    if value >= _CAP:
        return f"more than 10^{len(str(_CAP)) - 1}"
    if value < 10**6:
        return f"{value:_}".replace("_", " ")
    exponent = len(str(value)) - 1
    if value == 10**exponent:
        return f"10^{exponent}"
    return f"about {value / 10**exponent:.1f} x 10^{exponent}"


def check_size(size: Size, where: str) -> None:
    """InputError naming the ceiling when ``size`` exceeds :data:`MAX_DEGREE` or
    :data:`MAX_CONSTANT_DIGITS` (``where`` says what would have been formed)."""
    if size.degree > MAX_DEGREE:
        raise InputError(
            f"{where} would make the total degree {_amount(size.degree)}, which exceeds the "
            f"ceiling of {_amount(MAX_DEGREE)} (check-formula degree: nested powers multiply "
            "their exponents; e^{k x} counts 2k)"
        )
    if size.digits > MAX_CONSTANT_DIGITS:
        shown = _amount(_capped(size.digits))
        raise InputError(
            f"{where} would need integers of up to about {shown} digits, which exceeds the "
            f"ceiling of {_amount(MAX_CONSTANT_DIGITS)} digits (check-formula constants)"
        )


# ---------------------------------------------------------------------------
# left-hand side and entry point
# ---------------------------------------------------------------------------


def _check_label(tokens: list[Token], eq: Token) -> None:
    """The left of '=' must be a harmless label (``\\mu_{1}``, ``\\mbox{MSE}``, ``E(s^{*})``)."""
    if not tokens:
        raise InputError(f"empty left-hand side before '=' at position {eq.pos}")
    depth = 0
    for tok in tokens:
        ok = (
            tok.kind in ("letter", "num")
            or (tok.kind == "op" and tok.value in _LABEL_OPS)
            or (tok.kind == "cmd" and tok.text in _LABEL_COMMANDS)
            or (tok.kind == "text" and all(ch.isalnum() or ch == " " for ch in tok.value))
            or tok.kind in ("open", "close")
        )
        if not ok:
            raise InputError(
                f"{_show(tok.text)} at position {tok.pos} is not allowed in the left-hand-side "
                "label (letters, digits, _, ^, *, brackets, \\mu, \\mbox{..}, \\mathrm{..}, "
                "\\text{..})"
            )
        depth += {"open": 1, "close": -1}.get(tok.kind, 0)
        if depth < 0:
            raise InputError(f"unbalanced {_show(tok.text)} at position {tok.pos}")
    if depth:
        raise InputError(f"unbalanced brackets in the left-hand side before position {eq.pos}")


def parse_latex(
    text: str,
    notation: Mapping[str, sp.Expr] = LIU2019,
    fresh: dict[str, sp.Symbol] | None = None,
) -> ParsedFormula:
    """Parse one pasted formula (e.g. eq (6) of Liu 2019 as printed) into SymPy.

    ``notation`` maps the names the formula may use ('s', 'c_0', '\\lambda',
    ...) to SymPy expressions; anything else is an unknown symbol (an
    InputError), or, when ``fresh`` is a dict, a new real symbol (a
    :class:`sympy.Dummy`, never equal to a parameter) recorded in ``fresh``
    under its LaTeX name.  A single ``=`` splits off a label that is
    returned as ``lhs`` and otherwise ignored.
    """
    if not isinstance(text, str):
        raise InputError(f"the formula must be a string, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise InputError(f"formula too long: {len(text)} characters (limit {MAX_LENGTH})")
    if not text.strip():
        raise InputError("empty formula")
    tokens = tokenize(text)
    if not tokens:
        raise InputError("empty formula (only spacing)")
    equals = [t for t in tokens if t.kind == "op" and t.value == "="]
    lhs = None
    if len(equals) > 1:
        where = ", ".join(str(t.pos) for t in equals)
        raise InputError(
            f"more than one '=' (at positions {where}): give one formula, optionally "
            "labelled as 'name = formula'"
        )
    if equals:
        eq = equals[0]
        cut = tokens.index(eq)
        _check_label(tokens[:cut], eq)
        lhs = text[: eq.pos].strip()
        tokens = tokens[cut + 1 :]
        if not tokens:
            raise InputError(f"empty formula after '=' at position {eq.pos}")
    expr = _Parser(tokens, notation, text, fresh).parse()
    if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise InputError(f"the formula is undefined (it evaluates to {expr})")
    return ParsedFormula(expr=expr, lhs=lhs, source=text)


__all__ = [
    "LIU2019",
    "normal_cdf",
    "normal_pdf",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "ParsedFormula",
    "Token",
    "parse_latex",
    "tokenize",
]
