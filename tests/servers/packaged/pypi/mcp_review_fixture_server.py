"""A tiny MCP server over stdio (JSON lines), as a PyPI wheel ships one: one read-only tool, `echo`."""

import json
import sys

TOOL = {
    "name": "echo",
    "description": "Echo the text back. Use to check the server answers.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string", "maxLength": 200}},
        "required": ["text"],
    },
    "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
}


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue
        method, reply = message["method"], {"jsonrpc": "2.0", "id": message["id"]}
        if method == "initialize":
            info = {"name": "fixture-pypi", "version": "1.0.0"}
            reply["result"] = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
        elif method == "tools/list":
            reply["result"] = {"tools": [TOOL]}
        elif method == "tools/call":
            text = str((message.get("params", {}).get("arguments") or {}).get("text", ""))
            reply["result"] = {"content": [{"type": "text", "text": text}], "isError": False}
        elif method == "ping":
            reply["result"] = {}
        else:
            reply["error"] = {"code": -32601, "message": "Method not found"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
