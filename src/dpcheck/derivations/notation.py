"""How derived expressions are shown in the derivations: abbreviations and LaTeX.

The derivations display exactly the expressions the symbolic layer computes;
only the *display* is tidied here.  The two exponentials of Liu (2019) §3 get
short names (the paper's App. B writes p1 = E_0/2 and p2 = E_1/2)::

    E_0 = exp((c0 - s)/λ) = e^{-t0},    E_1 = exp((s - c1)/λ) = e^{-t1}

:func:`abbreviate` replaces every exp whose argument is a rational multiple of
(c0 - s)/λ or (s - c1)/λ by a power of E_0 or E_1, and :func:`expand_abbreviations`
undoes it, so a test can check that the display is the same expression.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.symbolic.symbols import c0, c1, lam, s

E0 = sp.Symbol("E_0", positive=True)
E1 = sp.Symbol("E_1", positive=True)
#: the exponent each abbreviation stands for
EXPONENTS = {E0: (c0 - s) / lam, E1: (s - c1) / lam}


def _as_power(arg: sp.Expr) -> sp.Expr | None:
    for name, exponent in EXPONENTS.items():
        ratio = sp.cancel(sp.expand(arg) / exponent)
        if ratio.is_Rational:
            return name**ratio
    return None


def abbreviate(expr: sp.Expr) -> sp.Expr:
    """exp(k·(c0-s)/λ) → E_0^k, exp(k·(s-c1)/λ) → E_1^k, then one tidy fraction.

    Exponentials of other arguments are left alone.  The numerator is expanded
    and collected in E_0, E_1; the denominator factored.
    """

    def swap(e: sp.exp) -> sp.Expr:
        power = _as_power(e.args[0])
        return e if power is None else power

    expr = expr.replace(lambda e: isinstance(e, sp.exp), swap)
    expr = sp.powsimp(expr).replace(lambda e: isinstance(e, sp.exp), swap)
    num, den = sp.fraction(sp.cancel(sp.together(expr)))
    num = sp.collect(sp.expand(num), [E0, E1])
    den = sp.factor(den)
    if den.subs({E0: 0, E1: 0}).is_negative:  # show 2 - E_0 - E_1, not E_0 + E_1 - 2
        num, den = sp.collect(sp.expand(-num), [E0, E1]), sp.expand(-den)
    return num / den if den != 1 else num


def expand_abbreviations(expr: sp.Expr) -> sp.Expr:
    """E_0 → exp((c0-s)/λ), E_1 → exp((s-c1)/λ): the inverse of :func:`abbreviate`."""
    return expr.subs({name: sp.exp(exponent) for name, exponent in EXPONENTS.items()})


def tex(expr: sp.Expr) -> str:
    """SymPy's LaTeX of ``expr`` (deterministic: SymPy orders terms canonically)."""
    return sp.latex(expr)


#: a displayed line longer than this (in LaTeX source characters) is broken
LINE = 140


def _terms(expr: sp.Expr) -> list[str]:
    """The top-level terms of a sum as LaTeX, each with its sign."""
    out = []
    for i, term in enumerate(expr.as_ordered_terms()):
        text = sp.latex(term)
        if i and not text.startswith("-"):
            text = "+ " + text
        out.append(text)
    return out


def _lines(pieces: list[str], width: int = LINE) -> list[str]:
    lines, current = [], ""
    for piece in pieces:
        if current and len(current) + len(piece) > width:
            lines.append(current)
            current = ""
        current += (" " if current else "") + piece
    if current:
        lines.append(current)
    return lines


def display(lhs: str, expr: sp.Expr | str, relation: str = "=") -> str:
    """A displayed equation ``lhs relation expr``, broken over lines when long.

    A long sum is broken between its terms; a long fraction N/D with N a sum is
    written (1/D)·[N] and broken inside the bracket; anything else that is too
    long is scaled to the line width.
    """
    body = expr if isinstance(expr, str) else tex(expr)
    head = f"{lhs} {relation} " if lhs else ""
    if len(head) + len(body) <= LINE or isinstance(expr, str):
        if len(head) + len(body) <= 2 * LINE:
            return f"\\[ {head}{body} \\]"
        return f"\\[ \\resizebox{{\\linewidth}}{{!}}{{$\\displaystyle {head}{body}$}} \\]"
    num, den = sp.fraction(expr)
    if isinstance(expr, sp.Add):
        lines = _lines(_terms(expr))
    elif den != 1 and isinstance(num, sp.Add):
        inner = _lines(_terms(num))
        lines = [f"\\frac{{1}}{{{tex(den)}}} \\Bigl[ {inner[0]}", *inner[1:]]
        lines[-1] += " \\Bigr]"
    else:
        return f"\\[ \\resizebox{{\\linewidth}}{{!}}{{$\\displaystyle {head}{body}$}} \\]"
    lines[0] = head + lines[0]
    if len(lines) == 1:
        return f"\\[ {lines[0]} \\]"
    return "\\begin{multline*}\n" + " \\\\\n".join(lines) + "\n\\end{multline*}"
