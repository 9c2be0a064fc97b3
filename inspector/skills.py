"""MCP-served skills (SEP-2640, extension `io.modelcontextprotocol/skills`) as a reviewer reads them, headless: the
listing (`skills/list`, paginated), one entry (`skills/get`), and each file read with `resources/read` as the raw
bytes its digest covers. The `spec.skills-*` and `review.skills-safe` rules judge them; `list`, the lock, `diff` and
the app's Skills view show them, so this lives in the core, which may not import a rule pack.

Names are the spec's (ext-skills `specification/stable/skills.mdx`): a `Skill` entry is `{uri, frontmatter,
resources}` where `resources` is `[{uri, digest: "sha256:<64 hex>", size}]` or the string `"dynamic"`; the
extension's one setting is `directoryRead`. Everything here came from the server: listings stop at the caps of
`mcp_review.limits`, reads at FILES_READ files and FILE_BYTES bytes each, frontmatter at FRONTMATTER_CHARS.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import time
from dataclasses import dataclass, field
from typing import Any

from mcp_review.connection.channel import BudgetSpent
from mcp_review.connection.errors import ConnectionFailed
from mcp_review.connection.session import Session
from mcp_review.limits import LIMITS
from mcp_review.paging import LISTING_TIMEOUTS, Cursors

EXTENSION = "io.modelcontextprotocol/skills"
DYNAMIC = "dynamic"
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
FILES_READ = 200  # skill files read per review: a hostile server can list thousands
FILE_BYTES = 16 << 20  # the spec's per-skill total (16 MiB); a file past it is not kept
FRONTMATTER_CHARS = 64 * 1024  # characters of a SKILL.md's frontmatter parsed


def settings(capabilities: Any) -> dict[str, Any] | None:
    """The extension's settings when the server declares it (`{}` for a non-object value), else None."""
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    if not isinstance(extensions, dict) or EXTENSION not in extensions:
        return None
    value = extensions[EXTENSION]
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class SkillFile:
    """One entry of a skill's `resources` manifest."""

    uri: str
    digest: str | None
    size: int | None


@dataclass
class Read:
    """One `resources/read` of a skill file: the bytes its digest covers (UTF-8 of `text`, or the decoded `blob`)."""

    uri: str
    seq: int | None = None
    data: bytes | None = None
    text: str | None = None  # the text a model reads (a blob that is UTF-8 text too)
    result: Any = None  # the wire result, for the scanner
    error: str | None = None

    @property
    def digest(self) -> str | None:
        return f"sha256:{hashlib.sha256(self.data).hexdigest()}" if self.data is not None else None


@dataclass
class Skill:
    """A `Skill` entry as sent, where it came from, and what is wrong with its shape."""

    raw: Any
    seq: int | None
    problems: list[str] = field(default_factory=list)
    reads: dict[str, Read] = field(default_factory=dict)  # by URI, once read

    @property
    def uri(self) -> str | None:
        value = self.raw.get("uri") if isinstance(self.raw, dict) else None
        return value if isinstance(value, str) else None

    @property
    def key(self) -> str:
        return self.uri or "(no uri)"

    @property
    def frontmatter(self) -> dict[str, Any]:
        value = self.raw.get("frontmatter") if isinstance(self.raw, dict) else None
        return value if isinstance(value, dict) else {}

    @property
    def name(self) -> str:
        value = self.frontmatter.get("name")
        return value if isinstance(value, str) else ""

    @property
    def description(self) -> str:
        value = self.frontmatter.get("description")
        return value if isinstance(value, str) else ""

    @property
    def dynamic(self) -> bool:
        return isinstance(self.raw, dict) and self.raw.get("resources") == DYNAMIC

    @property
    def files(self) -> list[SkillFile]:
        value = self.raw.get("resources") if isinstance(self.raw, dict) else None
        out = []
        for entry in value if isinstance(value, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("uri"), str):
                digest, size = entry.get("digest"), entry.get("size")
                sized = size if isinstance(size, int) and not isinstance(size, bool) else None
                out.append(SkillFile(entry["uri"], digest if isinstance(digest, str) else None, sized))
        return out


