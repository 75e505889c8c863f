"""``dpcheck simulate {study1,study2} [--reps R] [--seed S] [--out DIR]`` (Liu 2019 §4).

Runs a study, writes its CSV table and figures into ``--out`` and prints a
summary; a progress bar follows the work unless ``--quiet`` or stderr is not
a terminal.  Bad input is a one-line :class:`InputError` (exit 2), raised
before anything is written; ``--reps`` is bounded by the ceiling of
:mod:`dpcheck.inputs.limits`.  The CSV and figures are staged and renamed into
place together when the run ends (:mod:`dpcheck.outputs.atomic`), so an
interrupted run leaves the previous output or nothing new.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from dpcheck.errors import InputError
from dpcheck.inputs import limits
from dpcheck.inputs.numbers import parse_count, shown
from dpcheck.outputs import atomic
from dpcheck.outputs.paths import output_folder

STUDIES = ("study1", "study2")


@contextmanager
def _progress(total: int, label: str, quiet: bool) -> Iterator[Callable[[int], None]]:
    if quiet:
        yield lambda k: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda k: bar.advance(task, k)


def run(args: argparse.Namespace) -> int:
    """Validate, run the study, write CSV and figures, print the summary."""
    if args.study not in STUDIES:
        raise InputError(f"study {shown(args.study)} is not one of {', '.join(STUDIES)}")
    # a Monte Carlo standard error needs 2 repetitions
    reps = limits.count("simulate", "--reps", args.reps, 2)
    seed = None if args.seed is None else parse_count("--seed", args.seed, 0, 2**63 - 1)
    out = output_folder("--out", args.out)
    quiet = args.quiet or not sys.stderr.isatty()

    start = time.perf_counter()
    with atomic.transaction() as staged:
        lines = _run_study(args.study, reps, seed, out, quiet, staged)
        elapsed = time.perf_counter() - start
        files = staged.targets
    print("\n".join(lines))
    print(f"simulated in {elapsed:.2f} s; wrote " + ", ".join(str(f) for f in files))
    return 0


def _run_study(
    study: str, reps: int, seed: int | None, out: Path, quiet: bool, staged: atomic.Outputs
) -> list[str]:
    """Run the study, stage its CSV and figures in ``staged``; the summary lines."""
    from dpcheck.plots import simulation as plots
    from dpcheck.simulation import output

    if study == "study1":
        from dpcheck.simulation.covariance import Study1Design, run_study1

        design = Study1Design(reps=reps) if seed is None else Study1Design(reps=reps, seed=seed)
        with _progress(2, "study 1: sanitising", quiet) as step:
            result = run_study1(design, step)
        with staged.writing(out / "study1.csv") as tmp:
            output.write_csv(output.study1_rows(result), tmp)
        with staged.writing(out / "study1_figure1.png") as tmp:
            plots.plot_study1(result, tmp)
        return output.study1_summary(result)
    else:
        from dpcheck.simulation.proportions import APPROACHES, Study2Design, run_study2

        design2 = Study2Design(reps=reps) if seed is None else Study2Design(reps=reps, seed=seed)
        with _progress(2 * len(APPROACHES), "study 2: sanitising", quiet) as step:
            result2 = run_study2(design2, step)
        with staged.writing(out / "study2.csv") as tmp:
            output.write_csv(output.study2_rows(result2), tmp)
        for approach, number in sorted(plots.APPROACH_FIGURE.items(), key=lambda kv: kv[1]):
            with staged.writing(out / f"study2_figure{number}_{approach}.png") as tmp:
                plots.plot_study2(result2, approach, tmp)
        with staged.writing(out / "study2_figureS1_S2_sums.png") as tmp:
            plots.plot_pairwise_sums(result2, tmp)
        return output.study2_summary(result2)
