"""MCP client config files: read a server entry from one, or find every server in the usual places.

Formats:
- `mcpServers` (Claude Desktop, Cursor, Windsurf, Claude Code `~/.claude.json` and project `.mcp.json`):
  entries with `command`/`args`/`env`/`cwd`, or `url`/`serverUrl` with `headers` and `type`/`transport`.
- `servers` (VS Code `.vscode/mcp.json`, the user `mcp.json`; `settings.json` under `mcp.servers`):
  entries with `type` stdio|http|sse; JSON with comments and trailing commas; `${workspaceFolder}`,
  `${userHome}`, `${env:NAME}`; `${input:id}` cannot be resolved here, so such an entry is unusable.
- `${VAR}` and `${VAR:-default}` (Claude Code) in command, args, env, cwd, url and headers; `envFile` (VS Code,
  Cursor) for a stdio server's environment.

Secrets stay home: a variable of the reviewer's environment and an `envFile` are the reviewer's, so only the
reviewer's own files may use them: the user-level files `config_locations` names (Claude Desktop, Claude Code's
`~/.claude.json`, Cursor's and Windsurf's files in the home directory, VS Code's user `mcp.json` and
`settings.json`). Any other file (a project's `.mcp.json`, `.cursor/mcp.json`, `.vscode/mcp.json`, or a file
given with `--config`) is the repository's: it gets a variable only when the reviewer names it (`Allowed.env`,
`--allow-env NAME`) and an envFile only when the reviewer names that file (`--allow-env-file PATH`). What is not
allowed is withheld (the server gets the `:-` default or nothing) and listed in `ConfiguredServer.withheld`.
Variables a stdio server inherits anyway (`targets.INHERITED`: HOME, PATH, USER...) are always expanded.

Problems are stated without values: a config file's secrets never reach a message.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_review.targets import INHERITED, Target

VAR = re.compile(r"\$\{([^}]+)\}")
HTTP_TYPES = {"http": "http", "streamable-http": "http", "streamablehttp": "http", "sse": "sse"}


class ConfigError(Exception):
    pass


class _Unresolved(Exception):
    pass


@dataclass(frozen=True)
class Allowed:
    """What of the reviewer's own a repository's config file may use: these variables and env files."""

    env: frozenset[str] = frozenset()
    files: frozenset[Path] = frozenset()
    everything: bool = False  # the reviewer's own file

    @classmethod
    def by_flags(cls, names: list[str], files: list[str]) -> Allowed:
        return cls(frozenset(names), frozenset(Path(f).expanduser().resolve() for f in files))


@dataclass(frozen=True)
class ConfiguredServer:
    name: str
    target: Target | None
    source: str
    client: str
    problem: str | None = None
    withheld: tuple[str, ...] = ()  # `${NAME}` and `envFile PATH` the entry asked for and did not get

    def withheld_line(self) -> str | None:
        """One line for stderr: what was withheld and the flags that would pass it."""
        if not self.withheld:
            return None
        flags = " ".join(_flag(w) for w in self.withheld)
        return (
            f"{self.source} is not your own config file: server {self.name!r} gets nothing for "
            f"{', '.join(self.withheld)}; to pass them to it: {flags}"
        )


def _flag(withheld: str) -> str:
    if withheld.startswith("envFile "):
        return f"--allow-env-file {withheld.removeprefix('envFile ')}"
    return f"--allow-env {withheld[2:-1].removeprefix('env:').partition(':-')[0]}"


@dataclass
class _Scope:
    """One entry's expansion: the folder `${workspaceFolder}` names, what is allowed, what was withheld."""

    folder: Path
    allowed: Allowed
    withheld: list[str] = field(default_factory=list)


