"""What every pattern module of the scanner shares: the raw hit, the rule and its judge, and a few pieces.

A pattern module (`instructions`, `exfiltration`) lists `Rule`s and `run_rules` runs them over the view
(`normalise`); a module whose matches need more than a regex and a judge (`credentials`, the sensitive
files in `exfiltration`) writes its own function returning `Raw` hits. Spans are in the view; the driver
(`scanner`) maps them back to the original text, merges and quotes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from mcp_review.text import visible

# (kind, severity, start, end, message), before merging and quoting
Raw = tuple[str, str, int, int, str]
# A judge refines a match: (severity, message), or None to drop it. It sees the whole (stripped) text.
Judge = Callable[[re.Match[str], str], tuple[str, str] | None]


@dataclass(frozen=True)
class Rule:
    kind: str
    severity: str
    pattern: re.Pattern[str]
    message: str  # str.format with {m} (the match) and the named groups, each made visible and short
    needles: tuple[str, ...] = ()  # the rule is skipped unless one occurs in the lower-cased text
    judge: Judge | None = None


def snip(s: str | None, limit: int = 60) -> str:
    """`s` on one line, made visible and cut at `limit` characters, for a message."""
    s = " ".join((s or "").split())
    return visible(s[:limit], newlines=False) + ("…" if len(s) > limit else "")


SECRET_SHOWN = 8  # characters of a credential shown: enough for its vendor prefix, not for its value


def masked(secret: str) -> str:
    """A credential as findings show it: its first SECRET_SHOWN characters (the prefix) and its length."""
    return f"{snip(secret[:SECRET_SHOWN], SECRET_SHOWN)}… ({len(secret)} characters)"


def any_of(needles: tuple[str, ...] | frozenset[str]) -> re.Pattern[str]:
    """One pattern that finds any of `needles` (lower-case substrings) in a lower-cased text: a single regex pass
    instead of one `in` test per needle, which every text pays."""
    return re.compile("|".join(re.escape(n) for n in sorted(needles, key=len, reverse=True)))


def word_set(words: str) -> frozenset[str]:
    """A word list written as one space-separated string (the scanner's vocabularies)."""
    return frozenset(words.split())


def identifier_words(name: str) -> list[str]:
    """`maxTokens`, `max_tokens` and `max-tokens` as the lower-case words ["max", "tokens"]."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_\-.\s]+", " ", name).lower().split()


def _message(rule: Rule, m: re.Match[str]) -> str:
    groups = {k: snip(v, 40) for k, v in m.groupdict().items()}
    return rule.message.format(m=snip(m.group()), **groups)


def rx(pattern: str, flags: int = re.I) -> re.Pattern[str]:
    """A compiled pattern, case-insensitive unless told."""
    return re.compile(pattern, flags)


# A line break inside a sentence: the next line goes on in lower case, as a wrapped docstring does ("pass its
# content\n    as 'sidenote'"); a break before a capital, a bullet or a blank line ends the sentence.
GOES_ON = r"[ \t]*[a-z(]"
CONTINUED = rf"\n(?={GOES_ON})"
# Up to the end of a sentence: punctuation followed by a non-space ("~/.ssh", "e.g.,") does not end it.
SENTENCE = rf"(?:[^.!?\n]|[.!?](?=\S)|{CONTINUED})"
URL = r"https?://[^\s\"'`<>()\[\]{}]*[^\s\"'`<>()\[\]{}.,;:!?]"
URL_RE = rx(URL)
TRANSFER = rx(
    r"\b(?:pass|send|upload|include|attach|cop(?:y|ie)|post|forward|share|leak|exfiltrat|cat|print|output|dump"
    r"|e-?mail|append|paste|embed|transmit)(?:es|s|ed|ing|e|ion)?\b|\bcontents?\s+of\b|\b(?:its|their)\s+contents?\b"
)


def run_rules(rules: list[Rule], view: str, lowered: str) -> list[Raw]:
    """Every match of `rules` in the view, judged; a rule none of whose needles is in `lowered` is skipped."""
    raw: list[Raw] = []
    for rule in rules:
        if rule.needles and not any(n in lowered for n in rule.needles):
            continue
        for m in rule.pattern.finditer(view):
            if rule.judge is not None:
                judged = rule.judge(m, view)
                if judged is None:
                    continue
                severity, message = judged
            else:
                severity, message = rule.severity, _message(rule, m)
            raw.append((rule.kind, severity, m.start(), m.end(), message))
    return raw
