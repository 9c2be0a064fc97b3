"""The batched token counts (`mcp_review.costs`: `list`, the review, the lock, the app) are the plain per-text counts.

The reference here is written out again on purpose: json.dumps and tiktoken's encode_ordinary called text by
text, as `breakdown` and `tools_total` counted before issue 12. Any drift of the fast path (a member text
joined in the wrong order, a memoised count read for the wrong text, a chunk's counts paired with another
chunk's texts) changes a figure and fails here.
"""

from __future__ import annotations

import json
import os
import time

import pytest

from mcp_review import claude, tokens
from mcp_review.costs import Costs
from mcp_review.encodings import ENCODINGS, get_encoding
from mcp_review.tokens import EXACT_CHARS, TokenCounter, canonical
from tests.servers.many import generate_tools
from tests.support import listed


def dumps(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def plain_count(encoding: str, text: str) -> int:
    encode = get_encoding(encoding).encode_ordinary
    if len(text) <= EXACT_CHARS:
        return len(encode(text))
    return round(len(encode(text[:EXACT_CHARS])) * len(text) / EXACT_CHARS)


def plain_breakdown(encoding: str, item: object) -> dict[str, int]:
    def count(text: str) -> int:
        return plain_count(encoding, text)

    out = {"total": claude.tool_cost(item, count) if encoding == "claude" else count(dumps(item))}
    if not isinstance(item, dict):
        return out
    for key, value in item.items():
        out[str(key)] = count(f"{dumps(str(key))}:{dumps(value)}")
    return out


def plain_total(encoding: str, tools: list[object]) -> int:
    if encoding == "claude":
        return claude.tools_cost(tools, lambda text: plain_count("claude", text))
    return plain_count(encoding, dumps(tools))


SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Texte à chercher 🔍", "maxLength": 200},
        "where": {
            "type": "object",
            "properties": {
                "deep": {"type": "array", "items": {"type": "object", "properties": {"k": {"enum": [1, None]}}}}
            },
        },
        "mode": {"enum": ["a", "b", 3, True]},
    },
    "required": ["query"],
}


def varied(i: int) -> list[object]:
    """Tools a hostile or odd server may send; `i` makes their texts distinct, the shared SCHEMA repeats."""
    return [
        {
            "name": f"t{i}",
            "description": f"Ищет записи {i}. 検索します。 مرحبا\u200b <|endoftext|>",
            "title": f"<|endofprompt|><|fim_prefix|> {i} <EOT><META_START>",  # each encoding's special tokens: text
            "inputSchema": SCHEMA,
        },
        {"name": f"n{i}", "inputSchema": {"type": "object", "properties": {"x": {"description": "é" * (i % 7)}}}},
        {"z": i, "a": [1.5, -0.0, 10**30, None, True, {"b": {"a": "\ud800"}}], "": "empty key", "é": {}, "A": []},
        {1: "int keys", 2: i},  # json.dumps makes them text: the canonical pass must say the same
        f"not a tool {i}",
        [i, "list", {"k": "v"}],
        None,
        3.25,
    ]


