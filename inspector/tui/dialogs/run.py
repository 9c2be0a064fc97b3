"""Running the checklist: which packs, which tools the checks may call (the reviewer's consent), whether the
security probes may send canary payloads to the tools they may call, under which era (`--era both`), and the gate:
which findings hold a merge (`--fail-on`, mcp_review.verdicts)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Select, Static

from mcp_review.calls import POLICIES, Policy
from mcp_review.rules.context import Options
from mcp_review.tui.dialogs.base import Dialog
from mcp_review.tui.dialogs.common import DIALOG_CSS
from mcp_review.verdicts import DEFAULT_FAIL_ON, HELP, parse
from mcp_review.workspace import RequestPolicy

CALLS = [(f"{name}: {lets}", name) for name, lets in POLICIES.items()]  # as `check --help` says them

PROBES = [
    ("off: probe rules stay blocking", "off"),
    ("security: parameters named for paths, commands, code, URLs…", "security"),
    ("security-all: every string parameter of the tools it may call", "security-all"),
]


ERAS = [("this connection's era", "this"), ("both eras (new connections)", "both")]  # beside the packs: 80x24 fits
REQUESTS = [
    ("the run: roots as given, sampling and elicitation declined", "auto"),
    ("me: the run waits for my answer", "ask"),
]

# What probes send, in the one line the dialog has at 80 columns (`check --help` says it whole, with what calls send:
# mcp_review.rules.arguments.CALLS_SEND and PROBES_SEND).
SENDS = "probes (canaries only: temp-dir paths, printf, code, 127.0.0.1 URL):"


Choice = tuple[list[str], Options, bool, RequestPolicy, tuple[str, ...]]  # packs, options, both eras, requests, gate


class RunScreen(Dialog[Choice | None]):
    """Which packs to run and which tools checks may call: the reviewer's consent for call rules; whether to review
    under both eras; and who answers the server's requests during the run (a policy, by default: a run never waits
    on a person). It shows the run choices as the workspace keeps them (packs, `Options`' calls and probes, the era,
    the policy) and answers in that form."""

    DEFAULT_CSS = DIALOG_CSS + (
        "#packs-row { height: 3; } #packs { width: 1fr; } #era { width: 36; }"
        " #gate-row { height: 1; } #gate-label { width: auto; } #gate { width: 1fr; }"
    )
    BINDINGS = [Binding("ctrl+s", "submit", "Run", id="run")]

    def __init__(
        self,
        packs: Sequence[str],
        options: Options,
        why: str = "",
        both: bool = False,
        requests: RequestPolicy = "auto",
        estimate: Callable[[Policy], str] | None = None,
        fail_on: Sequence[str] = DEFAULT_FAIL_ON,
    ) -> None:
        """`estimate`: what a run would call under a policy (`Workspace.call_estimate`), said under the choice."""
        super().__init__()
        self.packs, self.options, self.why, self.both, self.requests = list(packs), options, why, both, requests
        self.estimate = estimate
        self.fail_on = tuple(fail_on)
        # the widest probe allowed (a config may allow both): one choice here
        self.probe = next((p for p in ("security-all", "security") if p in options.probe), "off")

    def compose(self) -> ComposeResult:
        from mcp_review.rules.core import PACKS

        with Vertical(id="dialog", classes="-small"):
            yield Static(Text("Run the checklist", style="bold"))
            if self.why:
                yield Static(Text(self.why))
            yield Static(Text(f"packs (space separated; {', '.join(PACKS)}, or all):"))
            with Horizontal(id="packs-row"):
                yield Input(value=" ".join(self.packs), id="packs")
                yield Select(ERAS, value="both" if self.both else "this", allow_blank=False, id="era")
            yield Static(Text("tools the checks may call:"))
            # compact (one row each): at 80x24 the dialog and its buttons fit with the why line
            yield Select(CALLS, value=self.options.calls, allow_blank=False, compact=True, id="calls")
            if self.estimate is not None:
                yield Static(Text(self.estimate(self.options.calls), style="dim"), id="estimate")
            yield Static(Text(SENDS))
            yield Select(PROBES, value=self.probe, allow_blank=False, compact=True, id="probe")
            yield Static(Text("server requests during the run (roots, sampling, elicitation):"))
            yield Select(REQUESTS, value=self.requests, allow_blank=False, compact=True, id="requests")
            with Horizontal(id="gate-row"):  # which findings hold the merge: check --fail-on
                yield Static(Text("gate (fail on): "), id="gate-label")
                yield Input(value=",".join(self.fail_on), compact=True, id="gate", tooltip=HELP)
            yield Static(id="problems")
            yield from self.buttons("Run", "run")

    def draft_key(self) -> str:
        return "run"

    @on(Select.Changed, "#calls")
    def _estimated(self, event: Select.Changed) -> None:
        if self.estimate is not None:
            self.query_one("#estimate", Static).update(Text(self.estimate(cast(Policy, str(event.value))), style="dim"))

    def submit(self) -> None:
        from mcp_review.rules.core import PACKS

        packs = self.query_one("#packs", Input).value.split()
        unknown = [p for p in packs if p not in (*PACKS, "all")]
        if not packs or unknown:
            self.query_one("#problems", Static).update(Text(f"unknown pack(s): {', '.join(unknown) or '(none given)'}"))
            return
        try:
            gate = parse(self.query_one("#gate", Input).value)
        except ValueError as e:
            self.query_one("#problems", Static).update(Text(str(e).split(" (")[0].replace("--fail-on", "gate")))
            self.query_one("#gate", Input).focus()
            return
        calls, probe = str(self.query_one("#calls", Select).value), str(self.query_one("#probe", Select).value)
        probes = frozenset() if probe == "off" else frozenset({probe})
        both = self.query_one("#era", Select).value == "both"
        requests = cast(RequestPolicy, str(self.query_one("#requests", Select).value))
        chosen = replace(self.options, calls=cast(Policy, calls), probe=probes)
        self.dismiss((packs, chosen, both, requests, gate.said))
