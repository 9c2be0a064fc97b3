"""What to connect to: a stdio command, a Streamable HTTP URL, or a legacy SSE URL.

A `Target` is plain data (no I/O); `mcp_review.configs` builds them from mcp.json-style files and the
CLI builds them from `-- cmd args`, `--url`, `--header`, `--bearer`, `--env`.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from mcp_review.redact import PLAIN_HEADERS, is_secret_header

TransportKind = Literal["stdio", "http", "sse"]

SECRET_ARG_WORDS = ("token", "secret", "password", "passwd", "api-key", "apikey", "api_key", "credential")
LONG_VALUE = 8  # a value this long is treated as a secret whatever its name (an env value, a header value)


def secret_arg_positions(args: tuple[str, ...] | list[str]) -> list[int]:
    """Indexes of command-line arguments that carry a credential: `--token=X`, or the X after `--token`."""
    out = []
    for i, arg in enumerate(args):
        low = arg.lower()
        if any(word in low for word in SECRET_ARG_WORDS):
            if "=" in arg:
                out.append(i)
            elif arg.startswith("-") and i + 1 < len(args):
                out.append(i + 1)
    return out


def masked_args(args: tuple[str, ...]) -> list[str]:
    hidden = set(secret_arg_positions(args))
    return [(a.split("=", 1)[0] + "=***" if "=" in a else "***") if i in hidden else a for i, a in enumerate(args)]


@dataclass(frozen=True)
class Confinement:
    """How mcp-review runs a stdio server it starts (`mcp_review.sandbox`): confined by default (no network but
    loopback, read-only files but a scratch, a home of canaries), observed when asked, with what the reviewer
    allowed. Only the reviewer's flags and user-level config set the allowances (`mcp_review.plan`)."""

    confine: bool = True
    observe: bool = False
    allow_net: tuple[str, ...] = ()  # hosts the reviewer named: the server then shares the machine's network
    allow_read: tuple[str, ...] = ()  # paths the reviewer let it read (as they are, read-only)
    allow_write: tuple[str, ...] = ()  # paths the reviewer let it change
    run: str = ""  # the review these processes belong to: they share its canary home and scratch
    named_paths: bool = True  # paths its command line names are readable (False: a repository's entry named them)

    def public(self) -> dict[str, object]:
        out: dict[str, object] = {"confine": self.confine, "observe": self.observe}
        for key, value in (("allowNet", self.allow_net), ("allowRead", self.allow_read)):
            if value:
                out[key] = list(value)
        if self.allow_write:
            out["allowWrite"] = list(self.allow_write)
        return out