def tool_sets() -> list[list[object]]:
    huge = "Describe at length. " * (EXACT_CHARS // 10)  # ~2x EXACT_CHARS: counted over a prefix, scaled
    few = varied(0)
    many = [tool for i in range(60) for tool in varied(i)] + list(generate_tools(300))
    many.insert(7, {"name": "huge", "description": huge, "inputSchema": SCHEMA})
    many.append({"name": "at the edge", "description": "x" * (EXACT_CHARS - 20)})  # the whole text crosses it
    return [[], few, many]


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.slow
def test_the_batched_figures_are_the_plain_per_text_counts(encoding, monkeypatch):
    monkeypatch.setattr(tokens, "WORKERS", 3)  # chunked across the pool even on a one-core machine
    counter = TokenCounter(encoding)
    for tools in tool_sets():
        expected = [plain_breakdown(encoding, tool) for tool in tools]
        snapshot = listed(tools, tools[:5])
        snapshot.instructions = "Use the tools: <|endoftext|> 検索"
        figures = Costs(snapshot).of(encoding)
        assert (figures.tools, figures.total) == (expected, plain_total(encoding, tools))
        assert figures.items["prompt"] == [plain_count(encoding, dumps(p)) for p in tools[:5]]
        assert figures.instructions == plain_count(encoding, "Use the tools: <|endoftext|> 検索")
        assert [counter.breakdown(tool) for tool in tools] == expected
        assert [counter.count_tool(tool) for tool in tools] == [b["total"] for b in expected]
        assert counter.tools_total(tools) == plain_total(encoding, tools)


def test_a_tools_canonical_text_is_joined_from_its_members():
    """The identity the fast path rests on: json.dumps writes a dict as its members' texts in key order."""
    for tools in tool_sets():
        for tool in tools:
            whole, members = tokens.canonical_parts(tool)
            assert whole == canonical(tool) == dumps(tool)
            if isinstance(tool, dict):
                assert members == {str(k): f"{dumps(str(k))}:{dumps(v)}" for k, v in tool.items()}
        assert "[" + ",".join(tokens.canonical_parts(t)[0] for t in tools) + "]" == dumps(tools)


def test_counting_threads_keep_the_processs_priority():
    """At a lower priority (nice 10, before issue 36) the counting threads starved on a busy machine: `list` took
    2.23x the Inspector's time beside other work. The pool's threads and `in_background` run at the priority of
    the process."""
    import os
    import threading

    from mcp_review.tokens import _pool, in_background

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    base = os.getpriority(os.PRIO_PROCESS, 0)
    assert _pool().submit(nice).result() == base
    assert in_background(nice).result() == base


def test_a_long_text_is_encoded_once_per_encoding_and_a_short_one_each_time():
    """A check counts one server's texts again for each rule and report: a long one is counted once per encoding
    (a hostile listing of thirty 256 K descriptions spent 2.2 s of a 7 s check in BPE), a short one is not kept."""
    encoded: list[tuple[str, int]] = []

    class Spy:
        def __init__(self, name: str) -> None:
            self.name = name

        def encode_ordinary(self, text: str) -> list[int]:
            encoded.append((self.name, len(text)))
            return [0] * (len(text) // 4)

    long, short = f"{os.getpid()} {time.time()} " + "y" * tokens.LONG_TEXT, "z" * 40
    for name in ("a", "a", "b", "a"):
        assert tokens._count(Spy(name), long) == len(long) // 4  # type: ignore[arg-type]
        assert tokens._count(Spy(name), short) == 10  # type: ignore[arg-type]
    assert [name for name, size in encoded if size > 40] == ["a", "b"]
    assert sum(size == 40 for _, size in encoded) == 4


@pytest.mark.parametrize("encoding", tokens.JOINED)
def test_a_text_splits_at_an_edge_without_changing_its_count(encoding):
    """What `tokens.joins` rests on: after an ASCII letter and before an ASCII character that is neither a letter
    nor `'`, the encoding's regex always ends a piece, and the next one starts the same alone. Random texts of the
    characters its regex treats apart (marks, contractions, whitespace runs, digits, surrogates, special tokens)."""
    import random
    import re

    count = get_encoding(encoding).encode_ordinary
    alphabet = [*"aZ'\" ,.:{}[]0129_-/\\\n\t\r$<|>", "é", "e\u0301", "ß", "😀", "中", "\u200b", "\xa0", "'s", "'LL"]
    alphabet += ["  ", "\n\n", "\ud800", "<|endoftext|>", "Ⅻ", "²", "\u0661"]
    rnd = random.Random(36)
    split = 0
    for _ in range(4000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 24)))
        for edge in re.finditer(tokens._EDGE, text):
            split += 1
            assert len(count(text)) == len(count(text[: edge.end()])) + len(count(text[edge.end() :])), repr(text)
    assert split > 1000
