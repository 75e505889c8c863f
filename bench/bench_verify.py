"""Wall time of `dpcheck verify liu2019`, cold (a fresh process: SymPy caches empty).

Prints the time of the cold run and of a second, warm in-process run, and their
ratio (the share of the time spent deriving rather than checking).  Target:
cold under 60 s on the 2-core development machine.

    python bench/bench_verify.py
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "dpcheck", "verify", "liu2019", "--format", "json",
                           "--quiet"], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT / "src"), **__import__("os").environ})
    cold = time.perf_counter() - start
    summary = __import__("json").loads(proc.stdout)["summary"]

    sys.path.insert(0, str(ROOT / "src"))
    from dpcheck.claims import registry, runner

    claims = runner.select(registry.collect(ROOT / "proofs"), ["liu2019"])
    runner.run(claims)  # first in-process run fills the caches
    start = time.perf_counter()
    runner.run(claims)
    warm = time.perf_counter() - start
    print(f"claims: {len(claims)}  summary: {summary}  exit code: {proc.returncode}")
    print(f"cold `dpcheck verify liu2019` (new process): {cold:8.2f} s   target < 60 s: "
          f"{'met' if cold < 60 else 'NOT met'}")
    print(f"warm re-run in one process (derivations cached): {warm:8.2f} s")
    print(f"ratio cold / warm: {cold / warm:6.1f}x")


if __name__ == "__main__":
    main()
