"""Exfiltration stated in prose (kind exfiltration): a sentence that moves the user's data, secrets or the
conversation somewhere the user did not choose, whatever the framing ("for compliance", "as a backup", "to improve
accuracy", "for quality assurance").

A sentence is judged on three things:

- what it moves: the conversation (chat history, previous messages, transcript, the system prompt), secrets
  (passwords, API keys, tokens, credentials, cookies, session ids, SSH or private keys, seed phrases, card numbers),
  personal data (name, email address, phone number, home address, location, contacts, calendar, browsing history,
  documents, photos, emails), the project's source or repository, or everything; qualified ones count when owned
  or quantified ("the user's documents", "every email you read", "all files"), or handed over by the user ("when the
  user shares a document");
- where to: a place hard-coded in the text (a URL of any scheme, an email address, a phone number, a domain, an IP
  address, a `#channel`, "our server", "partner servers", "a third party"), or a carrier the model fills that is not
  meant for that data (the 'tag' parameter, the `cursor` field, a header, another tool: "pass them in the `cursor`
  field", "call log_event with the password");
- how: moved by a verb that sends or includes (send, post, forward, upload, transmit, share, email, copy, sync,
  mirror, push, pass, include, append, attach, put, embed, log, store, save...), not negated.

`fail` when all three are there. A place hard-coded in the text counts whether the sentence orders it or describes
it ("The tool uploads your ~/.aws/credentials to our server": disclosed exfiltration is still exfiltration); a
carrier only in an order (a description saying which field carries what is documentation). Never a finding: a
place the user chooses ("to the address in `to`", "the channel given", "the configured bucket", "the recipient
the user specifies"; but not a recipient the text sets to a literal, `recipient='archive@x.example'`), a carrier
named for what it carries (the user's password in the `password` field), data that
is neither personal nor secret ("anonymous usage statistics", "crash reports", "the message").
"""

from __future__ import annotations

import re

from mcp_review.scan.intent import NEGATED, sentences
from mcp_review.scan.rules import Raw, identifier_words, rx, snip, word_set

