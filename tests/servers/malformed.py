"""Defects: a tools/list with a tool missing its name, a string inputSchema, a numeric description,
a duplicate name and a non-object item; a prompt without a name."""

from rawserver import RawServer, tool

GOOD = tool(
    "lookup_word",
    "Look up a word in the dictionary. Use when a definition is needed.",
    {"word": {"type": "string"}},
    ["word"],
)
TOOLS = [
    GOOD,
    {"description": "A tool without a name", "inputSchema": {"type": "object"}},
    {"name": "stringly_typed", "description": "Its inputSchema is a string", "inputSchema": "object"},
    {"name": "numeric_description", "description": 42, "inputSchema": {"type": "object"}},
    dict(GOOD),
    "oops",
]
PROMPTS = [{"name": "define", "description": "Define a word"}, {"description": "A prompt without a name"}]

server = RawServer("malformed-server", {"tools": {}, "prompts": {}})
server.handlers["tools/list"] = lambda _p: {"tools": TOOLS}
server.handlers["prompts/list"] = lambda _p: {"prompts": PROMPTS}

if __name__ == "__main__":
    server.run()
