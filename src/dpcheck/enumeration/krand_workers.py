"""Persistent worker processes for the covers of one certified upper bound.

The covers of the L Hamming distances h (:class:`krand_cover.Cover`) are independent:
each settles every composition for its own h, and the certificate is the union.  They
run side by side on forked workers that live for the whole :func:`krand_bounds.upper_bound`
(every attempted epsilon), each h always on the same worker, so that the caches a cover
fills (sorted sides, binomial tables, configurations) serve the next attempt's cover of
the same h, as they do in one process.  The first cover that fails stops the others of
the same attempt (a shared event each cover checks between boxes).  Every cover is the
one the sequential run computes: the same boxes, tools and evaluations.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import queue
import signal
import time
import traceback
from types import TracebackType

from dpcheck.enumeration.krand_cover import Cover, CoverResult
from dpcheck.enumeration.krand_l1_exact import LieProbability

#: How long the parent waits on results between checks that the workers are alive (s).
POLL = 1.0


def affinity(L: int, workers: int) -> list[list[int]]:
    """The h values of each worker, in the order it runs them.  With two workers, h = L - 1
    (for L >= 3) or h = 1 (L = 2) has a worker to itself and the other takes the rest, h = L
    first: the measured costs at n = 1000 (L = 3, eps0 = 1: h = 2 about 60% of the whole,
    h = 3 25%, h = 1 15%; L = 2: h = 2 most of it)."""
    hs = list(range(L, 0, -1))
    if workers <= 1 or L == 1:
        return [hs]
    alone = L - 1 if L >= 3 else 1
    rest = [h for h in hs if h != alone]
    groups = [rest, [alone]]
    return groups[:workers]


def _serve(inbox: mp.Queue, outbox: mp.Queue, stop: mp.Event, share: float = 1.0) -> None:  # type: ignore[type-arg]
    """A worker: run the covers it is sent until it gets None.  Its caches may hold
    ``share`` of the bytes one process's may (issue 40: the workers' caches together stay
    within the documented 2 GiB of sorted sides, not 2 GiB each)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent alone handles Ctrl-C
    from dpcheck.enumeration import krand_multi as km  # noqa: PLC0415
    from dpcheck.enumeration import krand_single as ks  # noqa: PLC0415
    from dpcheck.enumeration import krand_tables as kt  # noqa: PLC0415

    km.WORKERS = 1  # one FFT thread per worker: the workers share the cores
    for name in ("SIDE_CACHE_BYTES", "ATOMS_CACHE_BYTES", "ONE_CACHE_BYTES", "STACKED_CACHE_BYTES"):
        setattr(ks, name, int(getattr(ks, name) * share))
    kt.TABLE_CACHE_BYTES = int(kt.TABLE_CACHE_BYTES * share)
    while True:
        task = inbox.get()
        if task is None:
            return
        tag, L, h, lie, n, delta, eps, deadline = task
        try:
            left = max(deadline - time.monotonic(), 1.0)
            res = Cover(L, h, lie, n, delta, eps).run(max_seconds=left, stop=stop.is_set)
            outbox.put((tag, h, res, None))
        except BaseException:  # noqa: BLE001 - reported to the parent, which raises
            outbox.put((tag, h, None, traceback.format_exc()))


class CoverWorkers:
    """``processes`` forked workers with one task queue each (use as a context manager)."""

    def __init__(self, processes: int = 2) -> None:
        if processes < 1:
            raise ValueError(f"processes = {processes}: expected at least 1")
        ctx = mp.get_context("fork")
        self.stop = ctx.Event()
        self.results: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
        self.inboxes: list[mp.Queue] = [ctx.Queue() for _ in range(processes)]  # type: ignore[type-arg]
        self.procs = [
            ctx.Process(
                target=_serve, args=(box, self.results, self.stop, 1 / processes), daemon=True
            )
            for box in self.inboxes
        ]
        for p in self.procs:
            p.start()
        self._tag = 0

    @property
    def processes(self) -> int:
        return len(self.procs)

    def covers(
        self,
        L: int,
        n: int,
        lie: LieProbability,
        delta: float,
        eps: float,
        max_seconds: float = math.inf,
    ) -> dict[int, CoverResult]:
        """Every h's cover at eps, side by side (module doc); the first that fails stops
        the others, whose results say ``stopped``."""
        self._tag += 1
        tag = self._tag
        deadline = time.monotonic() + min(max_seconds, 1e9)
        groups = affinity(L, self.processes)
        for box, hs in zip(self.inboxes, groups, strict=False):
            for h in hs:
                box.put((tag, L, h, lie, n, delta, eps, deadline))
        pending = sum(len(hs) for hs in groups)
        results: dict[int, CoverResult] = {}
        try:
            while pending:
                try:
                    got, h, res, err = self.results.get(timeout=POLL)
                except queue.Empty:
                    dead = [p.exitcode for p in self.procs if not p.is_alive()]
                    if dead:
                        raise RuntimeError(
                            f"a cover worker exited (exit code {dead[0]}); out of memory?"
                        ) from None
                    continue
                if got != tag:
                    continue
                pending -= 1
                if err is not None:
                    raise RuntimeError(f"the cover of h = {h} failed in its worker:\n{err}")
                results[h] = res
                if not res.ok and not res.stopped:
                    self.stop.set()
        finally:
            if pending:  # an error: the workers' state is unknown
                self.close(force=True)
            self.stop.clear()
        return results

    def close(self, force: bool = False) -> None:
        for p, box in zip(self.procs, self.inboxes, strict=False):
            if force:
                p.terminate()
            elif p.is_alive():
                box.put(None)
        for p in self.procs:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
                p.join()

    def __enter__(self) -> CoverWorkers:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(force=kind is not None)

