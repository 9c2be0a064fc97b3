"""Names that test a listing's columns: wide, zero-width, escapes, line breaks, a long one, a duplicate, none."""

from rawserver import RawServer, tool

NAMES = [
    "_".join(["日本語のツール検索"] * 4),  # two cells a character: the widest name, 75 cells in 39 characters
    "\uff46\uff55\uff4c\uff4c_\uff57\uff49\uff44\uff54\uff48",  # fullwidth letters
    "emoji_🔧_tool",
    "cafe\u0301_combining",  # a combining accent takes no cell
    "osc52_\x1b]52;c;ZXZpbA==\x07_clipboard",
    "c1_csi_\x9b31m_red",
    "bidi_\u202eexe.txt",
    "zero\u200bwidth\ufeff",
    "line\nbreak\ttab",
    "[red]markup[/red]",
    "long_" + "x" * 195,  # clipped to 48 characters and a note of how many more
    "_".join(["日本語のツール検索"] * 4),  # a duplicate name: a problem, shown in red
]
TOOLS = [tool(name, f"Tool {i}.", {"q": {"type": "string"}}) for i, name in enumerate(NAMES)]
TOOLS.append({"description": "A tool with no name.", "inputSchema": {"type": "object"}})
RESOURCES = [
    {"uri": "file:///データ/\x1b[2Jreport.txt", "name": "データ"},
    {"uri": "file:///" + "d" * 120, "name": "deep"},
]

server = RawServer("names-server", {"tools": {}, "resources": {}})
server.handlers["tools/list"] = lambda _p: {"tools": TOOLS}
server.handlers["resources/list"] = lambda _p: {"resources": RESOURCES}
server.handlers["resources/templates/list"] = lambda _p: {"resourceTemplates": []}

if __name__ == "__main__":
    server.run()
