"""Registering claims and collecting them from proofs/ (like pytest collects tests/).

A proof module under ``proofs/<document>/`` declares claims with the
:func:`claim` decorator::

    @claim("liu2019.eq6.mu1", source="eq (6)", statement=r"\\mu_1 = \\dots")
    def _() -> Verdict: ...

:func:`collect` imports every ``*.py`` file below the proofs folder (sorted by
path), so the registry fills in a deterministic order.

**A proofs folder is code that runs** (issue 40).  Which folder (:func:`locate`):

1. ``--proofs DIR`` (``explicit``), else
2. ``$DPCHECK_PROOFS`` (an empty value counts as unset), else
3. the ``proofs`` folder of the *project root* -- the first folder upward from the
   working directory that holds a ``pyproject.toml`` or a ``.git`` -- only if that
   project is dpcheck itself (``[project] name = "dpcheck"``), and only if neither the
   project root nor anything in that proofs folder is writable by others or owned by
   another user (so a world-writable ``/tmp`` with a planted ``pyproject.toml`` does not
   count); the search stops at that first project root, so a stray ``/tmp/proofs`` or
   ``/proofs`` is never found, else
4. the shipped claims: ``proofs/`` beside the sources of a dpcheck checkout (editable
   install) or ``dpcheck/_proofs`` in a wheel.

``--proofs`` and ``$DPCHECK_PROOFS`` are checked before anything is imported (empty,
blank, missing, not a folder, no ``<document>/*.py``: an :class:`InputError` naming the
value); a proof file that cannot be read, does not compile, raises at import, or
registers a malformed or duplicate id is an :class:`InputError` naming the file and the
problem, and the collection of that folder is undone (:func:`collect`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
import stat
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from itertools import count
from pathlib import Path

from dpcheck.claims.model import Claim, Verdict
from dpcheck.errors import InputError

#: claims by folder key (:func:`_folder_key`; ``""`` for claims registered outside
#: :func:`collect`), then by id: the same id may live in two folders collected in one
#: process (a copy of the shipped claims, edited), never twice in one folder
REGISTRY: dict[str, dict[str, Claim]] = {}
_ORDER = count()
_ID = re.compile(r"^[a-z][a-z0-9]*(\.[A-Za-z0-9_]+)+$")
#: the module prefix of the shipped claims (tests look modules up by this name)
SHIPPED_PREFIX = "dpcheck_proofs"
#: the file each proof module was imported from, by module name (for messages)
_FILES: dict[str, Path] = {}
#: (folder key, module name) while :func:`collect` imports a module, else None
_LOADING: tuple[str, str] | None = None
#: a proof file larger than this is refused unread (the shipped ones are < 100 kB)
MAX_PROOF_BYTES = 10 * 2**20
_EXPECTED = "expected a folder of proof files <document>/*.py"


class ClaimError(InputError):
    """A malformed claim id, a claim registered twice, or a decorated non-function."""


@dataclass(frozen=True)
class Proofs:
    """The proofs folder to collect and where the choice came from.

    ``origin`` is ``"--proofs"``, ``"DPCHECK_PROOFS"``, ``"project"`` (the proofs
    folder of a dpcheck project root above the working directory) or ``"shipped"``.
    """

    path: Path
    origin: str

    @property
    def shipped(self) -> bool:
        """Whether these are the claims shipped with this dpcheck (no notice needed)."""
        here = shipped_proofs_dir()
        return here is not None and _same(self.path, here)


def claim(
    id: str, *, source: str, statement: str
) -> Callable[[Callable[[], Verdict]], Callable[[], Verdict]]:
    """Register the decorated function as the check of claim ``id``.

    A malformed id, or an id the same proofs folder registers twice, is a
    :class:`ClaimError` (an :class:`InputError`, so a ``ValueError``).
    """
    if not isinstance(id, str) or not _ID.fullmatch(id):
        raise ClaimError(
            f"claim id {_shown(id)} is not of the form <document>.<place>.<name>"
            " (lower-case document, then dot-separated letters, digits, _)"
        )

    def register(check: Callable[[], Verdict]) -> Callable[[], Verdict]:
        if not callable(check):
            raise ClaimError(f"claim {id!r} decorates {type(check).__name__}, not a function")
        key, module = _LOADING or ("", getattr(check, "__module__", None) or "")
        claims = REGISTRY.setdefault(key, {})
        old = claims.get(id)
        if old is not None and getattr(old.check, "__code__", old.check) is not getattr(
            check, "__code__", check
        ):
            raise ClaimError(f"claim id {id!r} registered twice (also in {_where(old)})")
        claims[id] = Claim(id, source, statement, check, module, next(_ORDER))
        return check

    return register


# --------------------------------------------------------------------------- which folder
def locate(explicit: str | None = None) -> Proofs:
    """The proofs folder to collect, and why (the module docstring's order).

    ``explicit`` is the value of ``--proofs`` (None: not given; ``""`` is refused).
    """
    if explicit is not None:
        return Proofs(_checked_folder("--proofs", explicit), "--proofs")
    env = os.environ.get("DPCHECK_PROOFS")
    if env:  # an empty value counts as unset, as for most variables
        return Proofs(_checked_folder("DPCHECK_PROOFS", env), "DPCHECK_PROOFS")
    found = project_proofs_dir()
    if found is not None:
        return Proofs(found, "project")
    shipped = shipped_proofs_dir()
    if shipped is None:
        raise InputError(
            "dpcheck's shipped claims are missing (no proofs folder); pass --proofs DIR"
        )
    return Proofs(shipped, "shipped")


def find_proofs_dir(explicit: str | None = None) -> Path:
    """The proofs folder: --proofs, $DPCHECK_PROOFS, the dpcheck project's, or the shipped
    one (:func:`locate`, which also says where it came from)."""
    return locate(explicit).path


@functools.lru_cache(maxsize=1)
def shipped_proofs_dir() -> Path | None:
    """The claims shipped with this dpcheck: ``proofs/`` beside the sources of a dpcheck
    checkout (``src/dpcheck/...``), else ``dpcheck/_proofs`` of a wheel; None if neither."""
    here = Path(__file__).resolve()
    checkout = here.parents[3]
    if here.parents[2].name == "src" and _is_dpcheck_project(checkout):
        if _proof_files(checkout / "proofs"):
            return checkout / "proofs"
    wheel = here.parents[1] / "_proofs"
    return wheel if _proof_files(wheel) else None


def project_root(start: Path | None = None) -> Path | None:
    """The first folder upward from ``start`` (default: the working directory) that holds
    a ``pyproject.toml`` or a ``.git``; None when there is none up to the filesystem root."""
    try:
        here = (start or Path.cwd()).resolve()
    except OSError:  # the working directory was removed
        return None
    for folder in (here, *here.parents):
        if _exists(folder / "pyproject.toml") or _exists(folder / ".git"):
            return folder
    return None


def project_proofs_dir(start: Path | None = None) -> Path | None:
    """``proofs/`` of the project root above ``start`` if that project is dpcheck and the
    folder is trusted (:func:`untrusted`); else None.  The search never climbs past the
    first project root, so a ``proofs`` folder above it (``/tmp/proofs``) is never used."""
    root = project_root(start)
    if root is None or not _is_dpcheck_project(root):
        return None
    proofs = root / "proofs"
    files = _proof_files(proofs)
    if not files or untrusted([root, proofs, *{f.parent for f in files}, *files]):
        return None
    return proofs


def untrusted(paths: list[Path]) -> Path | None:
    """The first of ``paths`` that another user could have written (writable by others,
    or owned by a user other than the current one and root), or None."""
    me = os.geteuid() if hasattr(os, "geteuid") else None
    for path in paths:
        try:
            st = path.stat()
        except (OSError, ValueError):
            return path
        if st.st_mode & stat.S_IWOTH or (me is not None and st.st_uid not in (me, 0)):
            return path
    return None


def _checked_folder(option: str, text: str) -> Path:
    """``text`` as a proofs folder, or an InputError naming ``option`` and the value."""
    value = f"{option}={_shown(text)}"
    if text == "":
        raise InputError(f"{value} is empty: {_EXPECTED}")
    if not text.strip():
        raise InputError(f"{value} is blank: {_EXPECTED}")
    path = Path(text)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"{value} does not exist: {_EXPECTED}") from None
    except ValueError:  # only from the library: argv and the environment cannot hold these
        what = "contains a NUL character" if "\0" in text else "is no valid file name"
        raise InputError(f"{value} {what}: {_EXPECTED}") from None
    except OSError as exc:
        raise InputError(f"{value} cannot be opened ({exc.strerror}): {_EXPECTED}") from None
    if not stat.S_ISDIR(mode):
        raise InputError(f"{value} is not a folder: {_EXPECTED}")
    try:
        with os.scandir(path) as entries:
            next(entries, None)
    except OSError as exc:
        raise InputError(f"{value} cannot be read ({exc.strerror}): {_EXPECTED}") from None
    if not _proof_files(path):
        loose = any(p.name.endswith(".py") for p in _glob(path, "*.py"))
        hint = " (it has .py files itself: pass the folder above it)" if loose else ""
        raise InputError(f"{value} has no proof files <document>/*.py{hint}")
    return path


# --------------------------------------------------------------------------- collecting
def collect(proofs_dir: Path | None = None) -> list[Claim]:
    """Import every proof module of ``proofs_dir`` (default :func:`find_proofs_dir`) and
    return the claims that folder registered, in order.

    Atomic: when a file cannot be read, does not compile, raises at import or registers
    a bad id, the :class:`InputError` names the file and the problem, and the folder's
    claims and modules are left as they were before the call (a later call in the same
    process sees no half-registered folder).  A folder that registers no claim at all
    is refused too (a typo'd folder must not pass as "no claims, nothing failed").
    """
    global _LOADING
    root = find_proofs_dir() if proofs_dir is None else Path(proofs_dir)
    key = _folder_key(root)
    claims = REGISTRY.setdefault(key, {})
    saved = dict(claims)
    added: list[str] = []
    files = _proof_files(root)
    names = [f"{key}." + ".".join(p.relative_to(root).with_suffix("").parts) for p in files]
    try:
        for path, name in zip(files, names, strict=True):
            if name in sys.modules:
                continue
            shown = shown_path(path)
            _check_readable(path, shown)
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:  # pragma: no cover - a *.py always has one
                raise InputError(f"{shown}: cannot be imported")
            module = importlib.util.module_from_spec(spec)
            for stale in [i for i, c in claims.items() if c.module == name]:
                del claims[stale]  # a module imported again (removed from sys.modules)
            sys.modules[name] = module
            _FILES[name] = path
            added.append(name)
            outer, _LOADING = _LOADING, (key, name)
            try:
                spec.loader.exec_module(module)
            except ClaimError as exc:
                raise InputError(f"{shown}: {exc}") from exc
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - any failure: one line
                raise InputError(f"{shown}: {_import_problem(exc, path)}") from exc
            finally:
                _LOADING = outer
        ours = set(names)
        got = [c for c in claims.values() if c.module in ours]
        if not got:
            raise InputError(f"{shown_path(root)}: its proof files register no claim (@claim)")
    except BaseException:  # also Ctrl-C: never leave the folder half-registered
        claims.clear()
        claims.update(saved)
        for name in added:
            sys.modules.pop(name, None)
            _FILES.pop(name, None)
        raise
    return sorted(got, key=lambda c: (c.document, c.module, c.order))


def _import_problem(exc: BaseException, path: Path) -> str:
    """What went wrong importing ``path``, in a few words (no traceback)."""
    kind = type(exc).__name__
    if isinstance(exc, SyntaxError) and _same_file(exc.filename, path):
        return f"{kind} at line {exc.lineno}: {_text(exc.msg)}"
    line = next(
        (
            f.lineno
            for f in reversed(traceback.extract_tb(exc.__traceback__))
            if _same_file(f.filename, path)
        ),
        None,
    )
    where = f" (line {line})" if line else ""
    message = _text(exc)
    return f"raised {kind} at import{where}" + (f": {message}" if message else "")


def _check_readable(path: Path, shown: str) -> None:
    """A regular, readable file of reasonable size (a FIFO would block the import forever,
    a device or a huge file would exhaust memory); else an InputError naming it."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{shown}: is not a regular file")
        if st.st_size > MAX_PROOF_BYTES:
            raise InputError(f"{shown}: is {st.st_size} bytes, above {MAX_PROOF_BYTES}")
        with open(path, "rb") as handle:
            handle.read(1)
    except OSError as exc:
        raise InputError(f"{shown}: cannot be read ({exc.strerror})") from None


def _proof_files(root: Path) -> list[Path]:
    """``root/<document>/*.py`` (not ``_*.py``), sorted; [] when there are none or ``root``
    cannot be listed."""
    return sorted(p for p in _glob(root, "*/*.py") if not p.name.startswith("_"))


def _glob(root: Path, pattern: str) -> list[Path]:
    try:
        return list(root.glob(pattern))
    except (OSError, ValueError):
        return []


def _folder_key(root: Path) -> str:
    """The module prefix of ``root``'s proof modules: :data:`SHIPPED_PREFIX` for the
    shipped claims, else one derived from the folder's absolute path."""
    shipped = shipped_proofs_dir()
    if shipped is not None and _same(root, shipped):
        return SHIPPED_PREFIX
    try:
        absolute = str(root.resolve())
    except (OSError, RuntimeError):
        absolute = os.path.abspath(root)
    digest = hashlib.sha256(os.fsencode(absolute)).hexdigest()[:12]
    return f"{SHIPPED_PREFIX}_{digest}"


def _is_dpcheck_project(folder: Path) -> bool:
    """Whether ``folder/pyproject.toml`` declares ``[project] name = "dpcheck"``."""
    try:
        with open(folder / "pyproject.toml", "rb") as handle:
            data = handle.read(1 << 20)
    except (OSError, ValueError):
        return False
    try:
        import tomllib
    except ImportError:  # Python 3.10: the [project] table's name line
        section = re.search(rb"(?ms)^\[project\]\s*$(.*?)(^\[|\Z)", data)
        name = section and re.search(rb"(?m)^name\s*=\s*[\"']([^\"']*)[\"']", section.group(1))
        return bool(name) and _normal(name.group(1).decode("utf-8", "replace")) == "dpcheck"
    try:
        project = tomllib.loads(data.decode("utf-8")).get("project", {})
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(project, dict) and _normal(str(project.get("name", ""))) == "dpcheck"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError, ValueError):
        return False


