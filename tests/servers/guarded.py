"""Refusals that prove nothing, and the twin that acts: `python guarded.py refuses|plain|acts` (stdio, `--http`).

Proof by effect, never by a refusal (issue 37). The same six tools, no annotations (destructive and open-world by
MCP's defaults, so only `--calls all` calls them):
- `write_file(path, content)` writes under the server's root; `refuses` and `plain` refuse any path outside it
  ("Access denied - path outside allowed directories: /abs/path"), `acts` joins the path as text and writes there;
- `delete_note(note_id)` deletes a note (n1, n2); an unknown id is refused, except by `acts`, which deletes anything;
- `send_email(to, subject, body)`: `refuses` and `plain` answer as a guard does ("refused: send_email is
  unavailable after untrusted content was read"), `acts` sends (to nobody: nothing leaves the process);
- `get_setting(key)` looks a setting up and echoes an unknown key back ("no setting named 'KEY'"): a lookup key,
  no secret;
- `render(format, text)` renders text as `plain` or `upper`, and answers "Unknown format 'X'" to any other;
- `unlock(passphrase)`: a wrong passphrase is refused; `acts` echoes it in the refusal (review.secrets-not-echoed).
`refuses` refuses with `isError: true`; `plain` says the same in plain text, without `isError`, as many servers do;
`acts` does what it is asked, without asking. The root is a temporary directory removed at exit.
"""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from serve import serve

MODE = next((a for a in sys.argv[1:] if a in ("refuses", "plain", "acts")), "refuses")
ROOT = Path(tempfile.mkdtemp(prefix="mcp-review-guarded-")).resolve()
atexit.register(shutil.rmtree, ROOT, True)
NOTES = {"n1": "first note", "n2": "second note"}
SETTINGS = {"theme": "light"}

mcp = MCPServer(f"guarded-{MODE}", version="1.0.0", log_level="WARNING")


def refuse(said: str) -> str:
    """A refusal: `isError` (refuses), plain text (plain); `acts` never gets here."""
    if MODE == "plain":
        return f"Error: {said}"
    raise ToolError(said)


@mcp.tool()
def write_file(path: str, content: str) -> str:
    """Write text to a file in the workspace, replacing it. Use when the user asks to save a file."""
    if MODE == "acts":
        target = Path(f"{ROOT}/{path}")  # defect: joined as text, written wherever `..` leads
    else:
        target = (ROOT / path).resolve()
        if not target.is_relative_to(ROOT):
            return refuse(f"Access denied - path outside allowed directories: {target}")
    try:
        target.write_text(content, encoding="utf-8")
    except OSError as e:
        return refuse(f"cannot write {path}: {e.strerror}")
    return f"wrote {len(content)} characters"


@mcp.tool()
def delete_note(note_id: str) -> str:
    """Delete a note, e.g. 'n1'. Use when the user asks to remove one."""
    if MODE == "acts":
        NOTES.pop(note_id, None)  # defect: deletes without asking
        return f"deleted {note_id}"
    if note_id not in NOTES:
        return refuse(f"no note {note_id!r}")
    del NOTES[note_id]
    return f"deleted {note_id}"


@mcp.tool()
def send_email(to: str, subject: str, body: str) -> str:
    """Send an email. Use when the user asks to write to someone."""
    if MODE == "acts":
        return f"sent to {len(to)} recipient characters"  # defect: sent without asking (to nobody: a fixture)
    return refuse("refused: send_email is unavailable after untrusted content was read")


@mcp.tool()
def get_setting(key: str) -> str:
    """Show one setting of the workspace. Use when the user asks how something is set."""
    if key not in SETTINGS:
        return f"no setting named {key!r}"
    return f"{key} = {SETTINGS[key]}"


@mcp.tool()
def render(format: str, text: str) -> str:
    """Render a text as 'plain' or 'upper'. Use to preview a text."""
    if format not in ("plain", "upper"):
        return f"Unknown format {format!r}"
    return text.upper() if format == "upper" else text


@mcp.tool()
def unlock(passphrase: str) -> str:
    """Unlock the workspace with its passphrase. Use when the user gives it."""
    if MODE == "acts":
        raise ToolError(f"wrong passphrase {passphrase!r}")  # defect: the secret in the error
    return refuse("wrong passphrase")


if __name__ == "__main__":
    serve(mcp)
