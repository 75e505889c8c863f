"""The one output-path checker: every verb checks its destination before doing the work.

``verify --output``, ``simulate --out``, ``derive --out`` and every ``--plot``
go through :func:`output_file` or :func:`output_folder`, which refuse in one
line (exit 2): an empty path, a folder where a file is expected (or a file
where a folder is), a device or other special file (``/dev/full``), a missing
or non-folder parent, a place where nothing can be created (``/sys``), and for
plots a suffix other than the formats offered.  Writability is established by
creating and removing a probe file where the output will be staged, so the
check cannot pass where the write would then fail for lack of permission.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import shown as _shown

#: Formats accepted by ``--plot`` (matplotlib writes each from the suffix).
PLOT_SUFFIXES = (".png", ".pdf", ".svg")
MAX_PATH_CHARS = 4096


def shown(value: object) -> str:
    """A path for a message: whole up to 160 characters, cut beyond."""
    return _shown(value, 160)


def _text(option: str, text: object) -> str:
    if not isinstance(text, (str, os.PathLike)):
        raise InputError(f"{option} {shown(text)} is not a path")
    value = os.fspath(text)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{option} {shown(text)} is empty; expected a path")
    if len(value) > MAX_PATH_CHARS:
        raise InputError(f"{option} {shown(value)} is longer than {MAX_PATH_CHARS} characters")
    if any(ord(ch) < 32 or ch == "\x7f" for ch in value):
        raise InputError(f"{option} {shown(value)} contains control characters")
    return value


def existing_ancestor(path: Path) -> Path:
    """The nearest folder at or above ``path`` that exists (where files are staged)."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(".")  # pragma: no cover - a relative path's '.' exists


def _probe(option: str, shown_path: str, folder: Path) -> None:
    """Create and remove a file in ``folder``: the write will be allowed there."""
    try:
        fd, name = tempfile.mkstemp(prefix=".dpcheck-probe-", dir=folder)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(
            f"{option} {shown(shown_path)}: cannot write in {str(folder)!r} ({reason})"
        ) from None
    os.close(fd)
    os.unlink(name)


def _writable_parent(option: str, value: str, parent: Path) -> None:
    """The folder an output goes into must exist, be a folder, and accept new files."""
    if not parent.exists():
        ancestor = existing_ancestor(parent)
        if not ancestor.is_dir():
            raise InputError(f"{option} {shown(value)}: {str(ancestor)!r} is a file, not a folder")
        raise InputError(f"{option} {shown(value)}: folder {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise InputError(f"{option} {shown(value)}: {str(parent)!r} is a file, not a folder")
    _probe(option, value, parent)


def output_file(option: str, text: object, suffixes: tuple[str, ...] | None = None) -> Path:
    """The file an option names, checked before any work (see the module docstring).

    Its folder must exist; ``suffixes`` (e.g. :data:`PLOT_SUFFIXES`) restricts the format.
    """
    value = _text(option, text)
    path = Path(value)
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise InputError(
            f"{option} {shown(value)}: expected a file name ending in "
            + ", ".join(suffixes[:-1])
            + f" or {suffixes[-1]}"
        )
    if value.endswith(("/", os.sep)) or path.is_dir():
        raise InputError(f"{option} {shown(value)} is a folder; expected a file path")
    if path.exists() or path.is_symlink():
        try:
            mode = path.stat().st_mode
        except OSError as exc:
            raise InputError(f"{option} {shown(value)}: {exc.strerror}") from None
        if not stat.S_ISREG(mode):
            raise InputError(
                f"{option} {shown(value)} is not a regular file (a device, pipe or socket);"
                " expected a file path"
            )
    _writable_parent(option, value, path.parent)
    return path


def output_folder(option: str, text: object) -> Path:
    """The folder an option names: an existing folder, or a new one in an existing folder.

    Nothing is created here; :class:`dpcheck.outputs.atomic.Outputs` creates it
    when the run commits its files.  Like ``mkdir`` without ``-p``, a missing
    parent is refused (a mistyped path does not grow a tree of folders).
    """
    value = _text(option, text)
    path = Path(value)
    if path.exists():
        if not path.is_dir():
            raise InputError(f"{option} {shown(value)} is a file; expected a folder")
        _probe(option, value, path)
        return path
    _writable_parent(option, value, path.parent)
    return path


__all__ = ["PLOT_SUFFIXES", "existing_ancestor", "output_file", "output_folder"]
