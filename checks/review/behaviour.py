"""Pack `review` (seed 003): what the server does, observed while it runs confined (issue 38).

mcp-review starts a stdio server confined (mcp_review.sandbox: no network, read-only files but a scratch, a home of
canaries) and, with `--observe` (by default under `--calls all` and `--probe`), watches it with strace: every file
it opens or changes, every program it starts, every connection and DNS lookup it attempts, each attributed to the
request it happened under (mcp_review.behaviour). These rules judge that record. Each fail cites the events beside
the exchange they belong to; a server that ran unobserved (another OS, no strace, not asked) is blocking, never a
pass. What the server does before its first answer is judged by `review.startup-quiet` alone; the other rules judge
what it does answering requests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from mcp_review import behaviour
from mcp_review.catalog import Item
from mcp_review.checks.review.common import SEED, named_tools
from mcp_review.concerns import Severity
from mcp_review.connection.wire import WireEntry
from mcp_review.review import Fact, Finding
from mcp_review.rules.context import CheckContext, Subject
from mcp_review.rules.core import Mode, rule

SOURCE = f"{SEED} Security: arguments-validated-and-authorized, injection-safe (observed behaviour)"
HINTS = f"{SEED} Tool contracts: annotations-set (verified by behaviour)"
SHOWN = 3  # events quoted in one finding; the rest are counted
CITED = 12  # event seqs cited in one finding


def _watched(rule_id: str, modes: tuple[Mode, ...], source: str, severity: Severity) -> Callable[..., Any]:
    """`@rule` for a behaviour rule: each judges what a stdio server mcp-review started was seen doing, a security
    concern; only the id, modes, source and severity differ."""
    return rule(rule_id, modes=modes, source=source, transport="stdio", concern="security", severity=severity)


def _blocked(ctx: CheckContext) -> Finding | None:
    why = behaviour.blocking_reason(ctx.wire)
    return ctx.blocking(None, why) if why else None


def _passed(ctx: CheckContext, subject: Subject, said: str) -> Finding:
    """A behaviour rule's pass, only for a server that ran confined: unconfined (another OS, no user namespaces,
    --no-confine) it ran with the reviewer's own files and network, so what was seen is not all it could do and
    nothing it did was bounded: blocking, never a pass (issue 38). Its fails stand: they cite what it did."""
    if behaviour.confined(ctx.wire):
        return ctx.passed(subject, said)
    return ctx.blocking(
        subject,
        f"{said}, but the server ran unconfined, with the reviewer's own files and network: not a pass until it runs "
        "confined (without --no-confine, where bubblewrap and user namespaces are available)",
    )


def _subject(ctx: CheckContext, entry: WireEntry) -> Subject:
    """The tool a call event belongs to, else the method it happened under (None: start-up)."""
    name = behaviour.tool(entry)
    if name is not None:
        return next((t for t in named_tools(ctx) if t.name == name), name)
    return (entry.event or {}).get("method") if behaviour.phase(entry) != "start-up" else None


def _listed(entries: list[WireEntry]) -> str:
    said = list(dict.fromkeys(behaviour.said(e) for e in entries))
    return "; ".join(said[:SHOWN]) + (f" and {len(said) - SHOWN} more" if len(said) > SHOWN else "")


def _cited(entries: list[WireEntry]) -> list[int]:
    seqs = [e.seq for e in entries[:CITED]]
    requests = [behaviour.request(e) for e in entries[:CITED]]
    return list(dict.fromkeys([*seqs, *(r for r in requests if r)]))


def _under(entry: WireEntry) -> str:
    how = {"during": "while answering", "after": "after answering"}.get(behaviour.phase(entry), "at")
    event = entry.event or {}
    what = f"tools/call {event['tool']}" if event.get("tool") else str(event.get("method") or "start-up")
    return f"{how} {what} (#{behaviour.request(entry)})" if behaviour.request(entry) else "at start-up"


def _judged(
    ctx: CheckContext,
    bad: Callable[[WireEntry], bool],
    fails: str,
    passes: str,
    fact: Callable[[WireEntry], Fact | None],
) -> Iterator[Finding]:
    """One fail per subject whose events (answering requests) `bad` picks, else one pass for the server."""
    seen = [e for e in behaviour.events(ctx.wire) if behaviour.phase(e) != "start-up"]
    groups: dict[str, tuple[Subject, list[WireEntry]]] = {}
    for entry in seen:
        if bad(entry):
            subject = _subject(ctx, entry)
            key = subject.key if isinstance(subject, Item) else str(subject)
            groups.setdefault(key, (subject, []))[1].append(entry)
    for subject, entries in groups.values():
        yield ctx.fail(
            subject, f"{fails} {_under(entries[0])}: {_listed(entries)}", _cited(entries), fact=fact(entries[0])
        )
    if not groups:
        yield _passed(ctx, None, f"{passes} ({len(seen)} events observed answering requests)")


# ------------------------------------------------------------------------------------------------ secrets
def _sent(ctx: CheckContext) -> dict[str, list[behaviour.Sighting]]:
    out: dict[str, list[behaviour.Sighting]] = {}
    for sighting in behaviour.sightings(ctx.wire):
        out.setdefault(sighting.path, []).append(sighting)
    return out


@_watched("review.secrets-read", ("observe",), SOURCE, "critical")
def secrets_read(ctx: CheckContext) -> Iterator[Finding]:
    """The server reads no credential of the reviewer's answering a request: no canary of its home is opened.

    What it checks: every file the observed server opened while answering a request (initialize excepted: see
    review.startup-quiet). Confined, its home is a home of canaries (`~/.aws/credentials`, `~/.ssh/id_rsa`,
    `~/.config/gh/hosts.yml`, `~/.netrc`, `~/.docker/config.json`, `~/.kube/config`, `~/.npmrc`, `.git-credentials`,
    shell history, browser logins) and its working directory holds a canary `.env`: opening one fails, the attempt
    included (a read of the reviewer's real file, unconfined, or a missing one). Where the value it read also went
    out, review.secrets-sent states the fact and this finding points to it.

    Why: the attacks of 2025-2026 MCP supply-chain incidents read `~/.aws/credentials` or `~/.ssh/id_rsa` while
    answering an ordinary call, and return nothing that shows it: only watching the server sees it.

    Known false positives: a server whose purpose is one of these credentials (an AWS server reading its
    credentials file, a git server reading `.git-credentials`); an HTTP library that reads `~/.netrc` for every
    request it makes (Python's requests does). Waive it naming the credential the server is meant to use, and
    give it that access with --allow-read.

    Passes: no canary opened while answering requests. Fails: a canary opened, naming it, the request and the events.

    To verify when blocking: the server ran unobserved; run on Linux with strace installed and --observe.
    """
    if blocked := _blocked(ctx):
        yield blocked
        return
    sent = _sent(ctx)

    def fact(entry: WireEntry) -> Fact | None:
        path = str((entry.event or {}).get("path"))
        return Fact("review.secrets-sent", f"{path} was read and sent") if path in sent else None

    whose = "a credential's canary" if behaviour.confined(ctx.wire) else "a credential of the reviewer's"
    yield from _judged(
        ctx,
        lambda e: behaviour.kind(e) == "read" and (e.event or {}).get("where") == "canary",
        f"opened {whose}",
        f"opened no {whose.removeprefix('a ')}",
        fact,
    )


@_watched("review.secrets-sent", ("observe",), SOURCE, "critical")
def secrets_sent(ctx: CheckContext) -> Iterator[Finding]:
    """No canary's value leaves the server: not in a result, a log line, stderr, a DNS name, a datagram, a command.

    What it checks: every value of the canaries the confined server could read (random, made for this run) is looked
    for in everything the server sent or did: its answers and requests, its log notifications, its stderr lines, the
    names it looked up, the datagrams it sent and the arguments of the programs it started, in every encoding the
    redactor knows (as is, escaped, base64, hex, reversed...). One fail per canary, citing where it showed.

    Why: a server that reads a secret and sends it anywhere is exfiltrating it; inside the confinement nothing
    leaves, so the attempt is the proof (a DNS lookup of `<key>.evil.example` shows its name).

    Known false positives: a server whose purpose is showing a credential to its user (a secrets manager's `get`);
    none by chance: a canary's value is random.

    Passes: no canary value seen outside its file. Fails: each canary whose value showed, with where.

    To verify when blocking: the server ran unobserved or unconfined (its home was the reviewer's: there are no
    canary values to follow); run it confined and observed (--observe, without --no-confine).
    """
    if blocked := _blocked(ctx):
        yield blocked
        return
    if not behaviour.confined(ctx.wire):
        yield ctx.blocking(None, "the server ran unconfined, with the reviewer's own files: no canary values to follow")
        return
    sent = _sent(ctx)
    reads = [e for e in behaviour.events(ctx.wire) if behaviour.kind(e) == "read"]
    for path, seen in sent.items():
        where = ", ".join(dict.fromkeys(s.where for s in seen))
        cited = [s.seq for s in seen[:CITED]] + [s.request for s in seen[:CITED] if s.request]
        read = next((e for e in reads if (e.event or {}).get("path") == path), None)  # whoever read it sent it
        subject = _subject(ctx, read) if read is not None else None
        fact = Fact("review.secrets-sent", f"{path} was read and sent")
        said = f"the value of {path} ({seen[0].what}, a canary) showed in {where}"
        yield ctx.fail(subject, said, [*([read.seq] if read else []), *cited], fact=fact)
    if not sent:
        yield _passed(ctx, None, f"no value of {len(behaviour.canaries(ctx.wire))} canaries showed anywhere")


# ----------------------------------------------------------------------------------------------- the network
@_watched("review.hosts-named", ("observe",), SOURCE, "medium")
def hosts_named(ctx: CheckContext) -> Iterator[Finding]:
    """The server reaches only hosts someone named: the reviewer (--allow-net), or the request it answers.

    What it checks: every connection, datagram and DNS lookup the observed server attempted while answering a
    request, loopback and local sockets aside. A host the reviewer allowed with --allow-net (by name, or an address
    it resolves to) passes, as does one the request's own arguments name (a URL a fetch tool was handed). Confined
    without --allow-net nothing leaves: the attempt is recorded with its address and fails.

    Why: a server that calls a host nobody named (telemetry, a copy of every message to its author, a payload
    download) is the exfiltration of the 2025 incidents; its answers show nothing of it.

    Known false positives: a server that must reach its own API (a GitHub server reaching api.github.com): name the
    host with --allow-net; a library's update check or telemetry the server did not write but still runs.

    Passes: no host nobody named. Fails: each subject with the hosts it tried.

    To verify when blocking: the server ran unobserved; run with --observe.
    """
    if blocked := _blocked(ctx):
        yield blocked
        return
    named = behaviour.Named.of(ctx.target.confinement.allow_net)
    yield from _judged(
        ctx,
        lambda e: behaviour.foreign(e, named, behaviour.asked_text(ctx.wire, e)) is not None,
        "reached a host nobody named",
        "reached no host nobody named",
        lambda _e: None,
    )


# ------------------------------------------------------------------------------------------------- processes
@_watched("review.no-shell-on-call", ("observe",), SOURCE, "high")
def no_shell_on_call(ctx: CheckContext) -> Iterator[Finding]:
    """A tool call starts no shell or interpreter (sh, bash, python, node, perl...).

    What it checks: every program the observed server started while answering (or right after) a tool call; a
    shell or a language interpreter fails. Programs started at start-up (a launcher such as npx, a pyenv shim's
    bash) are review.startup-quiet's; other programs (git, ffmpeg) are listed in the pass.

    Why: a shell on a tool call is where command injection lands, and how a server runs what it downloads; the
    answer shows none of it.

    Known false positives: a tool whose purpose is running code or commands (a code interpreter, a terminal tool);
    a server that runs git or a helper through `sh -c`. Waive it naming the tool.

    Passes: no shell or interpreter started on a tool call. Fails: each tool that started one, with its command line.

    To verify when blocking: the server ran unobserved; run with --observe and --calls so its tools are called.
    """
    if blocked := _blocked(ctx):
        yield blocked
        return
    others: set[str] = set()

    def bad(entry: WireEntry) -> bool:
        name = behaviour.program(entry)
        if name is None or not behaviour.on_call(entry):
            return False
        if not behaviour.is_shell(name):
            others.add(name)
        return behaviour.is_shell(name)

    found = list(
        _judged(ctx, bad, "started a shell or interpreter", "started no shell or interpreter", lambda _e: None)
    )
    for finding in found:
        if finding.status == "pass" and others:
            finding.message += f"; it started {', '.join(sorted(others))}"
        yield finding


# -------------------------------------------------------------------------------------------------- files
@_watched("review.writes-in-scratch", ("observe",), SOURCE, "high")
def writes_in_scratch(ctx: CheckContext) -> Iterator[Finding]:
    """The server changes files only in its scratch: its working directory, /tmp, the paths it is handed.

    What it checks: every file the observed server wrote, created, removed, renamed or linked (attempts the
    confinement refused included) while answering requests. Its working directory, /tmp, the review's canary areas
    (where the paths mcp-review hands it lead), `~/.cache` and what the reviewer allowed (--allow-write) are its
    scratch; anything else (a dotfile of the home, a canary, /etc, its own install) fails. An interpreter's bytecode
    cache (`__pycache__`) is not the server's act.

    Why: a write outside its directory is how a server persists (a shell profile, an ssh key, a cron entry) or
    tampers with what it should not touch; unconfined it lands in the reviewer's own files.

    Known false positives: a server whose purpose is editing files it is configured with (a filesystem server
    given a directory: allow it with --allow-write); a tool that keeps state in its own dotfile (`~/.config/x`).

    Passes: no change outside the scratch. Fails: each subject with the paths it changed or tried to.

    To verify when blocking: the server ran unobserved; run with --observe.
    """
    if blocked := _blocked(ctx):
        yield blocked
        return
    yield from _judged(
        ctx,
        behaviour.outside_scratch,
        "changed files outside its scratch",
        "changed no file outside its scratch",
        lambda _e: None,
    )


# ------------------------------------------------------------------------------------------------ start-up
@_watched("review.startup-quiet", ("observe",), SOURCE, "medium")
def startup_quiet(ctx: CheckContext) -> Iterator[Finding]:
    """Before its first answer the server reads no credential, reaches no host nobody named, writes nothing outside
    its scratch.

    What it checks: what the observed server did from its start until it first answered a request (its handshake
    included), in every process of it mcp-review started: a canary opened, a connection or DNS lookup to a host
    the reviewer did not allow, a change outside its scratch each fail. The pass says what it did: the files it read
    outside its own and the system's trees, the programs it started.

    Why: code that runs at import or start-up runs for whoever merely starts the server, before any tool is called
    or consented to: the install-time and start-time payloads of the npm and PyPI incidents.

    Known false positives: a launcher that checks for updates at start (npx resolving a package: mcp-review installs
    packages before it runs them); a server that loads credentials it needs at start (allow the host and the path).

    Passes: nothing of the above before its first answer. Fails: what it did, with the events.

    To verify when blocking: the server ran unobserved; run with --observe.
    """
    if blocked := _blocked(ctx):
        yield blocked
        return
    named = behaviour.Named.of(ctx.target.confinement.allow_net)
    early = [e for e in behaviour.events(ctx.wire) if behaviour.phase(e) == "start-up"]
    bad = [
        e
        for e in early
        if ((e.event or {}).get("where") == "canary" and behaviour.kind(e) == "read")
        or behaviour.foreign(e, named) is not None
        or behaviour.outside_scratch(e)
    ]
    if bad:
        yield ctx.fail(None, f"before its first answer it {_listed(bad)}", _cited(bad))
        return
    outside = {str((e.event or {}).get("path")) for e in early if behaviour.notable(e) and behaviour.kind(e) == "read"}
    programs = sorted({p for e in early if (p := behaviour.program(e))})
    said = f"{len(early)} events before its first answer, none of them a credential, a host or a write outside"
    said += f"; it started {', '.join(programs)}" if programs else ""
    said += f"; it read {len(outside)} files outside its own and the system's trees" if outside else ""
    yield _passed(ctx, None, said)


# ------------------------------------------------------------------------------------------------ annotations
async def _verified(
    ctx: CheckContext, hint: str, value: bool, bad: Callable[[WireEntry], bool], lie: str
) -> AsyncIterator[Finding]:
    """Each tool annotated `hint: value`, called under observation: a fail when its calls did what the hint denies."""
    if blocked := _blocked(ctx):
        yield blocked
        return
    annotated = [t for t in named_tools(ctx) if _hint(t, hint) is value]
    if not annotated:
        yield ctx.na(None, f"no tool is annotated {hint}: {str(value).lower()}")
        return
    for item in annotated:
        if ctx.may_call(item) is not None:
            yield ctx.blocking_call(item, f"verifying {hint} by behaviour")
            continue
        record = await ctx.sample_call(item)  # the shared sample: no call is made twice for it
        assert record is not None
        if blocked_call := ctx.unanswered(item, record, f"verifying {hint} by behaviour"):
            yield blocked_call
            continue
        mine = [e for e in behaviour.events(ctx.wire) if behaviour.on_call(e) and behaviour.tool(e) == item.name]
        wrong = [e for e in mine if bad(e)]
        if wrong:
            yield ctx.fail(
                item, f"is annotated {hint}: {str(value).lower()}, yet {lie}: {_listed(wrong)}", _cited(wrong)
            )
        else:
            yield _passed(ctx, item, f"{hint}: {str(value).lower()} held over {len(mine)} observed events of its calls")


def _hint(tool: Item, hint: str) -> bool | None:
    annotations = tool.raw.get("annotations") if isinstance(tool.raw, dict) else None
    found = annotations.get(hint) if isinstance(annotations, dict) else None
    return found if isinstance(found, bool) else None


@_watched("review.read-only-verified", ("call", "observe"), HINTS, "high")
async def read_only_verified(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A tool annotated `readOnlyHint: true` changes no file when it is called.

    What it checks: each tool annotated `readOnlyHint: true` is called (its shared sample call, as the calling policy
    allows) under observation; any file it wrote, created, removed, renamed or linked during or right after its
    calls fails, wherever it was (its working directory and the canary areas included), /tmp and devices aside.

    Why: clients let a model call read-only tools without asking; a tool that writes while claiming to read is
    taken at its word by every client (annotations are advisory, and nothing else checks them).

    Known false positives: a read-only tool that keeps a cache or a log file of its own (outside /tmp); an access-
    time or lock file a library writes.

    Passes: its calls changed no file. Fails: the changes, with the events.

    To verify when blocking: the server ran unobserved, or the tool could not be called (--calls read-only).
    """
    async for finding in _verified(
        ctx,
        "readOnlyHint",
        True,
        lambda e: behaviour.changes(e) and (e.event or {}).get("where") not in ("temp", "device"),
        "it changed files",
    ):
        yield finding


@_watched("review.open-world-verified", ("call", "observe"), HINTS, "medium")
async def open_world_verified(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A tool annotated `openWorldHint: false` reaches no host when it is called.

    What it checks: each tool annotated `openWorldHint: false` is called under observation; a connection, a datagram
    or a DNS lookup to anything but loopback during or right after its calls fails (a host the reviewer allowed
    included: the annotation says the tool needs none).

    Why: `openWorldHint: false` tells a client the tool's world is closed (no web, no outside service); a tool that
    reaches out anyway escapes what the client decided from the annotation.

    Known false positives: a closed-world tool backed by a database on another host of the reviewer's own network.

    Passes: its calls reached no host. Fails: the hosts, with the events.

    To verify when blocking: the server ran unobserved, or the tool could not be called (--calls read-only).
    """
    nobody = behaviour.Named(frozenset(), frozenset())
    async for finding in _verified(
        ctx, "openWorldHint", False, lambda e: behaviour.foreign(e, nobody) is not None, "it reached a host"
    ):
        yield finding


@_watched("review.destructive-verified", ("call", "observe"), HINTS, "high")
async def destructive_verified(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A tool annotated `destructiveHint: false` removes nothing when it is called.

    What it checks: each tool annotated `destructiveHint: false` is called (as the calling policy allows) under
    observation; a file or directory it removed or renamed away during or right after its calls fails, /tmp aside.

    Why: clients ask before a destructive call and not before the others; a tool that deletes while annotated
    non-destructive is called without the user's confirmation.

    Known false positives: a tool that replaces a file atomically (writes a temporary file beside it, then renames
    it over the old one) outside /tmp: a rename over a file is a removal of its old content.

    Passes: its calls removed nothing. Fails: what it removed, with the events.

    To verify when blocking: the server ran unobserved, or the tool could not be called (--calls all).
    """
    async for finding in _verified(ctx, "destructiveHint", False, behaviour.deletes, "it removed files"):
        yield finding
