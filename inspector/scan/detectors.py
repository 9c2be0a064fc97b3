"""Vendor credential formats from detect-secrets, and documented example keys told apart from leaks.

detect-secrets (Yelp, maintained, offline) ships one plugin per vendor format: Artifactory, Azure storage,
Cloudant, Discord, IBM Cloud, Mailchimp, SoftLayer, Square, Telegram, Twilio and the ones `credentials`
also knows. Its `scan_line` runs every plugin and filter on each line (about 2 ms a line, 20 s for a 10,000
tool server), so only the plugins' own format patterns are used here, compiled once, behind a cheap
pre-check (a run of 16+ key characters with a digit). Its entropy and keyword plugins are left out:
`credentials` has calibrated ones that quote the span.

Documented examples (`AKIAIOSFODNN7EXAMPLE` from AWS's docs, the jwt.io sample token, values spelled
`...EXAMPLE...`) are well-formed but public: reported as examples (`warn`), never as leaks.
"""

from __future__ import annotations

import re
from functools import cache

from inspector.scan.rules import Raw, masked

# Plugins whose formats `credentials` already matches with its own messages (and the non-format ones).
_LEFT_OUT = {
    "AWSKeyDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "SlackDetector",
    "OpenAIDetector",
    "StripeDetector",
    "NpmDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "JwtTokenDetector",
    "PrivateKeyDetector",
    "BasicAuthDetector",
    "KeywordDetector",
    "IPPublicDetector",
}
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9_+/=.-])[A-Za-z0-9_+/=.-]{16,}")  # from a run's start only: linear
# Public on purpose: AWS documentation keys, the jwt.io sample token's signature.
DOCUMENTED = (
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "AKIAI44QH8DHBEXAMPLE",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
)
_SPELLED_EXAMPLE = re.compile(r"EXAMPLE|[Ee]xample(?:Key|Token|Secret)")


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(secret type, pattern) of every vendor plugin detect-secrets ships, less those `credentials` covers."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    out = []
    for kind, plugin in get_mapping_from_secret_type_to_class().items():
        if issubclass(plugin, RegexBasedDetector) and plugin.__name__ not in _LEFT_OUT:
            out += [(kind, pattern) for pattern in plugin().denylist]
    return tuple(out)


def vendor_formats(view: str, taken: list[tuple[int, int]]) -> list[Raw]:
    """Credentials in the formats of detect-secrets' vendor plugins, outside the `taken` spans."""
    if not any(any(c.isdigit() for c in m.group()) for m in _CANDIDATE.finditer(view)):
        return []
    raw: list[Raw] = []
    for kind, pattern in _patterns():
        for m in pattern.finditer(view):
            if not any(a < m.end() and m.start() < b for a, b in taken):
                message = f"looks like a {kind} (detect-secrets): '{masked(m.group())}'"
                raw.append(("credential", "fail", m.start(), m.end(), message))
                taken.append((m.start(), m.end()))
    return raw


def documented(view: str, found: list[Raw]) -> list[Raw]:
    """`found` with each credential that is a documented example turned into a `warn` that says so."""
    out: list[Raw] = []
    for kind, severity, start, end, message in found:
        span = view[start:end]
        if kind == "credential" and (any(d in span for d in DOCUMENTED) or _SPELLED_EXAMPLE.search(span)):
            severity, message = "warn", f"{message}: a documented example key, not a leak (remove it if it is real)"
        out.append((kind, severity, start, end, message))
    return out
