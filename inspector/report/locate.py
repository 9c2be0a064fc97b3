"""Where in the server's repository a finding's subject is defined, so code scanning places it on a line.

A tool, prompt or resource is defined where its name and its description are written together: a quoted name
(`name="search"`, `"search": {...}`, `server.tool("search", ...)`) or a function named after it (`def search(`,
`async function search(`) with the start of its description within a few lines; one whose description the review
does not hold, only by a function of its name. Subjects that are not a tool, prompt, resource or template (the
server, a method) are not searched. Only the working tree is read:
`git ls-files` when the root is a git repository (so build output and vendored folders stay out), else a walk,
at most `MAX_FILES` files of at most `MAX_BYTES` each, binaries skipped. The names and descriptions come from
the review (the server's own answers), so they are matched as text, never as patterns.

When a subject is not found, the finding goes to the line of the config file (or the repository's
`server.json`) that names the server; when neither names it, only its logical location remains.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_FILES = 5000
MAX_BYTES = 512 * 1024
NEAR = 25  # lines around a name where its description may start (a docstring, a `description=` argument)
CLUE = 40  # characters of the description's first line that must appear near the name
SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", ".tox", ".deps"}
KINDS = {"tool", "prompt", "resource", "template"}  # what a server defines in its source (not "server", a method)
ASIDE_DIRS = {"test", "tests", "docs", "examples"}
CODE = (".py", ".ts", ".tsx", ".js", ".mjs", ".cjs", ".go", ".rs", ".java", ".kt", ".cs", ".rb", ".php", ".swift")
# what mcp-review writes (a lock, reviews, SARIF) and other tools' lock files quote names without defining them
NOT_SOURCE = re.compile(
    r"(^|/)(mcp-review\.lock|[^/]*\.lock|[^/]*-lock\.json|[^/]*\.sarif(\.json)?|review(\.full)?\.(json|md))$"
)
_WORD = re.compile(r"[\"'`]([^\"'`\n]{1,200})[\"'`]|(?:def|function|func|fn)\s+([A-Za-z_][\w]*)\s*[(<]")


@dataclass(frozen=True)
class Place:
    """A file (relative to the root, `/`-separated, or absolute when outside it) and a 1-based line."""

    uri: str
    line: int


def descriptions(review: Any) -> dict[str, str]:
    """Each tool's, prompt's and resource's description by name (and a resource's by URI), from the listings the
    review's evidence cites."""
    found: dict[str, str] = {}
    for entry in review.exchanges.values():
        result = (entry.get("message") or {}).get("result")
        if not isinstance(result, dict):
            continue
        for key in ("tools", "prompts", "resources", "resourceTemplates"):
            items = result.get(key)
            for item in items if isinstance(items, list) else ():
                if isinstance(item, dict) and isinstance(item.get("description"), str):
                    for ident in (item.get("name"), item.get("uri"), item.get("uriTemplate")):
                        if isinstance(ident, str):
                            found.setdefault(ident, item["description"])
    return found


def _squash(text: str) -> str:
    return " ".join(text.split())


def _clue(description: str) -> str:
    """The start of a description as a source file would write it: its first line, whitespace squashed."""
    first = next((line for line in description.splitlines() if line.strip()), "")
    return _squash(first)[:CLUE]


