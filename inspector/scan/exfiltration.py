"""Where data would go: sensitive files a text names and URLs or addresses it sends data to.

- sensitive-file: ~/.ssh and key files, .env, cloud / registry / kube credentials, /etc/shadow,
  MCP client configs (which hold other servers' secrets), browser cookies, keychains, private keys.
  `fail` when named in a sentence that orders it read or moved ("Also load /etc/shadow", "include ~/.ssh/id_rsa")
  or whose verb moves it to a destination (a URL, an argument, another tool), and is not negated ("it never
  copies the private key"), or in a text that also instructs the model; a file only named is not reported (an
  SSH config tool says ~/.ssh, a TLS tool says private key), nor one that is the tool's own subject: a verb
  that describes ("Prints the effective ~/.ssh/config stanza") or the text's opening statement of its function.
- exfiltration-url: "send/post/upload ... to https://...", webhook and tunnel hosts, bare-IP URLs,
  URL templates that carry secrets or the conversation, markdown image beacons, bcc/forward to an
  email address, `curl ... | sh` and `curl -d @file`.
"""

from __future__ import annotations

import re

from mcp_review.scan.context import sentence_around
from mcp_review.scan.intent import DESCRIBING, NEGATED
from mcp_review.scan.rules import SENTENCE, TRANSFER, URL, Raw, Rule, rx, snip

# ----------------------------------------------------------------------------------- sensitive files

_FILES = rx(
    r"(?P<ssh>(?:~|\$HOME|%USERPROFILE%|/home/[\w.-]+|/Users/[\w.-]+|/root)?[/\\]\.ssh\b(?:[/\\][\w.-]+)?"
    r"|(?<![\w.])\.ssh[/\\][\w.-]*|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\b(?!\.pub)|\bauthorized_keys\b)"
    r"|(?P<env>(?<![\w$])\.env(?:\.(?:local|prod|production|dev|development|staging|test))?\b"
    r"(?![\w-]|\.(?:example|sample|template|dist)))"
    r"|(?P<aws>\.aws[/\\](?:credentials|config)\b)"
    r"|(?P<netrc>(?<!\w)[._]netrc\b|(?<!\w)\.pgpass\b|(?<!\w)\.git-credentials\b)"
    r"|(?P<etc>/etc/(?:passwd|shadow|gshadow|sudoers|master\.passwd)\b)"
    r"|(?P<kube>\.kube[/\\]config\b)"
    r"|(?P<pkg>(?<!\w)\.(?:npmrc|pypirc)\b|\.docker[/\\]config\.json\b|\.config[/\\]gh[/\\]hosts\.yml\b"
    r"|(?<!\w)\.gnupg\b|(?<!\w)\.(?:bash|zsh)_history\b)"
    r"|(?P<agent>(?:\.cursor|\.vscode|windsurf)[/\\]mcp\.json\b|\bclaude_desktop_config\.json\b"
    r"|(?<!\w)\.claude\.json\b)"
    r"|(?P<browser>\b(?:browser|chrome|chromium|firefox|safari|edge|brave)(?:['\u2019]s)?\s+(?:cookies|saved\s+"
    r"passwords|passwords|login\s+data|local\s+storage|session\s+storage)\b|\bcookies\.sqlite\b"
    r"|(?-i:\bLogin Data\b)|\bkey4\.db\b|\blogins\.json\b)"
    r"|(?P<keychain>\b(?:keychain|keyring|credential\s+manager)s?\b)"
    r"|(?P<key>\bprivate[ _-]keys?\b|\b(?:seed|recovery|mnemonic)\s+phrases?\b|\bwallet\.dat\b)"
    r"|(?P<cloud>\b(?:application_default_)?credentials\.json\b|\bservice[-_]account(?:[-_]key)?\.json\b)"
)
# A sentence that opens with an order to read: "Also load /etc/shadow", "First, read ~/.aws/credentials".
_READ_ORDER = rx(
    r"\W*(?:(?:also|please|first|then|now|and|next),?\s+)*(?:read|load|open|cat|fetch|get|print|show|dump"
    r"|copy|collect|grab)\b"
)
_FILE_WHAT = {
    "ssh": "SSH keys",
    "env": "an environment file, usually full of secrets",
    "aws": "AWS credentials",
    "netrc": "stored login passwords",
    "etc": "the system account database",
    "kube": "Kubernetes cluster credentials",
    "pkg": "registry or tool credentials",
    "agent": "an MCP client config, which holds other servers' secrets",
    "browser": "browser cookies or saved passwords",
    "keychain": "the OS keychain",
    "key": "private keys or wallet secrets",
    "cloud": "cloud service-account credentials",
}
_FILE_NEEDLES = (
    ".ssh",
    "id_",
    "authorized_keys",
    ".env",
    ".aws",
    "netrc",
    ".pgpass",
    "git-credentials",
    "/etc/",
    ".kube",
    "npmrc",
    "pypirc",
    ".docker",
    "hosts.yml",
    ".gnupg",
    "_history",
    "mcp.json",
    "claude",
    "cookies",
    "passwords",
    "login",
    "storage",
    "key4",
    "keychain",
    "keyring",
    "credential",
    "private",
    "phrase",
    "wallet",
    "account",
)


