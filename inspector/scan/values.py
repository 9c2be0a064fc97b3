"""What a value given to a secret's name is: a secret, or a placeholder, a path, a word, a number or prose.

`credentials` finds names (`api_key=`, `"clientSecret":`, `DB_PASSWORD=`, `Admin Password:`); this module
judges the value, whatever its quoting (a JSON env dump quotes every value; the `KEY=value` form does not,
and both must be judged alike). Never a secret:

- placeholders: `<your-key>`, `YOUR_API_KEY`, `xxx`, `...`, `${VAR}`, `$VAR`, `{{ var }}`, `%VAR%`, `changeme`,
  `redacted`, `***`, type names (`string`, `required`), docs' words (`secret123`, `P@ssw0rd`), a YAML tag
  (`!vault`), `process.env.X`, an upper-case variable name, one repeated character; and detect-secrets' own value
  filters (templated `{x}`/`<x>`, `$`-prefixed, sequential `abcdef`/`123456`, no letter at all), so we skip what
  that library skips;
- filesystem paths (`/app`, `~/.config/gcloud/key.json`, `C:\\keys\\a.pem`, `$HOME/x`) whose segments are not
  random tokens: `GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/key.json` says where a secret is, not what it is;
- URLs (a password inside one is `credentials`' URL rule), words and identifiers without a digit
  (`hidden`, `jwt_signing_key`), values with spaces (prose).

A password (the name says password, passwd, passphrase, pwd, pass) is any other value of 6 or more characters
(`admin123`, `Pr0d-Sup3rS3cret!`): passwords are chosen by people, not random. Any other secret (key, token,
secret, credentials) must look random: at least 12 characters, letters and digits not in word-like runs
(`entropy.randomish`), or 16+ hex digits, a UUID (Heroku-style keys), or 20+ characters at the entropy of
random text.
"""

from __future__ import annotations

import re

from mcp_review.entropy import entropy, entropy_threshold, randomish, wordiness

_PLACEHOLDER = re.compile(
    r"^(?:.*(?:\.\.\.|…|xxx|\*\*\*|your|_here|-here|placeholder|changeme|change_me|dummy|fake|redacted|sample"
    r"|<|>|\$\{|\{\{|\{%|%[A-Z_]+%|process\.env|os\.environ|getenv|secrets\.).*"
    r"|\$[A-Za-z_]\w*|(?-i:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)|(.)\1*|env:.*"
    r"|none|null|nil|true|false|string|str|required|optional|undefined|bool|int|integer|any|n/a|tbd|todo"
    r"|(?:secret|password|passwd|token|key|example|test|user|username|pass|mypassword|hunter|foo|bar)\d*"
    r"|p[a@4][s$5]{2}w[o0]rd[\d!]*|!\S*)$",
    re.I,
)
# Identifiers and words joined by separators, with no digit: a name (`jwt_signing_key`, `my-app-secret`).
_NAME = re.compile(r"[A-Za-z]+(?:[_.-][A-Za-z]+)*")
_HEX = re.compile(r"[0-9a-f]{16,}|[0-9A-F]{16,}")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_PATH_START = re.compile(r"(?:~|\.{1,2}|[A-Za-z]:|%\w+%|\$\{?\w+\}?)?[/\\]")
_URL = re.compile(r"[a-z][a-z0-9+.-]{1,20}://", re.I)


def placeholder(value: str) -> bool:
    """A stand-in for a secret rather than one (see the module's docstring)."""
    from detect_secrets.filters import heuristic  # the value filters detect-secrets applies to its own finds

    return bool(
        _PLACEHOLDER.match(value)
        or heuristic.is_templated_secret(value)
        or heuristic.is_prefixed_with_dollar_sign(value)
        or heuristic.is_sequential_string(value)
        or heuristic.is_not_alphanumeric_string(value)
    )


def path_like(value: str) -> bool:
    """A filesystem path: it starts like one and none of its segments is a random token (a base64 value may
    start with `/`: `/K7MDENGbPxRfiCY9x2LmQ4vT8wZ` is no directory)."""
    if not _PATH_START.match(value):
        return False
    return not any(len(part) >= 20 and randomish(part) for part in re.split(r"[/\\]", value))


def random_token(value: str) -> bool:
    """Looks machine-made: random letters and digits, long hex, a UUID, or 20+ characters of high entropy."""
    if randomish(value) or _HEX.fullmatch(value) or _UUID.fullmatch(value):
        return True
    return len(value) >= 20 and entropy(value) >= entropy_threshold(len(value)) and wordiness(value) < 0.5


def secret_value(value: str, *, password: bool) -> bool:
    """Whether `value`, given to a secret's name, is a secret: for a `password`, any non-placeholder of 6+
    characters that is not a path, URL or name; for other secrets, a random token."""
    value = value.strip()
    if len(value) < 6 or any(c.isspace() for c in value) or placeholder(value) or path_like(value):
        return False
    if _URL.match(value) or _NAME.fullmatch(value):
        return False
    return password or random_token(value)
