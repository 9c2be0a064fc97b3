"""Issue 21's pieces, one by one: consent read from every definition of a name, strict JSON at the wire boundary
and in every JSON output, inert exports, and a pipe that gets no escape at all. tests/hostile/test_hostile.py proves the
same end to end against hostile servers (tests/hostile/integrity_server.py); these say which piece broke.
"""

from __future__ import annotations

import io
import json
import math
from xml.etree import ElementTree as ET

import pytest
from markdown_it import MarkdownIt

from mcp_review.calls import consent_reason
from mcp_review.catalog import Item
from mcp_review.connection.wire import WireLog
from mcp_review.output import SafeStream, json_text
from mcp_review.report.common import cell, fence_for, plain
from mcp_review.report.junit import xml_text
from mcp_review.untrusted import parse_message, strict_loads

READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
DANGER = {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": True}


def listed(wire: WireLog, rpc_id: int, *tools: dict) -> list[Item]:
    """A tools/list exchange as the session records it; the items as `list_all` makes them."""
    wire.message("send", 1, {"jsonrpc": "2.0", "id": rpc_id, "method": "tools/list"}, "{}")
    reply = wire.message("recv", 1, {"jsonrpc": "2.0", "id": rpc_id, "result": {"tools": list(tools)}}, "{}")
    items = [Item("tool", t, reply.seq, 1, i) for i, t in enumerate(tools)]
    for item in items:
        item.definitions = wire.definitions
    return items


def test_consent_follows_the_most_dangerous_definition_of_a_name():
    wire = WireLog()
    (first,) = listed(wire, 1, {"name": "probe", "annotations": READ_ONLY})
    assert consent_reason(first) is None, "one read-only, closed-world definition: no consent needed"
    listed(wire, 2, {"name": "other", "annotations": DANGER})  # another name changes nothing
    assert consent_reason(first) is None
    wire.message("recv", 1, {"jsonrpc": "2.0", "id": 9, "result": {"tools": [{"name": "probe"}]}}, "{}")
    assert consent_reason(first) is None, "a result that answers no tools/list is no definition"
    listed(wire, 3, {"name": "probe", "annotations": DANGER})  # page 2, or a re-listing
    reason = consent_reason(first)
    assert reason and "destructiveHint: true" in reason and "openWorldHint: true" in reason
    assert "second definition" in reason and "wire #7" in reason


def test_non_finite_numbers_become_strings_with_a_note():
    parsed = parse_message('{"a": NaN, "b": [Infinity, -Infinity, 1e999, 1.5], "c": 12}')
    assert parsed.value == {"a": "NaN", "b": ["Infinity", "-Infinity", "1e999", 1.5], "c": 12}
    assert any("non-finite" in note for note in parsed.notes)
    json.dumps(parsed.value, allow_nan=False)  # strict JSON from here on
    assert parse_message('{"a": 1e300, "s": "NaN"}').notes == []
    long = "9" * 400 + ".5"  # beyond a double without an exponent
    assert parse_message(f'{{"x": {long}}}').value == {"x": long}


@pytest.mark.parametrize("literal", ["1E+999", "1e999", "9" * 400 + ".5"])
@pytest.mark.parametrize("offset", [-3, -1, 0, 2])
def test_a_literal_beyond_a_double_is_found_wherever_a_long_message_holds_it(literal, offset):
    """The search for such literals goes through long texts in 1 MB slices: one across a slice's end is found."""
    pad = "x" * ((1 << 20) + offset - len('{"p": "", "n": ') - len(literal) // 2)
    parsed = parse_message(f'{{"p": "{pad}", "n": {literal}}}')
    assert parsed.value["n"] == literal and any("non-finite" in note for note in parsed.notes)


def test_json_outputs_refuse_what_json_does_not_have():
    wire = WireLog()
    wire.message("send", 1, {"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"n": math.nan}}, "{}")
    with pytest.raises(ValueError):
        wire.to_jsonl()  # a regression raises instead of writing `NaN`
    with pytest.raises(ValueError):
        strict_loads('{"n": NaN}')
    assert strict_loads('{"n": 1}') == {"n": 1}


def test_exports_quote_server_text_inertly():
    assert fence_for("a ```` b `` c") == "`````" and fence_for("plain") == "```"
    text = xml_text("a\x01b\x0b\ufffe\ud800 <ok> &")
    ET.fromstring(f"<x a='{text.replace('<', '&lt;').replace('&', '&amp;')}'/>")
    assert "\\x01" in text and "<U+FFFE>" in text
    assert plain("a `<b>` <c> [d](e)\nf") == "a `<b>` \\<c> \\[d](e) f"
    row = "| " + cell("x \\| y \\[l](http://h) <b> &lt;") + " | z |"
    html = MarkdownIt("commonmark").enable("table").render(f"| a | b |\n|---|---|\n{row}\n")
    assert html.count("<td>") == 2 and "<a " not in html and "<b>" not in html and "&amp;lt;" in html


def test_printed_json_passes_the_terminal_guard_unchanged():
    value = {"t": "\x1b[31m \x9b2J \u202e \x7f", "ok": "ü"}
    pipe = io.StringIO()
    SafeStream(pipe).write(json_text(value))
    assert json.loads(pipe.getvalue()) == value and "ü" in pipe.getvalue()


def test_a_pipe_gets_no_escape_not_even_a_colour():
    pipe = io.StringIO()
    SafeStream(pipe).write("\x1b[31mred\x1b[0m \x1b]8;;http://x\x07link\n")
    assert "\x1b" not in pipe.getvalue() and "\\e[31mred" in pipe.getvalue()
