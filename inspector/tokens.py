"""Token costs, counted offline with tiktoken's `cl100k_base` and `o200k_base`, and the Claude estimate.

Encodings load offline from the files this package ships (`mcp_review.encodings`).

Canonical serialization: a wire object is counted as `json.dumps(obj, separators=(",", ":"),
sort_keys=True, ensure_ascii=False)`, i.e. compact, keys sorted, UTF-8. A field's figure is the cost
of its member text `"key":value` on its own; BPE merges across boundaries and the braces and commas
of the whole object mean the fields do not add up exactly to the total. Every figure is for one
encoding; hosts add their own wrapping around tool definitions, so real context cost differs.

`claude` is an estimate (see `mcp_review.claude`): coder/ai-tokenizer's Claude vocabulary (MIT, shipped as
`data/encodings/claude.tiktoken.gz`) counts text, and a tool is costed the way Anthropic's API wraps it (fixed
costs per tool, description and property, calibrated by ai-tokenizer), not as its JSON text.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from json.encoder import c_encode_basestring, c_make_encoder  # type: ignore[attr-defined]
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

    import tiktoken

from mcp_review import claude
from mcp_review.encodings import ENCODINGS, UnknownEncoding, load_encoding
from mcp_review.untrusted import CUT

ESTIMATES = {"claude": claude.label}  # encodings whose figures are estimates: what to call them
DEFAULT_ENCODING = "cl100k_base"
# json.dumps with these options, minus what it builds on every call: the encoder object and its C encoder (with
# them, ~60% of a short value's cost). Without cycle marks: what is counted is JSON a server sent, which has no
# cycles (one would end in RecursionError), and marks shared by threads would see another thread's value as a cycle.
_CANONICAL = json.JSONEncoder(separators=(",", ":"), sort_keys=True, ensure_ascii=False)
_C_CANONICAL = (
    None
    if c_make_encoder is None
    else c_make_encoder(None, _CANONICAL.default, c_encode_basestring, None, ":", ",", True, False, True)
)


def canonical(obj: object) -> str:
    if _C_CANONICAL is None or isinstance(obj, str):  # a str: as JSONEncoder.encode writes it
        return _CANONICAL.encode(obj)
    return "".join(_C_CANONICAL(obj, 0))


def canonical_parts(item: object) -> tuple[str, dict[str, str] | None]:
    """`canonical(item)` and, for a dict, each member's text `"key":value` as `breakdown` counts it, no value
    serialised twice: json.dumps with sort_keys writes a dict of str keys as `{`, its members' texts in key
    order joined by `,`, then `}` (tests/unit/test_tokens_fast.py holds it to canonical() on hostile shapes)."""
    if not isinstance(item, dict):
        return canonical(item), None
    members = {str(key): f"{canonical(str(key))}:{canonical(value)}" for key, value in item.items()}
    if all(type(key) is str for key in item):
        return "{" + ",".join(members[key] for key in sorted(item)) + "}", members
    return canonical(item), members  # keys json.dumps turns into text (1, None): let it say how


# Where a text splits without changing its count: after an ASCII letter, before an ASCII character that is not a
# letter nor `'`. BPE runs on each piece the encoding's regex cuts a text into (tiktoken: `find_iter`, then each
# match on its own), and in cl100k_base's and o200k_base's regexes a letter's piece ends at such a character (a
# letter run or a contraction stops there; o200k_base takes `'s` into the word, and marks (\p{M}), all non-ASCII),
# while the piece after it starts there whatever came before (no lookbehind; the lookaheads read later text only).
# So count(a + b) == count(a) + count(b) at such a split (tests/unit/test_tokens_fast.py holds it on hostile texts).
_EDGE = r"[A-Za-z](?=[\x00-&(-@\[-`{-\x7f])"
_FIRST_EDGE = re.compile(_EDGE)
_LAST_EDGE = re.compile("(?s).*" + _EDGE)
JOINED = ("cl100k_base", "o200k_base")  # the encodings the split holds for (claude's totals are not JSON text)


def joins(members: list[str]) -> tuple[list[str], list[str]]:
    """(plus, minus): the texts whose counts make `"{" + ",".join(members) + "}"` (a dict's canonical text, see
    `canonical_parts`) from its members' counts, in the `JOINED` encodings: count(whole) == sum(count(m) for m in
    members) + sum(map(count, plus)) - sum(map(count, minus)) for a whole of at most EXACT_CHARS characters (a
    longer one is extrapolated: counted over a prefix). Each member splits at its first and last edge (`_EDGE`)
    into head, middle and tail; the whole is each middle and the pieces between them (a tail, a comma, the next
    head), which are few and alike across a server's tools: counted once, the whole costs nearly nothing more."""
    plus: list[str] = []
    minus: list[str] = []
    between = "{"  # the text from the last edge on
    for i, member in enumerate(members):
        between += "," if i else ""
        first = _FIRST_EDGE.search(member)
        last = _LAST_EDGE.match(member) if first else None
        if first is None or last is None:  # no edge: the member lies whole in the piece between its neighbours'
            between += member
            minus.append(member)
            continue
        head, tail = member[: first.end()], member[last.end() :]
        plus.append(between + head)
        minus += (head, tail)
        between = tail
    plus.append(between + "}")
    return plus, minus


