"""A legacy-era server that asks the client for its roots once initialized, then withdraws the request
(notifications/cancelled, "timed out") a second later without waiting for the answer."""

from __future__ import annotations

import threading
from typing import Any

from rawserver import RawServer, text_result, tool

ROOTS_ID = "roots-1"


class Withdraws(RawServer):
    lock = threading.Lock()  # the withdrawal is written from a timer thread

    def send(self, message: dict[str, Any]) -> None:
        with self.lock:
            super().send(message)

    def ask_roots(self) -> None:
        self.send({"jsonrpc": "2.0", "id": ROOTS_ID, "method": "roots/list", "params": {}})
        threading.Timer(1.0, self.withdraw).start()

    def withdraw(self) -> None:
        params = {"requestId": ROOTS_ID, "reason": "timed out"}
        self.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})


server = Withdraws("withdraws-server", capabilities={"tools": {}})
server.handlers["tools/list"] = lambda _params: {
    "tools": [tool("echo", "Echoes its text.", {"text": {"type": "string"}})]
}
server.handlers["tools/call"] = lambda params: text_result(str(params.get("arguments")))
server.on_initialized = server.ask_roots

if __name__ == "__main__":
    server.run()
