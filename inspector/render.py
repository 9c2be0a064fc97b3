"""Terminal output of the headless commands (rich, never console markup for server text); `list --format json`'s
document is `costs`'s, which loads no rich."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.box import HEAVY_HEAD
from rich.cells import cell_len, chop_cells
from rich.console import Console, Group
from rich.segment import Segment, Segments
from rich.style import Style
from rich.table import Table
from rich.text import Text

from mcp_review.calls import describe_block
from mcp_review.costs import counted
from mcp_review.targets import masked_args
from mcp_review.text import one_line, visible
from mcp_review.tokens import DEFAULT_ENCODING, ESTIMATES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mcp_review.calls import CallRecord
    from mcp_review.catalog import ServerSnapshot
    from mcp_review.configs import ConfiguredServer
    from mcp_review.tokens import Figure

COLUMNS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
SHORT = {"description": "descr", "inputSchema": "input", "outputSchema": "output", "annotations": "annot"}
Drawn = list[list[Segment]]  # a table's lines, each its parts and their styles
NARROWEST = 12  # on a narrow terminal the folding column folds down to this before lines are cropped


def _console() -> Console:
    return Console(highlight=False, soft_wrap=False)


def _header(snapshot: ServerSnapshot) -> Text:
    out = Text()
    out.append(one_line(snapshot.server_name, 80), style="bold")
    if snapshot.server_version:
        out.append(" " + one_line(snapshot.server_version, 40))
    revision = one_line(snapshot.revision, 40)  # the server's protocolVersion, as it sent it
    out.append(f"  ·  revision {revision} ({snapshot.era} era)  ·  {snapshot.target.get('kind')}")
    caps = ", ".join(sorted(snapshot.capabilities)) or "none"
    out.append(f"\ncapabilities: {one_line(caps, 200)}")
    return out


@dataclass(frozen=True)
class Column:
    heading: str
    right: bool = False  # figures are right-aligned
    footer: str = ""
    fold: bool = False  # the one column that folds to fit a terminal (a name)


def print_rows(
    console: Console, title: str, columns: Sequence[Column], rows: Sequence[tuple[Sequence[str], str]]
) -> None:
    """A table drawn as rich's `Table` draws it (its box, title, header and footer), in time linear in its cells.

    `rows` are (cells, the style of the folding column's cell), every cell a one-line string already made
    visible. rich's `Table` measures and renders every cell as a renderable of its own: 8 s of the 10 s that
    10,000 tools took. Here each column's width is measured once (`rich.cells.cell_len`: wide characters take
    two cells) and each row is one line of three styled segments (`rich.segment`) drawn with the box characters
    a `Table` uses (`rich.box`). On a terminal the folding column folds (`rich.cells.chop_cells`) so the rows fit
    its width, and rich crops what still does not; written to a file or a pipe every line is whole, one line a
    row, and unstyled.
    """
    widths = [max(cell_len(c.heading), cell_len(c.footer)) for c in columns]
    for i in range(len(columns)):
        widths[i] = max([widths[i], *(cell_len(cells[i]) for cells, _ in rows)])
    fold = next((i for i, c in enumerate(columns) if c.fold), 0)
    over = sum(widths) + 3 * len(widths) + 1 - console.width
    if console.is_terminal and over > 0:
        widths[fold] = max(widths[fold] - over, min(widths[fold], NARROWEST))
    box = HEAVY_HEAD.substitute(console.options)
    edges = [w + 2 for w in widths]

    def line(cells: Sequence[str], ends: tuple[str, str, str], style: Style | None, rest: Style | None) -> Drawn:
        """A row's lines: one, or one a piece of its folded cell (the other cells on the first)."""
        pieces = chop_cells(cells[fold], widths[fold]) if cell_len(cells[fold]) > widths[fold] else [cells[fold]]
        out = []
        sep = f" {ends[1]} "
        for n, piece in enumerate(pieces):
            each = [piece if i == fold else cell if n == 0 else "" for i, cell in enumerate(cells)]
            padded = [_pad(cell, w, c.right) for cell, w, c in zip(each, widths, columns, strict=True)]
            before = f"{ends[0]} " + "".join(cell + sep for cell in padded[:fold])
            after = "".join(sep + cell for cell in padded[fold + 1 :]) + f" {ends[2]}"
            out.append([Segment(before, rest), Segment(padded[fold], style), Segment(after, rest)])
        return out

    bold = Style(bold=True)
    lines = [[Segment(title, Style(italic=True))], [Segment(box.get_top(edges))]]
    lines += line([c.heading for c in columns], (box.head_left, box.head_vertical, box.head_right), bold, bold)
    lines.append([Segment(box.get_row(edges, "head"))])
    for cells, style in rows:
        lines += line(cells, (box.mid_left, box.mid_vertical, box.mid_right), Style.parse(style), None)
    if any(c.footer for c in columns):
        lines.append([Segment(box.get_row(edges, "foot"))])
        lines += line([c.footer for c in columns], (box.foot_left, box.foot_vertical, box.foot_right), bold, bold)
    lines.append([Segment(box.get_bottom(edges))])
    if console.is_terminal:  # styled, each line cropped to the terminal's width
        console.print(Segments(part for each in lines for part in (*each, Segment.line())))
    else:
        console.file.write("".join(part.text for each in lines for part in (*each, Segment.line())))


