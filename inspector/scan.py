"""Find hostile or leaky text in what a server says about itself (tool poisoning, leaked credentials).

`scan_text(text)` returns `Hit`s sorted by position; overlapping hits of one kind are merged. Each
quotes the offending span made visible (`inspector.text.visible`) between « » with ~30 characters of
context. Kinds:

- hidden-instruction: text aimed at the model rather than describing the tool: `<IMPORTANT>`-style
  tags and chat-template markers, "ignore previous instructions", "do not tell the user", "before
  using this tool ... read/pass", "you must first call", covert verbs ("silently upload"), system-prompt
  manipulation, steering to or shadowing other tools, role-play/jailbreak phrases, asking for the
  conversation or for secrets.
- sensitive-file: ~/.ssh and key files, .env, cloud / registry / kube credentials, /etc/shadow,
  MCP client configs (which hold other servers' secrets), browser cookies, keychains, private keys.
  `fail` when named next to a verb that moves data (pass, send, include, cat...) or in a text that
  also instructs the model; otherwise `warn` (a tool may legitimately mention where it reads a key).
- exfiltration-url: "send/post/upload ... to https://...", webhook and tunnel hosts, bare-IP URLs,
  URL templates that carry secrets or the conversation, markdown image beacons, bcc/forward to an
  email address, `curl ... | sh` and `curl -d @file`.
- credential: key/token/password assignments, `Authorization:` headers, passwords in URLs and known
  formats (AWS, GitHub, GitLab, Slack, OpenAI, Anthropic, Google, Stripe, Hugging Face, npm, PyPI,
  SendGrid, JWT, PEM private keys). Placeholders (`YOUR_API_KEY`, `<token>`, `xxx`, `...`,
  `${API_KEY}`, `sk-...`, env-var names) are ignored. AWS's documented example key
  `AKIAIOSFODNN7EXAMPLE` is still reported: it is well-formed and a reviewer should see it.
- high-entropy (`warn`): a run of >= 24 base64/base64url characters with letters and digits whose
  Shannon entropy reaches min(0.85 * log2(length), 4.5) bits per character, i.e. about the 3rd
  percentile of random base62 strings of that length (3.90 at 24, 4.25 at 32, 4.5 from 40 on), and
  which is not word-like (less than half of it in runs such as `Validator`, `load`, `HTTP`). Ignored as
  identifiers: UUIDs and hex-only strings (commit SHAs, digests; a hex API key is still caught when it
  is assigned to a key name), and anything inside a URL (doc links, slugs; secrets in URLs are caught
  by the credential rules). Calibrated on random tokens (recall ~86-92% for base62/base64url) and on
  the ~900 letter+digit tokens in this venv's site-packages (only real base64 remained).
- invisible-character: zero-width and other format characters (`warn` alone; `fail` for runs of 4+),
  bidi embeddings/overrides/isolates U+202A-E and U+2066-9 (`fail`), tag characters U+E0000-E007F
  (`fail`, the hidden ASCII is decoded into the message) and runs of variation selectors (`fail`,
  bytes decoded). Legitimate uses are skipped: a ZWJ/ZWNJ joining two visible non-ASCII characters
  (emoji sequences, Persian, Indic scripts) and emoji subdivision flags.
- escape-sequence (`fail`): ANSI CSI, OSC (OSC 8 hyperlinks and OSC 52 clipboard writes named), other
  escape and control strings, and C0/C1 control characters other than \\n \\r \\t.

Instruction, file, URL and credential rules also run on a view of the text with escapes and
invisible characters removed, so "ig\\u200bnore previous instructions" is still an instruction; spans
are mapped back to the original text. Rich-style markup such as `[bold red]` is inert text here.
Severity: `fail` means clearly hostile or a real credential; `warn` means suspicious, may be benign.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from inspector.text import INVISIBLE, is_hidden, visible

_RANK = {"warn": 0, "fail": 1}
CONTEXT = 30  # characters of context quoted on each side of a span
SPAN_SHOWN = 100  # a longer span is cut in the quote (so a quote stays under ~165 characters)


@dataclass(frozen=True)
class Hit:
    kind: str  # hidden-instruction, credential, high-entropy, invisible-character, escape-sequence, ...
    severity: str  # "fail" (clearly hostile or a real credential) or "warn" (suspicious, may be benign)
    start: int  # span in the scanned text
    end: int
    quote: str  # the span made visible between « », with context
    message: str  # one line: what it is and why it matters


# (kind, severity, start, end, message), before merging and quoting
_Raw = tuple[str, str, int, int, str]
# A judge refines a match: (severity, message), or None to drop it. It sees the whole (stripped) text.
_Judge = Callable[[re.Match[str], str], tuple[str, str] | None]


@dataclass(frozen=True)
class _Rule:
    kind: str
    severity: str
    pattern: re.Pattern[str]
    message: str  # str.format with {m} (the match) and the named groups, each made visible and short
    needles: tuple[str, ...] = ()  # the rule is skipped unless one occurs in the lower-cased text
    judge: _Judge | None = None


def _snip(s: str | None, limit: int = 60) -> str:
    s = " ".join((s or "").split())
    return visible(s[:limit], newlines=False) + ("…" if len(s) > limit else "")


def _message(rule: _Rule, m: re.Match[str]) -> str:
    groups = {k: _snip(v, 40) for k, v in m.groupdict().items()}
    return rule.message.format(m=_snip(m.group()), **groups)


def _c(pattern: str, flags: int = re.I) -> re.Pattern[str]:
    return re.compile(pattern, flags)


# Up to the end of a sentence: punctuation followed by a non-space ("~/.ssh", "e.g.,") does not end it.
_S = r"(?:[^.!?\n]|[.!?](?=\S))"
_URL = r"https?://[^\s\"'`<>()\[\]{}]*[^\s\"'`<>()\[\]{}.,;:!?]"
_URL_RE = _c(_URL)
_TRANSFER = _c(
    r"\b(?:pass|send|upload|include|attach|cop(?:y|ie)|post|forward|share|leak|exfiltrat|cat|print|output|dump"
    r"|e-?mail|append|paste|embed|transmit)(?:es|s|ed|ing|e|ion)?\b|\bcontents?\s+of\b|\b(?:its|their)\s+contents?\b"
)


# ------------------------------------------------------------------------------- hidden instructions

_TAGS = (
    r"important|system|sys|system[_-]?prompt|instructions?|hidden|secret|admin|critical|override"
    r"|(?:assistant|ai|model|user)[_-]?instructions?|note[_-]?to[_-]?(?:ai|assistant|model|llm)"
)


def _before_using(m: re.Match[str], text: str) -> tuple[str, str] | None:
    sentence = re.match(f"{_S}{{0,200}}", text[m.end() :])
    rest = m.group() + (sentence.group() if sentence else "")
    hostile = _TRANSFER.search(rest) or "any" in m.group("which").lower() or "other" in m.group("which").lower()
    why = "asks the model to act before using a tool"
    return ("fail" if hostile else "warn"), f"instruction aimed at the model: '{_snip(m.group())}' ({why})"


def _other_tool(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    tool = (m.group("tool") or m.group("tool2") or "").lower()
    verb = (m.group("verb") or "").lower()
    hostile = tool in ("other", "another", "any", "all", "every") or verb in (
        "bcc",
        "cc",
        "redirect",
        "forward",
        "change",
        "replace",
        "modify",
    )
    return ("fail" if hostile else "warn"), (
        f"steers the model's use of other tools: '{_snip(m.group())}' (shadowing: one description "
        "changing how the model uses another tool)"
    )


def _hand_over(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    what = m.group("what").lower()
    everything = re.search(r"\b(?:entire|full|whole|complete|all)\b", what) is not None
    return ("fail" if everything else "warn"), (
        f"asks the model to hand over {_snip(m.group('what'), 40)}: '{_snip(m.group())}'"
    )


_ASKS = "instruction aimed at the model: '{m}'"
_INSTRUCTIONS = [
    _Rule(
        "hidden-instruction",
        "fail",
        _c(rf"(?P<open><\s*(?P<tag>{_TAGS})\b[^<>\n]{{0,60}}>)(?:(?s:.){{0,4000}}?<\s*/\s*(?P=tag)\s*>)?"),
        "instruction aimed at the model: '{open}' block (a tag that addresses the model, not the reader)",
        ("<",),
    ),
    _Rule(
        "hidden-instruction",
        "fail",
        re.compile(
            r"\[\s*(?:SYSTEM|IMPORTANT|INSTRUCTIONS?|HIDDEN|ADMIN|INST)(?:\s+(?:MESSAGE|NOTE|PROMPT|OVERRIDE))?\s*\]"
            r"|\{\{\s*(?:SYSTEM|INSTRUCTIONS?|IMPORTANT)\b|<<\s*SYS\s*>>"
            r"|<\|\s*(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|eot_id)\s*\|>"
        ),
        "chat-template or role marker '{m}' (makes server text look like a system or user turn)",
        ("[", "{{", "<<", "<|"),
    ),
    _Rule(
        "hidden-instruction",
        "fail",
        _c(
            r"\b(?:ignore|disregard|forget|bypass)\s+(?:(?:all|any|the|your|of|these|those)\s+){0,3}"
            r"(?:previous|prior|above|earlier|preceding|former|original|initial|system|safety|all\s+other)\s+"
            r"(?:instructions?|prompts?|directives?|guidelines?|guardrails?|messages?|context|rules"
            r"|commands|policies|constraints|restrictions)\b"
            r"|\bforget\s+(?:everything|all)\s+(?:you\s+(?:know|were\s+told|have\s+been\s+told)|above|before|prior)"
            r"|\b(?:override|supersede|take\s+precedence\s+over)s?\s+(?:(?:all|any|your|the)\s+){0,2}"
            r"(?:other\s+|previous\s+|prior\s+|existing\s+)?(?:instructions|system\s+prompt|guidelines|directives)\b"
        ),
        _ASKS + " (tries to override the model's instructions)",
        ("ignore", "disregard", "forget", "bypass", "override", "supersede", "precedence"),
    ),
    _Rule(
        "hidden-instruction",
        "fail",
        _c(
            r"\b(?:do\s+not|don['\u2019]?t|never|must\s+not|should\s+not|shouldn['\u2019]?t)\s+(?:ever\s+)?"
            r"(?:tell|mention|inform|notify|alert|show|reveal|disclose|display|explain|report|confirm)\s+"
            r"(?:(?:this|that|it|anything|these|them|any\s+of\s+(?:this|that|it)|about\s+(?:this|it))\s+)?"
            r"(?:to\s+)?(?:the\s+)?(?:user|human)s?\b(?!['\u2019]s|s['\u2019]|\s+(?:interface|id|name|agent|account|profile"
            r"|data|list|group|role)s?\b)"
            r"|\b(?:do\s+not|don['\u2019]?t|never)\s+let\s+(?:the\s+)?(?:user|human)\s+(?:know|see|notice|find\s+out)"
            r"|\b(?:the\s+)?(?:user|human)s?\s+(?:must|should|needs?)\s+(?:not|never)\s+(?:to\s+)?"
            r"(?:know|see|notice|find\s+out|be\s+(?:told|informed|made\s+aware|aware|notified))"
            r"|\b(?:the\s+)?user\s+(?:will\s+not|won['\u2019]?t|cannot|can['\u2019]?t|does\s+not|doesn['\u2019]?t)\s+"
            r"(?:see|notice|know\s+about|need\s+to\s+know)\s+(?:this|these|it|that)\b"
            r"|\b(?:hide|conceal|keep)\s+(?:this|it|that|these\s+(?:instructions|steps))\s+"
            r"(?:from\s+the\s+user|secret|hidden|confidential)\b"
            r"|\bwithout\s+(?:the\s+)?(?:user|human)['\u2019]?s?\s+(?:knowledge|consent|awareness|noticing|knowing)"
            r"|\b(?:do\s+not|don['\u2019]?t|never|no\s+need\s+to)\s+(?:ask|request|seek|wait\s+for)\s+(?:the\s+user\s+)?"
            r"(?:for\s+)?(?:the\s+user['\u2019]?s?\s+)?(?:confirmation|permission|approval|consent)"
        ),
        _ASKS + " (hides what it does from the user)",
        ("user", "human", "secret", "hidden", "confidential", "confirmation", "permission", "approval", "consent"),
    ),
    _Rule(
        "hidden-instruction",
        "warn",
        _c(
            r"\bwithout\s+(?:telling|informing|notifying|alerting|asking|showing)\s+(?:the\s+)?(?:user|human)s?\b"
            r"(?!['\u2019]s)"
        ),
        _ASKS + " (acts behind the user's back)",
        ("without",),
    ),
    _Rule(
        "hidden-instruction",
        "warn",
        _c(
            r"\bbefore\s+(?:using|calling|invoking|running|executing|you\s+(?:use|call|invoke|run))\s+"
            rf"(?P<which>this|any|the|other|any\s+other)\s+(?:[\w-]+\s+)?tools?\b{_S}{{0,160}}?"
            r"\b(?P<verb>read|call|pass|send|upload|include|attach|fetch|cat|open|copy|give|add|share|post)\b"
        ),
        "",
        ("before",),
        _before_using,
    ),
    _Rule(
        "hidden-instruction",
        "warn",
        _c(
            r"\byou\s+(?:must|should|have\s+to|need\s+to|are\s+required\s+to)\s+(?:(?:always|first)\s+(?:first\s+)?"
            r"(?:call|invoke|execute|use|run|read)|(?:call|invoke|execute))\b"
            r"|\b(?:always|must)\s+(?:call|use|invoke)\s+this\s+tool\s+(?:first|instead|before|for\s+(?:all|every|any)"
            r"|whenever)\b"
            r"|\bthis\s+tool\s+(?:must|should)\s+(?:always\s+)?be\s+(?:called|used|invoked)\s+(?:first\b|before\s+"
            r"(?:any|all|every)\b|instead\s+of\b)"
        ),
        _ASKS + " (dictates the model's tool calls)",
        ("you", "this tool"),
    ),
    _Rule(
        "hidden-instruction",
        "fail",
        _c(
            r"\b(?:secretly|silently|covertly|quietly|discreetly|stealthily|invisibly|surreptitiously|sneakily)\s+"
            r"(?:(?:and\s+)?\w+\s+){0,2}?(?:send|upload|read|cop(?:y|ie)|forward|transmit|include|exfiltrate|post"
            r"|call|bcc|cc|attach|leak|share|collect|install|redirect|access|e-?mail|append|add|change|modif(?:y|ie)"
            r"|replace|delete|grab|harvest|steal)(?:es|s)?\b"
            r"|\b(?:send|upload|read|cop(?:y|ie)|forward|transmit|exfiltrate|post|bcc|attach|leak|share|collect"
            rf"|install|redirect|e-?mail|grab|harvest|steal)(?:es|s)?\b{_S}{{0,60}}?\b(?:secretly|silently|covertly"
            r"|discreetly|stealthily|surreptitiously)\b"
        ),
        _ASKS + " (acts covertly)",
        ("secretly", "silently", "covertly", "quietly", "discreetly", "stealthily", "invisibly", "surrepti", "sneak"),
    ),
    _Rule(
        "hidden-instruction",
        "fail",
        _c(
            r"\b(?:reveal|print|output|repeat|show|display|leak|send|include|dump|disclose|paste|copy|ignore|override"
            r"|overwrite|forget|bypass|append\s+to|add\s+to|modify|change|update|replace)\s+"
            r"(?:your|this\s+conversation['\u2019]?s?|the\s+(?:current\s+)?(?:model|assistant|ai|llm)['\u2019]?s?)\s+"
            r"(?:entire\s+|full\s+|original\s+|hidden\s+)?(?:system\s+prompt|system\s+message|system\s+instructions?"
            r"|initial\s+(?:prompt|instructions)|hidden\s+instructions?|developer\s+(?:message|prompt|instructions)"
            r"|instructions|guidelines|rules)\b"
            r"|\b(?:reveal|print|output|repeat|leak|dump|disclose|paste|include|send)\s+"
            r"(?:(?:the|its|all|entire|full|complete|verbatim)\s+){0,3}(?:system\s+prompt|system\s+message"
            r"|initial\s+instructions|hidden\s+instructions|developer\s+message)\b"
            r"|\b(?:new|updated|revised|real|actual|true)\s+(?:system\s+prompt|system\s+instructions|instructions)\s*:"
            r"|\bsystem\s+(?:prompt|message)\s+(?:override|injection)\b"
        ),
        _ASKS + " (manipulates the system prompt)",
        ("system", "your", "instructions", "developer", "model", "assistant"),
    ),
    _Rule(
        "hidden-instruction",
        "warn",
        _c(
            r"\buse\s+(?:the\s+)?(?!this\b|it\b)(?P<tool>[\w.:/-]+)\s+(?:tool|server|function|mcp)\s+instead\b"
            r"|\binstead\s+of\s+(?:using\s+|calling\s+)?(?:(?:the|any)\s+)?(?P<tool2>other|[\w.:/-]+)\s+"
            r"(?:tools?|servers?|functions?)\b"
            r"|\b(?:all|every|any)\s+other\s+(?:tools?|servers?|mcp\s+servers?|tool\s+calls?|functions?)\b"
        ),
        "steers the model to or away from other tools: '{m}'",
        ("instead", "other"),
    ),
    _Rule(
        "hidden-instruction",
        "warn",
        _c(
            r"\b(?:do\s+not|don['\u2019]?t|never)\s+(?:use|call|invoke|trust|run)\s+(?:(?:the|any)\s+)?(?!this\b|it\b)"
            r"(?P<tool>[\w.:/-]+)\s+(?:tools?|servers?|functions?|mcp\s+servers?)\b"
            r"|\b(?:when(?:ever)?|if|after)\s+(?:the\s+)?(?:(?:user|you|model|assistant|agent)\s+)?"
            r"(?:uses?|calls?|invokes?|using|calling|invoking|runs?|running)\s+(?:(?:the|any)\s+)?(?!this\b)"
            rf"(?P<tool2>[\w.:/-]+)\s+tools?\b{_S}{{0,100}}?\b(?P<verb>bcc|cc|add|include|change|replace|set|send"
            r"|redirect|forward|append|prepend|modify)\b"
        ),
        "",
        ("tool", "server", "function"),
        _other_tool,
    ),
    _Rule(
        "hidden-instruction",
        "fail",
        _c(
            r"\byou\s+are\s+now\s+(?:an?|the|in|acting|playing|DAN|free|unrestricted|no\s+longer)\b"
            r"|\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:ai|assistant|bound|restricted|claude|chatgpt)\b"
            r"|\bfrom\s+now\s+on,?\s+(?:you|act|respond|answer|always)\b"
            r"|\bpretend\s+(?:to\s+be|you\s+are|that\s+you)\b|\brole-?play\s+as\b"
            r"|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|different\s+"
            r"(?:ai|assistant|model))\b|\bdo\s+anything\s+now\b|\bDAN\s+mode\b|\bdeveloper\s+mode\s+"
            r"(?:enabled|on|activated)\b|\bjailbreak\s+mode\b"
            r"|\b(?:no\s+longer|not)\s+bound\s+by\s+(?:any\s+|your\s+)?(?:rules|guidelines|policies|restrictions)\b"
            r"|\bwithout\s+any\s+(?:ethical|moral|safety)\s+(?:restrictions|guidelines|limits|constraints)\b"
            r"|\b(?:ignore|disable|turn\s+off|bypass)\s+(?:your\s+|all\s+)?(?:safety|content|ethical)\s+"
            r"(?:filters?|guidelines|policies|restrictions|rules|guardrails)\b"
        ),
        _ASKS + " (role-play / jailbreak)",
        (
            "you are",
            "from now on",
            "pretend",
            "play",
            "act as",
            "anything now",
            "dan mode",
            "mode",
            "bound by",
            "without any",
            "safety",
            "content",
            "ethical",
        ),
    ),
    _Rule(
        "hidden-instruction",
        "fail",
        _c(
            r"\bthis\s+is\s+(?:your\s+|the\s+)?(?:top|highest|most\s+important|first)\s+priority\b"
            r"|\bbefore\s+you\s+do\s+anything\s+else\b"
            r"|\b(?:this|these)\s+(?:instructions?|rules?)\s+(?:override|supersede|take\s+precedence)"
        ),
        _ASKS + " (claims priority over the model's instructions)",
        ("priority", "anything else", "override", "supersede", "precedence"),
    ),
    _Rule(
        "hidden-instruction",
        "warn",
        _c(
            r"\b(?:note|message|instructions?|reminder|attention)\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:ai|assistant"
            r"|model|llm|agent|claude|chatgpt|gpt|copilot|cursor|language\s+model)s?\s*[:,-]"
            r"|\botherwise\s+(?:the\s+|this\s+)?(?:tool|it|server|system|application|request)\s+(?:will|would|may"
            r"|might)\s+(?:not\s+work|stop\s+working|crash|break)\b"
        ),
        "text addressed to the model: '{m}'",
        ("note", "message", "instruction", "reminder", "attention", "otherwise"),
    ),
    _Rule(
        "hidden-instruction",
        "warn",
        _c(
            r"\b(?:include|pass|send|append|attach|add|forward|upload|copy|provide|put|paste|embed|share|leak)\s+"
            r"(?:\w+\s+){0,3}?(?P<what>(?:entire|full|whole|complete|all)\s+(?:(?:previous|prior|past)\s+)?"
            r"(?:conversation|chat|messages|context|history|transcript)|(?:conversation|chat)\s+(?:history|log"
            r"|transcript|so\s+far)|(?:all\s+)?(?:previous|prior|earlier)\s+messages|(?:all\s+)?(?:api\s+keys"
            r"|credentials|passwords|secrets|tokens|environment\s+variables|env\s+vars))\b"
        ),
        "",
        (
            "conversation",
            "chat",
            "messages",
            "context",
            "history",
            "transcript",
            "keys",
            "credentials",
            "passwords",
            "secrets",
            "tokens",
            "environment",
            "env vars",
        ),
        _hand_over,
    ),
    _Rule(
        "hidden-instruction",
        "warn",
        _c(r"\bexfiltrat(?:e|es|ed|ing|ion)\b"),
        "mentions exfiltration: '{m}'",
        ("exfiltrat",),
    ),
]


# ----------------------------------------------------------------------------------- sensitive files

_FILES = _c(
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


# ------------------------------------------------------------------------------------- exfiltration

_EXFIL_HOSTS = (
    r"(?:[\w-]+\.)*(?:webhook\.site|requestbin\.(?:com|net)|pipedream\.net|hookbin\.com|beeceptor\.com"
    r"|burpcollaborator\.net|oastify\.com|oast\.(?:fun|live|me|online|pro|site)|interact\.sh|interactsh\.com"
    r"|canarytokens\.com|requestcatcher\.com|pastebin\.com|paste\.ee|hastebin\.com|transfer\.sh"
    r"|ngrok(?:-free)?\.(?:io|app|dev)|trycloudflare\.com|serveo\.net|localtunnel\.me|loca\.lt)"
    r"|discord(?:app)?\.com/api/webhooks|hooks\.slack\.com/services"
)
_EXFIL_HOST_RE = _c(rf"^https?://(?:[^/@\s]*@)?(?:{_EXFIL_HOSTS})(?![\w.-])")
_SECRETISH = _c(
    r"\b(?:conversation|chat|history|transcript|credentials?|api[\s_-]*keys?|tokens?|passwords?|secrets?"
    r"|environment|env\b|ssh|private|cookies?|messages|prompt|everything|user['\u2019]?s?\s+data|all\s+(?:the\s+)?"
    r"(?:data|files|messages))"
)
_PRIVATE_IP = re.compile(r"^(?:10|127|0)\.|^192\.168\.|^169\.254\.|^172\.(?:1[6-9]|2\d|3[01])\.")
_RESERVED_DOMAIN = _c(r"(?:^|\.)(?:example\.(?:com|org|net)|example|test|invalid|localhost)$")


def _send_to_url(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    url = m.group("url")
    bad_host = _EXFIL_HOST_RE.match(url) is not None
    ip = re.match(r"https?://(\d{1,3}(?:\.\d{1,3}){3})\b", url)
    public_ip = ip is not None and not _PRIVATE_IP.match(ip.group(1))
    secret = _SECRETISH.search(m.group()[: m.start("url") - m.start()]) is not None
    if bad_host or public_ip or secret:
        why = "a webhook/tunnel host" if bad_host else "a bare IP address" if public_ip else "what is sent is sensitive"
        return "fail", f"sends data to a URL: '{_snip(m.group())}' ({why})"
    return "warn", f"sends data to a URL: '{_snip(m.group())}' (check that this is the tool's stated purpose)"


def _bare_ip(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    if _PRIVATE_IP.match(m.group("ip")):
        return None
    return "warn", f"URL to a bare public IP address: '{_snip(m.group())}'"


def _url_template(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    name = m.group("name") or m.group("name2") or m.group("name3") or ""
    if not _SECRETISH.search(name) and not re.search(r"data|content|file|key|session", name, re.I):
        return None
    return "fail", f"URL template carries '{_snip(name, 40)}' to another host: '{_snip(m.group())}'"


def _email(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    domain = m.group("addr").rsplit("@", 1)[1]
    if _RESERVED_DOMAIN.search(domain):
        return None
    hostile = m.group("verb").lower() in ("bcc", "cc", "forward", "redirect")
    return ("fail" if hostile else "warn"), f"sends data to an email address: '{_snip(m.group())}'"


_EXFIL = [
    _Rule(
        "exfiltration-url",
        "warn",
        _c(
            r"\b(?:send|post|upload|forward|transmit|exfiltrate|submit|report|push|sync|cop(?:y|ie)|beacon|leak"
            r"|mirror|relay|deliver|pipe|stream|log|write|dump)(?:es|s|ed|ing)?\b"
            rf"{_S}{{0,100}}?\b(?:to|at|into|via)\s+[`'\"<(]?(?P<url>{_URL})"
        ),
        "",
        ("http",),
        _send_to_url,
    ),
    _Rule(
        "exfiltration-url",
        "warn",
        _c(rf"https?://(?:[^/@\s]*@)?(?:{_EXFIL_HOSTS})(?![\w.-])[^\s\"'`<>()\[\]{{}}]*"),
        "URL of a webhook/request-capture or tunnel host: '{m}' (a classic exfiltration endpoint)",
        ("http",),
    ),
    _Rule(
        "exfiltration-url",
        "warn",
        _c(r"https?://(?P<ip>\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?(?:[/?#][^\s\"'`<>()\[\]{}]*)?"),
        "",
        ("http",),
        _bare_ip,
    ),
    _Rule(
        "exfiltration-url",
        "fail",
        _c(
            r"\b(?:curl|wget|iwr|invoke-webrequest|irm|invoke-restmethod)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?"
            r"(?:(?:ba|z|da|k|fi)?sh|iex|invoke-expression|python3?|perl|ruby|node)\b"
            r"|\b(?:ba|z)?sh\s+(?:-c\s+)?[\"']?(?:<\(|\$\()\s*(?:curl|wget)\b"
        ),
        "downloads a script and runs it: '{m}'",
        ("curl", "wget", "iwr", "irm", "invoke-"),
    ),
    _Rule(
        "exfiltration-url",
        "fail",
        _c(
            r"\bcurl\b[^\n]{0,200}?\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file)\s*"
            r"['\"]?[\w-]*=?@[~/.\w$]"
        ),
        "curl uploads a local file: '{m}'",
        ("curl",),
    ),
    _Rule(
        "exfiltration-url",
        "fail",
        _c(
            r"https?://[^\s\"'`<>()\[\]]+?[?&][\w.-]+=(?:\{\{?\s*(?P<name>[\w.-]+)\s*\}?\}|\$\{?(?P<name2>[A-Za-z_]\w*)\}?"
            r"|<(?P<name3>[\w .-]{1,40})>)"
        ),
        "",
        ("http",),
        _url_template,
    ),
    _Rule(
        "exfiltration-url",
        "warn",
        _c(r"!\[[^\]\n]{0,200}\]\(\s*https?://[^\s)]+\?[^\s)]+\s*\)"),
        "markdown image with a query string: '{m}' (a client that renders it sends the query to that host)",
        ("![",),
    ),
    _Rule(
        "exfiltration-url",
        "warn",
        _c(
            r"\b(?P<verb>bcc|cc|forward|redirect|send|e-?mail|mail|cop(?:y|ie))(?:es|s|ed|ing)?\b"
            rf"{_S}{{0,60}}?(?P<addr>\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{{2,}})\b"
        ),
        "",
        ("@",),
        _email,
    ),
]


# -------------------------------------------------------------------------------------- credentials

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
_ASSIGNMENT = _c(
    rf"(?<![A-Za-z0-9])(?P<key>(?:[A-Za-z0-9]+[_-])*(?:{_KEY_NAMES}))(?![A-Za-z0-9])[\"']?\s*(?:=>|:=|=|:)\s*{_VALUE}"
)
_AUTH_HEADER = _c(
    r"\b(?:proxy-)?authorization\s*[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|bot)\s+(?P<v3>[A-Za-z0-9._~+/=-]{8,})"
)
_BEARER = _c(r"\bbearer\s+(?P<v3>[A-Za-z0-9._~+/-]{20,}=*)")
_URL_PASSWORD = _c(r"\b[a-z][a-z0-9+.-]{1,20}://(?P<user>[^\s/:@]{1,64}):(?P<v3>[^\s/@]{3,128})@[\w.-]+")
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


def _credentials(view: str, lowered: str) -> list[_Raw]:
    raw: list[_Raw] = []
    if any(n in lowered for n in _FORMAT_NEEDLES):
        for pattern, severity, what in _KEY_FORMATS:
            for m in pattern.finditer(view):
                token = m.group()
                if _FORMAT_PLACEHOLDER.search(token[4:]) or len(set(token)) < 8:
                    continue
                if what.startswith("an OpenAI") and not _randomish(token.split("-", 2)[-1]):
                    continue  # "sk-learn-compatible-..." is a word, not a key
                raw.append(("credential", severity, m.start(), m.end(), f"looks like {what}: '{_snip(token, 24)}'"))
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
                raw.append(
                    ("credential", "fail", m.start(), m.end(), f"credential assigned to '{_snip(m['key'], 30)}'")
                )
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


def _high_entropy(view: str, taken: list[tuple[int, int]]) -> list[_Raw]:
    raw: list[_Raw] = []
    urls = [(m.start(), m.end()) for m in _URL_RE.finditer(view)] if "://" in view else []
    for m in _TOKEN.finditer(view):
        token, s, e = m.group(), m.start(), m.end()
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


# ------------------------------------------------------------------------ escapes and invisible text

_ESCAPE = re.compile(
    r"(?P<osc>(?:\x1b\]|\x9d)(?P<body>[^\x07\x1b\x9c]*)(?:\x07|\x1b\\|\x9c)?)"
    r"|(?P<csi>(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?)"
    r"|(?P<string>\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?)"
    r"|(?P<esc>\x1b[ -/]*[0-~]?)"
    r"|(?P<c0>[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9a\x9c\x9e\x9f])"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CONTROL_NAMES = {
    "\x00": "NUL",
    "\x07": "BEL",
    "\x08": "backspace (can overwrite displayed text)",
    "\x0b": "vertical tab",
    "\x0c": "form feed",
    "\x7f": "DEL",
}
BIDI = frozenset({0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069})
_JOINERS = frozenset({0x200C, 0x200D})


def _escapes(text: str) -> list[_Raw]:
    raw: list[_Raw] = []
    for m in _ESCAPE.finditer(text):
        shown = _snip(m.group(), 40)
        if m.group("osc") is not None:
            body = m.group("body")
            if body.startswith("8;"):
                target = body.split(";", 2)[-1]
                message = (
                    f"OSC 8 hyperlink to '{_snip(target, 60)}' (a terminal shows link text that points elsewhere)"
                    if target
                    else "OSC 8 hyperlink terminator (part of a disguised link)"
                )
            elif body.startswith("52;"):
                message = f"OSC 52 clipboard write '{shown}' (a terminal would put text on the user's clipboard)"
            else:
                message = f"OSC escape '{shown}' (sets terminal state such as the title or colours)"
        elif m.group("csi") is not None:
            message = f"CSI escape '{shown}' (can recolour, hide, move the cursor or erase the screen)"
        elif m.group("string") is not None:
            message = f"terminal control string '{shown}'"
        elif m.group("esc") is not None:
            message = f"escape sequence '{shown}'"
        else:
            ch = m.group()
            message = f"control character {visible(ch)} ({_CONTROL_NAMES.get(ch, 'a terminal control code')})"
        raw.append(("escape-sequence", "fail", m.start(), m.end(), message))
    return raw


def _char_name(ch: str) -> str:
    return f"<U+{ord(ch):04X}> {unicodedata.name(ch, '').lower()}".rstrip()


def _invisible_run(text: str, start: int, end: int) -> _Raw | None:
    run = text[start:end]
    codes = [ord(c) for c in run]
    tags = [c for c in codes if 0xE0000 <= c <= 0xE007F]
    if tags:
        before = text[start - 1] if start else ""
        flag = (
            before == "\U0001f3f4"
            and codes[-1] == 0xE007F
            and 2 <= len(codes) <= 8
            and all(0xE0030 <= c <= 0xE0039 or 0xE0061 <= c <= 0xE007A for c in codes[:-1])
        )
        if flag:
            return None  # an emoji subdivision flag (England, Scotland, Wales)
        hidden = "".join(chr(c - 0xE0000) for c in tags if 0x20 <= c - 0xE0000 < 0x7F)
        return (
            "invisible-character",
            "fail",
            start,
            end,
            f"{len(tags)} tag characters hide text the model reads but people do not see: '{_snip(hidden, 100)}'",
        )
    bidi = [c for c in codes if c in BIDI]
    if bidi:
        return (
            "invisible-character",
            "fail",
            start,
            end,
            f"bidi control {_char_name(chr(bidi[0]))} (text displays in a different order than the model reads it)",
        )
    if len(run) == 1 and codes[0] in _JOINERS and start > 0 and end < len(text):
        around = text[start - 1] + text[end]
        if all(ord(c) > 0x7F and not is_hidden(c) for c in around):
            return None  # ZWJ/ZWNJ inside an emoji sequence or a Persian/Indic word
    if len(run) >= 4:
        return (
            "invisible-character",
            "fail",
            start,
            end,
            f"run of {len(run)} invisible characters (can hide data or split words past filters)",
        )
    message = f"invisible character {_char_name(run[0])} (can split words past filters or hide data)"
    if len(run) > 1:
        message = f"{len(run)} invisible characters from {_char_name(run[0])} (can split words past filters)"
    return ("invisible-character", "warn", start, end, message)


def _variation_run(start: int, end: int, text: str) -> _Raw | None:
    if end - start < 2:
        return None  # one selector after an emoji or CJK character is ordinary
    data = bytes((ord(c) - 0xFE00) if ord(c) <= 0xFE0F else (ord(c) - 0xE0100 + 16) for c in text[start:end])
    hidden = data.decode("utf-8", "replace")
    return (
        "invisible-character",
        "fail",
        start,
        end,
        f"{end - start} variation selectors encode hidden bytes: '{_snip(hidden, 100)}'",
    )


def _invisibles(text: str) -> list[_Raw]:
    """Runs of hidden format characters and of variation selectors (control characters are escapes)."""
    raw: list[_Raw] = []
    runs: list[list[int]] = []  # [class, start, end]; class 0 = hidden, 1 = variation selector
    for m in _NON_ASCII.finditer(text):
        ch = m.group()
        code = ord(ch)
        if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
            cls = 1
        elif (code in INVISIBLE or is_hidden(ch)) and not 0x80 <= code <= 0x9F:
            cls = 0
        else:
            continue
        i = m.start()
        if runs and runs[-1][0] == cls and runs[-1][2] == i:
            runs[-1][2] = i + 1
        else:
            runs.append([cls, i, i + 1])
    for cls, start, end in runs:
        hit = _invisible_run(text, start, end) if cls == 0 else _variation_run(start, end, text)
        if hit:
            raw.append(hit)
    return raw


# --------------------------------------------------------------------------------------- the scanner


def _strip(text: str, spans: list[tuple[int, int]]) -> tuple[str, list[int] | None]:
    """`text` without `spans`, and for each kept character its index in `text` (None: nothing removed)."""
    if not spans:
        return text, None
    pieces: list[str] = []
    index: list[int] = []
    pos = 0
    for s, e in sorted(spans):
        if s > pos:
            pieces.append(text[pos:s])
            index.extend(range(pos, s))
        pos = max(pos, e)
    pieces.append(text[pos:])
    index.extend(range(pos, len(text)))
    index.append(len(text))
    return "".join(pieces), index


def _run_rules(rules: list[_Rule], view: str, lowered: str) -> list[_Raw]:
    raw: list[_Raw] = []
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


def _files(view: str, lowered: str, instructed: bool) -> list[_Raw]:
    raw: list[_Raw] = []
    if not any(n in lowered for n in _FILE_NEEDLES):
        return raw
    for m in _FILES.finditer(view):
        what = _FILE_WHAT[m.lastgroup or "key"]
        window = view[max(0, m.start() - 100) : m.end() + 100]
        moved = _TRANSFER.search(window) is not None
        severity = "fail" if moved or instructed else "warn"
        why = (
            " next to an instruction to move it" if moved else " in text that instructs the model" if instructed else ""
        )
        raw.append(("sensitive-file", severity, m.start(), m.end(), f"names {what}: '{_snip(m.group(), 40)}'{why}"))
    return raw


def _merge(raw: list[_Raw]) -> list[_Raw]:
    """Sorted by start; overlapping (or touching) hits of one kind become one, keeping the worst severity."""
    out: list[list[object]] = []
    last: dict[str, list[object]] = {}
    for kind, severity, start, end, message in sorted(raw, key=lambda r: (r[2], -r[3], -_RANK[r[1]])):
        prev = last.get(kind)
        if prev is not None and start <= prev[3]:  # type: ignore[operator]
            prev[3] = max(prev[3], end)  # type: ignore[call-overload]
            if _RANK[severity] > _RANK[prev[1]]:  # type: ignore[index]
                prev[1], prev[4] = severity, message
            continue
        entry: list[object] = [kind, severity, start, end, message]
        out.append(entry)
        last[kind] = entry
    return [(str(k), str(s), int(a), int(b), str(msg)) for k, s, a, b, msg in out]  # type: ignore[call-overload]


def quote(text: str, start: int, end: int) -> str:
    """The span made visible between « », with ~30 characters of context each side, on one line."""
    span = visible(text[start:end], newlines=False)
    if len(span) > SPAN_SHOWN:
        span = span[: SPAN_SHOWN - 1] + "…"
    before = visible(text[max(0, start - CONTEXT) : start], newlines=False)[-CONTEXT:]
    after = visible(text[end : end + CONTEXT], newlines=False)[:CONTEXT]
    lead = "…" if start > CONTEXT else ""
    tail = "…" if end + CONTEXT < len(text) else ""
    return f"{lead}{before}«{span}»{after}{tail}"


def scan_text(text: str) -> list[Hit]:
    """Every hostile or leaky span in `text`, sorted by start; overlapping hits of one kind merged."""
    if not text:
        return []
    raw: list[_Raw] = []
    if not text.isascii():
        raw += _invisibles(text)
    if _CONTROL.search(text) or not text.isascii():
        raw += _escapes(text)
    view, index = _strip(text, [(h[2], h[3]) for h in raw if not text[h[2] : h[3]].isspace()])
    lowered = view.lower()

    found = _run_rules(_INSTRUCTIONS, view, lowered)
    instructed = any(_RANK[h[1]] for h in found)
    found += _files(view, lowered, instructed)
    found += _run_rules(_EXFIL, view, lowered)
    credentials = _credentials(view, lowered)
    found += credentials + _high_entropy(view, [(h[2], h[3]) for h in credentials])
    if index is not None:
        found = [(k, s, index[a], index[b - 1] + 1 if b > a else index[a], m) for k, s, a, b, m in found]
    return [Hit(k, s, a, b, quote(text, a, b), m) for k, s, a, b, m in _merge(raw + found)]
