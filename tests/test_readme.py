"""The README's verdict numbers are generated (dpcheck.readme), never typed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dpcheck import readme

ROOT = Path(__file__).resolve().parents[1]


def _claim(cid: str, status: str, empirical: bool = False) -> dict:
    return {
        "id": cid,
        "source": "eq (1)",
        "statement": "x",
        "status": status,
        "empirical": empirical,
        "method": "m",
        "basis": [],
        "evidence": {"finding": f"finding of {cid}"},
        "reproduce": f"dpcheck verify {cid}",
        "seconds": 0.1,
    }


REPORT = {
    "claims": [
        _claim("doca.eq1.a", "proved"),
        _claim("doca.eq2.b", "refuted"),
        _claim("docb.sim.c", "verified", empirical=True),
        _claim("docb.eq3.d", "verified"),
    ],
    "summary": {},
}

TEXT = """intro <!-- dpcheck:counts --><!-- /dpcheck:counts -->.
<!-- dpcheck:counts doca -->stale<!-- /dpcheck:counts -->
<!-- dpcheck:verdicts docb -->
old table
<!-- /dpcheck:verdicts -->
"""


def test_blocks_are_filled_from_the_report():
    out = readme.render(TEXT, REPORT)
    assert (
        "4 claims: 1 proved, 1 verified, 1 refuted, 0 inconclusive, and 1 empirical "
        "(judged by Monte Carlo reproduction: 1 verified)" in out
    )
    assert "<!-- dpcheck:counts doca -->2 claims: 1 proved, 0 verified, 1 refuted" in out
    table = out.split("<!-- dpcheck:verdicts docb -->")[1]
    assert "| docb.sim.c | eq (1) | **verified** (empirical) |" in table
    assert "| docb.eq3.d | eq (1) | **verified** |" in table and "doca" not in table
    assert "old table" not in out
    assert readme.render(out, REPORT) == out  # idempotent


def test_check_mode_and_write(tmp_path, capsys):
    report = tmp_path / "v.json"
    report.write_text(json.dumps(REPORT))
    doc = tmp_path / "R.md"
    doc.write_text(TEXT)
    assert readme.main([str(report), "--readme", str(doc), "--check"]) == 1
    assert "stale in: counts; counts doca; verdicts docb" in capsys.readouterr().out
    assert readme.main([str(report), "--readme", str(doc)]) == 0
    assert readme.main([str(report), "--readme", str(doc), "--check"]) == 0


@pytest.mark.parametrize(
    "content, word",
    [(None, "cannot read"), ("{not json", "not JSON"), ('{"x": 1}', "dpcheck verify")],
)
def test_bad_report(tmp_path, capsys, content, word):
    report = tmp_path / "v.json"
    if content is not None:
        report.write_text(content)
    assert readme.main([str(report), "--readme", str(ROOT / "README.md"), "--check"]) == 2
    err = capsys.readouterr().err.strip()
    assert word in err and "\n" not in err and "Traceback" not in err


def test_unknown_document_is_refused(tmp_path, capsys):
    report = tmp_path / "v.json"
    report.write_text(json.dumps(REPORT))
    doc = tmp_path / "R.md"
    doc.write_text("<!-- dpcheck:counts nosuchdoc --><!-- /dpcheck:counts -->")
    assert readme.main([str(report), "--readme", str(doc)]) == 2
    assert "no claims of 'nosuchdoc'" in capsys.readouterr().err


def _table_counts(body: str) -> tuple[dict[str, int], int]:
    rows = re.findall(
        r"^\| [a-z0-9]+\.[^|]* \| .*? \| \*\*(\w+)\*\*( \(empirical\))? \|", body, re.M
    )
    counts: dict[str, int] = {}
    for status, emp in rows:
        if not emp:
            counts[status] = counts.get(status, 0) + 1
    return counts, len(rows)


def test_the_committed_readme_is_consistent():
    """Each counts sentence agrees with the generated tables it summarises (CI also
    regenerates every block from a fresh report and fails when one is stale)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = readme.blocks(text)
    tables = {docs: body for kind, docs, body in found if kind == "verdicts"}
    assert set(tables) == {"liu2019 liu2019s", "zz2016"}
    for kind, docs, body in found:
        if kind != "counts" or docs not in tables:
            continue
        counts, rows = _table_counts(tables[docs])
        m = re.match(r"(\d+) claims: (\d+) proved, (\d+) verified, (\d+) refuted", body)
        assert m, body
        emp = re.search(r"and (\d+) empirical", body)
        assert int(m[1]) == rows == sum(counts.values()) + (int(emp[1]) if emp else 0)
        assert [int(m[i]) for i in (2, 3, 4)] == [
            counts.get(s, 0) for s in ("proved", "verified", "refuted")
        ]


