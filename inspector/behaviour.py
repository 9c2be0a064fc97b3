"""What a server was observed doing, read from the wire log: how each of its processes ran, its events by request,
which of them matter, where a canary showed, and the review's Behaviour section.

The events are wire entries (direction "event", `mcp_review.connection.wire`), each with where its path lies in the
server's view (`sandbox.Layout.where`) and the request it happened under. The behaviour rules
(checks/review/behaviour.py), the exports and the app's Behaviour tab all read them through here.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import socket
import weakref
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from mcp_review.connection.wire import WireEntry, WireLog
from mcp_review.redact import Redactor
from mcp_review.sandbox import Ran, known_run

CHANGES = ("write", "delete", "rename", "mkdir", "link")  # what changes the filesystem
SCRATCH = ("temp", "scratch", "work", "device", "cache")  # where a server may write as it likes
QUIET = ("own", "system", "device", "work")  # where reading is what any program does to run
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox"})
INTERPRETERS = re.compile(
    r"^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|"
    r"lua[0-9.]*|osascript|pwsh|powershell|Rscript|tclsh[0-9.]*|wish[0-9.]*|expect)$"
)
BYTECODE = re.compile(r"(/__pycache__(/|$)|\.py[co]$)")  # an interpreter caching what it compiled: not the server's act


def events(wire: WireLog) -> list[WireEntry]:
    """Every event observed so far (those strace has reported are recorded first)."""
    wire.catch_up()
    return list(wire.events())


def runs(wire: WireLog) -> dict[int, Ran]:
    return dict(wire.runs)


def unobserved(wire: WireLog) -> str | None:
    """Why nothing the server did could be observed (no process of it was), in a sentence; None when one was."""
    ran = list(wire.runs.values())
    if not ran:
        return "mcp-review did not start the server, so it could not observe it"
    if any(r.observed for r in ran):
        return None
    why = ran[0].unobserved or "unknown"
    how = "confined" if ran[0].confined else f"unconfined ({ran[0].unconfined})"
    return f"the server ran {how} and unobserved ({why})"


def confined(wire: WireLog) -> bool:
    """Did every process of the server run confined (its home a home of canaries)?"""
    return bool(wire.runs) and all(r.confined for r in wire.runs.values())


def blocking_reason(wire: WireLog) -> str | None:
    """What keeps a behaviour rule from judging, and what would let it (None: it can judge)."""
    why = unobserved(wire)
    if why is None:
        return None
    not_asked = any((r.unobserved or "").startswith("not asked") for r in wire.runs.values())
    fix = "run with --observe to see what it does" if not_asked else "observing it needs strace, on Linux"
    return f"{why}: {fix}"


# -------------------------------------------------------------------------------------------------- an event
def kind(entry: WireEntry) -> str:
    return str((entry.event or {}).get("kind", ""))


def phase(entry: WireEntry) -> str:
    return str((entry.event or {}).get("phase", ""))


def tool(entry: WireEntry) -> str | None:
    found = (entry.event or {}).get("tool")
    return found if isinstance(found, str) else None


def request(entry: WireEntry) -> int | None:
    found = (entry.event or {}).get("request")
    return found if isinstance(found, int) else None


def on_call(entry: WireEntry) -> bool:
    """Did it happen while (or right after) a tool call was answered?"""
    return tool(entry) is not None and phase(entry) in ("during", "after")


def changes(entry: WireEntry) -> bool:
    """Does it change (or try to change) the filesystem, other than an interpreter's bytecode cache?"""
    event = entry.event or {}
    return kind(entry) in CHANGES and not BYTECODE.search(str(event.get("path", "")))


def outside_scratch(entry: WireEntry) -> bool:
    """A change (attempted or made) outside where a server may write: its scratch, /tmp, its working directory,
    the home's cache; a rename or link counts where it leads too."""
    event = entry.event or {}
    if not changes(entry):
        return False
    places = [event.get("where")] + ([event.get("toWhere")] if kind(entry) in ("rename",) else [])
    return any(p is not None and p not in SCRATCH for p in places)


def deletes(entry: WireEntry) -> bool:
    """Does it remove a file or directory (a rename removes its old name), outside /tmp?"""
    event = entry.event or {}
    return kind(entry) in ("delete", "rename") and event.get("where") not in ("temp", "device")


