"""Serve a RawServer over Streamable HTTP at http://127.0.0.1:PORT/mcp: the deliberately broken fixtures over HTTP
too, which the SDK's transport would never let misbehave. The standard library's threading HTTP server: no SDK
import, so a fixture starts in a tenth of a second.

Every POST: a Host that is not 127.0.0.1, localhost or [::1] at this port gets 421, and a foreign Origin 403 (as
the mcp SDK answers, Host first); a notification or a response is answered 202; a request is answered with one
JSON object, or with an event stream when its handler sent messages (progress) before the answer (in the legacy
era primed: an event id with empty data first, as 2025-11-25 asks).
- Legacy era (2024-11-05 .. 2025-11-25): `initialize` opens a session (Mcp-Session-Id); every later POST needs
  it (400 without, 404 for one never issued or ended by DELETE); an MCP-Protocol-Version it does not support
  gets 400. GET is 405 (no stream of its own).
- 2026-07-28 (a dual-era RawServer, `modern`): a POST whose MCP-Protocol-Version is 2026-07-28, or one that is
  neither an `initialize` nor in a session nor of a legacy version, is stateless; its Mcp-Method (and Mcp-Name) must name the body's (400, -32020); -32601 is answered 404, and the protocol
  errors -32602, -32020, -32021 and -32022 400.

Defects of the transport (`serve(..., defects)`, names): `any-host` (no Host check), `any-origin` (no Origin
check), `serial` (a POST that comes while another is being answered gets 409; each tools/list holds its POST
0.2 s, so that three sent at once meet), `any-version-header` (a 2026-07-28 MCP-Protocol-Version unlike the body's
`_meta` is not refused), `unsupported-200` (-32022 answered with HTTP 200), `loose-headers` (Mcp-Name not
checked, Mcp-Method compared case-insensitively), `strict-headers` (the Mcp-* header names matched in their exact
case), `unprimed` (a legacy event stream without the priming event, an id and empty data, it begins with).
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rawserver import META, MODERN, SUPPORTED, RawServer

LOCAL = ("127.0.0.1", "localhost", "[::1]")
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
BAD_REQUEST = (-32602, -32020, -32021, -32022)  # 2026-07-28: protocol errors answered 400


DEFECTS = ("any-host", "any-origin", "serial", "any-version-header", "unsupported-200", "loose-headers")
DEFECTS += ("strict-headers", "unprimed")


def serve_argv(server: RawServer, argv: list[str], defects: frozenset[str] = frozenset()) -> None:
    """`--http --port P` in `argv`: serve over HTTP (with the transport's `defects`); otherwise over stdio."""
    if "--http" not in argv:
        server.run()
        return
    serve(server, int(argv[argv.index("--port") + 1]), defects)


def serve(server: RawServer, port: int, defects: frozenset[str] = frozenset()) -> None:
    assert defects <= set(DEFECTS), defects
    front = Front(server, port, defects)
    httpd = ThreadingHTTPServer(("127.0.0.1", port), front.handler())
    httpd.daemon_threads = True
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


class Front:
    """What the HTTP side keeps: the sessions issued, and one lock: a RawServer answers one message at a time."""

    def __init__(self, server: RawServer, port: int, defects: frozenset[str]) -> None:
        self.server, self.port, self.defects = server, port, defects
        self.serial = "serial" in defects
        self.sessions: set[str] = set()
        self.lock = threading.Lock()
        self.busy = 0  # POSTs being answered (serial)
        self.busy_lock = threading.Lock()

    def local(self, host: str) -> bool:
        return host in {f"{name}:{self.port}" for name in LOCAL}

    def run(self, message: dict[str, Any], modern: bool) -> list[dict[str, Any]]:
        """What the server sends while it handles `message` (its answer last, for a request)."""
        with self.lock:
            self.server.outbox = []
            try:
                self.server.handle(message, modern)
                return self.server.outbox
            finally:
                self.server.outbox = None

    def handler(self) -> type[BaseHTTPRequestHandler]:
        front = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                return

            def reply(self, status: int, body: bytes = b"", ctype: str = "application/json", **headers: str) -> None:
                self.send_response(status)
                if body:
                    self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name.replace("_", "-"), value)
                self.end_headers()
                self.wfile.write(body)

            def error(self, status: int, code: int, message: str, rid: Any = None) -> None:
                body = {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}
                self.reply(status, json.dumps(body).encode())

            def refused(self) -> bool:
                """The DNS-rebinding checks, Host first (as the mcp SDK): True when the request was refused."""
                if "any-host" not in front.defects and not front.local(self.headers.get("Host", "")):
                    self.reply(421, b"Invalid Host header", "text/plain")
                    return True
                origin = self.headers.get("Origin")
                if (
                    "any-origin" not in front.defects
                    and origin
                    and origin not in {f"http://{h}:{front.port}" for h in LOCAL}
                ):
                    self.reply(403, b"Invalid Origin header", "text/plain")
                    return True
                return False

            def do_GET(self) -> None:
                if not self.refused():
                    self.reply(405, b"", Allow="POST, DELETE")

            def do_DELETE(self) -> None:
                if self.refused():
                    return
                sid = self.headers.get("Mcp-Session-Id")
                if sid is None:
                    self.reply(405, b"", Allow="POST")
                elif sid in front.sessions:
                    front.sessions.discard(sid)
                    self.reply(200)
                else:
                    self.error(404, -32001, "Session not found")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.refused():
                    return
                with front.busy_lock:
                    front.busy += 1
                    crowded = front.serial and front.busy > 1
                try:
                    if crowded:
                        self.error(409, -32000, "another request is being answered: send one at a time")
                    else:
                        self.post(body)
                finally:
                    with front.busy_lock:
                        front.busy -= 1

            def post(self, body: bytes) -> None:
                try:
                    message = json.loads(body)
                except ValueError:
                    self.error(400, -32700, "Parse error")
                    return
                if not isinstance(message, dict):
                    self.error(400, -32600, "Invalid Request: one JSON-RPC message per POST")
                    return
                method, rid = message.get("method"), message.get("id")
                request = isinstance(method, str) and "id" in message
                version = self.headers.get("MCP-Protocol-Version")
                legacy = version in SUPPORTED or "Mcp-Session-Id" in self.headers
                modern = front.server.modern and (version == MODERN or not (legacy or method == "initialize"))
                sid = None
                if modern:
                    if request and self.mismatch(message):
                        return
                elif method == "initialize":
                    sid = secrets.token_hex(16)
                elif not self.in_session(rid, version):
                    return
                if front.serial and method == "tools/list":
                    time.sleep(0.2)
                sent = front.run(message, modern)
                if not request:
                    self.reply(202)
                    return
                answers = [m for m in sent if "method" not in m]
                answer = answers[-1] if answers else {"jsonrpc": "2.0", "id": rid, "result": {}}
                before = [m for m in sent if m is not answer]
                extra = {}
                if sid is not None and "result" in answer:
                    front.sessions.add(sid)
                    extra["Mcp_Session_Id"] = sid
                code = (answer.get("error") or {}).get("code")
                refused = [c for c in BAD_REQUEST if not (c == -32022 and "unsupported-200" in front.defects)]
                status = (404 if code == -32601 else 400 if code in refused else 200) if modern else 200
                if before:
                    events = "".join(f"event: message\ndata: {json.dumps(m)}\n\n" for m in [*before, answer])
                    if not (modern or "unprimed" in front.defects):  # 2025-11-25: an id and empty data first
                        events = f"id: {secrets.token_hex(4)}\ndata:\n\n{events}"
                    self.reply(status, events.encode(), "text/event-stream", **extra)
                else:
                    self.reply(status, json.dumps(answer).encode(), **extra)

            def mismatch(self, message: dict[str, Any]) -> bool:
                """2026-07-28: MCP-Protocol-Version, Mcp-Method and Mcp-Name must say what the body says (400,
                -32020); a header value's surrounding whitespace is not part of it (RFC 9110 5.5)."""
                method, params = message["method"], message.get("params") or {}
                params = params if isinstance(params, dict) else {}
                key = NAMED.get(method)
                meta = params.get("_meta")
                said = {
                    "Mcp-Method": method,
                    "Mcp-Name": params.get(key) if key else None,
                    "MCP-Protocol-Version": meta.get(META + "protocolVersion") if isinstance(meta, dict) else None,
                }
                if "any-version-header" in front.defects:
                    said.pop("MCP-Protocol-Version")
                loose, strict = "loose-headers" in front.defects, "strict-headers" in front.defects
                if loose:
                    said.pop("Mcp-Name")
                for header, value in said.items():
                    sent = self.headers.get(header) or ""
                    if strict:
                        sent = next((v for k, v in self.headers.items() if k == header), "")
                    else:
                        sent = sent.strip().lower() if loose else sent.strip()
                    if value is not None and sent != (value.lower() if loose else value):
                        self.error(400, -32020, f"Header mismatch: {header} does not match the body", message["id"])
                        return True
                return False

            def in_session(self, rid: Any, version: str | None) -> bool:
                """A legacy POST after initialize: its session issued and alive, its protocol version supported."""
                sid = self.headers.get("Mcp-Session-Id")
                if sid is None:
                    self.error(400, -32600, "Bad Request: Missing session ID")
                elif sid not in front.sessions:
                    self.error(404, -32001, "Session not found")
                elif version is not None and version not in SUPPORTED:
                    self.error(400, -32600, f"Bad Request: Unsupported protocol version: {version}")
                else:
                    return True
                return False

        return Handler
