"""What `pip install` puts in site-packages: one package, `mcp_review`, and all of it.

The repository keeps the design card's folders (inspector/, checks/, themes/); pyproject.toml's package-dir maps
them into `mcp_review`. These tests build the real wheel (once) and read its file list, install it into a fresh
venv and review a fixture server from there with no network, and run the CLI from a folder that holds look-alike
`checks/`, `inspector/` and `themes/` packages, as a server's repository may.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import jsonschema
import pytest

from mcp_review import __version__
from mcp_review.review import EXIT_CODES
from tests.support import fixture_argv

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"inspector": "mcp_review", "checks": "mcp_review/checks", "themes": "mcp_review/themes"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
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
    (built,) = out.glob("mcp_review-*.whl")
    return built


@pytest.fixture(scope="module")
def wheel_names(wheel: Path) -> set[str]:
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


def test_the_wheel_carries_the_version_from_its_one_source(wheel, wheel_names):
    assert wheel.name.startswith(f"mcp_review-{__version__}-")
    (meta,) = [n for n in wheel_names if n.endswith(".dist-info/METADATA")]
    with zipfile.ZipFile(wheel) as archive:
        assert f"\nVersion: {__version__}\n" in archive.read(meta).decode()


def test_the_wheel_installed_in_a_fresh_venv_reviews_a_server_offline(wheel, tmp_path):
    """The wheel alone in a new venv (its dependencies seen through a .pth: this test runs offline), no network
    (proxies that refuse, an empty tiktoken cache, a new HOME): the encodings, schemas and data it needs ship in it."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True
    ).stdout.strip()
    deps = Path(jsonschema.__file__).resolve().parents[1]  # where this interpreter finds the dependencies
    Path(site, "dependencies.pth").write_text(f"{deps}\n")
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)]
    subprocess.run(pip, check=True, capture_output=True, timeout=300)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
        "HOME": str(home),
        "TIKTOKEN_CACHE_DIR": str(home / "tiktoken"),
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "MCP_REVIEW_STATE_DIR": str(home / "state"),
    }
    version = subprocess.run(["mcp-review", "--version"], env=env, capture_output=True, text=True, cwd=home, timeout=60)
    assert version.stdout.strip() == f"mcp-review {__version__}", version.stderr
    where = subprocess.run(
        [python, "-c", "import mcp_review; print(mcp_review.__file__)"], env=env, capture_output=True, text=True
    )
    assert where.stdout.startswith(site), "the wheel's copy, not the repository's"
    out = home / "review.json"
    argv = [
        "mcp-review",
        "check",
        "--format",
        "json",
        "--out",
        str(out),
        "-q",
        "--",
        *fixture_argv("profiled", "exemplary"),
    ]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=home, timeout=180)
    review = json.loads(out.read_text())
    assert done.returncode == EXIT_CODES[review["verdict"]] and review["counts"].get("fail", 0) == 0, done.stderr
    assert review["tool"]["version"] == __version__
    assert review["tokens"]["total"] > 0, "the encodings ship in the wheel"
    sarif = subprocess.run(
        [*argv[:3], "sarif", *argv[6:]], env=env, capture_output=True, text=True, cwd=home, timeout=180
    )
    assert json.loads(sarif.stdout)["runs"][0]["tool"]["driver"]["version"] == __version__
    assert not (home / "tiktoken").exists() or not any((home / "tiktoken").iterdir()), "nothing was downloaded"


@pytest.mark.quick
def test_the_editable_install_is_a_folder_that_static_tools_follow():
    """Type checkers and editors (mypy, Pyright, Pylance, import-linter) run no import hook: they follow a .pth's
    plain paths and walk folders. `pip install -e .` (setup.cfg) gives them `mcp_review` laid out as the wheel lays
    it out, py.typed included, each file a link to the repository's."""
    site = Path(sysconfig.get_paths()["purelib"])
    lines = [line for pth in site.glob("__editable__.mcp_review-*.pth") for line in pth.read_text().splitlines()]
    (tree,) = [Path(line) / "mcp_review" for line in lines if (Path(line) / "mcp_review" / "__init__.py").is_file()]
    for folder, package in FOLDERS.items():
        inside = tree / Path(package).relative_to("mcp_review")
        assert (inside / "__init__.py").resolve() == (ROOT / folder / "__init__.py").resolve()
    assert (tree / "py.typed").is_file() and (tree / "checks" / "review" / "probes.py").is_file()


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
