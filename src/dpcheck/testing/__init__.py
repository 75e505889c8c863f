"""dpcheck.testing: assertions for testing your own DP code against dpcheck's exact values.

Public and stable (names in ``__all__``):

* :func:`assert_sampler_law` -- draws of your sampler against the exact law of
  any mechanism of the algebra (DKW band, exact binomial tests on point masses,
  mean and second-moment tests, support; family-wise false alarm <= 1e-6 by
  default);
* :func:`assert_matches_exact` -- your float function (a bias or variance
  formula, a CDF) against dpcheck's exact value at given points;
* :func:`assert_private` -- a black-box privacy audit of your sampler on pairs
  of neighbouring inputs (:mod:`dpcheck.sampling.blackbox`);
* :mod:`dpcheck.testing.strategies` -- hypothesis strategies for valid
  parameters of every mechanism, extremes included (needs ``hypothesis``);
* the pytest plugin :mod:`dpcheck.testing.plugin` (installed with dpcheck,
  entry point ``pytest11``): option ``--dpcheck-false-alarm`` (and the ini
  option ``dpcheck_false_alarm``), ``--dpcheck-seed``, and the fixtures
  ``dpcheck_rng`` (a numpy Generator seeded from the test's node id, printed
  when the test fails) and ``dpcheck_false_alarm``.

Every assertion raises ``AssertionError`` when your code is wrong, and
:class:`dpcheck.errors.InputError` (a ``ValueError``, one line) when the
assertion itself is called with bad input.  README.md, "Testing your own code
(dpcheck.testing)", and docs/examples/test_my_sampler.py show them at work.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dpcheck.testing import strategies as strategies
    from dpcheck.testing._exact import Comparison, assert_matches_exact
    from dpcheck.testing._law import assert_sampler_law
    from dpcheck.testing._private import assert_private

#: the stable public names; the submodules ``strategies`` (needs hypothesis) and ``plugin``
#: are public too, imported on use
__all__ = [
    "Comparison",
    "assert_matches_exact",
    "assert_private",
    "assert_sampler_law",
]

#: where each public name lives; imported on first use, so that loading the pytest
#: plugin (``dpcheck.testing.plugin``) costs no numpy/scipy import at pytest start-up
_HOME = {
    "Comparison": "dpcheck.testing._exact",
    "assert_matches_exact": "dpcheck.testing._exact",
    "assert_private": "dpcheck.testing._private",
    "assert_sampler_law": "dpcheck.testing._law",
}


def __getattr__(name: str) -> Any:
    if name == "strategies":  # needs hypothesis
        return importlib.import_module("dpcheck.testing.strategies")
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dpcheck.testing' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
