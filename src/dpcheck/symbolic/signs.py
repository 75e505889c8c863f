"""Machine-checked sign arguments on t > 0 (the normalised distances of §3.2).

:func:`prove_positive` proves ``expr > 0`` for every t > 0 and returns the
argument as a list of steps, or None when it cannot.  The rules, tried in
order, are each sound:

1. SymPy's assumption system decides the sign (t is a positive symbol);
2. a fraction is positive if numerator and denominator have the same sign;
3. a product is positive if every factor is;
4. a sum is positive if every term is;
5. monotone from zero: if lim_{t→0+} expr >= 0 (exact) and expr' > 0 on
   t > 0 (recursively), then expr > 0 on t > 0.

This is how Appendix A's derivative arguments (Proposition 1) are re-done
without trusting the printed derivatives.
"""

from __future__ import annotations

import sympy as sp


def prove_positive(expr: sp.Expr, t: sp.Symbol, depth: int = 4) -> list[str] | None:
    """Steps proving expr > 0 for all t > 0, or None."""
    tp = sp.Dummy("t", positive=True)
    return _positive(sp.sympify(expr).subs(t, tp), tp, depth, t)


def prove_negative(expr: sp.Expr, t: sp.Symbol, depth: int = 4) -> list[str] | None:
    """Steps proving expr < 0 for all t > 0, or None."""
    return prove_positive(-expr, t, depth)


def _show(e: sp.Expr, tp: sp.Symbol, t: sp.Symbol) -> str:
    return str(e.subs(tp, t))


def _positive(e: sp.Expr, tp: sp.Symbol, depth: int, t: sp.Symbol) -> list[str] | None:
    e = sp.simplify(e)
    if e.is_positive:
        return [f"{_show(e, tp, t)} > 0 for t > 0 (SymPy assumptions)"]
    num, den = sp.fraction(sp.together(e))
    if den != 1:
        for sign in (1, -1):
            a = _positive(sign * num, tp, depth, t)
            b = _positive(sign * den, tp, depth, t) if a is not None else None
            if a is not None and b is not None:
                return a + b + [f"so the fraction {_show(e, tp, t)} > 0"]
        return None
    if isinstance(e, sp.Mul):
        steps: list[str] = []
        negatives = 0
        for factor in e.args:
            got = _positive(factor, tp, depth, t)
            if got is None:
                got = _positive(-factor, tp, depth, t)
                negatives += 1
                if got is None:
                    return None
            steps += got
        if negatives % 2 == 0:
            return steps + [f"so the product {_show(e, tp, t)} > 0"]
        return None
    if isinstance(e, sp.Add):
        steps = []
        for term in e.args:
            got = _positive(term, tp, 0, t)
            if got is None:
                steps = None
                break
            steps += got
        if steps is not None:
            return steps + [f"so the sum {_show(e, tp, t)} > 0"]
    if depth <= 0:
        return None
    at_zero = sp.limit(e, tp, 0, "+")
    if not (at_zero.is_number and at_zero >= 0):
        return None
    slope = sp.simplify(sp.diff(e, tp))
    got = _positive(slope, tp, depth - 1, t)
    if got is None:
        return None
    return got + [
        f"d/dt [{_show(e, tp, t)}] = {_show(slope, tp, t)} > 0 and the value at t = 0+ is "
        f"{at_zero}, so {_show(e, tp, t)} > 0 for t > 0"
    ]
