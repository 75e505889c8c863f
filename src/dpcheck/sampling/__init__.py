"""Sampling layer: numpy samplers of the bounded Laplace mechanisms (Liu 2019,
Definition 2), goodness-of-fit tests against the exact laws, and an empirical
privacy auditor.  Imports point down only (numeric, symbolic)."""
