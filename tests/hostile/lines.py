"""What the hostile stdio servers share: JSON-RPC one message a line, read from stdin and written to stdout."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from typing import Any

OUT = sys.stdout.buffer
LOCK = threading.Lock()  # a case may write from threads of its own


def messages() -> Iterator[dict]:
    """Every line of stdin that is a JSON object, until stdin closes (anything else is skipped)."""
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            yield message


def write(data: bytes) -> None:
    with LOCK:
        OUT.write(data)
        OUT.flush()


def send(message: Any) -> None:
    write(json.dumps(message).encode() + b"\n")
