r"""The ``verify --format tex`` report: a LaTeX document that pdflatex compiles (issue 20).

Claim statements are LaTeX already and stay math; every other field (source,
finding, reproduce command, summary) is plain text and is escaped here.  pdflatex
reads its input as 8-bit text with no glyphs for Greek or mathematical symbols,
so every non-ASCII character is written as a macro:

* Greek letters by their Unicode name (``GREEK SMALL LETTER MU`` is ``\mu``; the
  capitals without a macro of their own are Latin letters: ``\mathrm{A}``);
* mathematical symbols from :data:`MATH_SYMBOLS`, super- and subscript digits from
  their compatibility decomposition (``²`` is ``^{2}``);
* accented Latin letters by their canonical decomposition (``é`` is ``\'{e}``) and
  a letter with a combining accent as math (``x̄`` is ``\bar{x}``);
* text symbols (``§``, dashes, quotes) from :data:`TEXT_SYMBOLS`.

A character none of these covers is written ``[U+XXXX]`` (it still compiles; the
tests compute every character of the registry's texts and fail on that marker).
In text, a run of math symbols becomes one ``$...$``; inside a statement (math
mode, possibly within ``\text{}``) each becomes ``\ensuremath{...}`` or
``\text{...}``, which amsmath makes valid in both modes.
"""

from __future__ import annotations

import unicodedata
from io import StringIO

from dpcheck.claims.report import headline, status_text
from dpcheck.claims.runner import Result, summary_line

#: plain-text ASCII characters that LaTeX reads as commands
ASCII_TEXT = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": "$<$", ">": "$>$", "|": "$|$",
}  # fmt: skip

#: non-ASCII mathematical symbols and their math-mode LaTeX
MATH_SYMBOLS = {
    "≤": r"\le", "≥": r"\ge", "≠": r"\ne", "≈": r"\approx", "≡": r"\equiv", "∼": r"\sim",
    "∝": r"\propto", "≪": r"\ll", "≫": r"\gg", "→": r"\to", "←": r"\leftarrow",
    "↔": r"\leftrightarrow", "⇒": r"\Rightarrow", "⇐": r"\Leftarrow", "⇔": r"\Leftrightarrow",
    "↦": r"\mapsto", "∞": r"\infty", "·": r"\cdot", "×": r"\times", "÷": r"\div", "±": r"\pm",
    "∓": r"\mp", "∈": r"\in", "∉": r"\notin", "⊂": r"\subset", "⊆": r"\subseteq",
    "⊃": r"\supset", "⊇": r"\supseteq", "∪": r"\cup", "∩": r"\cap", "∅": r"\emptyset",
    "∑": r"\sum", "∏": r"\prod", "∫": r"\int", "√": r"\surd", "∀": r"\forall",
    "∃": r"\exists", "∂": r"\partial", "∇": r"\nabla", "ℓ": r"\ell", "∘": r"\circ",
    "∨": r"\vee", "∧": r"\wedge", "¬": r"\neg", "⌈": r"\lceil", "⌉": r"\rceil",
    "⌊": r"\lfloor", "⌋": r"\rfloor", "⟨": r"\langle", "⟩": r"\rangle", "∣": r"\mid",
    "‖": r"\|", "′": r"\prime", "″": r"\prime\prime", "°": r"^{\circ}", "ℝ": r"\mathbb{R}",
    "ℕ": r"\mathbb{N}", "ℤ": r"\mathbb{Z}", "ℚ": r"\mathbb{Q}", "½": r"\tfrac12",
    "¼": r"\tfrac14", "¾": r"\tfrac34", "∗": "*", "−": "-", "⋅": r"\cdot", "∖": r"\setminus",
    "ϵ": r"\epsilon", "ϕ": r"\phi", "ϑ": r"\vartheta", "ϱ": r"\varrho", "ϖ": r"\varpi",
}  # fmt: skip

#: non-ASCII text symbols and their LaTeX (valid in text mode)
TEXT_SYMBOLS = {
    "§": r"\S{}", "¶": r"\P{}", "…": r"\dots{}", "–": "--", "—": "---", "‘": "`", "’": "'",
    "“": "``", "”": "''", "«": "<<", "»": ">>", "\u00a0": "~", "\u2009": r"\,",
    "\u202f": r"\,", "ß": r"\ss{}", "æ": r"\ae{}", "Æ": r"\AE{}", "ø": r"\o{}", "Ø": r"\O{}",
    "å": r"\aa{}", "Å": r"\AA{}", "œ": r"\oe{}", "Œ": r"\OE{}", "ł": r"\l{}", "Ł": r"\L{}",
    "\u2010": "-", "\u2011": "-",
}  # fmt: skip

