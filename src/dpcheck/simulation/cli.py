"""``dpcheck simulate {study1,study2} [--reps R] [--seed S] [--out DIR]`` (Liu 2019 §4).

Runs a study, writes its CSV table and figures into ``--out`` and prints a
summary; a progress bar follows the work unless ``--quiet`` or stderr is not
a terminal.  Bad input is a one-line :class:`InputError` (exit 2), raised
before anything is written.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from dpcheck.errors import InputError

STUDIES = ("study1", "study2")


def _int(name: str, text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"--{name} {text!r} is not an integer") from None
    if value < low:
        raise InputError(f"--{name} {value} must be at least {low}")
    return value


def _out_dir(text: str) -> Path:
    """The output folder, created if needed; a one-line error if it cannot be written."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise InputError(f"--out {text!r} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {text!r} cannot be created ({exc.strerror})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise InputError(f"--out {text!r} is not writable")
    return path


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
        raise InputError(f"study {args.study!r} is not one of {', '.join(STUDIES)}")
    reps = _int("reps", args.reps, 2)  # a Monte Carlo standard error needs 2 repetitions
    seed = None if args.seed is None else _int("seed", args.seed, 0)
    out = _out_dir(args.out)
    quiet = args.quiet or not sys.stderr.isatty()
    from dpcheck.plots import simulation as plots
    from dpcheck.simulation import output

    start = time.perf_counter()
    files: list[Path] = []
    if args.study == "study1":
        from dpcheck.simulation.covariance import Study1Design, run_study1

        design = Study1Design(reps=reps) if seed is None else Study1Design(reps=reps, seed=seed)
        with _progress(2, "study 1: sanitising", quiet) as step:
            result = run_study1(design, step)
        elapsed = time.perf_counter() - start
        files.append(output.write_csv(output.study1_rows(result), out / "study1.csv"))
        files.append(plots.plot_study1(result, out / "study1_figure1.png"))
        lines = output.study1_summary(result)
    else:
        from dpcheck.simulation.proportions import APPROACHES, Study2Design, run_study2

        design2 = Study2Design(reps=reps) if seed is None else Study2Design(reps=reps, seed=seed)
        with _progress(2 * len(APPROACHES), "study 2: sanitising", quiet) as step:
            result2 = run_study2(design2, step)
        elapsed = time.perf_counter() - start
        files.append(output.write_csv(output.study2_rows(result2), out / "study2.csv"))
        for approach, number in sorted(plots.APPROACH_FIGURE.items(), key=lambda kv: kv[1]):
            name = f"study2_figure{number}_{approach}.png"
            files.append(plots.plot_study2(result2, approach, out / name))
        files.append(plots.plot_pairwise_sums(result2, out / "study2_figureS1_S2_sums.png"))
        lines = output.study2_summary(result2)
    print("\n".join(lines))
    print(f"simulated in {elapsed:.2f} s; wrote " + ", ".join(str(f) for f in files))
    return 0