def program(entry: WireEntry) -> str | None:
    """The name of the program an exec event started."""
    path = (entry.event or {}).get("path")
    return os.path.basename(path) if kind(entry) == "exec" and isinstance(path, str) else None


def is_shell(name: str) -> bool:
    return name in SHELLS or bool(INTERPRETERS.match(name))


def notable(entry: WireEntry) -> bool:
    """Worth showing a reviewer: anything but a read of its own, the system's or its working directory's files."""
    event = entry.event or {}
    if kind(entry) == "read":
        return event.get("where") not in QUIET
    return not (kind(entry) in CHANGES and not changes(entry))


def said(entry: WireEntry) -> str:
    """The event in a few words, as a finding quotes it."""
    event = entry.event or {}
    what, result = kind(entry), event.get("result", "ok")
    refused = "" if result == "ok" else f" (refused: {result})"
    if what == "exec":
        argv = " ".join(str(a) for a in event.get("argv") or [event.get("path")])
        return f"started {argv[:160]!r}"
    if what in ("connect", "send"):
        verb = "connected to" if what == "connect" else "sent a datagram to"
        return f"{verb} {event.get('address')}{refused}"
    if what == "dns":
        return f"looked up {event.get('name')!r}"
    verbs = {"read": "opened", "write": "wrote", "delete": "removed", "rename": "renamed", "mkdir": "made directory"}
    verb = verbs.get(what, "linked")
    to = f" to {event.get('to')}" if event.get("to") else ""
    secret = f" ({event['secret']})" if event.get("secret") else ""
    return f"{verb} {event.get('path')}{secret}{to}{refused}"


# ------------------------------------------------------------------------------------------------ the network
def host_of(address: str) -> str | None:
    """The host of "h:port" / "[h]:port" (None for a unix socket)."""
    if address.startswith("unix:"):
        return None
    host = address.rsplit(":", 1)[0]
    return host[1:-1] if host.startswith("[") else host


def loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost" or host.endswith(".localhost")


@dataclass(frozen=True)
class Named:
    """The hosts the reviewer named (`--allow-net`), as names and as the addresses they resolve to now."""

    names: frozenset[str]
    addresses: frozenset[str]

    @classmethod
    def of(cls, hosts: Iterable[str]) -> Named:
        names = frozenset(h.lower().rstrip(".") for h in hosts)
        addresses: set[str] = set()
        for name in names:
            try:
                addresses |= {str(info[4][0]) for info in socket.getaddrinfo(name, None)}
            except (OSError, UnicodeError):
                continue
        return cls(names, frozenset(addresses))


def foreign(entry: WireEntry, named: Named, asked: str = "") -> str | None:
    """The host an event reaches (a connection, a datagram, a DNS lookup) when nobody named it: not loopback, not
    allowed by the reviewer, not in the text of the request it answered (`asked`: a URL the call was given)."""
    event = entry.event or {}
    if kind(entry) == "dns":
        name = str(event.get("name") or "").lower().rstrip(".")
        if not name or loopback(name) or name in named.names or (asked and name in asked.lower()):
            return None
        return name
    if kind(entry) not in ("connect", "send"):
        return None
    host = host_of(str(event.get("address") or ""))
    if host is None or loopback(host) or host in named.addresses or host in named.names or (asked and host in asked):
        return None
    return str(event.get("address"))


def asked_text(wire: WireLog, entry: WireEntry) -> str:
    """The arguments of the request an event happened under, as text (a host the caller handed it is the caller's)."""
    seq = request(entry)
    found = wire.get(seq) if seq else None
    message = found.message if found is not None else None
    params = message.get("params") if isinstance(message, dict) else None
    return json.dumps(params, ensure_ascii=False) if isinstance(params, dict) else ""


# ------------------------------------------------------------------------------------------------- canaries
@dataclass(frozen=True)
class Sighting:
    """A canary's value where it should never be: in what the server sent us, its stderr, a packet, a DNS name."""

    seq: int  # the entry it shows in
    path: str  # the canary it came from
    what: str  # what that canary stands for
    where: str  # "a result", "a log line", "a DNS lookup"...
    request: int | None  # the request it happened under or answers


def canaries(wire: WireLog) -> dict[str, tuple[str, list[str]]]:
    """path -> (what it stands for, its values) of every canary the review's confined processes could see."""
    out: dict[str, tuple[str, list[str]]] = {}
    for ran in wire.runs.values():
        run = known_run(ran.run) if ran.confined else None
        for path, what in ran.layout.canaries if run else ():
            values = [v for v, p, _ in run.values() if p == path] if run else []
            out[path] = (what, values)
    return out


