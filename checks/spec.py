"""Pack `spec`: MCP specification compliance, judged by the revision the server negotiated.

Source: seed 002_a7a94a7cfe100f94.txt (an MCP 2025-11-25 compliance reviewer: wire names, version
negotiation, capabilities, tasks, icons, notifications) and the specification of each revision
(shared/reference/spec.md gives the requirement ids cited below, e.g. LC-03, PAG-02).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from checks.context import CheckContext
from checks.core import rule
from inspector.catalog import Item
from inspector.connection.session import KNOWN_VERSIONS, LEGACY_VERSIONS
from inspector.review import Finding

SEED = "002"
PER_METHOD = 1000  # unasked messages of one method validated by spec.wire-schema
BOGUS_VERSION = "1999-01-01"
TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@rule(
    "spec.version-negotiation",
    modes=("probe",),
    source=f"{SEED} Protocol layer: version negotiation",
    spec="all revisions (LC-02, LC-03; 2026-07-28 LC-06)",
)
async def version_negotiation(ctx: CheckContext) -> AsyncIterator[Finding]:
    """An unsupported requested version gets a version the server supports, not an echo; supported ones are honoured.

    What it checks: on a fresh connection each: legacy era: `initialize` with protocolVersion 1999-01-01 must be
    answered with a known version the server supports (echoing 1999-01-01 fails; an error with
    `data.supported` warns: the spec's error-handling example allows it, its normative text asks for a
    counter-offer); `initialize` with the negotiated revision must be echoed. 2026-07-28: `server/discover`
    with version 1999-01-01 must get -32022 UnsupportedProtocolVersion with `data.supported`.
    Why: seed 002 version negotiation (LC-02, LC-03; 2026-07-28 LC-06): a client that is told the version it
    asked for believes the server speaks it; only a counter-offer (or the supported list) lets it fall back.
    Known false positives: none known for the fails. A probe that got no answer (or a closed connection)
    proves nothing: blocking. A counter-offer of a revision mcp-review does not know yet (newer than
    KNOWN_VERSIONS) only warns. On 2026-07-28 over HTTP the bogus version goes in the header and the body
    alike, so a server that checks they agree is not failed for it.
    Passes: 1999-01-01 gets a supported version (or -32022 with data.supported) and the negotiated revision is
    echoed. Fails: an echo of 1999-01-01 or no version, the negotiated revision not echoed, no -32022 with
    data.supported on 2026-07-28. Warns: an error with data.supported instead of a counter-offer, or a
    revision mcp-review does not know. Blocking: no answer to the probe.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    async with ctx.probe() as p:
        if ctx.era == "modern":
            # Valid in everything but the version: over HTTP the header names the same bogus version as the
            # body (a server rightly rejects a header that contradicts the body, which would prove nothing).
            got = await p.modern(
                "server/discover",
                {"_meta": {"io.modelcontextprotocol/protocolVersion": BOGUS_VERSION}},
                headers={"MCP-Protocol-Version": BOGUS_VERSION} if p.is_http else None,
            )
            data = (got.error or {}).get("data")
            if not got.answered:
                yield ctx.blocking(None, f"no answer to server/discover with {BOGUS_VERSION}: {got.failure}", [got.seq])
            elif got.code == -32022 and isinstance(data, dict) and data.get("supported"):
                yield ctx.passed(None, f"1999-01-01 -> -32022 with supported {data.get('supported')}", [got.seq])
            else:
                yield ctx.fail(
                    None,
                    f"1999-01-01 -> {got.code or got.failure or got.result!r:.120} instead of -32022 "
                    "with data.supported",
                    [got.seq],
                )
            return
        got = await p.initialize(BOGUS_VERSION)
    answered = got.result.get("protocolVersion") if isinstance(got.result, dict) else None
    if not got.answered:  # no answer proves nothing about negotiation
        yield ctx.blocking(None, f"no answer to initialize with {BOGUS_VERSION}: {got.failure}", [got.seq])
        return
    if got.error is not None:
        yield ctx.warn(
            None,
            f"initialize with {BOGUS_VERSION} got error {got.code} instead of a counter-offer "
            "(normative text: respond with a supported version)",
            [got.seq],
        )
    elif answered == BOGUS_VERSION or not isinstance(answered, str):
        yield ctx.fail(
            None, f"initialize with {BOGUS_VERSION} was answered {answered!r}: not a version it supports", [got.seq]
        )
        return
    elif answered not in KNOWN_VERSIONS:  # maybe a revision newer than mcp-review knows: not proof
        yield ctx.warn(
            None,
            f"initialize with {BOGUS_VERSION} was answered {answered!r}, a revision mcp-review does not know",
            [got.seq],
        )
        return
    async with ctx.probe() as p:
        same = await p.initialize(ctx.revision)
    echoed = same.result.get("protocolVersion") if isinstance(same.result, dict) else None
    if echoed != ctx.revision:
        yield ctx.fail(None, f"initialize with its own version {ctx.revision} was answered {echoed!r}", [same.seq])
    elif got.error is None:
        yield ctx.passed(None, f"{BOGUS_VERSION} -> {answered}; {ctx.revision} -> {echoed}", [got.seq, same.seq])


