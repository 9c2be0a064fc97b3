"""Failures a reviewer sees: each one reads as a single clear line (`str(err)`)."""

from __future__ import annotations

from typing import Any


class ConnectionFailed(Exception):
    """The server could not be reached or stopped answering. `str()` is one readable line."""

    detail: list[str]

    def __init__(self, message: str, detail: list[str] | None = None) -> None:
        super().__init__(message)
        self.detail = detail or []  # extra lines (e.g. the server's last stderr lines)


class CommandNotFound(ConnectionFailed):
    pass


class ServerExited(ConnectionFailed):
    def __init__(self, code: int | None, stderr_tail: list[str], when: str = "") -> None:
        where = f" {when}" if when else ""
        last = f": {stderr_tail[-1]}" if stderr_tail else " (no stderr output)"
        super().__init__(f"server exited with code {code}{where}{last}", stderr_tail)
        self.code = code


class HttpError(ConnectionFailed):
    def __init__(self, status: int, url: str, body: str = "", exchange: int | None = None) -> None:
        snippet = " ".join(body.split())[:200]
        super().__init__(f"HTTP {status} from {url}" + (f": {snippet}" if snippet else ""))
        self.status = status
        self.url = url
        self.body = body
        self.exchange = exchange


class AuthRequired(HttpError):
    def __init__(self, status: int, url: str, www_authenticate: str | None, exchange: int | None = None) -> None:
        super().__init__(status, url, exchange=exchange)
        self.www_authenticate = www_authenticate
        hint = " (pass --bearer TOKEN or --header 'Authorization: ...')"
        challenge = f"; WWW-Authenticate: {www_authenticate[:160]}" if www_authenticate else ""
        self.args = (f"HTTP {status} from {url}: the server needs authorization{hint}{challenge}",)


class RequestTimeout(ConnectionFailed):
    def __init__(self, method: str, seconds: float) -> None:
        super().__init__(f"no answer to {method} within {seconds:g}s")
        self.method = method
        self.seconds = seconds


class Unresponsive(RequestTimeout):
    """Requests in a row went unanswered on a connection and nothing has answered since: this one is not sent
    (a timeout, not waited for: whatever treats a timeout treats this the same way)."""

    def __init__(self, method: str, seconds: float, unanswered: int) -> None:
        super().__init__(method, seconds)
        self.args = (
            f"no answer to {method}: not sent, as the last {unanswered} requests on this connection went unanswered "
            f"for {seconds:g}s each and nothing has answered since (a longer --timeout waits longer)",
        )


class ProtocolError(ConnectionFailed):
    """The server answered, but not with something an MCP client can work with."""


class RpcError(Exception):
    """A JSON-RPC error response. Not a connection failure: the session stays usable."""

    def __init__(self, error: Any, *, method: str = "", seq: int | None = None, status: int | None = None) -> None:
        err = error if isinstance(error, dict) else {"message": repr(error)}
        self.code = err.get("code")
        self.message = str(err.get("message", ""))
        self.data = err.get("data")
        self.method = method
        self.seq = seq  # wire entry of the error response
        self.status = status  # HTTP status it came with, if any
        super().__init__(f"{method or 'request'} failed: JSON-RPC error {self.code}: {self.message[:300]}")
