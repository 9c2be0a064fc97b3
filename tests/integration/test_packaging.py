"""What `pip install` puts in site-packages: one package, `mcp_review`, and all of it.

The repository keeps the design card's folders (inspector/, checks/, themes/); pyproject.toml's package-dir maps
them into `mcp_review`. These tests build the real wheel and read its file list, and run the CLI from a folder
that holds look-alike `checks/`, `inspector/` and `themes/` packages, as a server's repository may.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"inspector": "mcp_review", "checks": "mcp_review/checks", "themes": "mcp_review/themes"}


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy: setuptools reuses a build/ folder it finds, which would hide a module left out.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    argv = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(out),
        str(source),
    ]
    subprocess.run(argv, check=True, capture_output=True, timeout=300)
    (wheel,) = out.glob("mcp_review-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_installs_one_top_level_package(wheel_names):
    top = {name.split("/", 1)[0] for name in wheel_names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"mcp_review"}


def test_the_wheel_holds_every_source_file_and_theme(wheel_names):
    """A folder left out of `packages`, or data left out of `package-data`, would ship without it."""
    wanted = set()
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*"):
            shipped = path.suffix in {".py", ".tcss"} or (path.is_file() and "data" in path.parts)
            if shipped and "__pycache__" not in path.parts:
                wanted.add(f"{package}/{path.relative_to(ROOT / folder).as_posix()}")
    assert wanted - wheel_names == set()


def test_a_servers_look_alike_folders_do_not_shadow_the_rules(tmp_path):
    """`python -m mcp_review` run inside a server's repository that has its own checks/ (and worse) folders."""
    for name in ("checks", "inspector", "themes"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("raise ImportError('the repository under review')\n")
    out = subprocess.run(
        [sys.executable, "-m", "mcp_review", "rules"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "review.error-channel-correct" in out.stdout
