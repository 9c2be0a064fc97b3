"""A stateless Streamable HTTP gateway in front of a stdio server, as some gateways run one: each POST starts the
server's process, initializes it, hands it the one message, answers with its reply and stops it. Nothing is kept
between requests: no Mcp-Session-Id, no stream. `python gateway.py --port P [--start S] -- COMMAND...` serves
http://127.0.0.1:P/mcp.

`--start S` waits S seconds before each start, as a heavier server's own start would (server-everything takes about
0.5 s, an `mcp` SDK server about 1.2 s), so the price of a request shows without a heavy server. What the server asks
of the client meanwhile (roots, sampling) is declined, and the client's notifications are accepted and dropped: there
is no process to give them to. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

WAIT = 60.0  # seconds one request may take before its process is killed
HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "gateway", "version": "1"}}


class Child:
    """One start of the server, for one request."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        self.timer = threading.Timer(WAIT, self.proc.kill)
        self.timer.start()

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def answer(self, rid: Any) -> dict[str, Any] | None:
        """The server's reply to request `rid`; its own requests meanwhile are declined."""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            if "method" in message and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no client"}})
            elif "method" not in message and message.get("id") == rid:
                return message
        return None

    def stop(self) -> None:
        self.timer.cancel()
        self.proc.kill()
        self.proc.wait()


class Gateway(BaseHTTPRequestHandler):
    argv: ClassVar[list[str]] = []
    start = 0.0
    hello: ClassVar[dict[str, Any]] = HELLO  # the last initialize's params: each new process is initialized with them

    def log_message(self, *_args: Any) -> None:
        pass

    def _reply(self, status: int, body: Any = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._reply(405)

    def do_DELETE(self) -> None:
        self._reply(405)

    def do_POST(self) -> None:
        try:
            message = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        except ValueError:
            self._reply(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            return
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            self._reply(202)  # a notification (or an answer): no process to give it to
            return
        lost = {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": -32603, "message": "the server gave no answer"},
        }
        self._reply(200, self.forward(message) or lost)

    def forward(self, message: dict[str, Any]) -> dict[str, Any] | None:
        time.sleep(self.start)
        child = Child(self.argv)
        try:
            if message["method"] == "initialize":
                Gateway.hello = message.get("params") or HELLO
                child.send(message)
                return child.answer(message["id"])
            child.send({"jsonrpc": "2.0", "id": "gateway-init", "method": "initialize", "params": self.hello})
            child.answer("gateway-init")
            child.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            child.send(message)
            return child.answer(message["id"])
        finally:
            child.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--start", type=float, default=0.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    Gateway.argv = args.command[1:] if args.command[:1] == ["--"] else args.command
    Gateway.start = args.start
    ThreadingHTTPServer(("127.0.0.1", args.port), Gateway).serve_forever()


if __name__ == "__main__":
    main()
