"""The ``dpcheck`` command line: thin; parses, calls the library, prints.

Bad input anywhere becomes a one-line ``dpcheck: error: ...`` on stderr and
exit code 2, without a traceback (DESIGN.md, "Contracts"); so does an output
pipe closed early (``dpcheck verify --list | head -1``).  Every number goes
through :mod:`dpcheck.inputs.numbers`, every size through the ceilings of
:mod:`dpcheck.inputs.limits`, every output path is checked before the work
(:mod:`dpcheck.outputs.paths`) and written atomically
(:mod:`dpcheck.outputs.atomic`); an interrupted run exits 130 and leaves no
partial file (:mod:`dpcheck.outputs.interrupts`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from dpcheck.errors import InputError
from dpcheck.inputs import limits
from dpcheck.inputs.numbers import shown
from dpcheck.outputs import atomic, interrupts
from dpcheck.outputs.paths import PLOT_SUFFIXES, output_file, output_folder

#: Any argument that starts with one dash and is not ``-h`` is a value, so that
#: ``--groups -1,5`` or ``--epsilon -inf`` reach the parsers that name the value
#: (argparse alone takes them for unknown options).
_VALUE_WITH_DASH = re.compile(r"^-(?!-)(?!h$).+")


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _VALUE_WITH_DASH

    def error(self, message: str) -> None:  # one line, exit 2
        raise InputError(_cut(message))

    def print_help(self, file=None) -> None:  # type: ignore[no-untyped-def]
        """As argparse's, but a closed output pipe is not swallowed (``_main``: exit 2)."""
        (file or sys.stdout).write(self.format_help())


#: The longest error message (after ``dpcheck: error: ``, which makes at most 400).
MESSAGE_CHARS = 380


def _cut(message: str, limit: int = 300) -> str:
    """One line of at most ``limit`` characters (argparse echoes values whole)."""
    line = " ".join(message.split())
    if len(line) <= limit:
        return line
    tail = f"... ({len(line)} characters)"
    return line[: limit - len(tail)] + tail


