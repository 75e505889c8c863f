"""Pasted formulas: a restricted LaTeX parser and a comparison with derived quantities.

``dpcheck check-formula QUANTITY 'LATEX'`` parses a formula as printed in a
paper (Liu 2019: eqs (6), (7), (9), (10), the App. B lines) with
:mod:`dpcheck.formula.latex_parser` -- a recursive-descent parser that builds
SymPy objects from constructors only, never through ``eval``/``sympify`` -- and
compares it with the derived quantity (:mod:`dpcheck.formula.check`) of any
mechanism of the algebra (``truncated-gaussian.var``, ...), in the default
notation or in the reviewer's own (:mod:`dpcheck.formula.notation`).
"""
