"""Review the entries of a fleet: each by its own `mcp-review check` process, `jobs` at once, into a state directory.

Why a process per server, not a task in this one: a review is CPU work in Python (the rules, the token counts),
so processes are what uses more than one core; a server that floods memory or hangs costs its own process, never
the fleet's; and a process can be stopped at its deadline whatever it is doing. It is also exactly what a job of
`fleet matrix` runs, so a fleet on one machine and one spread over CI jobs produce the same files.

Each server gets `--budget` seconds of waiting on its server (`check --budget`); a check still running at
`deadline(budget)` is stopped with everything it started and reported as errored. The state directory holds one
JSON file per finished server, `KEY.json`: the review `check --format json` wrote, with the fleet's `fleet` block
(key, name, origin) added, or for a server that could not be reviewed an error record (`fleet.error`). `resume`
skips every server whose review is there; an errored one is tried again (a crash or an outage may have passed).
A bearer of the reviewer's (`$MCP_REVIEW_BEARER`) is never handed on: it would reach every URL of the fleet.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_review.connection import procs
from mcp_review.fleet.sources import Entry
from mcp_review.output import json_text, write_text

KEPT_ERROR = 1500  # characters of a failed check's stderr kept as the reason


def deadline(budget: float) -> float:
    """When a check that was given `budget` seconds is stopped: twice that (it adds 1 s a request, and a stdio
    server's start, the rules' own work and the shutdown are not waiting on the server), and 15 s more."""
    return 2 * budget + 15


@dataclass(frozen=True)
class Settings:
    state: Path
    jobs: int = 2
    budget: float = 60.0
    check_args: tuple[str, ...] = ()  # the review options every check gets (--pack, --calls, --timeout...)
    resume: bool = False
    stop_after: float | None = None  # seconds before a check is stopped (default: `deadline(budget)`)


@dataclass
class Outcome:
    """What became of one entry."""

    entry: Entry
    file: Path
    verdict: str  # the review's, or "ERROR"
    seconds: float = 0.0
    resumed: bool = False
    detail: dict[str, Any] = field(default_factory=dict)  # the review's counts, or the error


def state_file(state: Path, entry: Entry) -> Path:
    return state / f"{entry.key}.json"


def finished(path: Path) -> dict[str, Any] | None:
    """The review in a state file, when it holds one (an error record, or a file cut off mid-write, does not)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "findings" in data else None


class Runner:
    """Runs the checks; `stop()` (from another thread, or on Ctrl-C) ends every running one."""

    def __init__(self, settings: Settings, started: Callable[[Entry], None] | None = None) -> None:
        self.settings = settings
        self.started = started
        self._live: dict[int, subprocess.Popen[bytes]] = {}
        self._lock = threading.Lock()
        self._stopping = False

    def run(self, entries: Sequence[Entry], done: Callable[[Outcome], None]) -> list[Outcome]:
        self.settings.state.mkdir(parents=True, exist_ok=True)
        out: list[Outcome] = []
        todo = []
        for entry in entries:
            path = state_file(self.settings.state, entry)
            kept = finished(path) if self.settings.resume else None
            if kept is not None:
                out.append(Outcome(entry, path, str(kept.get("verdict")), resumed=True, detail=kept.get("counts", {})))
                done(out[-1])
            else:
                todo.append(entry)
        with ThreadPoolExecutor(max_workers=max(1, self.settings.jobs)) as pool:
            futures = [pool.submit(self.one, entry) for entry in todo]
            try:
                for future in as_completed(futures):
                    out.append(future.result())
                    done(out[-1])
            except BaseException:
                self.stop()
                for future in futures:
                    future.cancel()
                raise
        return out

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            live = list(self._live.values())
        for proc in live:
            procs.kill_tree(proc.pid, None)

    def one(self, entry: Entry) -> Outcome:
        """Review one entry; whatever happens, its state file says how it ended."""
        path = state_file(self.settings.state, entry)
        began = time.monotonic()
        if entry.problem:
            return self._errored(entry, path, entry.problem, None, began)
        if self.started:
            self.started(entry)
        partial = path.with_name(f"{path.name}.partial")  # never matched by `merge reviews/*.json`
        budget = self.settings.budget
        argv = [sys.executable, "-m", "mcp_review", "check", "-q", "--no-pins", "--format", "json"]
        argv += ["--out", str(partial), "--budget", f"{budget:g}", *self.settings.check_args, *entry.args]
        env = {k: v for k, v in os.environ.items() if k != "MCP_REVIEW_BEARER"}
        with self._lock:
            if self._stopping:
                return self._errored(entry, path, "not run: the fleet was stopped", None, began)
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                start_new_session=True,
            )  # fmt: skip
            self._live[proc.pid] = proc
        limit = self.settings.stop_after or deadline(budget)
        try:
            _, err = proc.communicate(timeout=limit)
            stopped = False
        except subprocess.TimeoutExpired:
            procs.kill_tree(proc.pid, None)
            _, err = proc.communicate()
            stopped = True
        finally:
            with self._lock:
                self._live.pop(proc.pid, None)
        said = err.decode("utf-8", "replace")
        if stopped:
            return self._errored(entry, path, f"no review within {limit:g}s: stopped", None, began)
        review = finished(partial) if proc.returncode in (0, 1, 3) else None
        if review is None:
            partial.unlink(missing_ok=True)
            return self._errored(entry, path, _reason(said, proc.returncode), proc.returncode, began)
        review["fleet"] = entry.public()
        write_text(path, json_text(review) + "\n")
        partial.unlink(missing_ok=True)
        return Outcome(entry, path, str(review["verdict"]), time.monotonic() - began, detail=review.get("counts", {}))

    def _errored(self, entry: Entry, path: Path, reason: str, code: int | None, began: float) -> Outcome:
        record = {"fleet": {**entry.public(), "error": reason, "exitCode": code}}
        write_text(path, json_text(record) + "\n")
        return Outcome(entry, path, "ERROR", time.monotonic() - began, detail={"error": reason})


def _reason(stderr: str, code: int | None) -> str:
    """Why a check gave no review: its error line and the server's last words under it, else its last lines."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.startswith("mcp-review: error:")), None)
    kept = lines[start:] if start is not None else lines[-3:]
    text = " ".join(line.removeprefix("mcp-review: error: ").strip() for line in kept)
    exited = "killed by a signal" if code is not None and code < 0 else f"exit {code}"
    return (text or f"check ended with {exited} and said nothing")[:KEPT_ERROR]
