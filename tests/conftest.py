"""Shared fixtures and the suite's markers.

The third-party servers (installed by scripts/test-deps) are available to every test, and no test reads or writes
the developer's own mcp-review settings, trust records or saved reviews. Each test is marked with its kind, from
the folder it lives in (`pytest -m unit`, `-m "not thirdparty"`); `slow` marks what the one-minute loop
(`pytest -m "not slow"`) leaves to the full run, from the speed each test declares (`quick`, `slow`). Markers are
declared in pyproject.toml (--strict-markers).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.session import FOLDER
from tests.support import FORKSERVER, PYTHON
from tests.thirdparty import everything_http_url, everything_sse_url, git_repo

__all__ = ["everything_http_url", "everything_sse_url", "git_repo"]

HERE = Path(__file__).resolve().parent
KINDS = ("unit", "integration", "rules", "tui", "hostile", "thirdparty")
# The one-minute loop, `pytest -m "not slow"`: a test says its speed where it is written. Unit tests are quick unless
# marked `@pytest.mark.slow`; a test of any other kind (it starts servers or mcp-review) is slow unless marked
# `@pytest.mark.quick`, so a new one joins the full run (scripts/test, .ci/run), not the loop. Picked from
# `--durations` on the 2-core machine.
MADE = pytest.StashKey[str]()
FORKED = pytest.StashKey[subprocess.Popen[bytes]]()


def stale_install() -> str | None:
    """What is wrong with the editable install the tests import, if anything. It must be the tree of links setup.cfg
    asks for (the tests of the layers and the packaging read it), made after the last module was added: it links
    the files there were at install time."""
    import mcp_review

    tree = Path(mcp_review.__file__).parent
    if tree.resolve() == (HERE.parent / "inspector").resolve():
        return "it maps the folders with an import hook (an install from before setup.cfg, or a lenient one)"
    folders = tomllib.loads((HERE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    missing = []
    for package, folder in folders.items():
        inside = tree.joinpath(*package.split(".")[1:])
        for source in (HERE.parent / folder).rglob("*.py"):
            if not inside.joinpath(source.relative_to(HERE.parent / folder)).exists():
                missing.append(str(source.relative_to(HERE.parent)))
    return f"it does not have {', '.join(sorted(missing)[:5])}{' ...' * (len(missing) > 5)}" if missing else None


def pytest_configure(config: pytest.Config) -> None:
    """The controlling process makes the session's shared folder (tests/session.py) and starts the fork server
    the fixture servers start from (tests/forkserver.py); xdist workers inherit both through the environment. It
    first stops a run whose editable install misses a module (one line: how to make it anew)."""
    if not hasattr(config, "workerinput") and (problem := stale_install()):
        raise pytest.UsageError(
            f"the editable install is stale: {problem}: run `.venv/bin/pip install -q -e '.[test]'`"
        )
    if not hasattr(config, "workerinput") and FOLDER not in os.environ:
        os.environ[FOLDER] = config.stash[MADE] = tempfile.mkdtemp(prefix="mcp-review-session-")
        # not in the session folder: its path is an environment value named ..._SESSION, which mcp-review masks
        socket_path = os.path.join(tempfile.mkdtemp(prefix="mcp-review-forkserver-"), "socket")
        forkserver = subprocess.Popen(
            [PYTHON, str(HERE / "forkserver.py"), "--serve", socket_path], stdin=subprocess.DEVNULL
        )
        config.stash[FORKED] = forkserver
        os.environ[FORKSERVER] = socket_path  # a client that finds no socket yet runs its script itself


def pytest_unconfigure(config: pytest.Config) -> None:
    if FORKED in config.stash:
        config.stash[FORKED].kill()
        config.stash[FORKED].wait()
        shutil.rmtree(os.path.dirname(os.environ.pop(FORKSERVER)), ignore_errors=True)
    if MADE in config.stash:
        shutil.rmtree(config.stash[MADE], ignore_errors=True)
        os.environ.pop(FOLDER, None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its kind (its folder under tests/), and `slow` unless its speed says quick."""
    for item in items:
        file = item.path.resolve().relative_to(HERE)
        kind = file.parts[0]
        if kind not in KINDS:
            raise pytest.UsageError(
                f"{item.nodeid}: move it (git mv) into its kind's folder, tests/{{{','.join(KINDS)}}}/"
            )
        item.add_marker(kind)
        quick, slow = item.get_closest_marker("quick"), item.get_closest_marker("slow")
        if quick and slow:
            raise pytest.UsageError(f"{item.nodeid}: marked both quick and slow")
        if not quick and not slow and kind != "unit":
            item.add_marker("slow")
    items[:] = spread(items, lambda item: getattr(item, "originalname", "") == SPREAD)


# The hostile corpus's cases: independent, and long (each runs four processes for seconds). In file order they sat
# in one worker's share of the run (xdist's worksteal splits it in contiguous parts), which ran them one after
# another while the other workers took them over only at the end: the last 40 s ran one or two at a time.
SPREAD = "test_hostile_server_breaks_nothing"


def spread(items: list[pytest.Item], chosen: Callable[[pytest.Item], bool]) -> list[pytest.Item]:
    """`items` with the chosen ones spread evenly through the others, each placed where one module's tests end
    (a test of another module between two of one module's would set its module's fixtures up twice)."""
    moved = [item for item in items if chosen(item)]
    rest = [item for item in items if not chosen(item)]
    if not moved or not rest:
        return items
    out: list[pytest.Item] = []
    placed, step = 0, len(rest) / len(moved)  # moved test k is due before rest[k * step]
    for index, item in enumerate(rest):
        if index and getattr(item, "module", None) is not getattr(rest[index - 1], "module", None):
            while placed < len(moved) and placed * step <= index:  # a boundary: every one due by now
                out.append(moved[placed])
                placed += 1
        out.append(item)
    return out + moved[placed:]


@pytest.fixture(autouse=True)
def _own_settings(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MCP_REVIEW_CONFIG_DIR", str(tmp_path_factory.mktemp("settings")))
    monkeypatch.setenv("MCP_REVIEW_STATE_DIR", str(tmp_path_factory.mktemp("state")))
