"""The layers point one way, and the headless core never loads Textual or the mcp SDK.

The layer contract lives in pyproject.toml ([tool.importlinter]); `lint-imports` (import-linter) checks it
from the import graph, so an upward import anywhere fails CI. The second test imports, in a fresh process,
every module outside `inspector/tui/` (every rule pack included) and looks at what got loaded.
"""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import mcp_review
import mcp_review.checks

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import linktree  # noqa: E402  (scripts/ is not a package)


def test_no_import_points_up_a_layer(tmp_path):
    lint = Path(sys.executable).parent / "lint-imports"
    # grimp walks folders and cannot follow the editable install's import hook: give it the wheel's layout.
    env = {**os.environ, "PYTHONPATH": str(linktree.build(tmp_path / "tree"))}
    out = subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "1 kept, 0 broken" in out.stdout


def headless_modules() -> list[str]:
    found = []
    for package in (mcp_review, mcp_review.checks):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not info.name.startswith(("mcp_review.tui", "mcp_review.demo")) and info.name != "mcp_review.__main__":
                found.append(info.name)
    return found


def test_the_headless_core_imports_neither_textual_nor_mcp():
    modules = headless_modules()
    assert "mcp_review.checks.review" in modules and "mcp_review.connection.http" in modules and len(modules) > 35
    code = f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n" + (
        "print(sorted(m for m in ('textual', 'mcp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stderr
