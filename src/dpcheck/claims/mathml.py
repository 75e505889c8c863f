r"""LaTeX statements as MathML, for the self-contained HTML report (issue 20).

A small recursive-descent converter for the LaTeX of claim statements: letters,
numbers and operators; ``^``, ``_``, groups; ``\frac`` (``\tfrac``, ``\dfrac``,
``\frac12``), ``\sqrt``, ``\binom``; accents (``\bar``, ``\hat``, ``\tilde``, ...);
``\text`` and ``\mbox`` (with ``$...$`` inside); the font commands ``\mathrm``,
``\mathbf``, ``\mathsf``, ``\mathcal``, ``\mathbb`` (as Unicode mathematical
alphanumerics, which MathML Core draws); ``\left``/``\right`` and ``\big``
sizes (the delimiter alone); ``\xrightarrow``, ``\boxed``; the Greek letters, the
relations, arrows and operators of :data:`SYMBOLS` and the operator names of
:data:`FUNCTIONS`.  Anything else (an unknown command, ``&``, an environment, an
unbalanced brace) raises :class:`Unsupported`, and the report shows the TeX in
``<code>`` instead.  No string is ever evaluated: the input is only scanned.

The output is MathML Core (``math``, ``mrow``, ``mi``, ``mn``, ``mo``, ``mtext``,
``mspace``, ``msub``, ``msup``, ``msubsup``, ``munder``, ``mover``,
``munderover``, ``mfrac``, ``msqrt``, ``mroot``, ``semantics``, ``annotation``),
which Chromium and Firefox render without any script.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from html import escape

#: commands that are one symbol: (MathML element, character)
SYMBOLS: dict[str, tuple[str, str]] = {
    **{
        name: ("mi", ch)
        for name, ch in {
            "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ",
            "varepsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ",
            "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ",
            "pi": "π", "varpi": "ϖ", "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "varsigma": "ς",
            "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ",
            "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
            "Pi": "Π", "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
            "infty": "∞", "ell": "ℓ", "partial": "∂", "nabla": "∇", "emptyset": "∅",
            "dots": "…", "ldots": "…", "cdots": "⋯", "prime": "′",
        }.items()
    },
    **{
        name: ("mo", ch)
        for name, ch in {
            "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈",
            "sim": "∼", "simeq": "≃", "propto": "∝", "equiv": "≡", "ll": "≪", "gg": "≫",
            "in": "∈", "notin": "∉", "ni": "∋", "subset": "⊂", "subseteq": "⊆", "supset": "⊃",
            "cup": "∪", "cap": "∩", "setminus": "∖", "to": "→", "rightarrow": "→",
            "leftarrow": "←", "gets": "←", "leftrightarrow": "↔", "Rightarrow": "⇒",
            "Leftarrow": "⇐", "Leftrightarrow": "⇔", "implies": "⟹", "iff": "⟺",
            "mapsto": "↦", "cdot": "⋅", "times": "×", "div": "÷", "pm": "±", "mp": "∓",
            "ast": "∗", "star": "⋆", "circ": "∘", "vee": "∨", "wedge": "∧", "lor": "∨",
            "land": "∧", "neg": "¬", "forall": "∀", "exists": "∃", "mid": "∣", "|": "‖",
            "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "langle": "⟨",
            "rangle": "⟩", "{": "{", "}": "}", "%": "%", "#": "#", "&": "&", "_": "_", "$": "$",
            "sum": "∑", "prod": "∏", "int": "∫", "oint": "∮", "bigcup": "⋃", "bigcap": "⋂",
            "colon": ":", "vert": "|", "Vert": "‖", "lvert": "|", "rvert": "|",
        }.items()
    },
}  # fmt: skip

#: operator names written upright (``\max`` is ``max``)
FUNCTIONS = frozenset(
    "max min sup inf lim liminf limsup log ln exp arg det Pr sin cos tan sinh cosh tanh "
    "deg dim gcd ker".split()
)
#: commands placing their scripts under and over in display style
BIG = frozenset({"sum", "prod", "bigcup", "bigcap", "max", "min", "sup", "inf", "lim"})

#: spacing commands and their widths
SPACES = {
    ",": "0.1667em", ":": "0.2222em", ">": "0.2222em", ";": "0.2778em", " ": "0.25em",
    "quad": "1em", "qquad": "2em", "!": "-0.1667em", "enspace": "0.5em",
}  # fmt: skip

#: accents: command -> the character placed over (or under) the argument
ACCENTS = {
    "bar": "¯", "overline": "¯", "hat": "^", "widehat": "^", "tilde": "~", "widetilde": "~",
    "dot": "˙", "ddot": "¨", "vec": "→", "check": "ˇ", "breve": "˘", "acute": "´",
    "grave": "`", "underline": "_",
}  # fmt: skip

#: font commands: Unicode name word of the mathematical alphanumerics, or None (upright)
FONTS = {
    "mathrm": None, "operatorname": None, "mathbf": "BOLD", "boldsymbol": "BOLD",
    "bm": "BOLD", "mathsf": "SANS-SERIF", "mathcal": "SCRIPT", "mathscr": "SCRIPT",
    "mathbb": "DOUBLE-STRUCK", "mathit": "ITALIC", "mathtt": "MONOSPACE",
}  # fmt: skip

#: ignored: sizes and styles that only change how big a delimiter or a formula is drawn
IGNORED = frozenset(
    "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr middle "
    "displaystyle textstyle scriptstyle limits nolimits".split()
)

#: characters drawn as operators
OPERATORS = frozenset("+-=<>()[]|/,;:!*.?")
_ASCII_OPERATOR = {"-": "−", "*": "∗", "'": "′"}


class Unsupported(ValueError):
    """The statement uses LaTeX this converter does not know (the report shows the TeX)."""


@dataclass
class _Scanner:
    text: str
    pos: int = 0

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_space(self) -> None:
        while self.peek().isspace():
            self.pos += 1

    def command(self) -> str:
        """The name after a backslash (letters, or one other character)."""
        self.pos += 1
        start = self.pos
        if self.peek().isalpha():
            while self.peek().isalpha():
                self.pos += 1
        elif self.peek():
            self.pos += 1
        else:
            raise Unsupported("a lone backslash at the end")
        return self.text[start : self.pos]

    def braced_raw(self) -> str:
        """The raw text of a ``{...}`` group (nested braces kept), after spaces."""
        self.skip_space()
        if self.peek() != "{":
            raise Unsupported(f"expected '{{' at {self.pos}")
        depth, start = 0, self.pos
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "\\":
                self.pos += 2
                continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    self.pos += 1
                    return self.text[start + 1 : self.pos - 1]
            self.pos += 1
        raise Unsupported("an unbalanced '{'")


def _el(tag: str, *children: str, **attrs: str) -> str:
    attributes = "".join(f' {k.rstrip("_")}="{escape(v)}"' for k, v in attrs.items())
    return f"<{tag}{attributes}>{''.join(children)}</{tag}>"


def _token(tag: str, text: str, **attrs: str) -> str:
    attributes = "".join(f' {k}="{escape(v)}"' for k, v in attrs.items())
    return f"<{tag}{attributes}>{escape(text, quote=False)}</{tag}>"


def _row(nodes: list[str]) -> str:
    """One node as it is; none or several in an ``<mrow>``."""
    return nodes[0] if len(nodes) == 1 else _el("mrow", *nodes)


def styled(text: str, style: str | None) -> str:
    """``text`` in the mathematical alphanumerics of ``style`` (``BOLD``, ``SCRIPT``, ...),
    letter by letter from the Unicode names; a letter without such a character stays."""
    if style is None:
        return text
    out = []
    for ch in text:
        kind = "CAPITAL" if ch.isupper() else "SMALL" if ch.islower() else "DIGIT"
        letter = ch if kind != "DIGIT" else unicodedata.name(ch, "").removeprefix("DIGIT ")
        found = ch
        for name in (
            f"MATHEMATICAL {style} {kind} {letter.upper()}",
            f"{style} {kind} {letter.upper()}",  # the letterlike holes, e.g. SCRIPT CAPITAL B
        ):
            try:
                found = unicodedata.lookup(name)
                break
            except KeyError:
                continue
        out.append(found)
    return "".join(out)


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = _Scanner(text)

    # -- expressions --------------------------------------------------------------------
    def expression(self, stop: str = "") -> list[str]:
        """Atoms up to ``stop`` (a closing brace) or the end."""
        nodes: list[str] = []
        while True:
            self.s.skip_space()
            ch = self.s.peek()
            if not ch:
                if stop:
                    raise Unsupported("an unbalanced '{'")
                return nodes
            if ch == stop:
                self.s.pos += 1
                return nodes
            if ch == "}":
                raise Unsupported("an unbalanced '}'")
            if ch in "^_":
                base = nodes.pop() if nodes else _token("mrow", "")
                nodes.append(self.scripts(base, big=False))
                continue
            if ch == "'":
                self.s.pos += 1
                base = nodes.pop() if nodes else _token("mrow", "")
                nodes.append(_el("msup", base, _token("mo", "′")))
                continue
            atom, big = self.atom()
            if atom is None:
                continue
            self.s.skip_space()
            if self.s.peek() in ("^", "_"):
                atom = self.scripts(atom, big=big)
            nodes.append(atom)

    def scripts(self, base: str, big: bool) -> str:
        sub = sup = None
        for _ in range(2):
            self.s.skip_space()
            mark = self.s.peek()
            if mark == "_" and sub is None:
                self.s.pos += 1
                sub = self.argument()
            elif mark == "^" and sup is None:
                self.s.pos += 1
                sup = self.argument()
            else:
                break
        if sub is not None and sup is not None:
            return _el("munderover" if big else "msubsup", base, sub, sup)
        if sub is not None:
            return _el("munder" if big else "msub", base, sub)
        if sup is not None:
            return _el("mover" if big else "msup", base, sup)
        raise Unsupported("a stray script mark")

    def argument(self) -> str:
        """One argument: a ``{group}``, a command with its arguments, or one character."""
        self.s.skip_space()
        ch = self.s.peek()
        if ch == "{":
            self.s.pos += 1
            return _row(self.expression("}"))
        if not ch:
            raise Unsupported("a missing argument")
        if ch.isdigit():  # \frac12: one digit per argument
            self.s.pos += 1
            return _token("mn", ch)
        atom, _ = self.atom()
        if atom is None:
            raise Unsupported("an empty argument")
        return atom

    # -- atoms --------------------------------------------------------------------------
    def atom(self) -> tuple[str | None, bool]:
        """One atom and whether its scripts go under and over; None for no output."""
        s = self.s
        ch = s.peek()
        if ch == "{":
            s.pos += 1
            return _row(self.expression("}")), False
        if ch == "\\":
            return self.command(s.command())
        if ch.isdigit() or (ch == "." and s.pos + 1 < len(s.text) and s.text[s.pos + 1].isdigit()):
            start = s.pos
            while s.peek().isdigit() or (
                s.peek() == "." and s.text[s.pos + 1 : s.pos + 2].isdigit()
            ):
                s.pos += 1
            return _token("mn", s.text[start : s.pos]), False
        s.pos += 1
        if ch.isalpha():
            return _token("mi", ch), False
        if ch in OPERATORS or ch in _ASCII_OPERATOR:
            return _token("mo", _ASCII_OPERATOR.get(ch, ch)), False
        if ch == "~":  # a non-breaking space
            return _el("mspace", width=SPACES[" "]), False
        if ch in "&$#%":
            raise Unsupported(f"the character {ch!r}")
        if not ch.isascii():
            return _token("mi" if ch.isalpha() else "mo", ch), False
        raise Unsupported(f"the character {ch!r}")

    def command(self, name: str) -> tuple[str | None, bool]:
        s = self.s
        if name in SYMBOLS:
            tag, ch = SYMBOLS[name]
            return _token(tag, ch), name in BIG
        if name in FUNCTIONS:
            return _token("mi", name), name in BIG
        if name in SPACES:
            return _el("mspace", width=SPACES[name]), False
        if name in IGNORED:
            s.skip_space()
            if s.peek() == ".":  # \left. and \right.: no delimiter
                s.pos += 1
                return None, False
            return None, False
        if name in ("frac", "tfrac", "dfrac", "cfrac"):
            return _el("mfrac", self.argument(), self.argument()), False
        if name == "binom":
            top, bottom = self.argument(), self.argument()
            frac = _el("mfrac", top, bottom, linethickness="0")
            return _el("mrow", _token("mo", "("), frac, _token("mo", ")")), False
        if name == "sqrt":
            s.skip_space()
            if s.peek() == "[":
                end = s.text.find("]", s.pos)
                if end < 0:
                    raise Unsupported("an unclosed '['")
                index = _row(_Parser(s.text[s.pos + 1 : end]).expression())
                s.pos = end + 1
                return _el("mroot", self.argument(), index), False
            return _el("msqrt", self.argument()), False
        if name in ACCENTS:
            mark = _token("mo", ACCENTS[name], stretchy="true" if "wide" in name else "false")
            if name == "underline":
                return _el("munder", self.argument(), mark, accentunder="true"), False
            return _el("mover", self.argument(), mark, accent="true"), False
        if name in FONTS:
            s.skip_space()
            if s.peek() == "{":
                raw = s.braced_raw()
            elif s.peek().isascii() and s.peek().isalnum():  # \mathbf p
                raw = s.peek()
                s.pos += 1
            else:
                raise Unsupported(f"\\{name} without an argument")
            if raw.replace(" ", "").isalnum() and raw.isascii():
                text = styled(raw.replace(" ", ""), FONTS[name])
                if len(text) == 1 and FONTS[name] is None:
                    return _token("mi", text, mathvariant="normal"), False
                return _token("mi", text), False
            return _row(_Parser(raw).expression()), False
        if name in ("text", "mbox", "textrm", "textnormal", "textit", "textbf"):
            return self.text(s.braced_raw()), False
        if name == "xrightarrow":
            return _el("mover", _token("mo", "→", stretchy="true"), self.argument()), False
        if name == "boxed":
            return _el("mrow", self.argument(), style="border:1px solid;padding:0.1em"), False
        if name == "S":
            return _token("mi", "§"), False
        raise Unsupported(f"\\{name}")

    def text(self, raw: str) -> str:
        """``\\text{...}``: text, with ``$...$`` math and a few escapes inside."""
        parts: list[str] = []
        buf: list[str] = []
        i = 0

        def flush() -> None:
            if buf:
                parts.append(_token("mtext", "".join(buf).replace(" ", "\u00a0")))
                buf.clear()

        while i < len(raw):
            ch = raw[i]
            if ch == "$":
                end = raw.find("$", i + 1)
                if end < 0:
                    raise Unsupported("an unclosed '$' in \\text")
                flush()
                parts.append(_row(_Parser(raw[i + 1 : end]).expression()))
                i = end + 1
                continue
            if ch == "\\":
                scan = _Scanner(raw, i)
                name = scan.command()
                i = scan.pos
                if name in ("{", "}", "%", "#", "&", "_", "$"):
                    buf.append(name)
                elif name in (" ", ",", ";", ":", "quad"):
                    buf.append(" ")
                elif name == "S":
                    buf.append("§")
                elif name in ("ldots", "dots"):
                    buf.append("…")
                else:
                    raise Unsupported(f"\\{name} in \\text")
                if name.isalpha():
                    while i < len(raw) and raw[i] == " ":  # a control word eats spaces
                        i += 1
                    if raw[i : i + 2] == "{}":
                        i += 2
                continue
            if ch in "{}":
                i += 1
                continue
            if ch in "~^_&#%":
                raise Unsupported(f"the character {ch!r} in \\text")
            buf.append(ch)
            i += 1
        flush()
        return _row(parts) if parts else _token("mtext", "")


def to_mathml(latex: str, display: bool = True) -> str:
    """The ``<math>`` element of a LaTeX statement (the TeX kept as its annotation);
    :class:`Unsupported` when the statement uses LaTeX the converter does not know."""
    nodes = _Parser(latex).expression()
    body = _row(nodes) if nodes else _token("mrow", "")
    semantics = _el(
        "semantics",
        body if body.startswith("<mrow") else _el("mrow", body),
        _token("annotation", latex, encoding="application/x-tex"),
    )
    attrs = {"xmlns": "http://www.w3.org/1998/Math/MathML"}
    if display:
        attrs["display"] = "block"
    return _el("math", semantics, **attrs)