#: combining accents: (the text accent command, the math accent command)
ACCENTS = {
    "\u0300": ("`", "grave"), "\u0301": ("'", "acute"), "\u0302": ("^", "hat"),
    "\u0303": ("~", "tilde"), "\u0304": ("=", "bar"), "\u0305": ("=", "bar"),
    "\u0306": ("u", "breve"), "\u0307": (".", "dot"), "\u0308": ('"', "ddot"),
    "\u030c": ("v", "check"), "\u030a": ("r", "mathring"), "\u0327": ("c", ""),
}  # fmt: skip

_GREEK_CAPITALS_WITH_MACRO = {
    "GAMMA", "DELTA", "THETA", "LAMDA", "XI", "PI", "SIGMA", "UPSILON", "PHI", "PSI", "OMEGA",
}  # fmt: skip
_GREEK_SPECIAL = {"LAMDA": "lambda", "EPSILON": "varepsilon", "FINAL SIGMA": "varsigma"}
#: capital Greek letters drawn like Latin ones (no LaTeX macro)
_GREEK_LATIN = {
    "ALPHA": "A", "BETA": "B", "EPSILON": "E", "ZETA": "Z", "ETA": "H", "IOTA": "I",
    "KAPPA": "K", "MU": "M", "NU": "N", "OMICRON": "O", "RHO": "P", "TAU": "T", "CHI": "X",
}  # fmt: skip


def _greek(ch: str) -> str | None:
    """The math-mode LaTeX of a Greek letter, from its Unicode name; None if not Greek."""
    name = unicodedata.name(ch, "")
    for prefix, capital in (("GREEK SMALL LETTER ", False), ("GREEK CAPITAL LETTER ", True)):
        if not name.startswith(prefix):
            continue
        letter = name.removeprefix(prefix)
        if " " in letter and letter != "FINAL SIGMA":  # with an accent: not handled
            return None
        if capital:
            if letter in _GREEK_CAPITALS_WITH_MACRO:
                word = _GREEK_SPECIAL.get(letter, letter.lower())
                return "\\" + word[0].upper() + word[1:]
            return r"\mathrm{" + _GREEK_LATIN[letter] + "}" if letter in _GREEK_LATIN else None
        if letter == "OMICRON":
            return "o"
        return "\\" + _GREEK_SPECIAL.get(letter, letter.lower())
    return None


def _script(ch: str) -> str | None:
    """``^{2}`` for ``²``, ``_{0}`` for ``₀`` (the compatibility decomposition)."""
    decomposition = unicodedata.decomposition(ch)
    for tag, mark in (("<super> ", "^"), ("<sub> ", "_")):
        if decomposition.startswith(tag):
            base = chr(int(decomposition.removeprefix(tag), 16))
            inner = MATH_SYMBOLS.get(base, base)
            if inner.isascii() and (inner.isalnum() or inner in "+-=()" or inner.startswith("\\")):
                return mark + "{" + inner + "}"
    return None


def unit(cluster: str) -> tuple[str, str]:
    """(kind, LaTeX) of one character with its combining marks: kind 'ascii', 'math'
    (the LaTeX is math-mode), 'text' (text-mode) or 'unknown' (``[U+XXXX]``)."""
    ch, marks = cluster[0], cluster[1:]
    if marks:
        base_kind, base = unit(ch) if not ch.isascii() else ("ascii", ch)
        math = base if base_kind == "math" else (ch if ch.isascii() and ch.isalpha() else None)
        latex = math
        for mark in marks:
            accent = ACCENTS.get(mark, ("", ""))[1]
            if latex is None or not accent:
                return "unknown", "".join(f"[U+{ord(c):04X}]" for c in cluster)
            latex = f"\\{accent}{{{latex}}}"
        return "math", str(latex)
    if ch in "\n\t\r":
        return "ascii", " "
    if ch.isascii() and not ch.isprintable():  # a control character
        return "unknown", f"[U+{ord(ch):04X}]"
    if ch.isascii():
        return ("text", ASCII_TEXT[ch]) if ch in ASCII_TEXT else ("ascii", ch)
    if ch in MATH_SYMBOLS:
        return "math", MATH_SYMBOLS[ch]
    if ch in TEXT_SYMBOLS:
        return "text", TEXT_SYMBOLS[ch]
    found = _greek(ch) or _script(ch)
    if found is not None:
        return "math", found
    decomposed = unicodedata.normalize("NFD", ch)
    if len(decomposed) > 1 and decomposed[0].isascii() and decomposed[0].isalpha():
        accents = [ACCENTS.get(m, ("", ""))[0] for m in decomposed[1:]]
        if all(accents):
            latex = decomposed[0]
            for accent in accents:
                latex = f"\\{accent}{{{latex}}}"
            return "text", latex
    return "unknown", f"[U+{ord(ch):04X}]"


