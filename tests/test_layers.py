"""The layers point one way, and the headless core never loads Textual or the mcp SDK.

The layer contract lives in pyproject.toml ([tool.importlinter]); `lint-imports` (import-linter) checks it
from the import graph, so an upward import anywhere fails CI. The second test imports, in a fresh process,
every module outside `inspector/tui/` (every rule pack included) and looks at what got loaded.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import checks
import inspector

ROOT = Path(__file__).resolve().parent.parent


def test_no_import_points_up_a_layer():
    lint = Path(sys.executable).parent / "lint-imports"
    out = subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "1 kept, 0 broken" in out.stdout


def headless_modules() -> list[str]:
    found = []
    for package in (inspector, checks):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not info.name.startswith(("inspector.tui", "inspector.demo")) and info.name != "inspector.__main__":
                found.append(info.name)
    return found


def test_the_headless_core_imports_neither_textual_nor_mcp():
    modules = headless_modules()
    assert "checks.review" in modules and "inspector.connection.http" in modules and len(modules) > 35
    code = f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n" + (
        "print(sorted(m for m in ('textual', 'mcp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stderr
