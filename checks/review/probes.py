"""Pack `review` (seed 003): active probes, opt-in (`--probe security`): injection proven by a canary's effect.

Each rule sets the strings of every tool the calling policy lets it call (every string, chosen by what it carries:
checks/review/carriers.py) to a value that reveals a canary only if the tool did the unsafe thing, shaped to stay
valid for what the string carries (inside a JSON document, as a path segment, in a URL), within `calls_per_tool`
calls per tool, and fails only when the canary shows (the course is checks/review/probing.py). Every payload is
harmless by construction: paths lead into a fresh canary area (mcp_review.canary), commands only run printf,
code only joins two strings, URLs name mcp-review's own listener on 127.0.0.1 (or `.invalid`, which reaches no
host), templates only multiply. Without `--probe security` nothing is called: one `blocking` finding names the
strings that could carry a payload and how to prove it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from mcp_review import canary
from mcp_review.calls import CallRecord
from mcp_review.checks.review.common import SEED
from mcp_review.checks.review.probing import (
    Canaries,
    Payload,
    Probe,
    in_reply,
    joined_outside,
    observed,
    run_probe,
    tokens_only,
)
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

SOURCE = f"{SEED} Security: injection-safe"
SSRF_WAIT = 3.0  # seconds the listener waits for a request when no probe_timeout is set
COMMANDS: tuple[str, ...] = (
    "{x};printf %s%s {a} {b}",
    "$(printf %s%s {a} {b})",
    "`printf %s%s {a} {b}`",
    "{x} && printf %s%s {a} {b}",
)
COMMANDS += ("{x} | printf %s%s {a} {b}",)
CODE = (
    "import sys; sys.stdout.write('{a}' + '{b}')",  # Python, run as a program (exec): statements
    "print(''.join(['{a}', '{b}']))",  # Python, as a program or an expression
    "['{a}', '{b}'].join('')",  # JavaScript, evaluated: the last expression is the value
    "console.log(['{a}', '{b}'].join(''))",  # JavaScript, run as a program
    "puts ['{a}', '{b}'].join",  # Ruby
    "'{a}' + '{b}'",  # an expression in Python, JavaScript and Ruby alike: its value, for an eval() that returns it
)
TEMPLATES = ("{{{{7*{n}}}}}", "${{7*{n}}}", "#{{7*{n}}}", "<%= 7*{n} %>")


PATHS = Probe(
    "path traversal",
    "reached the canary area",
    ("path", "file", "filename", "dir", "directory", "folder", "document", "upload", "attachment"),
    paths=True,
    keys=("path", "file", "filename", "dir"),
    settles="what would decide it: a reply that returns what the tool read, or a refusal of the path itself (the "
    "tool accepts the same call with an ordinary path); check where the tool joins the path with its root",
)


@rule("review.paths-confined", concern="security", severity="high", modes=("call",), source=SOURCE)
async def paths_confined(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Paths stay inside the directory the tool serves: proven by a canary read, listed or written.

    What it checks: with `--probe security`, every string a tool takes (a parameter, a string in an array or a
    nested object; by what it carries, not its name: checks/review/carriers.py) of every tool the calling policy
    allows is set to a path with enough `../` segments to reach / from any base directory, then into (1) a canary
    file with random content, (2) a canary directory holding one file with a random name, (3) a path where nothing
    exists yet, all in a fresh temporary directory mcp-review creates and removes after the review (the canary
    area): as a path for a path, as a `file://` URL for a URL, inside the values of a JSON document for a string
    that carries JSON, and after each prefix its text shows. File and directory parameters go first; every string
    gets its first payload before any gets a second, within `calls_per_tool` calls per tool (`--probe security-all`:
    no budget). Nothing outside the canary area is ever named, and a tool's other path arguments point into it too,
    so even a tool that writes can only write there. The effect fails: the file's token or the directory's entry in
    the reply, a file appearing at the written path, or an error in which the operating system answered for a path
    the server built into the canary area (`Not a directory: '/srv/ws/../../tmp/mcp-review-canary-…'`) without
    refusing it, or, when the server is observed, its opening the canary (whatever it answered).

    Why: seed 003 injection-safe: arguments reaching paths MUST be confined; path traversal was among the most-filed
    MCP CVE classes in early 2026, and the parameter that reaches `open()` is as often a `document_name` as a
    `path`. Random content and names prove the effect; nothing is guessed, and no system file is ever a payload (an
    earlier probe wrote to /etc/passwd on a server running as root).

    Known false positives: a tool meant to reach any path (a filesystem server allowed to use the temporary
    directory) reaches the canary by design: the effect is real, whether it should be confined is the reviewer's
    call; waive it naming the configured roots. A server on another host or in a container that cannot see this
    machine's temporary directory shows no effect.

    Passes: every payload was refused as a path (the tool accepts an ordinary call, or its refusal names the path),
    came back as text, or was written nowhere it was sent. Fails: an effect showed. Blocking: without `--probe
    security` (one finding for the server, naming the strings that could carry it), a call neither proven nor
    decided safe (taken without refusal, echo or effect, or refused for a reason that is not the payload, such as
    "unknown service 'x'": a refusal proves nothing by itself), tools that may not be called, calls with no answer.

    To verify when blocking: run with `--probe security` and `--calls read-only` for tools annotated readOnlyHint:
    true (and openWorldHint: false) or `--calls all` (the reviewer's consent) for any other; with an allow-list, add
    the tool to calls.allow in mcp-review.toml. A tool left undecided needs what its finding names: the values its
    text offers reach more of it, a larger `--calls-per-tool` sends what the budget left out, and a server run
    confined shows what it did.
    """
    async for finding in run_probe(ctx, PATHS, canary_paths):
        yield finding


