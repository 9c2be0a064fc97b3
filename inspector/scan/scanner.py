"""The scanner's driver: `scan_text` runs every kind over a text and returns merged, quoted `Hit`s.

Order: the hidden text first (`normalise`: escapes and invisible characters, reported and removed from
the view), then on the view the instructions and the steering, the sensitive files (`fail` when the text also
instructs the model), the credential variables asked for, the data moved in prose, the exfiltration URLs, the
credentials (named, in known formats, labelled) and the high-entropy strings (skipping credentials and the keys
vendors publish as examples). Spans are mapped back to the original text; overlapping or touching
hits of one kind are merged, keeping the worst severity. Each hit quotes its span made visible
(`mcp_review.text.visible`) between « » with ~30 characters of context. Rich-style markup such as `[bold red]`
is inert text here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from mcp_review.scan import active, fold, intent
from mcp_review.scan.context import damp
from mcp_review.scan.credentials import credentials, high_entropy, labelled
from mcp_review.scan.detectors import documented_spans, vendor_formats
from mcp_review.scan.envvars import credential_requests
from mcp_review.scan.exfiltration import EXFILTRATION
from mcp_review.scan.files import sensitive_files
from mcp_review.scan.flows import flows
from mcp_review.scan.instructions import INSTRUCTIONS
from mcp_review.scan.normalise import neutralise, to_original
from mcp_review.scan.payloads import payloads
from mcp_review.scan.rules import Raw, masked, run_rules, snip
from mcp_review.scan.steering import steering
from mcp_review.text import visible

_RANK = {"warn": 0, "fail": 1}
CONTEXT = 30  # characters of context quoted on each side of a span
SPAN_SHOWN = 100  # a longer span is cut in the quote (so a quote stays under ~165 characters)
SHORT = 200  # texts this short (names, property names, enum values: they repeat across tools) are remembered


@dataclass(frozen=True)
class Hit:
    kind: str  # hidden-instruction, credential, high-entropy, invisible-character, escape-sequence, ...
    severity: str  # "fail" (clearly hostile or a real credential) or "warn" (suspicious, may be benign)
    start: int  # span in the scanned text
    end: int
    quote: str  # the span made visible between « », with context
    message: str  # one line: what it is and why it matters


def _merge(raw: list[Raw]) -> list[Raw]:
    """Sorted by start; overlapping (or touching) hits of one kind become one, keeping the worst severity."""
    out: list[list[object]] = []
    last: dict[str, list[object]] = {}
    for kind, severity, start, end, message in sorted(raw, key=lambda r: (r[2], -r[3], -_RANK[r[1]])):
        prev = last.get(kind)
        if prev is not None and start <= prev[3]:  # type: ignore[operator]
            prev[3] = max(prev[3], end)  # type: ignore[call-overload]
            if _RANK[severity] > _RANK[prev[1]]:  # type: ignore[index]
                prev[1], prev[4] = severity, message
            continue
        entry: list[object] = [kind, severity, start, end, message]
        out.append(entry)
        last[kind] = entry
    return [(str(k), str(s), int(a), int(b), str(msg)) for k, s, a, b, msg in out]  # type: ignore[call-overload]


SECRET_KINDS = ("credential", "high-entropy")  # quoted masked: a finding must never carry the secret it found


def quote(text: str, start: int, end: int, secret: bool = False) -> str:
    """The span made visible between « », with ~30 characters of context each side, on one line; a `secret`
    span shows only its prefix and length."""
    span = masked(text[start:end]) if secret else visible(text[start:end], newlines=False)
    if len(span) > SPAN_SHOWN:
        span = span[: SPAN_SHOWN - 1] + "…"
    before = visible(text[max(0, start - CONTEXT) : start], newlines=False)[-CONTEXT:]
    after = visible(text[end : end + CONTEXT], newlines=False)[:CONTEXT]
    lead = "…" if start > CONTEXT else ""
    tail = "…" if end + CONTEXT < len(text) else ""
    return f"{lead}{before}«{span}»{after}{tail}"


def _patterns(view: str, purpose: str = "") -> list[Raw]:
    """Every pattern kind and every sentence's intent over one view, context applied (spans in the view).
    A sentence's intent is added where no pattern already says as much about it: the pattern's message is the
    more precise. `purpose`: the name and title of the tool the text describes (steering is judged against it)."""
    lowered = view.lower()
    found = damp(view, run_rules(INSTRUCTIONS, view, lowered) + steering(view, lowered, purpose))
    instructed = any(_RANK[h[1]] for h in found)
    moved = sensitive_files(view, lowered, instructed, purpose) + credential_requests(view, lowered)
    moved += flows(view, lowered, purpose) + payloads(view, lowered)
    found += damp(view, moved + run_rules(EXFILTRATION, view, lowered))
    for m, judged in intent.judge_text(view):
        said = [h for h in found if h[2] < m.end() and m.start() < h[3] and _RANK[h[1]] >= _RANK[judged.severity]]
        if not said:
            found.append((judged.kind, judged.severity, m.start(), m.end(), f"{judged.why}: '{snip(m.group(), 60)}'"))
    return found


def _evasions(text: str, seen: list[Raw], purpose: str) -> list[Raw]:
    """What only a view that undoes an evasion shows (`fold.views`), as `fail`s of kind evasion saying what
    was hidden and how, on the original span; and words that mix scripts to look like others."""
    found: list[Raw] = [
        ("evasion", "fail", a, b, f"'{snip(text[a:b], 40)}' mixes Latin with look-alike letters of another script")
        for a, b in fold.mixed_script_words(text)
    ]
    plain = [(a, b) for _k, sev, a, b, _m in seen if sev == "fail"]
    for view in fold.views(text)[1:]:
        how = ", ".join(sorted(view.techniques))
        for _kind, severity, a, b, message in _patterns(view.text, purpose):
            start, end = view.span(a, b)
            if severity == "fail" and not any(s < end and start < e for s, e in plain):
                found.append(("evasion", "fail", start, end, f"hidden by {how}: {message}"))
                plain.append((start, end))
    return found


def scan_text(text: str, purpose: str = "") -> list[Hit]:
    """Every hostile or leaky span in `text`, sorted by start; overlapping hits of one kind merged. `purpose`:
    the name and title of the tool `text` belongs to, if any (an order that is the tool's function is not
    steering). A short text is scanned once per process: a server repeats its property names, enum values and
    boilerplate on every tool (the cache is bounded in entries and in each entry's size)."""
    if not text:
        return []
    return list(_scan_short(text, purpose)) if len(text) <= SHORT else _scan(text, purpose)


@functools.lru_cache(maxsize=16384)
def _scan_short(text: str, purpose: str) -> tuple[Hit, ...]:
    return tuple(_scan(text, purpose))


def _scan(text: str, purpose: str) -> list[Hit]:
    raw, view, index = neutralise(text)
    found = _patterns(view, purpose)
    leaked = credentials(view, view.lower())
    leaked += vendor_formats(view, [(h[2], h[3]) for h in leaked])
    leaked += labelled(view, [(h[2], h[3]) for h in leaked])
    found += leaked + high_entropy(view, [(h[2], h[3]) for h in leaked] + documented_spans(view))
    found = to_original(found, index)
    found += [("active-content", sev, a, b, msg) for a, b, sev, msg in active.find(text)]
    found += _evasions(text, raw + found, purpose)
    return [Hit(k, s, a, b, quote(text, a, b, k in SECRET_KINDS), m) for k, s, a, b, m in _merge(raw + found)]
