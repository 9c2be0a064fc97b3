"""Pack `review` (seed 003): active probes, opt-in (`--probe security`): injection proven by a canary's effect.

Each rule picks the string parameters that could carry one kind of injection (by name and schema; every string
parameter with `--probe security-all`), calls the tool, as the calling policy allows, with a value that
reveals a canary only if the tool did the unsafe thing, and fails only when the canary shows. Without
`--probe security` nothing is called: one `blocking` finding says how to prove it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from checks.context import CheckContext
from checks.core import rule
from checks.review.common import SEED, named_tools
from checks.review.security import PATHLIKE
from checks.util import input_schema, properties, valid_arguments, words
from inspector import canary
from inspector.calls import CallRecord, side_effect_reason
from inspector.catalog import Item
from inspector.review import Finding

SOURCE = f"{SEED} Security: injection-safe"
PROBE_MODES = ("security", "security-all")
SSRF_WAIT = 3.0  # seconds the listener waits for a request when no probe_timeout is set
COMMANDS = ("x;printf %s%s {a} {b}", "$(printf %s%s {a} {b})", "`printf %s%s {a} {b}`", "x && printf %s%s {a} {b}")
COMMANDS += ("x | printf %s%s {a} {b}",)
TEMPLATES = ("{{{{7*{n}}}}}", "${{7*{n}}}", "#{{7*{n}}}", "<%= 7*{n} %>")


@dataclass(frozen=True)
class Payload:
    value: str  # what the parameter is set to
    proof: str  # what only the unsafe behaviour can produce (in the reply, or at the listener)


@dataclass(frozen=True)
class Probe:
    what: str  # the injection, as a finding names it
    effect: str  # what a failing call did, as a finding says it
    names: tuple[str, ...]  # parameter name words that make a parameter a candidate
    formats: tuple[str, ...] = ()  # schema formats that do
    substring: bool = False  # match the names anywhere in the parameter's name, not as whole words
    widen: bool = True  # `--probe security-all` sets every string parameter, not only those chosen by name


Proved = Callable[[CallRecord, Payload], Awaitable[bool]]
Payloads = Callable[[], list[Payload]]  # fresh canaries for each parameter
Canaries = tuple[Payloads, Proved]
Plant = Callable[[CheckContext], AbstractAsyncContextManager[Canaries]]  # planted only once the probe may run


def is_string(schema: dict[str, object]) -> bool:
    kind = schema.get("type")
    return kind == "string" or (isinstance(kind, list) and "string" in kind)


def fits(probe: Probe, name: str, schema: dict[str, object]) -> bool:
    if schema.get("format") in probe.formats:
        return True
    if probe.substring:
        return any(word in name.lower() for word in probe.names)
    return bool(set(words(name)) & set(probe.names)) or name.lower() in probe.names


def candidates(ctx: CheckContext, probe: Probe) -> list[tuple[Item, list[str]]]:
    """Every tool with the string parameters this probe would set: chosen by name and format, or all of them."""
    every = probe.widen and "security-all" in ctx.options.probe
    out = []
    for tool in named_tools(ctx):
        params = [
            name
            for name, schema in properties(input_schema(tool)).items()
            if is_string(schema) and (every or fits(probe, name, schema))
        ]
        if params:
            out.append((tool, params))
    return out


def reply_text(record: CallRecord) -> str:
    """Everything a call brought back (result and JSON-RPC error), as one string to look for a canary in."""
    return json.dumps([record.result, record.error], ensure_ascii=False)


async def in_reply(record: CallRecord, payload: Payload) -> bool:
    return payload.proof in reply_text(record)


def probing(ctx: CheckContext) -> bool:
    """Did the reviewer opt in to active probes (`--probe security` or `security-all`)?"""
    return bool(set(PROBE_MODES) & ctx.options.probe)


def tokens_only(payloads: Payloads) -> Plant:
    """Canaries that need nothing planted: random values, proven by what the reply carries."""

    @contextlib.asynccontextmanager
    async def plant(_: CheckContext) -> AsyncIterator[Canaries]:
        yield payloads, in_reply

    return plant


async def run_probe(ctx: CheckContext, probe: Probe, plant: Plant) -> AsyncIterator[Finding]:
    """The shared course of every probe rule: n/a, one blocking without consent, else per tool a proof or not.
    The canaries are planted (a file, a listener) only when some tool is probed, and removed after."""
    found = candidates(ctx, probe)
    if not found:
        yield ctx.na(None, f"no tool takes a string parameter that could carry {probe.what}")
        return
    if not probing(ctx):
        params = [f"{tool.name}.{p}" for tool, ps in found for p in ps]
        calls = "all" if any(side_effect_reason(tool.raw) for tool, _ in found) else "read-only"
        yield ctx.blocking(
            None,
            f"{len(params)} parameter(s) could carry {probe.what} ({', '.join(params[:8])}): run with "
            f"--probe security and --calls {calls} to prove or rule it out with a canary",
            [tool.seq for tool, _ in found],
        )
        return
    for tool, _ in found:
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, f"a {probe.what} probe")
    allowed = [(tool, params) for tool, params in found if ctx.may_call(tool) is None]
    if not allowed:
        return
    async with plant(ctx) as (payloads, proved):
        for tool, params in allowed:
            yield await probe_tool(ctx, probe, tool, params, payloads, proved)


async def probe_tool(
    ctx: CheckContext, probe: Probe, tool: Item, params: list[str], payloads: Payloads, proved: Proved
) -> Finding:
    """Set each parameter to each payload in turn (the other arguments valid); the first canary seen fails."""
    tried: list[str] = []
    seqs: list[int | None] = []
    for param in params:
        for payload in payloads():
            arguments = {**valid_arguments(tool), param: payload.value}
            record = await ctx.try_call(tool, arguments, f"{probe.what} through {param!r}")
            if isinstance(record, Finding):
                return record
            seqs.append(record.seq)
            if await proved(record, payload):
                return ctx.fail(tool, f"{param!r} = {payload.value!r} {probe.effect}: {probe.what}", [record.seq])
            tried.append(f"{param}={payload.value!r}")
    shown = ", ".join(tried[:3]) + (f" and {len(tried) - 3} more" if len(tried) > 3 else "")
    return ctx.passed(tool, f"no canary effect ({probe.what}) from {shown}", seqs)


PATHS = Probe("path traversal", "returned the canary file's content", PATHLIKE, substring=True)


@rule("review.paths-confined", modes=("call",), source=SOURCE)
async def paths_confined(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Path parameters stay inside the directory the tool serves: proven with a canary file.

    What it checks: with `--probe security`, every tool with a string parameter whose name contains path, file,
    filename, dir, directory or folder (every string parameter with `--probe security-all`) is called, as the
    calling policy allows, with that parameter set to enough `../` segments to reach / from any base directory and
    then the path of a canary file mcp-review wrote in a fresh temporary directory (removed after the rule). The
    file holds a random token; the token in the reply (result or error) fails.

    Why: seed 003 injection-safe: arguments reaching paths MUST be confined; path traversal was among the
    most-filed MCP CVE classes in early 2026. The random content proves the read; nothing is guessed.

    Known false positives: a tool meant to read any path (a filesystem server allowed to read the temporary
    directory) returns the canary by design: the read is real, whether it should be confined is the reviewer's
    call; waive it naming the configured roots. A server on another host or in a container that cannot see this
    machine's temporary directory proves nothing and passes.

    Passes: every probed tool answered without the canary. Fails: a reply carried the canary file's token.
    Blocking: without `--probe security` (one finding for the server), tools that may not be called, calls with
    no answer.

    To verify when blocking: run with `--probe security` and `--calls read-only` for tools annotated readOnlyHint:
    true (and not open-world) or `--calls all` (the reviewer's consent) for any other; with an allow-list, add
    the tool to calls.allow in mcp-review.toml.
    """
    async for finding in run_probe(ctx, PATHS, canary_file):
        yield finding


