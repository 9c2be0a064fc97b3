"""The hostile stdio cases whose attack is size (memory, a parser's depth), for stdio_server.py.

- deep: a 100,000-deep result and a 5,000-deep schema; huge-int: 20,000-digit integers in a listing and a result.
- wide: a result of 3,000,000 empty objects; many-strings: a listing of twelve 900 KB descriptions.
- binary-blocks: every call returns 28 MB of base64 images; huge-line: a 100 MB line on stdout.
Answers too big or too deep for `json.dumps` to be the point are written by hand, byte for byte.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from typing import Any

from lines import write
from stdio_kit import Case, text, tool


def answer(params: dict, result: bytes) -> None:
    """The raw answer to the request whose params these are."""
    write(b'{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (json.dumps(params["_id"]).encode(), result))


def deep() -> Case:
    tools = [tool("probe", "Deep results.")]

    def deep_list(params: dict) -> None:
        schema = '{"type":"object","properties":{"a":' * 5000 + '{"type":"string"}' + "}}" * 5000
        listed = json.dumps(tools)[:-1] + ', {"name": "deep_schema", "inputSchema": %s}]' % schema
        answer(params, b'{"tools":%s}' % listed.encode())

    def call(params: dict) -> Any:
        nested = "[" * 100000 + "]" * 100000
        answer(params, b'{"content":[],"structuredContent":{"d":%s}}' % nested.encode())
        return None

    return Case(tools=tools, call=call, extra={"tools/list": deep_list})


def huge_int() -> Case:
    big = "9" * 20000
    tools = [tool("probe", "Huge integers.")]

    def call(params: dict) -> Any:
        answer(params, b'{"content":[{"type":"text","text":"n"}],"structuredContent":{"n":%s}}' % big.encode())
        return None

    def huge_list(params: dict) -> None:
        listed = json.dumps(tools)[:-1] + ', {"name": "big", "inputSchema": {"type": "object", "maxLength": %s}}]' % big
        answer(params, b'{"tools":%s}' % listed.encode())

    return Case(tools=tools, call=call, extra={"tools/list": huge_list})


def wide() -> Case:
    def call(params: dict) -> Any:
        answer(params, b'{"content":[],"structuredContent":{"w":[%s{}]}}' % (b"{}," * 3_000_000))
        return None

    return Case(tools=[tool("probe", "Wide results.")], call=call)


def many_strings() -> Case:
    chunk = "D" * 900_000
    # twelve: each is cut at 256 K (untrusted.MAX_STRING), 3 MB kept; thirty kept 7.7 MB and cost the corpus 28 s
    # of CPU, counted and scanned, for the same proof (huge-line proves a line's own bound)
    return Case(tools=[tool(f"t{i}", chunk) for i in range(12)] + [tool("probe", "x")])


def binary_blocks() -> Case:
    blob = base64.b64encode(os.urandom(3 * 1024 * 1024)).decode()  # 4 MB of base64

    def call(params: dict) -> Any:
        return {"content": [{"type": "image", "mimeType": "image/png", "data": blob} for _ in range(7)]}

    return Case(tools=[tool("probe", "Big images."), tool("more", "More images."), tool("again", "Again.")], call=call)


def huge_line() -> Case:
    def call(params: dict) -> Any:
        write(b'{"jsonrpc":"2.0","id":1,"result":"' + b"A" * (100 * 1024 * 1024))
        write(b'"}\n')
        return text("after the huge line")

    return Case(call=call)


CASES: dict[str, Callable[[], Case]] = {
    "deep": deep,
    "huge-int": huge_int,
    "wide": wide,
    "many-strings": many_strings,
    "binary-blocks": binary_blocks,
    "huge-line": huge_line,
}
