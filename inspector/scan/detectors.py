"""Vendor credential formats from detect-secrets, and documented example keys told apart from leaks.

detect-secrets (Yelp, maintained, offline) ships one plugin per vendor format: Artifactory, Azure storage,
Cloudant, Discord, IBM Cloud, Mailchimp, SoftLayer, Square, Telegram, Twilio and the ones `credentials`
also knows. Its `scan_line` runs every plugin and filter on each line (about 2 ms a line, 20 s for a 10,000
tool server), so only the plugins' own format patterns are used here, compiled once, behind a cheap
pre-check (a run of 16+ key characters with a digit). Its entropy and keyword plugins are left out:
`credentials` has calibrated ones that quote the span.

`DOCUMENTED` lists the keys vendors publish as examples in their documentation, each with where: quoting one
is quoting documentation, no leak, so the scanner reports nothing for it (`credentials` and `vendor_formats`
skip it, `high_entropy` too). Only an exact match counts: `AKIA5EXAMPLE12345678` is shaped like AWS's example
but is not it, and is judged like any key. Vendors that publish none (GitHub: its docs show `ghp_` followed by
x's, a placeholder) have no entry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

from mcp_review.scan.rules import Raw, masked

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
# Keys published as examples, exactly as published: value -> where.
DOCUMENTED: dict[str, str] = {
    "AKIAIOSFODNN7EXAMPLE": "AWS IAM User Guide, 'Manage access keys for IAM users' (example access key id)",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "AWS IAM User Guide (the example secret access key)",
    "AKIAI44QH8DHBEXAMPLE": "Amazon S3 docs, 'Signing and authenticating REST requests' (example key id)",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY": "Amazon S3 docs, same page (its example secret key)",
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc": "Stripe API reference, 'Authentication' (the sample test secret key)",
    "pk_test_TYooMQauvdEDq54NiTphI7jx": "Stripe API reference (the sample publishable key)",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c": "jwt.io debugger's sample token (John Doe, HS256)",
}


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(secret type, pattern) of every vendor plugin detect-secrets ships, less those `credentials` covers."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector

    # typed here: the function's hints return Type[Plugin] for a TypeVar bound by no argument
    plugins: Mapping[str, type[BasePlugin]] = get_mapping_from_secret_type_to_class()
    out: list[tuple[str, re.Pattern[str]]] = []
    for kind, plugin in plugins.items():
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
            public = view[max(0, m.start() - 7) : m.start()].lower().rstrip(" _-") == "public"  # a public key
            if m.group() not in DOCUMENTED and not public and not any(a < m.end() and m.start() < b for a, b in taken):
                message = f"looks like a {kind} (detect-secrets): '{masked(m.group())}'"
                raw.append(("credential", "fail", m.start(), m.end(), message))
                taken.append((m.start(), m.end()))
    return raw


def documented_spans(view: str) -> list[tuple[int, int]]:
    """Where the view quotes a documented example key (`DOCUMENTED`): no part of it is a secret."""
    spans = []
    for example in DOCUMENTED:
        at = view.find(example)
        while at >= 0:
            spans.append((at, at + len(example)))
            at = view.find(example, at + 1)
    return spans
