"""The Skills tab (SEP-2640, `io.modelcontextprotocol/skills`): the skills the server lists, each with its token
cost (its frontmatter, which a host keeps in context for every skill) and its worst finding; the highlighted one's
description, manifest and findings below. Opening one (`o` or Enter) reads its SKILL.md and shows it with the
check of its bytes against the manifest's digest and what it costs once loaded."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static, TabPane

from mcp_review.catalog import ServerSnapshot
from mcp_review.costs import Costs
from mcp_review.review import Review
from mcp_review.skills import Read, Skill, take
from mcp_review.text import one_line, visible
from mcp_review.tokens import TokenCounter
from mcp_review.tui.grid import Cell, Grid
from mcp_review.tui.messages import Fetch
from mcp_review.tui.panes.table import show_detail
from mcp_review.tui.styles import status_style

SHOWN_FILES = 20  # manifest entries in the detail; the rest are counted


class SkillsPane(TabPane):
    COLUMNS = ("skill", "description", "tokens", "worst")
    BINDINGS = [Binding("o", "open", "Read SKILL.md", id="open-skill", tooltip="The highlighted skill's SKILL.md")]

    def __init__(self, counter: TokenCounter, *, title: str, id: str) -> None:
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.counter = counter
        self.snapshot: ServerSnapshot | None = None
        self.review: Review | None = None
        self.worst: dict[str, str] = {}
        self.tokens: dict[int, int] = {}  # each listed skill's frontmatter tokens (`Costs`), by the skill's id

    def compose(self) -> ComposeResult:
        yield Grid(self.COLUMNS, flex="description", zebra_stripes=True, id="skills")
        yield Static(id="skill-detail")

    def show(self, snapshot: ServerSnapshot, costs: Costs, review: Review | None, worst: dict[str, str]) -> None:
        """The skills with their costs and worst findings (`worst_by_subject` of `review`, as the Tools tab's)."""
        self.snapshot, self.review = snapshot, review
        self.worst = worst
        figures, skills = costs.counted(self.counter.encoding), snapshot.skills.skills if snapshot.skills else []
        self.tokens = dict(zip(map(id, skills), figures.skills, strict=True)) if figures else {}
        self.query_one(Grid).show(snapshot.skills.skills if snapshot.skills else [], self.cells)
        self.show_skill()

    @property
    def snapshot_has_skills(self) -> bool:
        return self.snapshot is not None and self.snapshot.skills is not None

    def cells(self, skill: Skill) -> tuple[Cell, ...]:
        worst = self.worst.get(skill.key, "")
        return (
            Text(one_line(skill.key.removeprefix("skill://").removesuffix("/SKILL.md"), 40)),
            Text(one_line(skill.description, 60)),
            self.tokens.get(id(skill), 0),
            Text(worst, style=status_style(self.app, worst)) if worst else Text(""),
        )

    def empty(self) -> str:
        catalog = self.snapshot.skills if self.snapshot else None
        if catalog is None:
            return "the server does not declare the skills extension (io.modelcontextprotocol/skills)"
        return f"no skill listed{': ' + catalog.error if catalog.error else ''}"

    @on(Grid.RowHighlighted, "#skills")
    def show_skill(self) -> None:
        skill: Skill | None = self.query_one(Grid).current
        detail = Text()
        if skill is None:
            detail.append(self.empty(), style="dim")
        else:
            detail.append(f"{one_line(skill.key, 100)}  (enter: read SKILL.md)\n", style="bold")
            detail.append(visible(one_line(skill.description, 400)) + "\n")
            others = {k: v for k, v in skill.frontmatter.items() if k not in ("name", "description")}
            if others:
                detail.append(f"frontmatter: {visible(one_line(str(others), 200))}\n", style="dim")
            detail.append("findings\n", style="bold")
            for f in self.review.findings if self.review else []:
                if f.subject == skill.key:
                    detail.append(
                        f"{f.effective} {f.rule}: {one_line(f.message, 200)}\n",
                        style=status_style(self.app, f.effective),
                    )
            detail.append("files\n", style="bold")
            detail.append_text(self.manifest(skill))
        show_detail(self, "#skill-detail", detail)

    def manifest(self, skill: Skill) -> Text:
        if skill.dynamic:
            return Text('"dynamic": no manifest, the content can change at run time\n', style="yellow")
        out = Text()
        for entry in skill.files[:SHOWN_FILES]:
            out.append(f"{one_line(entry.uri, 70)}  {entry.size} bytes  {str(entry.digest)[:19]}…\n")
        more = len(skill.files) - SHOWN_FILES
        return out.append(f"and {more} more\n", style="dim") if more > 0 else out

    @on(Grid.RowSelected, "#skills")
    def action_open(self) -> None:
        skill: Skill | None = self.query_one(Grid).current
        if skill is not None and skill.uri:
            uri, digest = skill.uri, next((f for f in skill.files if f.uri == skill.uri), None)

            def render(result: Any) -> Text:
                read = Read(uri)
                take(read, result)
                out = Text(f"{one_line(uri, 100)}\n", style="bold")
                if read.data is None:
                    return out.append(read.error or "no contents", style="red")
                if digest is None:
                    out.append("not in its manifest: nothing to verify its bytes against\n", style="yellow")
                elif read.digest == digest.digest and len(read.data) == digest.size:
                    out.append(f"{len(read.data)} bytes, matching the manifest's digest\n", style="green")
                else:
                    out.append(f"{len(read.data)} bytes {read.digest}: NOT the manifest's digest\n", style="red")
                out.append(f"{self.counter.count_text(read.text or '')} {self.counter.encoding} tokens once loaded\n\n")
                return out.append(visible(read.text or "(binary)"))

            self.post_message(Fetch("resources/read", {"uri": uri}, render))
