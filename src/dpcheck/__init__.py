"""dpcheck: checks the mathematics of differential-privacy papers.

Layers (DESIGN.md): symbolic (SymPy derivations from the laws), papers
(printed equations, transcribed as printed), numeric (mpmath, rigorous arb),
claims (verdicts), cli.
"""

__version__ = "0.1.0"
