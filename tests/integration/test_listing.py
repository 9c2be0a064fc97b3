"""`mcp-review list`'s tables, as a user sees them: every row lines up and server text stays text, whatever the
names (`tests/servers/names.py`: wide, zero-width, escapes, line breaks, a long one, a duplicate, none)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from itertools import takewhile

import pytest
from rich.cells import cell_len

from tests.support import fixture_argv

SGR = re.compile(r"\x1b\[[0-9;]*m")  # the only escapes the table may write: its own styles
BARS = set("┏┳┓┃┡╇┩│├┼┤└┴┘")
LONG = "long_" + "x" * 43 + "… [152 more characters]"  # one_line's cut at 48 characters
NAMES = [
    "_".join(["日本語のツール検索"] * 4),
    "\uff46\uff55\uff4c\uff4c_\uff57\uff49\uff44\uff54\uff48",
    "emoji_🔧_tool",
    "cafe\u0301_combining",
    "osc52_\\e]52;c;ZXZpbA==\\a_clipboard",
    "c1_csi_\\x9b31m_red",
    "bidi_<U+202E>exe.txt",
    "zero<U+200B>width<U+FEFF>",
    "line break tab",
    "[red]markup[/red]",
    LONG,
    "(no name)",
]


def listing(columns: int, terminal: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE")}
    env["COLUMNS"] = str(columns)
    if terminal:
        env["FORCE_COLOR"] = "1"  # rich then writes as to a terminal: styles, and the width it is given
    argv = [sys.executable, "-m", "mcp_review", "list", "--", *fixture_argv("names")]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


def tables(text: str) -> dict[str, list[str]]:
    """Each table's lines, from its top border to its bottom border, by title."""
    lines, found = text.splitlines(), {}
    for i, line in enumerate(lines):
        if line.startswith("┏"):
            end = next(j for j in range(i, len(lines)) if lines[j].startswith("└"))
            found[lines[i - 1]] = lines[i : end + 1]
    return found


def bars(line: str) -> list[int]:
    """The terminal cells where `line` draws a column's edge."""
    at, out = 0, []
    for ch in line:
        if ch in BARS:
            out.append(at)
        at += cell_len(ch)
    return out


def first_cells(rows: list[str], column: int) -> list[str]:
    return [row.split("│")[column].strip() for row in rows if row.startswith("│")]


def hidden(text: str) -> list[str]:
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf")]


def assert_aligned(table: list[str]) -> None:
    edges = bars(table[0])
    assert len(edges) > 2
    for line in table:
        assert bars(line) == edges, f"{line!r} is out of line with the top border"


def test_piped_rows_are_whole_aligned_and_plain():
    out = listing(80, terminal=False)  # a pipe is no terminal: nothing folded or cropped at 80 columns
    assert "\x1b" not in out and hidden(out) == []
    found = tables(out)
    assert set(found) == {"tools by token cost (cl100k_base)", "other primitives"}
    for table in found.values():
        assert_aligned(table)
    tools = found["tools by token cost (cl100k_base)"]
    names = first_cells(tools, 1)
    assert sorted(names[:-1]) == sorted([*NAMES, NAMES[0]]), "one line a tool, its name whole"
    assert names[-1] == "13 tools" and max(cell_len(line) for line in tools) > 80
    assert first_cells(found["other primitives"], 2) == [
        "file:///データ/\\e[2Jreport.txt",
        f"file:///{'d' * 62}… [58 more characters]",
    ]
    assert f"  ! {NAMES[0]}:" in out and "duplicate name (first at position 1)" in out  # wrapped at 80 columns
    assert "  ! (no name): no name" in out


@pytest.mark.parametrize("width", [100, 60])  # 60: even folded, the figures do not fit and are cropped
def test_terminal_rows_fold_to_its_width_in_line_with_problems_in_red(width):
    styled = listing(width, terminal=True)
    out = SGR.sub("", styled)
    assert "\x1b" not in out and hidden(out) == [], "no escape but the table's own styles"
    assert max(cell_len(line) for line in out.splitlines()) <= width
    found = tables(out)
    for table in found.values():
        assert_aligned(table)
    tools = found["tools by token cost (cl100k_base)"]
    rows = [row.split("│") for row in tools if row.startswith("│")]
    at = next(i for i, row in enumerate(rows) if row[1].strip().startswith("long_"))
    folded = [rows[at], *takewhile(lambda row: row[2].strip() == "", rows[at + 1 :])]
    pieces = "".join(row[1].strip() for row in folded)
    assert len(folded) > 1 and pieces.replace(" ", "") == LONG.replace(" ", ""), "folded under its first line"
    red = [re.findall(r"\x1b\[31m(.*?)\x1b\[0m", row) for row in styled.splitlines() if row.startswith("│")]
    assert "".join(part.strip() for parts in red for part in parts) == f"{NAMES[0]}(no name)", "problems in red"
