"""What is mutated: every transcription of a document (its Equations, and the printed
sensitivities of the supplement), with the symbols its papers module names."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from dpcheck.papers.equation import Equation

#: the papers modules of each document
PAPERS: dict[str, tuple[str, ...]] = {
    "liu2019": ("dpcheck.papers.liu2019",),
    "liu2019s": ("dpcheck.papers.liu2019s", "dpcheck.papers.liu2019s_sensitivity"),
    "zz2016": ("dpcheck.papers.zz2016",),
}
DOCUMENTS = tuple(PAPERS)


@dataclass(eq=False)
class Transcription:
    """One printed formula under test: ``obj.<attr>`` is the thing mutated.

    ``key`` names it in its module (``APPA_MEAN_CHAIN[2]``, ``PRINTED[mean, remove][0]``);
    ``original`` is the value found when the harness started.
    """

    document: str
    key: str
    label: str
    obj: Any
    attr: str
    original: Any = field(repr=False)
    vocabulary: tuple[sp.Basic, ...] = field(default=(), repr=False)

    @property
    def text(self) -> str:
        """The original as text (for masking echoes in evidence keys)."""
        return _text(self.original)


def _text(value: Any) -> str:
    return str(value) if isinstance(value, sp.Basic) else getattr(value, "__name__", "")


def _roots(module: Any) -> Mapping[str, Any]:
    """What a papers module exports: ``ALL``, else ``__all__``, else its public attributes."""
    if isinstance(getattr(module, "ALL", None), Mapping):
        return module.ALL
    if hasattr(module, "__all__"):
        return {name: getattr(module, name) for name in module.__all__}
    return {k: v for k, v in vars(module).items() if not k.startswith("_")}


def _walk(obj: Any, key: str, seen: set[int]) -> Iterator[tuple[str, Equation]]:
    if isinstance(obj, Equation):
        if id(obj) not in seen:
            seen.add(id(obj))
            yield key, obj
    elif isinstance(obj, Mapping):
        for k, v in obj.items():
            yield from _walk(v, f"{key}[{k!r}]" if key else str(k), seen)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _walk(v, f"{key}[{i}]", seen)


def _vocabulary(module: Any) -> tuple[sp.Basic, ...]:
    """The symbols and indexed bases a papers module names (imported ones included)."""
    found = {v for v in vars(module).values() if isinstance(v, (sp.Symbol, sp.IndexedBase))}
    return tuple(sorted(found, key=str))


def transcriptions(document: str) -> list[Transcription]:
    """Every transcription of ``document`` (see the module docstring), in module order."""
    out: list[Transcription] = []
    for name in PAPERS[document]:
        module = importlib.import_module(name)
        if name.endswith("_sensitivity"):
            out += _printed_transcriptions(document, module.PRINTED)
            continue
        vocab = _vocabulary(module)
        for key, eq in _walk(_roots(module), "", set()):
            out.append(Transcription(document, key, eq.label, eq, "expr", eq.expr, vocab))
    return out


def _printed_transcriptions(document: str, printed: Mapping) -> list[Transcription]:
    out = []
    for (stat, neighbours), formulas in printed.items():
        for i, p in enumerate(formulas):
            key = f"PRINTED[{stat}, {neighbours}][{i}]"
            label = f"{p.where}: {p.text}"
            out.append(Transcription(document, key, label, p, "normalised", p.normalised))
    return out
