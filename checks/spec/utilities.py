"""Pack `spec` (seed 002 and the MCP specification): the server utilities a capability declares, and progress.

Each rule asks on the review's own session (no new connection, no new process): what it sends changes nothing
a later rule reads but the log level, which it sets to `debug` (every log the server has is then seen).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

from mcp_review.checks.spec.common import SEED, ask, stated
from mcp_review.connection.probe import ProbeResult
from mcp_review.connection.protocol import META
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

LEGACY_ONLY = "2026-07-28 removed it (changelog.mdx:18-20): spec.removed-methods judges that it is gone"
NO_SUCH_LEVEL = "mcp-review-no-such-level"
NO_SUCH_PROMPT = "mcp-review-no-such-prompt"
VARIABLE = re.compile(r"\{[+#./;?&]?([A-Za-z0-9_]+)")  # the first variable of an RFC 6570 template


def _silent(got: ProbeResult) -> bool:
    """Nothing came back in time (an HTTP error without a JSON-RPC body is an answer: its status)."""
    return not got.answered and got.status is None


def _blocked(ctx: CheckContext, subject: str | None, got: ProbeResult) -> Finding:
    return ctx.blocking(subject, f"no answer in time ({got.failure}): a longer --timeout would verify it", [got.seq])


def _said(got: ProbeResult) -> str:
    """What a probe got, in a few words: the error code, the result, or why nothing came."""
    if got.error is not None:
        return f"error {got.code}"
    return "a result" if got.answered else f"no answer ({got.failure})"


@rule(
    "spec.logging-level",
    concern="protocol",
    severity="low",
    modes=("probe", "observe"),
    source=f"{SEED} Server & framework layer: logging",
)
async def logging_level(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A server that declares `logging` accepts `logging/setLevel` (an unknown level -32602); on 2026-07-28 it logs
    only to a request that asks for a level.

    What it checks: probe, on the review's session, last (after every other rule, so the level it sets changes
    nothing they saw), when the server declares the `logging` capability (2024-11-05 .. 2025-11-25):
    `logging/setLevel` with level `debug` must be answered with a result (the schema's SetLevelRequest, answered
    by EmptyResult; clients MAY send it, 2025-11-25 server/utilities/logging.mdx:49); `logging/setLevel` with level
    `mcp-review-no-such-level` SHOULD get -32602 (logging.mdx:110-112). n/a without the capability. 2026-07-28
    removed the method (spec.removed-methods judges that) and moved the level into each request's `_meta`: observe,
    over every connection: a `notifications/message` on a connection where no request carried
    `io.modelcontextprotocol/logLevel` fails (MUST NOT, 2026-07-28 server/utilities/logging.mdx:63).

    Why: seed 002 server layer; spec.md LG-02, LG-03: `logging` is the capability through which a client sets how
    much it is told; a server that declares it and refuses the one method that sets the level leaves clients with
    whatever its default is, and a 2026-07-28 server that logs unasked sends what no request wanted.

    Spec: 2024-11-05 .. 2025-11-25 server/utilities/logging.mdx (LG-02); 2026-07-28 (LG-03); schema
    SetLevelRequest, EmptyResult

    Known false positives: a server that refuses `debug` for a reason of its own (a policy) fails: the revision
    defines every syslog level as valid. A result with members besides `_meta` is not failed: EmptyResult allows
    them. On 2026-07-28 a log on a connection where some request did ask for a level is not judged (over stdio a
    log names no request), and logs to a request the review never sent are not seen.

    Passes: the level set, an unknown level -32602; on 2026-07-28 no log unasked. Fails: `logging/setLevel` with a
    valid level answered with an error; a 2026-07-28 log no request asked for. Warns: an unknown level accepted or
    answered with another code (a SHOULD). Blocking: no answer.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    if ctx.era == "modern":
        yield _unasked_logs(ctx)
        return
    if "logging" not in ctx.snapshot.capabilities:
        yield ctx.na(None, "the server declares no logging capability: the log level is not judged")
        return
    valid = await ask(ctx, "logging/setLevel", {"level": "debug"})
    if _silent(valid):
        yield _blocked(ctx, None, valid)
    elif valid.error is not None or not valid.answered:
        yield ctx.fail(
            None,
            f"declares logging, yet logging/setLevel with level debug -> {_said(valid)}: a client sets the level "
            f"of a server that declares logging with it ({stated('set-level', ctx.revision)}; its answer is an "
            "EmptyResult)",
            [valid.seq, ctx.snapshot.hello_seq],
        )
    else:
        yield ctx.passed(None, "logging/setLevel with level debug -> a result", [valid.seq])
    invalid = await ask(ctx, "logging/setLevel", {"level": NO_SUCH_LEVEL})
    if _silent(invalid):
        yield _blocked(ctx, "invalid level", invalid)
    elif invalid.code != -32602:
        yield ctx.warn(
            "invalid level",
            f"logging/setLevel with level {NO_SUCH_LEVEL} -> {_said(invalid)}: an invalid level SHOULD get -32602 "
            f"({stated('set-level-invalid', ctx.revision)})",
            [invalid.seq],
        )
    else:
        yield ctx.passed("invalid level", f"logging/setLevel with level {NO_SUCH_LEVEL} -> -32602", [invalid.seq])


def _unasked_logs(ctx: CheckContext) -> Finding:
    """2026-07-28: log notifications on a connection where no request carried a `logLevel`."""
    asked = {e.conn for e in ctx.wire.messages("send") if META + "logLevel" in _meta(e.message)}
    logs = [e for e in ctx.wire.messages("recv") if e.method == "notifications/message"]
    unasked = [e for e in logs if e.conn not in asked]
    if unasked:
        shown = ", ".join(f"#{e.seq}" for e in unasked[:5])
        return ctx.fail(
            None,
            f"{len(unasked)} notifications/message ({shown}) on connections where no request carried {META}logLevel: "
            f"it MUST NOT log to a request that asks for no level ({stated('unasked-logs', ctx.revision)})",
            [e.seq for e in unasked[:5]],
        )
    if logs:
        return ctx.passed(None, f"{len(logs)} log notification(s), each where a request asked for a level")
    return ctx.passed(None, "no log notification for requests that asked for no level")


def _meta(message: Any) -> dict[str, Any]:
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta if isinstance(meta, dict) else {}


@rule(
    "spec.resource-subscriptions",
    concern="protocol",
    severity="medium",
    modes=("probe",),
    source=f"{SEED} Server & framework layer: resources",
)
async def resource_subscriptions(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A server that declares `resources.subscribe` accepts `resources/subscribe` and `resources/unsubscribe`.

    What it checks: probe, on the review's session, when the server declares `resources` with `subscribe: true`
    (2024-11-05 .. 2025-11-25): `resources/subscribe` of the first resource it lists, then `resources/unsubscribe`
    of it, must each be answered with a result (the schema's SubscribeRequest and UnsubscribeRequest, answered by
    EmptyResult; `subscribe` says "whether the client can subscribe to be notified of changes to individual
    resources", 2025-11-25 server/resources.mdx:47). n/a without the capability, when it lists no resource, and on
    2026-07-28, which replaced both methods with `subscriptions/listen`.

    Why: seed 002 server layer; spec.md RS-05: a client that sees `subscribe: true` subscribes to keep a resource
    fresh; a server that refuses leaves it showing stale content without knowing.

    Spec: 2024-11-05 .. 2025-11-25 server/resources.mdx (RS-05); schema SubscribeRequest, UnsubscribeRequest

    Known false positives: a server that allows subscriptions to some resources only (not its first listed one)
    fails: the capability names none it excludes. Whether `notifications/resources/updated` follows a change is
    not judged: the review changes nothing.

    Passes: both answered with a result. Fails: either answered with an error. Blocking: no answer.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    if ctx.era == "modern":
        yield ctx.na(None, LEGACY_ONLY)
        return
    declared = ctx.snapshot.capabilities.get("resources")
    if not (isinstance(declared, dict) and declared.get("subscribe") is True):
        yield ctx.na(None, "the server does not declare resources.subscribe: subscriptions are not judged")
        return
    uri = next((r.key for r in ctx.snapshot.resources if isinstance(r.get("uri"), str)), None)
    if uri is None:
        yield ctx.na(None, "the server declares resources.subscribe but lists no resource to subscribe to")
        return
    on = await ask(ctx, "resources/subscribe", {"uri": uri})
    off = await ask(ctx, "resources/unsubscribe", {"uri": uri})
    asked = (("resources/subscribe", on), ("resources/unsubscribe", off))
    refused = [(m, g) for m, g in asked if g.error is not None or (g.status is not None and not g.answered)]
    silent = [g for _, g in asked if _silent(g)]
    if refused:
        said = "; ".join(f"{method} {uri!r} -> {_said(got)}" for method, got in refused)
        yield ctx.fail(
            None,
            f"declares resources.subscribe, yet {said}: the capability says a client can subscribe to a resource "
            f"({stated('subscribe', ctx.revision)}; each answer is an EmptyResult)",
            [*(g.seq for _, g in refused), ctx.snapshot.hello_seq],
        )
    elif silent:
        said = "; ".join(str(g.failure) for g in silent)
        yield ctx.blocking(None, f"no answer in time ({said}): a longer --timeout would verify it")
    else:
        yield ctx.passed(None, f"subscribed to {uri!r} and unsubscribed", [on.seq, off.seq])


def _completable(ctx: CheckContext) -> tuple[dict[str, Any], str] | None:
    """A reference the server itself lists, with an argument to complete: a prompt's, else a template's."""
    for prompt in ctx.snapshot.prompts:
        args = prompt.get("arguments")
        listed = [a.get("name") for a in args if isinstance(a, dict)] if isinstance(args, list) else []
        named = [n for n in listed if isinstance(n, str)]
        if prompt.name and named:
            return {"type": "ref/prompt", "name": prompt.name}, named[0]
    for template in ctx.snapshot.templates:
        found = VARIABLE.search(template.key)
        if found:
            return {"type": "ref/resource", "uri": template.key}, found.group(1)
    return None


@rule(
    "spec.completion",
    concern="protocol",
    severity="low",
    modes=("probe",),
    source=f"{SEED} Server & framework layer: completion",
)
async def completion(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A server that declares `completions` answers `completion/complete`, and an unknown prompt -32602.

    What it checks: probe, on the review's session, when the server declares `completions` (2025-03-26 on): for the
    first prompt argument it lists (else the first variable of a resource template), `completion/complete` with an
    empty value must be answered with a result, not -32601 (a server that supports completions MUST declare the
    capability, 2025-11-25 server/utilities/completion.mdx:26: declared, it serves them); before 2026-07-28 (whose
    schema says `maxItems: 100` itself) at most 100 values (completion.mdx:169); a prompt it does not list SHOULD get
    -32602 (completion.mdx:175-178). The result's shape is spec.wire-schema's. n/a without the capability or on
    2024-11-05, which has none.

    Why: seed 002 server layer; spec.md CP-01..CP-03: clients offer completions in argument forms only when the
    capability is declared; a server that declares it and answers "method not found" breaks every form.

    Spec: 2025-03-26 .. 2026-07-28 server/utilities/completion.mdx (CP-01, CP-02, CP-03)

    Known false positives: another error (not -32601) for an argument the server lists only warns: it may have no
    suggestions for it, which an empty `values` says better. A server that declares completions and lists no prompt
    or template is judged on the unknown prompt only.

    Passes: values for the listed argument; an unknown prompt -> -32602. Fails: -32601 or over 100 values.
    Warns: another error for a listed argument; an unknown prompt answered otherwise. Blocking: no answer.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    if ctx.revision < "2025-03-26":
        yield ctx.na(None, f"{ctx.revision} defines no completions capability")
        return
    if "completions" not in ctx.snapshot.capabilities:
        yield ctx.na(None, "the server declares no completions capability: completion is not judged")
        return
    target = _completable(ctx)
    if target is not None:
        ref, argument = target
        named = ref.get("name") or ref.get("uri")
        got = await ask(ctx, "completion/complete", {"ref": ref, "argument": {"name": argument, "value": ""}})
        done = got.result.get("completion") if isinstance(got.result, dict) else None
        values = done.get("values") if isinstance(done, dict) else None
        what = f"completion/complete for {ref['type']} {named!r} argument {argument!r} -> {_said(got)}"
        if _silent(got):
            yield _blocked(ctx, named, got)
        elif got.code == -32601:
            said = f"declares completions, yet {what}: declared, it serves them ({stated('completions', ctx.revision)})"
            yield ctx.fail(named, said, [got.seq, ctx.snapshot.hello_seq])
        elif got.error is not None or not got.answered:
            yield ctx.warn(named, f"{what} for an argument it lists (an empty values list says it has none)", [got.seq])
        elif isinstance(values, list) and len(values) > 100 and ctx.revision < "2026-07-28":
            limit = stated("completion-values", ctx.revision)
            yield ctx.fail(named, f"{what} with {len(values)} values: at most 100 ({limit})", [got.seq])
        else:
            count = len(values) if isinstance(values, list) else 0
            yield ctx.passed(named, f"completion/complete for argument {argument!r} -> {count} values", [got.seq])
    ref = {"type": "ref/prompt", "name": NO_SUCH_PROMPT}
    unknown = await ask(ctx, "completion/complete", {"ref": ref, "argument": {"name": "x", "value": ""}})
    if _silent(unknown):
        yield _blocked(ctx, "unknown prompt", unknown)
    elif unknown.code != -32602:
        yield ctx.warn(
            "unknown prompt",
            f"completion/complete for prompt {NO_SUCH_PROMPT!r}, which it does not list, -> {_said(unknown)}: an "
            f"invalid prompt name SHOULD get -32602 ({stated('completion-errors', ctx.revision)})",
            [unknown.seq],
        )
    else:
        yield ctx.passed("unknown prompt", "completion/complete for an unlisted prompt -> -32602", [unknown.seq])


def _token(message: Any) -> Any:
    return _meta(message).get("progressToken")


def _became_task(ctx: CheckContext, request: Any) -> bool:
    """Was the request answered with a task (its progress then runs on, for the task's lifetime)?"""
    for seq in getattr(request, "answered", None) or []:
        answer = ctx.wire.get(seq)
        result = answer.message.get("result") if answer and isinstance(answer.message, dict) else None
        if isinstance(result, dict) and ("task" in result or result.get("resultType") == "task"):
            return True
    return False


@rule("spec.progress", concern="protocol", severity="low", modes=("observe",), source=f"{SEED} Notifications: progress")
async def progress(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Progress notifications name only tokens of requests in flight, increase, and stop with the answer.

    What it checks: observe, over every connection of the review: every request mcp-review sent with a
    `progressToken` (each tool call a check makes carries one) and every `notifications/progress` the server sent.
    A notification whose token no request of that connection carried, one that arrived on the same stream after
    the answer to its request, and one whose `progress` is not above the one before it for the same token on the
    same stream each fail (MUST, every revision: 2025-11-25 basic/utilities/progress.mdx:53, :60, :94). A server
    that sends no progress passes: it MAY send none (progress.mdx:33). When no other rule's call carried a token
    (a run of the spec pack alone), it makes the sample call of the first tool the policy lets it call (shared with
    any rule that reads answers). Blocking when no tool may be called; n/a with no tool to call.

    Why: seed 002 notifications; spec.md PG-01: clients draw progress bars from these notifications and drop a
    request's token when it is answered; a token from nowhere, a bar that goes back or an update after the answer
    is misread or leaks into another request that reuses the token.

    Spec: 2024-11-05 .. 2026-07-28 progress (PG-01)

    Known false positives: none known for the fails. Notifications on another stream than the answer (an HTTP
    GET stream beside the POST's) are compared with neither the answer nor each other: across streams the order
    they arrive in is not the order they were sent. A request answered with a task (2025-11-25) keeps its token
    for the task's lifetime: its progress after the answer is not failed (spec.md PG-02).

    Passes: every progress notification as the spec says, or none sent. Fails: each broken MUST, listed.
    Blocking: no request carried a progressToken (no tool was called).

    To verify when blocking: --calls read-only (a read-only tool) or --calls all, so the review calls a tool; each
    call carries a progressToken.
    """
    if not any(_token(e.message) is not None for e in ctx.wire.messages("send")):
        tool = next((t for t in ctx.snapshot.tools if ctx.may_call(t) is None), None)
        if tool is not None:
            await ctx.sample_call(tool)
    requests: dict[tuple[int, str], Any] = {}  # (connection, token as JSON) -> the request that carried it
    for entry in ctx.wire.messages("send"):
        token = _token(entry.message)
        if token is not None and "id" in entry.message:
            requests[(entry.conn, json.dumps(token))] = entry
    problems: list[str] = []
    cited: list[int | None] = []
    last: dict[tuple[int, int | None, str], float] = {}  # (connection, exchange, token) -> the progress before
    count = 0
    for entry in ctx.wire.messages("recv"):
        if entry.method != "notifications/progress" or not isinstance(entry.message.get("params"), dict):
            continue
        count += 1
        params = entry.message["params"]
        token = json.dumps(params.get("progressToken"))
        request = requests.get((entry.conn, token))
        link = entry.link
        if request is None or link is None or link.request is None:
            problems.append(f"#{entry.seq} names progressToken {token[:60]}, carried by no request on its connection")
            cited.append(entry.seq)
            continue
        answers = [a for a in (request.answered or []) if a < entry.seq]
        done = next((ctx.wire.get(a) for a in answers), None)
        if done is not None and done.exchange == entry.exchange and not _became_task(ctx, request):
            problems.append(f"#{entry.seq} came after #{done.seq}, the answer to its request #{request.seq}")
            cited += [entry.seq, done.seq, request.seq]
            continue
        value = params.get("progress")
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue  # not a number: the schema's to judge (spec.wire-schema)
        key = (entry.conn, entry.exchange, token)
        if key in last and value <= last[key]:
            problems.append(f"#{entry.seq} reports progress {value} after {last[key]} for token {token[:60]}")
            cited += [entry.seq, request.seq]
        last[key] = value
    rev = ctx.revision
    if problems:
        shown = "; ".join(problems[:5]) + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else "")
        musts = ", ".join(stated(r, rev) for r in ("progress-tokens", "progress-increase", "progress-stop"))
        yield ctx.fail(
            None,
            f"{len(problems)} progress notification(s) break the spec: {shown}. Progress MUST name only the token of "
            f"a request in flight, MUST increase with each notification, and MUST stop after the answer ({musts})",
            cited[:20],
        )
    elif count:
        said = f"{count} progress notification(s) for {len(requests)} request(s) with a token: as the spec says"
        yield ctx.passed(None, said)
    elif requests:
        may = stated("progress-may", rev)
        yield ctx.passed(None, f"{len(requests)} request(s) carried a progressToken; no progress came (it MAY: {may})")
    elif not ctx.snapshot.tools.items:
        yield ctx.na(None, "no tool to call: no request carried a progressToken")
    else:
        why = next((ctx.may_call(t) for t in ctx.snapshot.tools if ctx.may_call(t)), "none was made")
        yield ctx.blocking(None, f"no request carried a progressToken: the progress of a tool needs a call: {why}")