EXACT_CHARS = 256 * 1024  # longer texts: counted over this many characters, the rest extrapolated
# Many texts are counted on a pool made once (tiktoken's `encode_ordinary_batch` makes one per call): its Rust
# encoder releases the GIL, so the pool's threads count on every core while the app's event loop runs.
WORKERS = min(4, os.cpu_count() or 1)
# The pool is made on first use: concurrent.futures loads then, not before a server starts (`list` starts it first).
_POOLS: list[ThreadPoolExecutor] = []
_MAKING_POOL = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    with _MAKING_POOL:
        if not _POOLS:
            from concurrent.futures import ThreadPoolExecutor

            # at the process's own priority: a lower one starved on a busy machine (issue 36: `list` took 2.23x the
            # Inspector's time beside other work, its counting threads at nice 10 waiting for the CPU)
            _POOLS.append(ThreadPoolExecutor(WORKERS, thread_name_prefix="tokens"))
        return _POOLS[0]


def shutdown() -> None:
    """End the counting threads once their work is done, as the interpreter's exit does (it joins them), for an
    exit that skips it (`mcp_review.cli.entry`); nothing is counted after this."""
    for pool in _POOLS:
        pool.shutdown(wait=True)


def _preload(encoding: str) -> None:
    load_encoding(encoding)


FEW = 256  # fewer distinct texts are counted in the caller's thread: handing them to the pool costs more
Count = Callable[[str], int]
T = TypeVar("T")


def in_background(work: Callable[[], T]) -> Future[T]:
    """`work()` on a thread of its own (`list` counts and prints while its server exits). A daemon thread: the quick
    exit never waits for it."""
    from concurrent.futures import Future

    done: Future[T] = Future()

    def run() -> None:
        try:
            done.set_result(work())
        except BaseException as e:  # handed to whoever waits, as an executor would
            done.set_exception(e)

    threading.Thread(target=run, daemon=True, name="background").start()
    return done


# Counts of long texts, kept for the process by (encoding, length, hash): a check counts one server's texts again
# for each rule and report that needs them, and a long text costs ~0.15 ms per KB (a hostile listing of thirty
# 256 K descriptions spent 2.2 s of a 7 s check in BPE). Python's string hash is keyed per process, so a server
# cannot choose a text whose key collides with another's. Bounded: emptied when full.
LONG_TEXT = 16 * 1024
_LONG_COUNTS: dict[tuple[str, int, int], int] = {}
_MAX_LONG_COUNTS = 4096


def _count(encoding: tiktoken.Encoding, text: str) -> int:
    if len(text) < LONG_TEXT:
        return len(encoding.encode_ordinary(text))
    key = (encoding.name, len(text), hash(text))
    known = _LONG_COUNTS.get(key)
    if known is None:
        counted = text[:EXACT_CHARS]
        known = round(len(encoding.encode_ordinary(counted)) * len(text) / len(counted))
        if len(_LONG_COUNTS) >= _MAX_LONG_COUNTS:
            _LONG_COUNTS.clear()
        _LONG_COUNTS[key] = known
    return known


_CUT_MARK = CUT.split("{")[0]  # what `untrusted` writes where it cut a string
DUMPED_WHOLE = 4 * EXACT_CHARS  # values sent in at most this many bytes are dumped whole (json's C encoder)


@dataclass(frozen=True)
class Figure:
    """A token count, and whether it is an estimate: part of the text was extrapolated, not counted."""

    tokens: int
    estimate: bool = False

    def __str__(self) -> str:
        return f"≈{self.tokens:,}" if self.estimate else str(self.tokens)  # as the Wire always wrote them

    @property
    def note(self) -> str:
        """What a view says after the figure, so that an estimate is never read as a count."""
        return " (an estimate: the part not counted is extrapolated by bytes)" if self.estimate else ""


def _prefix(value: object, size: int) -> tuple[str, bool]:
    """`canonical(value)` as far as it is counted (EXACT_CHARS), and whether it goes on: a 20 MB message is dumped
    only that far, by the pure-Python encoder, as dumping it whole would hold the screen for a second."""
    if size <= DUMPED_WHOLE:
        text = canonical(value)
        return text[:EXACT_CHARS], len(text) > EXACT_CHARS
    chunks, length = [], 0
    for chunk in _CANONICAL.iterencode(value):
        chunks.append(chunk)
        length += len(chunk)
        if length > EXACT_CHARS:
            return "".join(chunks)[:EXACT_CHARS], True
    return "".join(chunks), False


