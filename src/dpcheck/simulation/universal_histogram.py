"""The modified universal histogram of Liu (2019) §4.2 (steps 1-5, footnote 3).

After Hay et al. (2010), "Boosting the accuracy of differentially private histograms".

Step 1 arranges the four proportions in a binary tree of three layers: the
root (fixed at 1), h1 = p_a + p_b and h2 = p_c + p_d, and the leaves
h11, h12, h21, h22.  The node order used throughout is

    (h1, h2, h11, h12, h21, h22).

Step 2 sanitises the six nodes with scale 2/(n epsilon) (done by the caller).
Step 3: z(v) = h*(v) at a leaf and z(v) = 1/3 sum_children z + 2/3 h*(v) in layer 2.
Step 4: hbar(v) = z(v) + 1/2 (hbar(u) - sum_{v' child of u} z(v')) with u the
parent of v and hbar(root) = 1.  The paper prints h(u); read as the
*unsanitised* parent that would use private data and leave the layer-3 nodes
summing to h(u) instead of hbar(u).  :func:`correct` reads it as Hay et al.'s
hbar(u) (their Theorem 3), the corrected parent.
Footnote 3: negative nodes after step 4 are set to 0 and their siblings
re-normalised to sum to their parent (:func:`footnote3`).

:func:`correct` uses only +, -, * and /, so it runs on numpy arrays and on
SymPy symbols alike: the claims prove with the very same code that step 4
returns a consistent tree and that it is the least-squares consistent tree
(:func:`least_squares`, solved directly from its KKT system).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np

#: §4.2: "((h11 = p1, h12 = p2) in h1; (h21 = p3, h22 = p4) in h2)", the grouping shown
GROUPING = ((0, 1), (2, 3))
#: the other grouping the paper tried, "((h11 = p1, h12 = p4) in h1; (h21 = p2, h22 = p3) in h2)"
OTHER_GROUPING = ((0, 3), (1, 2))
NODES = ("h1", "h2", "h11", "h12", "h21", "h22")


def tree(p: Any, grouping: tuple[tuple[int, int], tuple[int, int]] = GROUPING) -> list[Any]:
    """Step 1: the six node values (h1, h2, h11, h12, h21, h22) of proportions p (last axis)."""
    (a, b), (c, d) = grouping
    leaves = [p[..., a], p[..., b], p[..., c], p[..., d]]
    return [leaves[0] + leaves[1], leaves[2] + leaves[3], *leaves]


def leaves_to_p(
    nodes: Sequence[Any], grouping: tuple[tuple[int, int], tuple[int, int]] = GROUPING
) -> np.ndarray:
    """The proportion vector (last axis) from the leaves h11, h12, h21, h22."""
    order = [i for pair in grouping for i in pair]
    out = [None] * 4
    for leaf, index in zip(nodes[2:], order, strict=True):
        out[index] = leaf
    return np.stack(out, axis=-1)


def _fractions(x: Any) -> tuple[Any, Any]:
    """1/3 and 1/2 in the arithmetic of ``x``: floats for float arrays, exact otherwise."""
    if isinstance(x, np.ndarray) and x.dtype != object:
        return 1 / 3, 0.5
    return Fraction(1, 3), Fraction(1, 2)


def _layer2(nodes: Sequence[Any]) -> tuple[Any, Any]:
    """Step 3 in layer 2 and step 4 below the root (hbar(root) = 1)."""
    h1, h2, h11, h12, h21, h22 = nodes
    third, half = _fractions(h1)
    z1 = third * (h11 + h12) + 2 * third * h1
    z2 = third * (h21 + h22) + 2 * third * h2
    return z1 + half * (1 - z1 - z2), z2 + half * (1 - z1 - z2)


def _layer3(g1: Any, g2: Any, nodes: Sequence[Any]) -> list[Any]:
    """Step 4 in layer 3 given the corrected parents (z = h* at a leaf)."""
    _, half = _fractions(nodes[0])
    _, _, h11, h12, h21, h22 = nodes
    return [
        h11 + half * (g1 - h11 - h12),
        h12 + half * (g1 - h11 - h12),
        h21 + half * (g2 - h21 - h22),
        h22 + half * (g2 - h21 - h22),
    ]


def correct(nodes: Sequence[Any]) -> list[Any]:
    """Steps 3 and 4 (Hay et al. 2010, Theorem 3, with the root fixed at 1), without footnote 3.

    Only +, -, * and / are used: ``nodes`` may be float arrays, object arrays of
    Fractions, Fractions or SymPy symbols.
    """
    g1, g2 = _layer2(nodes)
    return [g1, g2, *_layer3(g1, g2, nodes)]


def _clip_siblings(
    a: np.ndarray, b: np.ndarray, parent: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Footnote 3 for one pair: negatives to 0, the pair re-normalised to sum to ``parent``."""
    neg = (a < 0) | (b < 0)
    ap, bp = np.where(a < 0, 0 * a, a), np.where(b < 0, 0 * b, b)
    total = ap + bp
    fixed = neg & (total > 0)
    scale = np.where(fixed, parent / np.where(fixed, total, 1 + 0 * total), 1 + 0 * total)
    return ap * scale, bp * scale