def files(root: Path, skip: Path | None = None) -> list[Path]:
    """The files to search: git's tracked and untracked-but-not-ignored files, or a walk; bounded. `skip`: a folder
    left out (where the review itself is being written)."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            timeout=20,
            check=True,
        ).stdout
        names: Iterable[str] = (n for n in out.decode("utf-8", "replace").split("\0") if n)
    except (OSError, subprocess.SubprocessError):
        names = _walk(root)
    picked: list[Path] = []
    for name in sorted(names, key=_order):
        path = root / name
        if len(picked) >= MAX_FILES:
            break
        if NOT_SOURCE.search(name) or (skip and path.resolve().is_relative_to(skip)):
            continue
        try:
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_BYTES:
                picked.append(path)
        except OSError:
            continue
    return picked


def _order(name: str) -> tuple[bool, bool, str]:
    """Source before data, data before prose and tests: a README, a test or a JSON dump that quotes a tool is not
    where it is defined."""
    parts = name.lower().split("/")
    aside = parts[-1].endswith((".md", ".rst", ".txt")) or any(p in ASIDE_DIRS for p in parts)
    return aside, not parts[-1].endswith(CODE), name


def _walk(root: Path) -> Iterator[str]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            yield os.path.relpath(os.path.join(folder, name), root)


def _text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None  # a binary
    return data.decode("utf-8", "replace")


class Locator:
    """Finds subjects in one root's files; each file is read once, however many findings there are."""

    def __init__(self, root: Path | None, review: Any, skip: Path | None = None) -> None:
        self.root = root.resolve() if root else None
        self.review = review
        self.skip = skip.resolve() if skip else None
        # paths are written relative to the repository's top (what code scanning resolves them against), which is
        # `root` unless the server lives in a folder of a bigger repository
        self.base = _toplevel(self.root) if self.root else None
        self._subjects: dict[str, Place | None] | None = None

    def subject(self, name: str | None) -> Place | None:
        if not name or self.root is None:
            return None
        if self._subjects is None:
            self._subjects = self._search()
        return self._subjects.get(name)

    def _search(self) -> dict[str, Place | None]:
        assert self.root is not None
        described = descriptions(self.review)
        wanted = {f.subject for f in self.review.findings if f.subject and f.subject_kind in KINDS}
        clues = {name: _clue(described.get(name, "")) for name in wanted}
        best: dict[str, Place | None] = {}
        for path in files(self.root, self.skip):
            if not wanted - best.keys():
                break
            try:
                text = _text(path)
            except OSError:
                continue
            if text is None:
                continue
            lines = text.splitlines()
            for number, line in enumerate(lines, 1):
                for match in _WORD.finditer(line):
                    name = match[1] or match[2]
                    if name not in wanted or name in best:
                        continue
                    clue = clues[name]
                    near = _squash(" ".join(lines[max(0, number - 1 - NEAR) : number + NEAR]))
                    if clue in near if clue else match[2]:  # no description: only a function of that name
                        best[name] = Place(self._uri(path), number)
        return best

    def server(self) -> Place | None:
        """The line naming the server in the config file it came from, else in the root's server.json."""
        source = self.review.target.get("source")
        names = [n for n in (self.review.target.get("name"), self.review.server.get("name")) if n]
        for candidate in (Path(source) if source else None, self.root / "server.json" if self.root else None):
            if candidate is None or not names:
                continue
            try:
                lines = candidate.read_text(encoding="utf-8", errors="replace").splitlines()[:20000]
            except OSError:
                continue
            for number, line in enumerate(lines, 1):
                if any(f'"{n}"' in line for n in names):
                    return Place(self._uri(candidate), number)
        return None

    def _uri(self, path: Path) -> str:
        resolved = path.resolve()
        if self.base and resolved.is_relative_to(self.base):
            return resolved.relative_to(self.base).as_posix()
        return resolved.as_uri()


def _toplevel(root: Path) -> Path:
    return _git_top(root) or root


def _git_top(folder: Path) -> Path | None:
    try:
        argv = ["git", "-C", str(folder), "rev-parse", "--show-toplevel"]
        out = subprocess.run(argv, capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    top = out.stdout.decode("utf-8", "replace").strip()
    return Path(top).resolve() if out.returncode == 0 and top else None


def repository_root(given: str | None, cwd: Path | None = None) -> Path | None:
    """Where locations are searched, as `--source-root` says: `given` ('' for nowhere), else the git repository
    the working directory (`cwd`) is in, else nowhere. `check` and the app's export both ask this."""
    if given is not None:
        return Path(given) if given else None
    return _git_top(cwd or Path.cwd())
