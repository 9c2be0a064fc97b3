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
can be told from those it inherits; `merge_base` finds that revision without flags (the base the checked-out
change will merge into), or says why there is none.
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


def cache_dir() -> Path:
    """What mcp-review keeps to reuse: the packages it installed for review (`mcp_review.packages`)."""
    override = os.environ.get("MCP_REVIEW_CACHE_DIR")
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mcp-review"


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


@dataclass(frozen=True)
class Base:
    """The revision whose review config holds the decisions that count: `commit` None when there is none."""

    commit: str | None
    how: str  # how it was found ("--base REF", "the merge base with main"), or why there is none


DEFAULT_BRANCHES = ("origin/HEAD", "main", "master", "origin/main", "origin/master")


def merge_base(folder: Path) -> Base:
    """The base the change checked out around `folder` will merge into: the merge base of HEAD with

    - its upstream branch (`@{upstream}`), unless that is the change itself: the branch's own copy on a remote (a
      pushed feature branch's upstream) or a branch that already holds HEAD (one made from the author's branch);
    - and the default branch: the first of origin/HEAD, main, master, origin/main, origin/master that exists and
      is not the branch checked out (a branch is never its own base);

    with both, the older (`git merge-base --octopus`): a decision counts only when it was there before the change
    parted from every branch it may merge into, so a wrong guess makes more of them claims, never fewer. These are
    refs of the reviewer's clone (`.git` is not part of the change), so the change cannot name its base; in a clone
    of the author's fork they are the fork's, and there `--base` names the project's. Neither, or no merge base (a
    shallow clone): no base, and the review says why. Not `--fork-point`: it reads a reflog a fresh clone lacks."""
    if _git(folder, "rev-parse", "--git-dir") is None:
        return Base(None, "not a git checkout")
    here = (_git(folder, "symbolic-ref", "-q", "HEAD") or "").strip()  # refs/heads/NAME; empty when detached
    head = (_git(folder, "rev-parse", "--verify", "-q", "HEAD") or "").strip()

    def ref(name: str) -> str | None:
        full = (_git(folder, "rev-parse", "--symbolic-full-name", name) or "").strip()
        return full if full.startswith("refs/") and full != here else None

    found: list[tuple[str, str]] = []  # (ref, what it is)
    upstream = ref("@{upstream}")
    own = here and (_git(folder, "config", f"branch.{here.removeprefix('refs/heads/')}.merge") or "").strip() == here
    if upstream and not own and (_git(folder, "merge-base", "HEAD", upstream) or "").strip() != head:
        found.append((upstream, "upstream"))
    default = next((full for full in map(ref, DEFAULT_BRANCHES) if full), None)
    if default and all(default != r for r, _ in found):
        found.append((default, "the default branch"))
    if not found:
        return Base(None, "no branch to merge into (no upstream, no origin/HEAD, main or master beside this one)")
    shown = " and ".join(f"{r.removeprefix('refs/heads/').removeprefix('refs/remotes/')} ({what})" for r, what in found)
    commit = (_git(folder, "merge-base", "--octopus", "HEAD", *(r for r, _ in found)) or "").strip()
    if not commit:
        return Base(None, f"no merge base of HEAD with {shown} (a shallow clone? fetch it, or pass --base)")
    return Base(commit, f"the merge base with {shown}")
