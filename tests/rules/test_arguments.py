"""Generated arguments (inspector/rules/arguments.py): values the tool's own text names, paths that stay in the canary area."""

from __future__ import annotations

import os

from mcp_review import canary
from mcp_review.catalog import Item
from mcp_review.rules.arguments import call_arguments, is_path, named_values
from tests.rules.runs import Run, describe, findings

LEAKY = Run(("leaky",))  # --calls all: the tools carry no annotations


def tool(name: str, description: str, props: dict, annotations: dict | None = None) -> Item:
    raw = {"name": name, "description": description, "inputSchema": {"type": "object", "properties": props}}
    raw["inputSchema"]["required"] = list(props)
    if annotations is not None:
        raw["annotations"] = annotations
    return Item("tool", raw, 1, 1, 0)


def test_named_values_are_identifiers_a_text_quotes_or_lists():
    assert named_values("Look up a user, e.g. 'alice' or `bob`.") == ["alice", "bob"]
    assert named_values("Known services: billing, email.") == ["billing", "email"]
    assert named_values("Returns: a list, sorted.") == [], "a bare list after a colon needs a cue"
    assert named_values("Valid values are INV-1001, INV-1002.") == ["INV-1001", "INV-1002"]
    assert named_values("Never run `rm -rf build` or 'the whole table'; see ../etc") == []
    assert named_values("Returns results such as the newest ones.") == []


def test_a_tool_gets_the_value_its_description_names():
    status = tool("get_service_status", "Known services: 'billing', 'email'.", {"service": {"type": "string"}})
    assert call_arguments(status) == {"service": "billing"}
    invoice = tool(
        "lookup_invoice", "Show an invoice.", {"invoice_id": {"type": "string", "description": "e.g. INV-1001"}}
    )
    assert call_arguments(invoice) == {"invoice_id": "INV-1001"}
    enum = {"type": "string", "enum": ["a", "b"]}
    assert call_arguments(tool("pick", "e.g. 'z'", {"choice": enum})) == {"choice": "a"}, "the schema's own value first"
    pattern = {"type": "string", "pattern": "^[0-9]+$"}
    assert call_arguments(tool("get_order", "Order ids such as 'abc' or '42'", {"order_id": pattern})) == {
        "order_id": "42"
    }


def test_a_tool_that_may_delete_never_gets_a_value_its_text_names():
    """A named `admin` must not be the user a generated call deletes."""
    delete = tool("delete_user", "Delete a user, e.g. 'admin'.", {"username": {"type": "string"}})
    assert call_arguments(delete) == {"username": "x"}
    read_only = {"readOnlyHint": True, "openWorldHint": False}
    assert call_arguments(tool("delete_preview", "e.g. 'admin'", {"username": {"type": "string"}}, read_only)) == {
        "username": "admin"
    }


def test_paths_of_a_tool_that_may_write_lead_into_the_canary_area():
    move = tool("move_file", "Move a file.", {"source": {"type": "string"}, "destination": {"type": "string"}})
    ping = tool("run_ping", "Ping a host.", {"target": {"type": "string"}})
    assert is_path(move, "source", {}) and not is_path(ping, "target", {}), "a source is a path only in a file tool"
    with canary.area() as area:
        args = call_arguments(move, area)
        for value in args.values():
            assert area.holds(os.path.join("/srv/ws", value)) and os.path.exists(os.path.join("/", value))
        assert call_arguments(ping, area) == {"target": "x"}
        closed = {"readOnlyHint": True, "openWorldHint": False}
        read_only = tool("read_file", "Read a file.", {"path": {"type": "string"}}, closed)
        assert call_arguments(read_only, area) == {"path": "x"}, "a read-only tool's path is left alone"


def test_a_leak_behind_a_named_value_is_found():
    """Called with "x" both tools only refuse; with the values their text names they leak a token."""
    items = findings(LEAKY)["review.results-safe"]
    failed = {f.subject for f in items if f.status == "fail"}
    assert failed == {"get_service_status", "lookup_invoice"}, describe(items)
