"""The work ceilings: how much work each verb accepts, refused above it with the ceiling named.

One table for every verb (issue 17): sizes, repetitions, categories and
precision are bounded so that no input runs away with time or memory on a
24 GiB machine.  The README's table is generated from :data:`CEILINGS`
(``python -m dpcheck.readme``), so the documented and enforced values cannot
drift apart.  Numbers themselves are bounded by :mod:`dpcheck.inputs.numbers`
(:data:`~dpcheck.inputs.numbers.MAX_CHARS`, :data:`~dpcheck.inputs.numbers.MAX_EXPONENT`).
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcheck.inputs.numbers import MAX_CHARS, MAX_EXPONENT, parse_count


@dataclass(frozen=True)
class Ceiling:
    """The largest value one option of one verb accepts, and why."""

    verb: str
    option: str
    maximum: int
    why: str

    @property
    def key(self) -> str:
        return f"{self.verb} {self.option}"

    def describe(self) -> str:
        return f"the ceiling of {_grouped(self.maximum)} for {self.key} ({self.why})"


CEILINGS: dict[str, Ceiling] = {
    c.key: c
    for c in (
        Ceiling("eval", "--dps", 10_000, "digits; the working precision grows with the scale"),
        Ceiling("eval", "--dps (quantile)", 1_000, "digits; about 3.4 CDF evaluations per digit"),
        Ceiling("privacy", "--dps", 1_000, "digits of the arb-certified loss"),
        Ceiling("audit", "--samples", 10**9, "draws per side, drawn in blocks: about 30 min"),
        Ceiling("simulate", "--reps", 100_000, "repetitions per cell: about 200 MB, 20 min"),
        Ceiling("sensitivity", "--n", 60, "records; exact enumeration over neighbours"),
        Ceiling("sensitivity", "--categories", 10_000, "categories of a histogram"),
        Ceiling("sensitivity", "--groups", 20, "groups of a pooled statistic"),
        Ceiling("krand profile", "--n", 10**6, "users; L = 1 is exact over every background"),
        Ceiling("krand profile", "--L", 20, "bits per user: 2^L reports"),
        Ceiling("check-formula", "formula", 5_000, "characters of LaTeX"),
        Ceiling("compare diffprivlib", "--samples", 10**6, "draws per law point"),
    )
}


def _grouped(value: int) -> str:
    return f"{value:_}".replace("_", " ")


def ceiling(verb: str, option: str) -> Ceiling:
    """The ceiling of ``option`` of ``verb`` (KeyError if it has none)."""
    return CEILINGS[f"{verb} {option}"]


def count(verb: str, option: str, value: object, minimum: int = 0) -> int:
    """An integer >= ``minimum`` from the user, refused above the verb's ceiling."""
    c = ceiling(verb, option)
    return parse_count(option, value, minimum, c.maximum, c.describe())


def markdown_table() -> str:
    """The README's table of ceilings (generated; see :mod:`dpcheck.readme`)."""
    rows = [
        "| verb | option | ceiling | why |",
        "|---|---|---|---|",
        f"| every verb | any number | {MAX_CHARS} characters; 10^-{MAX_EXPONENT} <= |x| <="
        f" 10^{MAX_EXPONENT} or 0 | ASCII decimal notation only (0.25, 1e-6, 3/7) |",
    ]
    rows = [r.replace("|x|", "abs(x)") for r in rows]
    for c in CEILINGS.values():
        rows.append(f"| {c.verb} | `{c.option}` | {_grouped(c.maximum)} | {c.why} |")
    return "\n".join(rows)


__all__ = ["CEILINGS", "Ceiling", "ceiling", "count", "markdown_table"]
