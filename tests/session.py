"""Work done once per pytest session and shared by its xdist workers.

The rule harness's check runs (tests/rules/test_rules.py) are real runs against fixture servers, several seconds
each, and most test modules of tests/rules read the same ones: with a per-process cache, each xdist worker redid
every run it touched. `once` computes a value in the first worker that asks and pickles it into the session's
folder (tests/conftest.py makes one per session, so nothing outlives the run that computed it); the others wait
on its lock and read it. Without the folder (a process outside pytest) it just computes.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

FOLDER = "MCP_REVIEW_TEST_SESSION"  # set by tests/conftest.py in the controlling process, inherited by workers

T = TypeVar("T")


def once(key: str, compute: Callable[[], T]) -> T:
    """`compute()`, run once per session for `key` whichever worker asks first (a failure is not cached: the next
    worker to ask computes again and fails the same way)."""
    folder = os.environ.get(FOLDER)
    if not folder:
        return compute()
    path = Path(folder) / hashlib.sha256(key.encode()).hexdigest()
    with path.with_suffix(".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also when the worker dies
        if path.exists():
            value: T = pickle.loads(path.read_bytes())
            return value
        value = compute()
        partial = path.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(value))
        partial.replace(path)
        return value