CAPS = (("tools", "tools/list"), ("resources", "resources/list"), ("prompts", "prompts/list"))


@rule(
    "spec.capabilities",
    modes=("probe", "observe"),
    source=f"{SEED} Protocol layer: capabilities",
    spec="all revisions (CAP-01, LG-01)",
)
async def capabilities(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Declared capabilities match what is served, and their shapes match the schema.

    What it checks: each capability value must be an object (`listChanged`, `subscribe` booleans); for tools,
    resources and prompts not declared, `<x>/list` must not list items (items served is an undeclared
    capability, CAP-01: fail; an empty list warns, -32601 is expected); declared ones must list without
    error; log notifications (`notifications/message`)
    without a declared `logging` capability fail.
    Why: seed 002 capabilities (CAP-01, LG-01): clients decide what to ask for by the declared capabilities;
    a server serving what it did not declare, or declaring what it cannot serve, is misread.
    Known false positives: none known for the fails (a declared list failing means a JSON-RPC error or a
    result without its array). An empty list served without the capability only warns. Logging is judged
    only by what was sent during the review.
    Passes: declared capabilities well-shaped and served as declared. Fails: a malformed capability, a
    declared list that failed, items served without the capability, logs without `logging`. Warns: an empty
    list answered for an undeclared capability.
    """
    caps = ctx.snapshot.capabilities
    problems: list[str] = []
    quirks: list[str] = []
    seqs: list[int | None] = [ctx.snapshot.hello_seq]
    quiet: list[int | None] = []
    for name, value in caps.items():
        if not isinstance(value, dict):
            problems.append(f"capability {name!r} is {type(value).__name__}, not an object")
        elif any(k in value and not isinstance(value[k], bool) for k in ("listChanged", "subscribe")):
            problems.append(f"capability {name!r} has a non-boolean listChanged/subscribe")
    for name, method in CAPS:
        if name in caps:
            listing = next(li for li in ctx.snapshot.lists.values() if li.spec.method == method)
            if listing.error:
                problems.append(f"declares {name} but {method} failed: {listing.error}")
                seqs.append(listing.error_seq)
            continue
        reply = await ctx.session.request(method, {})
        if reply.error is None:
            items = reply.result.get(name) if isinstance(reply.result, dict) else None
            if items:  # serves items of a capability it did not declare (CAP-01)
                problems.append(f"does not declare {name!r} but {method} lists {len(items)}")
                seqs.append(reply.seq)
            else:  # an empty list serves nothing: suggestive, not a violation
                quirks.append(f"{method} answers an empty list though {name!r} is not declared (-32601 expected)")
                quiet.append(reply.seq)
    logs = [e.seq for e in ctx.wire.messages("recv") if e.method == "notifications/message"]
    if logs and "logging" not in caps:
        problems.append(f"sends notifications/message ({len(logs)}) without declaring logging")
        seqs.append(logs[0])
    if problems:
        yield ctx.fail(None, "; ".join(problems), seqs)
    elif quirks:
        yield ctx.warn(None, "; ".join(quirks), [*seqs, *quiet])
    else:
        yield ctx.passed(None, f"declared {', '.join(sorted(caps)) or 'nothing'}; served as declared", seqs)


@rule(
    "spec.wire-schema",
    modes=("observe",),
    source=f"{SEED} Protocol layer: camelCase field names",
    spec="the negotiated revision's official schema.json (RPC-01)",
)
def wire_schema(ctx: CheckContext) -> Iterator[Finding]:
    """Every message from the server validates against the official schema of the negotiated revision.

    What it checks: observe: every message the server sent on the review's own session (not the deliberately odd
    probes) is validated with jsonschema against the vendored schema.json of the negotiated revision: the envelope,
    and the specific result, notification or request definition for its method. Of the messages the server sends
    unasked (notifications, requests), the first PER_METHOD (1,000) of each method are validated: a flood of 100,000
    progress notifications says nothing the first thousand do not, and would take minutes.

    Why: seed 002 (all JSON field names camelCase, the official TypeScript schema is the source of truth; RPC-01):
    clients parse by that schema, so a misnamed or mistyped field is dropped or breaks them.

    Known false positives: none known: only what the server sent on the review's own session is judged, against the
    official schema of the revision the server itself negotiated. Unasked messages beyond the first 1,000 of a
    method are not validated: a pass does not cover them (the message says how many).

    Passes: every validated message valid. Fails: any problem, each with its wire entry and JSON path (e.g.
    result.tools[3].inputSchema).
    """
    from inspector.schemas import validate_wire

    conn = ctx.session.channel.conn if ctx.session.channel else None
    seen: dict[str, int] = {}

    def sampled(entry: Any) -> bool:
        method = entry.method if entry.direction == "recv" else None
        if method is None:
            return True
        seen[method] = seen.get(method, 0) + 1
        return seen[method] <= PER_METHOD

    entries = [e for e in ctx.wire.entries if e.conn == conn and sampled(e)]
    problems = validate_wire(entries, ctx.revision, conn)
    checked = sum(1 for e in entries if e.direction == "recv")
    skipped = sum(max(0, n - PER_METHOD) for n in seen.values())
    checked_note = f" ({skipped} more unasked messages of the same methods not validated)" if skipped else ""
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


@rule(
    "spec.stdio-clean",
    modes=("observe",),
    source=f"{SEED} Protocol layer",
    spec="all revisions (RPC-09)",
    transport="stdio",
)
def stdio_clean(ctx: CheckContext) -> Iterator[Finding]:
    """A stdio server writes nothing but JSON-RPC messages on stdout.

    What it checks: observe: every stdout line of every connection of the review (session and probes) that is not a
    JSON-RPC message was kept as noise; any fails (logs belong on stderr). n/a over HTTP.

    Why: seed 002 protocol layer; RPC-09: on stdio, stdout is the message channel; a log line or banner there
    corrupts the stream for every client that does not skip it.

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
    modes=("observe",),
    source=f"{SEED} Notifications: method strings use underscores",
    spec="all revisions",
)
def notification_names(ctx: CheckContext) -> Iterator[Finding]:
    """Notification methods use the spec's names (`notifications/tools/list_changed`, not `listChanged`).

    What it checks: observe: every notification the server sent during the review is compared with the notification
    methods of the negotiated revision's schema. A camelCase variant of a spec name fails; another unknown
    `notifications/...` method warns (it may be an extension). n/a when the server sent no notification during the
    review.

    Why: seed 002 Notifications: method strings use underscores (`list_changed`) while capability keys use camelCase
    (`listChanged`); clients dispatch on the exact string, so a camelCase method is never handled.

    Known false positives: a server that sends the camelCase form next to the spec form for old clients fails: seed
    002 asks emitters to produce only the underscore form. Vendor notifications only warn. Notifications the server
    did not send during the review are not judged.

    Passes: every notification uses a spec name. Fails: a camelCase variant. Warns: an unknown method.
    """
    from inspector.schemas import server_notification_methods

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


