"""The law objects' generic route against the closed-form route, in one run (issue 35).

Eight tables, each timing two things in the same run and printing their ratio:

1. moments of the bounded Laplace and Gaussian at 30 digits: the mechanism algebra's
   closed forms (:mod:`dpcheck.numeric.mechanism_mp`, mpmath) against the generic
   route (:mod:`dpcheck.laws.bounded`: the law's CDF and partial moments in ball
   arithmetic), with the largest difference seen;
2. δ(ε) of the Laplace and Gaussian mechanisms: the closed-form engine
   (:mod:`dpcheck.numeric.profile`) against the generic one (:mod:`dpcheck.laws.additive`:
   SymPy's crossing and the ball-arithmetic CDF), same printed numbers required;
3. a new law's cost (the discrete Gaussian, no SymPy closed form: its own theta
   forms for the variance, certified lattice sums for δ): its variance at 30 digits
   and its δ(1), against the same quantities of the two-sided geometric (closed form)
   through the same engine;
4. the discrete Gaussian's variance by its Jacobi theta forms against the generic
   certified lattice sum (the same pmf as a user's law, which has no theta forms),
   with the largest relative difference;
5. δ(ε) of the bounded mechanisms (truncated, clamped): the closed-form engine
   (:mod:`dpcheck.numeric.profile`) against the generic edge search
   (:mod:`dpcheck.laws.bounded_privacy`), with both printed values and kinds;
6. the calibrated scale (the smallest scale giving (ε, δ)-DP): the closed-form engine's
   float64-guided bisection (:func:`dpcheck.numeric.profile.calibrate`) against the
   generic bisection on certified decisions (:mod:`dpcheck.laws.calibrate`), with both
   printed scales;
7. the generic edge search's crossing of t* (the bracket of sup{D > 0} of each pair)
   started from a float64 guess against the same search without it (bisection and
   Illinois steps from the whole support), with both printed values;
8. draws of a bounded law (:func:`dpcheck.laws.float64.bounded_sampler`, 10^6 draws
   after its set-up): the shipped Laplace and discrete Laplace's own vectorised draws
   against the generic route for the same density given as a user's law (polynomial
   inversion on [c0 - s, c1 - s], or the pmf table), set-up included, with the largest
   gap between the two empirical CDFs on a grid.

The generic route derives each law's closed forms with SymPy once (cached on the law
object): the first row of a law includes that one-time cost.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction as F
from functools import partial

import mpmath

from dpcheck.errors import InputError
from dpcheck.laws import registry
from dpcheck.laws.additive import Additive
from dpcheck.laws.bounded import Bounded
from dpcheck.laws.bounded_privacy import BoundedMechanism
from dpcheck.laws.numeric import Evaluator, precision, to_mpf
from dpcheck.numeric import mechanism_mp, mechanism_params
from dpcheck.numeric import profile as P


def _seconds(fn, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    for _ in range(repeat):
        out = fn()
    return (time.perf_counter() - start) / repeat, out


def _bounded(law, values, bounding, s, c0, c1, q):  # type: ignore[no-untyped-def]
    with precision(30):
        return Bounded(law, values, bounding, s, c0, c1).quantity(q)


def _printed(fn, *args):  # type: ignore[no-untyped-def]
    return fn(*args).as_dict()["delta"]


def moments(points: int) -> None:
    print(f"1. bounded moments at 30 digits ({points} parameter points each)")
    print(f"{'quantity':<26}{'closed form s':>15}{'generic s':>12}{'generic/closed':>16}"
          f"{'max |diff|':>12}")
    for bounding, base, scale in (("truncated", "laplace", "lam"), ("clamped", "laplace", "lam"),
                                  ("truncated", "gaussian", "sigma"),
                                  ("clamped", "gaussian", "sigma")):
        law = registry.get(base)
        name = f"{bounding}-{base}"
        for q in ("mean", "var"):
            grid = [(F(i, points + 1), F(0), F(1), F(1, 2) + F(i, points)) for i in range(points)]
            worst = mpmath.mpf(0)
            t_closed = t_generic = 0.0
            for s, c0, c1, v in grid:
                params = mechanism_params.parse(
                    name, {"s": str(s), "c0": str(c0), "c1": str(c1), scale: str(v)}, q
                )
                dt, ref = _seconds(partial(mechanism_mp.evaluate, f"{name}.{q}", params, 30), 1)
                t_closed += dt
                dt, got = _seconds(partial(_bounded, law, {scale: v}, bounding, s, c0, c1, q), 1)
                t_generic += dt
                worst = max(worst, abs(to_mpf(got.mid()) - ref))  # type: ignore[union-attr]
            print(f"{name + '.' + q:<26}{t_closed / points:>15.4f}{t_generic / points:>12.4f}"
                  f"{t_generic / t_closed:>16.3g}{mpmath.nstr(worst, 2):>12}")


def profiles(repeat: int) -> None:
    print(f"\n2. delta(eps) of the unbounded mechanisms ({repeat} runs each)")
    print(f"{'mechanism':<26}{'closed form s':>15}{'generic s':>12}{'generic/closed':>16}"
          f"  same printed delta")
    for base, scale, eps in (("laplace", F(1), F(1, 2)), ("gaussian", F(1), F(1)),
                             ("gaussian", F(3), F(1, 10))):
        law = registry.get(base)
        nb = P.neighbours(base, "1", None, None, str(scale))
        dt_old, old = _seconds(partial(_printed, P.delta_for_epsilon, nb, eps), repeat)
        mech = Additive(law, {law.scale: scale}, F(1))
        dt_new, new = _seconds(partial(_printed, mech.delta, eps), repeat)
        print(f"{base + f' eps={eps}':<26}{dt_old:>15.4f}{dt_new:>12.4f}"
              f"{dt_new / dt_old:>16.3g}  {old == new} ({new})")


def new_law(repeat: int) -> None:
    print(f"\n3. a new law's cost through the generic engine ({repeat} runs each)")
    print(f"{'quantity':<34}{'discrete-laplace s':>19}{'discrete-gaussian s':>21}{'ratio':>10}")
    dl, dg = registry.get("discrete-laplace"), registry.get("discrete-gaussian")

    def var(law, values):  # type: ignore[no-untyped-def]
        with precision(30):
            return Evaluator(law, values).var()

    for label, fa, fb in (
        ("var at 30 digits (scale 2)", lambda: var(dl, {"scale": F(2)}),
         lambda: var(dg, {"sigma": F(2)})),
        ("var at 30 digits (scale 1000)", lambda: var(dl, {"scale": F(1000)}),
         lambda: var(dg, {"sigma": F(1000)})),
        ("delta(1), sensitivity 1 (scale 2)",
         lambda: Additive(dl, {"scale": F(2)}, F(1)).delta(F(1)),
         lambda: Additive(dg, {"sigma": F(2)}, F(1)).delta(F(1))),
    ):
        ta, _ = _seconds(fa, repeat)
        tb, _ = _seconds(fb, repeat)
        print(f"{label:<34}{ta:>19.4f}{tb:>21.4f}{tb / ta:>10.3g}")


def theta_forms(repeat: int) -> None:
    print(f"\n4. the discrete Gaussian's variance at 30 digits: lattice sum vs theta forms"
          f" ({repeat} runs each)")
    print(f"{'sigma':<14}{'lattice sum s':>15}{'theta s':>12}{'ratio':>10}  rel. difference")
    dg = registry.get("discrete-gaussian")
    twin = registry.law(r"e^{-\frac{z^2}{2w^2}}", "integers", ["w>0"], name="twin")
    for sigma in (F(2), F(1000), F(20000), F(10**6)):
        def plain(sigma=sigma):  # type: ignore[no-untyped-def]
            with precision(30):
                return Evaluator(twin, {"w": sigma}).var()

        def theta(sigma=sigma):  # type: ignore[no-untyped-def]
            with precision(30):
                return Evaluator(dg, {"sigma": sigma}).var()

        tb, b = _seconds(theta, repeat)
        try:
            ta, a = _seconds(plain, repeat)
        except InputError as exc:
            print(f"{str(sigma):<14}{'refused':>15}{tb:>12.4f}{'':>10}  ({exc})"[:110])
            continue
        with mpmath.workdps(40):
            gap = abs(a.mpf() - b.mpf()) / b.mpf()
        print(f"{str(sigma):<14}{ta:>15.4f}{tb:>12.4f}{ta / tb:>10.3g}  {mpmath.nstr(gap, 3)}")


def bounded_profiles(repeat: int) -> None:
    print(f"\n5. delta(eps) of the bounded mechanisms ({repeat} runs each)")
    print(f"{'mechanism':<40}{'closed form s':>15}{'generic s':>12}{'generic/closed':>16}"
          "  printed delta: closed form | generic")
    rows = (("truncated", "laplace", "laplace", 1, 0, 1, F(1), F(1, 2)),
            ("clamped", "laplace", "laplace", 1, 0, 1, F(1), F(1, 2)),
            ("truncated", "gaussian", "gaussian", 1, 0, 2, F(1), F(1, 2)),
            ("clamped", "gaussian", "gaussian", 1, 0, 2, F(1), F(1, 2)),
            ("truncated", "geometric", "discrete-laplace", 1, 0, 5, F(2), F(1, 2)),
            ("truncated", "laplace", "laplace", F(1, 3), -1, 4, F(2), F(1, 10)))
    for bounding, old, new, d, c0, c1, scale, eps in rows:
        nb = P.neighbours(f"{bounding}-{old}", d, c0, c1, scale)
        dt_old, before = _seconds(partial(P.delta_for_epsilon, nb, eps), repeat)
        law = registry.get(new)
        mech = BoundedMechanism(law, {law.scale: scale}, bounding, F(c0), F(c1), F(d))
        dt_new, after = _seconds(partial(mech.delta, eps), repeat)
        a, b = before.as_dict(), after.as_dict()
        kind = "exact" if b["delta kind"].startswith("exact") else "bound"
        label = f"{bounding}-{new} d={d} [{c0},{c1}] eps={eps}"
        print(f"{label:<40}{dt_old:>15.3f}{dt_new:>12.3f}{dt_new / dt_old:>16.3g}"
              f"  {a['delta']} | {b['delta']} ({kind})")


def calibrations() -> None:
    from dpcheck.laws.calibrate import calibrate

    print("\n6. calibrated scale (one run each)")
    print(f"{'mechanism':<40}{'closed form s':>15}{'generic s':>12}{'generic/closed':>16}"
          "  printed scale: closed form | generic")
    rows = ((None, "laplace", "laplace", F(1), F(1, 10**6)),
            (None, "gaussian", "gaussian", F(1), F(1, 10**5)),
            (None, "geometric", "discrete-laplace", F(1, 2), F(0)),
            ("truncated", "laplace", "laplace", F(1), F(0)),
            ("clamped", "gaussian", "gaussian", F(1), F(1, 10**3)))
    for bounding, old, new, eps, delta in rows:
        law = registry.get(new)
        if bounding is None:
            nb = P.neighbours(old, 1, None, None, None)
            at = partial(_additive_at, law)
        else:
            nb = P.neighbours(f"{bounding}-{old}", 1, 0, 2, None)
            at = partial(_bounded_at, law, bounding)
        dt_old, before = _seconds(partial(P.calibrate, nb, eps, delta), 1)
        dt_new, after = _seconds(partial(calibrate, at, eps, delta), 1)
        label = f"{bounding or 'additive'}-{new} eps={eps} delta={delta}"
        print(f"{label:<40}{dt_old:>15.3f}{dt_new:>12.3f}{dt_new / dt_old:>16.3g}"
              f"  {before.as_dict()['calibrated scale']} | {after.as_dict()['calibrated scale']}")


def crossing_guess(repeat: int) -> None:
    from dpcheck.laws import bounded_privacy

    print(f"\n7. the crossing search: float64 guess or none ({repeat} runs each)")
    print(f"{'mechanism':<40}{'no guess s':>15}{'guess s':>12}{'guess/none':>16}"
          "  printed delta: no guess | guess")
    rows = (("truncated", "laplace", F(3, 2), -1, 2, F(1, 2), F(1)),
            ("truncated", "gaussian", F(1), 0, 2, F(1), F(1, 2)),
            ("clamped", "gaussian", F(1, 2), -1, 3, F(2), F(1, 5)))
    family = bounded_privacy._Family
    for bounding, name, d, c0, c1, scale, eps in rows:
        law = registry.get(name)
        mech = partial(BoundedMechanism, law, {law.scale: scale}, bounding, F(c0), F(c1), F(d))
        guess = family._float_crossing
        family._float_crossing = lambda self, *args: []  # type: ignore[method-assign]
        try:
            dt_old, before = _seconds(partial(_fresh_delta, mech, eps), repeat)
        finally:
            family._float_crossing = guess  # type: ignore[method-assign]
        dt_new, after = _seconds(partial(_fresh_delta, mech, eps), repeat)
        label = f"{bounding}-{name} d={d} [{c0},{c1}] eps={eps}"
        print(f"{label:<40}{dt_old:>15.3f}{dt_new:>12.3f}{dt_new / dt_old:>16.3g}"
              f"  {before.as_dict()['delta']} | {after.as_dict()['delta']}")


def bounded_draws(repeat: int, n: int = 1_000_000) -> None:
    import numpy as np

    print(f"\n8. draws of a bounded law: the law's own or generic ({n} draws, {repeat} runs)")
    print(f"{'law':<48}{'own s':>9}{'generic s':>11}{'generic/own':>13}  CDF gap")
    users = {
        "laplace": registry.law(r"\frac{1}{2b} e^{-|z|/b}", "real", ["b>0"], name="user laplace"),
        "discrete-laplace": registry.law(r"e^{-|z|/b}", "integers", ["b>0"], name="user dl"),
    }
    rows = (("truncated", "laplace", F(1), 0.5, 0.0, 4.0),
            ("clamped", "laplace", F(2), 0.5, 0.0, 4.0),
            ("truncated", "discrete-laplace", F(3), 1.0, 0.0, 9.0))
    for bounding, name, scale, s, c0, c1 in rows:
        shipped, user = registry.get(name), users[name]

        where = (bounding, s, c0, c1)
        dt_own, own = _seconds(partial(_draws, shipped, {shipped.scale: scale}, where, n), repeat)
        dt_gen, gen = _seconds(partial(_draws, user, {"b": scale}, where, n), repeat)
        grid = np.linspace(c0, c1, 33)
        gap = max(abs(np.mean(own <= y) - np.mean(gen <= y)) for y in grid)  # type: ignore[operator]
        label = f"{bounding}-{name} scale={scale} s={s} [{c0:g},{c1:g}]"
        print(f"{label:<48}{dt_own:>9.3f}{dt_gen:>11.3f}{dt_gen / dt_own:>13.3g}  {gap:.2g}")


def _draws(law, values, where, n):  # type: ignore[no-untyped-def]
    import numpy as np

    from dpcheck.laws.float64 import bounded_sampler

    return bounded_sampler(law, values, *where)(np.random.default_rng(1), n)


def _fresh_delta(mech, eps):  # type: ignore[no-untyped-def]
    return mech().delta(eps)  # a new mechanism: no pair cached from the other run


def _additive_at(law, scale):  # type: ignore[no-untyped-def]
    return Additive(law, {law.scale: scale}, F(1))


def _bounded_at(law, bounding, scale):  # type: ignore[no-untyped-def]
    return BoundedMechanism(law, {law.scale: scale}, bounding, F(0), F(2), F(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--points", type=int, default=10, help="parameter points per quantity")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing")
    args = parser.parse_args()
    moments(args.points)
    profiles(args.repeat)
    new_law(args.repeat)
    theta_forms(args.repeat)
    bounded_profiles(args.repeat)
    calibrations()
    crossing_guess(args.repeat)
    bounded_draws(args.repeat)


if __name__ == "__main__":
    main()