class TokenCounter:
    """Counts tokens of text and wire JSON with one encoding (loaded on first use, then cached).

    A text longer than EXACT_CHARS is counted over its first EXACT_CHARS characters and the count scaled to
    its length: BPE on megabytes of one server's text would take seconds per field (a hostile server can
    make every field that long), and no reviewer needs the exact cost of a megabyte description.
    """

    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        if encoding not in ENCODINGS:
            raise UnknownEncoding(encoding)
        self.encoding = encoding

    def preload(self) -> None:
        """Start building the encoding in a background thread: a command calls this before it starts its server,
        so the few hundred ms tiktoken takes to build it pass while the server starts."""
        threading.Thread(target=_preload, args=(self.encoding,), daemon=True, name="preload").start()

    def count_text(self, text: str) -> int:
        # encode_ordinary: special-token text such as <|endoftext|> counts as plain text, never an error
        return _count(load_encoding(self.encoding), text)

    def counts(self, texts: Iterable[str]) -> Callable[[], dict[str, int]]:
        """Start counting each distinct text once (`count_text`), many of them on the pool; the function returned
        waits for the counts (`mcp_review.costs` counts a snapshot's every text in one such batch)."""
        unique = list(dict.fromkeys(texts))
        encoding = load_encoding(self.encoding)

        def count_all(part: list[str]) -> dict[str, int]:
            return {text: _count(encoding, text) for text in part}

        if len(unique) < FEW or WORKERS == 1:
            counts = count_all(unique)
            return lambda: counts
        # interleaved parts, a few per thread: long and short texts mix, a thread slowed down holds up little
        pool = _pool()
        futures = [pool.submit(count_all, unique[i :: 4 * WORKERS]) for i in range(4 * WORKERS)]

        def gather() -> dict[str, int]:
            counts: dict[str, int] = {}
            for future in futures:
                counts.update(future.result())
            return counts

        return gather

    def walked(self, walk: Callable[[Count], T]) -> T:
        """`walk(count)` with each distinct text counted once, on the pool: a first walk collects the texts (the
        walks of `claude` never branch on a count), the second walks with the counts."""
        texts: list[str] = []

        def collect(text: str) -> int:
            texts.append(text)
            return 0

        walk(collect)
        return walk(self.counts(texts)().__getitem__)

    def count_json(self, obj: object) -> int:
        return self.count_text(canonical(obj))

    def count_sent(self, value: object, size: int) -> Figure:
        """The tokens of what a server sent as `size` bytes (a message, a result): the one figure the result dialog,
        the Wire and every other view show. Its canonical JSON is counted over its first EXACT_CHARS characters;
        when it is longer, or mcp-review cut strings of it (`untrusted.MAX_STRING`), the part not counted is
        extrapolated by bytes (the counted part's tokens per byte times the `size` bytes sent) and the figure is
        an estimate."""
        text, more = _prefix(value, size)
        tokens = len(load_encoding(self.encoding).encode_ordinary(text))
        if not more and _CUT_MARK not in text:
            return Figure(tokens)
        counted = len(text.encode(errors="replace")) or 1
        return Figure(round(tokens * max(size, counted) / counted), estimate=True)

    def count_tool(self, tool: object) -> int:
        """One tool definition: its JSON text, or for an estimate the host's wrapping of it (none for a tool that is
        not an object: no host wraps one)."""
        if self.encoding == "claude":
            return claude.tool_cost(tool, self.count_text)
        return self.count_json(tool)

    def breakdown(self, item: object) -> dict[str, int]:
        """{"total": N, key: N, ...}: the whole object (`count_tool`), then each member `"key":value` in wire order."""
        return self.figures(item, *canonical_parts(item), self.count_text)

    def figures(self, item: object, whole: str, members: dict[str, str] | None, count: Count) -> dict[str, int]:
        """`breakdown` of `item` from its `canonical_parts`, each text counted by `count`."""
        total = claude.tool_cost(item, count) if self.encoding == "claude" else count(whole)  # as `count_tool`
        return {"total": total} | {key: count(text) for key, text in (members or {}).items()}

    def tools_total(self, tools: list[object], text: str | None = None) -> int:
        """The whole `tools` array as one JSON text (an estimate: as the host wraps the list); `text` is that
        text where the caller has it already."""
        if self.encoding == "claude":
            return self.walked(lambda count: claude.tools_cost(tools, count))
        return self.count_text(canonical(tools) if text is None else text)
