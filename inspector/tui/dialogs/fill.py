"""Resource templates and prompts: filling in their arguments, and showing what the server returned."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.binding import Binding

from mcp_review.calls import describe_block
from mcp_review.limits import LIMITS
from mcp_review.text import one_line, visible
from mcp_review.tui.dialogs.answer import AnswerScreen
from mcp_review.tui.dialogs.form import FormDialog, SchemaForm
from mcp_review.uritemplates import expand, variables

Field = tuple[str, bool, str]  # an argument's name, whether it is required, its description


class FillScreen(AnswerScreen):
    """Arguments for something the reviewer asks of the server: a form of one field per argument (empty: nothing
    is sent the reviewer did not type), the JSON beside it (ctrl+t), and buttons that say what they do."""

    BINDINGS = [Binding("escape", "decline", "Cancel", id="cancel")]  # the reviewer asked: nothing to decline
    AUTO_FOCUS = FormDialog.AUTO_FOCUS  # and typing goes into the first field at once
    decline_label = "Cancel"

    def __init__(self, heading: str, about: Any, fields: list[Field]) -> None:
        super().__init__({})
        self.heading, self.about = heading, about
        self.required = [name for name, required, _ in fields if required]
        self.schema = {
            "type": "object",
            "properties": {name: {"type": "string", "description": said} for name, _, said in fields},
            "required": self.required,
        }

    def describe(self) -> Text:
        return Text(visible(json.dumps(self.about, indent=2, ensure_ascii=False), 4000))

    def form(self, draft: Any) -> SchemaForm | None:
        return SchemaForm(self.schema, draft, id="form")

    def draft_key(self) -> str:
        return f"fill {self.heading}"

    def problems(self, value: Any) -> list[str]:
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            return ["the answer is an object of strings"]
        return [f"{name!r} is required" for name in self.required if not value.get(name)]


class TemplateScreen(FillScreen):
    """A resource template: one field per variable of its URI template (RFC 6570), the URI it reads drawn as it is
    typed; Read sends resources/read of that URI."""

    BINDINGS = [Binding("ctrl+s", "submit", "Read", id="accept")]
    accept_label = "Read"

    def __init__(self, template: str, about: Any) -> None:
        optional = "left out of the URI when empty"
        fields = [(name, required, "" if required else optional) for name, required in variables(template)]
        super().__init__(f"Read {one_line(template, 200)}", about, fields)
        self.template = template

    def uri(self, value: Any) -> str:
        """The URI the values read: the template expanded (what is not a string yet expands as empty)."""
        values = value if isinstance(value, dict) else {}
        return expand(self.template, {k: v for k, v in values.items() if isinstance(v, str)})

    def live(self, value: Any) -> Text | None:
        return Text.assemble(("reads: ", "bold"), visible(self.uri(value), 2000))


class PromptScreen(FillScreen):
    """A prompt's arguments; Get sends prompts/get with those typed."""

    BINDINGS = [Binding("ctrl+s", "submit", "Get prompt", id="accept")]
    accept_label = "Get prompt"

    def __init__(self, name: str, about: Any, fields: list[Field]) -> None:
        super().__init__(f"Get prompt {one_line(name, 200)}", about, fields)


def resource_text(uri: str, result: Any) -> Text:
    """What resources/read returned: text contents as text, binary as type and size."""
    out = Text()
    out.append(f"{one_line(uri, 200)}\n", style="bold")
    for part in _first(out, (result or {}).get("contents"), "parts"):
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
    """What prompts/get returned: its description, then each message with its role."""
    out = Text()
    out.append(f"{one_line(name, 200)}\n", style="bold")
    if isinstance(result, dict) and result.get("description"):
        out.append(visible(str(result["description"]), 2000) + "\n")
    for message in _first(out, (result or {}).get("messages"), "messages"):
        if not isinstance(message, dict):
            continue
        heading, body = describe_block(message.get("content"))
        out.append(f"{message.get('role', '?')} ({heading}): ", style="cyan")
        out.append(visible(body or "", 20000) + "\n")
    return out


def _first(out: Text, items: Any, what: str) -> list[Any]:
    """The first LIMITS.prompt_messages of a server's list, saying in `out` how many more are not shown: a
    prompt of 100,000 messages drawn whole left the app unanswering."""
    if not isinstance(items, list):
        return []
    cap = LIMITS.prompt_messages
    if len(items) > cap:
        out.append(f"{len(items):,} {what}: only the first {cap:,} are shown\n", style="bold yellow")
    return items[:cap]
