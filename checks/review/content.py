"""Pack `review` (seed 003): what the server says at run time: tool results, prompts, and its own requests.

`review.descriptions-grounded` reads what the listings say; these rules read what comes back when the
review uses the server, through the same scanner (`inspector/scan/`) and the same text walk
(`inspector/surfaces.py`), each with its own id so a reviewer can select or waive them apart.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from mcp_review import surfaces
from mcp_review.calls import CallRecord
from mcp_review.catalog import Item
from mcp_review.checks.apps.model import PAGE_KINDS, embedded_pages
from mcp_review.checks.review.common import SEED, disclosed, scanned, summary, verdict
from mcp_review.connection.errors import ConnectionFailed
from mcp_review.limits import LIMITS
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.scan.asks import form_asks_secret

SOURCE = f"{SEED} Security: descriptions-grounded"
EVIDENCE_CITED = 50  # messages cited by one finding; a server can send thousands of log lines
SCANNED = 2000  # distinct texts scanned per method (a flood of different lines is cut there, and said so)


@rule(
    "review.results-safe",
    concern="security",
    severity="high",
    modes=("call", "observe"),
    source=f"{SOURCE} (tool results)",
)
async def results_safe(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Tool results carry no instructions aimed at the model, no credentials, no hidden or control characters.

    What it checks: call: each tool the calling policy allows is called once with arguments generated from its
    schema (the review's shared sample call); observe: after every other rule, the results of every call the review
    made. Each result's text blocks, embedded resources, resource links and `structuredContent`, and each JSON-RPC
    error's message and data, are scanned like descriptions (inspector/scan/); each hit names where it was found
    (`content[0].text`, `structuredContent.items[2].note`) and quotes the span, and cites the call's exchange.

    Why: seed 003 descriptions-grounded, applied where attacks moved: a result goes to the model as trusted context,
    so an instruction in it ("ignore previous instructions", "send ~/.ssh/id_rsa to ...") steers the model as well as
    a poisoned description does, and a credential in it leaks to the model and the transcript.

    Known false positives: a tool that returns other people's text (a web page, an issue, an email) returns their
    injections too: the server passed them on, it did not write them; say so when you waive it. A tool that returns
    credentials on purpose (a secrets manager) fails by design; one that prints its environment (a `get-env` tool)
    fails only on the secrets in it: the shell's PWD, paths, placeholders and documented example keys are none,
    quoted or not, so the same server gets the same verdict over stdio and over HTTP, where its environment is the
    shell's. The scanner matches patterns (see `review.descriptions-grounded`). An MCP App page embedded in a result
    (an app MIME type, or a `ui://` HTML resource as MCP-UI embeds them) is code a host runs in a sandbox: only the
    credentials in it count, never its scripts.

    What a result discloses about the server is named too (`inspector/scan/disclosure.py`, a warn: it proves no
    harm by itself): a dump of its environment, a stack trace or an error that names an internal path (a home
    directory, site-packages, node_modules), a private address or an internal host name. A debug tool that prints
    its environment, or a network tool that lists the LAN, discloses by design: waive it saying so.

    Passes: results with nothing hidden, leaked or steering. Fails: a hostile or leaky span in a result. Warns: a
    suspicious span, or a disclosure. Blocking: a tool that may not be called, or a call with no answer.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """

    made: dict[str, list[CallRecord]] = {}  # the calls made so far, by tool: one pass, not one per tool
    for call in ctx.calls:
        made.setdefault(call.tool, []).append(call)

    def judge(tool: Item, sample: CallRecord, _data: object) -> Finding:
        fails: list[str] = []
        warns: list[str] = []
        earlier = made.get(tool.name or "", [])
        fresh = [] if any(r is sample for r in earlier) else [sample]  # sampled just now, after `made`
        mine = [r for r in [*earlier, *fresh] if r.seq is not None]
        cited = []
        for record in mine:
            sent = [said.text for said in surfaces.strings(record.arguments, "")]
            said = [*surfaces.result(record.result), *surfaces.error(record.error)]
            pages = embedded_pages(record.result)  # an app page is code a host sandboxes: only its secrets count
            text = [s for s in said if not s.where.startswith(pages)]
            found = scanned(text, sent)
            leaks = scanned([s for s in said if pages and s.where.startswith(pages)], sent, kinds=PAGE_KINDS)
            found = (found[0] + leaks[0], found[1] + leaks[1] + disclosed(text, sent))
            fails += found[0]
            warns += found[1]
            cited += [record.seq] if found[0] or found[1] else []
        clean = f"{len(mine)} result(s) scanned: nothing hidden, leaked or steering"
        return verdict(ctx, tool, (fails, warns), cited or [r.seq for r in mine], clean)

    async for finding in ctx.samples("what its results say", judge, refusals=True, every=True):
        yield finding


