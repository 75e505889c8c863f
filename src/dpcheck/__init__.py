"""dpcheck: checks the mathematics of differential-privacy papers.

Layers (DESIGN.md): symbolic (SymPy derivations from the laws), papers
(printed equations, transcribed as printed), numeric (mpmath, rigorous arb),
claims (verdicts), cli.
"""

__version__ = "0.1.0"


def mechanism(name: str):  # type: ignore[no-untyped-def]
    """``dpcheck.mechanism("truncated-gaussian")``: see :mod:`dpcheck.api`."""
    from dpcheck.api import mechanism as _mechanism

    return _mechanism(name)


def law(density, support="real", params=(), scale=None, name="user law"):  # type: ignore[no-untyped-def]
    """``dpcheck.law(r"\\frac{1}{2b} e^{-|z|/b}", params=["b>0"])``: a noise law from its
    density or pmf (LaTeX or SymPy); see :mod:`dpcheck.laws`."""
    from dpcheck.laws.registry import law as _law

    return _law(density, support, params, scale, name)
