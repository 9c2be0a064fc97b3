"""Sinks behind names that say nothing of them: `python sinks.py vulnerable|hardened` (stdio, `--http`, `--sse`).

Carriers chosen by effect (issue 37): each tool takes strings whose names say nothing of a path, a URL or a command,
and the vulnerable twin passes them to one anyway:
- `open_document(document_name)` opens the name as a file under its library (joined as text: `..` climbs out);
- `read_documents(names)` the same for each name of a list;
- `apply_config(config_json)` parses a JSON object and runs its 'hook' in a shell;
- `update_settings(key, value)` stores a setting, and runs the value of `backup_command` in a shell;
- `calculate(expression)` computes with Python's `eval` (no builtins: a "sandbox" that still evaluates any
  expression, strings included).
The hardened twin resolves names inside its library and refuses the rest, stores the configuration and settings,
computes only arithmetic (parsed, never evaluated: it refuses anything else, quoting it), and runs nothing; both echo what they stored, so the payload comes back as text. No annotations beyond read-only
for the readers: by MCP's defaults the others need `--calls all`. Kept harmless: the library is a temporary
directory removed at exit; the shell only runs what a probe sends (printf).
"""

from __future__ import annotations

import ast
import atexit
import json
import operator
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field
from serve import serve

VULNERABLE = "vulnerable" in sys.argv[1:]
LIBRARY = Path(tempfile.mkdtemp(prefix="mcp-review-sinks-"))
(LIBRARY / "welcome.txt").write_text("welcome to the library\n", encoding="utf-8")
atexit.register(shutil.rmtree, LIBRARY, True)
READS = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
SETTINGS: dict[str, str] = {"theme": "light"}

mcp = MCPServer(f"sinks-{'vulnerable' if VULNERABLE else 'hardened'}", version="1.0.0", log_level="WARNING")


def _document(name: str) -> str:
    if VULNERABLE:
        target = Path(f"{LIBRARY}/{name}")  # defect: joined as text
    else:
        target = (LIBRARY / name).resolve()
        if not target.is_relative_to(LIBRARY.resolve()):
            raise ToolError(f"refused: {name!r} is not a document of the library")
    try:
        return target.read_text(encoding="utf-8")[:2000]
    except OSError as e:
        raise ToolError(f"cannot open {name!r}: {e.strerror}") from e


@mcp.tool(title="Open document", annotations=READS)
def open_document(document_name: Annotated[str, Field(description="The document's name, e.g. welcome.txt")]) -> str:
    """Show a document of the library. Use when the user names a document."""
    return _document(document_name)


@mcp.tool(title="Read documents", annotations=READS)
def read_documents(names: list[str]) -> str:
    """Show several documents of the library at once. Use when the user names more than one."""
    return "\n---\n".join(_document(name) for name in names[:5])


def _shell(command: str) -> str:
    done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=5)  # defect: a shell
    return done.stdout[:2000]


@mcp.tool(title="Apply configuration")
def apply_config(
    config_json: Annotated[str, Field(description="The configuration, a JSON object; its 'hook' runs once applied")],
) -> str:
    """Apply a configuration to the workspace. Use when the user pastes one."""
    try:
        config = json.loads(config_json)
    except ValueError as e:
        raise ToolError(f"not JSON: {e}") from e
    if not isinstance(config, dict):
        raise ToolError("the configuration must be a JSON object")
    ran = _shell(str(config.get("hook", "true"))) if VULNERABLE else ""
    return f"applied {json.dumps(config)}" + (f"; hook said: {ran}" if ran else "")


@mcp.tool(title="Update settings")
def update_settings(
    key: Annotated[str, Field(description="The setting to change (theme, language, backup_command)")],
    value: str,
) -> str:
    """Change one setting of the workspace. Use when the user asks for another theme or language."""
    if key not in ("theme", "language", "backup_command"):
        raise ToolError(f"unknown setting {key!r}")
    SETTINGS[key] = value
    ran = _shell(value) if VULNERABLE and key == "backup_command" else ""
    return f"{key} = {value!r}" + (f"; backup said: {ran}" if ran else "")


ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _arithmetic(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
        return ARITHMETIC[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    raise ValueError("not arithmetic")


@mcp.tool(title="Calculate", annotations=READS)
def calculate(expression: Annotated[str, Field(description="An arithmetic expression, e.g. 2+3")]) -> str:
    """Compute an arithmetic expression. Use when the user asks for a sum or a product."""
    try:
        if VULNERABLE:
            return str(eval(expression, {"__builtins__": {}}))  # defect: any expression is evaluated
        return str(_arithmetic(ast.parse(expression, mode="eval").body))
    except (ValueError, SyntaxError, TypeError, NameError, ZeroDivisionError, AttributeError) as e:
        raise ToolError(f"cannot compute {expression!r}: {e}") from e


if __name__ == "__main__":
    serve(mcp)
