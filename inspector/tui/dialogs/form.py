"""The form generated from an object schema, and the JSON editor beside it that stays what is sent.

The form never touches the editor: each change posts `SchemaForm.Changed` with the arguments it now holds,
and the dialog (a `FormDialog`) writes them into its `#editor`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Offset, Region, Spacing
from textual.message import Message
from textual.widgets import Checkbox, Input, Select, Static, TabbedContent, TabPane, TextArea

from mcp_review.text import one_line
from mcp_review.tui.closed import SteadyTabs
from mcp_review.tui.dialogs.base import Dialog
from mcp_review.tui.dialogs.common import schema_problems
from mcp_review.untrusted import strict_loads

MAX_FORM_FIELDS = 200  # fields of a generated form; a larger schema is answered as JSON
LABEL_ROWS = 3  # a field's label, wrapped at 60 columns (its name, kind, bounds and 80 characters of description)
HINT_KEYS = ("default", "examples", "example")  # shown in an empty field, so leaving it out is an informed choice


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
    if kind in ("enum", "flag"):
        return (raw is not None and raw != Select.NULL), (strict_loads(raw) if isinstance(raw, str) else raw)
    text = str(raw or "").strip()
    if not text:
        return False, None
    if kind == "string":
        return True, str(raw)
    try:
        return True, strict_loads(text)
    except ValueError:
        return True, text  # left as typed: the schema check says what is wrong with it


def editor_text(value: Any) -> str:
    """How a value is shown in the JSON editor."""
    return json.dumps(value, indent=2, ensure_ascii=False)


class SchemaForm(VerticalScroll):
    """Fields generated from an object schema's properties (prefilled from `values`). Each change posts
    `Changed`; the dialog's JSON editor stays what is sent: anything the form cannot express is typed there,
    or as JSON in its field."""

    DEFAULT_CSS = "SchemaForm { height: 1fr; } SchemaForm .field-label { color: $text-muted; }"

    class Changed(Message):
        """The form's fields changed: the arguments they now hold, and whether the schema accepts them."""

        def __init__(self, form: SchemaForm, arguments: dict[str, Any], valid: bool) -> None:
            super().__init__()
            self.form, self.arguments, self.valid = form, arguments, valid

    def __init__(self, schema: Any, values: dict[str, Any], **kw: Any) -> None:
        super().__init__(**kw)
        self.schema = schema if isinstance(schema, dict) else {}
        props = self.schema.get("properties")
        props = props if isinstance(props, dict) else {}
        required = self.schema.get("required")
        self.required = set(required) if isinstance(required, list) else set()
        self.fields = {name: (sub, self._kind(name, sub)) for name, sub in props.items() if isinstance(sub, dict)}
        self.values = values

    def _kind(self, field: str, sub: dict[str, Any]) -> str:
        """An optional boolean is a `flag`: true, false or not sent (a checkbox left alone sent `false`, an argument
        the reviewer never chose)."""
        kind = field_kind(sub)
        return "flag" if kind == "boolean" and field not in self.required else kind

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
            elif kind in ("enum", "flag"):
                choices = enum_options(sub) if kind == "enum" else [("true", True), ("false", False)]
                options = [(Text(label), json.dumps(v)) for label, v in choices]
                initial = json.dumps(value) if field in self.values else Select.NULL
                prompt = "not sent" if field not in self.required else "Select"
                yield Select(options, value=initial, prompt=prompt, id=self.field_id(field))
            else:
                shown = value if kind == "string" else json.dumps(value, ensure_ascii=False)
                hint = next((f"{k}: {json.dumps(sub[k], ensure_ascii=False)}" for k in HINT_KEYS if k in sub), "")
                yield Input(
                    value="" if field not in self.values else str(shown),
                    placeholder=one_line(hint, 80) or ("JSON" if kind == "json" else ""),
                    id=self.field_id(field),
                )

    def scroll_to_region(self, region: Region, *, spacing: Spacing | None = None, **kw: Any) -> Offset:
        """A field scrolled into view (it took the focus) keeps its label above it in view too (up to LABEL_ROWS:
        a label wraps), else the first field's label was scrolled out of a form that fits."""
        return super().scroll_to_region(region, spacing=(spacing or Spacing()) + Spacing(top=LABEL_ROWS), **kw)

    def _label(self, field: str, sub: dict[str, Any], kind: str) -> str:
        bounds = [f"{k} {sub[k]}" for k in ("minimum", "maximum", "minLength", "maxLength", "format") if k in sub]
        parts = [
            one_line(field, 60),
            {"flag": "boolean", "json": "json (JSON)"}.get(kind, kind),
            "required" if field in self.required else "optional",
        ]
        choices = sub.get("anyOf") or sub.get("oneOf")
        if isinstance(choices, list) and kind == "json":  # say what the JSON may be
            kinds = [str(c.get("type", "…")) if isinstance(c, dict) else "…" for c in choices]
            parts.append("one of " + " | ".join(kinds[:6]))
        about = sub.get("description") or sub.get("title")
        return f"{' · '.join(parts + bounds)}" + (f": {one_line(str(about), 80)}" if about else "")

    def arguments(self) -> dict[str, Any]:
        """The arguments the fields hold now (empty fields left out)."""
        value: dict[str, Any] = {}
        for field, (_sub, kind) in self.fields.items():
            present, item = form_value(kind, self.query_one(f"#{self.field_id(field)}").value)  # type: ignore[attr-defined]
            if present:
                value[field] = item
        return value

    @on(Input.Changed)
    @on(Checkbox.Changed)
    @on(Select.Changed)
    def _changed(self, event: Input.Changed | Checkbox.Changed | Select.Changed) -> None:
        event.stop()
        arguments = self.arguments()
        self.post_message(self.Changed(self, arguments, not schema_problems(arguments, self.schema)))


