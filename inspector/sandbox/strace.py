"""Reading what `strace -f` wrote: each line of a traced system call becomes an `Event`, or nothing.

strace runs with `-xx` (every string in hex: a path or a packet a server chose cannot forge a quote, a bracket or a
line of its own), `-y` (a descriptor is followed by the path or socket it names, and `AT_FDCWD` by the working
directory, so relative paths resolve as the kernel resolved them), `-ttt` (the wall clock, which the wire log
uses too) and `-qq -e signal=none` (no status lines). A call strace could not print at once is split into
`<unfinished ...>` and `<... resumed>` lines: `Parser` joins them per process.

The arguments are read by a small scanner of strace's own notation (strings, `{}` structures, `[]` arrays, `<>`
descriptor paths); anything else it meets is skipped, never trusted: an event is made only from fields found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

HEX = re.compile(r"\\x([0-9a-fA-F]{2})")
LINE = re.compile(r"^(\d+) +(\d+\.\d+) +(.*)$")
CALL = re.compile(r"^([a-z0-9_]+)\((.*)$", re.S)
RESUMED = re.compile(r"^<\.\.\. ([a-z0-9_]+) resumed>(.*)$", re.S)
RESULT = re.compile(r"^(-?\d+|\?)(<[^>]*>)?(?: ([A-Z][A-Z0-9_]*))?")
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
MAX_DATA = 4096  # bytes of a packet kept (strace prints as many: -s)
FILE_CALLS = {
    # name: (kind, index of the directory fd or None, index of the path)
    "open": ("open", None, 0),
    "openat": ("open", 0, 1),
    "openat2": ("open", 0, 1),
    "creat": ("write", None, 0),
    "truncate": ("write", None, 0),
    "unlink": ("delete", None, 0),
    "unlinkat": ("delete", 0, 1),
    "rmdir": ("delete", None, 0),
    "mkdir": ("mkdir", None, 0),
    "mkdirat": ("mkdir", 0, 1),
}
TWO_PATHS = {
    # name: (kind, (dirfd, path) of the source, (dirfd, path) of the destination)
    "rename": ("rename", (None, 0), (None, 1)),
    "renameat": ("rename", (0, 1), (2, 3)),
    "renameat2": ("rename", (0, 1), (2, 3)),
    "link": ("link", (None, 0), (None, 1)),
    "linkat": ("link", (0, 1), (2, 3)),
    "symlink": ("link", (None, None), (None, 1)),
    "symlinkat": ("link", (None, None), (1, 2)),
}
SYSCALLS = (*FILE_CALLS, *TWO_PATHS, "execve", "execveat", "connect", "sendto", "sendmsg", "sendmmsg")


@dataclass(frozen=True)
class Event:
    """One thing a server's process did: a file it opened, wrote, removed, renamed or linked, a program it started,
    a connection it attempted, a DNS name it asked for, data it sent. `result` is "ok" or the error's name (an
    attempt the confinement refused is still an event)."""

    t: float
    pid: int
    kind: str  # read, write, delete, rename, mkdir, link, exec, connect, dns, send
    syscall: str
    result: str = "ok"
    path: str | None = None  # the file (absolute), the program started, the socket path
    to: str | None = None  # where a rename or link points
    argv: tuple[str, ...] | None = None  # a program's arguments
    address: str | None = None  # "203.0.113.7:443", "[::1]:53", "unix:/run/x.sock"
    name: str | None = None  # the DNS name a query asked for
    data: str | None = None  # what a send carried (cut at MAX_DATA bytes), as latin-1 text

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "pid": self.pid, "syscall": self.syscall, "result": self.result}
        for key in ("path", "to", "argv", "address", "name", "data"):
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if key == "argv" else value
        return out


def unhex(text: str) -> str:
    """A `-xx` string's bytes, as the text they spell (undecodable bytes kept as U+FFFD)."""
    return bytes(int(h, 16) for h in HEX.findall(text)).decode("utf-8", "replace") if "\\x" in text else text


def _raw(text: str) -> bytes:
    return bytes(int(h, 16) for h in HEX.findall(text))


# ------------------------------------------------------------------------------------------------ the notation
class Node(list[Any]):
    """A `{...}` structure or `[...]` array, as its items (a `key=value` item is a `(key, value)` pair)."""

    def get(self, key: str) -> Any:
        return next((v for item in self if isinstance(item, tuple) for k, v in [item] if k == key), None)


def scan(text: str) -> Node:
    """The top-level arguments of a call (the text after its `(`)."""
    items, _ = _items(text, 0, ")")
    return items


