"""Many reviews made into one report: the fleet's own, and `mcp-review merge`'s, from the same files by the same code.

Input: JSON reviews (`check --format json`, or a fleet's state files, which add a `fleet` block: key, name, origin)
and the fleet's error records (a server that gave no review). One `Row` per file, read one at a time: a fleet of
hundreds of big reviews is never held whole. Rows sort worst first, then by name and key, so the report is the
same whatever order the files came in.

Formats, one `Format` record each in `FORMATS` (`fleet --format` and the endings of `--out` names read them):
`md` and `text` (a table: security's verdict first, the overall verdict, the gate's, fails, blocking, warnings,
token cost of the tool listing, what the server says it is), `json` (the same as data), `sarif` (one run per
server, each the run `check --format sarif` writes for it, with its own `automationDetails.id` so code scanning
keeps them apart; a server with no review is a run whose invocation failed), `junit` (one suite per server,
each the suite `check --format junit` writes, named after the fleet's entry).

Verdicts, worst first: FAIL, ERROR (no review: it hung, crashed or could not start), BLOCKED, PASS_WITH_WARNINGS,
PASS. The exit code means what `check`'s does, for the worst server by the gate each review was made with (`fleet
--fail-on`, passed to each check; a review without one: its overall verdict): 1 a server's gate failed, 2 one
could not be reviewed, 3 one's gate is blocked, 0 every one passed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from mcp_review import __version__
from mcp_review.report import render
from mcp_review.report.common import SCHEMA, cell
from mcp_review.report.formats import Format, family
from mcp_review.report.junit import xml_text
from mcp_review.review import ExitCode, Review
from mcp_review.text import one_line

ORDER = ("FAIL", "ERROR", "BLOCKED", "PASS_WITH_WARNINGS", "PASS")
EXIT = {"FAIL": ExitCode.FAILED, "ERROR": ExitCode.USAGE, "BLOCKED": ExitCode.BLOCKED}


class NotAReview(Exception):
    """A file that is neither a JSON review nor a fleet's error record."""


@dataclass(frozen=True)
class Row:
    key: str
    name: str
    origin: str | None
    verdict: str
    counts: dict[str, int] = field(default_factory=dict)
    tokens: int | None = None  # the tool listing's token cost
    tools: int | None = None
    server: str | None = None  # the name and version the server reports (its text: shown inert)
    error: str | None = None
    path: Path | None = None  # where the review is (read again for SARIF and JUnit)
    security: str | None = None  # the security concern's verdict
    gate: str | None = None  # the verdict of the findings the run's gate selects (check --fail-on)
    verdicts: dict[str, str] = field(default_factory=dict)  # every concern's

    @property
    def gated(self) -> str:
        """What the fleet's exit code reads: the gate's verdict, else the overall one (and ERROR stays ERROR)."""
        return self.gate if self.gate and not self.error else self.verdict

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "origin": self.origin,
            "security": self.security,
            "verdict": self.verdict,
            "verdicts": self.verdicts,
            "gate": self.gate,
            "exitCode": int(EXIT.get(self.gated, ExitCode.OK)),
            "counts": self.counts,
            "tokens": self.tokens,
            "tools": self.tools,
            "server": self.server,
            "error": self.error,
        }


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise NotAReview(f"{path}: cannot read: {e.strerror}") from e
    except ValueError as e:
        raise NotAReview(f"{path}: not JSON: {e}") from e
    if not isinstance(data, dict) or not ("findings" in data or "error" in (data.get("fleet") or {})):
        raise NotAReview(f"{path}: not a JSON review (check --format json) nor a fleet's error record")
    return data


