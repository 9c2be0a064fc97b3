"""Canaries for active probes: harmless markers that prove a vulnerability by its effect, never by a guess.

A probe plants something only mcp-review knows (a random token, a file with random content in a fresh
temporary directory, an HTTP listener on 127.0.0.1 at a random port and path) and sends a tool a value
that would reveal it only if the tool did the unsafe thing: read outside its base directory, ran a shell,
fetched a URL it was handed, evaluated a template. No canary seen, no failure.

Everything here is headless and bounded: the file and its directory are removed when the block ends, the
listener serves at most `MAX_REQUESTS` requests, reads at most `MAX_REQUEST_BYTES` of each within
`READ_SECONDS`, and closes when the block ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAX_REQUESTS = 32
MAX_REQUEST_BYTES = 8192
READ_SECONDS = 2.0
PATH_DEPTH = 24  # `../` segments: enough to reach / from any base directory a server is likely to join with


def token(nbytes: int = 8) -> str:
    """A random marker (hex) that no server can produce by chance."""
    return "mcpr" + secrets.token_hex(nbytes)


def halves() -> tuple[str, str]:
    """Two random halves; only a program that joins them (a shell running printf) produces the whole."""
    return token(4), secrets.token_hex(4)


def multiplicand() -> int:
    """A random N >= 100000 whose product 7*N cannot be guessed from the text that asks for it."""
    return 100_000 + secrets.randbelow(900_000)


@dataclass(frozen=True)
class CanaryFile:
    """A file whose random `content` proves a read: whoever returns it read this file."""

    path: Path
    content: str

    def traversal(self, depth: int = PATH_DEPTH) -> str:
        """A relative path that climbs to / from any base directory, then down to this file."""
        return "../" * depth + str(self.path).lstrip("/")


@contextlib.contextmanager
def canary_file() -> Iterator[CanaryFile]:
    """A canary file in a fresh temporary directory, removed (with the directory) when the block ends."""
    directory = Path(tempfile.mkdtemp(prefix="mcp-review-canary-"))
    try:
        path = directory / f"{token(4)}.txt"
        content = token()
        path.write_text(f"mcp-review canary {content}\n", encoding="utf-8")
        yield CanaryFile(path.resolve(), content)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@dataclass
class Listener:
    """An HTTP listener on 127.0.0.1 that records the path of every request it gets (a bounded number)."""

    port: int = 0
    paths: list[str] = field(default_factory=list)
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def received(self, path: str) -> bool:
        return f"/{path.lstrip('/')}" in self.paths

    async def wait_for(self, path: str, timeout: float) -> bool:
        """True once a request for `path` arrived; False after `timeout` seconds without one."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.received(path):
            left = deadline - loop.time()
            if left <= 0:
                return False
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)
        return True

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            if len(self.paths) >= MAX_REQUESTS:
                return
            line = await asyncio.wait_for(reader.readline(), READ_SECONDS)
            parts = line[:MAX_REQUEST_BYTES].decode("latin-1").split()
            if len(parts) >= 2:
                self.paths.append(parts[1])
                self._arrived.set()
            with contextlib.suppress(TimeoutError, ValueError, asyncio.LimitOverrunError):
                await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_SECONDS)
            writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()
        except (OSError, TimeoutError, ValueError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


@contextlib.asynccontextmanager
async def listener() -> AsyncIterator[Listener]:
    """A `Listener` on 127.0.0.1 at a random free port, closed when the block ends."""
    canary = Listener()
    server = await asyncio.start_server(canary._serve, "127.0.0.1", 0, limit=MAX_REQUEST_BYTES)
    canary.port = int(server.sockets[0].getsockname()[1])
    try:
        yield canary
    finally:
        server.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), READ_SECONDS)
