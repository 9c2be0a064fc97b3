"""JUnit XML: a test case per rule and subject; fail: <failure>, blocking: <error>, n/a and waived: <skipped>.

The suite's properties lead with the headline (security first, then the concerns that fail: `report.headline`),
each concern's verdict, the overall one and the gate's; each test case carries its finding's concern and severity
as properties (and in its failure's or error's `type`), and a fail that is a known SDK behaviour says which.

ElementTree escapes `<`, `>`, `&` and quotes in server text, so it cannot open or close an element (nor end a
CDATA section: there is none); what it does not do is refuse the characters XML 1.0 forbids (most C0 controls,
lone surrogates, U+FFFE/U+FFFF), which would make the file unreadable: `xml_text` shows them as escapes.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

from mcp_review import __version__, claims
from mcp_review.claims import line as claim_line
from mcp_review.report import headline
from mcp_review.report.behaviour import properties as behaviour_properties
from mcp_review.report.decided import lines as decided_lines
from mcp_review.report.eras import properties as era_properties
from mcp_review.review import Review

FORBIDDEN = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")  # XML 1.0, production Char


def xml_text(text: object) -> str:
    """`text` with every character XML 1.0 does not allow shown as `\\xNN` or `<U+NNNN>`."""
    return FORBIDDEN.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"<U+{ord(m[0]):04X}>", str(text))


def render(review: Review) -> str:
    counts = review.counts()
    suite = ET.Element(
        "testsuite",
        name=xml_text(f"mcp-review {review.server.get('name')}"),
        tests=str(len(review.findings)),
        failures=str(counts.get("fail", 0)),
        errors=str(counts.get("blocking", 0)),
        skipped=str(counts.get("n/a", 0) + counts.get("waived", 0)),
    )
    decided = decided_lines(review)  # who decided each piece of the review (mcp_review.plan), before the cases
    named = [("mcp-review.headline", headline.line(review, icons=False))]  # security first, then what fails
    named += [(f"mcp-review.verdict.{c}", v) for c, v in review.verdicts().items()]
    named += [("mcp-review.verdict", review.verdict)]
    named += [("mcp-review.gate", gate)] if (gate := headline.gate(review, icons=False)) else []
    named += [("mcp-review.known", line)] if (line := headline.known_line(review)) else []
    named += [("mcp-review.version", __version__)]  # the version that reviewed, then who decided what, then eras
    named += [(f"mcp-review.decided.{piece}", who) for piece, who in decided] + era_properties(review)
    if said := claims.said(review):  # the repository's decisions not applied, each as the review lists it
        named.append(("mcp-review.claims", said))
        named += [("mcp-review.claim", claim_line(c)) for c in claims.of(review)]
    named += behaviour_properties(review)
    properties = ET.SubElement(suite, "properties")
    for name, value in named:
        ET.SubElement(properties, "property", name=xml_text(name), value=xml_text(value))
    for f in review.findings:
        case = ET.SubElement(suite, "testcase", classname=f.rule, name=xml_text(f.subject or "(server)"))
        status = f.effective
        if status not in ("pass", "n/a"):  # what a reader weighs: its concern and severity (100,000 passes: no)
            rated = ET.SubElement(case, "properties")
            sdk = [("known", f"{f.known.behaviour} ({f.known.sdk or 'SDK not told apart'})")] if f.known else []
            for name, value in (("concern", f.concern), ("severity", f.severity), *sdk):
                ET.SubElement(rated, "property", name=name, value=xml_text(value))
        message = xml_text(f.message + (f"; {f.lapsed}" if f.lapsed else ""))
        kind = f"{f.concern} {f.severity}"
        if status == "fail":
            ET.SubElement(case, "failure", message=message[:500], type=f"fail {kind}").text = f"{message}\n{f.source}"
        elif status == "blocking":
            error = ET.SubElement(case, "error", message=message[:500], type=f"blocking {kind}")
            error.text = f"{message}\n{f.source}"
        elif status in ("n/a", "waived"):
            reason = message if status == "n/a" else xml_text(f"waived by {f.waiver.by if f.waiver else '?'}")
            ET.SubElement(case, "skipped", message=reason[:500])
        elif status in ("warn", "note"):
            ET.SubElement(case, "system-out").text = f"{'warning' if status == 'warn' else 'note'}: {message}"
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
