"""Review a package before installing it: `npm:NAME@VERSION` and `pypi:NAME==VERSION` targets (issue 38).

The package is installed into mcp-review's own cache (`trust.cache_dir() / "packages"`), one folder per package and
version, never into the reviewer's environment, and then run confined and observed as any stdio server is
(`mcp_review.sandbox`). Fetching needs the registry (the one the reviewer's npm or pip is configured with:
`npm_config_registry`, `PIP_INDEX_URL`...); nothing the package wrote runs while it is fetched:

- npm: `npm install --ignore-scripts` into the folder, then its install scripts (`npm rebuild --foreground-scripts`:
  preinstall, install, postinstall) run confined, with no network and only that folder writable, and observed
  when the review observes (what they did is said in the review: `Package.scripts`);
- PyPI: `pip download --only-binary :all:` (wheels: a wheel's install runs no code of the package; a package that
  ships only a source distribution, whose build would run its code, is refused in one line), then a venv of its
  own in the folder, installed from those files alone (`--no-index`).

The review names the package, its version and the digest of what was installed (npm's integrity of the tarball,
sha256 of each wheel). `npx -y PKG` and `uvx PKG` commands are reviewed the same way: the package is installed
first, then its program runs confined (`from_command`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_review import trust

NPM = re.compile(r"^npm:(?P<name>(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)(?:@(?P<version>[\w.+-]+))?$", re.I)
PYPI = re.compile(r"^pypi:(?P<name>[A-Za-z0-9][\w.-]*)(?:==(?P<version>[\w.+!-]+))?$")
FETCH_SECONDS = 600  # a download the registry never finishes


class PackageError(Exception):
    """The package cannot be installed as asked: one line says why."""


@dataclass(frozen=True)
class Spec:
    registry: str  # "npm" or "pypi"
    name: str
    version: str | None  # None: the latest

    def __str__(self) -> str:
        sep = "@" if self.registry == "npm" else "=="
        return f"{self.registry}:{self.name}" + (f"{sep}{self.version}" if self.version else "")


@dataclass(frozen=True)
class Package:
    """A package installed for review: what it is, where, the program it runs, and what its install scripts did."""

    spec: Spec
    version: str
    digests: tuple[tuple[str, str], ...]  # (file or package, digest) of what was installed
    folder: str
    command: str
    scripts: dict[str, Any] = field(default_factory=dict)  # npm: how its install scripts ran, and what they did

    def public(self) -> dict[str, Any]:
        out: dict[str, Any] = {"registry": self.spec.registry, "name": self.spec.name, "version": self.version}
        out |= {"digests": [{"of": of, "digest": d} for of, d in self.digests], "folder": self.folder}
        return out | ({"installScripts": self.scripts} if self.scripts else {})


def parse(text: str) -> Spec | None:
    """The package a target names (`npm:NAME@VERSION`, `pypi:NAME==VERSION`), or None."""
    if found := NPM.match(text):
        return Spec("npm", found["name"], found["version"])
    if found := PYPI.match(text):
        return Spec("pypi", found["name"], found["version"])
    return None


def from_command(argv: list[str]) -> tuple[Spec, list[str]] | None:
    """(the package, the arguments of its program) of a command that fetches its package when it starts: `npx -y
    PKG[@V] ARGS` (or `--yes`), `uvx PKG[==V] ARGS`; None for any other command."""
    if not argv:
        return None
    program, rest = os.path.basename(argv[0]), argv[1:]
    if program == "npx":
        first = next((i for i, a in enumerate(rest) if not a.startswith("-")), None)
        options = set(rest[:first])
        if first is None or not {"-y", "--yes"} & options or options - {"-y", "--yes"}:
            return None  # without --yes npx would ask; with other options of its own it is not this simple form
        package = rest[first]
        at = package.rfind("@")
        name, version = (package[:at], package[at + 1 :]) if at > 0 else (package, None)
        return Spec("npm", name, version), rest[first + 1 :]
    if program == "uvx" and rest and not rest[0].startswith("-"):
        name, _, version = rest[0].partition("==")
        if "@" in name:
            name, _, version = name.partition("@")
        return Spec("pypi", name, version or None), rest[1:]
    return None


def named(argv: list[str]) -> tuple[Spec, list[str]] | None:
    """(the package, the arguments of its program) a server's command line names: a package target
    (`npm:NAME@VERSION ARGS`, `pypi:NAME==VERSION ARGS`) or a command that fetches its package (`from_command`)."""
    spec = parse(argv[0]) if argv else None
    return (spec, argv[1:]) if spec is not None else from_command(argv)


def install(spec: Spec) -> Package:
    """`spec` installed into the cache (reused when that version is there already)."""
    cache = trust.cache_dir() / "packages" / spec.registry
    cache.mkdir(parents=True, exist_ok=True)
    return _npm(spec, cache) if spec.registry == "npm" else _pypi(spec, cache)


def _run(argv: list[str], what: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=FETCH_SECONDS, cwd=cwd, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise PackageError(f"{what}: {e}") from e
    if done.returncode != 0:
        said = done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or [f"exit {done.returncode}"]
        raise PackageError(f"{what} failed: {said[-1][:300]}")
    return done


# ----------------------------------------------------------------------------------------------------- npm
def _npm(spec: Spec, cache: Path) -> Package:
    npm = shutil.which("npm")
    if npm is None:
        raise PackageError("npm is not installed: it fetches npm packages")
    version = spec.version
    if version is None or not re.match(r"^\d", version):  # latest, a tag: the version it names now
        shown = _run([npm, "view", f"{spec.name}@{version or 'latest'}", "version", "--json"], f"npm view {spec}")
        version = str(json.loads(shown.stdout or '""')).strip('"') or version
    folder = cache / f"{spec.name.replace('/', '+')}@{version}"
    manifest = folder / "node_modules" / spec.name / "package.json"
    scripts: dict[str, Any] = {}
    if not manifest.is_file():
        incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=cache))
        try:
            fetch = [npm, "install", "--prefix", str(incoming), "--ignore-scripts", "--no-audit", "--no-fund"]
            _run([*fetch, "--loglevel=error", f"{spec.name}@{version}"], f"npm install {spec.name}@{version}")
            scripts = run_scripts([npm, "rebuild", "--foreground-scripts", "--prefix", str(incoming)], incoming)
            if not scripts.get("ran"):
                raise PackageError(f"its install scripts cannot run confined here ({scripts['why']}): not installed")
            (incoming / ".mcp-review-scripts.json").write_text(json.dumps(scripts), encoding="utf-8")
            os.replace(incoming, folder)
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
    saved = folder / ".mcp-review-scripts.json"
    scripts = json.loads(saved.read_text(encoding="utf-8")) if saved.is_file() else scripts
    meta = json.loads(manifest.read_text(encoding="utf-8"))
    lock = json.loads((folder / "package-lock.json").read_text(encoding="utf-8"))
    integrity = lock.get("packages", {}).get(f"node_modules/{spec.name}", {}).get("integrity", "")
    command = folder / "node_modules" / ".bin" / _bin(spec.name, meta)
    return Package(spec, str(meta.get("version")), ((f"{spec.name}@{meta.get('version')}", integrity),),
                   str(folder), str(command), scripts)  # fmt: skip


def _bin(name: str, meta: dict[str, Any]) -> str:
    """The program an npm package runs: its only `bin`, or the one named after it."""
    bins = meta.get("bin")
    short = name.rsplit("/", 1)[-1]
    if isinstance(bins, str):
        return short
    if isinstance(bins, dict) and bins:
        return short if short in bins else next(iter(bins)) if len(bins) == 1 else sorted(bins)[0]
    raise PackageError(f"{name} declares no program (`bin` in its package.json): nothing to run as a server")


# ---------------------------------------------------------------------------------------------------- PyPI
def _pypi(spec: Spec, cache: Path) -> Package:
    incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=cache))
    try:
        wheels = incoming / "wheels"
        pinned = f"{spec.name}=={spec.version}" if spec.version else spec.name
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "download", "--only-binary", ":all:"]
        _run([*pip, "--quiet", "--dest", str(wheels), pinned], f"pip download {pinned} (wheels only: a source "
             "distribution's build runs its code)")  # fmt: skip
        mine = _own_wheel(spec.name, wheels)
        version = mine.name.split("-")[1]
        folder = cache / f"{_normal(spec.name)}=={version}"
        if not (folder / "venv" / "bin").is_dir():
            _run([sys.executable, "-m", "venv", "--without-pip", str(incoming / "venv")], "python -m venv")
            into = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", str(incoming / "venv")]
            _run([*into, "install", "--quiet", "--no-index", "--find-links", str(wheels), str(mine)], "pip install")
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(incoming, folder)
            _relocated(folder / "venv", incoming / "venv")
        wheels = folder / "wheels"
        digests = tuple(
            (w.name, f"sha256:{hashlib.sha256(w.read_bytes()).hexdigest()}") for w in sorted(wheels.glob("*.whl"))
        )
        command = folder / "venv" / "bin" / _script(spec.name, folder / "venv")
        return Package(spec, version, digests, str(folder), str(command))
    finally:
        shutil.rmtree(incoming, ignore_errors=True)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _own_wheel(name: str, wheels: Path) -> Path:
    for wheel in sorted(wheels.glob("*.whl")):
        if _normal(wheel.name.split("-")[0]) == _normal(name):
            return wheel
    raise PackageError(f"pip download {name} gave no wheel of {name} (only a source distribution?)")


def _relocated(venv: Path, was: Path) -> None:
    """A venv moved after it was made: its scripts still name where it was made (in their `#!` line, or, for a long
    path, in the `exec` line of the shell trampoline pip writes instead)."""
    for script in (venv / "bin").iterdir():
        if script.is_file() and not script.is_symlink():
            data = script.read_bytes()
            if data.startswith(b"#!") and str(was).encode() in data[:4096]:
                script.write_bytes(data.replace(str(was).encode(), str(venv).encode()))
    cfg = venv / "pyvenv.cfg"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace(str(was), str(venv)), encoding="utf-8")


def _script(name: str, venv: Path) -> str:
    """The console script a PyPI package runs: the one named after it, else its only one."""
    scripts: list[str] = []
    for info in venv.glob("lib/python*/site-packages/*.dist-info"):
        if _normal(info.name.split("-")[0]) != _normal(name) or not (info / "entry_points.txt").is_file():
            continue
        section = ""
        for line in (info / "entry_points.txt").read_text(encoding="utf-8").splitlines():
            if line.startswith("["):
                section = line.strip("[] ")
            elif section == "console_scripts" and "=" in line:
                scripts.append(line.split("=", 1)[0].strip())
    if not scripts:
        raise PackageError(f"{name} declares no console script: nothing to run as a server")
    return _normal(name) if _normal(name) in scripts else scripts[0]


def run_scripts(argv: list[str], folder: Path) -> dict[str, Any]:
    """npm's install scripts, run confined (no network; only `folder` writable) and observed where strace can:
    how they ran and the events that stand out (`behaviour.notable`), for the review. Where nothing can confine
    them they are not run (`ran` is empty, `why` says why)."""
    from mcp_review import behaviour
    from mcp_review.connection.wire import WireLog
    from mcp_review.sandbox import confine, prepare
    from mcp_review.targets import Confinement, child_env, stdio_target

    if (why := confine.unavailable()) is not None:  # a package's own code never runs unconfined at install
        return {"ran": "", "why": why}
    spec = Confinement(observe=True, allow_write=(str(folder),), run=f"install-{folder.name}")
    target = stdio_target(argv, cwd=str(folder)).with_(confinement=spec)
    prepared = prepare(target, argv, child_env(target))
    try:
        done = subprocess.run(prepared.argv, capture_output=True, text=True, timeout=FETCH_SECONDS, cwd=folder)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise PackageError(f"its install scripts: {e}") from e
    finally:
        events = prepared.trace.close() if prepared.trace else []
    wire = WireLog()
    conn = wire.new_connection()
    seen = [entry for e in events if (entry := wire.event(conn, e, prepared.ran.layout)) is not None]
    notable = [behaviour.said(e) for e in seen if behaviour.notable(e) and behaviour.program(e) != "npm"]
    out: dict[str, Any] = {"ran": prepared.ran.line(), "exitCode": done.returncode, "events": len(seen)}
    return out | {"notable": notable[:50], "notableTotal": len(notable)}
