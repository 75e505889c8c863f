"""The symbols every layer shares (Liu 2019, §3 notation).

``s`` is the statistic (the Laplace location), ``c0 < c1`` the bounds,
``lam`` the Laplace scale λ, ``x`` the integration variable.  The normalised
distances to the bounds are ``t0 = (s - c0)/λ`` and ``t1 = (c1 - s)/λ``; in
them the bias is λ·(function of t0, t1) and the MSE λ²·(function of t0, t1).
``u0 = exp(-t0)`` and ``u1 = exp(-t1)`` stand for the exponentials when an
expression is reduced to a rational function for an exact zero test.
"""

from __future__ import annotations

import sympy as sp

s = sp.Symbol("s", real=True)
c0 = sp.Symbol("c_0", real=True)
c1 = sp.Symbol("c_1", real=True)
lam = sp.Symbol("lambda", positive=True)
x = sp.Symbol("x", real=True)

#: the Gaussian scale σ, the two-sided geometric's scale b and α = e^{-1/b},
#: the standardised variable z = (x - s)/σ and the lattice index m (X = s + m)
sigma = sp.Symbol("sigma", positive=True)
scale = sp.Symbol("b", positive=True)
alpha = sp.Symbol("alpha", positive=True)
z = sp.Symbol("z", real=True)
m = sp.Symbol("m", integer=True)

t0 = sp.Symbol("t_0", nonnegative=True)
t1 = sp.Symbol("t_1", nonnegative=True)
u0 = sp.Symbol("u_0", positive=True)
u1 = sp.Symbol("u_1", positive=True)

#: generalised Gaussian parameters of eq (3)
mu = sp.Symbol("mu", real=True)
b = sp.Symbol("b", positive=True)
p = sp.Symbol("p", positive=True)

#: privacy budget and sensitivity (λ = δ1/ε, Definition 2)
epsilon = sp.Symbol("epsilon", positive=True)
delta1 = sp.Symbol("delta_1", positive=True)

#: p1, p2 of Appendix B: the Laplace tail masses below c0 and above c1
p1 = sp.exp((c0 - s) / lam) / 2
p2 = sp.exp((s - c1) / lam) / 2

#: c0, c1 written through the normalised distances
NORMALISE = {c0: s - lam * t0, c1: s + lam * t1}