@rule("spec.tool-names", modes=("static",), source=f"{SEED} Protocol layer", spec="2025-11-25 tool names (SEP-986)")
def tool_names(ctx: CheckContext) -> Iterator[Finding]:
    """Tool names follow the revision's rules (1-128 characters of A-Z a-z 0-9 _ . -) and are unique across pages.

    What it checks: static: every listed tool name, across all pages, against 1-128 characters of `[A-Za-z0-9_.-]`,
    and uniqueness.

    Why: seed 002 protocol layer; MCP 2025-11-25 tool names (SEP-986): clients key tools by name, some refuse other
    characters, and a duplicate makes calls ambiguous.

    Known false positives: the spec text (2025-11-25, 2026-07-28) says 1-128 characters from `[A-Za-z0-9_.-]`;
    SEP-986 itself and the conformance suite say 1-64 and also allow `/`. This rule follows the spec text and notes
    names over 64 characters: a name with `/`, which the conformance suite accepts, fails on a 2025-11-25 server.
    Before 2025-11-25 the guidance did not exist: violations warn.

    Passes: valid and unique (a name over 64 characters is noted). Fails: no name, a duplicate, a name breaking the
    rule (from 2025-11-25). Warns: a name breaking the rule before 2025-11-25.
    """
    strict = ctx.revision_at_least("2025-11-25")
    seen: set[str] = set()
    for tool in ctx.snapshot.tools:
        name = tool.name
        if name is None:
            yield ctx.fail(tool, "has no name")
            continue
        if name in seen:
            yield ctx.fail(tool, f"{name!r} is listed more than once")
            continue
        seen.add(name)
        if not TOOL_NAME.match(name):
            bad = sorted({c for c in name if not re.match(r"[A-Za-z0-9_.-]", c)})
            why = f"{len(name)} characters" if not 1 <= len(name) <= 128 else f"characters {bad!r}"
            message = f"{name!r} breaks the naming rule ({why})"
            yield ctx.fail(tool, message) if strict else ctx.warn(tool, f"{message}; a SHOULD from 2025-11-25")
        else:
            note = " (over 64 characters: SEP-986 and the conformance suite cap at 64)" if len(name) > 64 else ""
            yield ctx.passed(tool, "valid and unique" + note)


