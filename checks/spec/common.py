"""What the modules of pack `spec` share."""

from __future__ import annotations

from mcp_review.connection.errors import HttpError, RequestTimeout
from mcp_review.connection.probe import ProbeResult
from mcp_review.connection.protocol import modern_headers
from mcp_review.connection.transport import Outgoing
from mcp_review.review import Fact
from mcp_review.rules.context import CheckContext

SEED = "002"
# Streamable HTTP answered a request from a foreign Origin: spec.http-transport's fail, which
# review.browser-origins-refused (every HTTP transport, CORS too) finds as well
FOREIGN_ORIGIN = Fact("spec.http-transport", "a request with a foreign Origin is answered")
BOGUS_VERSION = "1999-01-01"  # a protocol version no server supports

# Where the specification states each requirement the rules below cite, per revision: the file and line under
# docs/specification/<revision>/ of modelcontextprotocol/modelcontextprotocol at b0f60ba (the commit the vendored
# schemas, inspector/data/schemas/SOURCES.md, come from). A finding names the line of the revision it judges by.
STATED: dict[str, dict[str, str]] = {
    "origin": {
        "2024-11-05": "basic/transports.mdx:55",
        "2025-03-26": "basic/transports.mdx:76",
        "2025-06-18": "basic/transports.mdx:76",
        "2025-11-25": "basic/transports.mdx:78",
        "2026-07-28": "basic/transports/streamable-http.mdx:58",
    },
    "request-answered": {
        "2025-03-26": "basic/transports.mdx:103",
        "2025-06-18": "basic/transports.mdx:97",
        "2025-11-25": "basic/transports.mdx:101",
        "2026-07-28": "basic/transports/streamable-http.mdx:88",
    },
    "unsupported": {"2026-07-28": "basic/versioning.mdx:48"},  # UnsupportedProtocolVersionError, -32022
    "unsupported-400": {"2026-07-28": "basic/transports/streamable-http.mdx:264"},
    "server-info": {"2026-07-28": "basic/index.mdx:396"},  # every result's _meta SHOULD carry serverInfo
    "version-header": {"2026-07-28": "basic/transports/streamable-http.mdx:257"},  # header = _meta's, else -32020
    "modern-get": {"2026-07-28": "basic/transports/streamable-http.mdx:680"},  # a modern-only server: 405
    "header-mismatch": {"2026-07-28": "basic/transports/streamable-http.mdx:582"},  # missing or unlike: 400 -32020
    "header-case": {"2026-07-28": "basic/transports/streamable-http.mdx:574"},  # names case-insensitive, values not
    "streams": {  # the client MAY hold several streams; the server MUST NOT broadcast a message on more than one
        "2025-03-26": "basic/transports.mdx:151",
        "2025-06-18": "basic/transports.mdx:141",
        "2025-11-25": "basic/transports.mdx:158",
    },
    "priming": {"2025-11-25": "basic/transports.mdx:106"},  # SHOULD: an event stream begins with an id, no data
    "tool-names": {"2025-11-25": "server/tools.mdx:219", "2026-07-28": "server/tools.mdx:311"},
    "tool-order": {"2026-07-28": "server/tools.mdx:71"},  # SHOULD: the same order while the set is the same
    "tool-names-unique": {"2025-11-25": "server/tools.mdx:224", "2026-07-28": "server/tools.mdx:316"},
    "set-level": {
        "2024-11-05": "server/utilities/logging.mdx:47",
        "2025-03-26": "server/utilities/logging.mdx:47",
        "2025-06-18": "server/utilities/logging.mdx:49",
        "2025-11-25": "server/utilities/logging.mdx:49",
    },
    "set-level-invalid": {
        "2024-11-05": "server/utilities/logging.mdx:110",
        "2025-03-26": "server/utilities/logging.mdx:110",
        "2025-06-18": "server/utilities/logging.mdx:112",
        "2025-11-25": "server/utilities/logging.mdx:112",
    },
    "unasked-logs": {"2026-07-28": "server/utilities/logging.mdx:63"},
    "subscribe": {
        "2024-11-05": "server/resources.mdx:47",
        "2025-03-26": "server/resources.mdx:45",
        "2025-06-18": "server/resources.mdx:47",
        "2025-11-25": "server/resources.mdx:47",
    },
    "not-found": {
        "2024-11-05": "server/resources.mdx:335",
        "2025-03-26": "server/resources.mdx:336",
        "2025-06-18": "server/resources.mdx:376",
        "2025-11-25": "server/resources.mdx:386",
        "2026-07-28": "server/resources.mdx:404",
    },
    "not-found-empty": {"2026-07-28": "server/resources.mdx:410"},
    "retired-codes": {"2026-07-28": "basic/index.mdx:138"},  # -32002 and -32042 are never emitted
    "completions": {
        "2025-03-26": "server/utilities/completion.mdx:24",
        "2025-06-18": "server/utilities/completion.mdx:26",
        "2025-11-25": "server/utilities/completion.mdx:26",
        "2026-07-28": "server/utilities/completion.mdx:35",
    },
    "completion-errors": {
        "2025-03-26": "server/utilities/completion.mdx:128",
        "2025-06-18": "server/utilities/completion.mdx:175",
        "2025-11-25": "server/utilities/completion.mdx:175",
        "2026-07-28": "server/utilities/completion.mdx:187",
    },
    "completion-values": {  # at most 100 values
        "2025-03-26": "server/utilities/completion.mdx:122",
        "2025-06-18": "server/utilities/completion.mdx:169",
        "2025-11-25": "server/utilities/completion.mdx:169",
        "2026-07-28": "server/utilities/completion.mdx:181",
    },
    "progress-may": {
        "2024-11-05": "basic/utilities/progress.mdx:32",
        "2025-03-26": "basic/utilities/progress.mdx:31",
        "2025-06-18": "basic/utilities/progress.mdx:33",
        "2025-11-25": "basic/utilities/progress.mdx:33",
        "2026-07-28": "basic/patterns/progress.mdx:33",
    },
    "progress-increase": {
        "2024-11-05": "basic/utilities/progress.mdx:50",
        "2025-03-26": "basic/utilities/progress.mdx:51",
        "2025-06-18": "basic/utilities/progress.mdx:53",
        "2025-11-25": "basic/utilities/progress.mdx:53",
        "2026-07-28": "basic/patterns/progress.mdx:53",
    },
    "progress-tokens": {  # only tokens of active requests
        "2024-11-05": "basic/utilities/progress.mdx:56",
        "2025-03-26": "basic/utilities/progress.mdx:58",
        "2025-06-18": "basic/utilities/progress.mdx:60",
        "2025-11-25": "basic/utilities/progress.mdx:60",
        "2026-07-28": "basic/patterns/progress.mdx:60",
    },
    "progress-stop": {  # they stop after completion
        "2024-11-05": "basic/utilities/progress.mdx:88",
        "2025-03-26": "basic/utilities/progress.mdx:90",
        "2025-06-18": "basic/utilities/progress.mdx:90",
        "2025-11-25": "basic/utilities/progress.mdx:94",
        "2026-07-28": "basic/patterns/progress.mdx:90",
    },
    "response-id": {
        "2024-11-05": "basic/index.mdx:12",
        "2025-03-26": "basic/index.mdx:67",
        "2025-06-18": "basic/index.mdx:70",
        "2025-11-25": "basic/index.mdx:69",
        "2026-07-28": "basic/index.mdx:70",
    },
    "error-id": {"2025-11-25": "basic/index.mdx:89", "2026-07-28": "basic/index.mdx:103"},
    "request-meta": {"2026-07-28": "basic/index.mdx:380"},  # -32602, and HTTP 400
    "client-info": {"2026-07-28": "basic/index.mdx:376"},  # not required; clients SHOULD send it (:384)
    "removed": {"2026-07-28": "changelog.mdx:20"},  # ping and logging/setLevel (:18 subscribe, :14 initialize)
    "method-404": {"2026-07-28": "basic/transports/streamable-http.mdx:271"},
}


