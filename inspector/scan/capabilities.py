"""What a tool can do, as its definition says it: shell, code execution, file writes, environment reads, outbound
network (used by the `review.capability-*` rules, not by `scan_text`).

A reviewer merging a server wants to know that a tool runs shell commands whether or not a probe got an injection
through it. `named(tool)` reads the tool's name, title, description and input schema (parameter names, descriptions
and formats) and gives, per capability, the evidence: where it was read and the words that say so. Each capability
needs words that name the act, not a word that merely could (`run_tests` runs a fixed command, not any; a
`path` parameter of a reader writes nothing):

- shell: a shell, terminal or command line named ("Execute a shell command", `run_command`, "runs a kubectl
  command"), or a `command`/`cmd`/`script` parameter of a tool whose text runs or executes it;
- code: code, a script, a program or an expression in a programming language evaluated or run ("Run Python code",
  "Evaluate a JavaScript snippet in the page", `eval`, a REPL or interpreter, a notebook cell); arithmetic (a
  calculator's "mathematical expression") and SQL are not code here;
- file-write: a file or directory written, created, overwritten, appended to, edited, moved, renamed or deleted,
  at a path the caller gives (a path parameter), or "anywhere" on the disk; the text saying it stays "within
  allowed directories" is quoted, the capability is still named;
- env-read: the environment returned, listed or printed ("Print the server's environment variables", `get_env`,
  `printenv`); configuration that names one variable the server reads ("requires OPENAI_API_KEY") is not;
- network: a request to a URL or host the caller chooses (a `url`, `endpoint`, `webhook` or `host` parameter, a
  `format: uri`, "fetch a URL", "download", "HTTP request", "crawl", "browse", "ping a host"), or data sent out by
  mail, message or webhook ("send an email").

Each piece of evidence is (where, the words); the rules add what a probe or an observation recorded (a call's wire
entry), so the evidence is a list any rule can extend.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcp_review.scan.context import sentence_around
from mcp_review.scan.intent import NEGATED
from mcp_review.scan.rules import identifier_words, rx, snip, word_set

CAPABILITIES = {
    "shell": "runs shell commands",
    "code": "evaluates or runs code",
    "file-write": "writes files at a path it is given",
    "env-read": "reads the environment",
    "network": "makes outbound requests or sends data out",
}


@dataclass(frozen=True)
class Evidence:
    where: str  # "description", "name", "inputSchema.properties.command", "call 12 (review.commands-not-injected)"
    quote: str  # the words that show it
    seq: int | None = None  # the wire entry that shows it, when a call or an observation does

    def said(self) -> str:
        return f"{self.where}: {self.quote}" if self.quote else self.where


_SAYS: dict[str, re.Pattern[str]] = {
    "shell": rx(
        r"(?<!-)\b(?:run|runs|running|execute|executes|executing|exec|invoke|invokes|spawn|spawns)\s+(?:an?\s+|any\s+"
        r"|the\s+|arbitrary\s+|one\s+or\s+more\s+|given\s+)?(?:shell|terminal|system|bash|zsh|powershell|cmd|console"
        r"|command[\s-]line|cli|os|[\w.-]+\s+cli|kubectl|docker|git|npm|aws|gcloud|az)?\s*commands?\b"
        r"|\bin\s+a\s+(?:shell|terminal)\b|\b(?:spawns?|starts?|runs?)\s+(?:a\s+)?(?:sub)?process(?:es)?\b"
    ),
    "code": rx(
        r"\b(?:run|runs|running|execute|executes|executing|evaluate|evaluates|evaluating|eval|interpret|interprets)"
        r"\s+(?:an?\s+|any\s+|the\s+|arbitrary\s+|given\s+|user[\s-]supplied\s+)?(?:python|javascript|js|typescript"
        r"|node(?:\.js)?|ruby|perl|php|lua|r|julia|bash|shell|sql-free)?\s*(?:code|scripts?|snippets?|programs?"
        r"|expressions?)\b(?!\s+(?:review|quality|style|coverage))"
        r"|\b(?:python|javascript|js|node(?:\.js)?|ruby|php)\s+(?:repl|interpreter|sandbox)\b"
        r"|\b(?:repl|code\s+interpreter|notebook\s+cells?|jupyter\s+(?:kernel|cell)s?)\b|\beval\s*\("
    ),
    "file-write": rx(
        r"\b(?:write|writes|writing|create|creates|creating|overwrite|overwrites|save|saves|saving|append|appends"
        r"|edit|edits|editing|modif(?:y|ies)|move|moves|rename|renames|delete|deletes|remove|removes|patch|patches)\s+"
        r"(?:a\s+|an\s+|the\s+|any\s+|new\s+|one\s+or\s+more\s+|multiple\s+|existing\s+|arbitrary\s+)?(?:text\s+|binary\s+"
        r"|local\s+)?(?:files?|director(?:y|ies)|folders?|to\s+(?:a\s+|the\s+)?(?:file|disk|path))\b"
        r"|\b(?:write|save|writes|saves)\s+[\w\s]{0,30}?\s+to\s+(?:a\s+|the\s+)?(?:file|disk|path)\b"
        r"|\banywhere\s+on\s+(?:the\s+)?(?:disk|file\s*system)\b"
    ),
    "env-read": rx(
        r"\b(?:return|returns|list|lists|print|prints|show|shows|dump|dumps|get|gets|read|reads|expose|exposes"
        r"|display|displays|output|outputs)\s+(?:all\s+|the\s+|every\s+)?(?:(?:server|process|current|system|host)"
        r"['\u2019]?s?\s+)?(?:environment(?:\s+variables)?|env(?:\s+vars?)?)\b"
        r"(?!\s+(?:name|names|id|type|url|tier|variable\s+(?:named|called)))"
        r"|\bprintenv\b|\bos\.environ\b|\bprocess\.env\b(?!\.)"
    ),
    "network": rx(
        r"\b(?:fetch|fetches|fetching|download(?!\s+(?:urls?|links?)\b)|downloads|crawl|crawls|scrape|scrapes|browse"
        r"|browses|navigate|navigates|request|requests|ping|pings|post|posts|visit|visits)\s+(?:a\s+|an\s+|the\s+"
        r"|any\s+|arbitrary\s+|given\s+|remote\s+)?(?:web\s*)?(?:urls?|uris?|web\s*pages?|websites?"
        r"|pages?\s+from\s+the\s+(?:web|internet)|hosts?|http\s+(?:endpoints?|resources?))\b"
        r"|\b(?:make|makes|making|send|sends|sending|perform|performs|issue|issues|execute|executes)\s+(?:an?\s+|any\s+"
        r"|arbitrary\s+)?(?:custom\s+)?https?\s+(?:requests?|calls?)\b|\binternet\s+access\b"
        r"|\bfrom\s+the\s+(?:internet|web)\b"
        r"|\b(?:send|sends|sending)\s+(?:an?\s+|the\s+)?(?:e-?mails?|sms|text\s+messages?|webhooks?|slack\s+messages?"
        r"|https?\s+requests?)\b"
    ),
}
# Parameters whose name says what they carry, by capability (with what must also hold for it to count).
_PARAMETERS = {
    "shell": word_set("command commands cmd cmdline shell"),
    "code": word_set("code script snippet program source"),
    "file-write": word_set("path file filepath filename destination dest target output outfile directory dir folder"),
    "network": word_set("url uri urls uris link href endpoint webhook host hostname domain ip"),
}
_FORMATS = {"network": {"uri", "url", "hostname", "ipv4", "ipv6", "uri-reference", "iri"}}
# A tool whose name says it writes (for a path parameter to make it a file write).
_WRITE_NAME = word_set("write create save append edit move rename delete remove put upload mkdir touch copy patch")
_FILE_NAME = word_set("file files dir directory directories folder folders path paths disk fs")
_USER_OPENS = rx(r"\b(?:user|client|browser)\b[^.]{0,40}\b(?:open|opens|visit|visits|redirect|redirected|shown|show)\b")
_SHELL_NAME = word_set("shell bash zsh terminal powershell cmd exec execute subprocess")
_ENV_NAME = {("get", "env"), ("print", "env"), ("read", "env"), ("env",), ("environment",), ("get", "environment")}


def _texts(raw: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for key in ("title", "description"):
        if isinstance(raw.get(key), str):
            yield key, raw[key][:4000]
    for name, sub in _properties(raw).items():
        if isinstance(sub, dict) and isinstance(sub.get("description"), str):
            yield f"inputSchema.properties.{name}.description", sub["description"][:1000]


def _properties(raw: dict[str, Any]) -> dict[str, Any]:
    schema = raw.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    return props if isinstance(props, dict) else {}


def _on_files(words: list[str], raw: dict[str, Any]) -> bool:
    """The tool's name or description says it works on files, directories or the disk."""
    said = f"{raw.get('description') or ''} {raw.get('title') or ''}".lower()
    return (
        bool(_FILE_NAME.intersection(words))
        or re.search(r"\b(?:files?|director(?:y|ies)|folders?|disk)\b", said) is not None
    )


