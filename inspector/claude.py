"""The Claude estimate of what tool definitions cost: ai-tokenizer's method, ported from its `src/sdk.ts`.

A host does not send the `tools` JSON as text: Anthropic's API wraps each tool in its own format. ai-tokenizer
(coder/ai-tokenizer, MIT) fitted that wrapping against the API's reported input tokens as fixed costs: one once
any tool exists (`toolsExist`), one per tool after the first (`perTool`), per description, per property (the
first and each other), per property description, per enum, per nested object and per array of objects; the
texts themselves (name, description, property names and descriptions, enum values) are counted with its Claude
vocabulary. The data ships in `inspector/data/encodings/` (`claude-overheads.json`, `SOURCES.md`): an estimate,
labelled as such wherever it shows, never a count from Anthropic's tokenizer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "encodings" / "claude-overheads.json"
MAX_DEPTH = 32  # nested schemas counted this deep (a hostile schema may nest without end)
Encode = Callable[[str], int]


@cache
def calibration() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def overheads(model: str | None = None) -> dict[str, float]:
    data = calibration()
    tokens: dict[str, float] = data["models"][model or data["default_model"]]["tokens"]
    return tokens


def label() -> str:
    data = calibration()
    model = data["default_model"]
    return f"estimate for {model} (coder/ai-tokenizer vocabulary and overheads, calibrated {data['date']})"


def _schema(schema: Any, count: Encode, cost: dict[str, float], depth: int = 0) -> int:
    """A JSON Schema object's properties, as ai-tokenizer walks a Zod object's shape."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict) or depth > MAX_DEPTH:
        return 0
    total: float = 0  # the overheads are fractional; rounded once at the end
    for i, (key, prop) in enumerate(props.items()):
        total += count(str(key)) + (cost["perFirstProp"] if i == 0 else cost["perAdditionalProp"])
        if not isinstance(prop, dict):
            continue
        if isinstance(prop.get("description"), str):
            total += cost["perPropDesc"] + count(prop["description"])
        if isinstance(prop.get("enum"), list):
            total += cost["perEnum"] + sum(count(v if isinstance(v, str) else json.dumps(v)) for v in prop["enum"])
        if prop.get("type") == "object":
            total += cost.get("perNestedObject", 0) + _schema(prop, count, cost, depth + 1)
        elif prop.get("type") == "array" and isinstance(prop.get("items"), dict):
            items = prop["items"]
            total += cost.get("perArrayOfObjects", 0) if items.get("type") == "object" else 0
            total += _schema(items, count, cost, depth + 1)
    return int(total)


def tool_cost(raw: Any, count: Encode, first: bool = False) -> int:
    """One tool as one more tool in the list (`perTool` included unless it is the `first`)."""
    if not isinstance(raw, dict):
        return 0
    cost = overheads()
    name, description = raw.get("name"), raw.get("description")
    total: float = count(name) if isinstance(name, str) else 0
    if isinstance(description, str) and description:
        total += cost["perDesc"] + count(description)
    total += _schema(raw.get("inputSchema"), count, cost)
    return int(total + (0 if first else cost["perTool"]))


def tools_cost(tools: list[Any], count: Encode) -> int:
    """The whole list: `toolsExist` once, then each tool (the first without `perTool`); 0 for no tools."""
    if not tools:
        return 0
    return int(overheads()["toolsExist"]) + sum(tool_cost(t, count, i == 0) for i, t in enumerate(tools))
