"""sampling/createMessage: the server asks for an LLM completion, and the reviewer writes it."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from mcp_review.text import visible
from mcp_review.tui.dialogs.answer import AnswerScreen


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