def _negated(text: str, start: int) -> bool:
    """The sentence says the tool does not ("never runs shell commands", "cannot write files"): the scanner's
    reading of a negation (`intent.NEGATED` on the sentence up to the match)."""
    lo, _ = sentence_around(text, start, start)
    return NEGATED.search(text[lo:start]) is not None


def named(raw: dict[str, Any]) -> dict[str, list[Evidence]]:
    """Capability -> the evidence in the tool's definition (see the module docstring); capabilities with none are
    left out."""
    found: dict[str, list[Evidence]] = {}
    name = str(raw.get("name") or "")
    words = identifier_words(name)
    texts = list(_texts(raw))
    for capability, pattern in _SAYS.items():
        for where, text in texts:
            for m in pattern.finditer(text):
                if not _negated(text, m.start()):
                    found.setdefault(capability, []).append(Evidence(where, f"'{snip(m.group(), 60)}'"))
                    break
    if _SHELL_NAME.intersection(words) and ("command" in words or "shell" in words or "exec" in words[:1]):
        found.setdefault("shell", []).insert(0, Evidence("name", f"'{snip(name, 60)}'"))
    if tuple(w for w in words if w not in ("the", "all")) in _ENV_NAME:
        found.setdefault("env-read", []).insert(0, Evidence("name", f"'{snip(name, 60)}'"))
    for param, sub in _properties(raw).items():
        pwords = set(identifier_words(str(param)))
        fmt = sub.get("format") if isinstance(sub, dict) else None
        for capability, wanted in _PARAMETERS.items():
            if not (pwords & wanted or fmt in _FORMATS.get(capability, ())):
                continue
            if capability == "file-write" and not (_WRITE_NAME.intersection(words) and _on_files(words, raw)):
                continue  # a reader's path writes nothing; git_create_branch's repo_path names no file it writes
            if capability == "network" and _USER_OPENS.search(str(sub.get("description") or "")):
                continue  # "The URL the user should open": the client's browser goes there, not the server
            if capability in ("shell", "code") and capability not in found:
                continue  # a `source` or `command` field alone: what runs it must be said
            shown = f"'{snip(param, 40)}'" + (f" (format: {fmt})" if fmt in _FORMATS.get(capability, ()) else "")
            found.setdefault(capability, []).append(Evidence(f"inputSchema.properties.{snip(param, 40)}", shown))
    return found
