"""Everything a server sends is hostile: parse it with bounds, and make it safe before anyone uses it.

`parse_message` turns one received JSON text into a value the rest of mcp-review can walk, print and
export without crashing, hanging or running out of memory:

- a message with more than MAX_ITEMS values is refused (32 MB of `[{},{},...]` would be gigabytes);
- nesting deeper than MAX_DEPTH is cut (the deep part becomes a marker string), so no walker over
  server data (ours, jsonschema's, the JSON encoder's) can reach Python's recursion limit;
- integers longer than Python parses by default (4,300 digits) become a marker string, not an error;
- the non-finite numbers JSON does not have (`NaN`, `Infinity`, `-Infinity`, and a literal beyond a double
  such as `1e999`) become the string of their literal, so every export stays strict JSON (RFC 8259): they
  read back as the same strings, and the note says the server sent numbers;
- lone surrogates (`"\\ud800"`) become U+FFFD, so printing or encoding never raises;
- strings longer than MAX_STRING are cut, with a marker (CUT) that says how long they were; once the
  wire log holds as much as it may (see `wire.WIRE_BUDGET`), the caller passes a much smaller limit;
- every secret the server was given is masked (see `redact`).

Each change is described in `notes`, which the wire log keeps beside the message: what the review
shows is what the server sent, except where a note says otherwise. The checks that find out whether any
of this is needed run at C speed on the raw text; the walks over the value run only when they are.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from mcp_review.redact import MASK, Redactor, map_strings

MAX_DEPTH = 64  # JSON nesting kept; deeper parts become DEEP
MAX_ITEMS = 2_000_000  # values (containers and members) in one message
MAX_STRING = 256 * 1024  # characters of one string kept
MAX_INT_DIGITS = 4300  # Python's own default limit for int(str)
DEEP = f"<nested deeper than {MAX_DEPTH} levels: not kept by mcp-review>"
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
CUT = "…[cut by mcp-review: {:,} characters in all]"
_CUT = re.compile(r"…\[cut by mcp-review: ([\d,]+) characters in all\]$")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# A literal that may be beyond a double has a three-digit exponent or 300 digits. With its digits written as 0 and
# E as e, in bytes, a text is searched for those at memchr speed: the two regular expressions this replaces tried
# every position, 2-4 ms per 200 KB, on every message (a flood of 200 KB messages spent a quarter of a check
# there). In slices, so a 32 MB message is not copied whole twice more; JSON's digits are ASCII.
_FOLD_NUMBERS = bytes.maketrans(b"123456789E", b"000000000e")
_DIGIT_RUN = b"0" * 300
_SLICE = 1 << 20


class Unusable(ValueError):
    """The text cannot be turned into a safe value (not JSON, or too big to hold)."""


@dataclass
class Parsed:
    value: Any
    notes: list[str] = field(default_factory=list)
    removed: int = 0  # characters cut from long strings


def original_length(text: str) -> int:
    """The length a string had before mcp-review cut it (its own length when it was not cut)."""
    match = _CUT.search(text[-60:])
    return int(match.group(1).replace(",", "")) if match else len(text)


@functools.cache
def _long_run(limit: int) -> re.Pattern[str]:
    """A string of more than `limit` characters without a quote: found at C speed, no walk needed."""
    return re.compile(rf'"[^"]{{{limit}}}')


def _items(text: str) -> int:
    """An upper bound of the values in a JSON text (containers and members): counted at C speed."""
    return text.count("{") + text.count("[") + text.count(",")


def _items_in_strings(text: str) -> int:
    """How many of those characters are inside strings (the rare, slow path: one string at a time)."""
    return sum(_items(m.group(0)) for m in _STRING.finditer(text))


def depth_of(value: Any) -> int:
    """How deeply containers nest in `value` (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return deepest


def _cut_deep(text: str) -> str:
    """`text` with every value nested deeper than MAX_DEPTH replaced by the DEEP marker (still valid JSON)."""
    out: list[str] = []
    depth, kept_to, cut_from = 0, 0, -1
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if token in "[{":
            depth += 1
            if depth == MAX_DEPTH + 1 and cut_from < 0:
                cut_from = match.start()
        elif token in "]}":
            depth -= 1
            if depth == MAX_DEPTH and cut_from >= 0:
                out += [text[kept_to:cut_from], json.dumps(DEEP)]
                kept_to, cut_from = match.end(), -1
    out.append(text[kept_to:])
    return "".join(out)


def _huge_int(digits: str) -> Any:
    count = len(digits.lstrip("-"))
    return int(digits) if count <= MAX_INT_DIGITS else f"<integer of {count} digits: not parsed by mcp-review>"


def _may_overflow(text: str) -> bool:
    """Whether `text` may hold a number literal beyond a double (a false yes only costs Python's float parser)."""
    for start in range(0, len(text), _SLICE):
        piece = text[start : start + _SLICE + len(_DIGIT_RUN)]  # overlapping: a run across two slices is found
        folded = piece.encode("utf-8", "surrogatepass").translate(_FOLD_NUMBERS)
        if b"e000" in folded or b"e+000" in folded or _DIGIT_RUN in folded:
            return True
    return False


def _strict(text: str, notes: list[str], parse_int: Any = None) -> Any:
    """`json.loads` with the non-finite numbers kept as the strings of their literals, and a note when there were
    any. Floats go through Python only when the text has a literal that could overflow (checked at C speed)."""
    found: list[str] = []

    def constant(literal: str) -> str:  # NaN, Infinity, -Infinity: Python's parser takes them, JSON does not
        found.append(literal)
        return literal

    def finite(literal: str) -> float | str:
        value = float(literal)
        if math.isfinite(value):
            return value
        found.append(literal[:24])
        return literal

    big = finite if _may_overflow(text) else None
    value = json.loads(text, parse_constant=constant, parse_float=big, parse_int=parse_int)
    note = f"non-finite numbers are not JSON: {', '.join(sorted(set(found))[:3])} kept as strings"
    if found and note not in notes:
        notes.append(note)
    return value


def _loads(text: str, notes: list[str]) -> Any:
    try:
        value = _strict(text, notes)
    except RecursionError:
        value = _strict(_cut_deep(text), notes)
        notes.append(f"nested deeper than {MAX_DEPTH} levels: the deeper part is not kept")
        return value
    except ValueError as e:
        if "integer string conversion" not in str(e):
            raise
        notes.append(f"an integer longer than {MAX_INT_DIGITS} digits is kept as a marker string")
        return _loads_cut(_strict(text, notes, _huge_int), text, notes)
    return _loads_cut(value, text, notes)


def _loads_cut(value: Any, text: str, notes: list[str]) -> Any:
    if text.count("{") + text.count("[") <= MAX_DEPTH or depth_of(value) <= MAX_DEPTH:  # the count: at C speed
        return value
    notes.append(f"nested deeper than {MAX_DEPTH} levels: the deeper part is not kept")
    return _strict(_cut_deep(text), notes, _huge_int)


def parse_message(text: str, redactor: Redactor | None = None, max_string: int = MAX_STRING) -> Parsed:
    """Parse one message received from a server, within the bounds above. Raises `Unusable`."""
    notes: list[str] = []
    items = _items(text)
    if items > MAX_ITEMS and items - _items_in_strings(text) > MAX_ITEMS:
        raise Unusable(f"a message of over {MAX_ITEMS:,} values is not kept")
    try:
        value = _loads(text, notes)
    except (ValueError, RecursionError) as e:
        raise Unusable(f"not JSON: {e}") from None
    parsed = Parsed(value, notes)
    parsed.value = clean(parsed, text, redactor, max_string)
    return parsed


def clean(parsed: Parsed, text: str, redactor: Redactor | None, max_string: int = MAX_STRING) -> Any:
    """Surrogates, long strings and secrets, each done only when the raw `text` shows it is needed.

    Secrets are looked for in what is kept: where strings were cut, in the kept value written as JSON, not in the
    raw text. A secret past a cut is not kept, so it need not be masked, and looking for one costs a pass of the
    masking automata per character: a server returning 28 MB of base64 per call spent 60% of a check there (6.5 s
    of 10). The JSON holds every kept string with its escapes decoded, so no form of a secret is missed."""
    surrogates = bool(_SURROGATE_ESCAPE.search(text))
    long = len(text) > max_string and bool(_long_run(max_string).search(text))
    value = parsed.value
    if surrogates or long:
        cut: list[int] = []

        def fix(s: str) -> str:
            if surrogates and LONE_SURROGATE.search(s):
                s = LONE_SURROGATE.sub("\ufffd", s)
            if long and len(s) > max_string:
                cut.append(len(s))
                s = s[:max_string] + CUT.format(len(s))
            return s

        value = map_strings(value, fix)
        if surrogates:
            parsed.notes.append("lone surrogates (invalid Unicode) are shown as U+FFFD")
        if cut:
            parsed.removed = sum(cut) - len(cut) * max_string
            longest = f"the longest had {max(cut):,}"
            parsed.notes.append(f"{len(cut)} string(s) over {max_string:,} characters cut ({longest})")
            text = json.dumps(value, ensure_ascii=False)
    if redactor is not None and redactor.needed(text):
        value = map_strings(value, redactor.text)
        parsed.notes.append("secret values masked")
    return value


ECHOED = ("nextCursor", "requestState")  # what a client sends back of a result: the next page's cursor, the state


def raw_echoes(value: Any, text: str) -> dict[str, str]:
    """The strings of `value`'s result that a client sends back (`ECHOED`) as `text` holds them, where parsing
    changed them.

    They are opaque: a server may sign, decode or compare them, and `parse_message` cuts a long string, masks the
    secrets it was given and shows a lone surrogate as U+FFFD, for the review to show. Sent back so, a cursor
    would end the listing with an error of mcp-review's making, two long cursors alike up to the cut would look
    like a loop, and a state would be refused. So the reply carries the raw ones (`Reply.echo`) beside the shown
    value, which stays what everything else reads and keeps. The text is read again only when a shown one bears
    a mark of change (cut, masked, U+FFFD)."""
    result = value.get("result") if isinstance(value, dict) else None
    if not isinstance(result, dict):
        return {}
    marked = [key for key in ECHOED if isinstance(result.get(key), str) and _changed(result[key])]
    if not marked:
        return {}
    try:
        raw = json.loads(text)["result"]
    except (ValueError, RecursionError, KeyError, TypeError):  # a text parse_message needed its bounds for
        return {}
    return {key: raw[key] for key in marked if isinstance(raw.get(key), str) and raw[key] != result[key]}


def _changed(shown: str) -> bool:
    """Whether `parse_message` may have changed this string: cut, masked, or a lone surrogate replaced."""
    return MASK in shown or "\ufffd" in shown or original_length(shown) != len(shown)


def safe_text(text: str, redactor: Redactor | None = None) -> str:
    """A line of text from a server (stderr, a body that is not JSON): no lone surrogates, secrets masked."""
    if LONE_SURROGATE.search(text):
        text = LONE_SURROGATE.sub("\ufffd", text)
    return redactor.text(text) if redactor is not None else text


def _refuse(literal: str) -> Any:
    raise ValueError(f"{literal} is not a JSON number (RFC 8259)")


def strict_loads(text: str) -> Any:
    """`json.loads` for JSON the reviewer typed (call arguments): `NaN` and `Infinity` refused, as RFC 8259 says,
    so nothing mcp-review sends, logs or exports holds a number JSON does not have. Raises ValueError."""
    return json.loads(text, parse_constant=_refuse)


def loads(text: str) -> Any:
    """`json.loads` for text that came from a server (a text block, a metadata document), within the same
    bounds as a message. Raises `Unusable` (a ValueError)."""
    return parse_message(text).value
