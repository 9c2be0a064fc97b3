"""Canaries for active probes: harmless markers that prove a vulnerability by its effect, never by a guess.

A probe plants something only mcp-review knows (a random token; an area in a fresh temporary directory with a
file to read, a directory to list and a path to write; an HTTP listener on 127.0.0.1 at a random port and path)
and sends a tool a value that would reveal it only if the tool did the unsafe thing: read, listed or wrote
outside its base directory, ran a shell, ran code, fetched a URL it was handed, evaluated a template. No canary
seen, no failure. Every path a probe sends leads into the area, so the worst a vulnerable tool can do with it
lands there, and the area is removed after.

Everything here is headless and bounded: the area is removed when the block ends, the
listener serves at most `MAX_REQUESTS` requests, reads at most `MAX_REQUEST_BYTES` of each within
`READ_SECONDS`, and closes when the block ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAX_REQUESTS = 32
MAX_REQUEST_BYTES = 8192
READ_SECONDS = 2.0
KINDS = ("read", "list", "write", "scratch")
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


class CanaryArea:
    """A fresh temporary directory that is the only place a probe may aim a path at, and proof of what reached it.

    Each probe payload gets its own canary here: a file to read (`plant_file`: random content), a directory to
    list (`plant_dir`: one entry with a random name), a path to write (`write_target`: absent until a tool
    writes it), and `scratch()` a fresh path for any other path argument of a tool that may write. A probe
    sends these as traversals (`traversal`), so a tool that follows `..` out of its own root lands here, and
    nowhere else: no system path, real file or real host is ever a payload. `area()` removes it all.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._planted: dict[Path, str] = {}  # every canary file or directory, and what it held when planted
        for kind in KINDS:
            (root / kind).mkdir()

    def plant_file(self) -> tuple[Path, str]:
        """A new file and the random token it holds: whoever returns the token read the file."""
        path, content = self.root / "read" / f"{token(4)}.txt", token()
        path.write_text(f"mcp-review canary {content}\n", encoding="utf-8")
        self._planted[path] = path.read_text(encoding="utf-8")
        return path, content

    def plant_dir(self) -> tuple[Path, str]:
        """A new directory and the random name of the one file in it: whoever returns the name listed it."""
        path, entry = self.root / "list" / token(4), f"{token(4)}.txt"
        path.mkdir()
        (path / entry).write_text("mcp-review canary\n", encoding="utf-8")
        self._planted[path] = entry
        return path, entry

    def write_target(self) -> Path:
        """A path nothing exists at: whatever appears there was written by the tool that was handed it."""
        return self.root / "write" / f"{token(4)}.txt"

    def scratch(self) -> Path:
        """A fresh file in the area (so a tool that moves or copies from it has something to act on): where any
        other path argument of a tool that may write points."""
        path = self.root / "scratch" / token(4)
        path.write_text("mcp-review scratch\n", encoding="utf-8")
        return path

    def disturbed(self, path: Path) -> str | None:
        """What happened to a canary at `path` since it was planted (a write target: whether it appeared), as a
        finding says it; None when it is as it was."""
        if path not in self._planted:
            return "wrote the canary path" if path.exists() else None
        if not path.exists():
            return "removed or moved the canary"
        try:
            now = ",".join(p.name for p in path.iterdir()) if path.is_dir() else path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return "changed the canary"
        return None if now == self._planted[path] else "changed the canary"

    def traversal(self, path: Path, depth: int = PATH_DEPTH) -> str:
        """A relative path that climbs to / from any base directory, then down to `path` (inside this area)."""
        return "../" * depth + str(path).lstrip("/")

    def holds(self, path: str) -> bool:
        """Is the absolute `path` this area or inside it (once `..` is resolved as text)?"""
        resolved = os.path.normpath(path)
        return os.path.isabs(path) and (resolved == str(self.root) or resolved.startswith(f"{self.root}{os.sep}"))


@contextlib.contextmanager
def area(under: Path | None = None) -> Iterator[CanaryArea]:
    """A `CanaryArea` in a fresh temporary directory (under `under`, else $TMPDIR), removed with all it holds when the
    block ends, whatever a tool wrote into it. A confined server sees only its review's scratch of the machine's
    temporary directories (`mcp_review.sandbox`): its areas are made there."""
    root = Path(tempfile.mkdtemp(prefix="mcp-review-canary-", dir=under)).resolve()
    try:
        yield CanaryArea(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Listener:
    """An HTTP listener on 127.0.0.1 that records the path of every request it gets (a bounded number)."""

    port: int = 0
    paths: list[str] = field(default_factory=list)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def received(self, path: str) -> bool:
        return f"/{path.lstrip('/')}" in self.paths

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            if len(self.paths) >= MAX_REQUESTS:
                return
            line = await asyncio.wait_for(reader.readline(), READ_SECONDS)
            parts = line[:MAX_REQUEST_BYTES].decode("latin-1").split()
            if len(parts) >= 2:
                self.paths.append(parts[1])
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
