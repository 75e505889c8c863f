"""`dpcheck derive`: write derivations/NAME.tex, the master dpcheck.tex, and the PDF.

Each derivation ends with the verdicts of its claims, obtained by running those
claims through the same registry and runner as ``dpcheck verify``; the
derivations of the mechanism algebra (:mod:`dpcheck.derivations.mechanisms`),
which no paper prints, end with the checks performed instead.  Files are
written only when every requested derivation has been built (nothing
half-written), and only if their bytes change.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path

from dpcheck.claims.model import Claim, Verdict
from dpcheck.derivations import (
    krand_shuffle,
    liu2019,
    mechanisms,
    noise_laws,
    privacy,
    sensitivity,
    zz2016,
)
from dpcheck.derivations.document import Derivation, master, render
from dpcheck.errors import InputError
from dpcheck.outputs.atomic import Outputs, transaction

#: every derivation, in the order of the master document
BUILDERS: dict[str, Callable[[], Derivation]] = {
    "truncated-normaliser": liu2019.normaliser,
    "bit-law": liu2019.bit_law,
    "truncated-mean": partial(liu2019.moment, "truncated", "mean"),
    "bit-mean": partial(liu2019.moment, "bit", "mean"),
    "truncated-second-moment": partial(liu2019.moment, "truncated", "second_moment"),
    "bit-second-moment": partial(liu2019.moment, "bit", "second_moment"),
    "truncated-variance": partial(liu2019.variance, "truncated"),
    "bit-variance": partial(liu2019.variance, "bit"),
    "truncated-mse": partial(liu2019.moment, "truncated", "mse"),
    "bit-mse": partial(liu2019.moment, "bit", "mse"),
    "one-sided-limits": liu2019.one_sided,
    "privacy-truncated": partial(privacy.privacy, "truncated"),
    "privacy-bit": partial(privacy.privacy, "bit"),
    "gs-mean": sensitivity.mean,
    "gs-variance": sensitivity.variance,
    "krand-recursions": zz2016.recursions,
    "krand-lemma4-1": zz2016.lemma_4_1,
    "krand-shuffle-bound": krand_shuffle.derivation,
    # the mechanism algebra (issue 18): every bounding x base but Liu's two
    **mechanisms.builders(),
    # the noise laws as objects (issue 35), one each
    **noise_laws.builders(),
}
NAMES = tuple(BUILDERS)
MASTER = "dpcheck"
DEFAULT_OUT = Path("derivations")


def select(names: Iterable[str]) -> list[str]:
    """The requested names in master order (all when none); InputError for an unknown one."""
    names = list(names)
    unknown = [n for n in names if n not in BUILDERS]
    if unknown:
        raise InputError(f"unknown derivation {unknown[0]!r} (expected one of: {', '.join(NAMES)})")
    return [n for n in NAMES if n in names] if names else list(NAMES)


def _claims() -> dict[str, Claim]:
    from dpcheck.claims import registry

    return {c.id: c for c in registry.collect(registry.find_proofs_dir(None))}


def verdicts_for(
    derivations: Iterable[Derivation],
    claims: Mapping[str, Claim],
    known: Mapping[str, Verdict] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Verdict]:
    """Run (through the runner of ``dpcheck verify``) every claim the derivations end with."""
    from dpcheck.claims import runner

    out = dict(known or {})
    for d in derivations:
        for cid in d.claims:
            if cid not in out:
                if progress:
                    progress(cid)
                out[cid] = runner.run_one(claims[cid]).verdict
    return out


def render_all(
    names: Iterable[str],
    known: Mapping[str, Verdict] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, str]:
    """{file name: LaTeX} for the chosen derivations and the master document."""
    chosen = select(names)
    derivations = []
    for name in chosen:
        if progress:
            progress(name)
        derivations.append(BUILDERS[name]())
    claims = _claims()
    verdicts = verdicts_for(derivations, claims, known, progress)
    files = {
        f"{d.name}.tex": (
            mechanisms.render(d)
            if isinstance(d, mechanisms.Checked)
            else render(d, verdicts, claims)
        )
        for d in derivations
    }
    files[f"{MASTER}.tex"] = master(list(NAMES))
    return files


def write(files: Mapping[str, str], out: Path, staged: Outputs | None = None) -> list[Path]:
    """Stage the files for ``out`` (created at commit); return those whose bytes change.

    Without ``staged`` the files are written at once, atomically as one
    transaction (:mod:`dpcheck.outputs.atomic`).
    """
    if staged is None:
        with transaction() as own:
            return write(files, out, own)
    changed = []
    for name, text in files.items():
        path = out / name
        data = text.encode("utf-8")
        if path.is_file() and path.read_bytes() == data:
            continue
        staged.write_bytes(path, data)
        changed.append(path)
    return changed


def tex_engine() -> list[str] | None:
    """The command that compiles the master document: latexmk, else pdflatex; None if neither."""
    if shutil.which("latexmk"):
        return ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-quiet"]
    if shutil.which("pdflatex"):
        return ["pdflatex", "-interaction=nonstopmode", "-halt-on-error"]
    return None


def compile_pdf(
    out: Path, files: Mapping[str, str] | None = None, staged: Outputs | None = None
) -> Path:
    """Compile ``out``/dpcheck.pdf with a real TeX engine.

    The sources (the .tex files in ``out``, updated by ``files``) are compiled in a
    private temporary folder, so no build file or half-written PDF ever appears
    in ``out``; the PDF is then staged in ``staged`` (else written atomically).
    pdflatex runs twice (the table of contents); latexmk decides by itself.
    """
    engine = tex_engine()
    if engine is None:
        raise InputError(
            "--pdf needs latexmk or pdflatex on PATH (Debian: apt-get install latexmk "
            "texlive-latex-recommended)"
        )
    sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.tex"))}
    sources.update(files or {})
    target = out / f"{MASTER}.pdf"
    with tempfile.TemporaryDirectory(prefix="dpcheck-tex-") as work:
        for name, text in sources.items():
            (Path(work) / name).write_text(text, encoding="utf-8")
        runs = 1 if engine[0] == "latexmk" else 2
        for _ in range(runs):
            done = subprocess.run(
                [*engine, f"{MASTER}.tex"], cwd=work, capture_output=True, text=True, check=False
            )
            if done.returncode != 0:
                tail = (done.stdout + done.stderr).strip().splitlines()[-12:]
                raise RuntimeError(f"{engine[0]} failed on {MASTER}.tex:\n" + "\n".join(tail))
        data = (Path(work) / f"{MASTER}.pdf").read_bytes()
    if staged is None:
        with transaction() as own:
            own.write_bytes(target, data)
    else:
        staged.write_bytes(target, data)
    return target


__all__ = [
    "BUILDERS",
    "NAMES",
    "compile_pdf",
    "render_all",
    "select",
    "tex_engine",
    "verdicts_for",
    "write",
]