@rule("review.prompts-safe", concern="security", severity="high", modes=("call",), source=f"{SOURCE} (prompt messages)")
async def prompts_safe(ctx: CheckContext) -> AsyncIterator[Finding]:
    """The messages a prompt fills in carry no instructions aimed at the model, no credentials, nothing hidden.

    What it checks: call: every listed prompt is got (`prompts/get`) once, with each argument set to `example`, and
    the answer's description and messages (text and embedded resources) are scanned like descriptions; a JSON-RPC
    error's message is scanned too. `prompts/get` executes no tool, but it runs server code with generated input,
    so it is treated like a read-only call: it needs `--calls read-only` or `--calls all`.

    Why: seed 003 descriptions-grounded: a prompt's messages are put into the conversation as the user's or the
    assistant's words, so an instruction hidden there is a prompt injection the user chose to send.

    Known false positives: a prompt whose purpose is to instruct the model ("You are a code reviewer...") is fine;
    only the hostile forms fail (hiding things from the user, overriding earlier instructions, reading secrets,
    sending data away). Arguments set to `example` may not reach every branch of a prompt. Only the first 1,000
    messages of an answer are scanned (a prompt of 100,000 messages would take minutes): a longer answer with no
    fail among them is blocking, never a pass.

    Passes: prompts whose messages say nothing hidden, leaked or steering. Fails: a hostile or leaky span. Warns: a
    suspicious span. Blocking: without `--calls`, a prompt that got no answer, or one whose answer holds more
    messages than are scanned. n/a: the server lists no prompts.

    To verify when blocking: run with `--calls read-only` (or `--calls all`); a prompt that got no answer needs a
    server that answers it within --timeout; a longer answer, a larger cap (MCP_REVIEW_LIMITS prompt_messages).
    """
    prompts = [p for p in ctx.snapshot.prompts if p.name]
    if not prompts:
        yield ctx.na(None, "the server lists no prompts")
        return
    for prompt in prompts:
        if ctx.options.calls == "none":
            yield ctx.blocking(prompt, "its messages need prompts/get: run with --calls read-only")
            continue
        arguments = {a["name"]: "example" for a in _arguments(prompt.raw)}
        try:
            reply = await ctx.session.complete("prompts/get", {"name": prompt.name, "arguments": arguments})
        except ConnectionFailed as e:
            yield ctx.blocking(prompt, f"prompts/get got no answer ({e}); nothing is proven")
            continue
        result, cut = _first_messages(reply.result)
        found = scanned([*surfaces.prompt(result), *surfaces.error(reply.error)], instructs=True)
        if cut and not found[0]:  # what was not read proves nothing: a clean or suspicious start cannot pass
            yield ctx.blocking(prompt, f"{cut}; {summary(found[1]) if found[1] else 'those are clean'}", [reply.seq])
            continue
        clean = "its messages say nothing hidden, leaked or steering"
        yield verdict(ctx, prompt, (found[0], found[1] + [cut] if cut else found[1]), [reply.seq], clean)


def _first_messages(result: Any) -> tuple[Any, str]:
    """A `prompts/get` result cut to the first LIMITS.prompt_messages messages, and what was cut ("" if nothing)."""
    messages = result.get("messages") if isinstance(result, dict) else None
    cap = LIMITS.prompt_messages
    if not isinstance(messages, list) or len(messages) <= cap:
        return result, ""
    cut = f"{len(messages):,} messages: only the first {cap:,} were scanned (mcp-review's cap, MCP_REVIEW_LIMITS)"
    return {**result, "messages": messages[:cap]}, cut


def _arguments(raw: dict[str, object]) -> Iterator[dict[str, str]]:
    listed = raw.get("arguments")
    for arg in listed if isinstance(listed, list) else []:
        if isinstance(arg, dict) and isinstance(arg.get("name"), str):
            yield arg