def _items(text: str, i: int, close: str) -> tuple[Node, int]:
    out, current, key = Node(), "", None
    while i < len(text):
        ch = text[i]
        if ch == '"':
            end = text.find('"', i + 1)
            end = len(text) if end < 0 else end
            current += text[i : end + 1]
            i = end + 1
            continue
        if ch in "{[":
            node, i = _items(text, i + 1, "}" if ch == "{" else "]")
            out.append((key, node) if key else node)
            current, key = "", None
            continue
        if ch == "(" and current.strip():  # notation such as htons(443), inet_addr("..."): one item
            depth, j = 1, i + 1
            while j < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            current += text[i:j]
            i = j
            continue
        if ch == "<":  # a descriptor's path or socket: 3</etc/passwd>
            end = text.find(">", i)
            end = len(text) if end < 0 else end
            current += text[i : end + 1]
            i = end + 1
            continue
        if ch == "=" and key is None and current.strip().isidentifier():
            key, current = current.strip(), ""
        elif ch in ",)]}":
            if current.strip():
                out.append((key, current.strip()) if key else current.strip())
            current, key = "", None
            if ch == close or ch in ")]}":
                return out, i + 1
        else:
            current += ch
        i += 1
    if current.strip():
        out.append((key, current.strip()) if key else current.strip())
    return out, i


def _string(item: Any) -> str | None:
    """The text of a `"..."` argument (`@"..."` for an abstract socket: kept with its `@`)."""
    if isinstance(item, str):
        at = item.startswith('@"')
        body = item[1:] if at else item
        if body.startswith('"'):
            return ("@" if at else "") + unhex(body[1 : body.rfind('"')] if body.rfind('"') > 0 else body[1:])
    return None


def _fd_path(item: Any) -> str | None:
    """The path `-y` printed after a descriptor (`AT_FDCWD</srv>`, `3</srv/data>`)."""
    if isinstance(item, str) and "<" in item and item.endswith(">"):
        return unhex(item[item.index("<") + 1 : -1])
    return None


def _join(base: str | None, path: str) -> str:
    import posixpath

    if path.startswith("/") or not base:
        return posixpath.normpath(path) if path.startswith("/") else path
    return posixpath.normpath(posixpath.join(base, path))


# -------------------------------------------------------------------------------------------------- addresses
def address(node: Any) -> tuple[str | None, int | None]:
    """("host:port" or "unix:path", port) of a socket address structure; (None, None) for what is not a peer."""
    if not isinstance(node, Node):
        return None, None
    family = node.get("sa_family")
    if family == "AF_UNIX":
        path = _string(node.get("sun_path"))
        return (f"unix:{path}", None) if path else (None, None)
    port_text = node.get("sin_port") or node.get("sin6_port") or ""
    port = int(m.group(1)) if (m := re.search(r"(\d+)", str(port_text))) else None
    if family == "AF_INET":
        host = _string(re.sub(r"^inet_addr\((.*)\)$", r"\1", str(node.get("sin_addr") or "")))
        return (f"{host}:{port}" if host else None), port
    if family == "AF_INET6":
        for item in node:
            if isinstance(item, str) and item.startswith("inet_pton("):
                host = _string(item.split(",", 1)[1].strip()) if "," in item else None
                return (f"[{host}]:{port}" if host else None), port
    return None, None


def dns_name(payload: bytes) -> str | None:
    """The name a DNS query asks for (its first question), or None when the bytes are not a query."""
    if len(payload) < 17 or payload[2] & 0x80:  # too short, or a response
        return None
    labels: list[str] = []
    i = 12
    while i < len(payload) and payload[i] and len(labels) < 128:
        size = payload[i]
        if size > 63 or i + 1 + size > len(payload):
            return None
        labels.append(payload[i + 1 : i + 1 + size].decode("ascii", "replace"))
        i += 1 + size
    return ".".join(labels) or None


