"""How mcp-review runs a stdio server it starts: confined (`confine`, bubblewrap) and observed (`observe`, strace).

`prepare(target, argv, env)` turns the server's command line into the one that runs it as `target.confinement`
asks and as this machine allows, and says how it ran (`Ran`): confined or not and why, observed or not and why,
what the server sees (`Layout`). Where a tool is missing or not permitted (another OS, no user namespaces, no
ptrace), the server runs without it, one line says so, and the review's behaviour rules are blocking.

What is confined and observed, where:
- Linux with bubblewrap and user namespaces (Debian, Fedora, Arch by default; Ubuntu 23.10+ through bwrap's
  AppArmor profile; as root anywhere): confined; with strace and ptrace of one's children: observed.
- Linux in a container whose seccomp profile forbids new namespaces (Docker's default): unconfined, observed when
  ptrace is allowed.
- macOS and Windows: unconfined and unobserved (macOS's sandbox-exec is deprecated and its dtruss needs SIP off).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import Any

from mcp_review.sandbox import confine, observe
from mcp_review.sandbox.confine import Layout, Run, known_run, run_of
from mcp_review.sandbox.observe import Trace
from mcp_review.sandbox.strace import Event
from mcp_review.targets import Target

__all__ = ["RUNS", "Event", "Layout", "Prepared", "Ran", "Run", "Trace", "known_run", "prepare", "run_of"]
RUNS = "the server runs "  # how each process's note begins (`Ran.line`): the app's Behaviour tab shows it


@dataclass(frozen=True)
class Ran:
    """How one server process ran, as the review says it."""

    confined: bool
    observed: bool
    unconfined: str | None  # why not confined: "--no-confine (the reviewer)" or what this machine lacks
    unobserved: str | None  # why not observed
    layout: Layout
    run: str

    def line(self) -> str:
        """One line: how the server runs."""
        if self.confined:
            net = "the machine's network (--allow-net)" if self.layout.network else "no network but its own loopback"
            how = f"confined by bubblewrap ({net}, read-only files but a scratch, a home of canaries)"
        else:
            how = f"unconfined ({self.unconfined})"
        watched = "observed by strace" if self.observed else f"unobserved ({self.unobserved})"
        return f"{RUNS}{how}, {watched}"

    def hint(self, events: list[dict[str, Any]]) -> str:
        """For a confined server that ended before it answered: what the confinement kept from it (files it could
        not find that exist outside, hosts it could not reach, from its observed `events`) and the flags that
        would allow them; empty when it ran unconfined."""
        if not self.confined:
            return ""
        hidden = sorted({str(e["path"]) for e in events if _hidden(e)})[:3]
        hosts = sorted({str(e["address"]) for e in events if e.get("result") == "ENETUNREACH"})[:3]
        kept = [f"it could not see {', '.join(hidden)} (--allow-read PATH)"] if hidden else []
        kept += [f"it could not reach {', '.join(hosts)} (--allow-net HOST)"] if hosts else []
        said = "; ".join(kept) if kept else "if it needs a file or host the confinement hides, allow it"
        return f"(it ran confined: {said}; or --no-confine)"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"confined": self.confined, "observed": self.observed}
        if self.unconfined:
            out["unconfinedBecause"] = self.unconfined
        if self.unobserved:
            out["unobservedBecause"] = self.unobserved
        out["home"] = self.layout.home
        out["cwd"] = self.layout.cwd
        return out


def _hidden(event: dict[str, Any]) -> bool:
    """A file the server was told was not there, that exists outside the confinement."""
    path = event.get("path")
    return event.get("result") == "ENOENT" and isinstance(path, str) and path.startswith("/") and os.path.exists(path)


@dataclass
class Prepared:
    argv: list[str]
    ran: Ran
    trace: Trace | None


def prepare(target: Target, argv: list[str], env: dict[str, str]) -> Prepared:
    """`argv` as `target.confinement` asks and this machine allows."""
    spec = target.confinement
    unconfined = "--no-confine" if not spec.confine else confine.unavailable()
    unobserved = None if spec.observe else "not asked (--observe)"
    if spec.observe:
        unobserved = observe.unavailable()
    run = run_of(spec.run) if unconfined is None or unobserved is None else None
    if unconfined is None:
        assert run is not None
        argv, layout = confine.wrap(target, argv, env, run)
    else:
        layout = confine.unconfined_layout(target, env)
    trace = None
    if unobserved is None:
        assert run is not None
        trace = Trace(run.root, shutil.which(confine.BWRAP) if unconfined is None else None)
        argv = trace.argv(argv)
    return Prepared(argv, Ran(unconfined is None, trace is not None, unconfined, unobserved, layout, spec.run), trace)