@dataclass(frozen=True)
class Target:
    """One MCP server to review. Secrets (env values, bearer, credential headers) stay in here only."""

    kind: TransportKind
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    bearer: str | None = None
    verify: bool | str = True  # False: no TLS verification; str: path to a CA bundle
    timeout: float = 30.0
    name: str | None = None  # the server's key in a config file
    source: str | None = None  # the config file it came from
    demo: bool = False  # the bundled demo server
    confinement: Confinement = field(default_factory=Confinement)  # how a stdio server is run (mcp_review.sandbox)
    package: dict[str, Any] | None = None  # the package installed for review it runs (mcp_review.packages)

    @property
    def is_http(self) -> bool:
        """Spoken over HTTP: Streamable HTTP or legacy HTTP+SSE."""
        return self.kind in ("http", "sse")

    def label(self) -> str:
        """A short human label with no secrets in it."""
        if self.name:
            return self.name
        if self.kind == "stdio":
            return " ".join(shlex.quote(p) for p in (self.command or "", *masked_args(self.args)))
        return self.url or "?"

    def cli_args(self) -> list[str]:
        """The target as `mcp-review` options, with no secret in them: credential arguments and URL
        credentials masked; env values, headers and the bearer left out."""
        if self.kind == "stdio":
            return ["--", self.command or "", *masked_args(self.args)]
        url = self.url or ""
        for secret in _url_secrets(url):
            url = url.replace(secret, "***")
        return ["--url", url] + (["--transport", "sse"] if self.kind == "sse" else [])

    def given_secrets(self) -> set[str]:
        """The secrets this target hands the server (env, arguments, bearer, headers): what it may echo.

        An env or header value counts when its name says it is a credential, or when it is long enough to
        be one (LONG_VALUE characters): masking a harmless long value costs little, leaking a key a lot.
        """
        values = {v for k, v in self.env.items() if len(v) >= LONG_VALUE or _secret_name(k)}
        values.update(a.split("=", 1)[-1] for i, a in enumerate(self.args) if i in secret_arg_positions(self.args))
        if self.bearer:
            values.add(self.bearer)
        values |= _url_secrets(self.url or "")
        for key, value in self.headers.items():
            if is_secret_header(key) or (key.lower() not in PLAIN_HEADERS and len(value) >= LONG_VALUE):
                values.add(value)
                credential = value.partition(" ")[2]  # "Bearer X": X alone is a secret too
                if len(credential) >= 4:
                    values.add(credential)
        return values

    def secret_values(self) -> set[str]:
        """Every string that must be masked wherever it would appear: what the server gets, and our own."""
        return self.given_secrets() | own_secret_values()

    def public(self) -> dict[str, object]:
        """A description safe to export: env and credential header values masked."""
        out: dict[str, object] = {"kind": self.kind}
        if self.name:
            out["name"] = self.name
        if self.source:
            out["source"] = self.source
        if self.kind == "stdio":
            out["command"] = self.command
            out["args"] = masked_args(self.args)
            if self.env:
                out["env"] = dict.fromkeys(sorted(self.env), "***")
            if self.cwd:
                out["cwd"] = self.cwd
            out["confinement"] = self.confinement.public()
            if self.package:
                out["package"] = self.package
        else:
            out["url"] = self.url
            if self.headers:
                out["headers"] = {k: ("***" if is_secret_header(k) else v) for k, v in self.headers.items()}
            if self.bearer:
                out["bearer"] = "***"
        return out

    def with_(self, **changes: object) -> Target:
        return replace(self, **changes)  # type: ignore[arg-type]


def demo_target() -> Target:
    """The bundled demo server, run with the interpreter that runs mcp-review."""
    return Target(kind="stdio", command=sys.executable, args=("-m", "mcp_review.demo"), name="demo", demo=True)


def stdio_target(argv: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> Target:
    if not argv:
        raise ValueError("empty command")
    return Target(kind="stdio", command=argv[0], args=tuple(argv[1:]), env=dict(env or {}), cwd=cwd)


def http_target(
    url: str,
    *,
    transport: TransportKind | None = None,
    headers: dict[str, str] | None = None,
    bearer: str | None = None,
) -> Target:
    kind: TransportKind = transport or ("sse" if url.rstrip("/").endswith("/sse") else "http")
    return Target(kind=kind, url=url, headers=dict(headers or {}), bearer=bearer)


# What a stdio server inherits from mcp-review's own environment (as the MCP SDK and most hosts do):
# enough to find programs and a home, nothing that could hold a credential. Everything else the server
# needs comes from --env or its config entry.
INHERITED = (
    "HOME",
    "LOGNAME",
    "PATH",
    "SHELL",
    "TERM",
    "USER",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
    "SYSTEMROOT",
    "APPDATA",
    "USERPROFILE",
    "PROGRAMFILES",
)
SECRET_ENV_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH", "COOKIE", "SESSION")


def child_env(target: Target) -> dict[str, str]:
    """The environment a stdio server starts with: a safe subset of ours, plus the target's."""
    env = {k: v for k, v in os.environ.items() if k in INHERITED}
    env.update(target.env)
    return env


def _url_secrets(url: str) -> set[str]:
    """A password in the URL, and query values whose names say they are credentials (`?access_token=`)."""
    from urllib.parse import parse_qsl, urlsplit

    try:
        parts = urlsplit(url)
        found = {parts.password} if parts.password else set()
    except ValueError:
        return set()
    found |= {v for k, v in parse_qsl(parts.query) if _secret_name(k) or k.lower() in ("sig", "signature", "code")}
    return {v for v in found if v and len(v) >= 4}


def _secret_name(name: str) -> bool:
    return any(word in name.upper() for word in SECRET_ENV_WORDS)


def own_secret_values() -> set[str]:
    """Values of our own environment variables whose names suggest credentials (masked in logs and exports)."""
    return {v for k, v in os.environ.items() if len(v) >= LONG_VALUE and _secret_name(k)}