def release(sanitised: Sequence[Any]) -> list[np.ndarray]:
    """Steps 3-5 with footnote 3: the released tree from the sanitised nodes of step 2.

    Top-down: layer 2 is corrected and clipped; layer 3 is then corrected
    towards the clipped parents (the hbar(u) of step 4) and clipped.  Works on
    float arrays and on object arrays of Fractions.
    """
    nodes = [np.asarray(x) for x in sanitised]
    g1, g2 = _layer2(nodes)
    g1, g2 = _clip_siblings(np.asarray(g1), np.asarray(g2), np.ones_like(g1))
    g11, g12, g21, g22 = _layer3(g1, g2, nodes)
    g11, g12 = _clip_siblings(g11, g12, g1)
    g21, g22 = _clip_siblings(g21, g22, g2)
    return [g1, g2, g11, g12, g21, g22]


# --- the least-squares consistent tree, computed directly -----------------------------

#: consistency A x = b for x = (h1, h2, h11, h12, h21, h22): h1 + h2 = 1 (root fixed at 1),
#: h11 + h12 = h1, h21 + h22 = h2
CONSTRAINTS = (
    ((1, 1, 0, 0, 0, 0), 1),
    ((-1, 0, 1, 1, 0, 0), 0),
    ((0, -1, 0, 0, 1, 1), 0),
)


def least_squares(y: Sequence[Any], zero: Sequence[int] = ()) -> list[Any]:
    """argmin ||x - y||^2 subject to consistency (and x_i = 0 for i in ``zero``), exactly.

    Solved from the KKT system [[2I, A^T], [A, 0]] [x; mu] = [2y; b] with SymPy,
    so ``y`` may hold symbols (the proof) or rationals (a counterexample).
    """
    import sympy as sp

    rows = [list(a) for a, _ in CONSTRAINTS] + [
        [1 if j == i else 0 for j in range(6)] for i in zero
    ]
    rhs = [b for _, b in CONSTRAINTS] + [0] * len(zero)
    a = sp.Matrix(rows)
    k = a.shape[0]
    kkt = sp.Matrix(sp.BlockMatrix([[2 * sp.eye(6), a.T], [a, sp.zeros(k, k)]]))
    sol = kkt.LUsolve(sp.Matrix([2 * sp.sympify(v) for v in y] + rhs))
    return [sp.simplify(sol[i]) for i in range(6)]


def nonnegative_least_squares(y: Sequence[Fraction]) -> tuple[list[Any], Any]:
    """argmin ||x - y||^2 over consistent trees with x >= 0, exactly (rational y).

    The problem is a convex QP in 6 variables; its minimiser is the equality
    solution of some active set.  Every active set is tried, and the feasible
    candidate of least objective is returned with that objective.
    """
    best: tuple[list[Any], Any] | None = None
    for k in range(0, 7):
        for zero in combinations(range(6), k):
            try:
                x = least_squares(y, zero)
            except (ValueError, ZeroDivisionError):  # inconsistent active set
                continue
            if any(v < 0 for v in x):
                continue
            objective = sum((xi - yi) ** 2 for xi, yi in zip(x, y, strict=True))
            if best is None or objective < best[1]:
                best = (x, objective)
    assert best is not None  # x = (1, 0, 1, 0, 0, 0) is always feasible
    return best
