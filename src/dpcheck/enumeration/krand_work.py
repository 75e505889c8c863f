"""Time and memory limits of the multi-bit K-randomization bounds (issue 40).

Every phase of ``dpcheck krand profile`` above the exhaustive range (the lower bound,
the covers of the upper bound, the §3.1 epsilon at the attained pair) runs under a
*deadline* and every evaluation's arrays under a *memory limit*:

* :func:`deadline` sets the time a phase may use (nested deadlines: the earliest wins);
  the evaluators call :func:`check_time` inside their long loops (per binomial table
  group, per FFT part, per exactly summed point, per split of the clones), so that no
  evaluation runs on past it: :class:`OutOfTime` is raised, and the phase gives up with
  what it has (a cover says "time budget", the lower bound keeps the candidates already
  certified).  A single step between two checks is bounded by the memory limit (one
  FFT box, one stage of configurations: a few seconds at most here), and one expected
  (from its size) to end past the deadline is not started.
* :func:`check_bytes` refuses, before anything is allocated, an evaluation whose arrays
  would exceed :data:`EVAL_BYTES` (:class:`TooLarge`): the cover's tool then gives the
  trivial bound 1 (the box is left to the other tools, or split), the lower bound skips
  the candidate, the §3.1 epsilon is "not computed".  The caches have their own byte
  limits (:mod:`krand_single`).

Neither changes a number that is computed: a limit only decides whether it is.
"""

from __future__ import annotations

import functools
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class TooLarge(Exception):
    """An evaluation whose arrays would exceed the memory limit (:data:`EVAL_BYTES`)."""


class OutOfTime(Exception):
    """The time of the current phase (:func:`deadline`) is spent."""


#: Bytes one evaluation's arrays may take (configurations, FFT boxes, tables; per
#: element as measured with tracemalloc, see the evaluators' constants).  The multi-law
#: tools of the L = 3, n = 1000 covers reach about 1.4 GB.
EVAL_BYTES = 3 * 2**29

_DEADLINE = [math.inf]


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Within the block, :func:`check_time` raises :class:`OutOfTime` once ``seconds``
    have passed (or an enclosing deadline has: the earlier one holds)."""
    previous = _DEADLINE[0]
    _DEADLINE[0] = min(previous, time.monotonic() + max(0.0, seconds))
    try:
        yield
    finally:
        _DEADLINE[0] = previous


def seconds_left() -> float:
    """Time left before the current deadline (inf without one)."""
    return _DEADLINE[0] - time.monotonic()


def check_time(ahead: float = 0.0) -> None:
    """Raise :class:`OutOfTime` when the current deadline has passed, or would have before
    a step expected to take ``ahead`` seconds ends (a step that cannot be interrupted: one
    stage of configurations, one FFT; estimated low, from measured rates, so that a step
    that would finish in time is not refused)."""
    if time.monotonic() + ahead > _DEADLINE[0]:
        raise OutOfTime("the time budget of this phase is spent")


def check_bytes(nbytes: float, what: str) -> None:
    """Raise :class:`TooLarge` when ``nbytes`` exceed :data:`EVAL_BYTES` (before allocating)."""
    if nbytes > EVAL_BYTES:
        raise TooLarge(
            f"{what}: about {nbytes / 2**30:.2g} GiB, above the {EVAL_BYTES / 2**30:g} GiB"
            " of one evaluation"
        )


def byte_cache(limit: Callable[[], float], size: Callable[[Any], int]) -> Callable[[F], F]:
    """A least-recently-used cache of a function of hashable arguments that holds at most
    ``limit()`` bytes of results (``size`` of each; the newest is always kept).  Like
    ``functools.lru_cache`` it has ``cache_clear`` and ``__wrapped__`` (the mutation
    runs clear every such cache, :mod:`dpcheck.claims.mutation.usage`)."""

    def wrap(f: F) -> F:
        cache: OrderedDict[Hashable, Any] = OrderedDict()
        held = [0]

        @functools.wraps(f)
        def cached(*args: Hashable) -> Any:
            if args in cache:
                cache.move_to_end(args)
                return cache[args]
            value = f(*args)
            cache[args] = value
            held[0] += size(value)
            while held[0] > limit() and len(cache) > 1:
                _, old = cache.popitem(last=False)
                held[0] -= size(old)
            return value

        def cache_clear() -> None:
            cache.clear()
            held[0] = 0

        def cache_info() -> tuple[int, int]:
            """(entries, bytes held)."""
            return len(cache), held[0]

        cached.cache_clear = cache_clear  # type: ignore[attr-defined]
        cached.cache_info = cache_info  # type: ignore[attr-defined]
        return cached  # type: ignore[return-value]

    return wrap


__all__ = [
    "byte_cache",
    "EVAL_BYTES",
    "OutOfTime",
    "TooLarge",
    "check_bytes",
    "check_time",
    "deadline",
    "seconds_left",
]
