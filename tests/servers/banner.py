"""Defect: writes a banner and debug lines on stdout (stdio servers MUST write only JSON-RPC there)."""

from rawserver import RawServer, text_result, tool

TOOLS = [
    tool(
        "echo_text",
        "Echo the given text back. Use when testing the connection.",
        {"text": {"type": "string"}},
        ["text"],
    ),
    tool("get_time", "Get the server's current time. Use when a timestamp is needed.", {}, []),
]


def list_tools(_params: dict) -> dict:
    server.write_line("debug: listing tools")
    return {"tools": TOOLS}


server = RawServer("banner-server", {"tools": {}})
server.handlers["tools/list"] = list_tools
server.handlers["tools/call"] = lambda p: text_result(str((p.get("arguments") or {}).get("text", "12:00")))

if __name__ == "__main__":
    server.write_line("Starting banner-server v1 ... ready")
    server.run()