def strip_jsonc(text: str) -> str:
    """Remove // and /* */ comments and trailing commas, never inside strings."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from e
    try:
        return json.loads(strip_jsonc(text) if path.suffix in (".json", ".jsonc") else text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from e


def _expand(value: str, scope: _Scope) -> str:
    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "workspaceFolder":
            return str(scope.folder)
        if key == "userHome":
            return str(Path.home())
        if key.startswith("input:"):
            raise _Unresolved(f"needs input {key[6:]!r}")
        name, _, default = key.removeprefix("env:").partition(":-")
        allowed = scope.allowed.everything or name in scope.allowed.env or name in INHERITED
        if not allowed:
            scope.withheld.append(match.group(0))
            return default
        if name in os.environ:
            return os.environ[name]
        if ":-" in key:
            return default
        raise _Unresolved(f"environment variable {name} is not set")

    return VAR.sub(one, value)


def _entry(name: str, raw: Any, path: Path, client: str, allowed: Allowed) -> ConfiguredServer:
    source = str(path)
    if not isinstance(raw, dict):
        return ConfiguredServer(name, None, source, client, "entry is not an object")
    folder = path.parent.parent if path.parent.name == ".vscode" else path.parent
    scope = _Scope(folder, allowed)
    kind = str(raw.get("type") or raw.get("transport") or "").lower().replace("_", "-")
    url = raw.get("url") or raw.get("serverUrl")
    try:
        if url or kind in HTTP_TYPES:
            if kind and kind not in HTTP_TYPES:
                return ConfiguredServer(name, None, source, client, f"unknown type {kind!r}")
            if not isinstance(url, str):
                return ConfiguredServer(name, None, source, client, "no url")
            headers = {str(k): _expand(str(v), scope) for k, v in (raw.get("headers") or {}).items()}
            resolved = _expand(url, scope)
            transport = HTTP_TYPES.get(kind) or ("sse" if resolved.rstrip("/").endswith("/sse") else "http")
            target = Target(kind=transport, url=resolved, headers=headers, name=name, source=source)  # type: ignore[arg-type]
        else:
            if kind not in ("", "stdio"):
                return ConfiguredServer(name, None, source, client, f"unknown type {kind!r}")
            if not isinstance(raw.get("command"), str):
                return ConfiguredServer(name, None, source, client, "no command")
            args = raw.get("args") or []
            if not isinstance(args, list):
                return ConfiguredServer(name, None, source, client, "args is not a list")
            env = {str(k): _expand(str(v), scope) for k, v in (raw.get("env") or {}).items()}
            env_file = raw.get("envFile")
            if isinstance(env_file, str):
                env = {**_env_file(folder / Path(_expand(env_file, scope)).expanduser(), scope), **env}
            cwd = raw.get("cwd")
            target = Target(
                kind="stdio",
                command=_expand(raw["command"], scope),
                args=tuple(_expand(str(a), scope) for a in args),
                env=env,
                cwd=str(folder / _expand(cwd, scope)) if isinstance(cwd, str) else None,
                name=name,
                source=source,
            )
    except _Unresolved as e:
        return ConfiguredServer(name, None, source, client, str(e))
    problem = "disabled" if raw.get("disabled") is True else None
    return ConfiguredServer(name, target, source, client, problem, tuple(dict.fromkeys(scope.withheld)))


def _env_file(path: Path, scope: _Scope) -> dict[str, str]:
    env: dict[str, str] = {}
    if not (scope.allowed.everything or path.resolve() in scope.allowed.files):
        scope.withheld.append(f"envFile {path}")
        return env
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return env
    for line in lines:
        key, sep, value = line.strip().partition("=")
        if sep and key and not key.startswith("#"):
            env[key.strip()] = value.strip().strip('"').strip("'")
    return env


def _servers_of(data: Any, cwd: Path | None) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {}
    found: dict[str, Any] = {}
    for key in ("mcpServers", "servers"):
        if isinstance(data.get(key), dict):
            found.update(data[key])
    mcp = data.get("mcp")
    if isinstance(mcp, dict) and isinstance(mcp.get("servers"), dict):  # VS Code settings.json
        found.update(mcp["servers"])
    projects = data.get("projects")  # Claude Code ~/.claude.json
    if cwd is not None and isinstance(projects, dict):
        mine = projects.get(str(cwd))
        if isinstance(mine, dict) and isinstance(mine.get("mcpServers"), dict):
            found.update(mine["mcpServers"])
    return found


def reviewers_own(path: Path, home: Path | None = None) -> bool:
    """Is `path` one of the reviewer's user-level config files (not a project's, not one given by path)?"""
    mine = {p.expanduser().resolve() for client, p in config_locations(home) if not client.startswith("project")}
    return path.resolve() in mine


def load_servers(
    path: str | Path,
    client: str | None = None,
    cwd: Path | None = None,
    allowed: Allowed | None = None,
    home: Path | None = None,
) -> list[ConfiguredServer]:
    path = Path(path).expanduser().resolve()
    data = _read(path)
    label = client or ("VS Code" if path.parent.name == ".vscode" else "mcp.json")
    allowed = Allowed(everything=True) if reviewers_own(path, home) else allowed or Allowed()
    return [_entry(str(name), raw, path, label, allowed) for name, raw in _servers_of(data, cwd).items()]


def find_server(path: str | Path, name: str | None, allowed: Allowed | None = None) -> ConfiguredServer:
    servers = load_servers(path, cwd=Path.cwd(), allowed=allowed)
    names = ", ".join(s.name for s in servers) or "none"
    if name is None:
        if len(servers) != 1:
            raise ConfigError(f"{path} has {len(servers)} servers ({names}): choose one with --server")
        chosen = servers[0]
    else:
        chosen = next((s for s in servers if s.name == name), None)  # type: ignore[assignment]
        if chosen is None:
            raise ConfigError(f"{path} has no server {name!r} (servers: {names})")
    if chosen.target is None:
        raise ConfigError(f"{path}: server {chosen.name!r} cannot be used: {chosen.problem}")
    return chosen


def config_locations(home: Path | None = None, cwd: Path | None = None) -> list[tuple[str, Path]]:
    home = home or Path.home()
    cwd = cwd or Path.cwd()
    mac = home / "Library" / "Application Support"
    appdata = Path(os.environ.get("APPDATA", home / "AppData" / "Roaming"))
    user_code = mac / "Code" / "User" if sys.platform == "darwin" else home / ".config" / "Code" / "User"
    claude = mac / "Claude" if sys.platform == "darwin" else home / ".config" / "Claude"
    if sys.platform == "win32":
        user_code, claude = appdata / "Code" / "User", appdata / "Claude"
    return [
        ("Claude Desktop", claude / "claude_desktop_config.json"),
        ("Claude Code", home / ".claude.json"),
        ("Cursor", home / ".cursor" / "mcp.json"),
        ("Windsurf", home / ".codeium" / "windsurf" / "mcp_config.json"),
        ("VS Code", user_code / "mcp.json"),
        ("VS Code", user_code / "settings.json"),
        ("project .mcp.json", cwd / ".mcp.json"),
        ("project Cursor", cwd / ".cursor" / "mcp.json"),
        ("project VS Code", cwd / ".vscode" / "mcp.json"),
    ]


def discover(
    home: Path | None = None, cwd: Path | None = None, allowed: Allowed | None = None
) -> list[ConfiguredServer]:
    """Every server in every config file that exists; a broken file is one entry with its problem."""
    found: list[ConfiguredServer] = []
    cwd = cwd or Path.cwd()
    for client, path in config_locations(home, cwd):
        if not path.is_file():
            continue
        try:
            found += load_servers(path, client, cwd, allowed, home)
        except ConfigError as e:
            found.append(ConfiguredServer("(file)", None, str(path), client, str(e).split(": ", 1)[-1]))
    return found


def find_discovered(
    name: str, home: Path | None = None, cwd: Path | None = None, allowed: Allowed | None = None
) -> tuple[ConfiguredServer, str | None]:
    """`--server NAME` without `--config`: the entry named so in the config files `discover` finds.

    A project's files win over the user's (a project's `.mcp.json` says what this repository runs). Returns
    the entry and, when more than one file defines the name, a sentence that says which file was used.
    """
    found = [s for s in discover(home, cwd, allowed) if s.name == name]
    if not found:
        raise ConfigError(
            f"no server {name!r} in the MCP config files mcp-review knows (`mcp-review servers` lists them); "
            "give the file with --config FILE"
        )
    found.sort(key=lambda s: not s.client.startswith("project"))
    chosen = found[0]
    if chosen.target is None:
        raise ConfigError(f"{chosen.source}: server {name!r} cannot be used: {chosen.problem}")
    others = sorted({s.source for s in found[1:]} - {chosen.source})
    note = f"--server {name}: using {chosen.source} (also defined in {', '.join(others)})" if others else None
    return chosen, note