@rule(
    "spec.unknown-method",
    modes=("probe",),
    source=f"{SEED} Server & framework layer: handler dispatch",
    spec="JSON-RPC 2.0; 2026-07-28 HTTP: 404 + -32601 (RPC-05)",
)
async def unknown_method(ctx: CheckContext) -> AsyncIterator[Finding]:
    """An unknown method gets JSON-RPC -32601 (and HTTP 404 on 2026-07-28 Streamable HTTP).

    What it checks: probe: `mcp-review/no-such-method` on the review's session; the JSON-RPC error code, and on
    2026-07-28 Streamable HTTP the HTTP status.

    Why: seed 002 handler dispatch; JSON-RPC 2.0 and RPC-05: clients tell "not supported" from "failed" by -32601;
    2026-07-28 adds HTTP 404.

    Known false positives: none known: JSON-RPC 2.0 defines -32601 for an unknown method. A request that gets no
    answer in time stops the rule as blocking (could not finish), not as a fail.

    Passes: -32601 (with 404 on 2026-07-28 Streamable HTTP). Fails: another code or a result; -32601 with another
    HTTP status on 2026-07-28.
    """
    reply = await ctx.session.request("mcp-review/no-such-method", {})
    code = (reply.error or {}).get("code")
    if code != -32601:
        yield ctx.fail(None, f"unknown method -> {code if reply.error else 'a result'}, not -32601", [reply.seq])
    elif ctx.era == "modern" and ctx.target.kind == "http" and reply.delivery.status != 404:
        yield ctx.fail(None, f"-32601 with HTTP {reply.delivery.status}; 2026-07-28 requires 404", [reply.seq])
    else:
        yield ctx.passed(None, "unknown method -> -32601", [reply.seq])