@contextlib.asynccontextmanager
async def canary_paths(ctx: CheckContext) -> AsyncIterator[Canaries]:
    """Per parameter a fresh file to read, directory to list and path to write, in the review's canary area; the
    effect on any of them (or the system's answer for a path built into the area) proves the traversal."""
    area = ctx.area()

    def payloads() -> list[Payload]:
        file, content = area.plant_file()
        directory, entry = area.plant_dir()
        target = area.write_target()
        return [
            Payload(area.traversal(file), content, "returned the canary file's content", str(file), (file.name,)),
            Payload(area.traversal(directory), entry, "listed the canary directory", str(directory), (directory.name,)),
            Payload(area.traversal(target), "", "", str(target), (target.name,), in_band=False),
        ]

    async def proved(record: CallRecord, payload: Payload) -> str | bool | None:
        touched = area.disturbed(Path(payload.planted))
        shown = await in_reply(record, payload) if payload.proof else None
        return touched or shown or joined_outside(record, area) or opened(record, payload.planted)

    def opened(record: CallRecord, planted: str) -> str | None:
        """The canary opened by the server, as observed (it need not say so in its answer)."""
        if not observed(ctx, record, lambda e: e.get("path") == planted and e.get("result") == "ok"):
            return None
        return f"opened the canary {'directory' if Path(planted).is_dir() else 'path'} (observed: {planted})"

    yield Canaries(payloads, proved)


COMMAND = Probe(
    "command injection",
    "returned the joined canary (a shell ran printf)",
    ("command", "cmd", "args", "argv", "query", "host", "hostname", "name", "message", "script", "shell", "target"),
    keys=("command", "cmd", "args", "shell", "exec"),
    settles="what would decide it: the payload coming back as text, a refusal of the payload itself, or the "
    "server's processes observed while it runs (a shell started)",
)


def command_payloads() -> list[Payload]:
    """Each shell separator with printf joining two random halves; the word before it names nothing (a random
    token, not `x`: a tool that acts on the first word acts on nothing that exists)."""
    out = []
    for shape in COMMANDS:
        a, b = canary.halves()
        out.append(Payload(shape.format(x=canary.token(4), a=a, b=b), a + b, markers=(a, b)))
    return out


