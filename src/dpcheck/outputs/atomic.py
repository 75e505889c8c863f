"""The one atomic writer: outputs are staged under temporary names and renamed into place.

A verb writes every file through one :class:`Outputs` (from
:func:`transaction`).  Each file is first written to a hidden temporary name
beside its destination (the same file system, so the rename is atomic); when
the verb's work is done, :meth:`Outputs.commit` renames all of them into place
with SIGINT held back (:func:`dpcheck.outputs.interrupts.deferred`).  On an
error or an interrupt the temporary files are removed instead, so a run leaves
its complete output or nothing new, never a partial file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dpcheck.errors import InputError
from dpcheck.outputs import interrupts
from dpcheck.outputs.paths import existing_ancestor

PARTIAL = ".dpcheck-partial"


class Outputs:
    """The files one run writes, staged until :meth:`commit`."""

    def __init__(self) -> None:
        self._staged: dict[Path, Path] = {}

    def stage(self, target: str | os.PathLike[str]) -> Path:
        """The temporary path to write ``target``'s content to (renamed at commit)."""
        dest = Path(target)
        if dest in self._staged:
            return self._staged[dest]
        folder = existing_ancestor(dest.parent)
        # the real suffix last, so that writers that infer the format from it still can
        tmp = folder / f".{dest.stem}.{os.getpid()}.{len(self._staged)}{PARTIAL}{dest.suffix}"
        self._staged[dest] = tmp
        return tmp

    @contextmanager
    def writing(self, target: str | os.PathLike[str]) -> Iterator[Path]:
        """``with out.writing(path) as tmp: ...write tmp...``; write errors are one line."""
        tmp = self.stage(target)
        try:
            yield tmp
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise InputError(f"cannot write {str(target)!r} ({reason})") from None

    def write_bytes(self, target: str | os.PathLike[str], data: bytes) -> Path:
        with self.writing(target) as tmp:
            tmp.write_bytes(data)
        return Path(target)

    def write_text(self, target: str | os.PathLike[str], text: str) -> Path:
        return self.write_bytes(target, text.encode("utf-8"))

    @property
    def targets(self) -> list[Path]:
        return list(self._staged)

    def commit(self) -> list[Path]:
        """Rename every staged file into place (SIGINT held back); the targets."""
        with interrupts.deferred():
            if interrupts.interrupted():
                self._remove()
                raise KeyboardInterrupt
            try:
                for dest, tmp in self._staged.items():
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(tmp, dest)
            except OSError as exc:
                self._remove()
                raise InputError(f"cannot write {str(dest)!r} ({exc.strerror})") from None
        done = list(self._staged)
        self._staged = {}
        return done

    def discard(self) -> None:
        """Remove every staged file (SIGINT held back)."""
        with interrupts.deferred():
            self._remove()

    def _remove(self) -> None:
        for tmp in self._staged.values():
            try:
                tmp.unlink(missing_ok=True)
            except OSError:  # pragma: no cover - the folder vanished
                pass
        self._staged = {}


@contextmanager
def transaction() -> Iterator[Outputs]:
    """Stage the outputs of a block; commit them if it ends normally, else remove them."""
    out = Outputs()
    try:
        yield out
    except BaseException:
        out.discard()
        raise
    out.commit()


def write_text(target: str | os.PathLike[str], text: str) -> Path:
    """Write one text file atomically (a one-file :func:`transaction`)."""
    with transaction() as out:
        out.write_text(target, text)
    return Path(target)


__all__ = ["PARTIAL", "Outputs", "transaction", "write_text"]