def row_of(path: Path) -> Row:
    data = _read(path)
    fleet, target = data.get("fleet") or {}, data.get("target") or {}
    key = str(fleet.get("key") or path.name.removesuffix(".json").removesuffix(".review"))
    name = str(fleet.get("name") or target.get("name") or _label(target))
    origin = fleet.get("origin") or target.get("source")
    if "findings" not in data:
        return Row(key, name, origin, "ERROR", error=str(fleet.get("error")), path=path)
    info = data.get("server") or {}
    reported = " ".join(str(v) for v in (info.get("name"), info.get("version")) if v) or None
    tokens = (data.get("tokens") or {}).get("total")
    verdicts = {str(k): str(v) for k, v in (data.get("verdicts") or {}).items()}
    return Row(
        key,
        name,
        origin,
        str(data.get("verdict")),
        {str(k): int(v) for k, v in (data.get("counts") or {}).items()},
        tokens if isinstance(tokens, int) else None,
        len(data.get("tools") or []),
        reported,
        path=path,
        security=verdicts.get("security"),
        gate=str(data["gate"]) if data.get("gate") else None,
        verdicts=verdicts,
    )


def _label(target: dict[str, Any]) -> str:
    if target.get("url"):
        return str(target["url"])
    return " ".join(str(p) for p in (target.get("command") or "?", *(target.get("args") or [])))


def load(paths: Iterable[Path]) -> list[Row]:
    """The rows of these files, worst first (a key seen twice: the later file wins, as a re-run would)."""
    rows = {row.key: row for row in map(row_of, paths)}
    return sorted(rows.values(), key=lambda r: (ORDER.index(r.verdict) if r.verdict in ORDER else 0, r.name, r.key))


def verdict(rows: Sequence[Row]) -> str:
    return min((r.verdict for r in rows), key=lambda v: ORDER.index(v) if v in ORDER else 0, default="PASS")


def exit_code(rows: Sequence[Row]) -> int:
    """`check`'s exit code for the worst server by its gate (`Row.gated`)."""
    worst = min((r.gated for r in rows), key=lambda v: ORDER.index(v) if v in ORDER else 0, default="PASS")
    return int(EXIT.get(worst, ExitCode.OK))


def tally(rows: Sequence[Row]) -> dict[str, int]:
    return {v: n for v in ORDER if (n := sum(r.verdict == v for r in rows))}


def headline(rows: Sequence[Row]) -> str:
    """How many servers of each security verdict, then of each overall verdict: security first, as every face."""
    security = {v: n for v in (*ORDER, "NOT_CHECKED") if (n := sum((r.security or "ERROR") == v for r in rows))}
    said = ", ".join(f"{n} {v}" for v, n in security.items()) or "none"
    counted = ", ".join(f"{n} {v}" for v, n in tally(rows).items()) or "none"
    return f"{len(rows)} servers: security {said}; overall {counted}"


def _cells(row: Row) -> list[str]:
    def n(status: str) -> str:
        return "-" if row.error else str(row.counts.get(status, 0))

    tokens = "-" if row.tokens is None else f"{row.tokens:,}"
    security = "-" if row.error else row.security or "?"
    return [security, row.verdict, "-" if row.error else row.gate or "-", n("fail"), n("blocking"), n("warn"), tokens]


HEAD = ["security", "verdict", "gate", "fails", "blocking", "warnings", "tokens"]


def markdown(rows: Sequence[Row]) -> str:
    out = [f"## mcp-review fleet: {headline(rows)}", ""]
    out += ["| Server | Security | Verdict | Gate | Fails | Blocking | Warnings | Tokens | Reports as |"]
    out += ["|---|---|---|---|--:|--:|--:|--:|---|"]
    for row in rows:
        out.append(f"| {cell(row.name, 80)} | " + " | ".join(_cells(row)) + f" | {cell(row.server or '-', 60)} |")
    errored = [r for r in rows if r.error]
    if errored:
        out += ["", "**Not reviewed:**", ""]
        out += [f"- {cell(r.name, 80)}: {cell(r.error, 300)}" for r in errored]
    return "\n".join(out) + "\n"