@contextlib.asynccontextmanager
async def canary_file(_: CheckContext) -> AsyncIterator[Canaries]:
    """A canary file in a fresh temporary directory; the traversal to it; its random content in the reply."""
    with canary.canary_file() as planted:
        yield (lambda: [Payload(planted.traversal(), planted.content)]), in_reply


COMMAND = Probe(
    "command injection",
    "returned the joined canary (a shell ran printf)",
    ("command", "cmd", "args", "argv", "query", "host", "hostname", "name", "message", "script", "shell", "target"),
)


def command_payloads() -> list[Payload]:
    out = []
    for shape in COMMANDS:
        a, b = canary.halves()
        out.append(Payload(shape.format(a=a, b=b), a + b))
    return out


@rule("review.commands-not-injected", modes=("call",), source=SOURCE)
async def commands_not_injected(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Arguments never reach a shell as code: proven with a printf that joins two random halves.

    What it checks: with `--probe security`, every string parameter named like command, cmd, args, argv, query,
    host, hostname, name, message, script, shell or target (every string parameter with `--probe security-all`)
    is set in turn to `x;printf %s%s A B`, `$(printf %s%s A B)`, `` `printf %s%s A B` ``, `x && printf ...` and
    `x | printf ...`, where A and B are random halves of a token. Only a shell joins them: the whole token AB in
    the reply fails. An echo of the input cannot produce it, since AB is not in the input.

    Why: seed 003 injection-safe: arguments reaching shells MUST be parameterized or escaped; shell injection was
    the most-filed MCP CVE class in early 2026.

    Known false positives: a tool whose purpose is to run a command line (a terminal server) runs the printf by
    design and fails: waive it when running commands is the tool's job and it is gated. Injection through a
    parameter with another name, or one that needs a valid prefix (a real host name) before the separator, is
    not found unless `--probe security-all` and the payloads reach it.

    Passes: no reply carried the joined token. Fails: one did. Blocking: without `--probe security` (one finding
    for the server), tools that may not be called, calls with no answer.

    To verify when blocking: run with `--probe security` and `--calls all` (the reviewer's consent; tools that
    run commands are rarely read-only) or `--calls read-only` for read-only tools; with an allow-list, add the
    tool to calls.allow in mcp-review.toml.
    """
    async for finding in run_probe(ctx, COMMAND, tokens_only(command_payloads)):
        yield finding


URLS = Probe(
    "server-side request forgery",
    "made the server request the canary listener on 127.0.0.1",
    ("url", "uri", "endpoint", "link", "href", "webhook", "callback"),
    formats=("uri", "url", "iri", "uri-reference"),
)


@rule("review.urls-confined", modes=("call",), source=SOURCE)
async def urls_confined(ctx: CheckContext) -> AsyncIterator[Finding]:
    """URL parameters cannot make the server request loopback or private addresses: proven with a listener.

    What it checks: with `--probe security`, every string parameter named like url, uri, endpoint, link, href,
    webhook or callback, or with format uri (every string parameter with `--probe security-all`), is set to
    `http://127.0.0.1:PORT/TOKEN`, where a one-shot HTTP listener of mcp-review waits at a random port for a
    random path. A request for that path, within the probe timeout (`probe_timeout`, 3 s when unset), fails.

    Why: seed 003 injection-safe: arguments reaching URLs MUST be validated; a server that fetches any URL it is
    handed reaches the networks behind it (cloud metadata, admin ports) for whoever writes the prompt.

    Known false positives: a server on another host cannot reach this machine's loopback and passes whatever
    it does. A tool whose purpose is fetching arbitrary URLs (a browser, a web fetcher meant for local
    development) fails by design: waive it when loopback access is intended.

    Passes: no request reached the listener. Fails: one did (the cited call made it). Blocking: without
    `--probe security` (one finding for the server), tools that may not be called, calls with no answer.

    To verify when blocking: run with `--probe security` and `--calls all` (fetching tools are open-world, so
    they need the reviewer's consent); with an allow-list, add the tool to calls.allow in mcp-review.toml.
    """
    async for finding in run_probe(ctx, URLS, listening):
        yield finding


@contextlib.asynccontextmanager
async def listening(ctx: CheckContext) -> AsyncIterator[Canaries]:
    """A one-shot listener on 127.0.0.1; a random path on it per parameter; a request for that path proves it."""
    async with canary.listener() as heard:
        wait = ctx.options.probe_timeout or min(ctx.target.timeout, SSRF_WAIT)

        async def requested(_: CallRecord, payload: Payload) -> bool:
            return await heard.wait_for(payload.proof, wait)

        def payloads() -> list[Payload]:
            path = canary.token()
            return [Payload(heard.url(path), path)]

        yield payloads, requested


TEMPLATE = Probe(
    "template injection",
    "returned a value only evaluation computes",
    ("template", "format", "message", "text", "body", "pattern"),
)


def template_payloads() -> list[Payload]:
    out = []
    for shape in TEMPLATES:
        n = canary.multiplicand()
        out.append(Payload(shape.format(n=n), str(7 * n)))
    a, b = canary.halves()
    out.append(Payload(a + "{0.__class__!s:.0}" + b, a + b))  # str.format: the field formats to "", joining A and B
    return [p for p in out if p.proof not in p.value]


@rule("review.templates-inert", modes=("call",), source=SOURCE)
async def templates_inert(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Template and format parameters are treated as text, never evaluated: proven with random arithmetic.

    What it checks: with `--probe security`, every string parameter named like template, format, message, text,
    body or pattern (every string parameter with `--probe security-all`) is set in turn to `{{7*N}}`, `${7*N}`,
    `#{7*N}` and `<%= 7*N %>` for a random N >= 100000, and to `A{0.__class__!s:.0}B` (Python str.format: the
    field formats to nothing and joins the random halves A and B). The product 7*N, or the token AB, in the reply
    fails; neither is in the input.

    Why: seed 003 injection-safe: arguments MUST NOT be evaluated as code; a template engine fed user text runs
    it (server-side template injection leads to reading files and running commands).

    Known false positives: a calculator or a template tool whose job is to evaluate what it is given computes
    7*N by design: waive it when evaluation is the tool's purpose and sandboxed.

    Passes: no reply carried a computed value. Fails: one did. Blocking: without `--probe security` (one finding
    for the server), tools that may not be called, calls with no answer.

    To verify when blocking: run with `--probe security` and `--calls read-only` for tools annotated readOnlyHint:
    true (and not open-world) or `--calls all` (the reviewer's consent) for any other; with an allow-list, add
    the tool to calls.allow in mcp-review.toml.
    """
    async for finding in run_probe(ctx, TEMPLATE, tokens_only(template_payloads)):
        yield finding


SECRETS = Probe(
    "secret echo",
    "came back in the reply",
    ("password", "passwd", "passphrase", "secret", "token", "key", "apikey", "credential", "credentials", "pin"),
    widen=False,  # an echoed value is a leak only when the parameter holds a secret
)


@rule("review.secrets-not-echoed", modes=("call",), source=SOURCE)
async def secrets_not_echoed(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Secret arguments never come back in results or error messages: proven with a canary secret.

    What it checks: with `--probe security`, every string parameter whose name has a word like password, passwd,
    passphrase, secret, token, key, apikey, credential or pin is set to a random canary value; the value in the
    reply (result or JSON-RPC error) fails. `--probe security-all` does not widen this rule: an echo of any
    other argument is no leak.
    Secrets in the server's environment are not probed: mcp-review masks every environment value it hands a
    server, so an echo of one could not be told from the mask.

    Why: seed 003 injection-safe and the secrets guidance: a password echoed in an error lands in the client's
    transcript, the model's context and every log that keeps either.

    Known false positives: a parameter named like a secret that is not one (a pagination `page_token`, a sort
    `key`) may be echoed by design and fails; waive it naming the parameter. A tool that echoes every argument
    (a debugging echo) fails for its secret-named parameters too, which is the point.

    Passes: no reply carried the canary value. Fails: one did. Blocking: without `--probe security` (one finding
    for the server), tools that may not be called, calls with no answer.

    To verify when blocking: run with `--probe security` and `--calls read-only` for tools annotated readOnlyHint:
    true (and not open-world) or `--calls all` (the reviewer's consent) for any other, such as a login; with an
    allow-list, add the tool to calls.allow in mcp-review.toml.
    """
    async for finding in run_probe(ctx, SECRETS, tokens_only(secret_payloads)):
        yield finding


def secret_payloads() -> list[Payload]:
    value = canary.token()
    return [Payload(value, value)]  # the value itself coming back is the leak
