"""Terminal and JSON output of the headless commands (rich, never console markup for server text)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from inspector import __version__
from inspector.calls import describe_block
from inspector.targets import masked_args
from inspector.text import one_line, visible
from inspector.tokens import ESTIMATES

if TYPE_CHECKING:
    from inspector.calls import CallRecord
    from inspector.catalog import ServerSnapshot
    from inspector.configs import ConfiguredServer
    from inspector.tokens import TokenCounter

COLUMNS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
SHORT = {"description": "descr", "inputSchema": "input", "outputSchema": "output", "annotations": "annot"}
CANONICAL = "canonical JSON of the wire object (compact separators, sorted keys, UTF-8)"
WRAPPING_NOTE = "Hosts add their own wrapping around tool definitions, so real context cost differs."


def _console() -> Console:
    return Console(highlight=False, soft_wrap=False)


def token_report(snapshot: ServerSnapshot, counter: TokenCounter) -> dict[str, Any]:
    """The `list --format json` document: every figure labelled with its encoding."""
    tools = []
    for item in snapshot.tools:
        tokens = counter.breakdown(item.raw)
        tools.append({"name": item.name, "tokens": tokens, "problems": item.problems, "wireSeq": item.seq})
    tools.sort(key=lambda t: -t["tokens"]["total"])

    def totals(kind: str) -> list[dict[str, Any]]:
        listing = snapshot.lists[kind]  # type: ignore[index]
        return [{"name": i.key, "tokens": counter.count_json(i.raw), "problems": i.problems} for i in listing]

    return {
        "tool": {"name": "mcp-review", "version": __version__},
        "server": {
            "name": snapshot.server_name,
            "version": snapshot.server_version,
            "info": snapshot.server_info,
        },
        "target": snapshot.target,
        "revision": snapshot.revision,
        "era": snapshot.era,
        "transport": snapshot.target.get("kind"),
        "encoding": counter.encoding,
        "counted": counted(counter.encoding),
        "tools": tools,
        "total": counter.tools_total(snapshot.tools.raw),
        "instructions": counter.count_text(snapshot.instructions) if snapshot.instructions else 0,
        "prompts": totals("prompt"),
        "resources": totals("resource"),
        "templates": totals("template"),
        "listing": {
            listing.spec.key: {
                "declared": listing.declared,
                "count": len(listing),
                "pages": len(listing.seqs),
                "error": listing.error,
                "stopped": listing.stopped,
            }
            for listing in snapshot.lists.values()
        },
        "notes": snapshot.notes,
    }


def counted(encoding: str) -> str:
    """How the figures of `encoding` were made: the wire text, or for an estimate the host's wrapping."""
    if encoding in ESTIMATES:
        return f"{ESTIMATES[encoding]()}: tools as the host wraps them, other objects as {CANONICAL}"
    return f"{CANONICAL}; {WRAPPING_NOTE}"


def _header(snapshot: ServerSnapshot) -> Text:
    out = Text()
    out.append(one_line(snapshot.server_name, 80), style="bold")
    if snapshot.server_version:
        out.append(" " + one_line(snapshot.server_version, 40))
    out.append(f"  ·  revision {snapshot.revision} ({snapshot.era} era)  ·  {snapshot.target.get('kind')}")
    caps = ", ".join(sorted(snapshot.capabilities)) or "none"
    out.append(f"\ncapabilities: {one_line(caps, 200)}")
    return out


def print_listing(snapshot: ServerSnapshot, report: dict[str, Any]) -> None:
    console = _console()
    console.print(_header(snapshot))
    enc = report["encoding"]
    label = f"{enc}, an estimate" if enc in ESTIMATES else enc
    table = Table(title=f"tools by token cost ({label})", title_justify="left", show_footer=True)
    longest = max((len(one_line(t["name"] or "", 48)) for t in report["tools"]), default=8)
    table.add_column("tool", footer=f"{len(report['tools'])} tools", min_width=min(longest, 32), overflow="fold")
    table.add_column("total", justify="right", footer=str(report["total"]))
    for col in (*COLUMNS, "other"):
        table.add_column(SHORT.get(col, col), justify="right")
    for tool in report["tools"]:
        tokens = tool["tokens"]
        other = tokens["total"] and sum(v for k, v in tokens.items() if k not in (*COLUMNS, "total"))
        name = Text(one_line(tool["name"] or "(no name)", 48), style="red" if tool["problems"] else "")
        cells = [str(tokens.get(col, "")) for col in COLUMNS]
        table.add_row(name, str(tokens["total"]), *cells, str(other or ""))
    console.print(table)
    bad = [t for t in report["tools"] if t["problems"]]
    for tool in bad:
        console.print(
            Text(f"  ! {one_line(tool['name'] or '(no name)', 60)}: {'; '.join(tool['problems'])}", style="red")
        )
    others = Table(title="other primitives", title_justify="left")
    for col, justify in (("kind", "left"), ("name / uri", "left"), (enc, "right")):
        others.add_column(col, justify=justify)  # type: ignore[arg-type]
    if report["instructions"]:
        others.add_row("instructions", "", str(report["instructions"]))
    for kind in ("prompts", "resources", "templates"):
        for item in report[kind]:
            others.add_row(kind[:-1], Text(one_line(item["name"], 70)), str(item["tokens"]))
    if others.row_count:
        console.print(others)
    for key, info in report["listing"].items():
        for what in ("error", "stopped"):
            if info[what]:
                console.print(Text(f"  ! {key}: {one_line(info[what], 200)}", style="yellow"))
    console.print(
        Text(
            f'total = the whole tools array; per-field figures count each member "key":value on its own, so '
            f"they do not add up exactly. Counted with {enc}: {counted(enc).rstrip('.')}.",
            style="dim",
        )
    )


def print_call(record: CallRecord) -> None:
    console = _console()
    console.print(
        Text(f"{one_line(record.tool, 80)}  ·  {record.latency_ms:.0f} ms  ·  {record.outcome}", style="bold")
    )
    if record.error is not None:
        console.print(Text(visible(json.dumps(record.error, indent=2, ensure_ascii=False), 20000)))
        return
    result = record.result if isinstance(record.result, dict) else {}
    blocks = result.get("content")
    for i, block in enumerate(blocks if isinstance(blocks, list) else []):
        heading, body = describe_block(block)
        console.print(Text(f"[{i}] {one_line(heading, 200)}", style="cyan"))
        if body:
            console.print(Text(visible(body, 20000)))
    if "structuredContent" in result:
        console.print(Text("structuredContent:", style="cyan"))
        console.print(Text(visible(json.dumps(result["structuredContent"], indent=2, ensure_ascii=False), 20000)))
    console.print(Text(f"isError: {json.dumps(result.get('isError', False))}"))


def print_servers(found: list[ConfiguredServer]) -> None:
    console = _console()
    if not found:
        console.print("no MCP servers found in the usual config files")
        return
    table = Table(title="MCP servers in config files", title_justify="left")
    for col in ("name", "client", "transport", "command / url", "source", "problem"):
        table.add_column(col)
    for s in found:
        t = s.target
        what = (t.url or "" if t.kind != "stdio" else " ".join([t.command or "", *masked_args(t.args)])) if t else ""
        table.add_row(
            Text(one_line(s.name, 40)),
            s.client,
            t.kind if t else "",
            Text(one_line(what, 60)),
            Text(s.source),
            Text(one_line(s.problem or "", 60), style="yellow"),
        )
    console.print(table)


def print_table(table: Table, summary: Text) -> None:
    """A table and the line under it (`diff`'s changes)."""
    console = _console()
    console.print(table)
    console.print(summary)
