"""Which servers a fleet reviews: each an `Entry` holding the `check` target options that review it.

Sources:
- the discovered client config files (`configs.discover`): the servers of the reviewer's own user-level files are
  reviewed; a project's file (`.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json` in the working directory) is the
  repository's, written by the author of the change under review, so its commands are not run unless the reviewer
  names that file with `--config` (as `check --config` does): until then its servers are listed as skipped;
- `--config FILE` (repeatable): every server of that file;
- a list file, one target per line, read as the target options of `check` typed in the working directory: a URL
  (`https://host/mcp`, optionally followed by `--header`...), a stdio command (`npx -y @scope/server`), or options
  (`--config .mcp.json --server notes`, `--env K=V -- python server.py`); `#` starts a comment;
- registry `server.json` files (`mcp_review.fleet.registry`).

An entry never carries a secret of its own beyond what its source wrote: `--config` entries are read again by each
`check` (so a project file's `${VAR}` stays withheld unless `--allow-env` lets it), and an entry's name is masked
(`Target.label`, `Target.cli_args`).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_review.configs import Allowed, ConfigError, ConfiguredServer, discover, load_servers, reviewers_own
from mcp_review.targets import http_target, stdio_target


class SourceError(Exception):
    """A source cannot be read as asked (exit 2 with the message)."""


@dataclass(frozen=True)
class Entry:
    """One server of the fleet."""

    name: str  # shown in every report: no secret in it
    origin: str  # where it was found: "servers.txt:3", a config file, "server.json remotes[0]"
    args: tuple[str, ...]  # the target options of `mcp-review check` that review it
    problem: str | None = None  # asked for, but it cannot be reviewed: why (reported as an error)
    skipped: str | None = None  # found, and not reviewed by design: why (reported, never an error)

    @property
    def key(self) -> str:
        """A stable file-safe name: the state file, the matrix job and the report rows use it."""
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", self.name).strip("-.")[:40] or "server"
        digest = hashlib.sha256(json.dumps([self.origin if self.problem else "", *self.args]).encode()).hexdigest()
        return f"{slug}-{digest[:10]}"

    def public(self) -> dict[str, str | None]:
        return {"key": self.key, "name": self.name, "origin": self.origin}


def line_entry(line: str, origin: str) -> Entry | None:
    """One line of a list file (None: blank or a comment). Its options are `check`'s: `check` itself refuses a
    wrong one, and the fleet reports that server as errored with its message."""
    try:
        tokens = shlex.split(line, comments=True)
    except ValueError as e:
        raise SourceError(f"{origin}: {e}") from e
    if not tokens:
        return None
    if re.match(r"https?://", tokens[0]):
        tokens = ["--url", *tokens]
    elif not tokens[0].startswith("-"):
        tokens = ["--", *tokens]
    own, command = tokens, list[str]()
    if "--" in tokens:
        i = tokens.index("--")
        own, command = tokens[:i], tokens[i + 1 :]
    given = {own[i]: own[i + 1] for i in range(len(own) - 1) if own[i] in ("--url", "--config", "--server")}
    if command:  # the program and each path by its file name: the table names servers, the key tells them apart
        shown = [Path(t).name if "/" in t and not t.startswith("-") else t for t in command]
        name = stdio_target(shown).label()
    elif "--url" in given:
        name = http_target(given["--url"]).cli_args()[1]  # the URL with its credentials masked
    elif "--config" in given or "--server" in given:
        name = given.get("--server") or Path(given["--config"]).name
    else:
        raise SourceError(f"{origin}: no target (a URL, a command, or --config / --server)")
    return Entry(name, origin, tuple(tokens))


def list_entries(path: str) -> list[Entry]:
    """Every target of a list file."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise SourceError(f"{path}: cannot read: {e.strerror}") from e
    return [entry for n, line in enumerate(lines, 1) if (entry := line_entry(line, f"{path}:{n}"))]


def config_entries(path: str, allowed: Allowed) -> list[Entry]:
    """Every server of a config file the reviewer named: an entry that cannot be used is an error, a disabled one
    is skipped."""
    try:
        servers = load_servers(path, cwd=Path.cwd(), allowed=allowed)
    except ConfigError as e:
        raise SourceError(str(e)) from e
    return [_configured(s, path, None) for s in servers]


def discovered_entries(named: Iterable[str] = (), allowed: Allowed | None = None) -> list[Entry]:
    """The servers of the config files `mcp-review servers` lists. A project's file is reviewed only when the
    reviewer named it (`named`: the `--config` files); until then its servers are skipped, and say how to ask."""
    given = {Path(p).resolve() for p in named}
    out = []
    for server in discover(allowed=allowed):
        mine = reviewers_own(Path(server.source)) or Path(server.source).resolve() in given
        why = None if mine else f"{server.source} is the repository's: --config {server.source} reviews its servers"
        out.append(_configured(server, server.source, why, problem_skips=True))
    return out


def _configured(server: ConfiguredServer, path: str, skipped: str | None, problem_skips: bool = False) -> Entry:
    args = ("--config", str(path), "--server", server.name)
    problem = f"cannot be used: {server.problem}" if server.problem else None
    if problem and (problem_skips or server.problem == "disabled"):
        skipped, problem = skipped or problem, None
    return Entry(server.name, str(path), args, problem, skipped)


def unique(entries: Sequence[Entry]) -> tuple[list[Entry], list[str]]:
    """The entries with the same target given twice kept once, and a line for each one dropped."""
    seen: dict[str, Entry] = {}
    dropped = []
    for entry in entries:
        if entry.key in seen:
            dropped.append(f"{entry.origin}: the same target as {seen[entry.key].origin}: reviewed once")
        else:
            seen[entry.key] = entry
    return list(seen.values()), dropped
