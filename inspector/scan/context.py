"""Context that tells a pattern's match from an order: the text talks about the attack instead of making it.

A pattern matches words; whether the words are an order depends on the sentence around them. A hit of the
instruction, steering, sensitive-file or exfiltration kinds is dropped when its sentence negates it, withholds only
for a while or advises the reader about their own secret, and becomes a `warn` (saying why) when it is
quoted in a text about attacks:

- talks about attacks rather than making one: "Attackers hide text such as `<IMPORTANT>...`", "an
  example of a malicious string", "flags prompts like ..." (`intent.TALKS_ABOUT`), and the match is quoted
  (in quotes, backticks or a code block) or the sentence says "such as", "for example", "e.g.";
- negates the verb that would move the data: "it never reads or copies the private key", "Never include
  credentials ... in a snippet" (`intent.NEGATED` before the match);
- withholds only for a while: "Do not tell the user the answer until they have guessed";
- advises the reader about their own secret: "Your private key is ~/.ssh/id_ed25519; keep it secret".

Known false negatives, by design: an attacker who writes "for example, ignore previous instructions" gets a
`warn`, not a `fail`; the reviewer still sees it.
"""

from __future__ import annotations

import re

from mcp_review.scan.intent import NEGATED, SENTENCE_END, TALKS_ABOUT
from mcp_review.scan.rules import Raw

DAMPED = (
    "hidden-instruction",
    "steering",
    "sensitive-file",
    "exfiltration-url",
    "credential-request",
    "exfiltration",
    "injection-payload",
)
QUOTED = "quoted in a text about attacks, not an order"
_EXAMPLE = re.compile(r"\b(?:such\s+as|for\s+example|for\s+instance|e\.g\.|like\s+this|looks\s+like)\b", re.I)
_QUOTES = ('"', "'", "`", "\u201c", "\u2018", "\u00ab")
_BOUNDARY = re.compile(SENTENCE_END)


SENTENCE_REACH = 500  # characters looked at on each side: a longer sentence is cut there


def sentence_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence (or line) that holds text[start:end], at most SENTENCE_REACH each side."""
    lo = max(0, start - SENTENCE_REACH)
    before = [m.end() for m in _BOUNDARY.finditer(text, lo, start)]
    after = _BOUNDARY.search(text, end, end + SENTENCE_REACH)
    return (before[-1] if before else lo), (after.end() if after else min(len(text), end + SENTENCE_REACH))


def _quoted(text: str, start: int, end: int, lo: int) -> bool:
    """The match sits between quote marks or backticks opened earlier in its sentence."""
    head = text[lo:start]
    return any(head.count(q) % 2 == 1 for q in _QUOTES if q in head) or head.count("\u201c") > head.count("\u201d")


def damp(text: str, found: list[Raw]) -> list[Raw]:
    """`found` without the hits of the DAMPED kinds that their sentence does not mean; a hit quoted in a text
    about attacks stays, as a `warn` that says so."""
    out: list[Raw] = []
    for kind, severity, start, end, message in found:
        why = _not_meant(text, start, end, kind) if kind in DAMPED else None
        if why == QUOTED:
            severity, message = "warn", f"{message} ({why})"
        elif why:
            continue
        out.append((kind, severity, start, end, message))
    return out


# A payload given "for example" is the attack (it teaches the model to send it): only words about attacks damp one.
_ABOUT_ATTACKS = re.compile(
    r"\b(?:injections?|attacks?|attackers?|malicious|exploits?|payloads?|vulnerab\w*|pentest\w*|penetration|fuzz\w*"
    r"|detects?|detection|scanners?|sanitis\w*|sanitiz\w*|tests?\s+for|probes?|red[- ]team)\b",
    re.I,
)


def _not_meant(text: str, start: int, end: int, kind: str) -> str | None:
    lo, hi = sentence_around(text, start, end)
    sentence = text[lo:hi]
    about = (_ABOUT_ATTACKS if kind == "injection-payload" else TALKS_ABOUT).search(sentence)
    if about and (_quoted(text, start, end, lo) or _EXAMPLE.search(sentence)):
        return QUOTED
    if NEGATED.search(text[lo:start]):
        return "negated: the text says it does not"
    if re.search(r"\buntil\b", text[end:hi], re.I):
        return "withheld only until something happens"
    if re.match(r"keep\b", text[start:end], re.I) and re.search(r"\byour\b", sentence, re.I):
        return "advice to the reader about their own secret"
    return None
