"""Modal screens: consent, calling a tool, and answering the server (elicitation, sampling, roots).

They only collect the reviewer's decision and return it with `dismiss`; the app owns the connection.
Everything shown from the server goes through `visible()` inside `rich.text.Text`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, Static, TextArea

from inspector.calls import CallRecord, describe_block
from inspector.text import one_line, visible

DIALOG_CSS = """
ModalScreen { align: center middle; }
#dialog { width: 90%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
#dialog.-small { height: auto; max-height: 90%; }
#buttons { height: 3; align-horizontal: right; }
#editor { height: 1fr; min-height: 5; }
#result { height: 1fr; }
#problems { color: $error; height: auto; }
#dialog TabbedContent, #dialog ContentSwitcher, #dialog TabPane { height: 1fr; }
#dialog TabPane { padding: 0; }
"""


def schema_problems(value: Any, schema: Any) -> list[str]:
    """Why `value` does not satisfy `schema`: empty when it does, or when the schema is not usable (see
    `schema_note`). Offline: a remote `$ref` is never fetched, a cyclic one never followed."""
    from inspector.localschema import validate

    return validate(value, schema).errors if isinstance(schema, dict) else []


def schema_note(schema: Any) -> str:
    """What cannot be checked against `schema`: the remote `$ref`s it names (never fetched), or ""."""
    from inspector.localschema import remote_refs

    refs = remote_refs(schema)
    return f"not checked against {', '.join(repr(r[:80]) for r in refs)}: remote, never fetched" if refs else ""


def argument_problems(text: str, schema: Any) -> list[str]:
    """Why `text` is not an argument object the tool's inputSchema accepts."""
    try:
        value = json.loads(text or "{}")
    except ValueError as e:
        return [f"not JSON: {e}"]
    if not isinstance(value, dict):
        return ["arguments must be a JSON object"]
    return schema_problems(value, schema)


class ConfirmScreen(ModalScreen[bool]):
    """Yes or no, with the reason stated. Escape means no."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "dismiss(False)", "Cancel", id="cancel")]

    def __init__(self, title: str, reason: str, yes: str = "Call it") -> None:
        super().__init__()
        self.title_text, self.reason, self.yes = title, reason, yes

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="-small"):
            yield Static(Text(self.title_text, style="bold"))
            yield Static(Text(self.reason))
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="no")
                yield Button(self.yes, id="yes", variant="warning")

    @on(Button.Pressed)
    def decide(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


def enum_options(schema: dict[str, Any]) -> list[tuple[str, Any]]:
    """(label, value) choices: `enum` values, or `oneOf`/`anyOf` of `{"const": ..., "title": ...}` (titled enums)."""
    if isinstance(schema.get("enum"), list):
        return [(one_line(json.dumps(v, ensure_ascii=False), 60), v) for v in schema["enum"]]
    choices = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(choices, list) and choices and all(isinstance(c, dict) and "const" in c for c in choices):
        return [(one_line(str(c.get("title") or json.dumps(c["const"])), 60), c["const"]) for c in choices]
    return []


def field_kind(schema: Any) -> str:
    """How a property is edited in the form: enum, boolean, integer, number, string, or json (anything else)."""
    if not isinstance(schema, dict):
        return "json"
    if enum_options(schema):
        return "enum"
    kind = schema.get("type")
    if isinstance(kind, list):  # nullable: ["string", "null"]
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    return kind if kind in ("boolean", "integer", "number", "string") else "json"


def form_value(kind: str, raw: Any) -> tuple[bool, Any]:
    """(present, value) from a form widget's value; empty means the argument is left out."""
    if kind == "boolean":
        return True, bool(raw)
    if kind == "enum":
        return (raw is not None and raw != Select.NULL), (json.loads(raw) if isinstance(raw, str) else raw)
    text = str(raw or "").strip()
    if not text:
        return False, None
    if kind == "string":
        return True, str(raw)
    try:
        return True, json.loads(text)
    except ValueError:
        return True, text  # left as typed: the schema check says what is wrong with it