def _verify(args: argparse.Namespace) -> int:
    from dpcheck.claims import registry, report, runner

    proofs = registry.locate(args.proofs)  # --proofs, $DPCHECK_PROOFS, project, shipped
    claims = registry.collect(proofs.path)
    chosen = runner.select(claims, args.ids)
    out = None if args.output is None or args.list else output_file("--output", args.output)
    # a folder other than the shipped claims is code that ran: say so (issue 40), after
    # the refusals above (a refusal stays one line); --quiet silences it only when the
    # folder was named on this very command line
    if not proofs.shipped and not (args.quiet and proofs.origin == "--proofs"):
        where = registry.shown_path(proofs.path)
        print(f"dpcheck: using claims from {where} (code that runs)", file=sys.stderr)
    if args.list:  # the ids the selection would run (all without ids)
        print("\n".join(c.id for c in chosen))
        return 0
    results = _run_with_progress(runner, chosen, quiet=args.quiet or not sys.stderr.isatty())
    text = report.render(results, args.format)
    if out is not None:
        atomic.write_text(out, text)
        if not args.quiet:
            print(f"wrote {out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return runner.exit_code(results)


def _run_with_progress(runner, chosen, quiet: bool):  # type: ignore[no-untyped-def]
    if quiet:
        return runner.run(chosen)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("verifying", total=len(chosen))
        results = []
        for claim in chosen:
            bar.update(task, description=claim.id)
            results.append(runner.run_one(claim))
            bar.advance(task)
    return results


def _simulate(args: argparse.Namespace) -> int:
    from dpcheck.simulation import cli as simulation_cli

    return simulation_cli.run(args)


def _eval(args: argparse.Namespace) -> int:
    from dpcheck.inputs.numbers import parse_count
    from dpcheck.numeric import mechanism_mp, mechanism_params, mp
    from dpcheck.numeric.names import QUANTITY_NAMES, resolve
    from dpcheck.numeric.params import MechanismParams, parse_assignments

    quantity = str(args.quantity).rpartition(".")[2]
    # the quantile has its own ceiling (limits: eval --dps (quantile))
    ceiling = limits.ceiling("eval", "--dps (quantile)" if quantity == "quantile" else "--dps")
    dps = parse_count("--dps", args.dps, 1, ceiling.maximum, ceiling.describe())
    from dpcheck.laws import cli as laws_cli

    if args.density is not None or laws_cli.is_law_name(str(args.quantity).rpartition(".")[0]):
        return laws_cli.run_eval(args, dps)
    mechanism, quantity = resolve(args.quantity)
    values = parse_assignments(args.assignments)
    liu = (
        args.quantity in QUANTITY_NAMES
        and not any(
            str(values.get(k, "")).strip().lower() in mechanism_params.INFINITE
            for k in ("c0", "c1")
        )
        and set(values) <= {"s", "c0", "c1", "lam", "epsilon", "sensitivity"}
    )
    if liu:  # Liu's names with Liu's parameters: the report as before
        params = MechanismParams.from_mapping(values)
        value = mp.evaluate(args.quantity, params, dps)
        shown_params = {k: str(getattr(params, k)) for k in ("s", "c0", "c1", "lam")}
    else:
        general = mechanism_params.parse(mechanism, values, quantity)
        value = mechanism_mp.evaluate(args.quantity, general, dps)
        shown_params = general.as_dict()
    import mpmath

    text = mpmath.nstr(value, dps)
    if args.json:
        data = {"quantity": args.quantity, "value": text, "dps": dps, "params": shown_params}
        print(json.dumps(data, indent=2))
    else:
        print(text)
    return 0


def _privacy(args: argparse.Namespace) -> int:
    from dpcheck.laws import cli as laws_cli
    from dpcheck.numeric import privacy
    from dpcheck.numeric.params import parse_number

    if laws_cli.wants_laws(args.mechanism, args):
        return laws_cli.run_privacy(args)
    if args.mechanism not in ("truncated", "bit") or args.delta is not None:
        from dpcheck import privacy_cli

        return privacy_cli.run(args)
    for key in ("epsilon", "lower", "upper"):
        if getattr(args, key) is None:
            raise InputError(f"{args.mechanism} (Liu 2019, Def. 2) needs --{key}")

    setting = privacy.Setting.parse(args.epsilon, args.sensitivity, args.lower, args.upper)
    scale = None if args.scale is None else parse_number("scale", args.scale)
    dps = limits.count("privacy", "--dps", args.dps, 1)
    plot = None if args.plot is None else output_file("--plot", args.plot, PLOT_SUFFIXES)
    with atomic.transaction() as out:
        data = privacy.summary(
            args.mechanism, setting, scale, dps=dps, brute_force=args.brute_force
        )
        if plot is not None:
            from dpcheck.plots.privacy import plot_privacy

            eps = float(setting.epsilon)
            with out.writing(plot) as tmp:
                plot_privacy(tmp, sorted({0.1, 0.5, 1.0, 2.0, 5.0, eps}))
            data["plot"] = str(plot)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(_privacy_text(data))
    return 0


_SP = "s'"


def _privacy_text(d: dict) -> str:  # type: ignore[type-arg]
    verdict = "yes" if d["epsilon-DP at this scale"] else "NO"
    where = "; ".join(f"s = {a['s']}, s' = {a[_SP]}, y = {a['y']}" for a in d["attained at"])
    lines = [
        f"{d['mechanism']} mechanism: epsilon = {d['epsilon']}, sensitivity = {d['sensitivity']},"
        f" bounds [{d['lower']}, {d['upper']}]  (R/sensitivity = {d['R/sensitivity']})",
        f"scale lambda = {d['scale']}  ({d['scale source']})",
        f"worst-case privacy loss = {d['loss']}  (= {d['loss/epsilon']} x epsilon);"
        f" epsilon-DP: {verdict}",
        f"attained at: {where}  [ratio P_s(y)/P_s'(y)]",
        f"calibrated scale (smallest epsilon-DP lambda) = {d['calibrated scale']}"
        f"  (= {d['calibrated/scale']} x this scale; loss there = {d['loss at calibrated scale']})",
        "cost of calibrating (this scale -> calibrated):",
    ]
    for row in d["cost"]:
        lines.append(
            f"  {row['at']:<13} bias {row['bias at scale']} -> {row['bias at calibrated scale']};"
            f"  MSE {row['mse at scale']} -> {row['mse at calibrated scale']}"
            f" (x {row['mse ratio calibrated/scale']})"
        )
    if "brute force" in d:
        bf = d["brute force"]
        lines.append(
            f"brute force over {bf['pairs']} input pairs x {bf['outputs']} outputs:"
            f" {bf['loss']} at s = {bf['s']}, s' = {bf[_SP]}, y = {bf['y']}"
        )
    if "plot" in d:
        lines.append(f"plot written to {d['plot']}")
    return "\n".join(lines)


def _audit(args: argparse.Namespace) -> int:
    """``dpcheck audit``: exit 1 when a violation is detected (either guide), else 0."""
    from dpcheck.laws import cli as laws_cli
    from dpcheck.numeric.names import LIU_NAMES, canonical_mechanism
    from dpcheck.numeric.params import parse_count
    from dpcheck.sampling import audit

    if laws_cli.wants_laws(args.mechanism, args):
        return laws_cli.run_audit(args)
    name = canonical_mechanism(args.mechanism)
    guide = args.guide or ("exact" if name in LIU_NAMES else "blackbox")
    samples = limits.count("audit", "--samples", args.samples, 1)
    seed = parse_count("seed", args.seed, 0, 2**63 - 1)
    confidence = audit.as_confidence(args.confidence)
    show_bar = samples >= 10**7 and sys.stderr.isatty() and not args.json
    if guide == "exact":
        return _audit_exact(args, LIU_NAMES, name, samples, seed, confidence, show_bar)
    from dpcheck import audit_cli

    plan = audit_cli.plan(
        name, args.epsilon, args.delta, args.sensitivity, args.lower, args.upper, args.scale
    )
    with _draw_progress(show_bar) as progress:
        result = audit_cli.run(plan, samples, seed, confidence, progress)
    data = audit_cli.to_dict(plan, result)
    print(json.dumps(data, indent=2) if args.json else audit_cli.text(plan, result))
    return 1 if result.exceeds else 0


def _audit_exact(  # type: ignore[no-untyped-def]
    args: argparse.Namespace, liu: dict, name: str, samples: int, seed: int, confidence, bar
) -> int:
    """The exact-law guide (:mod:`dpcheck.sampling.audit`): Liu's two mechanisms, pure ε."""
    from dpcheck.numeric import privacy
    from dpcheck.numeric.profile import parse_delta
    from dpcheck.sampling import audit

    if name not in liu:
        raise InputError(
            f"--guide exact needs the exact law's event family, known for truncated and bit"
            f" only, not {shown(args.mechanism)}; use --guide blackbox"
        )
    if args.delta is not None and parse_delta(args.delta) != 0:
        raise InputError(
            f"--delta={shown(args.delta)}: the exact guide audits pure epsilon (Liu 2019,"
            " Definition 2); use --guide blackbox for an (epsilon, delta) claim"
        )
    for option, value in (("--lower", args.lower), ("--upper", args.upper)):
        if value is None:
            raise InputError(f"{shown(args.mechanism)} needs {option} (finite bounds c0 < c1)")
    setting = privacy.Setting.parse(args.epsilon, args.sensitivity, args.lower, args.upper)
    with _draw_progress(bar) as progress:
        result = audit.audit(liu[name], setting, args.scale, samples, seed, confidence, progress)
    data = result.to_dict()
    print(json.dumps(data, indent=2) if args.json else _audit_text(data))
    return 1 if result.exceeds else 0


@contextmanager
def _draw_progress(show: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A transient rich progress bar for long audits (None: no bar)."""
    if not show:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("drawing"), BarColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("drawing", total=1.0)
        yield lambda done, total: bar.update(task, completed=done / total)


def _audit_text(d: dict) -> str:  # type: ignore[type-arg]
    ev = d["event"]
    verdict = (
        f"VIOLATION: exceeds epsilon = {d['epsilon']}" if d["exceeds"] else "no violation detected"
    )
    lines = [
        f"{d['mechanism']} mechanism: epsilon = {d['epsilon']}, sensitivity = {d['sensitivity']},"
        f" bounds [{d['lower']}, {d['upper']}], scale lambda = {d['scale']} ({d['scale_source']})",
        f"neighbours s = {d['s']}, s' = {d['s_prime']}; event E = {ev['description']}"
        " (chosen from the exact law before sampling)",
        f"{d['samples']} draws per side (seed {d['seed']}): {d['count']} of M(s) in E,"
        f" {d['count_prime']} of M(s') in E",
        f"Clopper-Pearson bounds: P_s(E) >= {d['p_lower']:.6g},"
        f" P_s'(E) <= {d['p_prime_upper']:.6g}",
        f"lower confidence bound on the privacy loss: {_num(d['loss_lower_bound'])}"
        f" (confidence {d['confidence']})",
        verdict,
        f"exact, for context: log P_s(E)/P_s'(E) = {_num(d['exact_event_log_ratio'])},"
        f" worst-case loss = {d['exact_worst_case_loss']:.12g}",
    ]
    needed = d["samples_needed"]
    if not d["exceeds"] and needed is not None:
        shown = str(needed) if needed < 10**12 else f"{float(needed):.3g}"
        lines.append(
            f"about {shown} samples per side would be needed"
            " (for the expected bound to exceed epsilon)"
        )
    return "\n".join(lines)


def _num(value: float | str) -> str:
    return value if isinstance(value, str) else f"{value:.6g}"


def _compare(args: argparse.Namespace) -> int:
    from dpcheck.peers import diffprivlib_compare

    return int(diffprivlib_compare.run(args))


def _sensitivity(args: argparse.Namespace) -> int:
    from dpcheck.enumeration import sensitivity as sens

    n = limits.count("sensitivity", "--n", args.n, 0)
    groups = sens.parse_groups(args.groups)
    bounds = sens.parse_bounds(args.stat, args.bounds)
    if args.categories is not None and args.stat not in ("histogram", "proportions"):
        raise InputError(
            f"--categories applies to histogram and proportions, not {shown(args.stat)}"
        )
    categories = (
        2
        if args.categories is None
        else limits.count("sensitivity", "--categories", args.categories)
    )
    result = sens.exact_sensitivity(
        args.stat,
        args.neighbours,
        n,
        groups,
        categories,
        allow_singleton=args.allow_singleton,
    )
    data = sens.describe(result, bounds)
    print(json.dumps(data, indent=2) if args.json else sens.format_text(data))
    return 0


def _krand(args: argparse.Namespace) -> int:
    from dpcheck.enumeration import krand_profile as kp

    curve_deltas = None
    n = limits.count("krand profile", "--n", args.n, 1)
    L = limits.count("krand profile", "--L", args.L, 1)
    plot = None if args.plot is None else output_file("--plot", args.plot, PLOT_SUFFIXES)
    if plot is not None:
        from dpcheck.plots.krand import CURVE_DELTAS

        curve_deltas = list(CURVE_DELTAS)
    from dpcheck.inputs.numbers import parse_real

    top = limits.ceiling("krand profile", "--budget")
    budget = parse_real(
        "--budget",
        args.budget,
        lambda x: 1 <= x <= top.maximum,
        f"seconds in [1, {top.maximum}] (the ceiling of {top.key}: see the README)",
    )
    with _status(not args.quiet and sys.stderr.isatty()) as progress:
        data = kp.summary(
            n,
            L,
            q=args.q,
            eps0=args.eps0,
            delta=args.delta,
            curve_deltas=curve_deltas,
            budget=budget,
            progress=progress,
        )
    if plot is not None:
        from dpcheck.plots.krand import plot_bounds, plot_epsilon_curves, plot_general_curves

        with atomic.transaction() as out, out.writing(plot) as tmp:
            if "upper" in data:
                plot_bounds(tmp, [data])
            elif data["L"] == 1:
                top = limits.ceiling("krand profile", "--n").maximum
                ns = sorted({max(1, data["n"] // 10), data["n"], 10 * data["n"]} - {0})
                plot_epsilon_curves(tmp, [m for m in ns if m <= top], data["q"])
            else:
                q = args.q if args.q is not None else data["q"]
                plot_general_curves(tmp, data["n"], data["L"], q, data["curve"])
        data["plot"] = str(plot)
    data.pop("curve", None)
    print(json.dumps(data, indent=2) if args.json else _krand_text(data))
    return 0


@contextmanager
def _status(show: bool) -> Iterator[Callable[[str], None] | None]:
    """A transient rich spinner with the stage and elapsed time (None: no display)."""
    if not show:
        yield None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("starting", total=None)
        yield lambda what: bar.update(task, description=what)


def _krand_text(d: dict) -> str:  # type: ignore[type-arg]
    from dpcheck.enumeration.krand_profile import kind_words as _kind_words

    lines = [
        f"K-randomization: n = {d['n']}, L = {d['L']}, q = {d['q']:.10g}"
        f" (eps0 = ln(p/q) = {d['eps0']:.10g}), delta = {d['delta']:g}",
        f"pure epsilon (max log privacy ratio) = {d['pure epsilon']:.10g}",
        f"local randomized response, L*ln(p/q) = {d['local RR epsilon']:.10g}",
    ]
    ap, pb = d["approximate"], d["probabilistic"]
    if d["L"] == 1:
        lines += [
            f"approximate (eps, delta): epsilon = {ap['epsilon']:.10g} at delta = {d['delta']:g}"
            f"  [{_kind_words(ap['kind'])}]",
            f"  how: {ap['established']}",
            f"  worst neighbours: {ap['worst pair']}",
            f"  delta at this epsilon: {'>=' if ap['kind'] == 'lower bound' else '<='}"
            f" {ap['arb delta at epsilon']} (arb); mpmath {ap['mpmath dps']} digits"
            f" cross-check: {ap['mpmath delta at epsilon']}",
            f"probabilistic (eps, delta) of §3.1: epsilon = {pb['epsilon']:.10g}"
            f"  [{_kind_words(pb['kind'])}]  (worst background m = {pb['worst background m']})",
            f"  how: {pb['established']}",
        ]
    elif "upper" in d:
        lines += _krand_bounds_text(d)
    else:
        lines += _krand_general_text(d)
    fmt = d["FMT upper bounds"]
    cf = fmt["closed form (FMT code, closedformanalysis)"]
    local = "" if d["L"] == 1 else " at local epsilon L*eps0"
    lines.append(
        f"Feldman-McMillan-Talwar closed form{local} (their code's closedformanalysis): "
        + ("not applicable here" if cf is None else f"{cf:.6g}")
    )
    if "README numerical range" in fmt:
        lo, hi = fmt["README numerical range"]
        lines.append(f"Feldman-McMillan-Talwar numerical bound (README): [{lo}, {hi}]")
    lines.append(
        f"approximate epsilon <= FMT upper bounds: {d['epsilon <= FMT upper bounds']}"
        f" ({d['FMT comparison']})"
    )
    if "plot" in d:
        lines.append(f"plot written to {d['plot']}")
    return "\n".join(lines)


_HIST = "report histograms C(n + 2^L - 1, 2^L - 1)"


def _krand_bounds_text(d: dict) -> list[str]:  # type: ignore[type-arg]
    """The L >= 2 lines above the exhaustive range (krand_bounds): the certified upper and
    the attained lower bound, the generic shuffle bounds and the §3.1 epsilon at the pair."""
    up, lo, gen, pb = d["upper"], d["lower"], d["generic shuffle bounds"], d["probabilistic"]
    ratio = d["upper / lower"]
    lines = [
        f"approximate (eps, delta): {lo['epsilon']:.10g} <= epsilon <= {up['epsilon']:.10g}"
        f" at delta = {d['delta']:g}" + (f"  (upper / lower = {ratio:.4g})" if ratio else ""),
        f"  lower bound, attained by {lo['attained by']}; arb: delta at the lower epsilon"
        f" > {lo['certified delta at epsilon is above']:.10g} ({lo['seconds']} s)",
        f"  {up['kind']} ({up['seconds']} s): {up['established']}",
    ]
    failed = [t for t in up["tried"] if t["result"] != "settled"]
    if failed:
        lines.append(
            "  not certified: "
            + "; ".join(f"epsilon = {t['epsilon']:.6g} ({t['result']})" for t in failed)
        )
    lines.append(
        "generic shuffle bounds at eps0 = L ln(p/q) = "
        f"{gen['local epsilon eps0 = L log(p/q)']:.6g}: "
        + ", ".join(
            f"{k} {'n/a' if gen[k] is None else format(gen[k], '.6g')}"
            for k in (
                "FMT numerical",
                "FMT closed form",
                "blanket (Hoeffding)",
                "blanket (Bennett)",
                "Wang et al.",
            )
        )
    )
    if gen["best / upper"]:
        lines.append(
            f"  best generic ({gen['best']}) / certified upper = {gen['best / upper']:.4g}"
        )
    if pb["epsilon"] is not None:
        lines.append(
            f"probabilistic (eps, delta) of §3.1 at the attained pair: epsilon ="
            f" {pb['epsilon']:.10g}  [{pb['kind']}]"
        )
    return lines


def _krand_general_text(d: dict) -> list[str]:  # type: ignore[type-arg]
    """The L >= 2 lines of :func:`_krand_text` (krand_profile_general)."""
    from dpcheck.enumeration.krand_profile import kind_words as _kind_words

    ap, pb, se = d["approximate"], d["probabilistic"], d["search"]
    conf = (
        f"  ({ap['confirmation']}: delta(eps) = {ap['delta at epsilon']})"
        if ap["delta at epsilon"] is not None
        else ""
    )
    if ap["kind"] == "lower bound" and ap["delta at epsilon"] is not None:
        conf = (
            f"  (arb: delta(eps) >= {ap['delta at epsilon']} > delta; the pair's own epsilon"
            f" is <= {ap['bracket'][1]:.10g})"
        )
    lines = [
        f"approximate (eps, delta): epsilon = {ap['epsilon']:.10g} at delta = {d['delta']:g}"
        f"  [{_kind_words(ap['kind'])}]" + conf,
        f"  how: {ap['established']}",
        f"  worst neighbours: {ap['worst pair']}",
        f"  worst pair in family H: {'yes' if ap['worst pair in family H'] else 'no'}",
        f"  {ap['assumption']}",
    ]
    if "family evidence" in d:
        lines.append(f"  evidence: {d['family evidence']}")
    exact = ""
    if "exact epsilon" in pb:
        exact = f"  (exact rationals: log P/Q = {pb['exact epsilon']:.10g})"
    lines += [
        f"probabilistic (eps, delta) of §3.1: epsilon = {pb['epsilon']:.10g}{exact}"
        f"  [{_kind_words(pb['kind'])}]",
        f"  how: {pb['established']}",
        f"  worst neighbours: {pb['worst pair']}",
    ]
    if "note" in pb:
        lines.append(f"  {pb['note']}")
    one = d["L = 1 epsilon at the same n, q"]
    lines += [
        f"L = 1 approximate epsilon at the same n, q: {one:.10g} ({d['L = 1 kind']};"
        f" {d['L = 1 note']})",
        f"search: {se['mode']}, {se['ordered pairs examined']} ordered pairs, up to"
        f" {se['cells per law']} cells per law, {se['cells examined']} cells in all;"
        f" report histograms C(n + 2^L - 1, 2^L - 1) = {se[_HIST]},"
        f" naive enumeration {se['naive enumeration 2^(nL) per collection']} per collection",
    ]
    return lines


def _derive_user_law(args: argparse.Namespace) -> int:
    """``dpcheck derive --density ...``: the derivation of a user's law, one file."""
    import dataclasses

    from dpcheck.derivations import build, mechanisms, noise_laws
    from dpcheck.laws.cli import law_options, user_law

    if args.names or args.pdf:
        raise InputError("--density writes one derivation: expected no names and no --pdf")
    law = user_law(args)
    derivation = noise_laws.derivation(law, "law-user")
    again = law_options(args)
    derivation = dataclasses.replace(
        derivation,
        reproduce=(f"dpcheck derive {again}", *(f"{c} {again}" for c in derivation.reproduce)),
    )
    out = output_folder("--out", args.out)
    files = {f"{derivation.name}.tex": mechanisms.render(derivation)}
    changed = build.write(files, out)
    print(f"1 file in {out}/ ({len(changed)} changed): {derivation.name}.tex")
    return 0


def _derive(args: argparse.Namespace) -> int:
    from dpcheck.derivations import build

    if args.list:
        print("\n".join(build.NAMES))
        return 0
    if args.density is not None:
        return _derive_user_law(args)
    chosen = build.select(args.names)
    out = output_folder("--out", args.out)
    if args.pdf and build.tex_engine() is None:
        build.compile_pdf(out)  # the one-line "needs latexmk or pdflatex", before the work
    show = not args.quiet and sys.stderr.isatty()
    if show:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        with Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), transient=True
        ) as bar:
            task = bar.add_task("deriving", total=None)
            files = build.render_all(
                chosen, progress=lambda what: bar.update(task, description=f"deriving {what}")
            )
    else:
        files = build.render_all(chosen)
    with atomic.transaction() as staged:
        changed = build.write(files, out, staged)
        pdf = build.compile_pdf(out, files, staged) if args.pdf else None
    print(f"{len(files)} files in {out}/ ({len(changed)} changed): " + ", ".join(sorted(files)))
    if pdf is not None:
        print(f"PDF: {pdf}")
    return 0


