"""What a sentence asks, of whom, and whether it means it: context for the scanner, not keywords.

A text is hostile for what it asks the model or the user to do, not for the words it contains: a tool that
manages SSH config says "~/.ssh", a seed-phrase recovery guide says "seed phrase", an article about prompt
injection quotes "ignore previous instructions". `judge(sentence)` reads one sentence for:

- who it addresses: the model ("Note to the assistant:", "[assistant instruction]", "SYSTEM NOTE:",
  "ACT AS:") or the user ("enter your ...", "re-enter your ...", "reply with ...");
- what it asks: to act before or instead of what the user asked, to keep something from the user, to
  hand over something sensitive (credentials, keys, codes, the conversation, private data), to send
  something somewhere (an address, a URL, a channel, a remote, another tool), to change how another
  server's tools are used, or to give up the model's own rules;
- whether it is negated ("never asks for your seed phrase", "does not send") or talks about attacks
  rather than making one ("detects prompts such as ...", "an article about injection"), and whether it
  describes what the tool does ("Sends the email without confirmation" discloses; "Send it without
  confirmation" orders).

An order addressed to the model that only restricts it for the user's safety ("The assistant MUST NOT proceed
without the user's approval", "only call this tool when the user asks", "never share the user's API keys") is what
a careful author writes: it gets no verdict (`PROTECTIVE`), unless the same sentence also asks something hostile.
Guidance that only tells the model to look something up first ("Note to LLM: if unsure, use the collection-indexes
tool to learn which fields can be used", "If not provided, the agent should list available S3 buckets") is a `warn`
(`LOOKS_UP`), and carries no order to the sentences after it; with a standing order or something sensitive in it,
it is an order again.

The verdict is `fail` when the sentence asks something hostile of the model or the user and means it,
`warn` when it only suggests it (a request addressed to the model with nothing hostile in it, hostile words
in a text that talks about attacks), else None. Sentences are judged alone: an instruction split over
sentences is caught by the parts that carry it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from mcp_review.scan.rules import CONTINUED, GOES_ON


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


class Feature:
    """A pattern behind a cheap check: it only runs on a text that has one of its `words` (lower case, whole
    words) or `marks` (substrings). Python's `re` tries every alternative at every position; a set lookup
    rules most texts out at once."""

    def __init__(self, pattern: re.Pattern[str], words: str, marks: str = "") -> None:
        self.pattern, self.words, self.marks = pattern, frozenset(words.split()), tuple(marks.split())

    def present(self, lowered: str, words: frozenset[str]) -> bool:
        return not self.words.isdisjoint(words) or any(m in lowered for m in self.marks)

    def search(
        self, text: str, lowered: str | None = None, words: frozenset[str] | None = None
    ) -> re.Match[str] | None:
        lowered = text.lower() if lowered is None else lowered
        if not self.present(lowered, _words_of(lowered) if words is None else words):
            return None
        return self.pattern.search(text)


_WORDS = re.compile(r"[a-z0-9_']+")


def _words_of(lowered: str) -> frozenset[str]:
    return frozenset(_WORDS.findall(lowered))


_MODEL = r"(?:ai|a\.i\.|assistant|agent|model|llm|bot|copilot|claude|cursor|chatgpt|gpt|gemini)s?"
ADDRESS = Feature(
    _c(
        rf"\b(?:note|message|instructions?|directive|reminder|memo)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?{_MODEL}\b"
        rf"|\b(?:to|for)\s+(?:the\s+|any\s+)?{_MODEL}\s+(?:reading|processing|summari[sz]ing|that\s+reads)\b"
        rf"|\b(?:ai\s+)?{_MODEL}\s+(?:reading|processing|that\s+reads?)\s+(?:this|these)\b"
        rf"|^\W{{0,3}}(?:{_MODEL}|system|sys)\s*(?:note|instructions?|directive|message|override)?\s*(?:\]|:(?=\s|$))"
        rf"|\[\s*(?:{_MODEL}|system|role|important|admin)\b[^\]\n]{{0,30}}\]"
        r"|#{2,}\s*system\s*#{2,}|\bact\s+as\s*:"
        r"|\bsystem\s+(?:note|override|directive|instruction|update|message)\b"
        rf"|\bimportant\s+(?:system\s+(?:notes?|instructions?|directives?)|instructions?|directives?"
        rf"|notes?\s+for\s+the\s+[\w\s]{{0,20}}{_MODEL})\b"  # "## Important Notes:" heads documentation
        rf"|\b(?:the|this|every|any)\s+{_MODEL}(?:\s+(?:reading|processing|that\s+reads)\s+(?:this|it))?\s*:?\s*"
        r"(?:must|should|shall|needs\s+to|is\s+required\s+to|has\s+to)\b"
        r"|\byou\s+are\s+(?:now\s+)?(?:dan|jailbroken|unrestricted|in\s+(?:developer|god|admin)\s+mode)\b"
    ),
    (
        "ai assistant assistants agent agents model models llm llms bot bots copilot claude cursor chatgpt "
        "gpt gemini system sys act important you"
    ),
    "[ ## a.i.",
)
OVERRIDE = Feature(
    _c(
        r"\b(?:ignore|disregard|forget|override|bypass)\b(?:(?!\band\b)[\w\s,'-]){0,30}?\b(?:previous|prior|above|earlier|all|any|"
        r"other|safety|existing|system|content)\b[\w\s-]{0,20}?\b(?:instructions?|rules|restrictions|directions|"
        r"guidelines|filters|prompts?|controls|checks|policies)\b"
        r"|\b(?:previous|prior|earlier)\s+(?:rules|instructions)\s+(?:are|is)\s+(?:void|cancelled|obsolete|replaced)"
        r"|\b(?:no|without\s+any)\s+restrictions\b|\bunrestricted\s+(?:access|queries|mode)\b"
        r"|\btrust\s+all\b|\bbypass\s+all\b|\belevated\s+privileges\b"
        # the same in other languages a model reads as well (de, fr, es, it, pt, ru, zh, ja)
        r"|\bignorier\w*\s+(?:alle\s+)?(?:vorherigen|bisherigen|obigen)\s+(?:Anweisungen|Regeln)"
        r"|\bignore[zr]?\s+(?:toutes\s+)?les\s+(?:instructions|consignes)\s+pr[ée]c[ée]dentes"
        r"|\bignor[ae]\s+(?:todas\s+|tutte\s+)?(?:las|le|as)\s+(?:instrucciones|istruzioni|instru[çc][õo]es)\s+"
        r"(?:anteriores|precedenti)"
        r"|игнорируй\w*\s+(?:все\s+)?(?:предыдущие|прежние)\s+(?:инструкции|указания)"
        r"|忽略(?:之前|以上|先前|所有)的?(?:所有)?(?:指令|指示|说明)|(?:以前|前)の指示を無視"
    ),
    (
        "ignore ignores ignoring disregard forget override overrides bypass void cancelled obsolete replaced "
        "restrictions unrestricted trust privileges elevated"
    ),
    "ignor игнор 忽略 無視",
)
# Giving up caution: an order only when it is not negated ("never follow links ... without asking").
UNCHECKED = Feature(
    _c(
        r"\bwithout\s+(?:validation|confirmation|verification|asking|checking|review(?:ing)?|reading\s+it)\b"
        r"|\bno\s+matter\s+(?:how|what)\b"
    ),
    "without matter",
)
COVERT = Feature(
    _c(
        r"\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|shouldn'?t)\s+(?:ever\s+)?(?:tell|inform|mention|notify|"
        r"show|reveal|announce|list|disclose|alert|report|include)\b[\w\s']{0,25}?\b(?:user(?!['\u2019]s\b)|this|it|"
        r"anyone|them|human|step|action|summary)\b"
        r"|\b(?:should|must)\s+not\s+be\s+(?:announced|mentioned|shown|disclosed|reported|listed)\b"
        r"|\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+(?:the\s+)?(?:user|anyone|them)\b"
        r"|\bkeep\s+(?:this|it)\s+(?:secret|hidden|private|quiet)\b|\b(?:hide|conceal)\s+(?:this|it)\s+from\b"
        r"|\bsilently\s+(?:send|upload|forward|copy|post|add|call|run|execute|include|append)\b"
    ),
    "not never don't dont shouldn't silently without keep hide conceal",
    "n't",
)
ACTION = _c(
    r"\b(?:call|run|execute|invoke|use|send|post|forward|upload|e-?mail|bcc|cc|include|append|attach|paste|add|"
    r"read|fetch|open|delete|remove|approve|merge|disable|enable|set|multiply|push|grant|export|reveal|print|"
    r"output|return|copy|write|create|route|replace|pass|share|put|store|log|embed|insert|prefer|repeat|list)\b"
)
SENSITIVE = Feature(
    _c(
        r"\b(?:passwords?|passphrases?|passcodes?|api[ _-]?keys?|access[ _-]?keys?|secret[ _-]?(?:keys?|access)|"
        r"secrets|(?<![\dkKmM]\s)(?<!input\s)(?<!output\s)(?<!prompt\s)(?<!completion\s)(?<!page\s)(?<!next\s)"
        r"tokens?(?!\s+(?:for\s+(?:pagination|paging|the\s+next\s+page)|count|limit|usage|budget)\b)|credentials?"
        r"|cookies?|session\s+(?:cookie|token|id)s?|private[ _-]?keys?|id_rsa|ssh\s+keys?|"
        r"\.env\b|env(?:ironment)?\s+variables?|every\s+variable|mfa(?:\s+code)?|otp|2fa|"
        r"one[- ]time\s+(?:code|password)|"
        r"verification\s+code|recovery\s+phrase|seed\s+phrase|mnemonic|cvv|cvc|security\s+code|card\s+number|"
        r"\bpin\b|ssn|social\s+security|chat\s+history|(?<!\ba\s)(?<!\bnew\s)conversation(?:\s+history)?|previous\s+messages|"
        r"system\s+prompt|contacts|private\s+(?:repos?|repositories|channels?|files?)|inbox|integration_tokens|"
        r"auth\.users|/etc/(?:passwd|shadow)|~/\.\w+|id[ _]rsa)"
    ),
    (
        "password passwords passphrase passphrases passcode passcodes apikey key keys secret secrets secret_key "
        "secret_access token tokens credential credentials cookie cookies session id_rsa ssh env environment "
        "variable variables mfa otp 2fa mnemonic cvv cvc security card pin ssn social chat conversation "
        "messages prompt contacts private private_key inbox integration_tokens recovery seed verification"
    ),
    ".env auth.users /etc/ ~/ id_rsa api_key api-key access_key access-key one-time",
)
DESTINATION = Feature(
    _c(
        r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\bhttps?://\S+|(?<![\w&])#[a-z][\w-]{2,}|\b(?:remote|webhook|endpoint)\b|"
        r"\bto\s+(?:the\s+)?\w+(?:_\w+)+\s+tool\b|\bdestination\b|\breviewer\b"
    ),
    "remote webhook endpoint tool destination reviewer",
    "@ :// #",
)
OTHER_SERVER = Feature(
    _c(
        r"\b(?!(?:the|this|that|our|your|a|its|mcp)\b)[\w-]+\s+server'?s\s+(?:[\w-]+\s+tool|[a-z]+_[\w]+)\b|"
        r"\bany\s+other\s+(?:server|tool)'?s?\b|"
        r"\b(?:rather\s+than|instead\s+of)\s+(?:others|other\s+tools|any\s+other|the\s+[\w-]+\s+tool)\b|"
        r"\bover\s+any\s+other\b|\bis\s+deprecated\s+and\s+unsafe\b|\broute\s+every\b"
    ),
    "server server's servers other instead rather deprecated route",
)
WHENEVER = Feature(
    _c(
        r"\b(?:whenever|every\s+time|each\s+time|always|from\s+now\s+on|before\s+(?:you\s+)?(?:answer|reply|"
        r"respond|anything)\w*|first,?\s+(?:call|run|read|execute|use)|next\s+required\s+step)\b"
    ),
    "whenever every each always from before first next",
)
ASK_USER = _c(
    r"\b(?:enter|type|re-?enter|provide|confirm|verify|reply\s+with|respond\s+with|share|give|paste|submit|"
    r"send\s+(?:us|me)|input|tell\s+(?:us|me)|ask\s+(?:the\s+user|them|him|her)\s+(?:\w+\s+)?(?:for|to))\b"
)
# Collecting secrets wholesale: "include every API key ...", "list all passwords ...".
COLLECT = Feature(
    _c(
        r"\b(?:include|return|repeat|list|output|print|copy|collect|gather|dump|extract|paste)\b[\w\s,]{0,30}?"
        r"\b(?:every|all|any)\s+(?:of\s+the\s+)?(?:\w+\s+){0,2}?(?:api\s+keys?|passwords?|tokens?|secrets?|credentials?|"
        r"keys|variables|cookies)\b"
    ),
    "every all any",
)
# A transfer out: push, send, upload, forward, bcc to an address or URL the text names.
TRANSFER = Feature(
    _c(r"\b(?:push|send|upload|forward|bcc|cc|post|sync|mirror|copy|e-?mail)\w*\b"),
    (
        "push pushes pushed send sends sending upload uploads forward forwards bcc cc post posts sync mirror "
        "copy copies email e-mail mail"
    ),
)
LITERAL_DESTINATION = Feature(_c(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\bhttps?://\S+"), "", "@ ://")
# Shell commands that destroy or hand over a machine, in text that tells the model to run or include them.
DANGEROUS = Feature(
    _c(
        r"\brm\s+-\w*r\w*f?\s+(?:/|~|\*|\$HOME)|\bchmod\s+(?:-R\s+)?0?[0-7]{3}\s+(?:-R\s+)?(?:/|~)|"
        r"\b(?:curl|wget)\b[^|\n]{0,200}\|\s*(?:ba|z)?sh\b|\bbase64\s+-d\b[^|\n]{0,80}\|\s*(?:ba)?sh\b|"
        r"\bnc\s+(?:-\w+\s+)*-e\s|/dev/tcp/|\bmkfs\b|\bdd\s+if=\S+\s+of=/dev/|:\(\)\s*\{\s*:\|:&\s*\};:"
    ),
    "rm chmod curl wget base64 nc mkfs dd",
    "/dev/ :(){",
)
ORDER = _c(r"\b(?:must|always|required|include|prefix|run|execute|need\s+to|has\s+to|before)\b")
_NOT = r"(?:must\s+not|mustn't|never|do\s+not|don'?t|should\s+not|shouldn'?t|shall\s+not|may\s+not|cannot|can'?t)"
_ASKED = r"(?:asks?|asked|requests?|requested|confirms?|confirmed|approves?|approved|wants?|says\s+so|agrees?|agreed)"
# An order that restricts the model for the user's safety: it keeps the user's consent, the tool's use or the
# user's secrets safe ("MUST NOT proceed without the user's approval", "only call this tool when the user asks",
# "never share the user's API keys"). Addressed to the model, it is what a careful author writes, not poisoning.
PROTECTIVE = Feature(
    _c(
        rf"\b{_NOT}\b[^.!?\n]{{0,80}}?\b(?:without|unless|until|before)\b[^.!?\n]{{0,40}}?"
        r"\b(?:(?:the\s+)?(?:user|human|customer|owner)|explicit|prior|their|your)\b[^.!?\n]{0,30}?"
        rf"\b(?:approv|consent|confirm|permission|authori[sz]|sign-?off|review|go-?ahead|tell|inform|know|notif"
        rf"|{_ASKED})"
        r"|\b(?:must|should|shall|always|need\s+to|needs\s+to|has\s+to|have\s+to|is\s+required\s+to)\s+"
        r"(?:always\s+|first\s+)*(?:ask|confirm\s+with|check\s+with|get|obtain|seek|request|wait\s+for)\b"
        r"[^.!?\n]{0,40}?\b(?:user|human|approv|consent|confirm|permission)"
        rf"|\bonly\b[^.!?\n]{{0,60}}?\b(?:when|if|after|once)\s+(?:the\s+)?(?:user|human)\s+(?:has\s+)?"
        rf"(?:explicitly\s+|specifically\s+|directly\s+|clearly\s+)?{_ASKED}"
        rf"|\b{_NOT}\s+(?:ever\s+)?(?:call|use|invoke|run|trigger)\s+(?:this\s+tool|this\s+function|it)\b"
        r"(?!\s+(?:and|but|;)\b)"
        rf"|(?P<secret>\b{_NOT}\s+(?:ever\s+)?(?:reveal|share|disclose|expose|send|include|log|store|print|output"
        r"|leak|repeat|display|return|echo|transmit|upload|paste|guess|fabricate|invent)\b[^.!?\n]{0,50}?\b(?:passwords?"
        r"|secrets?|credentials?|api\s*keys?|tokens?|private|personal|pii|sensitive|ssn|card\s+numbers?|data)\b)"
    ),
    "not never don't dont shouldn't mustn't cannot can't only must should shall always",
    "n't",
)
# The user as the one kept from something, which no protective wording excuses: "... to the user", "tell the user".
_TO_USER = _c(
    r"\b(?:to|from|with|tell|inform|notify|alert|show|let)\s+(?:the\s+)?(?:user|human)s?\b(?!['\u2019])"
    r"(?!\s+(?:has|have|asks?|asked|confirms?|approves?|knowing)\b)"
)
USER_SECRET = Feature(
    _c(
        r"\b(?:password|passphrase|passcode|pin|cvv|cvc|security\s+code|card\s+number|full\s+card|otp|"
        r"one[- ]time\s+(?:code|password)|\d-digit\s+code|mfa\s+code|2fa\s+code|verification\s+code|code\s+from|"
        r"seed\s+phrase|recovery\s+phrase|\d+-word|mnemonic|private\s+key|ssn|social\s+security)\b"
    ),
    (
        "password passwords passphrase passcode pin cvv cvc security card otp one digit mfa 2fa verification "
        "code seed recovery mnemonic private ssn social"
    ),
    "-word one-time",
)
# A sentence that opens by describing what the tool does, third person: "Sends the email ...", "It prints ...".
DESCRIBING = _c(r"\W*(?:(?:it|this\s+tool|the\s+tool|this\s+server)\s+)?[a-z]+(?:[^s\W]s|es)\b(?<!\bthis)(?<!\bits)")
NEGATED = _c(
    r"\b(?:never|not|no\s+longer|won'?t|doesn'?t|don'?t|isn'?t|cannot|can'?t|without|nor|neither)\b"
    r"(?!\s+(?:forget|hesitate|fail|neglect|miss|only)\b)"  # "do not forget to send ..." still orders it
    r"[\w\s'/-]{0,60}$"
)
TALKS_ABOUT = _c(
    r"\b(?:detects?|detection|flags?|scans?\s+for|blocks?|prevents?|protects?\s+against|warns?\s+(?:about|of|"
    r"users)|examples?\s+of|such\s+as|e\.g\.|for\s+example|known\s+as|article|explains?|describes?|documents?|"
    r"attacks?|attackers?|injections?|phishing|scams?|malicious|red[- ]team|audits?|classif(?:y|ies)|quiz|"
    r"training)\b"
)
# A sentence ends at . ! ? before a space or the end, or at a line break that does not go on in lower case
# (`rules.CONTINUED`: a wrapped docstring's sentence is one); "example.com" and "v1.2" go on.
# Lazy and without nested repeats, so a 65,536-character run of dots or letters costs one pass.
SENTENCE_END = rf"[.!?]+(?=\s)|\n(?!{GOES_ON})"  # a sentence's end, for the scanner's every reading of context
_SENTENCE = re.compile(rf"(?:[^\n]|{CONTINUED})*?(?:{SENTENCE_END}|[.!?]*$)")


@dataclass(frozen=True)
class Judgement:
    severity: str  # "fail" or "warn"
    why: str  # what the sentence asks, in a few words
    kind: str = "hidden-instruction"  # or ORDER: it only gives the model an order (a prompt's very purpose)


# The kind of a verdict whose only ground is an order addressed to the model: hostile in a description or a
# result, which describe; the purpose of a prompt's messages or a sampling request, which instruct.
ORDER_KIND = "model-order"
CARRIED = 3  # sentences after an address ("SYSTEM:", "Note to the assistant:") read as its orders
ORDERS = "gives the model orders in text meant to describe"
ADDRESSES = "addresses the model directly"
GUIDES = "tells the model how to look something up in text meant to describe"
# Guidance, not an order: the model told to look something up first ("Note to LLM: if unsure, use the
# collection-indexes tool to learn which fields can be used", "If not provided, the agent should list the buckets").
LOOKS_UP = _c(
    r"\b(?:if\s+(?:unsure|in\s+doubt|unknown|not\s+(?:sure|provided|given|specified|known))|to\s+(?:verify|learn"
    r"|check|find\s+out|confirm|discover|see|re-?check|look\s+up|determine|know)|before\s+(?:using|calling))\b"
    r"|\b(?:use|call|run|list|check|read|fetch|get|look\s+up|execute)\b[^.!?\n]{0,60}\b(?:available|valid|existing)\b"
)


def sentences(text: str) -> Iterator[re.Match[str]]:
    for m in _SENTENCE.finditer(text):
        if m.group().strip():
            yield m


def _negated(sentence: str, match: re.Match[str] | None) -> bool:
    return match is not None and NEGATED.search(sentence[: match.start()]) is not None


def _guards(sentence: str) -> bool:
    """The withholding is the protective order itself: each match of COVERT lies in one of PROTECTIVE ("must not
    proceed without telling the user"), or refers back to the user's secrets a protective order named ("never
    reveal the user's password ..., and never include them in a reply"); never when the user is the one kept from
    something ("... to the user", "never tell the user")."""
    guards = [(m.start(), m.end(), m.group("secret") is not None) for m in PROTECTIVE.pattern.finditer(sentence)]
    if not guards or _TO_USER.search(sentence):
        return False
    for m in COVERT.pattern.finditer(sentence):
        inside = any(a < m.end() and m.start() < b for a, b, _ in guards)
        pronoun = re.search(r"\b(?:them|it|these|those)\W*$", m.group(), re.I) is not None
        if not (inside or (pronoun and any(secret and a < m.start() for a, _, secret in guards))):
            return False
    return True


def judge(sentence: str, addressed: bool = False) -> Judgement | None:
    """The verdict on one sentence (see the module docstring), or None. `addressed`: an earlier sentence of
    the same text addressed the model, so this one is read as part of the same order."""
    low = sentence.lower()
    ws = _words_of(low)
    address, override, covert = (
        ADDRESS.search(sentence, low, ws),
        OVERRIDE.search(sentence, low, ws),
        COVERT.search(sentence, low, ws),
    )
    unchecked = UNCHECKED.search(sentence, low, ws)
    action, sensitive = ACTION.search(sentence), SENSITIVE.search(sentence, low, ws)
    destination, other = DESTINATION.search(sentence, low, ws), OTHER_SERVER.search(sentence, low, ws)
    whenever, ask, secret = (
        WHENEVER.search(sentence, low, ws),
        ASK_USER.search(sentence),
        USER_SECRET.search(sentence, low, ws),
    )
    found: list[tuple[bool, str]] = []  # (hostile, why)
    protective = PROTECTIVE.search(sentence, low, ws) is not None
    if ask and secret and not _negated(sentence, ask) and ask.start() < secret.end():
        found.append((True, "asks the user for a secret (phishing)"))
    # "Sends the email without confirmation" discloses what the tool does; "Send it without confirmation" orders
    disclosed = not (address or addressed) and DESCRIBING.match(sentence) is not None
    if override or (unchecked and (action or address) and not _negated(sentence, unchecked) and not disclosed):
        found.append((True, "tells the model to set aside its rules"))
    withheld = covert and (action or address) and "until" not in sentence[covert.end() :].lower()
    if withheld and not (protective and _guards(sentence)):
        found.append((True, "asks the model to keep something from the user"))
    collect = COLLECT.search(sentence, low, ws)
    if collect and not _negated(sentence, collect):
        found.append((True, "asks the model to collect secrets wholesale"))
    transfer = TRANSFER.search(sentence, low, ws)
    if whenever and transfer and LITERAL_DESTINATION.search(sentence, low, ws) and not _negated(sentence, transfer):
        found.append((True, "orders a standing transfer to an address or URL it names"))
    dangerous = DANGEROUS.search(sentence, low, ws)
    if dangerous and (ORDER.search(sentence) or address or addressed):
        found.append((True, f"tells the model to run a destructive command ({dangerous.group()[:40]})"))
    if action and sensitive and destination and not _negated(sentence, action):
        found.append((True, "asks the model to send something sensitive somewhere"))
    if other and (action or whenever):
        found.append((True, "changes how the model uses another server's or tool's functions (shadowing)"))
    if (address or addressed) and (action or whenever or sensitive):
        looks_up = not (whenever or sensitive) and LOOKS_UP.search(sentence) is not None
        found.append((not looks_up, GUIDES if looks_up else ORDERS))
    ordered = whenever and action and sensitive and whenever.start() < action.start() < sensitive.start()
    if ordered and not _negated(sentence, action):
        found.append((True, "tells the model to hand over something sensitive as a standing order"))
    if not found and address:
        found.append((False, ADDRESSES))
    if not found or (protective and {why for _, why in found} <= {ORDERS, ADDRESSES, GUIDES}):
        return None  # nothing asked, or an order that only restricts the model for the user's safety
    hostile = [why for bad, why in found if bad]
    kind = ORDER_KIND if {why for _, why in found} <= {ORDERS, ADDRESSES, GUIDES} else "hidden-instruction"
    if hostile and not TALKS_ABOUT.search(sentence):
        return Judgement("fail", hostile[0], kind)
    return Judgement("warn", (hostile or [found[0][1]])[0] + (" (in a text about attacks)" if hostile else ""), kind)


# What every verdict of `judge` needs at least one of (phishing needs USER_SECRET, exfiltration SENSITIVE or a
# destination, a standing transfer a destination).
_GATE = (
    ADDRESS,
    OVERRIDE,
    UNCHECKED,
    COVERT,
    USER_SECRET,
    COLLECT,
    DANGEROUS,
    OTHER_SERVER,
    SENSITIVE,
    LITERAL_DESTINATION,
)


def judge_text(text: str) -> Iterator[tuple[re.Match[str], Judgement]]:
    """Each sentence of `text` with its verdict, where there is one. Once a sentence addresses the model
    ("SYSTEM:", "Note to the assistant:"), the CARRIED sentences after it are read as its orders."""
    lowered = text.lower()
    words = _words_of(lowered)
    if not any(p.present(lowered, words) for p in _GATE):
        return  # every verdict needs one of these somewhere in the text: most texts end here
    left = 0  # sentences still read as the order an address began
    for m in sentences(text):
        verdict = judge(m.group(), left > 0)
        guides = verdict is not None and verdict.why == GUIDES  # guidance carries no order to what follows
        left = CARRIED if ADDRESS.search(m.group()) is not None and not guides else max(0, left - 1)
        if verdict is not None:
            yield m, verdict
