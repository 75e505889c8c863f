"""Start-up time of a dpcheck command: what every refusal and every CLI test pays.

Times, in fresh interpreters (the median of ``--runs``), building the CLI's parser as
``dpcheck`` does (the shipped noise laws built on first use, :mod:`dpcheck.laws.registry`)
against the same with every shipped law built, which is what the parser cost when the
registry built them at import; prints the two medians and their ratio, measured in the
same run, alternating the two.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

LAZY = "from dpcheck.cli import build_parser; build_parser()"
EAGER = LAZY + "; from dpcheck.laws.registry import LAWS; list(LAWS.values())"


def _seconds(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each (default 7)")
    runs = parser.parse_args().runs
    _seconds(LAZY)  # warm the file cache
    lazy, eager = [], []
    for _ in range(runs):
        lazy.append(_seconds(LAZY))
        eager.append(_seconds(EAGER))
    a, b = statistics.median(lazy), statistics.median(eager)
    print(f"{'parser, laws on first use':32s} {a:7.3f} s  (median of {runs})")
    print(f"{'parser, every shipped law built':32s} {b:7.3f} s")
    print(f"{'ratio first-use / built':32s} {a / b:7.3f}")


if __name__ == "__main__":
    main()
