"""Who may decide what: the reviewer, or the repository under review.

A review runs inside the checkout of the change it reviews, so every file there was written by the author of
that change. What reaches beyond the review itself (calling tools that are not read-only, sending probes,
reading the reviewer's environment for tokens, writing outside the working directory) is granted only by the
reviewer: a command-line flag, the reviewer's own config (`$MCP_REVIEW_CONFIG_DIR` or
`$XDG_CONFIG_HOME/mcp-review/mcp-review.toml`), or a trust record for the repository's config file.

A trust record works like direnv's `allow`: `mcp-review trust FILE` stores the SHA-256 of the file's bytes
(in `trusted.json` of the reviewer's config directory, keyed by the file's absolute path); a file whose
bytes changed since is not trusted until trusted again.

The app keeps its saved reviews in the reviewer's state directory (`$MCP_REVIEW_STATE_DIR`, else
`$XDG_STATE_HOME/mcp-review`, else `~/.local/state/mcp-review`), never in the checkout.

Provenance: `origin_of` says for a config file whose it is and, when git tracks it, from which commit;
`base_text` reads a file as it is on a base revision (`git show REF:./FILE`), so decisions the change adds
can be told from those it inherits.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

TRUST_FILE = "trusted.json"
USER_CONFIG = "mcp-review.toml"
# git never runs a hook, an fsmonitor or a pager of the repository's for us (its .git/config is not ours)
GIT = ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-pager"]


def config_dir() -> Path:
    override = os.environ.get("MCP_REVIEW_CONFIG_DIR")
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "mcp-review"


def state_dir() -> Path:
    override = os.environ.get("MCP_REVIEW_STATE_DIR")
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "mcp-review"


def user_config() -> Path | None:
    """The reviewer's own review config, when there is one."""
    path = config_dir() / USER_CONFIG
    return path if path.is_file() else None


def digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _records() -> dict[str, str]:
    try:
        data = json.loads((config_dir() / TRUST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def trust(path: str | Path) -> str:
    """Record the reviewer's trust in `path` as its bytes are now; returns their SHA-256."""
    from mcp_review.output import write_text

    key, sha = str(Path(path).resolve()), digest(path)
    records = {**_records(), key: sha}
    config_dir().mkdir(parents=True, exist_ok=True)
    write_text(config_dir() / TRUST_FILE, json.dumps(records, indent=2, sort_keys=True) + "\n")
    return sha


def trusted(path: str | Path) -> bool:
    """Whether the reviewer trusted `path` with exactly the bytes it has now."""
    try:
        return _records().get(str(Path(path).resolve())) == digest(path)
    except OSError:
        return False


def is_reviewers(path: str | Path) -> bool:
    """The reviewer's own config, or a file the reviewer trusted as it is."""
    own = user_config()
    return (own is not None and Path(path).resolve() == own.resolve()) or trusted(path)


def inside(path: str | Path, folder: Path | None = None) -> bool:
    """Whether `path` (symlinks followed) lies in `folder` (default: the working directory)."""
    return Path(path).resolve().is_relative_to((folder or Path.cwd()).resolve())


@dataclass(frozen=True)
class Origin:
    """Where a config (and so each decision in it) came from."""

    file: str
    who: str  # "reviewer" or "repository"
    commit: str | None = None  # the last commit that changed the file; "uncommitted" when it differs from it

    def label(self) -> str:
        at = f", commit {self.commit[:12]}" if self.commit and self.commit != "uncommitted" else ""
        at = at or (", uncommitted" if self.commit else "")
        return f"{self.file} ({'the reviewer' if self.who == 'reviewer' else 'the repository'}'s{at})"


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            [*GIT, "-C", str(folder), *args], capture_output=True, timeout=10, check=False, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def commit_of(path: str | Path) -> str | None:
    """The last commit that changed `path` ("uncommitted" when the file differs from it; None outside git)."""
    file = Path(path).resolve()
    last = (_git(file.parent, "log", "-1", "--format=%H", "--", file.name) or "").strip()
    if not last:
        return None
    dirty = _git(file.parent, "status", "--porcelain", "--", file.name)
    return "uncommitted" if dirty else last


def origin_of(path: str | Path) -> Origin:
    return Origin(str(path), "reviewer" if is_reviewers(path) else "repository", commit_of(path))


def base_text(path: str | Path, ref: str) -> str | None:
    """`path` as it is on the revision `ref` (None when it is not there, or this is not a git checkout)."""
    file = Path(path).resolve()
    if ref.startswith("-"):
        return None  # a revision, never an option to git
    return _git(file.parent, "show", f"{ref}:./{file.name}")


def has_revision(ref: str, folder: Path | None = None) -> bool:
    """Whether `ref` names a commit of the git checkout around `folder` (default: the working directory)."""
    found = _git(folder or Path.cwd(), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    return not ref.startswith("-") and found is not None
