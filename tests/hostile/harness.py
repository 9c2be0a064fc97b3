"""Run mcp-review against one hostile server, one way (list, call, check or the app), and judge what happened.

    python -m tests.hostile.harness CASE MODE [--timeout S]    # one run; prints its outcome as JSON

`run(case, mode)` does it in a fresh network namespace when `unshare -n` works here (only loopback
exists there, so nothing can reach a real host), with secrets planted in mcp-review's own environment,
in `--env`, in `--bearer`, in a credential header and in a file a project's envFile names. Modes: list,
call, check, the app, `pin` (the lock file) for the cases that ask for it, and `login` (`auth login --no-browser`,
stdin closed) for the OAuth cases. An outcome is:

- crash: an exit code other than 0-3, a traceback, or an exception in the app;
- hang: still running past the bound for its mode (--timeout x a small factor, counted at the machine's pace);
- secret: a planted secret in any artifact (stdout, stderr, every file written, the app's screens and
  clipboard), in any encoding or form a server can compute, whole or in pieces (`leakcheck.exposures`), or in
  the environment a project's `.mcp.json` made mcp-review give its server (case project-env);
- egress: a request that reached another host (two canary listeners: another port, another address); a
  connection or name lookup by mcp-review to anything but the target (recorded before it happens, so an
  attempt at 169.254.169.254 counts though nothing listens there);
- orphan: a process of the server still alive after mcp-review exited;
- terminal: an escape or control character from the server on stdout or stderr;
- memory: a peak RSS of mcp-review over 500 MB;
- trust, json, injection: see `judges` (a call without the consent its most dangerous definition needs, an
  export that is not strict JSON, server text live as structure in an export). An injection case's check also
  has its review.json rendered in every other format, as `check --format` would write it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets as random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.hostile import judges
from tests.hostile.cases import BY_NAME, Case
from tests.hostile.leakcheck import exposures, plant
from tests.pace import Patience, slowness
from tests.support import finish

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PYTHON = sys.executable
RSS_LIMIT_MB = 500
TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # on a pipe mcp-review writes no escape of its own
# a request mcp-review stopped waiting for at its timeout: it tells the server so (notifications/cancelled, where
# the protocol lets it), and the wire log records it
WAITED = re.compile(r'"reason": "mcp-review: no answer to [^"]+ in time"')


def bound(mode: str, timeout: float) -> float:
    """How long a run may take before it counts as a hang, in seconds at the machine's pace (tests/pace.py): a few
    of the --timeout mcp-review was given, plus the start-up of Python. The app runs the checklist with every tool
    callable, a call, six tabs and five exports, each screen captured: ~36 s at --timeout 1 on a quiet 2-core
    machine for the slowest cases (progress-flood, many-strings' 11 MB listing), up to ~1.7x that while the suite's
    workers share two cores. A hang never ends; this bound is ~2x that. The timeouts count whole (mcp-review waits
    them in wall time, whatever the pace), so a run whose machine got quieter since it began is no hang either."""
    return {"check": 30, "app": 60}.get(mode, 8) * timeout + 20


# ----------------------------------------------------------------------------------------- canaries
class Canary:
    """A listener on another origin: any request that reaches it is a leak (its headers are kept)."""

    def __init__(self, host: str) -> None:
        self.hits: list[dict[str, Any]] = []
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                hits.append({"path": self.path, "method": self.command, "headers": dict(self.headers)})
                self.send_response(404)
                self.end_headers()

            do_GET = do_POST = do_DELETE = do_PUT = _any

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.url = f"http://{host}:{self.server.server_address[1]}/"
        # polled every 50 ms, not the default 500: `shutdown` waits for the next poll, and every run closes two
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# ----------------------------------------------------------------------------------------- processes
def _wait_port(port: int, proc: subprocess.Popen[bytes], seconds: float = 20) -> None:
    patience = Patience(seconds)
    while not patience.spent() and proc.poll() is None:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"the hostile server did not listen on {port}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def marked(token: str) -> list[int]:
    """Live processes (not zombies) whose command line or environment carries `token`."""
    found = []
    needle = token.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_bytes()
            if stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3] == b"Z":
                continue
            if needle in (entry / "cmdline").read_bytes() or needle in (entry / "environ").read_bytes():
                found.append(int(entry.name))
    return found


def _peak_rss_kb(pid: int) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


# --------------------------------------------------------------------------------------------- a run
def project(work: Path, token: str, far: str, keys: dict[str, str]) -> None:
    """The checkout of case project-env: a .mcp.json asking for the reviewer's tokens and an env file."""
    creds = Path(tempfile.mkdtemp(prefix="hostile-home-")) / "credentials"
    creds.write_text(f"[default]\naws_secret_access_key={keys['AWS_SECRET']}\n", encoding="utf-8")
    # the server's code in the checkout: a repository entry's path outside it is not shown to the confined server,
    # and this repository's own clone may sit under a hidden root (/tmp, /home)
    code = work / "server"
    code.mkdir(exist_ok=True)
    for script in HERE.glob("*.py"):
        shutil.copy(script, code / script.name)
    args = [str(code / "stdio_server.py"), "project-env", "--canary", far, "--envlog", str(work / ".server-env")]
    env = {"GH": "${GITHUB_TOKEN}", "OPENAI": "${env:OPENAI_API_KEY}", "HOSTILE_TOKEN": token}
    entry = {"command": PYTHON, "args": args, "env": env, "envFile": str(creds)}
    (work / ".mcp.json").write_text(json.dumps({"mcpServers": {"notes-dev": entry}}), encoding="utf-8")


def command(
    case: Case, mode: str, timeout: float, port: int, token: str, keys: dict[str, str], far: str, log: str = os.devnull
) -> list[str]:
    """`log`: where an integrity case's server writes the calls it judges (see `judges.trust`)."""
    if mode == "login":
        return [PYTHON, "-m", "mcp_review", "auth", "login", f"http://127.0.0.1:{port}/mcp", "--no-browser"]
    if case.transport == "project":
        target = ["--server", "notes-dev"]
    elif case.transport == "stdio":
        target = ["--env", f"API_KEY={keys['API_KEY']}", "--env", f"HOSTILE_TOKEN={token}"]
        target += ["--env", f"MCP_SERVICE_PASSWORD={keys['MCP_SERVICE_PASSWORD']}", "--"]
        target += [PYTHON, str(HERE / case.server), case.name, "--canary", far, "--log", log]
    else:
        path = "/sse" if case.transport == "sse" else "/mcp"
        target = ["--url", f"http://127.0.0.1:{port}{path}", "--bearer", keys["bearer"]]
        target += ["--header", f"X-Api-Key: {keys['header']}"]
        if case.transport == "sse":
            target += ["--transport", "sse"]
    opts = ["--timeout", str(timeout), "--wire-log", "wire.jsonl"]
    if mode == "app":
        keys = ["--keys"] if case.attacks == "keys" else []
        driver = [PYTHON, "-m", "tests.hostile.app_driver", ".", *keys, "--timeout", str(timeout)]
        return [*driver, "--calls", case.calls, *target]
    printed = ["--format", "json"] if case.attacks == "json" else []  # what list and call print: strict JSON too
    own = {
        "list": ["list", *printed, *opts],
        "call": ["call", "probe", *(["--yes"] if case.calls == "all" else []), *printed, *opts],
        "check": ["check", "--pack", "all", "--calls", case.calls, "--format", "json", "--out", "review.json", *opts],
        "pin": ["pin", *opts],  # writes mcp-review.lock, judged with every other file
    }[mode]
    split = target.index("--") if "--" in target else len(target)
    return [PYTHON, "-m", "mcp_review", *own, *target[:split], *target[split:]]


def run_here(name: str, mode: str, timeout: float) -> dict[str, Any]:
    """One run in this process's network namespace (see `run` for the isolated one)."""
    case = BY_NAME[name]
    work = Path(tempfile.mkdtemp(prefix=f"hostile-{name}-{mode}-"))
    token, keys = random.token_hex(12), plant()
    near, far = Canary("127.0.0.1"), Canary("127.0.0.2")
    server, port = None, 0
    try:
        if case.transport == "project":
            project(work, token, far.url, keys)
        elif case.transport != "stdio":
            port = _free_port()
            server = subprocess.Popen(
                [
                    PYTHON,
                    str(HERE / "http_server.py"),
                    name,
                    "--port",
                    str(port),
                    "--canary",
                    near.url,
                    "--far",
                    far.url,
                    "--bearer",
                    keys["bearer"],
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            _wait_port(port, server)
        env = {
            **os.environ,
            "GITHUB_TOKEN": keys["GITHUB_TOKEN"],
            "OPENAI_API_KEY": keys["OPENAI_API_KEY"],
            "PYTHONPATH": os.pathsep.join([str(HERE / "probe"), str(ROOT)]),
            "HOSTILE_NETLOG": str(work / ".netlog"),
            "HOSTILE_RSSLOG": str(work / ".rss"),
            "MCP_REVIEW_CONFIG_DIR": str(work / ".config"),
            "MCP_REVIEW_TOKENS": str(work / ".config" / "tokens.json"),
            "MCP_REVIEW_LIMITS": case.limits,
            "COLUMNS": "100",
        }
        argv = command(case, mode, timeout, port, token, keys, far.url, str(work / ".calls"))
        outcome = _execute(argv, work, env, bound(mode, timeout))
        time.sleep(0.3)
        left = marked(token)
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        outcome.update(case=name, mode=mode, timeout=timeout, orphans=left)
        outcome.update(_judge(work, outcome, keys, port, near.hits + far.hits))
        found = judges.integrity(case, work)
        outcome.update(found, ok=outcome["ok"] and not any(found.values()))
        return outcome
    finally:
        near.close()
        far.close()
        if server is not None:
            with contextlib.suppress(OSError):
                os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


def _execute(argv: list[str], work: Path, env: dict[str, str], limit: float) -> dict[str, Any]:
    started, patience = time.monotonic(), Patience(limit)
    with (work / ".stdout").open("wb") as out, (work / ".stderr").open("wb") as err:
        proc = subprocess.Popen(argv, cwd=work, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        peak, hang = 0, False
        while proc.poll() is None:
            peak = max(peak, _peak_rss_kb(proc.pid))
            if patience.spent():
                hang = True
                proc.kill()
                proc.wait()
                break
            time.sleep(0.05)
    seconds = time.monotonic() - started
    with contextlib.suppress(OSError, ValueError):
        peak = max(peak, int((work / ".rss").read_text()))
    return {"exit": proc.returncode, "seconds": round(seconds, 2), "rss_mb": round(peak / 1024, 1), "hang": hang}


def _judge(work: Path, outcome: dict[str, Any], keys: dict[str, str], port: int, hits: list[Any]) -> dict[str, Any]:
    stdout = (work / ".stdout").read_bytes().decode("utf-8", "replace")
    stderr = (work / ".stderr").read_bytes().decode("utf-8", "replace")
    artifacts = {".stdout": stdout, ".stderr": stderr}
    for path in work.rglob("*"):
        if path.is_file() and not path.name.startswith(
            (".stdout", ".stderr", ".netlog", ".rss", ".calls", ".server-env")
        ):
            artifacts[str(path.relative_to(work))] = path.read_bytes().decode("utf-8", "replace")
    app = json.loads(artifacts.get("app.json") or "{}")
    with contextlib.suppress(OSError):  # what a project's config made mcp-review give the server
        artifacts["the server's environment"] = (work / ".server-env").read_text(encoding="utf-8")
    planted = tuple(keys.values())
    secret = [
        f"{key} in {where} ({', '.join(forms)})"
        for where, text in artifacts.items()  # text by text: its views are made once for every key
        for key, value in keys.items()
        if (forms := exposures(text, value, planted))
    ]
    egress = [f"request to another origin: {h['method']} {h['path']}" for h in hits]
    allowed = {"'127.0.0.1'", f"('127.0.0.1', {port})", "'localhost'"} if port else set()
    net = []
    with contextlib.suppress(OSError):
        net = [line for line in (work / ".netlog").read_text().splitlines() if json.loads(line)[1] not in allowed]
    egress += [f"network: {line}" for line in net]
    leaks = secret + egress
    summary = None
    with contextlib.suppress(ValueError, KeyError, TypeError):  # check's review, or the one the app exported
        review = json.loads(artifacts.get("review.json") or artifacts.get("export.json") or "null")
        if review:
            rules: dict[str, list[str]] = {}
            for f in review["findings"]:
                rules.setdefault(f["rule"], []).append(f"{f['status']}: {f['message'][:300]}")
            summary = {"verdict": review["verdict"], "rules": rules, "notes": review.get("notes", [])}
    traceback_seen = "Traceback (most recent call last)" in stderr
    crash = None
    if app.get("error"):
        crash = app["error"].strip().splitlines()[-1]
    elif traceback_seen:  # its last line, then the traceback (its last frames): a rare crash is told by its frames
        last = stderr.rsplit("Traceback (most recent call last)", 1)[1]
        crash = stderr.strip().splitlines()[-1] + " | " + last.strip()[-1500:]
    elif outcome["exit"] not in (0, 1, 2, 3) and not outcome["hang"]:
        crash = f"exit code {outcome['exit']}"
    terminal = outcome["mode"] != "app" and bool(TERMINAL.search(stdout + stderr))
    return {
        "crash": crash,
        "leaks": leaks,
        "secret": secret,
        "egress": egress,
        "terminal": terminal,
        "memory": outcome["rss_mb"] > RSS_LIMIT_MB,
        "error_line": stderr.strip().splitlines()[-1][:300] if stderr.strip() else "",
        "app": {k: app.get(k) for k in ("first_paint", "connected", "exported", "keys", "connecting")} if app else None,
        "review": summary,
        "waited": len(WAITED.findall(artifacts.get("wire.jsonl", ""))),
        "ok": not (crash or leaks or terminal or outcome["hang"] or outcome["orphans"])
        and outcome["rss_mb"] <= RSS_LIMIT_MB,
    }


# ------------------------------------------------------------------------------------ isolated runs
def isolation() -> list[str]:
    """The prefix that runs a command in a new network namespace with loopback up, if this machine allows it."""
    if not shutil.which("unshare") or not shutil.which("ip"):
        return []
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False)
    return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"] if probe.returncode == 0 else []


# The cases' timeouts were set on the reference machine running the suite, its own load included: the app cases of
# issue 36 passed at --timeout 1 with ~3.5 tasks ready per core and failed from 5 (their server and app had not
# started within 4 timeouts). So mcp-review gets a case's timeout as it is up to a slowness of TUNED and scaled
# beyond: the suite alone waits out no longer timeouts than before, and a loaded machine's start-up still fits.
TUNED = 2.0


def run(name: str, mode: str, timeout: float = 2.0) -> dict[str, Any]:
    """One run, isolated from every network but loopback when possible (the outcome says which). `timeout` is the
    case's --timeout as tuned (`TUNED`): mcp-review gets it times how much slower this machine is now
    (tests/pace.py), as a loaded machine's server answers later and its app starts later; what a case proves, a
    wait bounded by a few timeouts, holds for the timeout it was given (the outcome's `timeout`)."""
    prefix = isolation()
    given = round(timeout * max(1.0, slowness() / TUNED), 1)
    argv = [*prefix, PYTHON, "-m", "tests.hostile.harness", name, mode, "--timeout", f"{given:g}"]
    done = finish(argv, bound(mode, given) + 60, cwd=ROOT)
    try:
        outcome: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"case": name, "mode": mode, "ok": False, "crash": f"harness failed: {done.stderr[-500:]}"}
    outcome["isolated"] = bool(prefix)
    return outcome


if __name__ == "__main__":
    timeout = float(sys.argv[sys.argv.index("--timeout") + 1]) if "--timeout" in sys.argv else 2.0
    print(json.dumps(run_here(sys.argv[1], sys.argv[2], timeout)))
