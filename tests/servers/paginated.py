"""25 tools, 10 per page, with opaque cursors; an invalid cursor gets -32602.

`--loop` (defect): page 2's nextCursor repeats page 1's nextCursor, so a naive client loops on page 2 forever.
"""

import sys

from rawserver import RawServer, RpcError, tool

TOOLS = [tool(f"get_item_{i:02d}", f"Get item {i}. Use when item {i} is needed.", {}, []) for i in range(25)]
CURSORS = {"cGFnZS0y": 10, "cGFnZS0z": 20}  # opaque: base64 of page-2 / page-3
LOOP = "--loop" in sys.argv


def list_tools(params: dict) -> dict:
    cursor = params.get("cursor")
    if cursor is not None and cursor not in CURSORS:
        raise RpcError(-32602, f"Invalid cursor: {cursor}")
    start = CURSORS.get(cursor, 0)
    result: dict = {"tools": TOOLS[start : start + 10]}
    if start + 10 < len(TOOLS):
        result["nextCursor"] = "cGFnZS0y" if LOOP and start == 10 else ("cGFnZS0y", "cGFnZS0z")[start // 10]
    return result


server = RawServer("paginated-server", {"tools": {}})
server.handlers["tools/list"] = list_tools

if __name__ == "__main__":
    server.run()
