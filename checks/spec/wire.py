"""Pack `spec` (seed 002 and the MCP specification): official schemas, a clean stdout, notification names."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

from mcp_review.checks.spec.common import SEED, stated
from mcp_review.limits import LIMITS
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

PER_METHOD = 1000  # unasked messages of one method validated by spec.wire-schema
REPEATED = 8192  # bytes from which a message is validated once, however often the server sends it again


@rule(
    "spec.wire-schema",
    concern="protocol",
    severity="medium",
    modes=("observe",),
    source=f"{SEED} Protocol layer: camelCase field names",
)
def wire_schema(ctx: CheckContext) -> Iterator[Finding]:
    """Every message from the server validates against the official schema of the negotiated revision.

    What it checks: observe: every message the server sent on the review's own session (not the deliberately odd
    probes) is validated with jsonschema against the vendored schema.json of the negotiated revision: the envelope,
    and the specific result, notification or request definition for its method. Of the messages the server sends
    unasked (notifications, requests), the first PER_METHOD (1,000) of each method are validated: a flood of 100,000
    progress notifications says nothing the first thousand do not, and would take minutes. A message over 1 MB
    (MCP_REVIEW_LIMITS schema_bytes) is not validated either: a prompt of 100,000 messages took 20 s. A message of
    8 KB or more that repeats one already validated (the same content but its id, answering the same method) is
    validated once: a server that answered every call with the same round of 1,000 `inputRequests` took 27 s.

    Why: seed 002 (all JSON field names camelCase, the official TypeScript schema is the source of truth; RPC-01):
    clients parse by that schema, so a misnamed or mistyped field is dropped or breaks them.

    Spec: the negotiated revision's official schema.json (RPC-01)

    Known false positives: none known: only what the server sent on the review's own session is judged, against the
    official schema of the revision the server itself negotiated. Unasked messages beyond the first 1,000 of a
    method, and messages over 1 MB, are not validated: a pass does not cover them (the message says how many, and
    which).

    Passes: every validated message valid. Fails: any problem, each with its wire entry and JSON path (e.g.
    result.tools[3].inputSchema).
    """
    from mcp_review.schemas import validate_wire

    conn = ctx.session.channel.conn if ctx.session.channel else None
    seen: dict[str, int] = {}

    big: list[int] = []  # received messages too large to validate in reasonable time
    contents: set[bytes] = set()  # what the large messages validated so far said
    repeats: list[int] = []

    def sampled(entry: Any) -> bool:
        if entry.direction == "recv" and entry.size > LIMITS.schema_bytes:
            big.append(entry.seq)
            return False
        if entry.direction == "recv" and entry.size >= REPEATED:
            said = _content(entry)
            if said in contents:
                repeats.append(entry.seq)
                return False
            contents.add(said)
        method = entry.method if entry.direction == "recv" else None
        if method is None:
            return True
        seen[method] = seen.get(method, 0) + 1
        return seen[method] <= PER_METHOD

    entries = [e for e in ctx.wire.entries if e.conn == conn and sampled(e)]
    problems = validate_wire(entries, ctx.revision, conn)
    checked = sum(1 for e in entries if e.direction == "recv")
    skipped = sum(max(0, n - PER_METHOD) for n in seen.values())
    notes = [f"{skipped} more unasked messages of the same methods not validated"] if skipped else []
    if repeats:
        notes.append(f"{len(repeats)} message(s) repeating one validated, validated once (#{repeats[0]}, ...)")
    if big:
        shown = ", ".join(f"#{seq}" for seq in big[:5])
        notes.append(f"{len(big)} message(s) over {LIMITS.schema_bytes:,} bytes not validated ({shown})")
    checked_note = f" ({'; '.join(notes)})" if notes else ""
    if problems:
        listed = "; ".join(f"#{p.seq} {p.definition} {p.path or '(message)'}: {p.message}" for p in problems[:8])
        more = f" (+{len(problems) - 8} more)" if len(problems) > 8 else ""
        yield ctx.fail(
            None,
            f"{len(problems)} schema problem(s) against {ctx.revision}: {listed}{more}{checked_note}",
            sorted({p.seq for p in problems})[:20],
        )
    else:
        yield ctx.passed(None, f"{checked} server messages valid against the {ctx.revision} schema{checked_note}")


def _content(entry: Any) -> bytes:
    """A digest of what a message says, its id left out, with the methods it answers (the schema it is judged by)."""
    message = entry.message
    body = {k: v for k, v in message.items() if k != "id"} if isinstance(message, dict) else message
    methods = [link.method for link in entry.links or []]
    text = json.dumps([methods, body], sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@rule(
    "spec.stdio-clean",
    concern="protocol",
    severity="high",
    modes=("observe",),
    source=f"{SEED} Protocol layer",
    transport="stdio",
)
def stdio_clean(ctx: CheckContext) -> Iterator[Finding]:
    """A stdio server writes nothing but JSON-RPC messages on stdout.

    What it checks: observe: every stdout line of every connection of the review (session and probes) that is not a
    JSON-RPC message was kept as noise; any fails (logs belong on stderr). n/a over HTTP.

    Why: seed 002 protocol layer; RPC-09: on stdio, stdout is the message channel; a log line or banner there
    corrupts the stream for every client that does not skip it.

    Spec: all revisions (RPC-09)

    Known false positives: none known: a line on stdout that is not a JSON-RPC message breaks the stdio transport
    whatever it says (a pretty-printed message split over lines too). Lines written on a probe connection count as
    well: the same server wrote them.

    Passes: stdout carried only JSON-RPC. Fails: any other line (the count and the first one quoted).
    """
    noise = [e for e in ctx.wire.entries if e.direction == "noise"]
    if noise:
        first = (noise[0].text or "")[:120]
        yield ctx.fail(
            None, f"{len(noise)} non-JSON-RPC line(s) on stdout, first: {first!r}", [e.seq for e in noise[:5]]
        )
    else:
        lines = sum(1 for _ in ctx.wire.messages("recv"))
        yield ctx.passed(None, f"stdout carried only JSON-RPC ({lines} messages)")


def _camel_to_snake(method: str) -> str:
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", method).lower()


@rule(
    "spec.notification-names",
    concern="protocol",
    severity="low",
    modes=("observe",),
    source=f"{SEED} Notifications: method strings use underscores",
)
def notification_names(ctx: CheckContext) -> Iterator[Finding]:
    """Notification methods use the spec's names (`notifications/tools/list_changed`, not `listChanged`).

    What it checks: observe: every notification the server sent during the review is compared with the notification
    methods of the negotiated revision's schema. A camelCase variant of a spec name fails; another unknown
    `notifications/...` method warns (it may be an extension). n/a when the server sent no notification during the
    review.

    Why: seed 002 Notifications: method strings use underscores (`list_changed`) while capability keys use camelCase
    (`listChanged`); clients dispatch on the exact string, so a camelCase method is never handled.

    Spec: all revisions

    Known false positives: a server that sends the camelCase form next to the spec form for old clients fails: seed
    002 asks emitters to produce only the underscore form. Vendor notifications only warn. Notifications the server
    did not send during the review are not judged.

    Passes: every notification uses a spec name. Fails: a camelCase variant. Warns: an unknown method.
    """
    from mcp_review.schemas import server_notification_methods

    known = server_notification_methods(ctx.revision)
    seen = [(e.method, e.seq) for e in ctx.wire.messages("recv") if e.kind == "notification" and e.method]
    if not seen:
        yield ctx.na(None, "the server sent no notifications during the review")
        return
    wrong = [(m, s) for m, s in seen if m not in known and _camel_to_snake(m) in known]
    odd = [(m, s) for m, s in seen if m not in known and (m, s) not in wrong]
    if wrong:
        yield ctx.fail(
            None,
            f"camelCase notification method(s): {', '.join(sorted({m for m, _ in wrong}))} "
            f"(spec: {_camel_to_snake(wrong[0][0])})",
            [s for _, s in wrong[:5]],
        )
    elif odd:
        yield ctx.warn(
            None,
            f"notification method(s) not in {ctx.revision}: {', '.join(sorted({m for m, _ in odd}))}",
            [s for _, s in odd[:5]],
        )
    else:
        yield ctx.passed(None, f"{len(seen)} notification(s), all spec names")


ANSWER_IDS_SHOWN = 5  # wrong answers named in a finding; a hostile server may send 100,000


@rule(
    "spec.response-ids",
    concern="protocol",
    severity="high",
    modes=("observe",),
    source=f"{SEED} Protocol layer: JSON-RPC",
)
def response_ids(ctx: CheckContext) -> Iterator[Finding]:
    """Every answer carries the id of the request it answers.

    What it checks: observe, over every connection of the review, as the wire log paired each answer when it was
    recorded (`connection/pairing.py`): an answer that came back on the HTTP exchange of one request with another
    id than that request's (mcp 1.x servers answer errors with `"id": "server-error"`), and an answer whose id
    names no request sent on its connection, fail (MUST, every revision: 2025-11-25 basic/index.mdx:69 for
    results, :89 for errors; 2026-07-28 :70, :103). A second answer to one request warns. An error without an id
    (`null`) is not judged: the spec allows it where the request could not be read, and an HTTP refusal (a
    foreign Origin, an unknown session) MAY carry one with no id.

    Why: seed 002 protocol layer; spec.md RPC-02: a client matches an answer to its request by the id; one with
    another id is lost, and the request it answers waits until its timeout (over stdio it never arrives at all).

    Spec: all revisions (RPC-02)

    Known false positives: none known for the fails: the id is on the wire, and the request it should have named
    is the one whose POST it came back on (HTTP) or none at all. An error with a null id to a request that could
    be read is not failed (a false negative).

    Passes: every answer with its request's id. Fails: an answer with another id, or one naming no request.
    Warns: a request answered twice.
    """
    from mcp_review.connection.pairing import is_answer

    wrong: list[tuple[str, list[int | None]]] = []
    kinds: dict[str | None, int] = {}  # request method -> its first wrong answer's index in `wrong`
    twice: list[tuple[str, list[int | None]]] = []
    answers = 0
    for entry in ctx.wire.messages("recv"):
        elements = entry.message if isinstance(entry.message, list) else [entry.message]
        for link in entry.links or []:
            element = elements[link.at] if link.at < len(elements) else None
            if not (isinstance(element, dict) and is_answer(element)):
                continue
            answers += 1
            if element.get("id") is None:
                continue
            rid = json.dumps(element["id"])[:80]
            if link.state == "by-exchange":
                said = f"#{entry.seq} answers {link.method} #{link.request} (on its POST) with id {rid}"
                kinds.setdefault(link.method, len(wrong))
                wrong.append((said, [entry.seq, link.request]))
            elif link.state == "unpaired":
                wrong.append((f"#{entry.seq} carries id {rid}, which no request on its connection had", [entry.seq]))
            elif link.state == "duplicate":
                twice.append((f"#{entry.seq} answers {link.method} #{link.request} again", [entry.seq, link.request]))
    rev = ctx.revision
    if wrong:
        # one answer per request method first, then the rest in wire order: a server that answers every error with
        # another id shows each kind of request it broke, not five of the liveness pings a review sends between rules
        firsts = set(kinds.values())
        wrong = [wrong[i] for i in sorted(firsts)] + [w for i, w in enumerate(wrong) if i not in firsts]
        shown = "; ".join(said for said, _ in wrong[:ANSWER_IDS_SHOWN])
        more = f" (+{len(wrong) - ANSWER_IDS_SHOWN} more)" if len(wrong) > ANSWER_IDS_SHOWN else ""
        where = stated("response-id", rev) + (f", {stated('error-id', rev)}" if rev >= "2025-11-25" else "")
        yield ctx.fail(
            None,
            f"{len(wrong)} answer(s) without their request's id: {shown}{more}. A response MUST carry the id of the "
            f"request it answers ({where})",
            [seq for _, seqs in wrong[:ANSWER_IDS_SHOWN] for seq in seqs],
        )
    if twice:
        shown = "; ".join(said for said, _ in twice[:ANSWER_IDS_SHOWN])
        yield ctx.warn(
            "answered twice",
            f"{len(twice)} request(s) answered more than once: {shown} (JSON-RPC 2.0 answers a request once)",
            [seq for _, seqs in twice[:ANSWER_IDS_SHOWN] for seq in seqs],
        )
    if not (wrong or twice):
        yield ctx.passed(None, f"{answers} answer(s), each with its request's id")
