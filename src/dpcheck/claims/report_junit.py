"""The ``verify --format junit`` report: JUnit XML for CI dashboards (issue 20).

The layout CI tools read (Jenkins' junit plugin, GitLab, GitHub test reporters):
``<testsuites>`` holding one ``<testsuite>`` per document (``liu2019``, ...), each
holding one ``<testcase classname="DOCUMENT" name="CLAIM ID" time="SECONDS">`` per
claim (after the suite's ``<properties>``: its summary line).  A refuted or
inconclusive claim carries a ``<failure>`` whose ``message`` is the verdict's
headline (its finding) and whose text is the evidence (status, method, basis,
evidence as JSON, reproduce command), so that dashboards show them as failing;
proved and verified claims pass.  Empirical claims (Monte Carlo
reproduction) are test cases like the others, marked in ``<system-out>``.  The
``tests``, ``failures``, ``errors``, ``skipped`` and ``time`` attributes of each
suite and of ``<testsuites>`` are the counts and sums of their children.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import defaultdict

from dpcheck.claims.model import Status
from dpcheck.claims.report import as_json_data, headline, status_text
from dpcheck.claims.runner import Result, summary_line

#: statuses reported as a ``<failure>``
FAILING = (Status.REFUTED, Status.INCONCLUSIVE)

# characters XML 1.0 cannot hold, even escaped
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(value: str) -> str:
    return _NOT_XML.sub("\ufffd", value)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def evidence_text(result: Result, data: dict) -> str:  # type: ignore[type-arg]
    """The failure's text: status, method, basis, evidence (JSON) and reproduce command."""
    basis = "\n".join(
        f"  - {s['kind']} ({'checked' if s['checked'] else 'not checked'}; {s['domain']}):"
        f" {s['detail']}"
        for s in data["basis"]
    )
    return (
        f"status: {status_text(result)}\n"
        f"statement: {result.claim.statement}\n"
        f"source: {result.claim.source}\n"
        f"method: {result.verdict.method}\n"
        f"basis:\n{basis}\n"
        f"reproduce: {result.verdict.reproduce}\n"
        f"evidence:\n{json.dumps(data['evidence'], indent=2, default=str, ensure_ascii=False)}\n"
    )


def render_junit(results: list[Result]) -> str:
    """The JUnit XML of ``results`` (UTF-8, with an XML declaration)."""
    data = {c["id"]: c for c in as_json_data(results)["claims"]}
    by_document: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_document[r.claim.document].append(r)
    root = ET.Element("testsuites", name="dpcheck verify")
    totals = {"tests": 0, "failures": 0, "time": 0.0}
    for document, members in by_document.items():
        suite = ET.SubElement(root, "testsuite", name=document)
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="summary", value=summary_line(members))
        failures = 0
        seconds = 0.0
        for r in members:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=document,
                name=r.claim.id,
                time=_seconds(r.verdict.seconds),
            )
            seconds += r.verdict.seconds
            if r.verdict.status in FAILING:
                failures += 1
                failure = ET.SubElement(
                    case,
                    "failure",
                    message=_clean(headline(r)),
                    type=status_text(r),
                )
                failure.text = _clean(evidence_text(r, data[r.claim.id]))
            out = ET.SubElement(case, "system-out")
            out.text = _clean(
                f"{status_text(r)}: {headline(r)}\nreproduce: {r.verdict.reproduce}\n"
            )
        suite.attrib.update(
            tests=str(len(members)),
            failures=str(failures),
            errors="0",
            skipped="0",
            time=_seconds(seconds),
        )
        totals["tests"] += len(members)
        totals["failures"] += failures
        totals["time"] += seconds
    root.attrib.update(
        tests=str(totals["tests"]),
        failures=str(totals["failures"]),
        errors="0",
        skipped="0",
        time=_seconds(totals["time"]),
    )
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
