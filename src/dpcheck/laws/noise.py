"""A noise law defined by the little it must give (issue 35, "The design").

A :class:`NoiseLaw` is its density or pmf as a SymPy expression of the offset
:data:`z` and its parameters (an unnormalised *kernel* is enough: the
normaliser is derived), its support (the real line or the integer lattice),
its parameters with their domains, and the name of its scale parameter.
Everything else is derived (:mod:`dpcheck.laws.numeric`: normaliser, CDF,
moments, quantile, sampler; :mod:`dpcheck.laws.additive`: privacy).

Like scipy.stats' distribution infrastructure, a law MAY override a derived
quantity with a closed form: a subclass defines ``_normaliser_formula``,
``_cdf_formula`` (F(y) for y <= 0, the left branch; the right branch is taken
from the mirror law when the law is symmetric) or ``_moment_formula(k)``; the
generic route is used otherwise.  The symbolic routes here try SymPy on each
smooth piece of the kernel (split at :attr:`breakpoints`, ``|z|`` resolved on
each side) and return ``None`` when SymPy leaves an integral or sum
unevaluated; the numeric layer then sums or integrates with a stated error.

Log-concavity (the monotone-likelihood-ratio shortcut of the privacy engine,
:mod:`dpcheck.laws.additive`) is *checked*, not assumed: the second derivative
of log kernel is proved <= 0 on each side of 0 and the kink at 0 is concave
(:meth:`NoiseLaw.log_concave`).  A law whose kernel SymPy cannot decide (an
indicator, a step function) may state it with a reason, which the tests
confirm numerically.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, wraps
from typing import Literal

import sympy as sp

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, shown

Support = Literal["real", "integers"]

#: the offset of the noise (the output minus the input), real
z = sp.Symbol("z", real=True)
#: the same offset on the lattice
k = sp.Symbol("k", integer=True)
#: a positive stand-in for |z| used to resolve the kernel on one side of 0
t = sp.Symbol("t", positive=True)

_DOMAINS = {
    "positive": ("> 0", lambda v: v > 0),
    "nonnegative": (">= 0", lambda v: v >= 0),
    "unit": ("in [0, 1]", lambda v: 0 <= v <= 1),
    "open unit": ("in (0, 1)", lambda v: 0 < v < 1),
    "positive integer": ("an integer >= 1", lambda v: v >= 1 and v.denominator == 1),
}


#: names a parameter may not take: the input s, the offsets z and k, the output y, the
#: tail argument u, the side variable t, Euler's e
RESERVED = frozenset({"s", "z", "k", "y", "u", "t", "e"})


def _nonnegative(expr: sp.Expr) -> bool:
    """expr >= 0 for every t > 0 and parameter value, proved by SymPy (branch by branch for
    a Piecewise)."""
    if isinstance(expr, sp.Piecewise):
        return all(_nonnegative(value) for value, _ in expr.args)
    return bool(expr.is_nonnegative)


def _memoised(method):  # type: ignore[no-untyped-def]
    """Cache a derivation on the law object itself (SymPy's work is done once per law)."""

    @wraps(method)
    def wrapper(self, *args):  # type: ignore[no-untyped-def]
        memo = self.__dict__.setdefault("_memo", {})
        key = (method.__name__, args)
        if key not in memo:
            memo[key] = method(self, *args)
        return memo[key]

    return wrapper


@dataclass(frozen=True)
class Param:
    """One parameter of a law: its name (as the user types it) and its domain."""

    name: str
    domain: str = "positive"
    #: what it is, for help texts ("the scale b", "the design epsilon")
    meaning: str = ""

    def __post_init__(self) -> None:
        if self.domain not in _DOMAINS:
            raise InputError(
                f"parameter domain {self.domain!r} (expected one of: {', '.join(_DOMAINS)})"
            )
        if not self.name.isidentifier():
            raise InputError(f"parameter name {self.name!r} (expected a plain identifier)")
        if self.name in RESERVED:
            raise InputError(
                f"parameter name {self.name!r} is reserved (the input s, the offset z or k,"
                f" the output y, e); expected another name"
            )

    @cached_property
    def symbol(self) -> sp.Symbol:
        """The SymPy symbol, with the assumptions of its domain."""
        if self.domain in ("positive", "open unit"):
            return sp.Symbol(self.name, positive=True)
        if self.domain == "positive integer":
            return sp.Symbol(self.name, positive=True, integer=True)
        return sp.Symbol(self.name, nonnegative=True)

    @property
    def expected(self) -> str:
        return f"{self.name} {_DOMAINS[self.domain][0]}"

    def parse(self, value: object) -> Fraction:
        """An exact value in the domain; one-line InputError otherwise."""
        number = parse_number(self.name, value)
        if not _DOMAINS[self.domain][1](number):
            raise InputError(f"{self.name}={shown(value)}: expected {self.expected}")
        return number


class NoiseLaw:
    """A centred noise law given by a kernel (density or pmf up to a constant).

    ``kernel`` is a SymPy expression in :data:`z` (real support) or :data:`k`
    (integer support) and the parameters' symbols; ``breakpoints`` are the
    offsets where the kernel is not smooth besides 0 (expressions of the
    parameters), used to split integrals; ``symmetric`` says kernel(-z) =
    kernel(z) (checked at construction).
    """

    def __init__(
        self,
        name: str,
        kernel: sp.Expr,
        support: Support,
        params: tuple[Param, ...],
        scale: str,
        *,
        breakpoints: tuple[sp.Expr, ...] = (),
        radius: sp.Expr | None = None,
        log_concave_reason: str = "",
        source: str = "",
    ) -> None:
        if support not in ("real", "integers"):
            raise InputError(f"support {support!r} (expected 'real' or 'integers')")
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise InputError(f"parameters {names} (expected distinct names)")
        if scale not in names:
            raise InputError(f"scale parameter {scale!r} (expected one of: {', '.join(names)})")
        self.name = name
        self.support: Support = support
        self.params = params
        self.scale = scale
        self.source = source
        self.variable = z if support == "real" else k
        self.kernel = sp.sympify(kernel) if isinstance(kernel, (int, Fraction)) else kernel
        free = self.kernel.free_symbols - {self.variable}
        known = {p.symbol for p in params}
        unknown = sorted(str(s) for s in free - known)
        if unknown:
            raise InputError(
                f"the {name} kernel uses {', '.join(unknown)}, which are not among its"
                f" parameters ({', '.join(names) or 'none'})"
            )
        self.breakpoints = tuple(sp.sympify(b) for b in breakpoints)
        for sign in (1, -1):
            if not _nonnegative(self.side(sign)):
                raise InputError(
                    f"the {name} kernel is not proved >= 0 for z {'>' if sign > 0 else '<'} 0"
                    " (a density or pmf must be non-negative)"
                )
        #: the half-width of a bounded support (the kernel is 0 beyond it), or None
        self.radius = None if radius is None else sp.sympify(radius)
        self._log_concave_reason = log_concave_reason

    def __repr__(self) -> str:
        return f"<noise law {self.name}>"

    @property
    def is_lattice(self) -> bool:
        return self.support == "integers"

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise InputError(
            f"{self.name} has no parameter {name!r} (expected one of: {self._names()})"
        )

    def _names(self) -> str:
        return ", ".join(p.name for p in self.params)

    def parse(self, values: Mapping[str, object]) -> dict[str, Fraction]:
        """Exact parameter values from user values (each once, each in its domain)."""
        extra = sorted(set(values) - {p.name for p in self.params})
        if extra:
            raise InputError(
                f"{self.name} has no parameter {extra[0]!r} (expected: {self._names()})"
            )
        missing = [p.name for p in self.params if p.name not in values]
        if missing:
            raise InputError(f"{self.name} needs {', '.join(missing)} ({self._expected()})")
        return {p.name: p.parse(values[p.name]) for p in self.params}

    def _expected(self) -> str:
        return "; ".join(p.expected for p in self.params)

    def symbols(self, values: Mapping[str, Fraction]) -> dict[sp.Symbol, sp.Rational]:
        return {p.symbol: sp.Rational(values[p.name]) for p in self.params}

    # -- the kernel on one side of 0 ----------------------------------------
    @_memoised
    def side(self, sign: int) -> sp.Expr:
        """The kernel at z = sign·t, t > 0, with |z| and sign(z) resolved."""
        expr = sp.simplify(self.kernel.subs(self.variable, sign * t))
        if expr.has(sp.Abs, sp.sign, sp.Heaviside):  # not resolved by t's positivity alone
            # (SymPy's refine is slow: about 1 s at import for the shipped laws, none of
            # which needs it)
            expr = sp.simplify(sp.refine(expr, sp.Q.positive(t)))
        return expr

    @cached_property
    def symmetric(self) -> bool:
        """kernel(-z) == kernel(z), proved by SymPy (False when it cannot tell)."""
        return bool(sp.simplify(self.side(1) - self.side(-1)) == 0)

    @_memoised
    def log_concave(self) -> tuple[bool, str]:
        """Whether the kernel is log-concave, and why (a proof sketch SymPy checked).

        Checked on each side of 0: d²/dt² log kernel(±t) <= 0 for every t > 0 and
        every parameter value in its domain, and concavity at the kink
        (the right derivative at 0 <= the left one).  A law may state the
        property with a reason instead (``log_concave_reason``).
        """
        if self._log_concave_reason:
            return True, self._log_concave_reason
        try:
            logs = [sp.expand_log(sp.log(self.side(s)), force=True) for s in (1, -1)]
            if any(e.has(sp.floor, sp.ceiling, sp.Piecewise, sp.Heaviside) for e in logs):
                return False, "the kernel has steps or pieces: not decided"
            for e in logs:
                second = sp.simplify(sp.diff(e, t, 2))
                if not (second.is_nonpositive or second == 0):
                    return False, f"d²/dt² log kernel = {second} is not proved <= 0"
            right = sp.limit(sp.diff(logs[0], t), t, 0, "+")
            left = -sp.limit(sp.diff(logs[1], t), t, 0, "+")
            kink = sp.simplify(left - right)
            if not (kink.is_nonnegative or kink == 0):
                return False, "the kink at 0 is not proved concave"
        except (TypeError, ValueError, NotImplementedError):  # pragma: no cover - SymPy gave up
            return False, "SymPy could not decide"
        return True, "d²/dz² log kernel <= 0 on each side of 0 and a concave kink (SymPy)"

    # -- symbolic derivations (None when SymPy leaves the integral or sum) ---
    def _integrate_side(self, g: sp.Expr, sign: int, lower: sp.Expr, upper: sp.Expr) -> sp.Expr:
        """∫ g(z)·kernel(z) over z = sign·t, t in [lower, upper] (t > 0)."""
        integrand = g.subs(self.variable, sign * t) * self.side(sign)
        if self.is_lattice:
            assert upper == sp.oo
            if integrand.has(sp.Piecewise):  # SymPy's sums of pieces are not trusted
                return sp.Sum(integrand, (t, lower, upper))
            return series_sum(integrand, t, lower)
        cuts = [lower]
        for b in self.breakpoints:
            cuts.append(b)
        cuts.append(upper)
        total = sp.Integer(0)
        for a, b in zip(cuts, cuts[1:], strict=False):
            total += sp.integrate(integrand, (t, a, b), conds="none")
        return total

    def expectation(self, g: sp.Expr) -> sp.Expr | None:
        """∫ g·kernel (or the sum over the lattice), unnormalised; None without a closed form."""
        first = 1 if self.is_lattice else 0
        total = self._integrate_side(g, 1, first, sp.oo) + self._integrate_side(g, -1, first, sp.oo)
        if self.is_lattice:
            total += g.subs(self.variable, 0) * self.kernel.subs(self.variable, 0)
        total = sp.simplify(total)
        if total.has(sp.Integral, sp.Sum, sp.nan) or total.has(sp.zoo):
            return None
        return total

    @cached_property
    def normaliser(self) -> sp.Expr | None:
        """The kernel's total mass: the law's own formula, else derived, else None."""
        formula = getattr(self, "_normaliser_formula", None)
        if formula is not None:
            return formula()
        total = self.expectation(sp.Integer(1))
        if total is None:
            return None
        if total.has(sp.oo, -sp.oo, sp.zoo) or total == 0:
            raise InputError(
                f"the {self.name} kernel has total mass {total} (expected a finite, positive"
                " integral: a density must be normalisable)"
            )
        return tidy(total)

    @_memoised
    def moment(self, order: int) -> sp.Expr | None:
        """E Z^order, derived (None without a closed form)."""
        formula = getattr(self, "_moment_formula", None)
        if formula is not None:
            return formula(order)
        norm = self.normaliser
        if norm is None:
            return None
        total = self.expectation(self.variable**order)
        if total is not None and total.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
            raise InputError(f"E Z^{order} of {self.name} is not finite ({total})")
        return None if total is None else tidy(sp.simplify(total / norm))

    @_memoised
    def tail(self, sign: int) -> sp.Expr | None:
        """P(sign·Z >= u) for u >= 0, in the symbol :data:`u` (a closed form or None).

        The law's ``_tail_formula(sign)`` when it has one, else derived: the
        integral (or the sum over t >= u) of the kernel on that side over the
        normaliser.
        """
        formula = getattr(self, "_tail_formula", None)
        if formula is not None:
            return formula(sign)
        norm = self.normaliser
        if norm is None:
            return None
        side = self.side(sign)
        if self.is_lattice:
            if side.has(sp.Piecewise):  # SymPy's sums of pieces are not trusted
                return None
            mass = series_sum(side, t, u)
        else:
            mass = sp.integrate(side, (t, u, sp.oo), conds="none")
        mass = tidy(sp.simplify(mass / norm))
        return None if mass.has(sp.Integral, sp.Sum, sp.nan) else mass


#: the argument of a tail: P(sign·Z >= u), u >= 0
u = sp.Symbol("u", nonnegative=True)


_HYPERBOLIC = (sp.tanh, sp.coth, sp.sinh, sp.cosh)


def tidy(expr: sp.Expr) -> sp.Expr:
    """A derived closed form in the functions ball arithmetic evaluates: hyperbolic
    functions written with exp, 1/2 - erf/2 written erfc (no cancellation in the tails)."""
    expr = expr.replace(lambda e: isinstance(e, _HYPERBOLIC), lambda e: e.rewrite(sp.exp))
    return sp.simplify(expr).rewrite(sp.erfc) if expr.has(sp.erf) else expr


def series_sum(term: sp.Expr, var: sp.Symbol, lower: sp.Expr) -> sp.Expr:
    """Σ_{var >= lower} term in closed form where SymPy finds one (else a Sum).

    SymPy sums x^j·poly(j) but not exp(-j/b)·poly(j): each exponential linear in
    ``var`` is written X^var with X = exp(a) a positive symbol, the series is
    summed, and the branch whose condition is X < 1 (that is a < 0, decided by
    SymPy's assumptions) is kept.
    """
    term = sp.expand(sp.powsimp(sp.expand_power_exp(sp.expand(term))))
    logs: dict[sp.Dummy, sp.Expr] = {}
    keys: dict[sp.Expr, sp.Dummy] = {}

    def swap(e: sp.Expr) -> sp.Expr:
        arg = sp.expand(e.args[0])
        a = arg.coeff(var, 1)
        rest = sp.expand(arg - a * var)
        if a == 0 or rest.has(var):
            return e
        a = sp.simplify(a)
        if a not in keys:
            keys[a] = sp.Dummy("X", positive=True)
            logs[keys[a]] = a
        return sp.exp(rest) * keys[a] ** var

    term = term.replace(lambda e: isinstance(e, sp.exp) and e.args[0].has(var), swap)
    total = sp.summation(term, (var, lower, sp.oo))

    def holds(cond: sp.Basic) -> bool:
        if cond is sp.true:
            return True
        if isinstance(cond, sp.And):
            return all(holds(c) for c in cond.args)
        if isinstance(cond, sp.StrictLessThan) and cond.rhs == 1:
            lhs = cond.lhs.args[0] if isinstance(cond.lhs, sp.Abs) else cond.lhs
            if lhs in logs:
                return bool(logs[lhs].is_negative)
        return False

    def pick(p: sp.Piecewise) -> sp.Expr:
        for value, cond in p.args:
            if holds(cond):
                return value
        return p

    total = total.replace(lambda e: isinstance(e, sp.Piecewise), pick)
    total = total.subs({x: sp.exp(a) for x, a in logs.items()})
    return sp.simplify(total)


def mirrored(law: NoiseLaw) -> NoiseLaw:
    """The law of -Z (the same law when it is symmetric)."""
    if law.symmetric:
        return law
    return NoiseLaw(
        f"mirrored {law.name}",
        law.kernel.subs(law.variable, -law.variable),
        law.support,
        law.params,
        law.scale,
        breakpoints=law.breakpoints,
        radius=law.radius,
        log_concave_reason=law._log_concave_reason,
        source=law.source,
    )
