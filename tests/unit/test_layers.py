"""The layers point one way, no two modules import each other, and the headless core never loads Textual or mcp.

The contracts live in pyproject.toml ([tool.importlinter]): the layers, and forbidden imports (the headless core
never imports Textual, the app or the mcp SDK; nothing but the packs imports a pack; packs never import the faces,
the runner or the reporters). `lint-imports` (import-linter) checks them from the import graph, so an upward or
forbidden import anywhere fails CI. The cycle test builds the same graph with grimp
(the library import-linter is built on) and lists every set of modules that import each other, through any chain.
The last test imports, in a fresh process, every module outside `inspector/tui/` (every rule pack included) and
looks at what got loaded.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import mcp_review

ROOT = Path(__file__).resolve().parents[2]

# grimp counts every import statement: at module level, inside functions (lazy ones, for start-up cost, too) and
# under `if TYPE_CHECKING:`; a type-only import is still a dependency a reader follows. Each printed group is a
# strongly connected component: every module in it reaches every other one.
CYCLES = """
import json, grimp
graph = grimp.build_graph("mcp_review", cache_dir=None)
groups, seen = [], set()
for module in sorted(graph.modules):
    if module not in seen:
        group = graph.find_upstream_modules(module) & graph.find_downstream_modules(module) | {module}
        seen |= group
        groups += [sorted(group)] if len(group) > 1 else []
print(json.dumps(groups))
"""


@pytest.mark.slow
def test_no_import_points_up_a_layer():
    """grimp walks the package's folders: the editable install's tree of links (setup.cfg) lays them out as the wheel
    does, so it reads `mcp_review` as installed."""
    lint = Path(sys.executable).parent / "lint-imports"
    out = subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "5 kept, 0 broken" in out.stdout


FACES = {"mcp_review.cli", "mcp_review.tui", "mcp_review.themes", "mcp_review.__main__"}


def test_the_headless_contracts_name_every_module_but_the_faces():
    """A forbidden contract lists its sources: a new top-level module must join them, or it would be unguarded."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    headless = [c for c in contracts if c["name"].startswith("the headless core never imports")]
    top = {f"mcp_review.{m.name}" for m in pkgutil.iter_modules(mcp_review.__path__)}
    assert len(headless) == 2 and all(set(c["source_modules"]) == top - FACES for c in headless)


def test_no_two_modules_import_each_other():
    out = subprocess.run([sys.executable, "-c", CYCLES], capture_output=True, text=True, cwd=ROOT, check=True)
    cycles = json.loads(out.stdout)
    assert cycles == [], "modules that import each other:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def headless_modules() -> list[str]:
    """Every module of the installed package (its rule packs among them) but the faces' and the demo server's."""
    left_out = ("mcp_review.tui", "mcp_review.themes", "mcp_review.demo")
    walked = pkgutil.walk_packages(mcp_review.__path__, "mcp_review.")
    return [i.name for i in walked if not i.name.startswith(left_out) and i.name != "mcp_review.__main__"]


@pytest.mark.slow
def test_the_headless_core_imports_neither_textual_nor_mcp():
    modules = headless_modules()
    assert "mcp_review.checks.review" in modules and "mcp_review.connection.http" in modules and len(modules) > 35
    code = f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n" + (
        "print(sorted(m for m in ('textual', 'mcp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stderr
