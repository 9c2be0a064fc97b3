"""Connecting: a server found in config files or a recent one, or a command or URL typed in; what the form
gave as a `Target`, and the recent servers remembered (never with a secret)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Input, Static

from mcp_review.configs import ConfigError, reviewers_own
from mcp_review.plan import PlanError, confined_like, packaged
from mcp_review.redact import is_secret_header, remember
from mcp_review.targets import Target, http_target, secret_arg_positions, stdio_target
from mcp_review.text import one_line
from mcp_review.tui.dialogs.base import Dialog
from mcp_review.tui.dialogs.common import DIALOG_CSS
from mcp_review.tui.settings import load_settings, save_settings

Choice = tuple[str, str, dict[str, str]]  # label, where from, the form's values


def known_servers() -> list[Choice]:
    """The recent servers (each started again in the folder it was started from), then every server the usual
    config files name."""
    from mcp_review.configs import discover

    recent: list[Choice] = [
        (
            r.get("what", ""),
            f"recent · in {r['cwd']}" if r.get("cwd") else "recent",
            {"what": r.get("what", ""), "headers": r.get("headers", ""), "bearer": "", "cwd": r.get("cwd", "")},
        )
        for r in load_settings().get("recent", [])
        if isinstance(r, dict)
    ]
    return recent + [
        (found.name, f"{found.client}: {found.source}", {"config": found.source, "name": found.name})
        for found in discover()
        if found.target is not None
    ]


def target_from_form(values: dict[str, str]) -> tuple[Target, str | None]:
    """What the connect dialog gave: a config entry, a URL (headers, bearer) or a command line; and for a
    project's config entry, what of the reviewer's environment it asked for and did not get (`configs`)."""
    if values.get("config"):
        from mcp_review.configs import find_server

        chosen = find_server(values["config"], values.get("name"))  # a project's file gets none of your env
        assert chosen.target is not None  # find_server raises for an unusable entry
        return chosen.target, chosen.withheld_line()
    what = values.get("what", "").strip()
    if what.startswith(("http://", "https://")):
        headers = {}
        for pair in filter(None, (p.strip() for p in values.get("headers", "").split(";"))):
            key, found, value = pair.partition(":")
            if not found:
                raise ValueError(f"a header must look like K: V, got {pair!r}")
            headers[key.strip()] = value.strip()
        return http_target(what, headers=headers, bearer=values.get("bearer") or None), None
    return stdio_target(shlex.split(what), cwd=values.get("cwd") or None), None  # a recent one: where it started


def remember_recent(values: dict[str, str]) -> None:
    """A typed server goes first in the recent ones, without its bearer or credential headers; one whose
    command line carries a secret is not remembered at all. A command is kept with the folder it started in
    (`cwd`, absolute), so a relative path in it starts the same server from any folder."""
    if "what" not in values or secret_arg_positions(shlex.split(values["what"])):
        return
    headers = "; ".join(p for p in values.get("headers", "").split(";") if not is_secret_header(p.split(":")[0]))
    entry = {"what": values["what"], "headers": headers.strip()} | ({"cwd": values["cwd"]} if values.get("cwd") else {})
    same = {"what": entry["what"], "cwd": entry.get("cwd")}
    recent = [
        r
        for r in load_settings().get("recent", [])
        if isinstance(r, dict) and {"what": r.get("what"), "cwd": r.get("cwd")} != same
    ]
    save_settings({"recent": [entry, *recent][:10]})


def remember_target(target: Target) -> None:
    """A server that answered goes first in the recent ones (typed, or named on the command line); not the
    demo, nor one from a config file (listed from there anyway)."""
    if target.demo or target.source:
        return
    what = target.url or shlex.join((_package_target(target) or target.command or "", *target.args))
    cwd = "" if target.url else str(Path(target.cwd or Path.cwd()).resolve())
    remember_recent({"what": what, "headers": "; ".join(f"{k}: {v}" for k, v in target.headers.items()), "cwd": cwd})


def _package_target(target: Target) -> str | None:
    """The package target (`npm:NAME@VERSION`) of a server installed for review: remembered as that, not as the
    program in the cache, so choosing it again installs (or finds) that version and says what it is."""
    if not target.package:
        return None
    sep = "@" if target.package["registry"] == "npm" else "=="
    return f"{target.package['registry']}:{target.package['name']}{sep}{target.package['version']}"


class ConnectScreen(Dialog[dict[str, str] | None]):
    """Pick a server found in config files or a recent one, or type a command or URL (with headers, bearer)."""

    DEFAULT_CSS = DIALOG_CSS + "#choices { height: 1fr; }"
    BINDINGS = [Binding("ctrl+s", "submit", "Connect", id="connect")]

    def __init__(self, choices: list[Choice], current: str) -> None:
        super().__init__()
        self.choices = choices  # (label, where from, form values)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Connect to an MCP server: enter on a row, or type a command or URL below", style="bold"))
            yield DataTable(id="choices", cursor_type="row")
            yield Input(
                value=self.current,
                placeholder="a command (python server.py) or a URL (http://127.0.0.1:8000/mcp)",
                id="what",
            )
            yield Input(placeholder="headers, e.g. X-Team: a; X-Env: dev (HTTP only)", id="headers")
            yield Input(placeholder="bearer token (HTTP only; not remembered)", password=True, id="bearer")
            yield from self.buttons("Connect", "connect")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("server", "from")
        for i, (label, where, _values) in enumerate(self.choices):
            table.add_row(Text(one_line(label, 80)), Text(one_line(where, 60)), key=str(i))

    def on_data_table_row_selected(self, event: Any) -> None:
        self.dismiss(self.choices[int(event.row_key.value)][2])

    def draft_key(self) -> str:
        return "connect"

    def submit(self) -> None:
        values = {key: self.query_one(f"#{key}", Input).value.strip() for key in ("what", "headers", "bearer")}
        if values["what"]:
            self.dismiss(values)


def with_stored_token(app: App[Any], target: Target) -> Target:
    """`target` with the token `mcp-review auth login` (or the Auth view) stored for its URL, as `--url` takes it
    (refreshed when expired); as it was when none is stored or the refresh failed (said)."""
    from mcp_review.auth.refresh import RefreshFailed, usable_token

    try:
        stored = usable_token(target.url or "", verify=target.verify, timeout=min(target.timeout, 10.0))
    except RefreshFailed as e:
        app.notify(f"{e}: ctrl+l logs in again", severity="warning", markup=False)
        return target
    return target.with_(bearer=stored) if stored else target


def ask_target(app: App[Any], current: Target, then: Callable[[Target], None]) -> None:
    """Ask which server to review (`current` typed in); `then` gets the new one, its secrets masked from now on."""
    typed = current.url or " ".join(shlex.quote(p) for p in (current.command or "", *current.args))

    def chosen(values: dict[str, str] | None) -> None:
        if not values:
            return
        try:
            target, withheld = target_from_form(values)
        except (ValueError, ConfigError) as e:
            app.notify(str(e), severity="error", markup=False)
            return
        if withheld:  # the app has no --allow-env: the command line's flags pass them
            app.notify(withheld, severity="warning", markup=False, timeout=15)
        if target.is_http and not target.bearer and not values.get("bearer"):
            target = with_stored_token(app, target)
        remember(target.secret_values())  # masked from here on: in saved settings, messages, the screen
        own = not values.get("config") or reviewers_own(Path(values["config"]))
        start(app, confined_like(target, current, named_paths=own), then)

    app.push_screen(ConnectScreen(known_servers(), typed), chosen)


def start(app: App[Any], target: Target, then: Callable[[Target], None]) -> None:
    """`then(target)`, after the package it names (`npm:NAME@VERSION`, `npx -y PKG`...) is installed into
    mcp-review's cache (`plan.packaged`), in a thread: an install may take minutes, and the app goes on meanwhile."""
    from mcp_review.packages import named

    if target.kind != "stdio" or named([target.command or "", *target.args]) is None:
        then(target)
        return

    def install() -> None:
        try:
            installed = packaged(target)
        except PlanError as e:
            app.call_from_thread(app.notify, str(e), severity="error", markup=False)
            return
        app.call_from_thread(then, installed)

    app.notify(f"installing {one_line(target.label(), 80)} into mcp-review's cache first…", markup=False)
    app.run_worker(install, thread=True, group="package", exit_on_error=False)