# Where a moved file would go: a URL, an address, an argument the model fills, another tool, a remote.
_DESTINATION = rx(
    r"https?://|[\w.+-]+@[\w-]+\.\w|`[\w.-]+`|\b(?:argument|parameter|param|field)s?\b|\b(?:remote|webhook|endpoint)s?\b"
    r"|\b[\w-]+_[\w-]+\s+tool\b|\b(?:to|via|using|through)\s+(?:the\s+|a\s+|an\s+|your\s+)?(?:[\w-]+\s+){0,2}"
    r"(?:tool|server|url|address|host|channel|chat|reply|answer|response|conversation)\b"
)
_CHAINED = rx(r"\W*(?:also|please|first|then|now|and|next|additionally|finally)\b")
# Verbs that show or read a file where the tool runs; the other TRANSFER verbs move it somewhere.
_SHOWS = rx(r"(?:print|output|dump|cat|display|show)")
# A third-person, past or -ing form describes what the tool does; a base form gives an order.
_DESCRIBES = re.compile(r"(?:[^s]s|es|ed|ing|ion)$")


def _moved(view: str, lo: int, hi: int) -> bool:
    """The sentence view[lo:hi] asks for a file it names to be moved, rather than naming the tool's subject:
    a verb that moves data (not negated) with a destination (a URL, an argument, another tool), an order to
    move it ("include ~/.ssh/id_rsa"), or an order to read or show it ("Also read ~/.ssh/id_rsa") unless the
    sentence describes the tool ("Prints the effective ~/.ssh/config stanza") or is the text's opening statement
    of what the tool does ("Print the effective ~/.ssh/config stanza for a host alias")."""
    meant = [v for v in TRANSFER.finditer(view, lo, hi) if not NEGATED.search(view[lo : v.start()])]
    read = _READ_ORDER.match(view, lo, hi)
    if not (meant or read):
        return False
    if _DESTINATION.search(view, lo, hi):
        return True
    verbs = [v.group().lower() for v in meant if " " not in v.group()]  # not "contents of"
    orders = [v for v in verbs if not _DESCRIBES.search(v) or v == "embed"]
    if any(not _SHOWS.match(v) for v in orders):
        return True
    describing = DESCRIBING.match(view, lo, hi) is not None and read is None
    opening = not view[:lo].strip() and not _CHAINED.match(view, lo, hi)
    return (read is not None or bool(orders) or len(verbs) < len(meant)) and not describing and not opening


def sensitive_files(view: str, lowered: str, instructed: bool) -> list[Raw]:
    """Sensitive files named in the view; `instructed`: the text also instructs the model (makes them `fail`)."""
    raw: list[Raw] = []
    if not any(n in lowered for n in _FILE_NEEDLES):
        return raw
    for m in _FILES.finditer(view):
        if m.group().endswith(".pub"):
            continue  # a public key is meant to be shared
        what = _FILE_WHAT[m.lastgroup or "key"]
        lo, hi = sentence_around(view, m.start(), m.end())
        moved = _moved(view, lo, hi)
        if not (moved or instructed):
            continue  # named, not asked for: an SSH config tool says ~/.ssh, "Prints ~/.ssh/config" is its subject
        why = " next to an instruction to move it" if moved else " in text that instructs the model"
        raw.append(("sensitive-file", "fail", m.start(), m.end(), f"names {what}: '{snip(m.group(), 40)}'{why}"))
    return raw


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