def shape(raw: Any) -> list[str]:
    """What makes a `Skill` entry invalid (the spec's TypeScript shape)."""
    if not isinstance(raw, dict):
        return [f"not an object: {type(raw).__name__}"]
    out = [] if isinstance(raw.get("uri"), str) else ["no uri"]
    front = raw.get("frontmatter")
    if not isinstance(front, dict):
        out.append("no frontmatter object")
    else:
        out += [f"frontmatter has no {k} string" for k in ("name", "description") if not isinstance(front.get(k), str)]
    resources = raw.get("resources")
    if resources != DYNAMIC and not isinstance(resources, list):
        out.append('resources is neither an array nor "dynamic"' if "resources" in raw else "no resources")
    for i, entry in enumerate(resources if isinstance(resources, list) else []):
        if not isinstance(entry, dict) or not isinstance(entry.get("uri"), str):
            out.append(f"resources[{i}] has no uri")
        elif not DIGEST.fullmatch(str(entry.get("digest"))):
            out.append(f"resources[{i}].digest is not sha256:<64 lowercase hex>")
        elif not isinstance(entry.get("size"), int) or isinstance(entry.get("size"), bool):
            out.append(f"resources[{i}] has no size")
    return out


@dataclass
class Catalog:
    """What `skills/list` answered, page by page."""

    skills: list[Skill] = field(default_factory=list)
    pages: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (seq, the page's result less skills)
    error: str | None = None
    error_seq: int | None = None
    stopped: str | None = None  # why the listing was cut (a cap, a loop, a timeout)

    def skill(self, uri: str) -> Skill | None:
        return next((s for s in self.skills if s.uri == uri), None)


async def list_skills(session: Session, *, max_pages: int = LIMITS.listing_pages) -> Catalog:
    """Follow `skills/list` cursors to the end, a repeated cursor, `max_pages`, LIMITS.listing_items skills, or
    LISTING_TIMEOUTS x the request timeout in all."""
    catalog = Catalog()
    ends, cursors, cursor = time.monotonic() + LISTING_TIMEOUTS * session.timeout, Cursors(), None
    for page in range(max_pages):
        try:
            reply = await session.request("skills/list", {"cursor": cursor} if cursor is not None else {})
        except (ConnectionFailed, BudgetSpent) as e:
            catalog.stopped = f"page {page + 1}: {e}"
            return catalog
        result = reply.result
        if reply.error is not None or not isinstance(result, dict) or not isinstance(result.get("skills"), list):
            got = f"JSON-RPC error {str(reply.error)[:200]}" if reply.error is not None else "no 'skills' array"
            catalog.error, catalog.error_seq = f"skills/list answered {got}", reply.seq
            return catalog
        catalog.pages.append((reply.seq, {k: v for k, v in result.items() if k != "skills"}))
        room = LIMITS.listing_items - len(catalog.skills)
        catalog.skills += [Skill(raw, reply.seq, shape(raw)) for raw in result["skills"][:room]]
        after = cursors.after(reply, page + 1)
        if len(result["skills"]) > room:
            catalog.stopped = f"stopped at {LIMITS.listing_items:,} skills (MCP_REVIEW_LIMITS listing_items)"
        elif after.stopped:
            catalog.stopped = after.stopped
        elif after.cursor is not None and time.monotonic() > ends:
            catalog.stopped = f"stopped after {page + 1} pages: over {LISTING_TIMEOUTS} x --timeout"
        if after.cursor is None or catalog.stopped:
            return catalog
        cursor = after.cursor
    catalog.stopped = f"stopped after {max_pages} pages (MCP_REVIEW_LIMITS listing_pages)"
    return catalog


async def get_skill(session: Session, uri: str) -> tuple[Skill | None, Any, int | None]:
    """`skills/get` of `uri`: (the entry or None, the result or error object as sent, the exchange)."""
    try:
        reply = await session.request("skills/get", {"uri": uri})
    except (ConnectionFailed, BudgetSpent) as e:
        return None, {"message": str(e)}, None
    result = reply.result
    if reply.error is not None or not isinstance(result, dict) or "skill" not in result:
        return None, reply.error if reply.error is not None else result, reply.seq
    return Skill(result["skill"], reply.seq, shape(result["skill"])), result, reply.seq


def take(read: Read, result: Any) -> None:
    """`read` as a `resources/read` result gives it: the part for its URI (else the first), as raw bytes."""
    read.result = result
    parts = result.get("contents") if isinstance(result, dict) else None
    parts = [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
    part = next((p for p in parts if p.get("uri") == read.uri), parts[0] if parts else None)
    if part is None:
        read.error = "resources/read answered no contents"
    elif isinstance(part.get("text"), str):
        read.text = part["text"][:FILE_BYTES]
        read.data = part["text"].encode("utf-8", "surrogatepass")[:FILE_BYTES]
    elif isinstance(part.get("blob"), str):
        try:
            read.data = base64.b64decode(part["blob"][: FILE_BYTES // 3 * 4 + 4], validate=True)
        except (binascii.Error, ValueError):
            read.error = "its blob is not base64"
            return
        try:
            read.text = read.data.decode("utf-8")
        except UnicodeDecodeError:
            read.text = None  # binary: nothing a model reads as text
    else:
        read.error = "its contents carry neither text nor blob"


async def read_file(session: Session, uri: str) -> Read:
    read = Read(uri)
    try:
        reply = await session.request("resources/read", {"uri": uri})
    except (ConnectionFailed, BudgetSpent) as e:
        read.error = f"resources/read got no answer: {e}"
        return read
    read.seq = reply.seq
    if reply.error is not None:
        read.error = f"resources/read answered an error: {str(reply.error.get('message', reply.error))[:200]}"
    else:
        take(read, reply.result)
    return read


async def read_skills(
    session: Session, skills: list[Skill], budget: int = FILES_READ, *, manifests: bool = True
) -> int:
    """Read every file of `skills` (their `SKILL.md` first, then, with `manifests`, the manifests' files in order),
    at most `budget` reads in all, and none after a read that got no answer (a server that hangs costs one
    timeout, not one per file); return how many files were left unread."""
    wanted = [(s, s.uri) for s in skills if s.uri]
    wanted += [(s, f.uri) for s in skills for f in s.files if f.uri != s.uri] if manifests else []
    left = 0
    for skill, uri in wanted:
        if uri in skill.reads:
            continue
        if budget <= 0:
            left += 1
            continue
        read = skill.reads[uri] = await read_file(session, uri)
        budget = budget - 1 if read.seq is not None else 0
    return left


FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)


def parse_frontmatter(text: str) -> dict[str, Any] | str:
    """A SKILL.md's YAML frontmatter as an object, or why there is none."""
    match = FRONT.match(text[: FRONTMATTER_CHARS + 8])
    if match is None:
        return "SKILL.md does not begin with YAML frontmatter (--- ... ---)"
    # PyYAML's safe loader: no tags that build objects; aliases share nodes, so no expansion bomb
    import yaml  # type: ignore[import-untyped]

    try:
        value = yaml.safe_load(match.group(1))
    except yaml.YAMLError as e:
        return f"its frontmatter is not YAML: {str(e)[:200]}"
    if not isinstance(value, dict):
        return "its frontmatter is not a mapping"
    return value


def body(skill: Skill) -> str | None:
    """The SKILL.md text, once read."""
    read = skill.reads.get(skill.uri or "")
    return read.text if read is not None else None
