"""An MCP client session that speaks both protocol eras and hides nothing.

Why not the SDK's `Client`: it validates and normalises every result (a malformed tool list raises
before a reviewer can see it), caches responses, hides HTTP statuses, and `import mcp` alone costs about
a second. This session is a thin layer over `RpcChannel`: it negotiates the era, stamps the 2026-07-28
`_meta` and headers, answers the server's requests (sampling, elicitation, roots) through handlers,
drives multi-round-trip (`input_required`) requests, and returns results exactly as the server sent them.

Eras:
- legacy (2024-11-05 .. 2025-11-25): `initialize` + `notifications/initialized`, a stateful connection.
- modern (2026-07-28): no handshake; `server/discover`, and every request carries its own `_meta`.
`auto` asks `server/discover` first and falls back to `initialize` on anything that is not a modern
answer (on stdio a fresh process is used when the first one may be stuck in the wrong era).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp_review import redact
from mcp_review.connection.asked import Asked, ClientFlood, ClientRequestsExceeded
from mcp_review.connection.channel import Budget, HandlerError, Reply, RpcChannel, make_transport
from mcp_review.connection.errors import (
    AuthRequired,
    ConnectionFailed,
    HttpError,
    ProtocolError,
    RequestTimeout,
    RpcError,
)
from mcp_review.connection.protocol import (
    CLIENT_INFO,
    LATEST_LEGACY,
    LEGACY_VERSIONS,
    META,
    MODERN,
    ClientHandlers,
    Era,
    EraChoice,
    Json,
    ServerHello,
    modern_headers,
    modern_meta,
)
from mcp_review.connection.protocol import KNOWN_VERSIONS as KNOWN_VERSIONS  # re-exported for the rules
from mcp_review.connection.protocol import headless_handlers as headless_handlers  # and for the CLI
from mcp_review.connection.transport import PLAIN, Delivery, Outgoing
from mcp_review.connection.wire import WireEntry, WireLog
from mcp_review.connection.within import WITHIN, Within, ours_answered_by, ours_in, within
from mcp_review.limits import LIMITS
from mcp_review.redact import Redactor
from mcp_review.targets import Target

if TYPE_CHECKING:
    from mcp_review.connection.procs import Launched


class InputRoundsExceeded(ProtocolError):
    """A request the server kept answering with `input_required` past the caps: no result came, nothing is proven."""


class Session:
    """One live connection. Use as `async with Session(target) as s:` from a single task."""

    def __init__(
        self,
        target: Target,
        *,
        era: EraChoice = "auto",
        handlers: ClientHandlers | None = None,
        wire: WireLog | None = None,
        timeout: float | None = None,
        log_level: str | None = None,
        launched: Launched | None = None,
    ) -> None:
        self.target = target
        self._launched = launched  # a stdio server started ahead (`procs.launch`): the first connection adopts it
        self.era_choice = era
        self.handlers = handlers or ClientHandlers()
        secrets = target.secret_values()
        redact.remember(secrets)  # every sink masks them from now on
        self.wire = wire or WireLog(Redactor())  # a log shared by reconnects masks every session's secrets
        self.wire.redactor.add(secrets)
        self.timeout = timeout or target.timeout
        self._budget: Budget | None = None
        self.log_level = log_level
        self.hello: ServerHello | None = None
        self.channel: RpcChannel | None = None
        self.notes: list[str] = []  # how negotiation went, in words
        self.tool_schemas: dict[str, Json] = {}  # for Mcp-Param-* headers
        self._progress: dict[str, Callable[[Json], None]] = {}
        self._tokens = itertools.count(1)
        self._echoed = 0  # characters of requestState sent back on this session (LIMITS.session_state)
        self.asked = Asked(self.wire)  # what the server asked of the client, within LIMITS.client_requests

    # -------------------------------------------------------------------------------- lifecycle
    async def __aenter__(self) -> Session:
        await self.open()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    @property
    def era(self) -> Era:
        return self.hello.era if self.hello else "legacy"

    @property
    def revision(self) -> str | None:
        return self.hello.revision if self.hello else None

    @property
    def budget(self) -> Budget | None:
        """An overall deadline over this session's requests (a command, a listing, a check run), if any."""
        return self._budget

    @budget.setter
    def budget(self, budget: Budget | None) -> None:
        self._budget = budget
        if self.channel is not None:
            self.channel.budget = budget

    @property
    def failure(self) -> ConnectionFailed | None:
        return self.channel.failure if self.channel else None

    async def _connect(self) -> RpcChannel:
        if self.channel is not None:
            await self.channel.close()
        channel = RpcChannel(make_transport(self.target, self.wire, self._launched))
        self._launched = None  # a reconnection starts a fresh process
        channel.on_request = self._on_request
        channel.on_notification = self._on_notification
        channel.on_abandon = self._on_abandon
        channel.admit = self._admit
        channel.budget = self._budget
        self.channel = channel
        await channel.start()
        return channel

    async def open(self) -> ServerHello:
        try:
            await self._connect()
            if self.era_choice != "legacy" and await self._discover():
                assert self.hello
                return self.hello
            if self.era_choice == "modern":
                raise ProtocolError(f"the server does not speak {MODERN}: {'; '.join(self.notes)}")
            return await self._initialize_with_retry()
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        if self.channel is not None:
            with contextlib.suppress(Exception):
                await self.channel.close()

    # ------------------------------------------------------------------------------ negotiation
    def _meta(self) -> Json:
        return modern_meta(capabilities=self.handlers.capabilities(), log_level=self.log_level)

    async def _discover(self) -> bool:
        """Ask `server/discover`; True (and `hello` set) when the server speaks 2026-07-28."""
        assert self.channel
        wait = self.timeout  # like every request: a legacy server answers it at once (an error means legacy)
        try:
            reply = await self._send("server/discover", {"_meta": self._meta()}, modern=True, timeout=wait)
        except AuthRequired:
            raise
        except RequestTimeout:
            self.notes.append(f"server/discover: no answer within {wait:g}s")
            if self.target.kind == "stdio":
                await self._connect()  # the old process may still be chewing on it: start clean
            return False
        except HttpError as e:
            self.notes.append(f"server/discover: HTTP {e.status}")
            return False
        result = reply.result
        if reply.error is not None or not isinstance(result, dict):
            err = reply.error or {}
            self.notes.append(f"server/discover: JSON-RPC error {err.get('code')} ({str(err.get('message'))[:80]})")
            return False
        versions = result.get("supportedVersions")
        if not isinstance(versions, list) or MODERN not in versions:
            self.notes.append(f"server/discover answered without {MODERN} in supportedVersions: {versions!r}")
            return False
        meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
        info = meta.get(META + "serverInfo") if meta else None
        supported = [v for v in versions if isinstance(v, str)]
        self.hello = ServerHello.of("modern", MODERN, result, reply.seq, info, supported)
        if hasattr(self.channel.transport, "protocol_version"):
            self.channel.transport.protocol_version = MODERN
        self.notes.append(f"server/discover: {MODERN} (supported {versions})")
        return True

    async def _initialize_with_retry(self) -> ServerHello:
        try:
            return await self._initialize()
        except RpcError as e:
            if self.target.kind != "stdio" or self.era_choice == "legacy":
                raise ProtocolError(f"initialize failed: JSON-RPC error {e.code}: {e.message[:200]}") from e
            # Some dual-era servers lock a stdio connection into the modern era after any server/discover.
            self.notes.append(f"initialize after server/discover failed ({e.code}): retrying on a fresh process")
            await self._connect()
            try:
                return await self._initialize()
            except RpcError as e2:
                raise ProtocolError(f"initialize failed: JSON-RPC error {e2.code}: {e2.message[:200]}") from e2

    async def _initialize(self) -> ServerHello:
        assert self.channel
        params = {
            "protocolVersion": LATEST_LEGACY,
            "capabilities": self.handlers.capabilities(),
            "clientInfo": CLIENT_INFO,
        }
        reply = await self.channel.request("initialize", params, timeout=self.timeout)
        if reply.error is not None:
            raise RpcError(reply.error, method="initialize", seq=reply.seq, status=reply.delivery.status)
        result = reply.result
        if not isinstance(result, dict) or not isinstance(result.get("protocolVersion"), str):
            raise ProtocolError(f"initialize answered without a protocolVersion (wire #{reply.seq})")
        version = result["protocolVersion"]
        if version not in LEGACY_VERSIONS:
            self.notes.append(f"initialize: the server answered unknown protocolVersion {version!r}")
        else:
            self.notes.append(f"initialize: {version}")
        self.hello = ServerHello.of("legacy", version, result, reply.seq, result.get("serverInfo"), [version])
        transport = self.channel.transport
        if hasattr(transport, "protocol_version"):  # Streamable HTTP
            transport.protocol_version = version
        await self.channel.notify("notifications/initialized")
        if hasattr(transport, "listen"):
            transport.listen()
        return self.hello

    # --------------------------------------------------------------------------------- requests
    async def _send(self, method: str, params: Any, *, modern: bool, timeout: float) -> Reply:
        assert self.channel
        how = PLAIN
        if modern:
            params = dict(params) if isinstance(params, dict) else {}
            params["_meta"] = {**self._meta(), **(params.get("_meta") or {})}
            if self.channel.transport.kind == "http":
                how = Outgoing(headers=modern_headers(method, params, self.tool_schemas))
        return await self.channel.request(method, params, timeout=timeout, how=how)

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None) -> Reply:
        """One request as this session's era wants it; the reply is returned even when it is an error."""
        if self.channel is None:
            raise ConnectionFailed("not connected")
        return await self._send(method, params, modern=self.era == "modern", timeout=timeout or self.timeout)

    async def result(self, method: str, params: Any = None, *, timeout: float | None = None) -> tuple[Any, Reply]:
        """Like `request`, but a JSON-RPC error raises `RpcError`. Drives `input_required` rounds."""
        reply = await self.complete(method, params, timeout=timeout)
        if reply.error is not None:
            raise RpcError(reply.error, method=method, seq=reply.seq, status=reply.delivery.status)
        return reply.result, reply

    async def complete(
        self,
        method: str,
        params: Json | None = None,
        *,
        timeout: float | None = None,
        on_progress: Callable[[Json], None] | None = None,
    ) -> Reply:
        """Send a request and, on 2026-07-28, answer `input_required` rounds until a final reply."""
        params = dict(params or {})
        token: str | None = None
        if on_progress is not None:
            token = f"mcp-review-{next(self._tokens)}"
            params["_meta"] = {**(params.get("_meta") or {}), "progressToken": token}
            self._progress[token] = on_progress
            self.wire.awaited.add(json.dumps(token))
        try:
            reply = await self.request(method, params, timeout=timeout)
            rounds, echoed = 0, 0  # rounds answered, characters of requestState sent back so far
            while True:
                result = reply.result
                if not (isinstance(result, dict) and result.get("resultType") == "input_required"):
                    return reply
                state = reply.echo("requestState")  # as sent, not as the review shows it (cut, masked)
                size = len(state) if isinstance(state, str) else 0
                echoed += size
                self._echoed += size
                cap = LIMITS
                if rounds == cap.input_rounds or echoed > cap.request_state or self._echoed > cap.session_state:
                    raise InputRoundsExceeded(
                        f"{method}: the server still asked for input (input_required, wire #{reply.seq}) after "
                        f"{rounds} rounds and {echoed:,} characters of requestState ({self._echoed:,} on this "
                        f"connection); mcp-review stops at {cap.input_rounds} rounds, {cap.request_state:,} "
                        f"characters, or {cap.session_state:,} on a connection (MCP_REVIEW_LIMITS): no result came"
                    )
                retry = {k: v for k, v in params.items() if k not in ("inputResponses", "requestState")}
                requests = result.get("inputRequests")
                if isinstance(requests, dict):
                    retry["inputResponses"] = await self.fulfil_all(requests, reply.seq, method)
                if "requestState" in result:
                    retry["requestState"] = state
                reply = await self.request(method, retry, timeout=timeout)
                rounds += 1
        finally:
            if token:
                self._progress.pop(token, None)
                self.wire.awaited.discard(json.dumps(token))

    async def fulfil_all(self, requests: dict[str, Any], seq: int, method: str) -> Json:
        """Answer one round of `inputRequests` (wire #`seq`, for `method`): every entry at once, as they do not depend
        on each other (the app queues them, so one "decline all" answers the round), within the session's bound
        (`connection/asked.py`): past it, `ClientRequestsExceeded`, and nothing is answered."""
        methods = [str(r.get("method")) if isinstance(r, dict) else "?" for r in requests.values()]
        assert self.channel
        if not self.asked.admit(methods, self.channel.conn, seq, f"{len(methods):,} inputRequests of {method}"):
            raise ClientRequestsExceeded(self.asked.refusal(method))
        ours = ours_answered_by(self.wire, seq)  # the request whose answer asks: the handlers are told (`within`)
        answers = await asyncio.gather(*(self.fulfil(request, ours) for request in requests.values()))
        return dict(zip(map(str, requests), answers, strict=True))

    async def fulfil(self, request: Any, ours: WireEntry | None = None) -> Json:
        """Answer one `inputRequests` entry (a retried request's, or a 2026-07-28 task's: the answer to `ours`) with
        the same handlers as a legacy server request (`fulfil_all` counts them)."""
        if not isinstance(request, dict):
            return {}
        params = request.get("params") or {}
        try:
            return await self._handle(str(request.get("method")), params, within(ours, params))
        except HandlerError as e:
            return {"error": e.to_json()}

    # ------------------------------------------------------------------ what the server asks of us
    def _admit(self, msg: Json, delivery: Delivery) -> bool:
        """A JSON-RPC request of the server's, counted; past the session's bound it ends the connection."""
        method = str(msg.get("method"))
        assert self.channel
        if self.asked.admit([method], self.channel.conn, delivery.seq, f"a {method[:80]} request"):
            return True
        self.asked.ended = True
        self.channel.end(ClientFlood(self.asked.refusal(method)))
        return False

    async def _on_request(self, msg: Json, delivery: Delivery) -> Json:
        params = msg.get("params") or {}
        return await self._handle(str(msg.get("method")), params, within(ours_in(self.wire, delivery.exchange), params))

    async def _handle(self, method: str, params: Any, asked_within: Within | None) -> Json:
        if not isinstance(params, dict):  # handlers (and the app's dialogs) get an object, or nothing
            raise HandlerError(-32602, "Invalid params: params must be an object")
        h = self.handlers
        if method == "ping":
            return {}
        told = WITHIN.set(asked_within)  # what the handler reads of the request it answers
        try:
            if method == "roots/list" and h.roots:
                return {"roots": await h.roots()}
            if method == "sampling/createMessage" and h.sampling:
                return await h.sampling(params)
            if method == "elicitation/create" and h.elicitation:
                return await h.elicitation(params)
        finally:
            WITHIN.reset(told)
        raise HandlerError(-32601, f"Method not found: {method}")

    def _on_notification(self, msg: Json, delivery: Delivery) -> None:
        params = msg.get("params")
        if msg.get("method") == "notifications/progress" and isinstance(params, dict):
            callback = self._progress.get(str(params.get("progressToken")))
            if callback:
                callback(params)

    async def _on_abandon(self, rpc_id: Any, method: str, reason: str) -> None:
        assert self.channel
        if self.era == "legacy" or self.channel.transport.kind == "stdio":
            params = {"requestId": rpc_id, "reason": f"mcp-review: {reason}"}
            await self.channel.notify("notifications/cancelled", params)