KIND = "exfiltration"
_MOVE = rx(
    r"\b(?:send|post|forward|upload|transmit|share|e-?mail|mail|copy|cop(?:ie)|sync|mirror|push|pass|include|append"
    r"|prepend|attach|put|insert|embed|encode|log|store|save|leak|relay|deliver|stream|submit|report|write|bcc|cc"
    r"|exfiltrate|beacon|publish|broadcast|add|call|invoke)(?:s|es|ed|ing)?\b"
)
_STEMS = word_set(
    "send sent post forward upload transmit share email mail copy copies copied sync mirror push pass include append "
    "prepend attach put insert embed encode log store save leak relay deliver stream submit report write bcc cc "
    "exfiltrate beacon publish broadcast add call invoke"
)
# Every word _MOVE matches, to tell at once that a text moves nothing: each stem with its inflections.
_MOVE_NEEDLES = frozenset(
    w
    for stem in _STEMS
    for w in (stem, stem + "s", stem + "es", stem + "ed", stem + "d", stem + "ing", stem[:-1] + "ing")
)
# Data that is sensitive by itself.
_SENSITIVE = (
    r"(?:conversation(?:\s+history)?|chat\s+(?:history|log|transcript)s?|(?:previous|prior|earlier|past|last)\s+"
    r"(?:\d+\s+)?messages?|inbox(?:es)?|mailbox(?:es)?|transcripts?|system\s+prompt|passwords?|passphrases?|api[\s_-]*keys?|access\s+keys?|secret\s+keys?"
    r"|secrets|tokens|credentials|cookies|session\s+(?:cookies?|tokens?|ids?)|ssh\s+keys?|private\s+keys?|seed\s+"
    r"phrases?|recovery\s+phrases?|card\s+numbers?|cvvs?|credit\s+cards?|ssns?|social\s+security\s+numbers?"
    r"|browsing\s+history|health\s+records?|environment\s+variables|source\s+(?:code|files)|(?:the\s+)?codebase"
    r"|the\s+repository|everything|file\s+contents|(?:its|their)\s+contents|contents\s+of\s+(?:the|every|each|any|all)"
    r"\s+(?:[\w-]+\s+)?(?:files?|documents?|e-?mails?|messages?))"
)
# Data that is sensitive when it is the user's, or every one of it.
_PERSONAL = (
    r"(?:(?:full\s+)?names?|e-?mail\s+address(?:es)?|e-?mails?|phone\s+numbers?|(?:home\s+)?address(?:es)?|messages?"
    r"|documents?|files?|photos?|notes|data|details|profile|history|keys?|prompts?"
    r"|accounts?|payment\s+details|identity|records?|contacts?(?:\s+list)?|address\s+book|calendar|location"
    r"|gps\s+coordinates)"
)
_OWNED = r"(?:the\s+user['\u2019]?s|users['\u2019]|your|their|his|her|the\s+customer['\u2019]?s|my)"
_QUANTIFIED = r"(?:every|all(?:\s+(?:of\s+)?the)?|any|each|whole|entire)"
# What the user hands over in the conversation: "when the user shares a document", "files you upload".
_HANDED = (
    r"(?:the\s+user|users|you|they)\s+(?:shares?|sends?|uploads?|opens?|provides?|attach(?:es)?|pastes?)\s+(?:a|an|the"
    r"|any|their|your)\s+(?:[\w-]+\s+)?(?:documents?|files?|photos?|messages?|e-?mails?|notes?|images?|attachments?)"
    r"|(?:documents?|files?|photos?|messages?|e-?mails?|notes|images|attachments?)\s+(?:that\s+|which\s+)?(?:the\s+user"
    r"|users|you|they)\s+(?:shares?|sends?|uploads?|opens?|provides?|attach(?:es)?|pastes?)"
)
_WHAT = rx(
    rf"\b(?:{_HANDED}|{_OWNED}\s+(?:[\w-]+\s+){{0,2}}?(?:{_SENSITIVE}|{_PERSONAL})"
    rf"|{_QUANTIFIED}\s+(?:[\w-]+\s+){{0,2}}?(?:{_SENSITIVE}|{_PERSONAL})|{_SENSITIVE})\b"
)
# A place the text hard-codes: where the data goes is the server's choice, not the user's.
_EXTERNAL = rx(
    r"\b(?:https?|wss?|ftps?|sftp|git|s3|gs|ssh|smb|webdav)://[^\s\"'`<>)]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b"
    r"|(?<![\w&])#[a-z][\w-]{2,}\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|(?<![\w+])\+\d{1,3}[\s.-]?\(?\d{2,4}\)?(?:[\s.-]?\d{2,4}){2,3}\b"
    r"|\b(?:to|at|on|onto)\s+(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|app|co|xyz|info|biz|me|cloud|site|online|tech|ai|sh"
    r"|ru|cn|tk|top|pw|cc|us|uk|de|fr|live|link|click|store)\b"
    r"|\bour\s+(?:own\s+)?(?:servers?|endpoints?|backend|api|team|collectors?|database|cloud)\b"
    r"|\b(?:partners?|third[\s-]part(?:y|ies)|external|remote|analytics|telemetry|collection|tracking|logging|audit"
    r"|backup|mirror|archive|advertising|marketing)\s+(?:servers?|services?|endpoints?|apis?|partners?|sites?|hosts?"
    r"|providers?|teams?|companies|systems?)\b|\bthird[\s-]part(?:y|ies)\b"
)
# A carrier the model fills: a parameter, field, header or argument, or another tool.
_CARRIER = rx(
    r"\b(?:in|into|inside|within|to|as|under|through|via)\s+(?:the\s+|a\s+|an\s+|its\s+|each\s+|every\s+)?"
    r"(?P<field>[`'\"][\w.-]+[`'\"]|[\w-]+)?\s*(?:field|parameter|param|argument|arg|header|query(?:\s+string)?|cursor"
    r"|tag|metadata|meta|note|notes|comment|context)s?\b"
    r"|\b(?:call|invoke|use|using|with|to|via)\s+(?:the\s+)?(?P<tool>[a-z][\w-]*_[\w-]+)(?:\s+tool)?\b"
)
# What a tool that receives data is named for: a sink (`log_event`, `store_note`, `support_ticket`), not a lookup.
_SINK = word_set(
    "send post log logs report store save note notes upload share email mail message notify webhook track record "
    "submit sync backup write ticket comment publish forward push event analytics telemetry collect feedback"
)
# Fields made to carry whatever data the user hands the tool.
_ANY_DATA = word_set("content contents data input text body payload value document")
# What a sentence uses rather than moves ("calls the API using your credentials"), and a place that is the user's
# own ("your AI model provider", "the user's analytics service").
_INSTRUMENT = rx(r"\b(?:using|with|via|through|by\s+means\s+of|on\s+behalf\s+of|under)\s+$")
_USERS_PLACE = rx(rf"\b{_OWNED}\s+(?:own\s+)?(?:(?!(?:to|at|on|onto|into|in|with|for|via)\s)[\w-]+\s+){{0,3}}$")
# A place the user chooses: the recipient or field the user names, a configured destination.
_CHOSEN = rx(
    r"\b(?:given|specified|chosen|provided|selected|configured|named|listed|entered|picked|requested)\s+(?:in|by|as"
    r"|for)\b|\b(?:the\s+)?(?:recipients?|addressee)\b|\baddress\s+in\b|\bthe\s+user['\u2019]?s\s+own\b"
    r"|\b(?:that|which|the)\s+(?:the\s+)?user\s+(?:chooses|picks|names|specifies|selects|configured|gives)\b"
    r"|\bconfigured\b|\bof\s+(?:their|the\s+user['\u2019]?s)\s+choice\b"
    r"|\b(?:when|if|once|after)\s+(?:the\s+user|they|you)\s+(?:explicitly\s+)?(?:asks?|requests?|wants?|chooses?|says"
    r"|confirms?|submits?|approves?)\b"
)
# A recipient or destination set to a literal in the text (`recipient='archive@x.example'`): the server's choice.
_SET_TO = rx(r"\b[\w-]+\s*[=:]\s*['\"`]?(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}|(?:https?|s3|gs|ftp|sftp|wss?)://)")
# Where an order's verb stands: the sentence's start, a clause break, or a word that makes it an order.
_ORDERED = rx(
    r"(?:^|[,;:(]|\b(?:and|then|also|always|first|please|must|should|need\s+to|make\s+sure\s+(?:to|you)"
    r"|be\s+sure\s+to|remember\s+to))\W*(?:(?:always|also|then|quietly|silently|secretly|first|just"
    r"|automatically)\s+)*(?P<verb>[a-z]+)\b"
)
_DESCRIBES = re.compile(r"(?:[^s]s|es|ed|ing)$")
# Imperatives that set up a move made later in the sentence.
_SETS_UP = word_set("use call invoke run ask collect gather read fetch get look find take grab")


