"""``assert_private``: a black-box privacy audit of a user's sampler (dpcheck.testing).

The audit is :func:`dpcheck.sampling.blackbox.audit_sampler`: for each pair of
neighbouring inputs (both directions) a first batch of draws chooses an event,
a fresh batch gives exact Clopper-Pearson bounds on its probabilities under
M(x) and M(x'), and their ratio gives a lower confidence bound on the privacy
loss (DP-Sniper, Bichsel et al. 2021; Delta-Siege, Lokna et al. 2023).  The
assertion fails when that bound exceeds the claimed epsilon (or the bound on
delta exceeds the claimed delta), which happens with probability at most
1 - confidence when the sampler is (epsilon, delta)-DP on the given pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def assert_private(
    sampler: Callable[..., Any],
    *,
    epsilon: float,
    delta: float = 0.0,
    neighbours: Sequence[tuple[Any, Any]],
    samples: int = 1_000_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Any:
    """Assert that the black-box audit finds no violation of (epsilon, delta)-DP.

    ``sampler(x, rng, size)`` returns ``size`` draws of M(x) (``rng`` a numpy
    Generator); ``neighbours`` is a sequence of pairs (x, x') of neighbouring
    inputs; ``samples`` draws of each input of each pair (a quarter of them
    choose the event, the rest test it: :mod:`dpcheck.sampling.blackbox`).  Returns the
    ``BlackBoxAudit`` on success; raises ``AssertionError`` whose message is the
    audit's report (counts, Clopper-Pearson bounds, event, pair) when the lower
    confidence bound on the privacy loss exceeds the claim, and
    :class:`dpcheck.errors.InputError` for bad input.

    A pass is not a proof of privacy: the audit can only find a violation its
    events detect with the given samples.
    """
    from dpcheck.sampling.blackbox import audit_sampler

    audit = audit_sampler(
        sampler,
        neighbours,
        epsilon=epsilon,
        delta=delta,
        samples=samples,
        confidence=confidence,
        seed=seed,
    )
    if audit.exceeds:
        raise AssertionError(str(audit))
    return audit


__all__ = ["assert_private"]