HINT_KEYS = ("default", "examples", "example")  # shown in an empty field, so leaving it out is an informed choice


class SchemaForm(VerticalScroll):
    """Fields generated from an object schema's properties (prefilled from `values`). Each change rewrites the
    screen's `#editor` JSON, which stays what is sent: anything the form cannot express is typed there, or as
    JSON in its field."""

    DEFAULT_CSS = "SchemaForm { height: 1fr; } SchemaForm .field-label { color: $text-muted; }"

    def __init__(self, schema: Any, values: dict[str, Any], **kw: Any) -> None:
        super().__init__(**kw)
        schema = schema if isinstance(schema, dict) else {}
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        self.fields = {name: (sub, field_kind(sub)) for name, sub in props.items() if isinstance(sub, dict)}
        self.required = set(schema.get("required") or []) if isinstance(schema.get("required"), list) else set()
        self.values = values

    def field_id(self, field: str) -> str:
        """A widget id for a property: its name when that is a valid id, else its position (names are the
        server's: `a b`, `<x>` or `ключ` must not crash the form)."""
        return (
            f"field-{field}"
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", field)
            else f"field--{list(self.fields).index(field)}"
        )

    def compose(self) -> ComposeResult:
        for field, (sub, kind) in self.fields.items():
            yield Static(Text(self._label(field, sub, kind)), classes="field-label")
            value = self.values.get(field)
            if kind == "boolean":
                yield Checkbox(Text(one_line(field, 60)), value=bool(value), id=self.field_id(field))
            elif kind == "enum":
                options = [(Text(label), json.dumps(v)) for label, v in enum_options(sub)]
                initial = json.dumps(value) if field in self.values else Select.NULL
                yield Select(options, value=initial, id=self.field_id(field))
            else:
                shown = value if kind == "string" else json.dumps(value, ensure_ascii=False)
                hint = next((f"{k}: {json.dumps(sub[k], ensure_ascii=False)}" for k in HINT_KEYS if k in sub), "")
                yield Input(
                    value="" if field not in self.values else str(shown),
                    placeholder=one_line(hint, 80) or ("JSON" if kind == "json" else ""),
                    id=self.field_id(field),
                )

    def _label(self, field: str, sub: dict[str, Any], kind: str) -> str:
        bounds = [f"{k} {sub[k]}" for k in ("minimum", "maximum", "minLength", "maxLength", "format") if k in sub]
        parts = [
            one_line(field, 60),
            kind + (" (JSON)" if kind == "json" else ""),
            "required" if field in self.required else "optional",
        ]
        choices = sub.get("anyOf") or sub.get("oneOf")
        if isinstance(choices, list) and kind == "json":  # say what the JSON may be
            kinds = [str(c.get("type", "…")) if isinstance(c, dict) else "…" for c in choices]
            parts.append("one of " + " | ".join(kinds[:6]))
        about = sub.get("description") or sub.get("title")
        return f"{' · '.join(parts + bounds)}" + (f": {one_line(str(about), 80)}" if about else "")

    @on(Input.Changed)
    @on(Checkbox.Changed)
    @on(Select.Changed)
    def _changed(self, event: Any) -> None:
        event.stop()
        value: dict[str, Any] = {}
        for field, (_sub, kind) in self.fields.items():
            present, item = form_value(kind, self.query_one(f"#{self.field_id(field)}").value)  # type: ignore[attr-defined]
            if present:
                value[field] = item
        self.screen.query_one("#editor", TextArea).text = json.dumps(value, indent=2, ensure_ascii=False)


