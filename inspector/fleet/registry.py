"""Registry `server.json` entries as fleet entries (the MCP registry's format, schema 2025-10-17 and 2025-12-11).

A file may hold one `server.json`, a registry answer for one server (`{"server": {...}}`) or a list of them
(`{"servers": [...]}`, as `GET /v0/servers` returns). Each package and each remote of a server is one entry:

- `remotes[]` (`streamable-http`, `sse`): the URL. A header with a `value` is sent; one the server needs and
  names no value for (a secret, typically) cannot be filled here: the entry is an error that says so.
- `packages[]` with transport `stdio`: the command a client would run, `runtimeHint` first, else by registry:
  npm `npx -y NAME@VERSION`, pypi `uvx NAME==VERSION`, oci `docker run -i --rm IMAGE`, nuget `dnx NAME@VERSION
  --yes`; then `runtimeArguments` before the package and `packageArguments` after it, and `environmentVariables`
  as the server's environment. A value is its `value`, else its `default`; a required one with neither is an
  error (nothing here knows it). Running such a command fetches the package from its registry: that is the
  reviewer's to ask for.
- Not supported, and said so per entry: `mcpb` bundles (a download to unpack, not a command), a package whose
  transport is HTTP (it serves a port: start it, and list its URL), URL and value templates (`{name}`) with no
  default.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcp_review.fleet.sources import Entry, SourceError

RUNNERS = {"npm": "npx", "pypi": "uvx", "oci": "docker", "nuget": "dnx"}
_TEMPLATE = re.compile(r"\{([^{}]+)\}")


class _Unfilled(Exception):
    pass


def registry_entries(path: str) -> list[Entry]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise SourceError(f"{path}: cannot read: {e.strerror}") from e
    except ValueError as e:
        raise SourceError(f"{path}: not JSON: {e}") from e
    servers = data.get("servers") if isinstance(data, dict) and "servers" in data else [data]
    if not isinstance(servers, list):
        raise SourceError(f"{path}: `servers` is not a list")
    out: list[Entry] = []
    for i, item in enumerate(servers):
        server = item.get("server", item) if isinstance(item, dict) else None
        where = f"{path} servers[{i}]" if len(servers) > 1 else path
        if not isinstance(server, dict):
            raise SourceError(f"{where}: not a server.json object")
        out += server_entries(server, where)
    return out


def server_entries(server: dict[str, Any], where: str) -> list[Entry]:
    name = str(server.get("name") or "server")
    out = []
    for i, remote in enumerate(_list(server.get("remotes"))):
        out.append(_one(f"{name} (remote {i})" if i else f"{name} (remote)", f"{where} remotes[{i}]", _remote, remote))
    for i, package in enumerate(_list(server.get("packages"))):
        kind = str(package.get("registryType", "?")) if isinstance(package, dict) else "?"
        out.append(_one(f"{name} ({kind})", f"{where} packages[{i}]", _package, package))
    if not out:
        out.append(Entry(name, where, (), problem="no packages and no remotes: nothing to run or connect to"))
    return out


def _one(name: str, where: str, build: Any, raw: Any) -> Entry:
    if not isinstance(raw, dict):
        return Entry(name, where, (), problem="not an object")
    try:
        return Entry(name, where, tuple(build(raw)))
    except _Unfilled as e:
        return Entry(name, where, (), problem=str(e))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _fill(text: str, variables: Any, what: str) -> str:
    """`{name}` templates filled from their defaults."""

    def one(match: re.Match[str]) -> str:
        var = variables.get(match[1]) if isinstance(variables, dict) else None
        value = _value(var) if isinstance(var, dict) else None
        if value is None:
            raise _Unfilled(f"{what} needs a value for {{{match[1]}}}, and names no default")
        return value

    return _TEMPLATE.sub(one, text)


def _value(item: dict[str, Any]) -> str | None:
    value = item.get("value", item.get("default"))
    if value is None:
        return None
    return _fill(str(value), item.get("variables"), f"{item.get('name', 'a value')!s}")


def _remote(remote: dict[str, Any]) -> list[str]:
    kind = str(remote.get("type", "")).lower()
    if kind not in ("streamable-http", "sse"):
        raise _Unfilled(f"remote type {kind!r} is not streamable-http or sse")
    url = _fill(str(remote.get("url", "")), remote.get("variables"), "the URL")
    args = ["--url", url, "--transport", "sse" if kind == "sse" else "http"]
    for name, value in _given(remote.get("headers"), "header"):
        args += ["--header", f"{name}: {value}"]
    return args


def _given(items: Any, what: str) -> Iterator[tuple[str, str]]:
    """The (name, value) of each header or environment variable that has a value here; a required one without
    a value cannot be filled in."""
    for item in _list(items):
        if not isinstance(item, dict):
            continue
        value = _value(item)
        if value is None and item.get("isRequired"):
            raise _Unfilled(f"{what} {item.get('name')!s} is required and has no value here")
        if value is not None:
            yield str(item.get("name")), value


def _package(package: dict[str, Any]) -> list[str]:
    kind = str(package.get("registryType", "")).lower()
    given = package.get("transport")
    transport: dict[str, Any] = given if isinstance(given, dict) else {}
    if str(transport.get("type", "stdio")) != "stdio":
        raise _Unfilled(f"the package serves {transport.get('type')}: start it, and list its URL")
    if kind not in RUNNERS:
        raise _Unfilled(f"registry type {kind!r} is not supported (npm, pypi, oci, nuget)")
    ident, version = str(package.get("identifier", "")), package.get("version")
    runner = str(package.get("runtimeHint") or RUNNERS[kind])
    runtime = _arguments(package.get("runtimeArguments"))
    if kind == "npm":
        spec, defaults = f"{ident}@{version}" if version else ident, ["-y"]
    elif kind == "pypi":
        spec, defaults = f"{ident}=={version}" if version else ident, []
    elif kind == "oci":
        tagged = ":" in ident.rsplit("/", 1)[-1] or "@" in ident
        spec, defaults = ident if tagged or not version else f"{ident}:{version}", ["run", "-i", "--rm"]
    else:
        spec, defaults = f"{ident}@{version}" if version else ident, []
    command = [runner, *(runtime or defaults), spec, *(["--yes"] if kind == "nuget" else [])]
    command += _arguments(package.get("packageArguments"))
    env = []
    for name, value in _given(package.get("environmentVariables"), "environment variable"):
        env += ["--env", f"{name}={value}"]
    return [*env, "--", *command]


def _arguments(raw: Any) -> list[str]:
    out: list[str] = []
    for argument in _list(raw):
        if not isinstance(argument, dict):
            continue
        value = _value(argument)
        if value is None and argument.get("isRequired"):
            raise _Unfilled(f"argument {argument.get('name') or argument.get('valueHint')!s} is required, no value")
        if argument.get("type") == "named":
            out += [str(argument.get("name"))] + ([value] if value is not None else [])
        elif value is not None:
            out.append(value)
    return out