def stated(requirement: str, revision: str) -> str:
    """Where `revision` states `requirement` ("2025-11-25/server/utilities/logging.mdx:49", the path under
    docs/specification/): that revision's line, else the latest earlier revision's that states it, else the
    earliest."""
    lines = STATED[requirement]
    earlier = [r for r in sorted(lines) if r <= revision]
    rev = earlier[-1] if earlier else min(lines)
    return f"{rev}/{lines[rev]}"


def streamable(ctx: CheckContext) -> bool:
    """Streamable HTTP, where an answer's status is the spec's to name (over the legacy HTTP+SSE transport the
    answers come on the event stream, the POST's status says only that it was taken)."""
    return ctx.target.kind == "http"


async def ask(ctx: CheckContext, method: str, params: object = None, *, bare: bool = False) -> ProbeResult:
    """A request on the review's own session, kept as a probe keeps it: the answer, the HTTP status, or why none
    came (an HTTP error without a JSON-RPC body, no answer within the probe timeout). `bare`: sent as given, with
    none of the `_meta` the session stamps (the 2026-07-28 headers stay: they name the method)."""
    session = ctx.session
    try:
        if bare and session.channel is not None:
            how = Outgoing(headers=modern_headers(method, params, {}) if streamable(ctx) else {})
            reply = await session.channel.request(method, params, timeout=ctx.probe_timeout, how=how)
        else:
            reply = await session.request(method, params, timeout=ctx.probe_timeout)
    except HttpError as e:
        line = ctx.wire.response_line(e.exchange)
        return ProbeResult(seq=line.seq if line else None, status=e.status, failure=str(e))
    except RequestTimeout as e:
        return ProbeResult(failure=str(e))
    return ProbeResult(reply.message, reply.seq, reply.delivery.status, latency=reply.latency)