def _pad(cell: str, width: int, right: bool) -> str:
    space = " " * (width - cell_len(cell))
    return space + cell if right else cell + space


def print_listing(snapshot: ServerSnapshot, report: dict[str, Any]) -> None:
    console = _console()
    console.print(_header(snapshot))
    enc = report["encoding"]
    label = f"{enc}, an estimate" if enc in ESTIMATES else enc
    columns = [
        Column("tool", footer=f"{len(report['tools'])} tools", fold=True),
        Column("total", right=True, footer=str(report["total"])),
        *(Column(SHORT.get(col, col), right=True) for col in (*COLUMNS, "other")),
    ]
    rows: list[tuple[list[str], str]] = []
    for tool in report["tools"]:
        tokens = tool["tokens"]
        other = tokens["total"] and sum(v for k, v in tokens.items() if k not in (*COLUMNS, "total"))
        name = one_line(tool["name"] or "(no name)", 48)
        cells = [name, str(tokens["total"]), *(str(tokens.get(col, "")) for col in COLUMNS), str(other or "")]
        rows.append((cells, "red" if tool["problems"] else ""))
    print_rows(console, f"tools by token cost ({label})", columns, rows)
    problems = [
        Text(f"  ! {one_line(tool['name'] or '(no name)', 60)}: {'; '.join(tool['problems'])}", style="red")
        for tool in report["tools"]
        if tool["problems"]
    ]
    if problems:
        console.print(Group(*problems))
    others = [(["instructions", "", str(report["instructions"])], "")] if report["instructions"] else []
    for kind in ("prompts", "resources", "templates"):
        others += [([kind[:-1], one_line(item["name"], 70), str(item["tokens"])], "") for item in report[kind]]
    if others:
        columns = [Column("kind"), Column("name / uri", fold=True), Column(enc, right=True)]
        print_rows(console, "other primitives", columns, others)
    if "skills" in report:
        _print_skills(console, report["skills"], label)
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


def _print_skills(console: Console, listing: dict[str, Any], label: str) -> None:
    skills = listing["skills"]
    columns = [
        Column("skill (SKILL.md URI)", footer=f"{len(skills)} skills", fold=True),
        Column("listed", right=True, footer=str(sum(s["tokens"] for s in skills))),
        Column("SKILL.md", right=True),
    ]
    rows = []
    for s in skills:
        loaded = "dynamic" if s["dynamic"] else str(s["loaded"]) if s["loaded"] is not None else "unread"
        rows.append(([one_line(s["uri"], 70), str(s["tokens"]), loaded], "red" if s["problems"] else ""))
    print_rows(console, f"skills by token cost ({label}; listed: frontmatter, always in context)", columns, rows)
    for what in ("error", "stopped"):
        if listing[what]:
            console.print(Text(f"  ! skills/list: {one_line(listing[what], 200)}", style="yellow"))


def print_call(record: CallRecord, tokens: Figure | None = None) -> None:
    """A call's outcome and result; `tokens` is its reply's figure (`calls.reply_tokens`, as the app shows it)."""
    console = _console()
    said = f"  ·  reply {tokens} {DEFAULT_ENCODING} tokens{tokens.note}" if tokens is not None else ""
    console.print(
        Text(
            f"{one_line(record.tool, 80)}  ·  {record.latency_ms:.0f} ms  ·  {one_line(record.outcome, 2000)}{said}",
            style="bold",
        )
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