def text(rows: Sequence[Row]) -> str:
    table = [["server", *HEAD, "reports as"]]
    table += [[one_line(r.name, 60), *_cells(r), one_line(r.server or "-", 40)] for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = [_aligned(line, widths) for line in table]
    lines += [f"{one_line(r.name, 60)}: not reviewed: {one_line(r.error or '', 300)}" for r in rows if r.error]
    return "\n".join([f"mcp-review fleet: {headline(rows)}", *lines]) + "\n"


def _aligned(line: list[str], widths: list[int]) -> str:
    """Names and verdicts to the left, numbers to the right."""
    left = (0, 1, 2, 3, len(line) - 1)  # the server, its verdicts and what it reports as; numbers to the right
    cells = (c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True)))
    return "  ".join(cells).rstrip()


def as_json(rows: Sequence[Row]) -> dict[str, Any]:
    return {
        "tool": {"name": "mcp-review", "version": __version__},
        "verdict": verdict(rows),
        "exitCode": exit_code(rows),
        "headline": headline(rows),
        "verdicts": tally(rows),
        "servers": [r.to_json() for r in rows],
    }


def _review(row: Row) -> Review:
    assert row.path is not None and not row.error
    return Review.from_json(_read(row.path))


def sarif_runs(rows: Sequence[Row]) -> Iterator[dict[str, Any]]:
    """One run per server (and the lock diff's run after it, when its review has one), each told apart."""
    for row in rows:
        if row.error:
            yield {
                "tool": {"driver": {"name": "mcp-review", "version": __version__, "rules": []}},
                "automationDetails": {"id": f"mcp-review/fleet/{row.key}/"},
                "invocations": [
                    {
                        "executionSuccessful": False,
                        "toolExecutionNotifications": [{"level": "error", "message": {"text": one_line(row.error)}}],
                    }
                ],
                "results": [],
                "properties": {"server": row.name, "verdict": "ERROR"},
            }
            continue
        for i, run in enumerate(json.loads(render(_review(row), "sarif"))["runs"]):
            run["automationDetails"] = {"id": f"mcp-review/fleet/{row.key}/" + (f"{i}/" if i else "")}
            run.setdefault("properties", {})["fleet"] = {"key": row.key, "name": row.name, "origin": row.origin}
            yield run


def sarif(rows: Sequence[Row]) -> Iterator[str]:
    """SARIF 2.1.0, written run by run."""
    from mcp_review.output import json_text

    yield '{\n  "$schema": ' + json.dumps(SCHEMA) + ',\n  "version": "2.1.0",\n  "runs": ['
    for i, run in enumerate(sarif_runs(rows)):
        yield ("," if i else "") + "\n" + json_text(run)
    yield "\n  ]\n}\n"


def junit(rows: Sequence[Row]) -> str:
    root = ET.Element("testsuites", name="mcp-review fleet")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for row in rows:
        if row.error:
            suite = ET.Element("testsuite", name="", tests="1", failures="0", errors="1", skipped="0")
            case = ET.SubElement(suite, "testcase", classname="mcp-review.fleet", name="review")
            ET.SubElement(case, "error", message=xml_text(row.error)[:500], type="not reviewed").text = xml_text(
                row.error
            )
        else:
            suite = ET.fromstring(render(_review(row), "junit").encode()).find("testsuite")  # type: ignore[assignment]
        suite.set("name", xml_text(row.name))
        suite.set("id", row.key)
        for k in totals:
            totals[k] += int(suite.get(k) or 0)
        root.append(suite)
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def json_report(rows: Sequence[Row]) -> str:
    from mcp_review.output import json_text

    return json_text(as_json(rows)) + "\n"


FORMATS: dict[str, Format[Sequence[Row]]] = family(
    Format(
        "text", "txt", "a table: security, verdict, gate, fails, blocking, warnings, tokens", "fleet.aggregate:text"
    ),
    Format("md", "md", "the same table in markdown, with the servers not reviewed", "fleet.aggregate:markdown"),
    Format("json", "json", "the same as data", "fleet.aggregate:json_report"),
    Format("sarif", "sarif", "a run per server", "fleet.aggregate:sarif", streams=True, also=("sarif.json",)),
    Format("junit", "xml", "a suite per server", "fleet.aggregate:junit"),
)