@rule("spec.ping", modes=("probe",), source=f"{SEED} Server & framework layer", spec="≤2025-11-25 (PING-01)")
async def ping(ctx: CheckContext) -> AsyncIterator[Finding]:
    """`ping` is answered promptly with an empty result.

    What it checks: probe: `ping` on the review's session, waiting the probe timeout; the answer must be the empty
    result `{}`. n/a on 2026-07-28, which removed `ping`.

    Why: seed 002 server layer; PING-01: clients and gateways use ping to tell a live connection from a dead one;
    the spec requires an empty result.

    Known false positives: none known. A `ping` that gets no answer within the probe timeout stops the rule as
    blocking (could not finish), not as a fail.

    Passes: `{}`. Fails: an error or any other result.
    """
    if ctx.era == "modern":
        yield ctx.na(None, "2026-07-28 removed ping")
        return
    reply = await ctx.session.request("ping", None, timeout=ctx.probe_timeout)
    if reply.error is None and reply.result == {}:
        yield ctx.passed(None, f"answered {{}} in {reply.latency * 1000:.0f} ms", [reply.seq])
    else:
        yield ctx.fail(None, f"ping -> {reply.error or reply.result!r:.120}, not an empty result", [reply.seq])


@rule(
    "spec.pagination",
    modes=("probe", "static"),
    source=f"{SEED} Server & framework layer",
    spec="≥2025-03-26 (PAG-01, PAG-02)",
)
async def pagination(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Cursors work (no loops, no duplicates across pages); an invalid cursor gets -32602.

    What it checks: static: the listing already walked every page of every list (loop guard on); a listing that
    stopped on a cursor defect fails. probe: `tools/list` with an invalid cursor on the review's session.
    Duplicate tool names across pages are judged by `spec.tool-names`.

    Why: seed 002 server layer; PAG-01, PAG-02: a cursor that comes back makes a client page forever, and an invalid
    cursor SHOULD get -32602 rather than silently restart the list.

    Known false positives: none known for the fails: only a defect the server showed (a cursor that came
    back, a nextCursor that is not a string) fails. A listing stopped by a limit of mcp-review's (a later
    page with no answer in time, walking over 4 x --timeout, the page cap) is blocking. An invalid cursor
    accepted only warns.

    Passes: every list walked to its end; an invalid cursor -> -32602. Fails: a listing stopped early (a loop, a
    non-string cursor, a timeout or a cap). Warns: an invalid cursor accepted or answered with another code (a
    SHOULD). n/a for the cursor probe when the server declares no tools. Blocking: a listing stopped by a limit.

    To verify when blocking: a longer --timeout (or --budget), so the whole listing can be walked.
    """
    for listing in ctx.snapshot.lists.values():
        if listing.stopped and listing.broken:
            yield ctx.fail(listing.spec.key, listing.stopped, listing.seqs[-1:])
        elif listing.stopped:  # a limit of mcp-review's (time, page cap, a slow page): not the server's defect
            yield ctx.blocking(
                listing.spec.key,
                f"{listing.stopped}: the rest was not walked (a longer --timeout would)",
                listing.seqs[-1:],
            )
    if "tools" not in ctx.snapshot.capabilities:
        yield ctx.na(None, "no tools to page through")
        return
    reply = await ctx.session.request("tools/list", {"cursor": "!!mcp-review-invalid-cursor!!"})
    code = (reply.error or {}).get("code")
    pages = len(ctx.snapshot.tools.seqs)
    if code == -32602:
        yield ctx.passed(None, f"{pages} page(s) walked; an invalid cursor -> -32602", [reply.seq])
    elif reply.error is not None:
        yield ctx.warn(None, f"an invalid cursor -> {code}; the spec says -32602", [reply.seq])
    else:
        yield ctx.warn(None, "an invalid cursor was accepted (SHOULD be -32602)", [reply.seq])


ICON_THEMES = ("light", "dark")


def _icon_problems(icons: Any) -> list[str]:
    if not isinstance(icons, list):
        return ["icons is not an array"]
    problems = []
    for i, icon in enumerate(icons):
        if not isinstance(icon, dict) or not isinstance(icon.get("src"), str):
            problems.append(f"icons[{i}] is not an object with a string src")
            continue
        scheme, colon, _ = icon["src"].partition(":")
        if not colon or not scheme.isalpha():
            problems.append(f"icons[{i}].src {icon['src'][:60]!r} is not an absolute URI (https:, http: or data:)")
        elif scheme.lower() not in ("https", "data", "http"):
            problems.append(f"icons[{i}].src uses {scheme.lower()}: (only https, http or data)")
        if "mimeType" in icon and not isinstance(icon["mimeType"], str):
            problems.append(f"icons[{i}].mimeType is not a string")
        if "sizes" in icon and not (isinstance(icon["sizes"], list) and all(isinstance(s, str) for s in icon["sizes"])):
            problems.append(f"icons[{i}].sizes is not an array of strings")
        if "theme" in icon and icon["theme"] not in ICON_THEMES:
            problems.append(f"icons[{i}].theme {icon['theme']!r} is not light or dark")
    return problems


@rule("spec.icons", modes=("static",), source=f"{SEED} Concrete type-to-spec mapping: Icons", spec="2025-11-25 (icons)")
def icons(ctx: CheckContext) -> Iterator[Finding]:
    """Icons are arrays of `{src, mimeType?, sizes?, theme?}` with https or data: sources.

    What it checks: static: `icons` on serverInfo, tools, resources, templates and prompts. A singular icon, a
    string array, a `javascript:`/`file:` source (any scheme but https, http and data), a non-string mimeType,
    string `sizes` or an unknown theme fail. n/a with no icons.

    Why: seed 002 Icons: `icons?: Icon[]`, an array of `{src, mimeType?, sizes?, theme?}` objects, not a string or a
    single object; clients render the sources, so a script or local-file source is a risk.

    Known false positives: none known for the shape. A relative `src` (`/icon.png`) fails as an unknown scheme: the
    spec names HTTP(S) URLs and data: URIs only. `http:` sources pass though the message asks for https.

    Passes: well-formed icons. Fails: each malformed icon array, its problems listed.
    """
    subjects: list[tuple[Item | None, Any]] = []
    if isinstance(ctx.snapshot.server_info, dict) and "icons" in ctx.snapshot.server_info:
        subjects.append((None, ctx.snapshot.server_info["icons"]))
    for listing in ctx.snapshot.lists.values():
        subjects += [
            (item, item.get("icons")) for item in listing if "icons" in (item.raw if isinstance(item.raw, dict) else {})
        ]
    if not subjects:
        yield ctx.na(None, "nothing has icons")
        return
    for subject, value in subjects:
        problems = _icon_problems(value)
        yield ctx.fail(subject, "; ".join(problems)) if problems else ctx.passed(subject, "icons well-formed")


@rule("spec.tasks", modes=("probe", "call"), source=f"{SEED} Task handlers", spec="2025-11-25 tasks; 2026-07-28 ext")
async def tasks(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Task-augmented calls follow the spec: `tasks/*` semantics and `taskSupport` enforcement.

    What it checks: every `taskSupport` is forbidden|optional|required, and optional|required only on a server that
    declares tasks (warn otherwise). The rest applies only when the server declares tasks (2025-11-25
    `capabilities.tasks`, 2026-07-28 the `io.modelcontextprotocol/tasks` extension): n/a otherwise;
    `tasks/get` with an unknown taskId must get
    -32602; a `required` tool called without a task must get -32601 (seed 002 says InvalidParameters:
    the spec's tool-level negotiation says -32601 MUST, its error-handling section allows -32600; both
    are cited) — that part needs a call permission, else blocking.
    Why: seed 002 Task handlers (MCP 2025-11-25 tasks): clients rely on tasks/* errors and on `taskSupport`
    enforcement to know whether a call runs as a task.
    Known false positives: a `required` tool answered with -32600 or -32602 passes (both cited); a call that
    timed out has no error code and fails. A `tasks/get` that gets no answer stops the rule as blocking.
    Passes: -32602 for an unknown taskId; a `required` tool refused without a task. Fails: an invalid
    taskSupport value, another answer to tasks/get, a `required` tool that ran without a task. Warns:
    optional|required on a server that declares no tasks.
    To verify when blocking: `--calls read-only` for a read-only `required` tool, `--calls all` (consent)
    for others, or calls.allow.
    """
    caps = ctx.snapshot.capabilities
    ext = (caps.get("extensions") or {}) if isinstance(caps.get("extensions"), dict) else {}
    declared = "tasks" in caps or "io.modelcontextprotocol/tasks" in ext
    supports = {
        t.name: (t.get("execution") or {}).get("taskSupport")
        for t in ctx.snapshot.tools
        if isinstance(t.get("execution"), dict)
    }
    for tool in ctx.snapshot.tools:
        value = supports.get(tool.name)
        if tool.name in supports and value not in ("forbidden", "optional", "required"):
            yield ctx.fail(tool, f"execution.taskSupport {value!r} is not forbidden|optional|required")
        elif value in ("optional", "required") and not declared:
            yield ctx.warn(
                tool,
                f"execution.taskSupport is {value!r} but the server declares no tasks capability: clients must "
                "not use tasks then, so the tool can never run as one",
            )
    if not declared:  # tasks/* are only defined for a server that declares them: -32601 is then correct
        yield ctx.na(None, "the server declares no tasks capability: tasks/* are not judged")
        return
    reply = await ctx.session.request("tasks/get", {"taskId": "mcp-review-no-such-task"})
    code = (reply.error or {}).get("code")
    if code == -32602:
        yield ctx.passed(None, "tasks/get with an unknown taskId -> -32602", [reply.seq])
    else:
        yield ctx.fail(
            None, f"tasks/get with an unknown taskId -> {code if reply.error else 'a result'}, not -32602", [reply.seq]
        )
    for tool in ctx.snapshot.tools:
        if supports.get(tool.name) != "required":
            continue
        from checks.util import valid_arguments

        record = await ctx.try_call(tool, valid_arguments(tool), "taskSupport: required enforcement")
        if isinstance(record, Finding):
            yield record
            continue
        code = (record.error or {}).get("code")
        if code in (-32601, -32600, -32602):
            yield ctx.passed(tool, f"called without a task -> {code}", [record.seq])
        else:
            yield ctx.fail(
                tool, f"taskSupport is required, yet a call without a task -> {record.outcome}", [record.seq]
            )


