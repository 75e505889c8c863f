"""The public Python face of the mechanism algebra: ``dpcheck.mechanism("truncated-gaussian")``.

A :class:`Mechanism` is a base noise law composed with a bounding (DESIGN.md,
"Mechanisms"); like a scipy.stats distribution it defines nothing itself and
answers everything from the one law of :mod:`dpcheck.symbolic.mechanisms`:

>>> from dpcheck import mechanism
>>> m = mechanism("truncated-gaussian")
>>> m.mean(s=0.3, c0=0, c1=1, sigma=0.7)           # mpmath, 30 digits by default
mpf('0.46831944780693049169954131915799...')
>>> m.quantity("var")                               # the SymPy derivation
>>> m.sample(rng, 1000, s=0.3, c0=0, c1=1, sigma=0.7)   # numpy draws
>>> m.delta(1, sensitivity=0.5, lower=0, upper=1, scale=0.7)   # δ(ε), the worst pair
>>> m.calibrate(1, 1e-6, sensitivity=0.5, lower=0, upper=1)     # the smallest σ
>>> mechanism("laplace").to_dp_accounting(sensitivity=1, scale=1)  # a PLD to compose

Parameters are those of :mod:`dpcheck.numeric.mechanism_params` (s, c0, c1, and
lam / sigma / scale / alpha / epsilon+sensitivity; c0 may be ``-math.inf`` and c1
``math.inf``, or the strings '-inf' and 'inf', for a one-sided bound; the other
infinities are refused).  Floats are taken at their exact binary value; pass
strings ("0.1") or Fractions for exact decimals.  ``dps`` is read as the CLI
reads ``eval --dps`` (an int, or integer text such as "30"; never a bool or
30.5) and has its ceilings (:mod:`dpcheck.inputs.limits`: 10 000 digits, 1 000
for the quantile); ``sample`` draws at most 10^8 values per call.  Every bad
input raises one line of :class:`dpcheck.errors.InputError`.
"""

from __future__ import annotations

from typing import Any

import mpmath

from dpcheck.numeric.names import BASES, GENERAL_QUANTITIES, canonical_mechanism, parts