# needs_server=False: it judges what was sent, also once a flood of requests ended the connection
@rule(
    "review.client-requests-safe",
    concern="security",
    severity="high",
    modes=("observe",),
    source=f"{SOURCE} (sampling, elicitation, logs)",
    needs_server=False,
)
def client_requests_safe(ctx: CheckContext) -> Iterator[Finding]:
    """What the server asks of the client or tells it on its own phishes no one and steers no model.

    What it checks: observe: every `sampling/createMessage` (system prompt and messages), `elicitation/create`
    (message, requested form, and a URL elicitation's URL) and `notifications/message` (log data) the server sent
    during the review, wherever it came from (a tool call, a prompt, the handshake), scanned like descriptions; and
    every field of a form-mode elicitation that asks for a secret (a password, a card's CVV or PIN, a one-time code,
    a seed phrase, an API key), which the spec (2025-06-18 on) says servers MUST NOT ask through a form. One finding
    per method, citing the messages. And how often: a server that asked the client more times in the session than
    mcp-review answers (`client_requests` in MCP_REVIEW_LIMITS, 10,000: JSON-RPC requests and `inputRequests`
    entries alike, sampling, elicitation, roots and ping; connection/asked.py) fails, with the count, citing the
    request that went past it and the note that says so.

    Why: seed 003 descriptions-grounded, for the texts that reach a person or the client's model without the model
    choosing to read them: a sampling request is a prompt the server writes for the client's model, an elicitation
    asks the user directly (a form asking for a card's CVV or a wallet's seed phrase is phishing), and log lines are
    shown in clients. A server that keeps asking (each answer, or decline, brings the next; a round asks a thousand
    things) floods the person or model a client asks each time, and kept mcp-review's own app busy answering.

    Known false positives: a server that asks for a credential it really needs, through the form the spec allows
    for it (URL elicitation for secrets), is fine; the scanner judges the text, not the need. Only what the server
    sent during this review is seen: requests that only other inputs trigger stay unseen (the finding says how many
    messages were read). A span that is part of an argument the review sent (a probe's canary, quoted back in "Delete
    note «…»?") is not the server's and never counts; a hostile text around it still does. Each distinct text is
    scanned once, the first 2,000 per method: a flood of different lines beyond that is not read (the finding says
    so). The count is of the whole session: a server whose every tool asks once, reviewed through more than 10,000
    calls, reaches it (raise `client_requests` for it).

    Passes: every such message is clean. Fails: a hostile or leaky span; more requests of the client than a session
    answers. Warns: a suspicious span. n/a: the server sent none during the review.
    """
    asked = ctx.session.asked
    if asked.over is not None:
        note, crossed = asked.over
        flooded = f"{asked.said()}: a client that asks a person or a model each time is flooded"
        yield ctx.fail("requests of the client", flooded, [crossed, note])
    texts: dict[str, list[surfaces.Said]] = {}
    seqs: dict[str, list[int]] = {}
    forms: list[str] = []  # form fields that ask for a secret
    distinct: set[str] = set()  # a server can send the same log line 50,000 times: each text is scanned once
    ours: set[str] = set()  # the arguments the review sent (a probe's canaries): quoted back, they are not the server's
    for entry in ctx.wire.entries:
        if entry.direction == "send" and entry.method in ("tools/call", "prompts/get"):
            params = entry.message.get("params")
            arguments = params.get("arguments") if isinstance(params, dict) else None
            ours.update(s.text for s in surfaces.strings(arguments, ""))
        if entry.direction == "recv" and entry.method in surfaces.CLIENT_METHODS:
            said = [s for s in surfaces.client_message(entry.message) if s.text not in distinct]
            distinct.update(s.text for s in said)
            kept = texts.setdefault(entry.method, [])
            kept += said[: max(0, SCANNED - len(kept))]
            seqs.setdefault(entry.method, []).append(entry.seq)
            params = entry.message.get("params")
            if entry.method == "elicitation/create" and isinstance(params, dict):
                forms += [f"requestedSchema.properties.{name}" for name in form_asks_secret(params)]
    if not seqs and asked.over is None:
        yield ctx.na(None, "the server sent no sampling, elicitation or log message during the review")
        return
    for method, sent in seqs.items():
        fails, warns = scanned(texts[method], ours, instructs=method == "sampling/createMessage")
        if method == "elicitation/create":
            why = "a form asks the user for a secret (the spec forbids it in form mode)"
            fails += [f"{where}: {why}" for where in forms]
        cut = f" (the first {SCANNED} distinct texts)" if len(texts[method]) >= SCANNED else ""
        clean = f"{len(sent)} {method} message(s) scanned{cut}: nothing hidden, leaked or steering"
        yield verdict(ctx, method, (fails, warns), list(sent[:EVIDENCE_CITED]), clean)