_seen: dict[int, tuple[weakref.ref[WireLog], int, list[Sighting]]] = {}  # id(log) -> (the log, its length, found)


def sightings(wire: WireLog) -> list[Sighting]:
    """Every entry of the log that carries a canary's value (in any encoding the redactor knows: base64, hex...).
    One pass with every canary at once; only an entry that holds one is asked which (kept per log and length:
    two rules and the review's section ask)."""
    cached = _seen.get(id(wire))
    if cached is not None and cached[0]() is wire and cached[1] == len(wire.entries):
        return cached[2]
    found = canaries(wire)
    finders = [(path, what, Redactor(values)) for path, (what, values) in found.items() if values]
    out: list[Sighting] = []
    anyone = Redactor([v for _, (_, values) in found.items() for v in values])
    for entry in wire.entries if finders else ():
        text, where = _carried(entry)
        if not text or not anyone.needed(text):
            continue
        for path, what, finder in finders:
            if finder.needed(text):
                link = entry.link
                asked = link.request if link and link.answers else request(entry)
                out.append(Sighting(entry.seq, path, what, where, asked))
    if len(_seen) > 64:  # the logs of earlier reviews in one process (the app, a test run)
        _seen.clear()
    _seen[id(wire)] = (weakref.ref(wire), len(wire.entries), out)
    return out


def _carried(entry: WireEntry) -> tuple[str, str]:
    """What an entry carries that the server chose, and what to call it."""
    if entry.direction == "recv" and entry.message is not None:
        method = entry.method
        where = (
            "a log message" if method == "notifications/message" else f"a {method} request" if method else "an answer"
        )
        return json.dumps(entry.message, ensure_ascii=False), where
    if entry.direction == "stderr":
        return entry.text or "", "a line on stderr"
    if entry.direction == "event" and entry.event:
        event = entry.event
        if event.get("kind") == "dns":
            return str(event.get("name") or ""), "a DNS lookup"
        if event.get("kind") == "send":
            return str(event.get("data") or ""), f"a datagram to {event.get('address')}"
        if event.get("kind") == "exec":
            return " ".join(str(a) for a in event.get("argv") or []), "a program's arguments"
    return "", ""


# ------------------------------------------------------------------------------------------------- a summary
def by_request(entries: Iterable[WireEntry]) -> Iterator[tuple[tuple[int, str], list[WireEntry]]]:
    """The events grouped by the request they happened under (connection, and its seq or "start-up"), in order."""
    groups: dict[tuple[int, str], list[WireEntry]] = {}
    for entry in entries:
        key = (entry.conn, str(request(entry) or "start-up"))
        groups.setdefault(key, []).append(entry)
    yield from groups.items()


def summary(wire: WireLog, limit: int = 200) -> dict[str, Any] | None:
    """The review's Behaviour section: how each process ran, what was observed by request (counts, and the
    notable events' seqs, at most `limit` in all), where a canary showed. None when the server was not started by
    mcp-review (an HTTP server)."""
    if not wire.runs:
        return None
    seen = events(wire)
    shown = 0
    requests = []
    for (conn, key), group in by_request(seen):
        first = group[0].event or {}
        worth = [e.seq for e in group if notable(e)]
        kept = worth[: max(0, limit - shown)]
        shown += len(kept)
        counts = Counter(kind(e) for e in group)
        entry = {"conn": conn, "request": None if key == "start-up" else int(key), "phase": phase(group[0])}
        for name in ("method", "tool"):
            if first.get(name):
                entry[name] = first[name]
        shown_events = [{"seq": e.seq, "said": said(e)} for e in group if e.seq in set(kept)]
        requests.append({**entry, "counts": dict(counts), "notable": shown_events, "notableTotal": len(worth)})
    return {
        "processes": [{"conn": conn, "line": ran.line(), **ran.to_json()} for conn, ran in sorted(wire.runs.items())],
        "events": {"observed": wire.events_seen, "notKept": wire.events_dropped},
        "requests": requests,
        "sightings": [vars(s) for s in sightings(wire)],
    }


def shown(section: dict[str, Any] | None) -> list[int]:
    """The seqs of the events a Behaviour section shows (the review keeps those entries)."""
    return [e["seq"] for row in (section or {}).get("requests", []) for e in row.get("notable", [])]
