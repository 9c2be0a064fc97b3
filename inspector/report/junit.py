"""JUnit XML: a test case per rule and subject; fail: <failure>, blocking: <error>, n/a and waived: <skipped>."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from inspector.review import Review


def render(review: Review) -> str:
    counts = review.counts()
    suite = ET.Element(
        "testsuite",
        name=f"mcp-review {review.server.get('name')}",
        tests=str(len(review.findings)),
        failures=str(counts.get("fail", 0)),
        errors=str(counts.get("blocking", 0)),
        skipped=str(counts.get("n/a", 0) + counts.get("waived", 0)),
    )
    for f in review.findings:
        case = ET.SubElement(suite, "testcase", classname=f.rule, name=f.subject or "(server)")
        status = f.effective
        if status == "fail":
            ET.SubElement(case, "failure", message=f.message[:500], type="fail").text = f"{f.message}\n{f.source}"
        elif status == "blocking":
            ET.SubElement(case, "error", message=f.message[:500], type="blocking").text = f"{f.message}\n{f.source}"
        elif status in ("n/a", "waived"):
            reason = f.message if status == "n/a" else f"waived by {f.waiver.by if f.waiver else '?'}"
            ET.SubElement(case, "skipped", message=reason[:500])
        elif status == "warn":
            ET.SubElement(case, "system-out").text = f"warning: {f.message}"
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
