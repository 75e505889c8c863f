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
        Ceiling(
            "privacy", "--dps", 1_000,
            "digits of Liu's arb-certified loss and calibration: about 35 s at the ceiling",
        ),
        Ceiling(
            "privacy", "seconds per answer", 60,
            "not an option: the documented time of any accepted input (pure epsilon,"
            " delta(epsilon), epsilon(delta), down to delta = 1e-1000 and up to epsilon ="
            " 1000); the bounded mechanisms' branch and bound stops at 2000 cells per decision"
            " and reports a certified bracket when it has not closed; at most about 1 GiB",
        ),
        Ceiling(
            "privacy", "seconds per calibration", 180,
            "not an option: the documented time of a calibration (no --scale): certified"
            " decisions to 13 digits, guided by regula falsi, each near the edge a branch and"
            " bound; about 15 s for a truncated Gaussian, 25 s for a truncated Laplace, under"
            " 10 s for the others",
        ),
        Ceiling("audit", "--samples", 10**9, "draws per side, drawn in blocks: about 30 min"),
        Ceiling("simulate", "--reps", 100_000, "repetitions per cell: about 200 MB, 20 min"),
        Ceiling(
            "sensitivity", "--n", 60,
            "records; exact enumeration over neighbours: at most about 10 s, 0.1 GiB at the"
            " ceiling (covariance, substitute)",
        ),
        Ceiling(
            "sensitivity", "--categories", 10_000,
            "categories of a histogram; all but 3 stay empty in every case examined, so about"
            " 2 s at both ceilings (was 558 s)",
        ),
        Ceiling("sensitivity", "--groups", 20, "groups of a pooled statistic"),
        Ceiling(
            "krand profile", "--n", 10**6,
            "users; L = 1 is exact over every background: at most about 25 s, 0.3 GiB",
        ),
        Ceiling("krand profile", "--L", 20, "bits per user: 2^L reports"),
        Ceiling(
            "krand profile", "--n (L = 2)", 100_000,
            "users, certified bounds: about 2 min, 4 GiB at the ceiling (default budget)",
        ),
        Ceiling(
            "krand profile", "--n (L = 3)", 20_000,
            "users, certified bounds: about 2.2 min, 4 GiB at the ceiling (default budget;"
            " n <= 2000: two workers, 4.3 GiB together); above about 2000 the multi-law FFT"
            " boxes exceed one evaluation's 1.5 GiB, and the upper bound is often the local"
            " epsilon",
        ),
        Ceiling(
            "krand profile", "--n (L = 4)", 3_000,
            "users, certified bounds: the pure background's evaluation fits one evaluation's"
            " 1.5 GiB up to here; about 2.3 min, 2.1 GiB at the ceiling (default budget)",
        ),
        Ceiling(
            "krand profile", "--budget", 86_400,
            "seconds for the certified upper bound; the lower bound takes a quarter more (at"
            " least 2 s), the rest about 15 s: a run ends by about 1.3 x budget + 15 s. At"
            " most about 5 GiB per process: one evaluation 1.5 GiB, the caches 3.25 GiB (the"
            " two workers share them)",
        ),
        Ceiling(
            "krand profile", "L x eps0", 700,
            "nats of local epsilon L ln(p/q), L >= 2: e^epsilon stays finite",
        ),
        Ceiling(
            "krand profile", "--eps0 (certified bounds)", 30,
            "nats per bit, certified bounds (L = 2..4): 1 - q stays distinct from 1",
        ),
        Ceiling("check-formula", "formula", 5_000, "characters of LaTeX"),
        Ceiling(
            "check-formula", "total degree", 100_000,
            "of the parsed formula (nested powers multiply): the exact reductions run at about"
            " 0.2 s and 30 MB per 10^6 of degree (SIGFPE near 10^12 before issue 40)",
        ),
        Ceiling(
            "check-formula", "constant digits", 4_000,
            "digits of the integers the formula's constants form (Python prints at most 4300)",
        ),
        Ceiling("compare diffprivlib", "--samples", 10**6, "draws per law point"),
        Ceiling(
            "sample", "size", 10**8,
            "draws per call of the Python samplers: 800 MB of float64, at most about 20 s;"
            " call again for more",
        ),
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
