"""Decisions bound to what they decided (issue 39): the digest of a subject's content as a review saw it.

A waiver or an attestation records the digest of its subject's content (`digest`) and the version of the rule it
decided on (`version`); when either changes, the decision no longer applies, and the finding says "waived for an
earlier version" with what changed (`changed`, from the per-part digests `parts`). The content is:

- a tool, prompt, resource or template: its definition(s) as the server sent them (every copy listed under that
  name), hashed as the lock hashes them: SHA-256 of RFC 8785 (JCS); its parts are its top-level fields;
- the server (a decision with no subject): for an attestation, the server's surface (serverInfo, instructions and
  every listing as sent: a manual rule judges the server's code, and any change of what it offers re-opens the
  question); for a waiver, the finding's evidence: its message with the numbers and the random tokens of this run
  (latencies, canary values) taken out, so the same fact keeps its digest from run to run and another does not.

A decision written without a digest (a file from before this, or one written by hand) is bound on first use: to
what the review saw when it first applied it, and the review says so (`bound`). A waiver with no subject and no
digest covers every subject of its rule whatever their content, bound to the rule's version only.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, Protocol

import rfc8785  # the JSON Canonicalization Scheme (RFC 8785): number and string forms exactly as the standard says

from mcp_review.tokens import canonical

PART = 12  # hex digits kept of each part's digest: enough to tell which part changed
# what varies between two runs that found the same fact: numbers (latencies, counts, ports) and random tokens
_VARIES = re.compile(r"\b(?=[A-Za-z0-9_-]{12,}\b)(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]+\b|\d+(?:\.\d+)?")


def definition_sha256(raw: Any) -> str:
    """SHA-256 of the RFC 8785 form. A value JCS cannot express (an integer beyond 2**53, a NaN from a hostile
    server) is hashed from its sorted compact JSON instead, prefixed so it never equals a JCS hash's input."""
    try:
        data = rfc8785.dumps(raw)
    except rfc8785.CanonicalizationError:
        data = b"non-jcs:" + canonical(raw).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


Content = dict[str, Any]  # {"digest": "sha256:<hex>", "parts": {name: <PART hex>}}


PARTS = 32  # parts kept by name: a hostile definition's 10,000 fields are 31 and one "other fields"
NAME = 80  # characters of a part's name kept (a field's name is the server's, of any length)


def _content(whole: Any, parts: dict[str, Any]) -> Content:
    named = list(parts.items())
    if len(named) > PARTS:
        named = [*named[: PARTS - 1], ("other fields", dict(named[PARTS - 1 :]))]
    return {
        "digest": f"sha256:{definition_sha256(whole)}",
        "parts": {str(name)[:NAME]: definition_sha256(value)[:PART] for name, value in named},
    }


def of_definitions(raws: list[Any]) -> Content:
    """A tool's (prompt's, resource's) definitions as sent; parts: the fields of the first copy, and `copies`."""
    first = raws[0] if raws and isinstance(raws[0], dict) else {}
    parts = dict(first) | ({"copies": len(raws)} if len(raws) != 1 else {})
    return _content(raws[0] if len(raws) == 1 else raws, parts)


def of_server(surface: dict[str, Any]) -> Content:
    """The server's surface: {"serverInfo", "instructions", "tools", "resources", ...} as sent."""
    return _content(surface, surface)


def of_evidence(message: str) -> Content:
    """A finding's evidence: its message without what varies between runs (numbers, random tokens)."""
    return _content(_VARIES.sub("0", message), {})


WORDS = {"inputSchema": "input schema", "outputSchema": "output schema", "serverInfo": "server info"}


def changed(before: dict[str, str] | None, now: dict[str, str] | None) -> str:
    """What changed between two contents' parts, in words: "its description and input schema changed"."""
    if not before or not now:
        return "its content changed"
    differ = [k for k in dict.fromkeys([*before, *now]) if before.get(k) != now.get(k)]
    if not differ:
        return "its content changed"
    named = [WORDS.get(k, k) for k in differ[:4]] + ([f"{len(differ) - 4} more"] if len(differ) > 4 else [])
    return f"its {', '.join(named[:-1])} and {named[-1]} changed" if len(named) > 1 else f"its {named[0]} changed"


