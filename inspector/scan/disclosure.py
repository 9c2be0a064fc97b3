"""Information a result discloses about the server (kind disclosure, always a `warn`): its environment, its
internal paths, its internal hosts (used by `review.results-safe` on results and errors, not by `scan_text`: a
description that names a path is documentation).

- environment: a dump of the server's environment, as `KEY=value` lines or a JSON object, four or more
  variables of which one is a shell's own (PATH, HOME, USER, SHELL, PWD, HOSTNAME, LANG, TERM, NODE_ENV...):
  what else the server's process holds (keys, tokens, internal URLs) is one call away, and a secret in it fails
  on its own (`credentials`);
- internal paths: a stack trace (Python's `Traceback` with `File "/…", line N`, Node's `at f (/…/x.js:1:2)`, Java's
  `at a.B(B.java:12)`, Go's `goroutine 1 [running]`) or an error that names an absolute path inside a home
  directory, `site-packages` or `node_modules` (CWE-209: the server's layout, user names and versions);
- internal hosts: a private address (10/8, 172.16/12, 192.168/16, with or without a port) or a host name of an
  internal zone (`.internal`, `.local`, `.lan`, `.corp`, `.intranet`, `.svc`, `.cluster.local`), in a result.

Known false positives: a tool whose function is to show these (a debug tool that prints its environment, a network
scanner that lists the LAN) discloses them by design: the reviewer waives it, saying so.
"""

from __future__ import annotations

import json
import re

from mcp_review.scan.rules import Raw, rx, snip, word_set

KIND = "disclosure"
_SHELL_VARIABLES = word_set(
    "PATH HOME USER USERNAME LOGNAME SHELL PWD OLDPWD HOSTNAME LANG LC_ALL TERM TMPDIR NODE_ENV PYTHONPATH VIRTUAL_ENV "
    "XDG_RUNTIME_DIR HOSTTYPE PS1 SHLVL"
)
_ASSIGNMENT = re.compile(r"^[ \t]*(?:export\s+)?([A-Z][A-Z0-9_]{1,63})=.*$", re.M)
_TRACE = rx(
    r"Traceback \(most recent call last\):|\bFile \"/[^\"\n]{1,300}\", line \d+|^\s*at\s+[\w$.<>\[\] ]{1,120}\s+\(?"
    r"(?:/|[A-Z]:\\|file:///)[^\s():]{1,300}:\d+:\d+\)?|^\s*at\s+[\w$.]+\([\w$]+\.(?:java|kt|scala):\d+\)"
    r"|\bgoroutine \d+ \[[a-z ]+\]:|\bpanicked at\b"
)
_ERROR = rx(r"\b(?:error|exception|errno|enoent|eacces|no\s+such\s+file|permission\s+denied|failed|cannot|unable)\b")
_INTERNAL_PATH = re.compile(
    r"(?:/home/[\w.-]+|/Users/[\w.-]+|[A-Z]:\\Users\\[\w.-]+)(?:[/\\][^\s\"'`<>|:;,)]*)?"
    r"|/[^\s\"'`<>|:;,]*(?:site-packages|dist-packages|node_modules)/[^\s\"'`<>|:;,)]*"
)
_PRIVATE_HOST = re.compile(
    r"(?<![\w.])(?:10(?:\.\d{1,3}){3}|172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2}|192\.168(?:\.\d{1,3}){2})(?::\d{2,5})?"
    r"(?![\w.])"
    r"|(?<![\w.-])(?:[a-z0-9-]+\.)+(?:internal|local|lan|corp|intranet|svc|cluster\.local|home\.arpa)(?::\d{2,5})?"
    r"(?![\w-])",
    re.I,
)


def environment(text: str) -> list[str] | None:
    """The variable names when `text` is (or holds) a dump of an environment, or None: what results-safe warns of,
    and what `review.capability-env-read` reads from a call's result."""
    names = [m.group(1) for m in _ASSIGNMENT.finditer(text)]
    stripped = text.strip()
    if stripped.startswith("{") and len(stripped) < 200_000:
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict):
            names += [k for k, v in data.items() if isinstance(v, str) and re.fullmatch(r"[A-Z][A-Z0-9_]{1,63}", k)]
    if len(set(names)) >= 4 and _SHELL_VARIABLES.intersection(names):
        return sorted(set(names))
    return None


def disclosures(text: str) -> list[Raw]:
    """What the result `text` discloses about the server (see the module docstring), each a `warn`."""
    raw: list[Raw] = []
    names = environment(text)
    if names is not None:
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        # named, never quoted: the dump's values are what a secret in it would be (`credentials` judges those)
        raw.append((KIND, "warn", 0, 0, f"discloses the server's environment ({len(names)} variables: {shown})"))
    trace = _TRACE.search(text)
    if trace is not None:
        raw.append((KIND, "warn", trace.start(), trace.end(), f"discloses a stack trace: '{snip(trace.group(), 60)}'"))
    elif _ERROR.search(text):
        path = _INTERNAL_PATH.search(text)
        if path is not None:
            raw.append(
                (KIND, "warn", path.start(), path.end(), f"an error discloses a path: '{snip(path.group(), 60)}'")
            )
    host = _PRIVATE_HOST.search(text)
    if host is not None:
        raw.append((KIND, "warn", host.start(), host.end(), f"discloses an internal host: '{snip(host.group(), 60)}'"))
    return raw
