"""Loaded (through PYTHONPATH) into the mcp-review process the hostile harness runs, and only there.

It records every outbound connection and name lookup the process attempts (HOSTILE_NETLOG) and its peak
resident memory at exit (HOSTILE_RSSLOG), so the harness can tell a request to a host the reviewer never
named, or a memory blow-up, from the outside.
"""

import atexit
import json
import os
import resource
import socket

_NETLOG = os.environ.get("HOSTILE_NETLOG")
_RSSLOG = os.environ.get("HOSTILE_RSSLOG")


def _record(kind: str, what: object) -> None:
    with open(_NETLOG, "a", encoding="utf-8") as f:  # type: ignore[arg-type]
        f.write(json.dumps([kind, repr(what)]) + "\n")


if _NETLOG:
    _connect, _connect_ex, _getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def connect(self, address):  # type: ignore[no-untyped-def]
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _record("connect", address)
        return _connect(self, address)

    def connect_ex(self, address):  # type: ignore[no-untyped-def]
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _record("connect", address)
        return _connect_ex(self, address)

    def getaddrinfo(host, *args, **kw):  # type: ignore[no-untyped-def]
        _record("lookup", host)
        return _getaddrinfo(host, *args, **kw)

    socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo

if _RSSLOG:

    @atexit.register
    def _peak() -> None:
        with open(_RSSLOG, "w", encoding="utf-8") as f:
            f.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