def _same_file(filename: str | None, path: Path) -> bool:
    return filename is not None and (filename == str(path) or _same(Path(filename), path))


def _exists(path: Path) -> bool:
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def _where(old: Claim) -> str:
    """Where an already registered claim was defined: file and line when known."""
    path = _FILES.get(old.module)
    line = getattr(getattr(old.check, "__code__", None), "co_firstlineno", None)
    place = shown_path(path) if path is not None else (old.module or "another module")
    return f"{place}, line {line}" if line else place


def _text(value: object, limit: int = 160) -> str:
    """``str(value)`` on one line, printable, cut to about ``limit`` characters."""
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - a hostile __str__
        return "(its message cannot be shown)"
    text = " ".join(text.split())
    if not text.isprintable():
        text = repr(text)[1:-1]
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown_path(path: Path, limit: int = 160) -> str:
    """A path for a message: printable (escaped otherwise), its end kept when long."""
    text = str(path)
    if not text.isprintable():
        text = repr(text)[1:-1]
    return text if len(text) <= limit else "..." + text[-(limit - 3) :]


def _shown(value: object, limit: int = 120) -> str:
    """``repr(value)``, cut in the middle to about ``limit`` characters when long (a value
    is shown, never echoed whole; a path's end, its file name, stays visible)."""
    text = repr(value)
    if len(text) <= limit:
        return text
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[:40]}...{text[-(limit - 65) :]} ({size} characters)"