@rule(
    "spec.http-transport",
    modes=("probe",),
    source=f"{SEED} Server & framework layer",
    spec="Streamable HTTP ≥2025-03-26 (HT-02, HT-04, HT-10..HT-14); 2026-07-28 (HM-01, HM-04, HM-08)",
    transport="http",
)
async def http_transport(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Sessions, `MCP-Protocol-Version`, 404 on an unknown session, Origin validation, content types.

    What it checks: probe (fresh connections): legacy era: the session id is visible ASCII; a session the server
    ended (after the client's DELETE was accepted) gets 404 (MUST); a session id never issued should get 404
    (warn); one without a session id gets 400 (SHOULD: warn); an invalid MCP-Protocol-Version gets 400
    (>=2025-06-18); a notification POST gets 202; a foreign Origin gets 403 (>=2025-11-25, any 4xx before).
    2026-07-28: a request without Mcp-Method gets 400 / -32020; GET gets 405 (SHOULD: warn); a foreign Origin gets
    403. Responses to requests are application/json or text/event-stream. n/a on stdio and legacy SSE.

    Why: seed 002 server layer; Streamable HTTP (HT-02, HT-04, HT-10..HT-14; 2026-07-28 HM-01, HM-04, HM-08):
    session ids and version headers keep one client's state apart from another's, and Origin validation stops
    DNS-rebinding attacks from a browser, on local servers above all.

    Known false positives: none known for a probe that got no answer: it proves nothing, so the rule is
    blocking (not failed) when nothing else failed, and says which probes went unanswered. A server behind a
    gateway is judged by the gateway's status codes. A server that issues no session id skips the
    session checks.

    Passes: every check as the spec says. Fails: any MUST broken (listed). Warns: only SHOULDs broken.
    Blocking: a probe got no answer and nothing else failed.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    if ctx.target.kind != "http":
        yield ctx.na(None, "legacy HTTP+SSE transport: see tokens.transport")
        return
    fails: list[str] = []
    warns: list[str] = []
    silent: list[str] = []  # probes that got no answer: they prove nothing either way
    seqs: list[int | None] = []
    evil = {"Origin": "http://evil.example"}

    def heard(got: Any, what: str) -> bool:
        if got.status is None:
            silent.append(f"{what} ({got.failure or 'no answer'})")
            seqs.append(got.seq)
        return got.status is not None

    sid: str | None = None
    async with ctx.probe() as p:
        if ctx.era == "modern":
            got = await p.modern("tools/list", headers={"Mcp-Method": ""}, omit=["Mcp-Method"])
            seqs.append(got.seq)
            if heard(got, "no Mcp-Method header") and (got.status != 400 or got.code != -32020):
                fails.append(f"no Mcp-Method header -> HTTP {got.status} {got.code}, not 400 / -32020")
            get = await p.http("GET", omit=["Content-Type"], headers={"Accept": "text/event-stream"})
            if get.status != 405:
                warns.append(f"GET -> {get.status}; a modern-only server SHOULD answer 405")
        else:
            init = await p.initialize(ctx.revision)
            seqs.append(init.seq)
            sid = getattr(p.transport, "session_id", None)
            if sid is not None and not re.fullmatch(r"[\x21-\x7e]+", sid):
                fails.append("Mcp-Session-Id has characters outside visible ASCII")
            if sid is not None:
                # The MUST is about a session the server ended (404 tells the client to start anew); an id it
                # never issued is not named by it, so that answer is only judged against the same SHOULD.
                got = await p.request("tools/list", {}, headers={"Mcp-Session-Id": "mcp-review-bogus-session"})
                if heard(got, "an unknown session id") and got.status != 404:
                    warns.append(f"a session id it never issued -> HTTP {got.status}; 404 is expected")
                got = await p.request("tools/list", {}, omit=["Mcp-Session-Id"])
                if heard(got, "no session id") and got.status != 400:
                    warns.append(f"no session id -> HTTP {got.status}; SHOULD be 400")
        if sid is not None:
            async with ctx.probe() as ended:  # a session of its own, ended by DELETE, then used again
                await ended.initialize(ctx.revision)
                if getattr(ended.transport, "session_id", None):
                    bye = await ended.http("DELETE", omit=["Content-Type"])
                    if 200 <= bye.status < 300:
                        got = await ended.request("tools/list", {})
                        seqs.append(got.seq)
                        if heard(got, "a session it ended") and got.status != 404:
                            fails.append(f"a session it ended (DELETE -> {bye.status}) -> HTTP {got.status}, not 404")
            if ctx.revision_at_least("2025-06-18"):
                got = await p.request("tools/list", {}, headers={"MCP-Protocol-Version": BOGUS_VERSION})
                if heard(got, f"MCP-Protocol-Version {BOGUS_VERSION}") and got.status != 400:
                    fails.append(f"MCP-Protocol-Version {BOGUS_VERSION} -> HTTP {got.status}, not 400")
            ex = await p.http("POST", body='{"jsonrpc":"2.0","method":"notifications/initialized"}')
            if ex.status != 202:
                fails.append(f"a notification POST -> HTTP {ex.status}, not 202")
        async with ctx.probe() as fresh:
            bad_origin = await (
                fresh.modern("server/discover", headers=evil)
                if ctx.era == "modern"
                else fresh.request("initialize", _init_params(ctx.revision), headers=evil)
            )
    want_403 = ctx.revision_at_least("2025-11-25")
    status = bad_origin.status
    if heard(bad_origin, "a foreign Origin") and ((want_403 and status != 403) or (status or 0) < 400):
        fails.append(f"Origin http://evil.example -> HTTP {status}" + (", not 403" if want_403 else ", not rejected"))
    seqs.append(bad_origin.seq)
    unproven = f"no answer in time to: {'; '.join(silent)}" if silent else ""
    if fails:
        yield ctx.fail(None, "; ".join(fails + warns + ([unproven] if unproven else [])), seqs)
    elif silent:
        yield ctx.blocking(None, f"{unproven}; a longer --timeout would verify them", seqs)
    elif warns:
        yield ctx.warn(None, "; ".join(warns), seqs)
    else:
        yield ctx.passed(None, "sessions, version header, Origin and status codes as the spec says", seqs)


def _init_params(revision: str) -> dict[str, Any]:
    from inspector.connection.session import CLIENT_INFO

    version = revision if revision in LEGACY_VERSIONS else LEGACY_VERSIONS[0]
    return {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO}
