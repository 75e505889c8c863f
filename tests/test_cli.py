"""The command line: contracts of DESIGN.md and bad input (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest

from dpcheck.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dpcheck", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def test_list_prints_ids(capsys):
    assert main(["verify", "--list", "--proofs", str(ROOT / "proofs")]) == 0
    ids = capsys.readouterr().out.split()
    assert "liu2019.eq6.mu1" in ids and ids == sorted(set(ids), key=ids.index)


def test_verify_json_contract(tmp_path):
    out = tmp_path / "v.json"
    proc = run(
        "verify", "liu2019.eq6.mu1", "liu2019.eq5.*", "--format", "json", "--output", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert set(data) == {"claims", "summary"}
    assert [c["id"] for c in data["claims"]] == ["liu2019.eq5.bit_law", "liu2019.eq6.mu1"]
    for c in data["claims"]:
        assert set(c) == {
            "id",
            "source",
            "statement",
            "status",
            "empirical",
            "method",
            "basis",
            "evidence",
            "reproduce",
            "seconds",
        }
        assert c["basis"] and c["empirical"] is False
        for st in c["basis"]:
            assert set(st) == {"kind", "checked", "domain", "detail"}
            assert isinstance(st["checked"], bool) and st["domain"] and st["detail"]
    proved = next(c for c in data["claims"] if c["id"] == "liu2019.eq6.mu1")
    assert proved["status"] == "proved"
    assert any(st["kind"] == "symbolic" and st["checked"] for st in proved["basis"])
    refuted = next(c for c in data["claims"] if c["id"] == "liu2019.eq5.bit_law")
    assert [st["kind"] for st in refuted["basis"]] == ["enclosure"]
    assert refuted["basis"][0]["domain"].startswith("the point ")
    assert data["summary"] == {
        "proved": 1,
        "verified": 0,
        "refuted": 1,
        "inconclusive": 0,
        "empirical": {"proved": 0, "verified": 0, "refuted": 0, "inconclusive": 0},
    }


@pytest.mark.parametrize("fmt", ["table", "md", "tex"])
def test_other_formats(fmt, capsys):
    assert (
        main(
            [
                "verify",
                "liu2019.eq7.mu2",
                "--format",
                fmt,
                "--quiet",
                "--proofs",
                str(ROOT / "proofs"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "liu2019" in out and "proved" in out


def test_eval_matches_quadrature(capsys):
    from fractions import Fraction

    from dpcheck.numeric.params import MechanismParams
    from dpcheck.numeric.quadrature import quad_quantity

    assert (
        main(["eval", "truncated.mse", "s=0.3", "c0=0", "c1=1", "lam=1/2", "--dps", "40", "--json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    with mpmath.workdps(45):
        ref = quad_quantity(
            "truncated.mse",
            MechanismParams(Fraction(3, 10), Fraction(0), Fraction(1), Fraction(1, 2)),
            dps=45,
        )
        assert abs(mpmath.mpf(data["value"]) - ref) < mpmath.mpf(10) ** -38


def test_eval_epsilon_sensitivity(capsys):
    assert main(["eval", "bit.bias", "s=1/2", "c0=0", "c1=1", "epsilon=2", "sensitivity=1"]) == 0
    assert mpmath.mpf(capsys.readouterr().out) == 0


BAD = [
    (["eval", "truncated.mean", "s=0.5", "c0=0", "c1=1", "lam=0"], "lam=0"),
    (["eval", "truncated.mean", "s=0.5", "c0=0", "c1=1", "lam=-1"], "lam=-1"),
    (["eval", "truncated.mean", "s=0.5", "c0=1", "c1=1", "lam=1"], "c0=1"),
    (["eval", "truncated.mean", "s=0.5", "c0=2", "c1=1", "lam=1"], "c0=2"),
    (["eval", "truncated.mean", "s=nan", "c0=0", "c1=1", "lam=1"], "'nan'"),
    # c1 = inf is the one-sided variant (issue 18); only c1 may be +inf, only c0 -inf
    (["eval", "truncated.mean", "s=0.5", "c0=0", "c1=-inf", "lam=1"], "'-inf'"),
    (["eval", "truncated.mean", "s=0.5", "c0=inf", "c1=1", "lam=1"], "'inf'"),
    (["eval", "truncated.mean", "s=0.5", "c0=0", "c1=1", "lam=inf"], "'inf'"),
    (["eval", "truncated.mean", "s=0.5", "c0=0", "c1=1", "lam=1/0"], "'1/0'"),
    (["eval", "truncated.mean", "s=5", "c0=0", "c1=1", "lam=1"], "s=5"),
    (["eval", "truncated.mean", "s0.5", "c0=0", "c1=1", "lam=1"], "'s0.5'"),
    (["eval", "truncated.mean", "s=0.5", "c0=0", "c1=1"], "lam"),
    (["eval", "truncated.mean", "s=0.5", "c0=0", "c1=1", "lam=1", "mu=2"], "'mu'"),
    (
        ["eval", "truncated.mean", "s=0.5", "c0=0", "c1=1", "epsilon=0", "sensitivity=1"],
        "epsilon=0",
    ),
    (["eval", "nope.mean", "s=0.5", "c0=0", "c1=1", "lam=1"], "'nope.mean'"),
    (["eval", "truncated.mean", "s=__import__('os')", "c0=0", "c1=1", "lam=1"], "__import__"),
    (["eval", "truncated.mean", "s=0.5", "c0=0", "c1=1", "lam=1", "--dps", "0"], "dps"),
    (["verify", "liu2019.no.such"], "liu2019.no.such"),
    (["verify", "--format", "pdf"], "pdf"),
    (["verify", "liu2019.eq6.mu1", "--output", "/no/such/dir/x.json"], "/no/such/dir"),
    (["frobnicate"], "frobnicate"),
]


@pytest.mark.parametrize("argv,needle", BAD)
def test_bad_input_exits_2_with_one_line(argv, needle, capsys):
    if argv[0] == "verify":
        argv = [*argv, "--proofs", str(ROOT / "proofs")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dpcheck: error:")
    assert needle in err
    assert "Traceback" not in err


def test_bad_input_from_a_real_process():
    proc = run("eval", "bit.mse", "s=0.5", "c0=0", "c1=1", "lam=-2")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "lam=-2" in proc.stderr
    assert "Traceback" not in proc.stderr
