"""Step 3, the usage map: which claims read which transcription (recorded by swapping each
transcription's class to a recording subclass), and the caches that depend on them."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sympy as sp

from dpcheck.claims.model import Claim, Verdict
from dpcheck.claims.mutation.transcription import Transcription
from dpcheck.papers.equation import Equation
from dpcheck.papers.liu2019s_sensitivity import Printed

IMPORT = "(import)"


def cached_functions() -> dict[Any, Any]:
    """Every ``functools`` cache of the loaded dpcheck and proof modules: code -> wrapper."""
    out: dict[Any, Any] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("dpcheck") or module is None:
            continue
        for obj in list(vars(module).values()):
            wrapped = getattr(obj, "__wrapped__", None)
            if hasattr(obj, "cache_clear") and hasattr(wrapped, "__code__"):
                out[wrapped.__code__] = obj
    return out


def clear(caches: Iterable[Any]) -> None:
    for c in caches:
        c.cache_clear()


class _Recorder:
    """Collects who reads which transcription (see :func:`record_usage`)."""

    def __init__(self, items: Sequence[Transcription]) -> None:
        self.keys = {id(t.obj): t.key for t in items}
        self.current = IMPORT
        self.reads: dict[str, set[str]] = {}
        self.cache_codes: dict[Any, Any] = {}
        self.dependent: dict[Any, Any] = {}

    def note(self, obj: Any) -> None:
        key = self.keys.get(id(obj))
        if key is None:
            return
        self.reads.setdefault(self.current, set()).add(key)
        frame = sys._getframe(2)
        while frame is not None:
            wrapper = self.cache_codes.get(frame.f_code)
            if wrapper is not None:
                self.dependent[frame.f_code] = wrapper
            frame = frame.f_back


_RECORDER: _Recorder | None = None


class _RecordingEquation(Equation):
    """An Equation whose ``expr`` reads are logged (its class while usage is recorded)."""

    @property
    def expr(self) -> sp.Expr:  # type: ignore[override]
        if _RECORDER is not None:
            _RECORDER.note(self)
        return self.__dict__["expr"]


class _RecordingPrinted(Printed):
    """A Printed whose ``normalised`` reads are logged."""

    @property
    def normalised(self) -> Callable[..., Any]:  # type: ignore[override]
        if _RECORDER is not None:
            _RECORDER.note(self)
        return self.__dict__["normalised"]


@contextmanager
def recording(items: Sequence[Transcription]) -> Iterator[_Recorder]:
    """Swap every transcription's class to its recording subclass; restored on exit."""
    global _RECORDER
    recorder = _Recorder(items)
    old = [(t.obj, t.obj.__class__) for t in items]
    _RECORDER = recorder
    try:
        for t in items:
            cls = _RecordingPrinted if isinstance(t.obj, Printed) else _RecordingEquation
            object.__setattr__(t.obj, "__class__", cls)
        yield recorder
    finally:
        for obj, cls in old:
            object.__setattr__(obj, "__class__", cls)
        _RECORDER = None


@dataclass
class Usage:
    """Which claims read which transcription, the caches that depend on transcriptions,
    and the verdicts of the recording run."""

    readers: dict[str, list[str]]
    import_reads: set[str]
    caches: list[Any]
    verdicts: dict[str, Verdict]


def record_usage(
    collect: Callable[[], Sequence[Claim]],
    items: Sequence[Transcription],
    on_claims: Callable[[int], None] | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Claim], Usage]:
    """Run every claim once with recording on (see the module docstring, step 3).

    ``collect`` is called while recording (so proof modules imported by it have their
    import-time reads recorded) and returns the claims to run; ``on_claims`` gets their
    number, ``progress`` each claim id before it runs.
    """
    from dpcheck.claims.runner import run_one

    with recording(items) as rec:
        claims = list(collect())
        if on_claims:
            on_claims(len(claims))
        rec.cache_codes = cached_functions()
        clear(rec.cache_codes.values())
        verdicts = {}
        for c in claims:
            if progress:
                progress(c.id)
            rec.current = c.id
            verdicts[c.id] = run_one(c).verdict
        rec.current = IMPORT
    return claims, _usage(claims, items, rec, verdicts)


def _usage(
    claims: Sequence[Claim], items: Sequence[Transcription], rec: _Recorder, verdicts: dict
) -> Usage:
    readers: dict[str, list[str]] = {t.key: [] for t in items}
    for claim_id, keys in rec.reads.items():
        if claim_id != IMPORT:
            for k in keys:
                readers[k].append(claim_id)
    order = {c.id: i for i, c in enumerate(claims)}
    for k in readers:
        readers[k].sort(key=order.__getitem__)
    return Usage(readers, rec.reads.get(IMPORT, set()), list(rec.dependent.values()), verdicts)