class Mechanism:
    """One mechanism of the algebra; see the module docstring."""

    def __init__(self, name: str) -> None:
        self.name = canonical_mechanism(name)
        self.bounding, self.base = parts(self.name)
        #: the name of the base's own scale parameter (lam, sigma, scale)
        self.scale_name = BASES[self.base]

    def __repr__(self) -> str:
        return f"mechanism({self.name!r})"

    # -- symbolic ---------------------------------------------------------
    def quantity(self, name: str, sides: str = "both") -> Any:
        """The derived SymPy expression of quantity ``name`` (``sides``: 'both', or
        'lower' for [c0, ∞), 'upper' for (-∞, c1])."""
        from dpcheck.errors import InputError
        from dpcheck.symbolic import mechanisms as sym

        if name not in GENERAL_QUANTITIES or name == "quantile":
            known = ", ".join(q for q in GENERAL_QUANTITIES if q != "quantile")
            raise InputError(f"no symbolic quantity {name!r} (expected one of: {known})")
        try:
            return sym.quantity(self.name, name, sides)
        except (KeyError, ValueError) as exc:
            raise InputError(f"{self.name}: sides={sides!r} is not available ({exc})") from None

    def limit(self, name: str, to: str) -> Any:
        """The quantity's limit as the scale → 0 (``to='zero'``) or → ∞ (``'infinity'``),
        c0 < s < c1 fixed (SymPy; :func:`dpcheck.symbolic.mechanisms.scale_limit`)."""
        from dpcheck.errors import InputError
        from dpcheck.symbolic import mechanisms as sym

        if self.bounding == "none":
            raise InputError(f"{self.name} is unbounded: its moments do not depend on c0, c1")
        if to not in ("zero", "infinity"):
            raise InputError(f"to={to!r} must be 'zero' or 'infinity'")
        if name not in sym.MOMENTS:
            raise InputError(f"no limit of {name!r} (expected one of: {', '.join(sym.MOMENTS)})")
        return sym.scale_limit(self.name, name, to)

    def law(self, sides: str = "both") -> Any:
        """The derived law (:class:`dpcheck.symbolic.laws.Law`) of the output."""
        from dpcheck.errors import InputError
        from dpcheck.symbolic import mechanisms as sym

        if sides not in ("both", "lower", "upper"):
            raise InputError(f"sides={sides!r} must be 'both', 'lower' or 'upper'")
        try:
            return sym.law(self.name, sides)
        except (KeyError, ValueError) as exc:
            raise InputError(f"{self.name}: sides={sides!r} is not available ({exc})") from None

    # -- numeric ----------------------------------------------------------
    def params(self, quantity: str = "", **values: object) -> Any:
        """Validated :class:`dpcheck.numeric.mechanism_params.Params`."""
        from dpcheck.numeric import mechanism_params

        return mechanism_params.parse(self.name, values, quantity)

    def evaluate(self, quantity: str, *, dps: object = 30, **values: object) -> mpmath.mpf:
        """The quantity at the parameters, correct to about ``dps`` significant digits
        (``dps`` as ``eval --dps``: :func:`dpcheck.numeric.mechanism_mp.checked_dps`)."""
        from dpcheck.errors import InputError
        from dpcheck.numeric import mechanism_mp

        if not isinstance(quantity, str) or quantity not in GENERAL_QUANTITIES:
            from dpcheck.inputs.numbers import shown

            raise InputError(
                f"unknown quantity {shown(quantity)} (expected one of:"
                f" {', '.join(GENERAL_QUANTITIES)})"
            )
        digits = mechanism_mp.checked_dps(dps, quantity)
        return mechanism_mp.evaluate(
            f"{self.name}.{quantity}", self.params(quantity, **values), digits
        )

    def normaliser(self, *, dps: object = 30, **values: object) -> mpmath.mpf:
        """P(c0 <= X <= c1) under the base law (eq (4)'s normaliser)."""
        return self.evaluate("normaliser", dps=dps, **values)

    def mean(self, *, dps: object = 30, **values: object) -> mpmath.mpf:
        """E Y (Liu 2019 eq (6)/(7) for the Laplace instances)."""
        return self.evaluate("mean", dps=dps, **values)

    def bias(self, *, dps: object = 30, **values: object) -> mpmath.mpf:
        """E Y - s."""
        return self.evaluate("bias", dps=dps, **values)

    def second_moment(self, *, dps: object = 30, **values: object) -> mpmath.mpf:
        """E Y²."""
        return self.evaluate("second_moment", dps=dps, **values)

    def var(self, *, dps: object = 30, **values: object) -> mpmath.mpf:
        """Var Y."""
        return self.evaluate("var", dps=dps, **values)

    def mse(self, *, dps: object = 30, **values: object) -> mpmath.mpf:
        """E (Y - s)²."""
        return self.evaluate("mse", dps=dps, **values)

    def cdf(self, y: object, *, dps: object = 30, **values: object) -> mpmath.mpf:
        """P(Y <= y)."""
        return self.evaluate("cdf", dps=dps, y=y, **values)

    def quantile(self, p: object, *, dps: object = 30, **values: object) -> mpmath.mpf:
        """inf{y : P(Y <= y) >= p}."""
        return self.evaluate("quantile", dps=dps, p=p, **values)

    # -- sampling ---------------------------------------------------------
    def sample(self, rng: Any, size: Any, **values: Any) -> Any:
        """``size`` draws of Y as a numpy array (vectorised inverse-CDF samplers of
        :mod:`dpcheck.sampling.mechanisms`); ``rng`` a numpy Generator or a seed;
        ``size`` numpy's convention, at most the ``sample size`` ceiling of
        :mod:`dpcheck.inputs.limits` (10^8 draws per call)."""
        from dpcheck.sampling import mechanisms as sampling

        return sampling.sample(self.name, rng, size, **values)

    # -- privacy (issue 19; dpcheck.numeric.profile) ------------------------
    # Privacy parameters are decimals in the user's mind: a float is read by its shortest
    # repr (1e-06 is 10^-6, 0.1 is 1/10), as the CLI reads its arguments.
    def neighbours(
        self, *, sensitivity: object, lower: object = None, upper: object = None,
        scale: object = None,
    ) -> Any:
        """Validated :class:`dpcheck.numeric.profile.Neighbours`: inputs s, s' in
        [lower, upper] with |s - s'| <= sensitivity; ``scale`` is the base's own (λ, σ, or
        b with α = e^{-1/b})."""
        from dpcheck.numeric import profile

        return profile.neighbours(
            self.name, _decimal(sensitivity), _decimal(lower), _decimal(upper), _decimal(scale)
        )

    def delta(
        self, epsilon: object, *, sensitivity: object, scale: object, lower: object = None,
        upper: object = None,
    ) -> Any:
        """δ(ε), the privacy profile at ε (:class:`dpcheck.numeric.profile.Profile`:
        ``upper`` the safe value, ``lower`` attained by its ``s``, ``s_prime``, ``event``)."""
        from dpcheck.numeric import profile

        nb = self.neighbours(sensitivity=sensitivity, lower=lower, upper=upper, scale=scale)
        return profile.delta_for_epsilon(nb, profile.parse_epsilon(_decimal(epsilon)))

    def epsilon(
        self, delta: object, *, sensitivity: object, scale: object, lower: object = None,
        upper: object = None,
    ) -> Any:
        """ε(δ), the smallest ε with δ(ε) <= δ (:class:`dpcheck.numeric.profile.Epsilon`)."""
        from dpcheck.numeric import profile

        nb = self.neighbours(sensitivity=sensitivity, lower=lower, upper=upper, scale=scale)
        return profile.epsilon_for_delta(nb, profile.parse_delta(_decimal(delta)))

    def pure_epsilon(
        self, *, sensitivity: object, scale: object, lower: object = None, upper: object = None
    ) -> Any:
        """sup log P_s(y)/P_s'(y) over neighbours and outputs, possibly ``inf``
        (:class:`dpcheck.numeric.profile.Pure`, with the pair and output attaining it)."""
        from dpcheck.numeric import profile

        nb = self.neighbours(sensitivity=sensitivity, lower=lower, upper=upper, scale=scale)
        return profile.pure_epsilon(nb)

    def calibrate(
        self, epsilon: object, delta: object = 0, *, sensitivity: object, lower: object = None,
        upper: object = None,
    ) -> Any:
        """The smallest scale giving (ε, δ)-DP, rounded up and confirmed
        (:class:`dpcheck.laws.calibrate.Calibration`, with its bias and MSE cost)."""
        from dpcheck.numeric import profile

        nb = self.neighbours(sensitivity=sensitivity, lower=lower, upper=upper)
        eps, d = profile.parse_epsilon(_decimal(epsilon)), profile.parse_delta(_decimal(delta))
        return profile.calibrate(nb, eps, d)

    def to_dp_accounting(
        self, *, sensitivity: object, scale: object, lower: object = None, upper: object = None,
        value_discretization_interval: float = 1e-4,
    ) -> Any:
        """This mechanism's exact privacy loss distribution as a pessimistic
        dp_accounting PLD, to compose with a real accountant (needs the ``[peers]``
        extra; unbounded mechanisms only:
        :func:`dpcheck.peers.dp_accounting_compare.to_dp_accounting`)."""
        from dpcheck.peers import dp_accounting_compare

        return dp_accounting_compare.to_dp_accounting(
            self.name, sensitivity=_decimal(sensitivity), scale=_decimal(scale),
            lower=_decimal(lower), upper=_decimal(upper),
            value_discretization_interval=value_discretization_interval,
        )


def _decimal(value: object) -> object:
    """A float as its shortest repr (read as an exact decimal); anything else unchanged."""
    return repr(value) if isinstance(value, float) else value


def mechanism(name: str) -> Mechanism:
    """The mechanism ``name``: '<bounding>-<base>' (truncated-gaussian, clamped-geometric,
    folded-laplace, ...), a bare base (gaussian), or Liu's aliases 'truncated', 'bit'."""
    return Mechanism(name)


__all__ = ["Mechanism", "mechanism"]