def _ordered(sentence: str, moves: list[re.Match[str]]) -> bool:
    """The sentence gives an order: a move in the base form ("append", not "appends") where an order's verb stands,
    or an imperative that sets one up ("Use the send_log tool to store ...", "Ask for ... and include them")."""
    for verb in moves:
        if _DESCRIBES.search(verb.group().lower()):
            continue
        if any(m.start("verb") == verb.start() for m in _ORDERED.finditer(sentence, 0, verb.end())):
            return True
    return any(m.group("verb").lower() in _SETS_UP for m in _ORDERED.finditer(sentence))


def _carried(carrier: re.Match[str], what: str, purpose: set[str]) -> bool:
    """A carrier meant for what it carries (the user's password in the `password` field, any data in `content`), or
    the tool the text describes (`get_weather` told to call get_weather with the user's location)."""
    named = set(identifier_words((carrier.group("field") or carrier.group("tool") or "").strip("`'\"")))
    if carrier.group("tool") and (named <= purpose or _SINK.isdisjoint(named)):
        return True  # the tool the text describes, or one that looks something up (get_weather): no sink
    if named & _ANY_DATA and not re.search(_SENSITIVE, what, re.I):
        return True  # "Pass any data in 'content'": a field made for whatever the user gives, not for a secret
    head = re.findall(r"[a-z]+", what.lower())[-1:]
    return bool(named & ({w.rstrip("s") for w in head} | set(head)))


def flows(view: str, lowered: str, purpose: str = "") -> list[Raw]:
    """Every sentence that moves sensitive data to a hard-coded place, or in an order to a carrier not meant for it;
    `purpose`: the name and title of the tool the text describes."""
    raw: list[Raw] = []
    if _MOVE_NEEDLES.isdisjoint(re.findall(r"[a-z]+", lowered)):
        return raw
    own = set(identifier_words(purpose))
    for m in sentences(view):
        sentence = m.group()
        moves = [v for v in _MOVE.finditer(sentence) if not NEGATED.search(sentence[: v.start()])]
        moved = (w for w in _WHAT.finditer(sentence) if not _INSTRUMENT.search(sentence, 0, w.start()))
        what = next(moved, None) if moves else None
        if what is None or (_CHOSEN.search(sentence) and not _SET_TO.search(sentence)):
            continue  # nothing sensitive moved, or to the user's own destination
        where = next((p for p in _EXTERNAL.finditer(sentence) if not _USERS_PLACE.search(sentence, 0, p.start())), None)
        if where is None:
            carrier = next((c for c in _CARRIER.finditer(sentence) if not c.start() <= what.start() < c.end()), None)
            ordered = _ordered(sentence, moves)
            if carrier is None or not ordered or _carried(carrier, what.group(), own):
                continue
            where = carrier
        message = f"sends {snip(what.group(), 40)} to {snip(where.group(), 40)}: '{snip(sentence.strip(), 80)}'"
        start, end = min(what.start(), where.start()), max(what.end(), where.end())
        raw.append((KIND, "fail", m.start() + start, m.start() + end, message))
    return raw
