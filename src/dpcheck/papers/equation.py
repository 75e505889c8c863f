"""A printed equation of a document, transcribed exactly as printed."""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp


@dataclass(frozen=True)
class Equation:
    """One printed formula, typos included.

    ``label`` is the document's own name for it ("eq (6)", "App. B line 3");
    ``latex`` is the LaTeX as typeset in the arXiv source (000_*.txt) where it
    has one, else as printed in the journal extraction (002_*.txt); ``expr``
    is the same formula as a SymPy expression built from
    :mod:`dpcheck.symbolic.symbols`; ``note`` records differences between the
    extractions and anything the transcriber had to decide.
    """

    label: str
    source: str
    latex: str
    expr: sp.Expr
    note: str = ""
    extra: dict = field(default_factory=dict)
