"""A file-writing server for the path and code probes: `python writer.py naive|confined [--root DIR]` (stdio).

Five tools with no annotations (by MCP's defaults: destructive and open-world, so only `--calls all` calls them):
write_file(path, content), list_directory(path), move_file(source, destination), delete_file(path),
run_code(code). `naive` joins paths as text (`f"{root}/{path}"`, so `..` climbs out), writes, moves and deletes
wherever that leads, and runs code with `exec`; `confined` resolves every path and refuses one outside its root,
and refuses to run code. The root is `--root DIR` (default: a temporary directory removed at exit).

This is the deliberately vulnerable writer of issue 20: run it only where what it can reach is watched
(tests/integration/test_probes_safety.py runs it in a mount namespace whose only writable directory is a scratch tree).
"""

from __future__ import annotations

import atexit
import contextlib
import io
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from serve import serve

NAIVE = "naive" in sys.argv[1:]
ARGS = sys.argv[1:]
if "--root" in ARGS:
    ROOT = Path(ARGS[ARGS.index("--root") + 1])
else:
    ROOT = Path(tempfile.mkdtemp(prefix="mcp-review-writer-"))
    atexit.register(shutil.rmtree, ROOT, True)

mcp = MCPServer(f"writer-{'naive' if NAIVE else 'confined'}", version="1.0.0", log_level="WARNING")


def place(path: str) -> Path:
    """Where `path` lands under the root: joined as text (naive) or resolved and kept inside (confined)."""
    if NAIVE:
        return Path(f"{ROOT}/{path}")  # defect: `..` climbs out of the root
    target = (ROOT / path).resolve()
    if not target.is_relative_to(ROOT.resolve()):
        raise ToolError(f"refused: {path!r} is outside the workspace")
    return target


def attempt(action: str, run: Callable[[], str]) -> str:
    """`run()`, with an OS error turned into a tool error that says what the system answered, and for which path."""
    try:
        return run()
    except OSError as e:
        raise ToolError(f"{action} failed: [Errno {e.errno}] {e.strerror}: '{e.filename}'") from e


@mcp.tool()
def write_file(path: str, content: str) -> str:
    """Write text to a file in the workspace, replacing it. Use when the user asks to save a file."""
    target = place(path)
    return attempt("write", lambda: f"wrote {target.write_text(content, encoding='utf-8')} bytes")


@mcp.tool()
def list_directory(path: str) -> str:
    """List the entries of a directory in the workspace. Use when the user asks what a folder holds."""
    target = place(path)
    return attempt("list", lambda: "\n".join(sorted(p.name for p in target.iterdir())) or "(empty)")


@mcp.tool()
def move_file(source: str, destination: str) -> str:
    """Move or rename a file in the workspace. Use when the user asks to move a file."""
    old, new = place(source), place(destination)
    return attempt("move", lambda: f"moved to {shutil.move(old, new)}")


@mcp.tool()
def delete_file(path: str) -> str:
    """Delete a file from the workspace. Use when the user asks to remove a file."""
    target = place(path)
    return attempt("delete", lambda: f"deleted {target.unlink() or path}")


@mcp.tool()
def run_code(code: str) -> str:
    """Run a Python snippet and return what it printed. Use when the user asks to compute something."""
    if not NAIVE:
        raise ToolError("refused: this server does not run code")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(code, {})  # defect: runs whatever it is handed
        except Exception as e:
            raise ToolError(f"error: {type(e).__name__}: {e}") from e
    return out.getvalue()[:4096]


if __name__ == "__main__":
    serve(mcp)