# ----------------------------------------------------------------------------------------------------- parser
@dataclass
class Parser:
    """strace's output, fed in pieces, as events. `skip_until_exec`: everything before the first program other than
    `skip_until_exec` starts is the launcher's (bubblewrap setting up the sandbox), not the server's."""

    skip_until_exec: str | None = None
    started: bool = False
    lines: int = 0  # lines read (every traced call, kept or not)
    _rest: bytes = b""
    _pending: dict[int, str] = field(default_factory=dict)  # pid -> the first part of an unfinished call
    _peers: dict[str, tuple[str, int | None]] = field(default_factory=dict)  # socket inode -> connected address

    def __post_init__(self) -> None:
        self.started = self.skip_until_exec is None

    def feed(self, data: bytes) -> list[Event]:
        text = self._rest + data
        *complete, self._rest = text.split(b"\n")
        out = []
        for raw in complete:
            self.lines += 1
            event = self.line(raw.decode("ascii", "replace"))
            if event is not None:
                out.append(event)
        return out

    def end(self) -> list[Event]:
        """What a last line without its newline holds."""
        rest, self._rest = self._rest, b""
        return self.feed(rest + b"\n") if rest else []

    def line(self, text: str) -> Event | None:
        matched = LINE.match(text)
        if not matched:
            return None
        pid, t, body = int(matched.group(1)), float(matched.group(2)), matched.group(3)
        if body.endswith("<unfinished ...>"):
            self._pending[pid] = body[: -len("<unfinished ...>")].rstrip()
            return None
        if resumed := RESUMED.match(body):
            first = self._pending.pop(pid, None)
            if first is None:
                return None
            body = first + resumed.group(2)
        call = CALL.match(body)
        if not call:
            return None
        name, rest = call.group(1), call.group(2)
        end = rest.rfind(") = ")  # strings are in hex (-xx): the only ") = " is the call's own
        result = RESULT.match(rest[end + 4 :]) if end >= 0 else None
        if not result:
            return None
        ret, annotation, errno = result.group(1), result.group(2), result.group(3)
        args = scan(rest[: end + 1])
        ok = ret != "?" and not ret.startswith("-")
        status = "ok" if ok else (errno or "?")
        if name in ("execve", "execveat"):
            return self._exec(t, pid, name, args, ok, status)
        if not self.started:
            return None
        return self._event(t, pid, name, args, status, _fd_path(annotation) if ok and annotation else None)

    def _exec(self, t: float, pid: int, name: str, args: Node, ok: bool, status: str) -> Event | None:
        at = 1 if name == "execveat" else 0
        path = _string(args[at]) if len(args) > at else None
        argv_node = args[at + 1] if len(args) > at + 1 else None
        argv = tuple(s for s in (_string(a) for a in argv_node) if s is not None) if isinstance(argv_node, Node) else ()
        if not self.started:
            if not ok or path is None or path == self.skip_until_exec:
                return None
            self.started = True
        if not ok:  # a program looked for on each PATH entry fails once per entry: only what ran counts
            return None
        return Event(t, pid, "exec", name, status, path=path, argv=argv)

    def _event(self, t: float, pid: int, name: str, args: Node, status: str, opened: str | None) -> Event | None:
        if name in FILE_CALLS:
            kind, dir_at, path_at = FILE_CALLS[name]
            path = self._path(args, dir_at, path_at)
            if path is None:
                return None
            if kind == "open":
                flags = str(args[path_at + 1]) if len(args) > path_at + 1 else ""
                if isinstance(args[path_at + 1] if len(args) > path_at + 1 else None, Node):
                    flags = str(args[path_at + 1].get("flags") or "")
                kind = "write" if any(f in flags for f in WRITE_FLAGS) else "read"
            if name == "unlinkat" and "AT_REMOVEDIR" in str(args[2] if len(args) > 2 else ""):
                kind = "delete"
            return Event(t, pid, kind, name, status, path=opened or path)
        if name in TWO_PATHS:
            kind, source, dest = TWO_PATHS[name]
            to = self._path(args, *dest)
            if name.startswith("symlink"):
                target = _string(args[0]) if args else None
                return Event(t, pid, kind, name, status, path=to, to=target) if to else None
            path = self._path(args, *source)
            return Event(t, pid, kind, name, status, path=path, to=to) if path else None
        if name == "connect":
            peer, port = address(args[1] if len(args) > 1 else None)
            if peer is None:
                return None
            if (inode := _inode(args[0] if args else None)) is not None:
                self._peers[inode] = (peer, port)
            return Event(t, pid, "connect", name, status, address=peer)
        return self._send(t, pid, name, args, status)

    def _path(self, args: Node, dir_at: int | None, path_at: int | None) -> str | None:
        if path_at is None or len(args) <= path_at:
            return None
        path = _string(args[path_at])
        if path is None:
            return None
        base = _fd_path(args[dir_at]) if dir_at is not None and len(args) > dir_at else None
        return _join(base, path)

    def _send(self, t: float, pid: int, name: str, args: Node, status: str) -> Event | None:
        """A packet: its data, and where it went (its own address, else the socket's connected peer)."""
        if not args:
            return None
        peer, port = self._peers.get(_inode(args[0]) or "", (None, None))
        payloads: list[str] = []
        if name == "sendto":
            payloads = [args[1]] if len(args) > 1 and isinstance(args[1], str) else []
            if len(args) > 4 and isinstance(args[4], Node):
                peer, port = address(args[4])
        else:
            headers = [args[1]] if name == "sendmsg" else [m.get("msg_hdr") for m in args[1]] if len(args) > 1 else []
            for header in headers:
                if not isinstance(header, Node):
                    continue
                if isinstance(named := header.get("msg_name"), Node):
                    peer, port = address(named)
                for iov in header.get("msg_iov") or []:
                    if isinstance(iov, Node) and isinstance(iov.get("iov_base"), str):
                        payloads.append(iov.get("iov_base"))
        if peer is None:
            return None
        data = b"".join(_raw(p) for p in payloads)[:MAX_DATA]
        if port == 53 and (asked := dns_name(data)):
            return Event(t, pid, "dns", name, status, address=peer, name=asked)
        return Event(t, pid, "send", name, status, address=peer, data=data.decode("latin-1"))


def _inode(item: Any) -> str | None:
    """The inode of the socket a descriptor names (`3<socket:[82837]>`, or with -yy `3<UDP:[...]>`)."""
    path = _fd_path(item)
    if path and (m := re.search(r"\[(\d+)\]", path)):
        return m.group(1)
    return None