class CallScreen(ModalScreen[dict[str, Any] | None]):
    """Arguments for one tool: a form generated from its inputSchema, or raw JSON; validated live. Returns them."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel", id="cancel"),
        Binding("ctrl+s", "send", "Call", id="send-call"),
    ]

    def __init__(self, tool: Any, arguments: dict[str, Any]) -> None:
        super().__init__()
        self.tool = tool
        self.arguments = arguments

    def compose(self) -> ComposeResult:
        name = one_line(str(self.tool.get("name")), 80)
        form = SchemaForm(self.tool.get("inputSchema"), self.arguments, id="form")
        with Vertical(id="dialog"):
            yield Static(Text(f"call {name}  (ctrl+s to send, escape to cancel)", style="bold"))
            yield Static(Text(visible(str(self.tool.get("description") or ""), 400)))
            yield from form_and_json(form, self.arguments)
            yield Static(id="problems")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Call", id="call", variant="primary")

    def on_mount(self) -> None:
        self._check()

    @on(TextArea.Changed)
    def _check(self) -> None:
        schema = self.tool.get("inputSchema")
        problems = argument_problems(self.query_one(TextArea).text, schema)
        self.query_one("#problems", Static).update(Text("\n".join(problems) or schema_note(schema)))
        self.query_one("#call", Button).disabled = bool(problems)

    def action_send(self) -> None:
        if not self.query_one("#call", Button).disabled:
            self.dismiss(json.loads(self.query_one(TextArea).text or "{}"))

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "call":
            self.action_send()
        elif event.button.id == "cancel":
            self.dismiss(None)


def form_and_json(form: SchemaForm | None, value: Any) -> ComposeResult:
    """A Form tab (when there is a form with fields) beside the JSON editor (`#editor`), which is what is sent."""
    from textual.widgets import TabbedContent, TabPane

    editor = TextArea(json.dumps(value, indent=2, ensure_ascii=False), language="json", id="editor")
    if form is None or not form.fields:
        yield editor
        return
    with TabbedContent(initial="tab-form"):
        with TabPane("Form", id="tab-form"):
            yield form
        with TabPane("JSON", id="tab-json"):
            yield editor


def result_text(record: CallRecord, output_schema: Any, tokens: int | None) -> Text:
    """Every content block, structuredContent checked against the outputSchema, isError, latency, tokens."""
    out = Text()
    out.append(f"{one_line(record.tool, 80)} · {record.latency_ms:.0f} ms · {record.outcome}", style="bold")
    if tokens is not None:
        out.append(f" · result {tokens} tokens")
    out.append("\n")
    if record.failure or record.error is not None:
        out.append(visible(record.failure or json.dumps(record.error, indent=2, ensure_ascii=False), 20000))
        return out
    result = record.result if isinstance(record.result, dict) else {}
    for i, block in enumerate(result.get("content") or []):
        heading, body = describe_block(block)
        out.append(f"[{i}] {one_line(heading, 200)}\n", style="cyan")
        if body:
            out.append(visible(body, 20000) + "\n")
    if "structuredContent" in result:
        out.append("structuredContent:\n", style="cyan")
        out.append(visible(json.dumps(result["structuredContent"], indent=2, ensure_ascii=False), 20000) + "\n")
        if isinstance(output_schema, dict):
            problems = schema_problems(result["structuredContent"], output_schema)
            note = schema_note(output_schema)
            verdict = "; ".join(problems) or note or "conforms to the outputSchema"
            out.append(verdict + "\n", style="red" if problems else "yellow" if note else "green")
    out.append(f"isError: {json.dumps(result.get('isError', False))}\n")
    return out


class ResultScreen(ModalScreen[None]):
    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "dismiss", "Close", id="close")]

    def __init__(self, body: Text) -> None:
        super().__init__()
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            with VerticalScroll(id="result"):
                yield Static(self.body)
            with Horizontal(id="buttons"):
                yield Button("Close", id="close")

    @on(Button.Pressed)
    def close(self) -> None:
        self.dismiss()


class ToolScreen(ModalScreen[None]):
    """One tool in full, in collapsible sections (description, findings, tokens, schemas, annotations)."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "dismiss", "Close", id="close-tool")]

    def __init__(self, name: str, sections: list[tuple[str, Text, bool]]) -> None:
        super().__init__()
        self.name_text, self.sections = name, sections

    def compose(self) -> ComposeResult:
        from textual.widgets import Collapsible

        with Vertical(id="dialog"):
            yield Static(Text(f"{self.name_text}  (escape to close)", style="bold"))
            with VerticalScroll(id="result"):
                for title, body, collapsed in self.sections:
                    with Collapsible(title=title, collapsed=collapsed):
                        yield Static(body)
            with Horizontal(id="buttons"):
                yield Button("Close", id="close")

    @on(Button.Pressed, "#close")
    def close(self) -> None:
        self.dismiss()


