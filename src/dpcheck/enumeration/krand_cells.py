"""The component systems behind the certified multi-bit bound (Zhilyaev and Zeber 2016, §2-§3).

Derivation: ``derivations/krand-shuffle-bound.tex`` (built by
:mod:`dpcheck.derivations.krand_shuffle`, every step checked there).  In short:

* **Frame.**  XOR with the changed user's first vector a and a permutation of the bit
  positions (both bijections on histograms, §2.2) bring every neighbouring pair to
  a = 0, b = 1^h 0^(L-h): h = |a XOR b| bits differ, B = the first h positions,
  N = the other L' = L - h.  Both orders of a pair are the two hockey-stick directions.
* **Cells.**  A report y falls in cell (k, l) = (|y_B|, |y_N|).  The changed user's laws
  are constant on each cell (they depend on y only through its distances to 0 and b):
  alpha(k, l) = Bin(h, q)(k) Bin(L', q)(l) and beta(k, l) = Bin(h, p)(k) Bin(L', q)(l).
* **Classes.**  A background user holding x is of class (u, v) = (|x_B|, |x_N|).  On cell
  (k, l) its law is at least gamma(k, l) times the uniform law of the cell, where
  gamma = g_h(u) (x) g_L'(v) and g_m(w)(k) = C(m, k) p^(m - d) q^d with
  d = min(w + k, 2m - w - k), the largest distance from a weight-w vector to a weight-k
  one (p^(m-d) q^d decreases in d because q < p).  lambda = sum gamma <= 1; it is 1 for
  the extreme classes u in {0, h}, v in {0, L'}, whose laws are constant on cells.
* **Lemma (clones).**  Each background user is, independently, a *clone* (its report
  drawn from the uniform law of a cell chosen with gamma/lambda) with probability
  lambda, otherwise a *left-over* user whose report is revealed.  The released
  histogram is a post-processing of the cell histogram of the changed user and the
  clones plus the left-over reports, and revealing the (world-independent) clone set
  can only increase a hockey-stick divergence, so delta(eps) <= E delta_N(eps) where
  delta_N is that of the *N-experiment* N = e_K + sum over clones e_Z.
* **N-clones** (:func:`nclone_system`, h < L).  The same lemma with the components
  S_B(k) x R_N(0) (the changed user's own N-law): a class (u, v) user is such a clone
  with probability r^v lambda_h(u), r = q/p, its cell drawn from g_h(u)/lambda_h(u).

Everything here is exact in the sense used by the certificates: the laws are computed
in FLINT arb balls (q exact from :class:`~dpcheck.enumeration.krand_l1_exact.LieProbability`)
and the floats handed to the float evaluators are rounded outward.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import flint
import numpy as np

from dpcheck.enumeration.krand_l1_exact import LieProbability

#: arb working precision (bits) for the cell laws.
PREC = 192


def max_distance(m: int, w: int, k: int) -> int:
    """Largest Hamming distance between a weight-w and a weight-k vector of m bits."""
    return min(w + k, 2 * m - w - k)


def _arb(x: object) -> flint.arb:
    return x if isinstance(x, flint.arb) else flint.arb(x)


@dataclass(frozen=True)
class Lie:
    """q, p and r = q/p as arb balls and floats (the floats only for search)."""

    lie: LieProbability

    @functools.cached_property
    def q(self) -> flint.arb:
        with flint.ctx.workprec(PREC):
            return self.lie.ball()

    @functools.cached_property
    def p(self) -> flint.arb:
        with flint.ctx.workprec(PREC):
            return 1 - self.q

    @property
    def qf(self) -> float:
        return self.lie.float


def sphere_measure(m: int, w: int, lie: Lie) -> list[flint.arb]:
    """g_m(w): per weight k, C(m, k) times the least report probability of a weight-k report
    from a weight-w vector of m bits (arb)."""
    with flint.ctx.workprec(PREC):
        out = []
        for k in range(m + 1):
            d = max_distance(m, w, k)
            out.append(math.comb(m, k) * lie.p ** (m - d) * lie.q**d)
        return out


def binomial_law(m: int, theta: flint.arb) -> list[flint.arb]:
    """Bin(m, theta) on 0..m (arb)."""
    with flint.ctx.workprec(PREC):
        return [math.comb(m, k) * theta**k * (1 - theta) ** (m - k) for k in range(m + 1)]


def _up(x: flint.arb) -> float:
    """A float >= every point of the ball."""
    v = float(x.upper())
    return v if v >= x.upper() else math.nextafter(v, math.inf)


def _down(x: flint.arb) -> float:
    """A float <= every point of the ball."""
    v = float(x.lower())
    return v if v <= x.lower() else math.nextafter(v, -math.inf)


def clone_probability(gamma: Sequence[flint.arb], phi: Sequence[flint.arb]) -> float:
    """A float theta <= min over cells of gamma / phi (cells where phi is 0 skipped; 0 if
    phi's ball straddles 0): a user whose law is at least ``gamma`` is a clone of ``phi``
    with probability at least theta (the clone lemma)."""
    low = 1.0
    with flint.ctx.workprec(PREC):
        for g, f in zip(gamma, phi, strict=False):
            if f.upper() <= 0:
                continue
            if f.lower() <= 0:
                return 0.0
            low = min(low, _down(g / f))
    return max(0.0, low)


@dataclass(frozen=True, eq=False)
class Cells:
    """One component system: the cells, the changed user's two laws on them, and the
    classes' sub-measures (module doc).  ``shape`` is the cell grid (h + 1, L' + 1) for
    the orbit system and (h + 1,) for the N-clone system."""

    L: int
    h: int
    lie: LieProbability
    shape: tuple[int, ...]
    alpha: tuple[flint.arb, ...]  # flattened over the grid, row-major
    beta: tuple[flint.arb, ...]
    classes: tuple[tuple[int, int], ...]
    gamma: dict[tuple[int, int], tuple[flint.arb, ...]]
    kind: str
    #: the factors: alpha = aB (x) aN, beta = bB (x) aN (aN = (1,) for the N-clone cells)
    factors: tuple[tuple[flint.arb, ...], tuple[flint.arb, ...], tuple[flint.arb, ...]]

    @property
    def size(self) -> int:
        return len(self.alpha)

    def lam(self, c: tuple[int, int]) -> flint.arb:
        with flint.ctx.workprec(PREC):
            return sum(self.gamma[c], flint.arb(0))

    def is_extreme(self, c: tuple[int, int]) -> bool:
        """lambda = 1 exactly: the class's law is constant on the cells."""
        u, v = c
        if u not in (0, self.h):
            return False
        return v == 0 if self.kind == "nclone" else v in (0, self.L - self.h)

    def clone_law(self, c: tuple[int, int]) -> np.ndarray:
        """gamma/lambda of a class, as floats (a search hint; bounds use :meth:`theta`)."""
        g = np.array([float(x.mid()) for x in self.gamma[c]])
        return g / g.sum()

    def theta(self, c: tuple[int, int], phi: Sequence[flint.arb]) -> float:
        """A float theta <= min over cells of gamma_c / phi: the class's users are clones of
        the exact law ``phi`` (arb balls) with probability at least theta (lemma)."""
        return clone_probability(self.gamma[c], phi)

    def float_laws(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(alpha_lo, alpha_hi, beta_lo, beta_hi): float enclosures of the changed user's laws."""
        return (
            np.array([_down(x) for x in self.alpha]),
            np.array([_up(x) for x in self.alpha]),
            np.array([_down(x) for x in self.beta]),
            np.array([_up(x) for x in self.beta]),
        )


def _outer(a: Sequence[flint.arb], b: Sequence[flint.arb]) -> tuple[flint.arb, ...]:
    with flint.ctx.workprec(PREC):
        return tuple(x * y for x in a for y in b)


@functools.lru_cache(maxsize=64)
def orbit_system(L: int, h: int, lie: LieProbability) -> Cells:
    """Cells (|y_B|, |y_N|), classes (|x_B|, |x_N|) (module doc)."""
    lz = Lie(lie)
    Lp = L - h
    aB, bB, aN = binomial_law(h, lz.q), binomial_law(h, lz.p), binomial_law(Lp, lz.q)
    classes = tuple((u, v) for u in range(h + 1) for v in range(Lp + 1))
    gB = {u: sphere_measure(h, u, lz) for u in range(h + 1)}
    gN = {v: sphere_measure(Lp, v, lz) for v in range(Lp + 1)}
    gamma = {(u, v): _outer(gB[u], gN[v]) for u, v in classes}
    return Cells(
        L,
        h,
        lie,
        (h + 1, Lp + 1),
        _outer(aB, aN),
        _outer(bB, aN),
        classes,
        gamma,
        "orbit",
        (tuple(aB), tuple(bB), tuple(aN)),
    )


@functools.lru_cache(maxsize=64)
def nclone_system(L: int, h: int, lie: LieProbability) -> Cells:
    """Cells |y_B| only; a class (u, v) user is a clone w.p. r^v lambda_h(u) (module doc)."""
    lz = Lie(lie)
    Lp = L - h
    with flint.ctx.workprec(PREC):
        r = lz.q / lz.p
        aB, bB = binomial_law(h, lz.q), binomial_law(h, lz.p)
        classes = tuple((u, v) for u in range(h + 1) for v in range(Lp + 1))
        gB = {u: sphere_measure(h, u, lz) for u in range(h + 1)}
        gamma = {(u, v): tuple(x * r**v for x in gB[u]) for u, v in classes}
    one = (flint.arb(1),)
    return Cells(
        L,
        h,
        lie,
        (h + 1,),
        tuple(aB),
        tuple(bB),
        classes,
        gamma,
        "nclone",
        (tuple(aB), tuple(bB), one),
    )


def class_size(L: int, h: int, c: tuple[int, int]) -> int:
    """How many vectors x have class c = (|x_B|, |x_N|)."""
    u, v = c
    return math.comb(h, u) * math.comb(L - h, v)
