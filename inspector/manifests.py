"""What a server declares about itself outside the protocol, and where it disagrees with the wire (issue 24).

Two documents:
- the MCP Registry's `server.json` (schema 2025-12-11, modelcontextprotocol/registry), read from a file: the one
  the reviewer names (`--server-json FILE`) or `server.json` in the working directory (see `plan.py`);
- a Server Card (SEP-2127, draft; modelcontextprotocol/experimental-ext-server-card), which an HTTP server serves
  about itself. The rule fetches it (`checks/review/manifests.py`); this module only reads what came back.

Both are validated offline against the schemas vendored in `data/declared/` (SOURCES.md there) with
`mcp_review.localschema`, whose `referencing` registry resolves nothing outside the schema. Both are written by
the server's author, so they are as untrusted as the wire: bounded in size, parsed by `untrusted.loads`, and every
value quoted back is clipped.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcp_review.localschema import Outcome, validate
from mcp_review.targets import Target

if TYPE_CHECKING:
    from mcp_review.catalog import ServerSnapshot

SERVER_JSON = "server.json"
SERVER_JSON_SCHEMA = "server.2025-12-11.schema.json"
CARD_SCHEMA = "server-card.draft.schema.json"
CARD_TYPE = "application/mcp-server-card+json"
MAX_BYTES = 256 * 1024  # a server.json or card larger than this is not read (the registry's are a few KB)
QUOTED = 120  # characters of a declared or live value quoted in a finding
DESCRIPTION_MAX = 100  # server.json `description` (the registry schema's maxLength; mcp-publisher rejects more)


class Unreadable(Exception):
    """A declared document that cannot be read as a JSON object (too big, not JSON, not an object)."""


@dataclass(frozen=True)
class Declared:
    """One document: what it is ("server.json" or "Server Card"), where it came from, and its JSON object."""

    what: str
    where: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Disagreement:
    """One field where the document and the live server differ. `proven`: the two sides contradict each other (a
    fail); otherwise they may both be right (a warn that says what would decide it)."""

    field: str
    declared: str
    live: str
    proven: bool
    why: str

    def message(self, what: str) -> str:
        return f"{what} says {self.field} {self.declared}; the server says {self.live}: {self.why}"


def quote(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return repr(text[:QUOTED] + ("…" if len(text) > QUOTED else ""))


def parse(text: str, what: str, where: str) -> Declared:
    from mcp_review.untrusted import loads

    if len(text) > MAX_BYTES:
        raise Unreadable(f"{where} is {len(text):,} characters, over the {MAX_BYTES:,} a {what} may have")
    try:
        data = loads(text)
    except ValueError as e:
        raise Unreadable(f"{where} is not JSON: {str(e)[:200]}") from None
    if not isinstance(data, dict):
        raise Unreadable(f"{where} is not a JSON object")
    return Declared(what, where, data)


def read_server_json(path: str | Path) -> Declared:
    """The server.json at `path` (raises Unreadable)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise Unreadable(f"{path}: {e.strerror or e}") from None
    return parse(raw.decode("utf-8", errors="replace"), SERVER_JSON, str(path))


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    text = resources.files("mcp_review").joinpath("data", "declared", name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    if name == CARD_SCHEMA:  # the draft's schema.json holds its definitions only: validate as its ServerCard
        schema = {**schema, "$ref": "#/$defs/ServerCard"}
    return schema


def check_schema(doc: Declared) -> Outcome:
    """`doc` against its vendored schema, offline (format keywords are not asserted, as jsonschema's default)."""
    return validate(doc.data, _schema(SERVER_JSON_SCHEMA if doc.what == SERVER_JSON else CARD_SCHEMA), limit=8)


# ------------------------------------------------------------------------------------------ compare with the wire
def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _same_url(a: str, b: str) -> bool:
    pa, pb = urlsplit(a), urlsplit(b)
    return (pa.scheme, pa.netloc.lower(), pa.path.rstrip("/")) == (pb.scheme, pb.netloc.lower(), pb.path.rstrip("/"))


def identity(doc: Declared, snapshot: ServerSnapshot) -> list[Disagreement]:
    """name, version and title against what the server says of itself (serverInfo)."""
    out: list[Disagreement] = []
    info = snapshot.server_info or {}
    name, live_name = _str(doc.data.get("name")), _str(info.get("name"))
    if name and live_name and live_name not in (name, name.split("/", 1)[-1]):
        why = (
            "the registry name (reverse-DNS) and serverInfo.name are separate namespaces, so this may be by design; "
            "a serverInfo.name equal to the name or to its part after '/' would settle it"
        )
        out.append(Disagreement("name", quote(name), f"serverInfo.name {quote(live_name)}", False, why))
    version, live_version = _str(doc.data.get("version")), _str(info.get("version")) or None  # "": an SDK's default
    if version and live_version is None:
        why = "the server sends no serverInfo.version (or an empty one); the registry says the two are equivalent"
        out.append(Disagreement("version", quote(version), "no version", False, why))
    elif version and version != live_version:
        why = "the registry schema defines it as the equivalent of Implementation.version (serverInfo.version)"
        out.append(Disagreement("version", quote(version), f"serverInfo.version {quote(live_version)}", True, why))
    title, live_title = _str(doc.data.get("title")), _str(info.get("title"))
    if title and live_title and title != live_title:
        why = "a host may show either; only one can be meant"
        out.append(Disagreement("title", quote(title), f"serverInfo.title {quote(live_title)}", False, why))
    return out


def _remotes(doc: Declared) -> list[dict[str, Any]]:
    remotes = doc.data.get("remotes")
    return [r for r in remotes if isinstance(r, dict)] if isinstance(remotes, list) else []


def _packages(doc: Declared) -> list[dict[str, Any]]:
    packages = doc.data.get("packages")
    return [p for p in packages if isinstance(p, dict)] if isinstance(packages, list) else []


def _declared_transports(doc: Declared) -> set[str]:
    kinds = {str(r.get("type")) for r in _remotes(doc)}
    for p in _packages(doc):
        transport = p.get("transport")
        if isinstance(transport, dict):
            kinds.add(str(transport.get("type")))
    return kinds


LIVE_KIND = {"stdio": "stdio", "http": "streamable-http", "sse": "sse"}  # a target's kind as server.json names it


def transports(doc: Declared, target: Target, snapshot: ServerSnapshot) -> list[Disagreement]:
    """The transport the review speaks with the server against the transports and remotes the document declares."""
    live = LIVE_KIND[target.kind]
    declared = _declared_transports(doc)
    out: list[Disagreement] = []
    if target.url:
        for remote in _remotes(doc):
            url, kind = _str(remote.get("url")), _str(remote.get("type"))
            if url and _same_url(url, target.url) and kind and kind != live:
                why = f"this review spoke {live} with that very URL and the server answered"
                out.append(Disagreement("remotes[].type", f"{quote(kind)} for {quote(url)}", quote(live), True, why))
            versions = remote.get("supportedProtocolVersions")
            same = bool(url and _same_url(url, target.url))
            if same and isinstance(versions, list) and snapshot.revision and snapshot.revision not in versions:
                shown = quote(", ".join(str(v) for v in versions[:8]))
                why = "the server negotiated a revision the document says this remote does not support"
                field = "remotes[].supportedProtocolVersions"
                out.append(Disagreement(field, f"{shown} for {quote(url)}", f"revision {snapshot.revision}", True, why))
    if declared and live not in declared and not out:  # a remote already contradicted says it better
        why = (
            "the server may also be run in a way the document does not describe (from source, behind a proxy); "
            "a declared transport of this kind would settle it"
        )
        shown = quote(", ".join(sorted(declared)))
        out.append(Disagreement("transports", shown, f"this review speaks {live}", False, why))
    return out


def packages(doc: Declared, target: Target) -> list[Disagreement]:
    """Package identifiers against the command a stdio review runs, and each package's version against the document's.

    The command names a package when it runs one through its registry's runner (`npx [-y] ID[@V]`, `uvx ID`,
    `pipx run ID`, `docker run … IMAGE`) or lies inside its install (`node_modules/ID/`); anything else (a script
    from source) names none and is not compared."""
    out: list[Disagreement] = []
    version = _str(doc.data.get("version"))
    for p in _packages(doc):
        pv, ident = _str(p.get("version")), _str(p.get("identifier")) or "?"
        if version and pv and pv != version:
            why = "the registry publishes one server version; a package of another version is another release"
            out.append(
                Disagreement(f"packages[] {quote(ident)} version", quote(pv), f"version {quote(version)}", False, why)
            )
    named = package_in_command(target)
    idents = [i for p in _packages(doc) if (i := _str(p.get("identifier")))]
    if named and idents and not any(_names(i, named) for i in idents):
        why = "the reviewed command runs a package the document does not list (or lists under another identifier)"
        out.append(
            Disagreement(
                "packages[].identifier", quote(", ".join(idents[:6])), f"the command runs {quote(named)}", True, why
            )
        )
    return out


def _names(identifier: str, named: str) -> bool:
    """Whether a package identifier (an npm/PyPI name, an OCI reference) names the package a command runs."""
    return _bare(identifier) == _bare(named)


def _bare(ref: str) -> str:
    """A package reference without its version (`@s/p@1.2` -> `@s/p`, `p==1.2` -> `p`, `ghcr.io/o:1` -> `ghcr.io/o`)."""
    ref = ref.strip().lower().split("==", 1)[0]
    if ref.rfind("@") > 0:
        ref = ref[: ref.rfind("@")]
    if ":" in ref.rsplit("/", 1)[-1]:
        ref = ref[: ref.rfind(":")]
    return ref.replace("_", "-")


RUNNERS = {"npx": "npm", "uvx": "pypi", "pipx": "pypi", "docker": "oci", "podman": "oci"}


def package_in_command(target: Target) -> str | None:
    """The package a stdio target's command runs, when the command says so (see `packages`)."""
    if target.kind != "stdio" or not target.command:
        return None
    argv = [target.command, *target.args]
    runner = Path(argv[0]).name
    if runner in RUNNERS:
        rest = [a for a in argv[1:] if not a.startswith("-") and a not in ("run", "exec")]
        return rest[0] if rest else None
    root = npm_root(target)
    return (
        root.relative_to(root.parent.parent if root.parent.name.startswith("@") else root.parent).as_posix()
        if root
        else None
    )


def npm_root(target: Target) -> Path | None:
    """The installed npm package a stdio command runs from (`node_modules/ID/`, a `.bin` link followed), or None."""
    for arg in [target.command or "", *target.args]:
        path = Path(arg)
        if "node_modules" in path.parts and path.exists():
            path = path.resolve()  # a node_modules/.bin/NAME link leads into its package
        parts = path.parts
        if "node_modules" not in parts:
            continue
        i = len(parts) - 1 - parts[::-1].index("node_modules") + 1  # the innermost node_modules
        if i < len(parts) and parts[i] != ".bin":
            end = i + 2 if parts[i].startswith("@") else i + 1
            return Path(*parts[:end])
    return None


def ownership(doc: Declared, target: Target) -> list[Disagreement]:
    """npm: the registry publishes a server only when its package's `package.json` says `mcpName` = its name."""
    root, name = npm_root(target), _str(doc.data.get("name"))
    if root is None or name is None:
        return []
    try:
        manifest = parse(
            (root / "package.json").read_text(encoding="utf-8", errors="replace"), "package.json", str(root)
        )
    except (OSError, Unreadable):
        return []
    owner = manifest.data.get("mcpName")
    if owner == name:
        return []
    why = "the registry verifies an npm package's ownership by its package.json mcpName, which must be the name"
    live = f"{root.name} package.json mcpName {quote(owner) if isinstance(owner, str) else 'missing'}"
    return [Disagreement("packages[].mcpName", quote(name), live, True, why)]


def description(doc: Declared) -> str | None:
    """The registry's 100-character limit on `description`, said with the count (None: within it)."""
    text = _str(doc.data.get("description"))
    if text is None or len(text) <= DESCRIPTION_MAX:
        return None
    return (
        f"{doc.what} ({doc.where}) has a description of {len(text)} characters: the registry schema allows "
        f"{DESCRIPTION_MAX} and mcp-publisher rejects more"
    )


def compare(doc: Declared, target: Target, snapshot: ServerSnapshot) -> list[Disagreement]:
    return [
        *identity(doc, snapshot),
        *transports(doc, target, snapshot),
        *packages(doc, target),
        *ownership(doc, target),
    ]