class AnswerScreen(ModalScreen[dict[str, Any] | None]):
    """The server asks the client for something: show what, let the reviewer edit an answer, accept or decline.

    Subclasses say what is shown, the answer prefilled (JSON), how to validate it, and how an accepted
    answer becomes the result sent back. `None` means declined.
    """

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [
        Binding("escape", "decline", "Decline", id="decline"),
        Binding("ctrl+s", "accept", "Accept", id="accept"),
        Binding("ctrl+d", "decline_all", "Decline all waiting", id="decline-all"),
    ]
    heading = "The server asks"
    waiting = 0  # requests from the server queued behind this one (the app sets it)

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__()
        self.params = params

    def describe(self) -> Text:
        return Text(visible(json.dumps(self.params, indent=2, ensure_ascii=False), 4000))

    def draft(self) -> Any:
        return {}

    def form(self, draft: Any) -> SchemaForm | None:
        """A form for the answer, when its shape is a schema (elicitation)."""
        return None

    def extra_buttons(self) -> ComposeResult:
        yield from ()

    def problems(self, value: Any) -> list[str]:
        return []

    def answer(self, value: Any) -> dict[str, Any]:
        return value  # type: ignore[no-any-return]

    def compose(self) -> ComposeResult:
        queued = f" · {self.waiting} more waiting (ctrl+d declines all)" if self.waiting else ""
        with Vertical(id="dialog"):
            yield Static(Text(f"{self.heading}{queued}  (ctrl+s accept, escape decline)", style="bold"))
            with VerticalScroll(id="result"):
                yield Static(self.describe())
            draft = self.draft()
            yield from form_and_json(self.form(draft), draft)
            yield Static(id="problems")
            with Horizontal(id="buttons"):
                yield from self.extra_buttons()
                if self.waiting:
                    yield Button(f"Decline all {self.waiting + 1}", id="decline-all")
                yield Button("Decline", id="decline")
                yield Button("Accept", id="accept", variant="primary")

    def on_mount(self) -> None:
        self._check()

    def _value(self) -> tuple[Any, list[str]]:
        try:
            value = json.loads(self.query_one(TextArea).text or "null")
        except ValueError as e:
            return None, [f"not JSON: {e}"]
        return value, self.problems(value)

    @on(TextArea.Changed)
    def _check(self) -> None:
        _, problems = self._value()
        self.query_one("#problems", Static).update(Text("\n".join(problems)))
        self.query_one("#accept", Button).disabled = bool(problems)

    def action_accept(self) -> None:
        value, problems = self._value()
        if not problems:
            self.dismiss(self.answer(value))

    def action_decline(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#accept")
    def pressed_accept(self) -> None:
        self.action_accept()

    @on(Button.Pressed, "#decline")
    def pressed_decline(self) -> None:
        self.action_decline()

    @on(Button.Pressed, "#decline-all")
    def action_decline_all(self) -> None:
        self.dismiss(DECLINE_ALL if self.waiting else None)


DECLINE_ALL: dict[str, Any] = {}  # what AnswerScreen returns for "decline this and every request waiting"


class ElicitScreen(AnswerScreen):
    """elicitation/create: a form (edited as JSON, checked against requestedSchema) or a URL, never opened here."""

    heading = "The server asks for input (elicitation)"

    @property
    def is_url(self) -> bool:
        return self.params.get("mode") == "url"

    def describe(self) -> Text:
        out = Text()
        out.append(visible(str(self.params.get("message", "")), 2000) + "\n\n")
        if self.is_url:
            out.append("It asks you to open this URL (mcp-review does not open it):\n", style="bold")
            out.append(visible(str(self.params.get("url", "")), 2000))
        else:
            out.append("requested schema:\n", style="bold")
            out.append(visible(json.dumps(self.params.get("requestedSchema"), indent=2, ensure_ascii=False), 4000))
        return out

    def draft(self) -> Any:
        from checks.util import example_value

        return {} if self.is_url else example_value(self.params.get("requestedSchema") or {"type": "object"})

    def form(self, draft: Any) -> SchemaForm | None:
        return None if self.is_url else SchemaForm(self.params.get("requestedSchema"), draft, id="form")

    def extra_buttons(self) -> ComposeResult:
        if self.is_url:
            yield Button("Open URL…", id="open-url")

    @on(Button.Pressed, "#open-url")
    def open_url(self) -> None:
        """Only with the reviewer's consent, and only http(s): the URL comes from the server."""
        url = str(self.params.get("url", ""))
        if not url.startswith(("https://", "http://")):
            self.notify("not an http(s) URL: not opened", severity="warning")
            return

        def decided(yes: bool | None) -> None:
            if yes:
                import webbrowser

                webbrowser.open(url)

        reason = f"The server wants you to visit:\n{visible(url, 2000)}\nOpen it in your browser?"
        self.app.push_screen(ConfirmScreen("Open a URL from the server", reason, yes="Open"), decided)

    def problems(self, value: Any) -> list[str]:
        return [] if self.is_url else schema_problems(value, self.params.get("requestedSchema"))

    def answer(self, value: Any) -> dict[str, Any]:
        return {"action": "accept"} if self.is_url else {"action": "accept", "content": value}


class SampleScreen(AnswerScreen):
    """sampling/createMessage: the reviewer writes the model's reply (or declines)."""

    heading = "The server asks for an LLM completion (sampling)"

    def describe(self) -> Text:
        out = Text()
        if self.params.get("systemPrompt"):
            out.append(f"system: {visible(str(self.params['systemPrompt']), 2000)}\n", style="dim")
        for message in self.params.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            text = content.get("text") if isinstance(content, dict) else json.dumps(content, ensure_ascii=False)
            out.append(f"{message.get('role', '?') if isinstance(message, dict) else '?'}: ", style="bold")
            out.append(visible(str(text), 4000) + "\n")
        out.append(f"maxTokens: {self.params.get('maxTokens')}\n", style="dim")
        return out

    def draft(self) -> Any:
        return {"text": "A reply written by the reviewer."}

    def problems(self, value: Any) -> list[str]:
        ok = isinstance(value, dict) and isinstance(value.get("text"), str)
        return [] if ok else ['the answer is {"text": "..."}']

    def answer(self, value: Any) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": {"type": "text", "text": value["text"]},
            "model": "mcp-review-reviewer",
            "stopReason": "endTurn",
        }


