"""Find hostile or leaky text in what a server says about itself (tool poisoning, leaked credentials).

`scan_text(text)` returns hits, each quoting the offending span made visible:
- hidden-instruction: text aimed at the model rather than describing the tool (`<IMPORTANT>` tags,
  "ignore previous instructions", "do not tell the user", "before using this tool ... read/send").
- sensitive-file: reading ~/.ssh, id_rsa, .env, cloud credentials, /etc/shadow and the like.
- exfiltration-url: sending or uploading data to a URL, `curl ... | sh`.
- credential: key/token/password assignments and known key formats (AWS, GitHub, Slack, OpenAI,
  Anthropic, Google, Stripe, JWT, PEM private keys); placeholders such as `YOUR_API_KEY` are ignored.
- high-entropy: long random-looking tokens (Shannon entropy >= 4.0 bits/char over >= 24 characters
  with letters and digits mixed; UUIDs and hex digests of known lengths are ignored as identifiers).
- invisible-character: zero-width, bidi controls, tag characters (whose hidden ASCII is decoded).
- escape-sequence: ANSI CSI / OSC sequences and other C0 control characters.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from inspector.text import INVISIBLE, visible

BIDI = {0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}
_I = re.I | re.S

INSTRUCTIONS = [
    (
        re.compile(r"<\s*(important|system|instructions?|secret|hidden|admin)\s*>", re.I),
        "a <{0}> tag aimed at the model",
    ),
    (
        re.compile(
            r"\b(ignore|disregard|forget)\s+(all\s+)?(the\s+)?(previous|prior|above|earlier)\s+(instructions|rules|prompts?)",
            re.I,
        ),
        "an instruction to ignore previous instructions",
    ),
    (
        re.compile(
            r"\b(do\s*n[o']t|never|must\s+not)\s+(tell|mention|inform|show|reveal\s+to|notify)\s+(this\s+to\s+)?(the\s+)?user",
            re.I,
        ),
        "an instruction to hide something from the user",
    ),
    (
        re.compile(r"\bthe\s+user\s+(must|should)\s+not\s+(know|see|be\s+told)", re.I),
        "an instruction to hide something from the user",
    ),
    (
        re.compile(
            r"\bbefore\s+(using|calling|invoking)\s+(this|any)\s+tool\b.{0,120}?\b(read|call|pass|send|include|fetch|upload)\b",
            _I,
        ),
        "an instruction to act before using the tool",
    ),
    (
        re.compile(r"\b(secretly|silently|quietly|covertly)\s+(send|upload|read|copy|forward|post|include|call)", re.I),
        "an instruction to act covertly",
    ),
    (
        re.compile(r"\b(you are now|act as|pretend to be|from now on you)\b", re.I),
        "a role-play instruction to the model",
    ),
    (re.compile(r"\b(system prompt|developer message)\b", re.I), "text about the model's system prompt"),
]
SENSITIVE_FILES = re.compile(
    r"(~/\.ssh\b|\.ssh/|\bid_(rsa|ed25519|ecdsa|dsa)\b|(?<![\w.])\.env\b|\.aws/credentials|\.netrc\b|/etc/(passwd|shadow)\b|"
    r"\.kube/config|\.npmrc\b|\.pypirc\b|\.docker/config\.json|\bkeychain\b|cookies\.sqlite|\bprivate key\b)",
    re.I,
)
EXFILTRATION = [
    re.compile(r"\b(send|post|upload|forward|transmit|exfiltrate|submit)\b[^.\n]{0,80}?\bto\s+https?://\S+", re.I),
    re.compile(r"\bcurl\b[^|\n]{0,200}\|\s*(ba|z)?sh\b", re.I),
    re.compile(
        r"https?://[^\s\"'<>]*(webhook|requestbin|ngrok|pipedream|burpcollaborator|interact\.sh)[^\s\"'<>]*", re.I
    ),
]
KEY_FORMATS = [
    (re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"), "an AWS access key id"),
    (re.compile(r"\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{40,}"), "a GitHub token"),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), "a Slack token"),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), "an Anthropic API key"),
    (re.compile(r"\bsk-(proj-)?[A-Za-z0-9_-]{20,}"), "an OpenAI API key"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), "a Google API key"),
    (re.compile(r"\b(sk|rk)_live_[0-9A-Za-z]{16,}"), "a Stripe live key"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), "a JWT"),
    (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"), "a PEM private key"),
]
ASSIGNMENT = re.compile(
    r"\b(api[_-]?key|apikey|secret|token|password|passwd|pwd|access[_-]?key|client[_-]?secret|auth)\b\s*[:=]\s*"
    r"[\"']?([^\s\"',;]{6,})",
    re.I,
)
BEARER = re.compile(r"\bAuthorization\s*:\s*Bearer\s+([A-Za-z0-9._~+/=-]{12,})", re.I)
PLACEHOLDER = re.compile(
    r"^(your|my|<|\$\{|\{\{|x{3,}|\.{3}|\*{3,}|example|changeme|placeholder|redacted|none|null|"
    r"string|sk-\.\.\.|token_here|<token>)",
    re.I,
)
RANDOMISH = re.compile(r"[A-Za-z0-9+/_=-]{24,}")
IDENTIFIER = re.compile(
    r"^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64})$", re.I
)
ESCAPE = re.compile(
    r"\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b.|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
)


@dataclass(frozen=True)
class Hit:
    kind: str
    severity: str  # "fail" or "warn"
    start: int
    end: int
    quote: str
    message: str


def _quote(text: str, start: int, end: int) -> str:
    before = text[max(0, start - 30) : start]
    after = text[end : end + 30]
    return visible(
        f"{'…' if start > 30 else ''}{before}«{text[start:end]}»{after}{'…' if end + 30 < len(text) else ''}",
        200,
        newlines=False,
    )


def _entropy(s: str) -> float:
    counts = Counter(s)
    return -sum(c / len(s) * math.log2(c / len(s)) for c in counts.values())


def _hit(text: str, kind: str, severity: str, start: int, end: int, message: str) -> Hit:
    return Hit(kind, severity, start, end, _quote(text, start, end), message)


def _characters(text: str) -> list[Hit]:
    hits: list[Hit] = []
    tags = [(i, ch) for i, ch in enumerate(text) if 0xE0000 <= ord(ch) <= 0xE007F]
    if tags:
        hidden = "".join(chr(ord(ch) - 0xE0000) for _, ch in tags if 0x20 <= ord(ch) - 0xE0000 < 0x7F)
        hits.append(
            _hit(
                text,
                "invisible-character",
                "fail",
                tags[0][0],
                tags[-1][0] + 1,
                f"tag characters smuggle hidden text: {hidden[:80]!r}",
            )
        )
    for i, ch in enumerate(text):
        code = ord(ch)
        if code in BIDI:
            hits.append(
                _hit(text, "invisible-character", "fail", i, i + 1, f"bidi control U+{code:04X} can disguise text")
            )
        elif code in INVISIBLE:
            hits.append(_hit(text, "invisible-character", "warn", i, i + 1, f"invisible character U+{code:04X}"))
    for m in ESCAPE.finditer(text):
        kind = "an OSC sequence (terminal hyperlink or title)" if m.group().startswith("\x1b]") else "a terminal escape"
        hits.append(_hit(text, "escape-sequence", "fail", m.start(), m.end(), f"{kind} in server text"))
    return hits


def _credentials(text: str) -> list[Hit]:
    hits: list[Hit] = []
    for pattern, what in KEY_FORMATS:
        hits += [
            _hit(text, "credential", "fail", m.start(), m.end(), f"looks like {what}") for m in pattern.finditer(text)
        ]
    for pattern in (ASSIGNMENT, BEARER):
        for m in pattern.finditer(text):
            value = m.group(m.lastindex or 0)
            if not PLACEHOLDER.match(value) and sum(c.isdigit() for c in value) + sum(c.isupper() for c in value) >= 2:
                hits.append(_hit(text, "credential", "fail", m.start(), m.end(), "a credential written into the text"))
    for m in RANDOMISH.finditer(text):
        token = m.group()
        mixed = any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
        if mixed and not IDENTIFIER.match(token) and "/" not in token and _entropy(token) >= 4.0:
            hits.append(_hit(text, "high-entropy", "warn", m.start(), m.end(), "a high-entropy string (a secret?)"))
    return hits


def scan_text(text: str) -> list[Hit]:
    hits = _characters(text)
    if text.isascii() and len(text) < 12:
        return hits
    for pattern, what in INSTRUCTIONS:
        for m in pattern.finditer(text):
            hits.append(
                _hit(
                    text,
                    "hidden-instruction",
                    "fail",
                    m.start(),
                    m.end(),
                    "instruction aimed at the model: " + what.format(m.group(1) if m.groups() else ""),
                )
            )
    hits += [
        _hit(text, "sensitive-file", "fail", m.start(), m.end(), f"mentions a sensitive file: {m.group()!r}")
        for m in SENSITIVE_FILES.finditer(text)
    ]
    for pattern in EXFILTRATION:
        hits += [
            _hit(text, "exfiltration-url", "fail", m.start(), m.end(), "sends data to a URL")
            for m in pattern.finditer(text)
        ]
    hits += _credentials(text)
    return _merge(hits)


def _merge(hits: list[Hit]) -> list[Hit]:
    """Sorted by position; overlapping hits of the same kind become one."""
    out: list[Hit] = []
    for hit in sorted(hits, key=lambda h: (h.start, h.kind)):
        same = next((h for h in reversed(out) if h.kind == hit.kind and hit.start < h.end), None)
        if same is None:
            out.append(hit)
        elif hit.end > same.end:
            out[out.index(same)] = Hit(
                same.kind,
                max(same.severity, hit.severity, key=("warn", "fail").index),
                same.start,
                hit.end,
                same.quote,
                same.message,
            )
    return out
