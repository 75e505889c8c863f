"""Sampling layer: vectorised numpy samplers of every mechanism of the algebra
(:mod:`dpcheck.sampling.mechanisms`; Liu 2019 Definition 2's two in
:mod:`dpcheck.sampling.samplers`), goodness-of-fit tests against the exact laws
(:mod:`dpcheck.sampling.goodness`), and an empirical privacy auditor.  Imports
point down only (numeric, symbolic)."""