def _setting_arguments(parser: argparse.ArgumentParser) -> None:
    """The mechanism, its claim (ε, δ), Δ, [c0, c1] and scale: the arguments of audit."""
    parser.add_argument(
        "mechanism",
        help="any mechanism: laplace, gaussian, geometric, truncated-gaussian, clamped-geometric,"
        " ...; truncated and bit (Liu 2019)",
    )
    parser.add_argument("--epsilon", required=True, help="the claimed epsilon, >= 0")
    parser.add_argument("--delta", help="the claimed delta in [0, 1) (default 0; blackbox guide)")
    parser.add_argument("--sensitivity", required=True, help="global sensitivity delta1, > 0")
    parser.add_argument("--lower", help="lower bound c0 (bounded mechanisms)")
    parser.add_argument("--upper", help="upper bound c1 > c0 (bounded mechanisms)")
    parser.add_argument(
        "--scale",
        help="the base's scale lambda, sigma or b (default delta1/epsilon; Gaussian: required)",
    )


def build_parser() -> argparse.ArgumentParser:
    from dpcheck.laws.cli import add_law_arguments

    parser = _Parser(
        prog="dpcheck", description="Check the mathematics of differential-privacy papers."
    )
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    sub.required = True

    v = sub.add_parser("verify", help="give each claim a verdict")
    v.add_argument(
        "ids",
        nargs="*",
        help="claim ids (an id selects that claim alone), globs ('liu2019.prop1.*'), prefixes"
        " ending in a dot ('liu2019.appB.') or document names ('liu2019'); default: all",
    )
    from dpcheck.claims.report import FORMATS

    v.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table, json (DESIGN.md's contract), md, tex (a LaTeX document), junit (JUnit XML"
        " for CI: refuted and inconclusive claims are failures) or html (one self-contained"
        " file)",
    )
    v.add_argument("--output", help="write the report to this file")
    v.add_argument(
        "--list", action="store_true", help="print the ids of the claims selected (default: all)"
    )
    v.add_argument("--deep", action="store_true", help="run the slower, wider checks too")
    v.add_argument(
        "--proofs",
        metavar="DIR",
        help="collect the claims from DIR/<document>/*.py instead of the shipped ones (also"
        " $DPCHECK_PROOFS); this is Python code that dpcheck imports and runs, as pytest does"
        " with tests: only point it at folders you trust",
    )
    v.add_argument("--quiet", action="store_true", help="no progress bar")
    v.set_defaults(func=_verify)

    si = sub.add_parser(
        "simulate", help="reproduce Liu (2019) §4 simulation studies (CSV, PNG, summary)"
    )
    si.add_argument("study", help="study1 (§4.1, Figure 1) or study2 (§4.2, Figures 2-5, S1-S2)")
    si.add_argument("--reps", default="500", help="repetitions per cell (default 500, the paper's)")
    si.add_argument("--seed", help="seed of the run (default: the study's fixed seed)")
    si.add_argument(
        "--out", default="simulation", help="folder for CSV and PNG (default simulation)"
    )
    si.add_argument("--quiet", action="store_true", help="no progress bar")
    si.set_defaults(func=_simulate)

    e = sub.add_parser("eval", help="evaluate a derived quantity at any precision")
    e.add_argument(
        "quantity",
        help="<mechanism>.<quantity>, e.g. truncated-gaussian.mean, clamped-geometric.var,"
        " bit.mse (quantities: normaliser mean bias second_moment var mse cdf quantile)",
    )
    e.add_argument(
        "assignments",
        nargs="*",
        help="s=.. c0=.. c1=.. (a bound may be inf/-inf) and the scale: lam=.. (Laplace),"
        " sigma=.. (Gaussian), scale=.. or alpha=.. (geometric), or epsilon=.. sensitivity=..;"
        " y=.. for cdf, p=.. for quantile",
    )
    e.add_argument("--dps", default="30", help="significant digits (default 30, at most 10000)")
    add_law_arguments(e)
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=_eval)

    pr = sub.add_parser(
        "privacy",
        help="privacy of any mechanism: pure epsilon, delta(epsilon), epsilon(delta), calibration",
    )
    from dpcheck import privacy_cli

    privacy_cli.add_arguments(pr)
    pr.set_defaults(func=_privacy)

    au = sub.add_parser(
        "audit",
        help="empirical privacy audit: sample and bound the privacy loss; exit 1 on a violation",
    )
    _setting_arguments(au)
    au.add_argument(
        "--guide",
        choices=("exact", "blackbox"),
        help="choose the event from the exact law (truncated, bit: the default) or from a"
        " first batch of draws (black box: the default for the others)",
    )
    au.add_argument(
        "--samples", default="1000000", help="draws per side (and pair: black box; default 1e6)"
    )
    au.add_argument("--seed", default="0", help="seed of the draw streams (default 0)")
    au.add_argument("--confidence", default="0.95", help="confidence level (default 0.95)")
    au.add_argument("--json", action="store_true")
    au.add_argument("--radius", help="truncate the noise to |Z| <= radius (a noise law)")
    au.add_argument(
        "--set", action="append", help="another parameter of the law: NAME=VALUE (repeat)"
    )
    add_law_arguments(au)
    au.set_defaults(func=_audit)

    se = sub.add_parser(
        "sensitivity",
        help="exact l1 global sensitivity for small n, beside Liu's printed formula (supplement)",
    )
    se.add_argument(
        "stat",
        help="mean, proportion, histogram, proportions, variance, sd, covariance,"
        " pooled_variance or pooled_covariance",
    )
    se.add_argument("--neighbours", required=True, choices=("substitute", "remove"))
    se.add_argument("--n", required=True, help="number of records of x (at most 60)")
    se.add_argument("--groups", help="group sizes n1,n2,... (pooled statistics)")
    se.add_argument("--categories", help="K for histogram/proportions (default 2)")
    se.add_argument("--bounds", help="c0,c1 (covariances: c10,c11,c20,c21); default 0,1")
    se.add_argument(
        "--allow-singleton",
        action="store_true",
        help="remove: let a 2-record group drop to 1 record (the supplement's n = 2J case)",
    )
    se.add_argument("--json", action="store_true")
    se.set_defaults(func=_sensitivity)

    kr = sub.add_parser("krand", help="K-randomization (Zhilyaev and Zeber 2016)")
    kr_sub = kr.add_subparsers(dest="krand_command", parser_class=_Parser)
    kr_sub.required = True
    kp_ = kr_sub.add_parser(
        "profile",
        help="pure, approximate and probabilistic epsilon (L >= 2: exhaustive for small n,"
        " worst-case families above, assumption printed)",
    )
    kp_.add_argument("--n", required=True, help="number of users, >= 1")
    kp_.add_argument("--L", required=True, help="bits per user, >= 1")
    lie = kp_.add_mutually_exclusive_group(required=True)
    lie.add_argument("--q", help="lie probability in (0, 1/2), e.g. 1/4 or 0.018")
    lie.add_argument("--eps0", help="local epsilon of one bit, ln(p/q) > 0")
    kp_.add_argument("--delta", default="1e-6", help="delta (default 1e-6)")
    kp_.add_argument(
        "--plot",
        help="write epsilon(delta) curves (png/pdf): L = 1 for n/10, n, 10n; L >= 2 for"
        " n/4, n/2, n",
    )
    kp_.add_argument(
        "--budget",
        default="120",
        help="seconds for the certified upper bound (L >= 2 above the exhaustive range;"
        " default 120): the ratio 1.1 to the lower bound is tried first with at most 60%%"
        " of it, then tighter ones while time remains, or looser ones if 1.1 fails; the"
        " lower bound has a quarter of it more (at least 2 s), the §3.1 epsilon at the"
        " attained pair 5%% (see the ceilings in the README)",
    )
    kp_.add_argument("--quiet", action="store_true", help="no progress display")
    kp_.add_argument("--json", action="store_true")
    kp_.set_defaults(func=_krand)

    de = sub.add_parser(
        "derive", help="write LaTeX derivations (derivations/*.tex, master dpcheck.tex)"
    )
    de.add_argument("names", nargs="*", help="derivations to write (default: all); see --list")
    de.add_argument("--out", default="derivations", help="folder (default: derivations)")
    de.add_argument("--pdf", action="store_true", help="compile dpcheck.pdf (latexmk/pdflatex)")
    de.add_argument("--list", action="store_true", help="print the derivation names")
    de.add_argument("--quiet", action="store_true", help="no progress display")
    add_law_arguments(de)
    de.set_defaults(func=_derive)

    from dpcheck.formula import cli as formula_cli

    formula_cli.add_parser(sub)

    cmp_ = sub.add_parser("compare", help="cross-check a peer library against exact values")
    peers = cmp_.add_subparsers(dest="peer", parser_class=_Parser)
    peers.required = True
    dl = peers.add_parser(
        "diffprivlib", help="IBM diffprivlib 0.6.6 (pip install 'dpcheck[peers]')"
    )
    try:
        from dpcheck.peers import diffprivlib_compare

        diffprivlib_compare.add_arguments(dl)
    except ImportError:  # pragma: no cover - the module itself imports diffprivlib lazily
        pass
    dl.set_defaults(func=_compare)
    for name, module, text in (
        ("dp-accounting", "dp_accounting_compare", "Google dp_accounting 0.6 PLDs (issue 19)"),
        ("opendp", "opendp_compare", "OpenDP 0.16 privacy maps (issue 19)"),
    ):
        peer = peers.add_parser(name, help=f"{text} (pip install 'dpcheck[peers]')")
        _peer_module(module).add_arguments(peer)
        peer.set_defaults(func=_peer_run(module))
    return parser


