"""``--format junit``: JUnit XML for GitLab, Jenkins and other CI test report views.

One test suite per linted file; each finding is a test case named after the rule and
resource, failed when the finding is at or above the fail level (``--fail-on``) and
passing, with the finding as its ``<system-out>``, when it is below it (it does not fail
the run, so it fails no test); a file without findings has one passing case, so the
report counts it; a file that could not be read or parsed is a test case with an
``<error>``. Which findings fail is the policy's decision (``policy/fail_level.py``),
passed in as ``gates``: the report only renders it.

ElementTree escapes markup; the records' text is already one printable line, and the
characters XML 1.0 cannot hold at all are replaced as a last guard. Unlike the other
reports this one also lists the units without findings (``Result.linted``, paths as the
loaders opened them), so it cleans those paths the way the records clean theirs.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import Callable

from fanout_lint.policy.fingerprint import relative_path
from fanout_lint.results.records import Finding, Result
from fanout_lint.results.untrusted import clean


def render(result: Result, root: str = ".", gates: Callable[[Finding], bool] = lambda finding: True) -> str:
    """``gates``: whether a finding fails the run (its test fails); the others pass."""
    by_file: dict[str, list] = defaultdict(list)
    for f in result.findings:
        by_file[relative_path(f.loc.file, root)].append(("finding", f))
    for e in result.errors:
        by_file[relative_path(e.file, root)].append(("error", e))
    for graph_file in _clean_units(result, root):
        by_file.setdefault(graph_file, [])

    suites = ET.Element("testsuites", name="fanout-lint")
    total = failures = errors = 0
    for file in sorted(by_file):
        entries = by_file[file]
        suite = ET.SubElement(suites, "testsuite", name=file)
        n_fail = n_err = 0
        if not entries:
            ET.SubElement(suite, "testcase", name="no findings", classname=file, file=file)
        for kind, item in entries:
            if kind == "finding":
                case = ET.SubElement(
                    suite, "testcase", name=f"{item.rule} {item.name}: {item.cdk_path or item.resource}",
                    classname=file, file=file, line=str(item.loc.line),
                )
                text = f"{file}:{item.loc.line}:{item.loc.column}: {item.rule} [{item.severity.value}] {item.message}"
                if gates(item):
                    n_fail += 1
                    failure = ET.SubElement(case, "failure", message=item.message, type=item.severity.value)
                    failure.text = text
                else:
                    ET.SubElement(case, "system-out").text = text
            else:
                n_err += 1
                case = ET.SubElement(suite, "testcase", name="load", classname=file, file=file)
                error = ET.SubElement(case, "error", message=item.message, type="error")
                error.text = str(item)
        cases = max(len(entries), 1)
        suite.set("tests", str(cases))
        suite.set("failures", str(n_fail))
        suite.set("errors", str(n_err))
        total, failures, errors = total + cases, failures + n_fail, errors + n_err
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    suites.set("errors", str(errors))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + _xml_text(ET.tostring(suites, encoding="unicode")) + "\n"


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    # XML 1.0 cannot hold most control characters, and a template may put them in a name
    return _NOT_XML.sub("\ufffd", text)


def _clean_units(result: Result, root: str) -> list[str]:
    # A Terraform unit is a directory while its findings and errors name its .tf files,
    # so findings are matched by their unit, errors by the directory they lie in.
    # Paths are compared as shown: error files are cleaned records, units are cleaned here.
    with_findings = {relative_path(clean(f.unit), root) for f in result.findings if f.unit}
    failed = {relative_path(e.file, root) for e in result.errors}
    without = []
    for linted in result.linted:  # an application's units too
        unit = relative_path(clean(linted), root)
        inside = unit + "/" if unit != "." else ""
        if unit not in with_findings and not any(p == unit or p.startswith(inside) for p in failed):
            without.append(unit)
    return without
