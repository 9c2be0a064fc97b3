"""Where data would go: URLs or addresses a text sends data to (sensitive files are `files`').

- exfiltration-url: "send/post/upload ... to https://...", webhook and tunnel hosts, bare-IP URLs,
  URL templates that carry secrets or the conversation, markdown image beacons, bcc/forward to an
  email address, `curl ... | sh` and `curl -d @file`.
"""

from __future__ import annotations

import re

from mcp_review.scan.rules import SENTENCE, URL, Rule, rx, snip

# ------------------------------------------------------------------------------------- exfiltration

_EXFIL_HOSTS = (
    r"(?:[\w-]+\.)*(?:webhook\.site|requestbin\.(?:com|net)|pipedream\.net|hookbin\.com|beeceptor\.com"
    r"|burpcollaborator\.net|oastify\.com|oast\.(?:fun|live|me|online|pro|site)|interact\.sh|interactsh\.com"
    r"|canarytokens\.com|requestcatcher\.com|pastebin\.com|paste\.ee|hastebin\.com|transfer\.sh"
    r"|ngrok(?:-free)?\.(?:io|app|dev)|trycloudflare\.com|serveo\.net|localtunnel\.me|loca\.lt)"
    r"|discord(?:app)?\.com/api/webhooks|hooks\.slack\.com/services"
)
_EXFIL_HOST_RE = rx(rf"^https?://(?:[^/@\s]*@)?(?:{_EXFIL_HOSTS})(?![\w.-])")
_SECRETISH = rx(
    r"\b(?:conversation|chat|history|transcript|credentials?|api[\s_-]*keys?|tokens?|passwords?|secrets?"
    r"|environment|env\b|ssh|private|cookies?|messages|prompt|everything|user['\u2019]?s?\s+data|all\s+(?:the\s+)?"
    r"(?:data|files|messages))"
)
_PRIVATE_IP = re.compile(r"^(?:10|127|0)\.|^192\.168\.|^169\.254\.|^172\.(?:1[6-9]|2\d|3[01])\.")
_RESERVED_DOMAIN = rx(r"(?:^|\.)(?:example\.(?:com|org|net)|example|test|invalid|localhost)$")


def _send_to_url(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    url = m.group("url")
    bad_host = _EXFIL_HOST_RE.match(url) is not None
    ip = re.match(r"https?://(\d{1,3}(?:\.\d{1,3}){3})\b", url)
    public_ip = ip is not None and not _PRIVATE_IP.match(ip.group(1))
    secret = _SECRETISH.search(m.group()[: m.start("url") - m.start()]) is not None
    if bad_host or public_ip or secret:
        why = "a webhook/tunnel host" if bad_host else "a bare IP address" if public_ip else "what is sent is sensitive"
        return "fail", f"sends data to a URL: '{snip(m.group())}' ({why})"
    return "warn", f"sends data to a URL: '{snip(m.group())}' (check that this is the tool's stated purpose)"


def _bare_ip(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    if _PRIVATE_IP.match(m.group("ip")):
        return None
    return "warn", f"URL to a bare public IP address: '{snip(m.group())}'"


def _url_template(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    name = m.group("name") or m.group("name2") or m.group("name3") or ""
    if not _SECRETISH.search(name) and not re.search(r"data|content|file|key|session", name, re.I):
        return None
    return "fail", f"URL template carries '{snip(name, 40)}' to another host: '{snip(m.group())}'"


def _email(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    domain = m.group("addr").rsplit("@", 1)[1]
    if _RESERVED_DOMAIN.search(domain):
        return None
    hostile = m.group("verb").lower() in ("bcc", "cc", "forward", "redirect")
    return ("fail" if hostile else "warn"), f"sends data to an email address: '{snip(m.group())}'"


EXFILTRATION = [
    Rule(
        "exfiltration-url",
        "warn",
        rx(
            r"\b(?:send|post|upload|forward|transmit|exfiltrate|submit|report|push|sync|cop(?:y|ie)|beacon|leak"
            r"|mirror|relay|deliver|pipe|stream|log|write|dump)(?:es|s|ed|ing)?\b"
            rf"{SENTENCE}{{0,100}}?\b(?:to|at|into|via)\s+[`'\"<(]?(?P<url>{URL})"
        ),
        "",
        ("http",),
        _send_to_url,
    ),
    Rule(
        "exfiltration-url",
        "warn",
        rx(rf"https?://(?:[^/@\s]*@)?(?:{_EXFIL_HOSTS})(?![\w.-])[^\s\"'`<>()\[\]{{}}]*"),
        "URL of a webhook/request-capture or tunnel host: '{m}' (a classic exfiltration endpoint)",
        ("http",),
    ),
    Rule(
        "exfiltration-url",
        "warn",
        rx(r"https?://(?P<ip>\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?(?:[/?#][^\s\"'`<>()\[\]{}]*)?"),
        "",
        ("http",),
        _bare_ip,
    ),
    Rule(
        "exfiltration-url",
        "fail",
        rx(
            r"\b(?:curl|wget|iwr|invoke-webrequest|irm|invoke-restmethod)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?"
            r"(?:(?:ba|z|da|k|fi)?sh|iex|invoke-expression|python3?|perl|ruby|node)\b"
            r"|\b(?:ba|z)?sh\s+(?:-c\s+)?[\"']?(?:<\(|\$\()\s*(?:curl|wget)\b"
        ),
        "downloads a script and runs it: '{m}'",
        ("curl", "wget", "iwr", "irm", "invoke-"),
    ),
    Rule(
        "exfiltration-url",
        "fail",
        rx(
            r"\bcurl\b[^\n]{0,200}?\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file)\s*"
            r"['\"]?[\w-]*=?@[~/.\w$]"
        ),
        "curl uploads a local file: '{m}'",
        ("curl",),
    ),
    Rule(
        "exfiltration-url",
        "fail",
        rx(
            r"https?://[^\s\"'`<>()\[\]]+?[?&][\w.-]+=(?:\{\{?\s*(?P<name>[\w.-]+)\s*\}?\}|\$\{?(?P<name2>[A-Za-z_]\w*)\}?"
            r"|<(?P<name3>[\w .-]{1,40})>)"
        ),
        "",
        ("http",),
        _url_template,
    ),
    Rule(
        "exfiltration-url",
        "warn",
        rx(r"!\[[^\]\n]{0,200}\]\(\s*https?://[^\s)]+\?[^\s)]+\s*\)"),
        "markdown image with a query string: '{m}' (a client that renders it sends the query to that host)",
        ("![",),
    ),
    Rule(
        "exfiltration-url",
        "warn",
        rx(
            r"\b(?P<verb>bcc|cc|forward|redirect|send|e-?mail|mail|cop(?:y|ie))(?:es|s|ed|ing)?\b"
            rf"{SENTENCE}{{0,60}}?(?P<addr>\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{{2,}})\b"
        ),
        "",
        ("@",),
        _email,
    ),
]