class FormDialog(Dialog[dict[str, Any] | None]):
    """A dialog that edits JSON in `#editor` (what is sent), beside a `SchemaForm` when there is one: it opens on
    the form, ctrl+t switches between the two."""

    # The first field in the form's order: a form that starts with a choice (an enum, a boolean) opened on the JSON
    # editor when only text fields were looked for (TabbedContent shows the tab of what takes the focus).
    AUTO_FOCUS = "Input, Select, Checkbox, TextArea"
    BINDINGS = [Binding("ctrl+t", "toggle_form", "Form / JSON", id="form-json")]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """ctrl+t only where there is a form to switch to (the footer shows it then)."""
        return action != "toggle_form" or bool(self.query("#dialog TabbedContent"))

    def action_toggle_form(self) -> None:
        """The other tab (form or JSON), with the focus on its first field."""
        tabs = self.query_one("#dialog TabbedContent", TabbedContent)
        tabs.active = "tab-json" if tabs.active == "tab-form" else "tab-form"
        pane = tabs.get_pane(tabs.active)
        first = next(iter(pane.query(FormDialog.AUTO_FOCUS)), None)
        if first is not None:
            first.focus()

    @on(SchemaForm.Changed)
    def form_changed(self, event: SchemaForm.Changed) -> None:
        event.stop()
        self.query_one("#editor", TextArea).text = editor_text(event.arguments)


def form_and_json(form: SchemaForm | None, value: Any) -> ComposeResult:
    """A Form tab (when there is a form with fields) beside the JSON editor (`#editor`), which is what is sent.
    A schema of more than MAX_FORM_FIELDS fields gets the editor only: a server's 20,000-field form would hold
    the app's loop for as long as its widgets take to build."""
    editor = TextArea(editor_text(value), language="json", id="editor")
    if form is None or not form.fields:
        yield editor
        return
    if len(form.fields) > MAX_FORM_FIELDS:
        yield Static(Text(f"{len(form.fields):,} fields: too many for a form (over {MAX_FORM_FIELDS}), edit the JSON"))
        yield editor
        return
    with SteadyTabs():  # opens on the form: it comes first
        with TabPane("Form", id="tab-form"):
            yield form
        with TabPane("JSON", id="tab-json"):
            yield editor
