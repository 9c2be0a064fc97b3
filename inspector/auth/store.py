"""Tokens per server, outside any repository, readable only by the user; never in a review, log or state.

The secrets (the token response and the registered client) go to the system keyring when one is usable
(`keyring`, optional: `pip install mcp-review[keyring]`) and `$MCP_REVIEW_TOKENS` names no file. Otherwise, and
for everything else (what a token says about itself, the discovered metadata), one JSON file:
`$MCP_REVIEW_TOKENS` or `$XDG_CONFIG_HOME/mcp-review/tokens.json` (`~/.config/...`), created 0600 in a 0700
directory and replaced atomically. Every token read or written is registered with `redact`, so no output can
show it.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp_review.redact import remember

SECRET_FIELDS = ("access_token", "refresh_token", "id_token", "client_secret")
SECRET_PARTS = ("tokens", "client")  # what goes to the keyring when there is one
SERVICE = "mcp-review"


def _keyring() -> Any | None:
    """The `keyring` module when a real backend is configured (not its `fail` one) and no file was chosen with
    `$MCP_REVIEW_TOKENS` (then everything goes there), else None."""
    if os.environ.get("MCP_REVIEW_TOKENS"):
        return None
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    return None if isinstance(keyring.get_keyring(), fail.Keyring) else keyring


def path() -> Path:
    explicit = os.environ.get("MCP_REVIEW_TOKENS")
    if explicit:
        return Path(explicit)
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return config / "mcp-review" / "tokens.json"


def _read() -> dict[str, Any]:
    try:
        data = json.loads(path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    remember(_secrets(data))
    return data


def _secrets(data: dict[str, Any]) -> list[str]:
    found = []
    for entry in data.values():
        for part in (entry.get("tokens") or {}, entry.get("client") or {}) if isinstance(entry, dict) else ():
            found += [str(part[k]) for k in SECRET_FIELDS if part.get(k)]
    return found


def _write(data: dict[str, Any]) -> None:
    """Atomically, 0600, in a 0700 directory (not through `output.write_text`: that masks the tokens)."""
    target = path()
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tokens-")  # mkstemp creates it 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def get(url: str) -> dict[str, Any]:
    entry = _read().get(url)
    entry = dict(entry) if isinstance(entry, dict) else {}
    kept = _keyring() if entry.get("keyring") else None
    if kept is not None:
        with contextlib.suppress(ValueError):
            entry.update(json.loads(kept.get_password(SERVICE, url) or "{}"))
        remember(_secrets({url: entry}))
    return entry


def put(url: str, **parts: Any) -> None:
    """Merge `parts` (tokens, client, claims, ...) into the server's entry; secrets to the keyring if any."""
    data = _read()
    entry = data.setdefault(url, {})
    kept = _keyring()
    if kept is not None:
        secret = {k: v for k, v in get(url).items() if k in SECRET_PARTS}
        secret |= {k: parts.pop(k) for k in SECRET_PARTS if k in parts}
        remember(_secrets({url: secret}))
        kept.set_password(SERVICE, url, json.dumps(secret))
        parts["keyring"] = True
    entry.update(parts, saved=int(time.time()))
    remember(_secrets({url: entry}))
    _write(data)


def forget(url: str | None = None) -> list[str]:
    """Remove one server's entry, or all of them; return the URLs removed."""
    data = _read()
    gone = [u for u in data if url is None or u == url]
    for u in gone:
        if data[u].get("keyring") and (kept := _keyring()) is not None:
            with contextlib.suppress(Exception):  # keyring's PasswordDeleteError, or a backend's own
                kept.delete_password(SERVICE, u)
        del data[u]
    if gone:
        _write(data)
    return gone


def servers() -> dict[str, dict[str, Any]]:
    """Every server with a token: what can be shown of it (never a token)."""
    return {url: dict(entry.get("claims") or {}) for url, entry in _read().items() if isinstance(entry, dict)}


def access_token(url: str) -> str | None:
    token = (get(url).get("tokens") or {}).get("access_token")
    return str(token) if token else None


def describe(claims: dict[str, Any]) -> str:
    """What a token says about itself, for people: scopes, audience, expiry (decoded, never the token)."""
    exp = claims.get("exp")
    left = f"expires in {int(exp - time.time())} s" if isinstance(exp, int | float) else "no expiry given"
    left = "expired" if isinstance(exp, int | float) and exp < time.time() else left
    return f"scope={claims.get('scope') or '-'} aud={claims.get('aud') or '-'} {left}"
