"""Fixture servers started by fork from one process that has already imported the `mcp` SDK.

Starting a fixture server built on the SDK costs about 0.8 s of CPU, nearly all of it `import mcp` (pydantic
models), and the suite starts hundreds of them on 2 cores. The fork server imports the stack once per session
(tests/conftest.py starts it); each fixture is then a fork that runs the script as `__main__`, a few
milliseconds. What mcp-review sees is unchanged: a real process on real pipes, started with the argv that
`fixture_argv` gives (tests/support.py), which is this file run as a light client:

    python -S tests/forkserver.py SOCKET SCRIPT [ARGS...]     # the client: what mcp-review starts
    python tests/forkserver.py --serve SOCKET                 # the fork server (tests/conftest.py)

The client sends its stdin, stdout and stderr (SCM_RIGHTS), argv, environment and working directory, then drops
its own copies of the pipes, so end-of-file on them means what it means for the server alone. It forwards the
signals a client sends (SIGTERM, SIGINT, SIGHUP) to the fork and exits as the fork did: a code, or the same
signal. A client killed outright (SIGKILL, or the parent-death signal mcp-review sets) closes its socket, and the
fork, watching it, kills itself: no fixture outlives what started it. With no fork server listening, the client
runs the script itself (`execv`), so a test never depends on this speed-up for its result.

multiprocessing's own forkserver runs pickled functions with its own pipes; this needs a script run on the
caller's descriptors, under the caller's process, hence these hundred lines.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
import sys

PRELOAD = ("mcp", "mcp.server", "mcp.server.mcpserver", "mcp.server.lowlevel", "mcp.types", "pydantic", "anyio")
PRELOAD_HTTP = ("uvicorn", "starlette.applications", "sse_starlette", "mcp.server.streamable_http_manager")
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
STATUS = struct.Struct("!ii")  # (pid, 0) when forked, then (exit code or -signal, 1) when it ended


def client(path: str, argv: list[str]) -> None:
    """Run `argv` (a fixture script and its arguments) in a fork of the server at `path`, as if it were us."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        os.execv(sys.executable, [sys.executable, *argv])  # no fork server: run it the slow way
    request = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    socket.send_fds(conn, [struct.pack("!I", len(request)) + request], [0, 1, 2])
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    pid, _ = STATUS.unpack(_read(conn, STATUS.size))
    for sig in FORWARDED:
        signal.signal(sig, lambda number, _frame: os.kill(pid, number))
    ended = _read(conn, STATUS.size)
    code = STATUS.unpack(ended)[0] if ended else -signal.SIGKILL
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


def _read(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        part = conn.recv(size - len(data))
        if not part:
            return b""
        data += part
    return data


def serve(path: str) -> None:
    """Import the SDK stack, then fork one child per client connection and report its pid and exit status."""
    import importlib
    import selectors

    for name in PRELOAD + PRELOAD_HTTP:
        importlib.import_module(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    reaped_r, reaped_w = os.pipe()  # SIGCHLD wakes the loop (one thread: no fork while other threads run)
    os.set_blocking(reaped_w, False)
    signal.set_wakeup_fd(reaped_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    waiting: dict[int, socket.socket] = {}
    events = selectors.DefaultSelector()
    events.register(listener, selectors.EVENT_READ)
    events.register(reaped_r, selectors.EVENT_READ)
    while True:
        for key, _ in events.select():
            if key.fileobj is listener:
                conn, _ = listener.accept()
                pid = _fork(conn, listener, reaped_r, reaped_w)
                if pid:
                    waiting[pid] = conn
            else:
                os.read(reaped_r, 4096)
        while waiting and (ended := os.waitpid(-1, os.WNOHANG))[0]:
            pid, status = ended
            conn = waiting.pop(pid)
            with contextlib.suppress(OSError):  # a client killed outright is not told
                conn.sendall(STATUS.pack(os.waitstatus_to_exitcode(status), 1))
            conn.close()


def _fork(conn: socket.socket, listener: socket.socket, *pipe: int) -> int:
    message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    size = struct.unpack("!I", message[:4])[0]
    while len(message) < 4 + size:
        message += conn.recv(4 + size - len(message))
    request = json.loads(message[4 : 4 + size])
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        conn.sendall(STATUS.pack(pid, 0))
        return pid
    listener.close()
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for fd in pipe:
        os.close(fd)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    _run(conn, request)
    return 0  # not reached: _run exits


def _run(conn: socket.socket, request: dict[str, object]) -> None:
    """In the fork: become the client's process (its environment, directory, argv), watch the client, run."""
    import runpy
    import threading
    import traceback

    def watch() -> None:  # the client's end closes only when it dies: then so do we
        while conn.recv(1):
            pass
        os.kill(os.getpid(), signal.SIGKILL)

    os.environ.clear()
    os.environ.update(request["env"])  # type: ignore[arg-type]
    os.chdir(str(request["cwd"]))
    argv = [str(a) for a in request["argv"]]  # type: ignore[attr-defined]
    sys.argv = argv
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
    threading.Thread(target=watch, daemon=True).start()
    code: object = 0
    try:
        runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as e:
        code = e.code
    except BaseException:
        traceback.print_exc()
        code = 1
    threading._shutdown()  # type: ignore[attr-defined]  # as the interpreter does at exit: join non-daemon threads
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    if isinstance(code, str):
        print(code, file=sys.stderr)  # as the interpreter reports `sys.exit("message")`
    os._exit(code if isinstance(code, int) else (0 if code is None else 1))


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(sys.argv[2])
    else:
        client(sys.argv[1], sys.argv[2:])