def clusters(text: str) -> list[str]:
    """``text`` split into characters, each with the combining marks that follow it."""
    out: list[str] = []
    for ch in text:
        if out and unicodedata.combining(ch) and not out[-1].isspace():
            out[-1] += ch
        else:
            out.append(ch)
    return out


def merge_scripts(units: list[str]) -> list[str]:
    """Adjacent superscripts (or subscripts) as one: ``ε⁻²`` is ``^{-2}``, not ``^{-}^{2}``
    (a double superscript, which TeX refuses)."""
    out: list[str] = []
    for u in units:
        if out and u[:2] in ("^{", "_{") and out[-1][:2] == u[:2] and out[-1].endswith("}"):
            out[-1] = out[-1][:-1] + u[2:]
        else:
            out.append(u)
    return out


def text(value: str) -> str:
    """Plain text as LaTeX text; a run of math symbols becomes one ``$...$``."""
    out: list[str] = []
    run: list[str] = []
    for cluster in clusters(value):
        kind, latex = unit(cluster)
        if kind == "math":
            run.append(latex)
            continue
        if run:
            out.append("$" + " ".join(merge_scripts(run)) + "$")
            run = []
        out.append(latex)
    if run:
        out.append("$" + " ".join(merge_scripts(run)) + "$")
    return "".join(out)


def math(statement: str) -> str:
    r"""A LaTeX statement with its non-ASCII characters as macros valid in math mode and
    inside ``\text{}`` (``\ensuremath{\mu}``, ``\text{\S{}}``); ASCII is kept as written."""
    out: list[str] = []
    run: list[str] = []  # consecutive math symbols, written as one \ensuremath
    for cluster in clusters(statement):
        kind, latex = (
            ("ascii", cluster)
            if cluster.isascii() and (cluster.isprintable() or cluster in "\n\t\r")
            else unit(cluster)
        )
        if kind == "math":
            run.append(latex)
            continue
        if run:
            out.append("\\ensuremath{" + " ".join(merge_scripts(run)) + "}")
            run = []
        out.append(cluster if kind == "ascii" else f"\\text{{{latex}}}")
    if run:
        out.append("\\ensuremath{" + " ".join(merge_scripts(run)) + "}")
    return "".join(out)


PREAMBLE = r"""% generated by dpcheck verify --format tex; compile with pdflatex
\documentclass[10pt]{article}
\usepackage[margin=2cm]{geometry}
\usepackage{amsmath,amssymb,graphicx}
\begin{document}
\section*{dpcheck verify}
"""


def _display(statement: str) -> str:
    """A statement as displayed math, scaled down to the line when it is long."""
    body = math(statement)
    if len(statement) <= 120:
        return f"\\[ {body} \\]"
    return f"\\[ \\resizebox{{\\linewidth}}{{!}}{{$\\displaystyle {body}$}} \\]"


def render_tex(results: list[Result]) -> str:
    """The report as a LaTeX document: per claim its id, source, status, statement,
    finding and reproduce command; then the summary line."""
    out = StringIO()
    out.write(PREAMBLE)
    out.write("\\begin{description}\n")
    for r in results:
        out.write(
            f"\\item[{{{text(r.claim.id)}}}] ({text(r.claim.source)}) "
            f"\\textbf{{{text(status_text(r))}}}.\n"
        )
        out.write(f"  {_display(r.claim.statement)}\n")
        out.write(f"  {text(headline(r))}\\par\n")
        out.write(f"  \\texttt{{{text(r.verdict.reproduce)}}}\n")
    out.write("\\end{description}\n\n")
    out.write(text(summary_line(results)) + "\n")
    out.write("\\end{document}\n")
    return out.getvalue()