def _peer_module(name: str):  # type: ignore[no-untyped-def]
    import importlib

    return importlib.import_module(f"dpcheck.peers.{name}")


def _peer_run(name: str) -> Callable[[argparse.Namespace], int]:
    return lambda args: int(_peer_module(name).run(args))


def main(argv: list[str] | None = None) -> int:
    """Run one verb; the exit code: 0 done, 1 a finding (see the README), 2 bad input or a
    closed output pipe, 130 interrupted (nothing partial written).

    SIGINT is recorded while the verb runs (:mod:`dpcheck.outputs.interrupts`) and
    Python's handler is put back afterwards.
    """
    previous = interrupts.install()
    try:
        code = _main(argv)
    except KeyboardInterrupt:
        code = 130
    except Exception:
        if not interrupts.interrupted():
            raise
        code = 130  # raised by the interrupt itself (see run)
    finally:
        interrupts.restore(previous)
    return _interrupted() if code == 130 or interrupts.interrupted() else code


def run() -> None:
    """The ``dpcheck`` console script: the verb, then exit with its code.

    SIGINT raises :class:`KeyboardInterrupt` while the verb runs and only records
    once it is over, so that an interrupt during the exit (a second Ctrl-C, or one
    delivered again after a destructor swallowed it) cannot turn a run into a death
    by signal; an interrupt swallowed by a destructor at any time prints no
    traceback.  The switch is a plain store (``interrupts.STATE``), made inside the
    ``try`` and first thing in the handler: a function call there could itself
    receive the pending interrupt before it took effect.  An interrupted run ends
    with :func:`interrupts.exit_now`, so that it exits 130 even when the interrupt
    passed through an ``exec`` of a string (found by the slow interrupt tests: exit
    -2 in about 1 trial in 100).  Any other exception that escapes after a SIGINT
    arrived is taken as the interrupt's doing: exit 130, no traceback.
    """
    interrupts.silence_swallowed()
    interrupts.install()
    code = 130
    try:
        code = _main(None)
        interrupts.STATE["quiet"] = True
    except KeyboardInterrupt:
        interrupts.STATE["quiet"] = True
        code = 130
    except Exception:
        interrupts.STATE["quiet"] = True
        if not interrupts.interrupted():
            raise
        # an error the interrupt itself caused: a C extension that calls back into Python
        # can turn the KeyboardInterrupt into its own exception (matplotlib's Agg renderer
        # raised "ValueError: Invalid bounding box" in CI's slow interrupt test)
        code = 130
    interrupted = code == 130 or interrupts.interrupted()
    if interrupted:
        code = _interrupted()
    interrupts.ignore()
    if interrupted:
        interrupts.exit_now(code)  # not sys.exit: CPython could turn 130 into death by SIGINT
    sys.exit(code)


def _main(argv: list[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "deep", False):
            os.environ["DPCHECK_DEEP"] = "1"
        code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
    except InputError as exc:
        print(f"dpcheck: error: {_cut(str(exc), MESSAGE_CHARS)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        _silence_stdout()
        return 2
    except SystemExit as exc:
        # argparse's --help swallows the write error and exits 0; rich's
        # Console.on_broken_pipe exits 1 (the compare verbs): a closed pipe is 2
        if isinstance(exc.__context__, BrokenPipeError) or _stdout_closed():
            _silence_stdout()
            return 2
        raise
    return code


def _stdout_closed() -> bool:
    """True when flushing stdout fails because its reader has gone away."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return True
    except (OSError, ValueError):  # pragma: no cover - another failure: not a closed pipe
        return False
    return False


def _interrupted() -> int:
    print("dpcheck: interrupted; no output written", file=sys.stderr)
    return 130


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the exit-time flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # pragma: no cover - stdout already gone
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
