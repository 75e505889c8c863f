"""``dpcheck audit`` for every mechanism: the exact and black-box guides, exit codes.

Exit 1 on a detected violation (either guide), 0 otherwise, 2 on bad input
(issue 20, "CLI contracts for CI").  A "must exit 0" run of a correct mechanism
is at confidence 1 - 1e-6 unless it is the documented default run (seed 0,
fixed: its outcome is deterministic, and shown).
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from dpcheck import audit_cli
from dpcheck.cli import main
from dpcheck.numeric import profile
from dpcheck.numeric.names import ALIASES, MECHANISM_NAMES

ROOT = Path(__file__).resolve().parents[1]
EXACT_KEYS = {
    "mechanism",
    "epsilon",
    "sensitivity",
    "lower",
    "upper",
    "scale",
    "scale_source",
    "s",
    "s_prime",
    "event",
    "samples",
    "seed",
    "confidence",
    "count",
    "count_prime",
    "p_lower",
    "p_prime_upper",
    "loss_lower_bound",
    "exceeds",
    "exact_event_probability",
    "exact_event_probability_prime",
    "exact_event_log_ratio",
    "exact_worst_case_loss",
    "samples_needed",
}


def _args(name: str) -> list[str]:
    """A valid setting of each mechanism (bounds for the bounded, σ for the Gaussian)."""
    out = ["audit", name, "--epsilon", "1", "--sensitivity", "1"]
    canonical = ALIASES.get(name, name)
    if "-" in canonical:
        out += ["--lower", "0", "--upper", "4"]
    if canonical.endswith("gaussian"):
        out += ["--scale", "3", "--delta", "0.01"]
    return out


@pytest.mark.parametrize("name", list(MECHANISM_NAMES) + list(ALIASES))
def test_every_mechanism_audits(name, capsys):
    """Every mechanism of the algebra, both output formats; exit 0 or 1 as the verdict."""
    args = [*_args(name), "--samples", "4000", "--seed", "2"]
    code = main(args)
    text = capsys.readouterr().out
    assert main([*args, "--json"]) == code
    data = json.loads(capsys.readouterr().out)
    assert code == (1 if data["exceeds"] else 0)
    if name in ("truncated", "bit", "truncated-laplace", "clamped-laplace"):
        assert set(data) == EXACT_KEYS  # the exact guide: its JSON unchanged
        assert data["mechanism"] in ("truncated", "bit")
        return
    assert data["guide"] == "blackbox" and data["mechanism"] == ALIASES.get(name, name)
    assert data["samples"] == 4000 and data["seed"] == 2
    assert len(data["directions"]) == 2 * len(data["neighbours"])
    assert f"lower confidence bound on epsilon at delta = {data['delta']:g}" in text
    assert ("VIOLATION" in text) == data["exceeds"]


def test_blackbox_flags_the_naive_truncated_and_passes_bit(capsys):
    """The issue's 'Done when': without the exact guide, the naive truncated Laplace on
    [0, 10] (loss 1.49 at ε = 1) is flagged (exit 1) and the BIT one passes (exit 0;
    at confidence 1 - 1e-6 so that a false alarm has probability <= 1e-6)."""
    base = ["--epsilon", "1", "--sensitivity", "1", "--lower", "0", "--upper", "10"]
    assert main(["audit", "truncated", "--guide", "blackbox", *base, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["exceeds"] and data["epsilon_lower_bound"] > 1.3
    assert data["neighbours"] == [[0, 1], [9, 10], [4.5, 5.5]]
    sure = ["--confidence", "0.999999"]
    assert main(["audit", "bit", "--guide", "blackbox", *base, *sure, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert not data["exceeds"] and data["epsilon_lower_bound"] <= 1.0


def test_exact_guide_exits_1_on_the_liu_witness(capsys):
    """The CI line: truncated on [0, 2] at ε = 1 (loss 1.38) is a violation: exit 1."""
    args = ["audit", "truncated", "--epsilon", "1", "--sensitivity", "1", "--lower", "0"]
    assert main([*args, "--upper", "2", "--samples", "1e5"]) == 1
    assert "VIOLATION: exceeds epsilon = 1" in capsys.readouterr().out
    # the default guide of truncated is the exact one, and it is also available by name
    assert main([*args, "--upper", "2", "--samples", "1e5", "--guide", "exact"]) == 1
    capsys.readouterr()


def test_default_laplace_run_passes(capsys):
    """The README's and CI's correct run: the Laplace mechanism at λ = Δ/ε (seed 0)."""
    assert main(["audit", "laplace", "--epsilon", "1", "--sensitivity", "1"]) == 0
    text = capsys.readouterr().out
    assert "no violation detected" in text
    assert "exact pure epsilon, for comparison: dpcheck privacy laplace --sensitivity 1" in text


@pytest.mark.parametrize(
    "change,word",
    [
        (["laplace", "--guide", "exact"], "--guide exact"),
        (["gaussian"], "--scale"),
        (["truncated", "--lower", "0", "--upper", "2", "--delta", "0.1"], "--delta"),
        (["truncated", "--lower", "0"], "--upper"),
        (["truncated-gaussian", "--scale", "1"], "--lower"),
        (["laplace", "--lower", "0"], "unbounded"),
        (["laplace", "--delta", "1"], "delta"),
        (["laplace", "--guide", "other"], "guide"),
        (["geometric", "--sensitivity", "0.5"], "sensitivity"),
        (["truncated-geometric", "--lower", "0", "--upper", "2.5"], "integers"),
        (["folded-gaussian"], "folded-gaussian"),
        (["nope"], "nope"),
        (["laplace", "--epsilon", "0"], "epsilon=0"),
        (["laplace", "--epsilon", "inf"], "epsilon"),
        (["laplace", "--scale", "1e-400"], "scale"),
        (["gaussian", "--scale", "1e-320"], "1e-300 .. 1e300"),
        (["truncated-geometric", "--lower", "0", "--upper", "1e30"], "2^53"),
        (
            ["truncated", "--guide", "blackbox", "--sensitivity", "1e-10"]
            + ["--lower", "1e10", "--upper", "2e10"],
            "same float64",
        ),
        (["laplace", "--samples", "1"], "samples"),
    ],
)
def test_bad_input_exits_2_in_one_line(change, word, capsys):
    name, *rest = change
    args = ["audit", name, "--epsilon", "1", "--sensitivity", "1", *rest]
    # later options win in argparse: the changed ones come last
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dpcheck: error:") and word in err, err


def test_pairs_for_each_bounding():
    """The neighbours the CLI audits: edges and middle; (c0, c1) when Δ >= R; integers."""
    nb = profile.neighbours("truncated-gaussian", 1, 0, 10, 1)
    assert audit_cli.pairs(nb) == [(0, 1), (9, 10), (Fraction(9, 2), Fraction(11, 2))]
    assert audit_cli.pairs(profile.neighbours("clamped-laplace", 5, 0, 2, 1)) == [(0, 2)]
    assert audit_cli.pairs(profile.neighbours("truncated-geometric", Fraction(5, 2), 0, 9, 1)) == [
        (0, 2),
        (7, 9),
        (3, 5),
    ]
    assert audit_cli.pairs(profile.neighbours("gaussian", Fraction(1, 3), None, None, 1)) == [
        (0, Fraction(1, 3))
    ]


def test_console_script_exit_code_1_and_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "dpcheck", "audit", "truncated", "--guide", "blackbox"]
        + ["--epsilon", "1", "--sensitivity", "1", "--lower", "0", "--upper", "10"]
        + ["--samples", "2e5"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert "VIOLATION" in proc.stdout and proc.stderr == ""


def _readme_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Empirical privacy audit\n")
    return text[start : text.index("\n## ", start + 1)]


def test_readme_console_blocks_are_what_the_commands_print(capsys):
    """Every ``$ dpcheck audit ...`` block of the README's audit section, run afresh."""
    section = _readme_section()
    blocks = section.split("```console\n")[1:]
    assert len(blocks) == 2
    for block in blocks:
        body = block.split("```", 1)[0]
        command, _, shown = body.partition("\n")
        assert command.startswith("$ dpcheck audit ")
        code = main(command.split()[2:])
        assert capsys.readouterr().out == shown
        assert code == (1 if "VIOLATION" in shown else 0)


def test_readme_python_example_prints_what_it_says():
    section = _readme_section()
    source = section.split("```python\n", 1)[1].split("```", 1)[0]
    said = section.split("```python\n", 1)[1].split("prints `", 1)[1].split("`", 1)[0]
    proc = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == said
