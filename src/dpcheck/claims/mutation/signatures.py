"""The (status, outcome signature) of a verdict, compared between the baseline and a mutant
run (see "Killed" in the package docstring)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

from dpcheck.claims.model import Verdict

#: status words whose value is part of an outcome signature
OUTCOME_WORDS = frozenset(
    {
        "holds",
        "holds as printed",
        "holds only under the reading",
        "false",
        "true",
        "proved",
        "verified",
        "refuted",
        "inconclusive",
        "undecided",
        "equal",
        "loose",
        "wrong",
        "not shown",
        "supported",
        "contradicted",
        "crashed",
    }
)


def _outcome_word(text: str) -> str | None:
    t = text.strip().lower()
    if t in OUTCOME_WORDS:
        return t
    head = t.split(" (", 1)[0].strip()
    return head if head in OUTCOME_WORDS and head != t else None


def _leaf_outcome(value: Any, key: str) -> Any:
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return value
    if key == "first_broken_line" and isinstance(value, str):
        return value
    if isinstance(value, int) and key.strip().lower() in OUTCOME_WORDS:
        return value
    if isinstance(value, str):
        return _outcome_word(value)
    return None


def _mask(key: str, masks: Sequence[str]) -> str:
    for text in masks:
        if len(text) >= 3 and text in key:
            key = key.replace(text, "<expr>")
    return key


Signature = tuple[str, tuple[tuple[str, Any], ...]]


def outcome_signature(evidence: Any, masks: Sequence[str] = ()) -> tuple[tuple[str, Any], ...]:
    """The ``(path, value)`` outcome leaves of an evidence tree (module docstring, "Killed")."""
    out: list[tuple[str, Any]] = []

    def walk(node: Any, path: tuple[str, ...], key: str) -> None:
        if isinstance(node, Mapping):
            for k, v in node.items():
                walk(v, (*path, _mask(str(k), masks)), str(k))
        elif isinstance(node, (list, tuple)):
            for i, v in enumerate(node):
                walk(v, (*path, str(i)), key)
        else:
            value = _leaf_outcome(node, key)
            if value is not None:
                out.append(("/".join(path), value))

    walk(evidence, (), "")
    return tuple(sorted(out, key=lambda kv: (kv[0], str(kv[1]))))


def signature(verdict: Verdict, masks: Sequence[str] = ()) -> Signature:
    """(status, outcome signature) of a verdict."""
    return verdict.status.value, outcome_signature(verdict.evidence, masks)


def first_change(before: tuple[tuple[str, Any], ...], after: tuple[tuple[str, Any], ...]) -> str:
    """The first outcome path whose value differs (for the report)."""
    a, b = dict(before), dict(after)
    for path in sorted(set(a) | set(b)):
        if a.get(path, "<absent>") != b.get(path, "<absent>"):
            return f"{path}: {a.get(path, '<absent>')} -> {b.get(path, '<absent>')}"
    return "(multiset of outcomes changed)"
