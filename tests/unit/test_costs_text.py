"""`costs.document_text` writes a `list --format json` document as json.dumps(indent=2) does, byte for byte: the
tools from a template (fast), anything else as json writes it. Any drift (an escape, an indent, a null, an empty
list written otherwise) fails here."""

from __future__ import annotations

import json

from mcp_review.costs import Costs, document, document_text
from tests.support import listed

HOSTILE = ["plain", 'quote " and \\ backslash', "line\nbreak\ttab", "\x00\x1b[2J\x7f\x85", "\u2028\u2029 é 中 😀"]
HOSTILE += ["\ud800 lone", "", "<|endoftext|>"]


def dumped(doc: object) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)


def test_a_listing_document_is_written_as_json_dumps_writes_it():
    tools: list[object] = [
        {"name": name, "description": name, "inputSchema": {"type": "object"}, name: 1} for name in HOSTILE
    ]
    tools += [{"description": "no name", "inputSchema": "object"}, "not a tool", {}]
    snapshot = listed(tools, [{"name": n} for n in HOSTILE])
    doc = document(snapshot, Costs(snapshot).of())
    assert [t["problems"] for t in doc["tools"]].count([]) < len(tools)  # entries with problems, and without
    assert document_text(doc) == dumped(doc)


def test_an_entry_of_another_shape_is_dumped_as_it_is():
    doc = {
        "tools": [
            {"name": "bool seq", "tokens": {"total": 1}, "problems": [], "wireSeq": True},
            {"name": 3, "tokens": {}, "problems": ["x"], "wireSeq": 1},
            {"tokens": {"total": 1}, "name": "keys in another order", "problems": [], "wireSeq": 1},
            {"name": None, "tokens": {"total": 1.5}, "problems": [None], "wireSeq": 2},
            {"name": None, "tokens": {}, "problems": [], "wireSeq": 2},
        ],
        "empty": [],
        "nested": {"a": [1, {"b": []}], "c": {}},
    }
    assert document_text(doc) == dumped(doc)
    assert document_text({"tools": []}) == dumped({"tools": []})