class RootsScreen(AnswerScreen):
    """roots/list: which directories the client exposes (the working directory is offered)."""

    heading = "The server asks which roots (directories) it may use"

    def describe(self) -> Text:
        return Text("Edit the list of roots to share, or decline to share none.")

    def draft(self) -> Any:
        from pathlib import Path

        cwd = Path.cwd()
        return [{"uri": cwd.as_uri(), "name": cwd.name}]

    def problems(self, value: Any) -> list[str]:
        ok = isinstance(value, list) and all(isinstance(r, dict) and isinstance(r.get("uri"), str) for r in value)
        return [] if ok else ['the answer is a list of {"uri": "file:///...", "name": "..."}']

    def answer(self, value: Any) -> dict[str, Any]:
        return {"roots": value}


class DecisionScreen(ModalScreen[dict[str, str] | None]):
    """A reviewer's decision on a finding: waive it (reason, who, optional expiry), attest a manual rule, or
    write a note (on the highlighted finding, or with no finding on the review as a whole)."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="cancel-decision")]

    def __init__(self, kind: str, finding: Any, who: str) -> None:
        super().__init__()
        self.kind, self.finding, self.who = kind, finding, who

    def compose(self) -> ComposeResult:
        from textual.widgets import Input, Select

        with Vertical(id="dialog", classes="-small"):
            if self.finding is None:
                yield Static(Text("note on the review", style="bold"))
            else:
                subject = one_line(self.finding.subject or "the server", 60)
                yield Static(Text(f"{self.kind} {self.finding.rule} for {subject}", style="bold"))
                yield Static(Text(one_line(self.finding.message, 300)))
            yield Input(value=self.who, placeholder="who", id="who")
            placeholder = {"waive": "reason", "attest": "note: what you checked, and where", "note": "note"}
            yield Input(placeholder=placeholder[self.kind], id="why")
            if self.kind == "waive":
                yield Input(placeholder="expires (YYYY-MM-DD, optional)", id="expires")
            elif self.kind == "attest":
                yield Select([("pass: it holds", "pass"), ("fail: it does not", "fail")], value="pass", id="verdict")
            yield Static(id="problems")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(self.kind.capitalize(), id="ok", variant="primary")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        import datetime as dt

        from textual.widgets import Input, Select

        if event.button.id != "ok":
            self.dismiss(None)
            return
        values = {
            "who": self.query_one("#who", Input).value.strip(),
            "why": self.query_one("#why", Input).value.strip(),
        }
        problems = [f"{k} is required" for k, v in values.items() if not v]
        if self.kind == "waive":
            values["expires"] = self.query_one("#expires", Input).value.strip()
            if values["expires"]:
                try:
                    dt.date.fromisoformat(values["expires"])
                except ValueError:
                    problems.append("expires must be a date like 2027-01-31")
        elif self.kind == "attest":
            values["status"] = str(self.query_one("#verdict", Select).value)
        if problems:
            self.query_one("#problems", Static).update(Text("; ".join(problems)))
            return
        self.dismiss(values)


class FillScreen(AnswerScreen):
    """Arguments for something the reviewer asks of the server: a prompt's arguments, a template's variables."""

    def __init__(self, heading: str, about: Any, draft: dict[str, Any], required: list[str]) -> None:
        super().__init__({})
        self.heading, self.about, self.initial, self.required = heading, about, draft, required

    def describe(self) -> Text:
        return Text(visible(json.dumps(self.about, indent=2, ensure_ascii=False), 4000))

    def draft(self) -> Any:
        return self.initial

    def problems(self, value: Any) -> list[str]:
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            return ["the answer is an object of strings"]
        return [f"{name!r} is required" for name in self.required if not value.get(name)]


def resource_text(uri: str, result: Any) -> Text:
    """What resources/read returned: text contents as text, binary as type and size."""
    out = Text()
    out.append(f"{one_line(uri, 200)}\n", style="bold")
    for part in (result or {}).get("contents") or []:
        if not isinstance(part, dict):
            continue
        out.append(
            f"{one_line(str(part.get('uri', '')), 200)} {one_line(str(part.get('mimeType', '')), 80)}\n", style="cyan"
        )
        if isinstance(part.get("text"), str):
            out.append(visible(part["text"], 20000) + "\n")
        elif "blob" in part:
            out.append(f"binary, {len(str(part['blob'])) * 3 // 4} bytes (base64 not shown)\n")
    return out


def prompt_text(name: str, result: Any) -> Text:
    out = Text()
    out.append(f"{one_line(name, 200)}\n", style="bold")
    if isinstance(result, dict) and result.get("description"):
        out.append(visible(str(result["description"]), 2000) + "\n")
    for message in (result or {}).get("messages") or []:
        if not isinstance(message, dict):
            continue
        heading, body = describe_block(message.get("content"))
        out.append(f"{message.get('role', '?')} ({heading}): ", style="cyan")
        out.append(visible(body or "", 20000) + "\n")
    return out


class ConnectScreen(ModalScreen[dict[str, str] | None]):
    """Pick a server found in config files or a recent one, or type a command or URL (with headers, bearer)."""

    DEFAULT_CSS = DIALOG_CSS + "#choices { height: 1fr; }"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="cancel-connect")]

    def __init__(self, choices: list[tuple[str, str, dict[str, str]]], current: str) -> None:
        super().__init__()
        self.choices = choices  # (label, where from, form values)
        self.current = current

    def compose(self) -> ComposeResult:
        from textual.widgets import DataTable, Input

        with Vertical(id="dialog"):
            yield Static(Text("Connect to an MCP server (enter a row, or type below and press Connect)", style="bold"))
            yield DataTable(id="choices", cursor_type="row")
            yield Input(
                value=self.current,
                placeholder="a command (python server.py) or a URL (http://127.0.0.1:8000/mcp)",
                id="what",
            )
            yield Input(placeholder="headers, e.g. X-Team: a; X-Env: dev (HTTP only)", id="headers")
            yield Input(placeholder="bearer token (HTTP only; not remembered)", password=True, id="bearer")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Connect", id="connect", variant="primary")

    def on_mount(self) -> None:
        from textual.widgets import DataTable

        table = self.query_one(DataTable)
        table.add_columns("server", "from")
        for i, (label, where, _values) in enumerate(self.choices):
            table.add_row(Text(one_line(label, 80)), Text(one_line(where, 60)), key=str(i))

    def on_data_table_row_selected(self, event: Any) -> None:
        self.dismiss(self.choices[int(event.row_key.value)][2])

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        from textual.widgets import Input

        if event.button.id != "connect":
            self.dismiss(None)
            return
        values = {key: self.query_one(f"#{key}", Input).value.strip() for key in ("what", "headers", "bearer")}
        if values["what"]:
            self.dismiss(values)


class RunScreen(ModalScreen[dict[str, Any] | None]):
    """Which packs to run and which tools checks may call: the reviewer's consent for call rules."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="cancel-run")]

    def __init__(self, packs: list[str], calls: str, why: str = "") -> None:
        super().__init__()
        self.packs, self.calls, self.why = packs, calls, why

    def compose(self) -> ComposeResult:
        from textual.widgets import Input, Select

        from checks.core import PACKS

        with Vertical(id="dialog", classes="-small"):
            yield Static(Text("Run the checklist", style="bold"))
            if self.why:
                yield Static(Text(self.why))
            yield Static(Text(f"packs (space separated; {', '.join(PACKS)}, or all):"))
            yield Input(value=" ".join(self.packs), id="packs")
            yield Static(Text("tools the checks may call:"))
            yield Select(
                [
                    ("none: call rules stay blocking", "none"),
                    ("read-only: tools annotated read-only and not open-world", "read-only"),
                    ("all: every tool, side effects included (your consent)", "all"),
                ],
                value=self.calls,
                id="calls",
            )
            yield Static(id="problems")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Run", id="run", variant="primary")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        from textual.widgets import Input, Select

        from checks.core import PACKS

        if event.button.id != "run":
            self.dismiss(None)
            return
        packs = self.query_one("#packs", Input).value.split()
        unknown = [p for p in packs if p not in (*PACKS, "all")]
        if not packs or unknown:
            self.query_one("#problems", Static).update(Text(f"unknown pack(s): {', '.join(unknown) or '(none given)'}"))
            return
        self.dismiss({"packs": packs, "calls": str(self.query_one("#calls", Select).value)})


class ExportScreen(ModalScreen[dict[str, str] | None]):
    """Export the review: a format, a path, and a preview of the markdown."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="cancel-export")]
    EXTENSIONS = {"md": "md", "md-full": "full.md", "json": "json", "sarif": "sarif.json", "junit": "junit.xml"}

    def __init__(self, stem: str, preview: str) -> None:
        super().__init__()
        self.stem, self.preview = stem, preview

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Export the review", style="bold"))
            yield Select([(f, f) for f in self.EXTENSIONS], value="md", allow_blank=False, id="format")
            yield Input(value=f"{self.stem}.md", id="path")
            with VerticalScroll(id="result"):
                yield Static(Text(self.preview))
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Export", id="export", variant="primary")

    @on(Select.Changed, "#format")
    def format_changed(self, event: Select.Changed) -> None:
        self.query_one("#path", Input).value = f"{self.stem}.{self.EXTENSIONS[str(event.value)]}"

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "export":
            self.dismiss(None)
            return
        path = self.query_one("#path", Input).value.strip()
        if path:
            self.dismiss({"format": str(self.query_one("#format", Select).value), "path": path})