@rule("review.commands-not-injected", concern="security", severity="critical", modes=("call",), source=SOURCE)
async def commands_not_injected(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Arguments never reach a shell as code: proven with a printf that joins two random halves.

    What it checks: with `--probe security`, every string a tool takes (a parameter, a string in an array or a
    nested object; by what it carries, not its name: checks/review/carriers.py) of every tool the calling policy
    allows is set in turn to `W;printf %s%s A B`, `$(printf %s%s A B)`, `` `printf %s%s A B` ``, `W && printf ...`
    and `W | printf ...`, where A and B are random halves of a token and W a random word that names nothing: as it
    is, after each prefix the parameter's text shows (`exec:`), as a segment after a path into the canary area for a
    path, in the path of an `.invalid` URL for a URL (spaces as `${IFS}`), inside the values of a JSON document for
    a string that carries JSON. Strings named like command, cmd, args, host, query, message, script or shell go
    first. Only a shell joins the halves: the whole token AB in the reply fails; A or B back without it shows the
    payload was kept as text. The worst a shell can do with these is print: no payload runs anything but printf.

    Why: seed 003 injection-safe: arguments reaching shells MUST be parameterized or escaped; shell injection was
    the most-filed MCP CVE class in early 2026, and it hides behind names like `value` or `config_json`.

    Known false positives: a tool whose purpose is to run a command line (a terminal server) runs the printf by
    design and fails: waive it when running commands is the tool's job and it is gated. Injection that needs a valid
    prefix its text does not show is not found.

    Passes: every payload was refused (as the payload's own refusal) or came back as text. Fails: a reply carried
    the joined token. Blocking: without `--probe security` (one finding for the server, naming the strings that
    could carry it), a call neither proven nor decided safe (taken without refusal, echo or effect, or refused for a
    reason that is not the payload, such as "unknown service 'x'": a refusal proves nothing by itself), tools that
    may not be called, calls with no answer.

    To verify when blocking: run with `--probe security` and `--calls read-only` for tools annotated readOnlyHint:
    true (and openWorldHint: false) or `--calls all` (the reviewer's consent) for any other; with an allow-list, add
    the tool to calls.allow in mcp-review.toml. A tool left undecided needs what its finding names: the values its
    text offers reach more of it, a larger `--calls-per-tool` sends what the budget left out, and a server run
    confined shows what it did.
    """
    async for finding in run_probe(ctx, COMMAND, tokens_only(command_payloads)):
        yield finding


CODE_PROBE = Probe(
    "code execution",
    "returned the joined canary (the code ran)",
    (
        "code",
        "script",
        "expression",
        "expr",
        "eval",
        "python",
        "javascript",
        "js",
        "program",
        "snippet",
        "source",
        "statement",
        "cell",
        "lambda",
    ),
    keys=("code", "script", "expression", "source"),
    settles="what would decide it: the code coming back as text, a refusal of the code itself, or the server's "
    "processes observed while it runs",
)


def code_payloads() -> list[Payload]:
    """Programs in Python, JavaScript and Ruby that join two random halves: only running them produces the whole
    (arithmetic is not enough: a calculator computes 7*N by design, and a sandboxed evaluator does too)."""
    out = []
    for shape in CODE:
        a, b = canary.halves()
        out.append(Payload(shape.format(a=a, b=b), a + b, markers=(a, b)))
    return out


@rule("review.code-not-executed", concern="security", severity="critical", modes=("call",), source=SOURCE)
async def code_not_executed(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Arguments are never run as code: proven with programs that join two random halves.

    What it checks: with `--probe security`, every string a tool takes (a parameter, a string in an array or a
    nested object; by what it carries, not its name: checks/review/carriers.py) of every tool the calling policy
    allows is set in turn to a Python program (`import sys; sys.stdout.write('A' + 'B')`), a Python expression
    (`print(''.join(['A', 'B']))`), a JavaScript expression and program (`['A', 'B'].join('')`, `console.log(...)`),
    a Ruby one, and `'A' + 'B'` (an expression in all three, whose value an `eval` returns: a calculator built on
    `eval` computes it, one that parses arithmetic refuses a string), where A and B are random halves of a token,
    shaped for what the string carries (a JSON document's values, after a prefix its text shows). Strings named
    like code, script, expression, eval, program or snippet go first. Only running the code joins them: the whole
    token AB in the reply fails; A or B back without it shows the code was kept as text. None of them touches a
    file, a process or the network.

    Why: seed 003 injection-safe: arguments MUST NOT be evaluated as code. A tool that runs what it is handed runs
    whatever a prompt injection writes, with the server's rights.

    Known false positives: a tool whose purpose is running code (a notebook, a sandbox, a REPL) runs it by design
    and fails: the finding is true; waive it when running code is the tool's job and it is sandboxed. A language not
    among these (SQL, Lua, a shell) is not proven; shells are covered by review.commands-not-injected.

    Passes: every payload was refused (as the payload's own refusal) or came back as text. Fails: a reply carried
    the joined token. Blocking: without `--probe security` (one finding for the server), a call neither proven nor
    decided safe (taken without refusal, echo or effect, or refused for a reason that is not the payload, such as
    "unknown service 'x'": a refusal proves nothing by itself), tools that may not be called, calls with no answer.

    To verify when blocking: run with `--probe security` and `--calls read-only` for tools annotated readOnlyHint:
    true (and openWorldHint: false) or `--calls all` (the reviewer's consent) for any other; with an allow-list, add
    the tool to calls.allow in mcp-review.toml. A tool left undecided needs what its finding names: the values its
    text offers reach more of it, a larger `--calls-per-tool` sends what the budget left out, and a server run
    confined shows what it did.
    """
    async for finding in run_probe(ctx, CODE_PROBE, tokens_only(code_payloads)):
        yield finding


URLS = Probe(
    "server-side request forgery",
    "made the server request the canary listener on 127.0.0.1",
    ("url", "uri", "endpoint", "link", "href", "webhook", "callback"),
    formats=("uri", "url", "iri", "uri-reference"),
    keys=("url", "uri", "endpoint", "webhook", "callback"),
    settles="what would decide it: a request at the listener (the fetch may be deferred or proxied)",
)


@rule("review.urls-confined", concern="security", severity="high", modes=("call",), source=SOURCE)
async def urls_confined(ctx: CheckContext) -> AsyncIterator[Finding]:
    """URLs cannot make the server request loopback or private addresses: proven with a listener.

    What it checks: with `--probe security`, every string a tool takes (a parameter, a string in an array or a
    nested object; by what it carries, not its name: checks/review/carriers.py) of every tool the calling policy
    allows is set to `http://127.0.0.1:PORT/TOKEN` (inside the values of a JSON document for a string that carries
    JSON; URL parameters first), where a one-shot HTTP listener of mcp-review waits at a random port for a random
    path. A request for that path, within the probe timeout (`probe_timeout`, 3 s when unset), fails. Each call is
    judged when it is answered, and the tools that showed nothing once more after the last call's wait (so every
    call has at least that long, and a server that fetches later than it answers still fails). The effect is looked
    for where it would show: a call accepted with no request at the listener passes.

    Why: seed 003 injection-safe: arguments reaching URLs MUST be validated; a server that fetches any URL it is
    handed reaches the networks behind it (cloud metadata, admin ports) for whoever writes the prompt.

    A server mcp-review runs confined cannot reach this machine's loopback: when it is observed, its attempt to
    connect to the listener's port proves it all the same.

    Known false positives: a server on another host cannot reach this machine's loopback and passes whatever it
    does. A tool whose purpose is fetching arbitrary URLs (a browser, a web fetcher meant for local development)
    fails by design: waive it when loopback access is intended.

    Passes: no request reached the listener, and no call was refused for another reason. Fails: one did (the cited
    call made it). Blocking: without `--probe security` (one finding for the server), a call refused for a reason
    that is not the URL (the fetch code was never reached), tools that may not be called, calls with no answer.

    To verify when blocking: run with `--probe security` and `--calls read-only` for tools annotated readOnlyHint:
    true (and openWorldHint: false) or `--calls all` (the reviewer's consent) for any other; with an allow-list, add
    the tool to calls.allow in mcp-review.toml. A tool left undecided needs what its finding names: the values its
    text offers reach more of it, a larger `--calls-per-tool` sends what the budget left out, and a server run
    confined shows what it did.
    """
    async for finding in run_probe(ctx, URLS, listening):
        yield finding


@contextlib.asynccontextmanager
async def listening(ctx: CheckContext) -> AsyncIterator[Canaries]:
    """A one-shot listener on 127.0.0.1; a random path on it per parameter; a request for that path proves it."""
    async with canary.listener() as heard:
        wait = ctx.options.probe_timeout or min(ctx.target.timeout, SSRF_WAIT)
        loop = asyncio.get_running_loop()
        settled = [loop.time()]  # when the last call answered has had `wait` seconds

        async def requested(record: CallRecord, payload: Payload) -> str | bool:
            settled[0] = loop.time() + wait
            if heard.received(payload.proof):
                return True
            aimed = f"127.0.0.1:{heard.port}"  # confined, its own loopback refuses it; the attempt is the proof
            tried = observed(ctx, record, lambda e: e.get("kind") == "connect" and e.get("address") == aimed)
            return (
                "tried to connect to the canary listener (observed: its confinement kept it there)" if tried else False
            )

        async def settle() -> None:  # every call had `wait` seconds after its answer (the earlier ones more)
            await asyncio.sleep(max(0.0, settled[0] - loop.time()))

        def payloads() -> list[Payload]:
            path = canary.token()
            return [Payload(heard.url(path), path, markers=(heard.url(""),), in_band=False)]

        yield Canaries(payloads, requested, settle)


TEMPLATE = Probe(
    "template injection",
    "returned a value only evaluation computes",
    ("template", "format", "message", "text", "body", "pattern"),
    keys=("template", "text", "message", "body"),
    settles="what would decide it: the template coming back as text, or a refusal of the template itself",
)


def template_payloads() -> list[Payload]:
    out = []
    for shape in TEMPLATES:
        n = canary.multiplicand()
        out.append(Payload(shape.format(n=n), str(7 * n), markers=(str(n),)))
    a, b = canary.halves()
    # str.format: the field formats to "", joining A and B
    out.append(Payload(a + "{0.__class__!s:.0}" + b, a + b, markers=(a, b)))
    return [p for p in out if p.proof not in p.value]


@rule("review.templates-inert", concern="security", severity="high", modes=("call",), source=SOURCE)
async def templates_inert(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Template and format strings are treated as text, never evaluated: proven with random arithmetic.

    What it checks: with `--probe security`, every string a tool takes (a parameter, a string in an array or a
    nested object; by what it carries, not its name: checks/review/carriers.py) of every tool the calling policy
    allows is set in turn to `{{7*N}}`, `${7*N}`, `#{7*N}` and `<%= 7*N %>` for a random N >= 100000, and to
    `A{0.__class__!s:.0}B` (Python str.format: the field formats to nothing and joins the random halves A and B),
    shaped for what the string carries. Strings named like template, format, message, text, body or pattern go
    first. The product 7*N, or the token AB, in the reply fails; neither is in the input. N, A or B back without it
    shows the template was kept as text, whatever the tool did to the rest.

    Why: seed 003 injection-safe: arguments MUST NOT be evaluated as code; a template engine fed user text runs it
    (server-side template injection leads to reading files and running commands).

    Known false positives: a calculator or a template tool whose job is to evaluate what it is given computes 7*N by
    design: waive it when evaluation is the tool's purpose and sandboxed.

    Passes: every payload was refused (as the payload's own refusal) or came back as text. Fails: a reply carried a
    computed value. Blocking: without `--probe security` (one finding for the server), a call neither proven nor
    decided safe (taken without refusal, echo or effect, or refused for a reason that is not the payload, such as
    "unknown service 'x'": a refusal proves nothing by itself), tools that may not be called, calls with no answer.

    To verify when blocking: run with `--probe security` and `--calls read-only` for tools annotated readOnlyHint:
    true (and openWorldHint: false) or `--calls all` (the reviewer's consent) for any other; with an allow-list, add
    the tool to calls.allow in mcp-review.toml. A tool left undecided needs what its finding names: the values its
    text offers reach more of it, a larger `--calls-per-tool` sends what the budget left out, and a server run
    confined shows what it did.
    """
    async for finding in run_probe(ctx, TEMPLATE, tokens_only(template_payloads)):
        yield finding


SECRETS = Probe(
    "secret echo",
    "came back in the reply",
    secrets_only=True,  # an echoed value is a leak only when the parameter holds a secret by what it is
)


@rule("review.secrets-not-echoed", concern="security", severity="medium", modes=("call",), source=SOURCE)
async def secrets_not_echoed(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Secret arguments never come back in results or error messages: proven with a canary secret.

    What it checks: with `--probe security`, every parameter that holds a secret by what it is (a password or
    passphrase, an API key, an access, auth, refresh or client token or secret, `format: password`, `writeOnly`; a
    bare `token`, `key` or `pin` only when its description says it authenticates) is set to a random canary value;
    the value in the reply (result or JSON-RPC error) fails. A value echoed from any other parameter is no leak: a
    lookup `key`, a `page_token`, a `max_tokens` or a `tokenName` are not secrets, so they are not probed. Secrets
    in the server's environment are not probed: mcp-review masks every environment value it hands a server, so an
    echo of one could not be told from the mask.

    Why: seed 003 injection-safe and the secrets guidance: a password echoed in an error lands in the client's
    transcript, the model's context and every log that keeps either.

    Known false positives: a parameter that is a secret by its name but not in fact (a `secret_question` shown back
    on purpose) fails; waive it naming the parameter. A tool that echoes every argument (a debugging echo) fails for
    its secret parameters too, which is the point.

    Passes: no reply carried the canary value. Fails: one did. Blocking: without `--probe security` (one finding for
    the server), tools that may not be called, calls with no answer. n/a: no tool takes a secret.

    To verify when blocking: run with `--probe security` and `--calls read-only` for tools annotated readOnlyHint:
    true (and openWorldHint: false) or `--calls all` (the reviewer's consent) for any other; with an allow-list, add
    the tool to calls.allow in mcp-review.toml. A tool left undecided needs what its finding names: the values its
    text offers reach more of it, a larger `--calls-per-tool` sends what the budget left out, and a server run
    confined shows what it did.
    """
    async for finding in run_probe(ctx, SECRETS, tokens_only(secret_payloads)):
        yield finding


def secret_payloads() -> list[Payload]:
    value = canary.token()
    return [Payload(value, value)]  # the value itself coming back is the leak
