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