def test_mutation_block_reads_the_kill_rate_summary(tmp_path):
    summary = {
        "seconds": 120.0,
        "command": "python bench/mutation_kill_rate.py --per-transcription 2",
        "documents": [
            {
                "document": "doca",
                "transcriptions": 3,
                "mutants run": 40,
                "equivalent dropped": 1,
                "killed (status)": 30,
                "killed (outcome)": 9,
                "survived": 1,
                "timed out": 0,
                "kill rate": 0.975,
            }
        ],
    }
    (tmp_path / "k.json").write_text(json.dumps(summary))
    text = "<!-- dpcheck:mutation k.json --><!-- /dpcheck:mutation -->"
    out = readme.render(text, REPORT, tmp_path)
    assert "| doca | 3 | 40 | 1 | 30 | 9 | 1 | 0 | 97.5% |" in out
    assert "(2 min: `python bench/mutation_kill_rate.py --per-transcription 2`)" in out
    with pytest.raises(readme.InputError, match="missing or not a kill-rate JSON"):
        readme.render(text.replace("k.json", "none.json"), REPORT, tmp_path)


def test_the_committed_kill_rates_meet_the_target():
    data = json.loads((ROOT / "docs" / "mutation_kill_rate.json").read_text())
    assert {d["document"] for d in data["documents"]} == {"liu2019", "liu2019s", "zz2016"}
    for d in data["documents"]:
        assert d["kill rate"] >= 0.95, d["document"]
        assert d["unread transcriptions"] == 0


@pytest.mark.parametrize(
    "example", ["truncated_gaussian.py", "privacy_profile.py", "noise_laws.py"]
)
def test_the_worked_example_runs_and_matches_the_readme(example):
    """The README's worked examples (issues 18, 19) are files in docs/examples/, run here
    exactly as the README shows them, and their printed output is the README's."""
    import subprocess
    import sys

    path = ROOT / "docs" / "examples" / example
    run = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=600, check=False
    )
    assert run.returncode == 0, run.stderr
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (body,) = [
        b for kind, docs, b in readme.blocks(text) if kind == "example" and docs.endswith(example)
    ]
    assert path.read_text(encoding="utf-8").rstrip() in body
    assert run.stdout.rstrip() in body


def test_krandbounds_block_reads_the_bench_json(tmp_path):
    row = {
        "L": 2,
        "n": 1000,
        "eps0": 1.0,
        "delta": 1e-6,
        "upper / lower": 1.005,
        "lower": {"epsilon": 0.2330687, "seconds": 0.9},
        "upper": {
            "epsilon": 0.2342341,
            "kind": "upper bound",
            "seconds": 99.5,
            "seconds to ratio <= 1.1": 11.2,
        },
        "generic shuffle bounds": {
            "local epsilon eps0 = L log(p/q)": 2.0,
            "FMT numerical": 0.5455,
            "FMT closed form": None,
            "blanket (Bennett)": 2.0,
            "Wang et al.": 0.3971,
            "best / upper": 1.695,
        },
        "probabilistic": {"epsilon": 0.2933},
    }
    report = {
        "command": "python bench/bench_krand_bounds.py --json k.json",
        "budget": 600,
        "settings": [row],
    }
    (tmp_path / "k.json").write_text(json.dumps(report))
    text = "<!-- dpcheck:krandbounds k.json --><!-- /dpcheck:krandbounds -->"
    out = readme.render(text, REPORT, tmp_path)
    assert (
        "| 2 | 1000 | 1 | 1e-06 | 0.2331 | 0.2342 | 1.005 | 11 | 100 | 0.5455 | n/a"
        " | vacuous | 0.3971 | 1.70 | 0.2933 |"
    ) in out
    with pytest.raises(readme.InputError, match="not a bounds JSON"):
        readme.render(text.replace("k.json", "none.json"), REPORT, tmp_path)


def test_skipping_the_examples_keeps_their_blocks(tmp_path):
    """``--skip-examples`` (CI: this suite runs the examples) keeps an example block as it
    is, stale or not, without running the file; without it the file runs (here: fails)."""
    (tmp_path / "ex.py").write_text("raise SystemExit('ran')\n")
    text = "<!-- dpcheck:example ex.py -->\nstale\n<!-- /dpcheck:example -->"
    assert readme.render(text, REPORT, tmp_path, examples=False) == text
    with pytest.raises(readme.InputError, match="failed"):
        readme.render(text, REPORT, tmp_path)
