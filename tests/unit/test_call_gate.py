"""One door for calls: the only place in the product that sends `tools/call` is `calls.CallGate`.

The source is read with `ast`, not grep: a send is a call of a function that takes a `method` (every request
method of the session, the channel, a probe connection, and any wrapper of them, found in the product itself, so
a new one is covered as soon as it is written) with `"tools/call"` as that method, directly or through a name
bound to it; a JSON-RPC message built by hand (`{"method": "tools/call"}`); or raw JSON text that names it. A
mention that sends nothing (a label, a dictionary keyed by method names, a comparison) is not a send. The
detector is proven on sources of its own both ways, so the test can fail.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import cast

from mcp_review.calls import CallGate
from mcp_review.connection.session import Session
from mcp_review.connection.wire import WireLog
from tests.unit.test_integrity import DANGER, READ_ONLY, listed

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = [ROOT / "inspector", ROOT / "checks", ROOT / "themes"]
METHOD = "tools/call"
RAW = re.compile(r'"method"\s*:\s*"tools/call"')
GATE = ("inspector/calls.py", "CallGate")  # the one place allowed to send it


def senders(trees: Iterable[ast.AST]) -> set[str]:
    """Names of every function that takes a `method` parameter: what sends a request, or wraps what does."""
    out = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                params = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                if any(a.arg == "method" for a in params):
                    out.add(node.name)
    return out


def _bound(tree: ast.AST) -> set[str]:
    """Names assigned the method anywhere in the module (a constant, a local)."""
    return {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.AnnAssign) and _is_method(node.value, set())
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }


def _is_method(node: ast.AST | None, names: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return node.value == METHOD
    return isinstance(node, ast.Name) and node.id in names


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _method_of(call: ast.Call, position: int) -> ast.AST | None:
    """What a call passes as `method`: by keyword, or at the parameter's position (the first, or the second of a
    method whose first is `self`, which a call through an attribute does not pass)."""
    for keyword in call.keywords:
        if keyword.arg == "method":
            return keyword.value
    return call.args[position] if len(call.args) > position else None


def sends(tree: ast.AST, methods: set[str]) -> Iterator[tuple[int, str]]:
    """(line, where) of every `tools/call` the module sends, with the class it is in (or '')."""
    names = _bound(tree)
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, owner = stack.pop()
        owner = node.name if isinstance(node, ast.ClassDef) else owner
        if isinstance(node, ast.Call) and _callee(node) in methods:
            if any(_is_method(_method_of(node, i), names) for i in (0, 1)):
                yield node.lineno, owner
        elif isinstance(node, ast.Dict):
            pairs = zip(node.keys, node.values, strict=True)
            if any(isinstance(k, ast.Constant) and k.value == "method" and _is_method(v, names) for k, v in pairs):
                yield node.lineno, owner
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and RAW.search(node.value):
            yield node.lineno, owner
        stack += [(child, owner) for child in ast.iter_child_nodes(node)]


NAMED = re.compile(r"tools/call|\bmethod\s*[:,)=]")  # the method, or a parameter named `method`


def product() -> dict[str, ast.AST]:
    """Every product module that names the method or has a parameter named `method` (no other can send it or
    define a sender: parsing the rest would only cost time), parsed."""
    texts = {path: path.read_text(encoding="utf-8") for folder in PRODUCT for path in sorted(folder.rglob("*.py"))}
    return {
        str(path.relative_to(ROOT)): ast.parse(text, str(path)) for path, text in texts.items() if NAMED.search(text)
    }


def test_only_the_gate_sends_tools_call():
    trees = product()
    methods = senders(trees.values())
    assert {"request", "complete", "notify"} <= methods, "the session's request methods are found"
    found = [(path, line, owner) for path, tree in trees.items() for line, owner in sends(tree, methods)]
    outside = [f"{path}:{line}" for path, line, owner in found if (path, owner) != GATE]
    assert not outside, f"tools/call sent outside calls.CallGate: {outside}"
    assert [f for f in found if (f[0], f[2]) == GATE], "the detector finds the gate's own sends"


SNEAKY = """
M = "tools/call"

class Driver:
    async def _ask(self, method, params):
        return await self.session.request(method, params)

    async def run(self):
        await self._ask("tools/call", {})

async def probe(p, session, channel):
    await session.request("tools/call", {"name": "x"})
    await p.request(method="tools/call")
    await channel.complete(M, {})
    await channel.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call"})
    await p.send_raw('{"jsonrpc": "2.0", "id": 2, "method": "tools/call"}')
"""

HARMLESS = """
BRIDGE = {"tools/call": "asked the host to call a tool"}

def label(run, task, reply, method):
    report(task, reply, "tools/call")
    return method == "tools/call"

async def listing(session):
    await session.request("tools/list", {})
"""


def test_the_detector_finds_every_way_of_sending_and_nothing_else():
    sneaky, harmless = ast.parse(SNEAKY), ast.parse(HARMLESS)
    methods = senders([sneaky, harmless]) | {"request", "complete"}
    assert len(list(sends(sneaky, methods))) == 6
    assert list(sends(harmless, methods)) == []


def test_the_gate_judges_a_name_by_its_most_dangerous_definition():
    """The gate reads consent from every definition the server gave a name (`calls.consent_reason`): a read-only
    first definition does not let a run on `--calls read-only` call a name a second definition makes destructive,
    nor record that call as needing no consent."""
    wire = WireLog()
    (first,) = listed(wire, 1, {"name": "probe", "annotations": READ_ONLY})
    gate = CallGate(cast(Session, None), "read-only")  # deciding needs no connection
    assert gate.refusal(first) is None and gate.consent(first) == "read-only"
    listed(wire, 2, {"name": "probe", "annotations": DANGER})
    refused = gate.refusal(first)
    assert refused and "second definition" in refused and "only --calls all" in refused
    assert gate.consent(first) == "reviewer" and CallGate(cast(Session, None), "all").refusal(first) is None
