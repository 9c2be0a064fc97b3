"""Pack `tokens`, seed 000 §6 Transport, §7 request_id and §8 panic isolation: how the server runs and answers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from mcp_review.calls import CallRecord
from mcp_review.catalog import Item
from mcp_review.checks.tokens.common import SEED
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule


@rule("tokens.transport", concern="conventions", severity="low", modes=("probe",), source=f"{SEED} §6 Transport")
async def transport(ctx: CheckContext) -> AsyncIterator[Finding]:
    """No SSE transport is offered (stdio or Streamable HTTP only).

    What it checks: the reviewed target itself must not be legacy HTTP+SSE (the finding cites the GET that opened
    its event stream); for a Streamable HTTP server, `GET {origin}/sse` must not answer 200 text/event-stream (the
    finding cites that GET and its status line).
    Why: seed 000 §6 Transport: SSE is deprecated in the MCP spec; the seed's servers ship stdio and
    Streamable HTTP only.
    Known false positives: a GET that sends no headers within the probe timeout only warns (suggestive of a
    stream, not proof). Only `/sse` at the origin's root is tried: SSE served elsewhere is not found.
    Passes: stdio, or no SSE stream at /sse. Fails: reviewed over HTTP+SSE, or /sse answers 200
    text/event-stream. Warns: /sse sent no answer in time.
    """
    if ctx.target.kind == "sse":
        conn = ctx.session.channel.conn if ctx.session.channel else None
        opened = next((e for e in ctx.wire.entries if e.conn == conn and (e.http or {}).get("method") == "GET"), None)
        shown = f": GET {ctx.target.url} opened its event stream" if opened else ""
        yield ctx.fail(
            None, f"the server is reviewed over the legacy HTTP+SSE transport{shown}", [opened.seq if opened else None]
        )
        return
    if ctx.target.kind == "stdio":
        yield ctx.passed(None, "stdio")
        return
    from urllib.parse import urlsplit

    parts = urlsplit(ctx.target.url or "")
    url = f"{parts.scheme}://{parts.netloc}/sse"
    async with ctx.probe() as p:
        import asyncio

        try:
            ex = await asyncio.wait_for(
                p.http("GET", url, headers={"Accept": "text/event-stream"}, omit=["Content-Type"]),
                ctx.probe_timeout,
            )
        except TimeoutError:  # no headers at all: suggestive of a stream, not proof of one
            yield ctx.warn(
                None,
                f"GET {url} sent no answer within {ctx.probe_timeout:g}s: maybe an SSE stream that waits for "
                "events; a response with Content-Type text/event-stream would prove it",
            )
            return
    if ex.status == 200 and "text/event-stream" in (ex.header("content-type") or ""):
        yield ctx.fail(None, f"GET {url} serves an SSE stream (HTTP {ex.status}, text/event-stream)", [ex.seq])
    else:
        yield ctx.passed(None, f"Streamable HTTP only (GET {url} -> {ex.status})", [ex.seq])


@rule(
    "tokens.request-id",
    concern="conventions",
    severity="low",
    modes=("call",),
    source=f"{SEED} §7 request_id in success envelope",
)
def request_id(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Success envelopes carry `_meta.request_id`.

    What it checks: call: each callable tool's sample result (JSON in structuredContent or the text block) must have
    a non-empty `_meta.request_id`.

    Why: seed 000 §7: respond() stamps `_meta.request_id` into every success value so a failure report can be traced
    to the server's logs; a wrapper that strips it loses that.

    Known false positives: the id is looked for inside the JSON payload (seed 000's envelope), not in the MCP
    result's own `_meta`: an id placed there fails. A refused sample call (an error, `isError`, or a refusal in
    plain text) has no success envelope to read: it is blocking, never a fail.

    Passes: `_meta.request_id` present. Fails: a success without it. Blocking: tools that may not be called, a
    sample call with no answer, and a tool that refused every sample call (the values its text offers included).

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """

    def judge(tool: Item, record: CallRecord, data: Any) -> Finding:
        meta = data.get("_meta") if isinstance(data, dict) else None
        if isinstance(meta, dict) and meta.get("request_id"):
            return ctx.passed(tool, "success envelope has _meta.request_id", [record.seq])
        return ctx.fail(tool, "success envelope without _meta.request_id", [record.seq])

    return ctx.samples("the request_id", judge)


@rule(
    "tokens.panic-isolation",
    concern="conventions",
    severity="medium",
    modes=("manual",),
    source=f"{SEED} §8 stdio panic isolation",
)
def panic_isolation(ctx: CheckContext) -> Iterator[Finding]:
    """A failing handler returns a generic internal error, never a crash or leaked panic text.

    What it checks: manual: each tool dispatch is wrapped (catch_unwind in the seed's Rust server) and the error
    says only "tool handler panicked". Only the source shows it: mcp-review cannot make a handler panic; a reviewer
    attests.

    Why: seed 000 §8 stdio panic isolation: on stdio a panic kills the process and the session with it; panic text
    leaked into an error exposes internals.

    Known false positives: none: the rule never fails by itself; only a reviewer's attestation decides.

    Passes: attested. Fails: a reviewer attests an unwrapped dispatch. Blocking: until attested.

    To verify when blocking: an [[attest]] entry for tokens.panic-isolation in mcp-review.toml (or the TUI), by a
    reviewer who read the dispatch code.
    """
    yield from ctx.manual("every tool dispatch is wrapped so a panic becomes a generic internal error.")
