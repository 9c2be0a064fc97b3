"""The harness's judges of what mcp-review wrote, written independently of mcp-review's own quoting:

- report injection: server text that became live structure in an export. Markdown is parsed with a CommonMark
  parser (markdown-it-py, which rich depends on): an HTML tag or a heading, link or fence carrying the hostile
  server's MARK, an HTML tag mcp-review never writes, or `<details>` that do not balance. JUnit is parsed with
  xml.etree (it must be well-formed XML 1.0, with no element or attribute mcp-review does not write); SARIF
  message texts are judged as markdown too;
- strict JSON: every JSON artifact parses as RFC 8259 JSON (no NaN, Infinity or -Infinity);
- trust: a call the server logged (`integrity_server.py --log`) made after it gave the tool's dangerous
  definition, when the reviewer did not consent to calling every tool.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from markdown_it import MarkdownIt

from tests.hostile.cases import Case

MARK = "zqx"  # integrity_server.MARK
OWN_HTML = re.compile(r"(?:<details><summary>[^<>]*</summary>|</details>)\s*")  # the only HTML mcp-review writes
MARKED_TAG = re.compile(rf"<[^<>]*{MARK}", re.IGNORECASE)  # a raw tag that carries the mark: the server wrote it
JUNIT_TAGS = {
    "testsuites",
    "testsuite",
    "properties",
    "property",
    "testcase",
    "failure",
    "error",
    "skipped",
    "system-out",
}
MARKDOWN = MarkdownIt("commonmark").enable("table")


def _refuse(literal: str) -> Any:
    raise ValueError(f"{literal} is not JSON")


def strict_json(text: str, lines: bool = False) -> str | None:
    """Why `text` is not strict JSON (one document, or one per line), or None."""
    try:
        for doc in [line for line in text.splitlines() if line.strip()] if lines else [text]:
            json.loads(doc, parse_constant=_refuse)
    except ValueError as e:
        return str(e)[:200]
    return None


def markdown_injection(text: str, where: str) -> list[str]:
    """Live structure that server text made in markdown `text`."""
    found: list[str] = []
    opened = closed = 0
    tokens = MARKDOWN.parse(text)
    for i, token in enumerate(tokens):
        if token.type == "html_block":
            if MARKED_TAG.search(token.content) or not OWN_HTML.fullmatch(token.content):
                found.append(f"{where}: live HTML block {token.content[:80]!r}")
            opened += token.content.count("<details>")
            closed += token.content.count("</details>")
        elif token.type == "heading_open" and tokens[i + 1].content.lower().lstrip("# ").startswith(MARK):
            found.append(f"{where}: a heading made of server text {tokens[i + 1].content[:80]!r}")
        elif token.type in ("fence", "code_block") and MARK in token.info.lower():
            found.append(f"{where}: a fence opened by server text (info {token.info[:80]!r})")
        for child in token.children or []:
            if child.type == "html_inline":
                found.append(f"{where}: live inline HTML {child.content[:80]!r}")
            elif child.type in ("link_open", "image") and MARK in json.dumps(child.attrs).lower():
                found.append(f"{where}: a link or image from server text {child.attrs}")
    if opened != closed:
        found.append(f"{where}: <details> do not balance ({opened} opened, {closed} closed)")
    return found


def xml_injection(text: str, where: str) -> list[str]:
    try:
        root = ET.fromstring(text.encode("utf-8"))
    except ET.ParseError as e:
        return [f"{where}: not well-formed XML: {e}"]
    found = []
    for element in root.iter():
        names = [element.tag, *element.attrib]
        if element.tag not in JUNIT_TAGS or any(MARK in str(n).lower() for n in names):
            found.append(f"{where}: an element mcp-review does not write: <{str(element.tag)[:60]} {element.attrib}>")
    return found


def sarif_injection(text: str, where: str) -> list[str]:
    found = []
    for run in json.loads(text).get("runs", []):
        for result in run.get("results", []):
            found += markdown_injection(result.get("message", {}).get("text", ""), f"{where} message")
    return found


def exports(artifacts: dict[str, str]) -> dict[str, list[str]]:
    """{"json": [...], "injection": [...]}: what is wrong with every artifact a run wrote."""
    bad_json, injected = [], []
    for name, text in artifacts.items():
        kind = {"md-full": "md", "junit": "xml"}.get(name.rsplit(".", 1)[-1], name.rsplit(".", 1)[-1])
        if kind in ("json", "jsonl", "sarif", "lock") or (name == ".stdout" and text.lstrip()[:1] in "{["):
            why = strict_json(text, lines=kind == "jsonl") if text.strip() else None
            bad_json += [f"{name}: {why}"] if why else []
            if kind == "sarif" and not why:
                injected += sarif_injection(text, name)
        elif kind == "md":
            injected += markdown_injection(text, name)
        elif kind == "xml":
            injected += xml_injection(text, name)
    return {"json": bad_json, "injection": injected}


def trust(calls_log: str, consented: bool) -> list[str]:
    """Calls made without the consent the tool's most dangerous definition needs."""
    if consented:
        return []
    return [f"called without consent: {line[:200]}" for line in calls_log.splitlines() if line.strip()]


def integrity(case: Case, work: Path) -> dict[str, list[str]]:
    """trust, json and injection over every file a run wrote in `work` and what it printed. An injection case's
    review.json is also rendered in every other format, as `check --format` would write it."""
    artifacts = {
        str(path.relative_to(work)): path.read_bytes().decode("utf-8", "replace")
        for path in work.rglob("*")
        if path.is_file() and not path.name.startswith((".netlog", ".rss", ".calls", ".stderr", "app.json"))
    }
    review = work / "review.json"
    if case.attacks == "injection" and review.is_file() and not strict_json(artifacts["review.json"]):
        from mcp_review.report import render
        from mcp_review.review import load_review

        loaded = load_review(review)
        for fmt in ("md", "md-full", "sarif", "junit") if loaded else ():
            artifacts[f"review.{fmt}"] = render(loaded, fmt)
    found = exports(artifacts)
    calls = (work / ".calls").read_text() if (work / ".calls").is_file() else ""
    found["trust"] = trust(calls, consented=case.calls == "all")
    return found