class Decided(Protocol):
    """What a decision reads of a finding (`review.Finding` is one)."""

    @property
    def rule(self) -> str: ...
    @property
    def subject(self) -> str | None: ...
    @property
    def known(self) -> Any: ...  # review.Known | None


@dataclass(kw_only=True)  # after a decision's own fields: Waiver(rule, reason, by, ...) reads as before
class Bound:
    """What binds a decision to what it decided: its subject's content (`digest`, with the digests of its `parts` to
    say what changed) and its rule's `version` when it was made; `bound` says how ("on first use, DATE": it was
    written without them and bound to what the review first applied it to); `state`, what the last review made of
    it (live, stale, unused), is the review's and never written to a config file."""

    digest: str | None = None
    version: int | None = None
    parts: dict[str, str] | None = None
    bound: str | None = None
    state: str | None = None

    def lapsed(self, content: Content | None, version: int | None) -> str | None:
        """Why the decision no longer applies to a subject of `content` (None: not known) judged by the rule's
        `version` (None: not known); None when it applies."""
        if self.version is not None and version is not None and version != self.version:
            return f"the rule changed (version {self.version}, now {version})"
        if self.digest is None:
            return None
        if content is None:
            return "this review did not record its subject's content"
        return None if content["digest"] == self.digest else changed(self.parts, content["parts"])

    def bind(self, content: Content | None, version: int | None, today: dt.date | None = None) -> bool:
        """Bind a decision written without a digest (or a version) to what the review saw; True if it did."""
        if (self.digest is not None or content is None) and (self.version is not None or version is None):
            return False
        if self.digest is None and content is not None:
            self.digest, self.parts = content["digest"], dict(content["parts"])
        self.version = self.version if self.version is not None else version
        self.bound = f"on first use, {(today or dt.date.today()).isoformat()}"
        return True

    def binding(self) -> dict[str, Any]:
        """The binding as a config file writes it (`digest`, `version`, `parts`)."""
        out: dict[str, Any] = {"digest": self.digest, "version": self.version}
        return {k: v for k, v in {**out, "parts": self.parts}.items() if v is not None}


@dataclass
class Waiver(Bound):
    rule: str
    reason: str
    by: str
    subject: str | None = None  # None: every subject of the rule (with a digest: its finding on the server only)
    expires: str | None = None  # ISO date; after it the waiver no longer applies
    source: str | None = None  # where it was declared (config file) or "tui"
    commit: str | None = None  # the commit that last changed that file, when git tracks it
    origin: str | None = None  # "reviewer" or "repository" (see mcp_review.trust); None: the app's reviewer
    known: str | None = None  # a known SDK behaviour (mcp_review.known): every fail it explains, whatever its subject

    def expired(self, today: dt.date | None = None) -> bool:
        return bool(self.expires) and dt.date.fromisoformat(str(self.expires)) < (today or dt.date.today())

    def covers(self, finding: Decided) -> bool:
        if self.rule != finding.rule:
            return False
        if self.known is not None:
            return finding.known is not None and finding.known.behaviour == self.known
        if self.subject is None:  # bound to a finding's evidence: that finding on the server, not the rule's others
            return self.digest is None or finding.subject is None
        return self.subject == finding.subject


@dataclass
class Attestation(Bound):
    """A person's verdict on a manual rule: `pass` (it holds) or `fail` (it does not)."""

    rule: str
    by: str
    note: str
    status: Literal["pass", "fail"] = "pass"
    subject: str | None = None
    source: str | None = None
    commit: str | None = None
    origin: str | None = None


def to_json(decision: Waiver | Attestation) -> dict[str, Any]:
    """A decision as a review saves it: its own fields, then its binding (what is not set is left out)."""
    data = asdict(decision)
    bound = {f.name for f in fields(Bound)}
    return {k: v for k, v in data.items() if k not in bound} | {k: data[k] for k in bound if data[k] is not None}
