"""Lay out `mcp_review` as the wheel does, as a tree of symlinks, for tools that walk folders.

The editable install maps `mcp_review` to inspector/, `mcp_review.checks` to checks/ and `mcp_review.themes` to
themes/ through an import hook (pyproject.toml, [tool.setuptools] package-dir). mypy and import-linter find
packages by walking folders, so they cannot follow that hook; they read this tree instead. Each entry links into
the repository, so they report and see the files themselves.

    python scripts/linktree.py [DEST]   # prints DEST (default .build/linktree), which then holds mcp_review/
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build(dest: Path) -> Path:
    """Make `dest/mcp_review/` afresh and return `dest`, the folder to put on the module search path."""
    package = dest / "mcp_review"
    shutil.rmtree(dest, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in (ROOT / "inspector").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name in ("checks", "themes"):
        (package / name).symlink_to(ROOT / name)
    return dest


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build" / "linktree"))
