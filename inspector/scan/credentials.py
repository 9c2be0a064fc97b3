"""Leaked secrets: credentials (kind credential) and random-looking strings (kind high-entropy).

- credential: key/token/password assignments, `Authorization:` headers, passwords in URLs and known
  formats (AWS, GitHub, GitLab, Slack, OpenAI, Anthropic, Google, Stripe, Hugging Face, npm, PyPI,
  SendGrid, JWT, PEM private keys). Placeholders (`YOUR_API_KEY`, `<token>`, `xxx`, `...`,
  `${API_KEY}`, `sk-...`, env-var names) are ignored. Documented example keys (AWS's
  `AKIAIOSFODNN7EXAMPLE`) are still reported, as examples (`warn`, see `detectors`).
- high-entropy (`warn`): on a line that names a secret (key, token, secret, password, auth, session,
  cookie, signature, private), a run of >= 24 base64/base64url characters with letters and digits whose
  Shannon entropy reaches min(0.85 * log2(length), 4.5) bits per character, i.e. about the 3rd
  percentile of random base62 strings of that length (3.90 at 24, 4.25 at 32, 4.5 from 40 on), and
  which is not word-like (less than half of it in runs such as `Validator`, `load`, `HTTP`). Ignored as
  identifiers: UUIDs and hex-only strings (commit SHAs, digests; a hex API key is still caught when it
  is assigned to a key name), and anything inside a URL (doc links, slugs; secrets in URLs are caught
  by the credential rules). Calibrated on random tokens (recall ~86-92% for base62/base64url) and on
  the ~900 letter+digit tokens in this venv's site-packages (only real base64 remained).

detect-secrets' vendor plugins (`detectors`) add the formats this module does not know; `high_entropy`
skips the spans the credential rules took.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from inspector.scan.rules import URL_RE, Raw, masked, rx, snip

_KEY_FORMATS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), "fail", "an AWS access key id"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{22,255}\b"), "fail", "a GitHub token"),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), "fail", "a GitLab token"),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), "fail", "a Slack token"),
    (
        re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}"),
        "fail",
        "a Slack webhook URL (its path is the secret)",
    ),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), "fail", "an Anthropic API key"),
    (re.compile(r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), "fail", "an OpenAI API key"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), "fail", "a Google API key"),
    (re.compile(r"\b(?:sk|rk)_live_[0-9A-Za-z]{20,}\b"), "fail", "a Stripe live key"),
    (re.compile(r"\b(?:sk|rk)_test_[0-9A-Za-z]{20,}\b"), "warn", "a Stripe test key"),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), "fail", "a Hugging Face token"),
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), "fail", "an npm token"),
    (re.compile(r"\bpypi-AgE[A-Za-z0-9_-]{50,}"), "fail", "a PyPI token"),
    (re.compile(r"\bSG\.[\w-]{22}\.[\w-]{43}\b"), "fail", "a SendGrid API key"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"), "fail", "a JWT (a bearer token)"),
]
_FORMAT_NEEDLES = (
    "akia",
    "asia",
    "abia",
    "acca",
    "gh",
    "glpat",
    "xox",
    "hooks.slack",
    "sk-",
    "aiza",
    "_live_",
    "_test_",
    "hf_",
    "npm_",
    "pypi-",
    "sg.",
    "eyj",
)
_PEM = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:(?P<body>[\sA-Za-z0-9+/=:,-]{0,20000}?)-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?"
)
_KEY_NAMES = (
    r"api[_-]?key|apikey|api[_-]?secret|access[_-]?key(?:[_-]?id)?|secret[_-]?access[_-]?key|secret[_-]?key"
    r"|client[_-]?secret|app[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|id[_-]?token"
    r"|bearer[_-]?token|session[_-]?token|private[_-]?key|passwd|password|passphrase|pwd|secret|token|credentials?"
)
_VALUE = r"(?:\"(?P<v1>[^\"\n]{1,200})\"|'(?P<v2>[^'\n]{1,200})'|(?P<v3>[^\s\"'`,;)}\]]{1,200}))"
_ASSIGNMENT = rx(
    rf"(?<![A-Za-z0-9])(?P<key>(?:[A-Za-z0-9]+[_-]){{0,6}}(?:{_KEY_NAMES}))(?![A-Za-z0-9])[\"']?\s*(?:=>|:=|=|:)\s*{_VALUE}"
)
_AUTH_HEADER = rx(
    r"\b(?:proxy-)?authorization\s*[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|bot)\s+(?P<v3>[A-Za-z0-9._~+/=-]{8,})"
)
_BEARER = rx(r"\bbearer\s+(?P<v3>[A-Za-z0-9._~+/-]{20,}=*)")
_URL_PASSWORD = rx(r"\b[a-z][a-z0-9+.-]{1,20}://(?P<user>[^\s/:@]{1,64}):(?P<v3>[^\s/@]{3,128})@[\w.-]+")
_PLACEHOLDER = re.compile(
    r"^(?:.*(?:\.\.\.|…|xxx|\*\*\*|your|_here|-here|placeholder|changeme|change_me|dummy|fake|redacted|sample"
    r"|<|>|\$\{|\{\{|\{%|%[A-Z_]+%|process\.env|os\.environ|getenv|secrets\.).*"
    r"|\$[A-Za-z_]\w*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Za-z]+|(.)\1*|env:.*"
    r"|none|null|nil|true|false|string|str|required|optional|secret|password|passwd|token|undefined|bool|int"
    r"|integer|any|n/a|tbd|todo|example|test|user|username|pass|mypassword|hunter)$",
    re.I,
)
_FORMAT_PLACEHOLDER = re.compile(r"x{4,}|X{4,}|\.\.\.|…|your|YOUR|<|\{|0{8,}|1234567890|abcdefghij", re.I)
_WORD_RUN = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}")
_HEX = re.compile(r"^(?:[0-9a-f]+|[0-9A-F]+)$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_SECRET_WORD = rx(r"key|secret|token|passw|pwd|auth|credential|bearer|session|cookie|signature|private")
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{24,}(?![A-Za-z0-9+/_=-])")


def entropy(s: str) -> float:
    """Shannon entropy of `s` in bits per character."""
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


def entropy_threshold(length: int) -> float:
    """Bits per character a token of `length` must reach to count as random (~3rd percentile of base62)."""
    return min(0.85 * math.log2(length), 4.5)


def wordiness(s: str) -> float:
    """Share of `s` in word-like runs (`Validator`, `load`, `HTTP`): ~0.2 for random base62, >0.6 for names."""
    return sum(len(w) for w in _WORD_RUN.findall(s)) / len(s) if s else 0.0


def _randomish(s: str) -> bool:
    return (
        len(s) >= 12
        and any(c.isdigit() for c in s)
        and any(c.isalpha() for c in s)
        and wordiness(s) < 0.5
        and len(set(s)) > 6
    )


def _value(m: re.Match[str]) -> tuple[str, bool]:
    groups = m.groupdict()
    quoted = groups.get("v1") or groups.get("v2")
    return (quoted or groups.get("v3") or ""), quoted is not None


def _real_value(m: re.Match[str], text: str, *, strict: bool = False) -> bool:
    """Whether an assigned value is a real secret rather than a placeholder, a type name or prose."""
    value, quoted = _value(m)
    if len(value) < 6 or _PLACEHOLDER.match(value):
        return False
    if strict:
        return _randomish(value)
    if quoted:
        return value.count(" ") < 2
    prose = re.match(r"\s+[a-z]{2,}\b", text[m.end() :]) is not None
    if prose or value[-1] in ".:":
        return _randomish(value.rstrip(".:"))
    return any(c.isdigit() for c in value) or _randomish(value)


def credentials(view: str, lowered: str) -> list[Raw]:
    """Known key formats, PEM private keys, assignments to key names, Authorization headers, URL passwords."""
    raw: list[Raw] = []
    if any(n in lowered for n in _FORMAT_NEEDLES):
        for pattern, severity, what in _KEY_FORMATS:
            for m in pattern.finditer(view):
                token = m.group()
                if _FORMAT_PLACEHOLDER.search(token[4:]) or len(set(token)) < 8:
                    continue
                if what.startswith("an OpenAI") and not _randomish(token.split("-", 2)[-1]):
                    continue  # "sk-learn-compatible-..." is a word, not a key
                raw.append(("credential", severity, m.start(), m.end(), f"looks like {what}: '{masked(token)}'"))
    if "private key" in lowered:
        for m in _PEM.finditer(view):
            material = len(re.findall(r"[A-Za-z0-9+/=]", m.group("body") or ""))
            if material >= 64:
                raw.append(("credential", "fail", m.start(), m.end(), "a PEM private key, key material included"))
            else:
                raw.append(("credential", "warn", m.start(), m.end(), "a PEM private-key header (no key material)"))
    if any(n in lowered for n in ("key", "secret", "token", "pass", "pwd", "credential")):
        for m in _ASSIGNMENT.finditer(view):
            if _real_value(m, view):
                raw.append(("credential", "fail", m.start(), m.end(), f"credential assigned to '{snip(m['key'], 30)}'"))
    if "authorization" in lowered:
        for m in _AUTH_HEADER.finditer(view):
            if _real_value(m, view):
                raw.append(("credential", "fail", m.start(), m.end(), "a credential in an Authorization header"))
    if "bearer" in lowered:
        for m in _BEARER.finditer(view):
            if _real_value(m, view, strict=True):
                raw.append(("credential", "fail", m.start(), m.end(), "a bearer token"))
    if "://" in view:
        for m in _URL_PASSWORD.finditer(view):
            if (not _PLACEHOLDER.match(m.group("v3")) and not _PLACEHOLDER.match(m.group("user") + "x")) or _real_value(
                m, view
            ):
                raw.append(("credential", "fail", m.start(), m.end(), "a password embedded in a URL"))
    return raw


def high_entropy(view: str, taken: list[tuple[int, int]]) -> list[Raw]:
    """Random-looking tokens outside URLs and outside the `taken` spans (what the credential rules found)."""
    raw: list[Raw] = []
    urls = [(m.start(), m.end()) for m in URL_RE.finditer(view)] if "://" in view else []
    for m in _TOKEN.finditer(view):
        token, s, e = m.group(), m.start(), m.end()
        line = view[view.rfind("\n", 0, s) + 1 : view.find("\n", e) % (len(view) + 1)]
        if not _SECRET_WORD.search(line):
            continue  # ids, hashes and cursors are random too; a secret comes with a word that names it
        if _HEX.match(token) or _UUID.match(token) or any(a < e and s < b for a, b in urls + taken):
            continue
        if not (any(c.isdigit() for c in token) and any(c.isalpha() for c in token)):
            continue
        h = entropy(token)
        if h >= entropy_threshold(len(token)) and wordiness(token) < 0.5:
            raw.append(
                (
                    "high-entropy",
                    "warn",
                    s,
                    e,
                    f"random-looking {len(token)}-character string ({h:.1f} bits/char): a secret?",
                )
            )
    return raw
