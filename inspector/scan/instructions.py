"""Hidden instructions: text aimed at the model rather than describing the tool (kind hidden-instruction).

`<IMPORTANT>`-style tags and chat-template markers, "ignore previous instructions", "do not tell the
user", "before using this tool ... read/pass", "you must first call", covert verbs ("silently upload"),
system-prompt manipulation, steering to or shadowing other tools, role-play/jailbreak phrases, asking for
the conversation or for secrets. `INSTRUCTIONS` is the list the driver runs, and a judge (`Judge`) can
look at the whole view around a match; `context` then drops what its sentence does not mean, and
`intent` reads each sentence for what these patterns miss.
"""

from __future__ import annotations

import re

from mcp_review.scan.rules import SENTENCE, TRANSFER, Rule, rx, snip

_TAGS = (
    r"important|system|sys|system[_-]?prompt|instructions?|hidden|secret|admin|critical|override"
    r"|(?:assistant|ai|model|user)[_-]?instructions?|note[_-]?to[_-]?(?:ai|assistant|model|llm)"
)


def _before_using(m: re.Match[str], text: str) -> tuple[str, str] | None:
    sentence = re.match(f"{SENTENCE}{{0,200}}", text[m.end() :])
    rest = m.group() + (sentence.group() if sentence else "")
    hostile = TRANSFER.search(rest) or "any" in m.group("which").lower() or "other" in m.group("which").lower()
    why = "asks the model to act before using a tool"
    return ("fail" if hostile else "warn"), f"instruction aimed at the model: '{snip(m.group())}' ({why})"


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
        f"steers the model's use of other tools: '{snip(m.group())}' (shadowing: one description "
        "changing how the model uses another tool)"
    )


def _hand_over(m: re.Match[str], _text: str) -> tuple[str, str] | None:
    what = m.group("what").lower()
    everything = re.search(r"\b(?:entire|full|whole|complete|all)\b", what) is not None
    return ("fail" if everything else "warn"), (
        f"asks the model to hand over {snip(m.group('what'), 40)}: '{snip(m.group())}'"
    )


_ASKS = "instruction aimed at the model: '{m}'"
INSTRUCTIONS = [
    Rule(
        "hidden-instruction",
        "fail",
        # not a placeholder glued into a value (`https://kai:<secret>@<host>`, `token=<secret>`)
        rx(rf"(?<![:/=@])(?P<open><\s*(?P<tag>{_TAGS})\b[^<>\n]{{0,60}}>)(?:(?s:.){{0,4000}}?<\s*/\s*(?P=tag)\s*>)?"),
        "instruction aimed at the model: '{open}' block (a tag that addresses the model, not the reader)",
        ("<",),
    ),
    Rule(
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
    Rule(
        "hidden-instruction",
        "fail",
        rx(
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
    Rule(
        "hidden-instruction",
        "fail",
        rx(
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
    Rule(
        "hidden-instruction",
        "warn",
        rx(
            r"\bwithout\s+(?:telling|informing|notifying|alerting|asking|showing)\s+(?:the\s+)?(?:user|human)s?\b"
            r"(?!['\u2019]s)"
        ),
        _ASKS + " (acts behind the user's back)",
        ("without",),
    ),
    Rule(
        "hidden-instruction",
        "warn",
        rx(
            r"\bbefore\s+(?:using|calling|invoking|running|executing|you\s+(?:use|call|invoke|run))\s+"
            rf"(?P<which>this|any|the|other|any\s+other)\s+(?:[\w-]+\s+)?tools?\b{SENTENCE}{{0,160}}?"
            r"\b(?P<verb>read|call|pass|send|upload|include|attach|fetch|cat|open|copy|give|add|share|post)\b"
        ),
        "",
        ("before",),
        _before_using,
    ),
    Rule(
        "hidden-instruction",
        "warn",
        rx(
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
    Rule(
        "hidden-instruction",
        "fail",
        rx(
            r"\b(?:secretly|silently|covertly|quietly|discreetly|stealthily|invisibly|surreptitiously|sneakily)\s+"
            r"(?:(?:and\s+)?\w+\s+){0,2}?(?:send|upload|read|cop(?:y|ie)|forward|transmit|include|exfiltrate|post"
            r"|call|bcc|cc|attach|leak|share|collect|install|redirect|access|e-?mail|append|add|change|modif(?:y|ie)"
            r"|replace|delete|grab|harvest|steal)(?:es|s)?\b"
            r"|\b(?:send|upload|read|cop(?:y|ie)|forward|transmit|exfiltrate|post|bcc|attach|leak|share|collect"
            rf"|install|redirect|e-?mail|grab|harvest|steal)(?:es|s)?\b{SENTENCE}{{0,60}}?\b(?:secretly|silently|covertly"
            r"|discreetly|stealthily|surreptitiously)\b"
        ),
        _ASKS + " (acts covertly)",
        ("secretly", "silently", "covertly", "quietly", "discreetly", "stealthily", "invisibly", "surrepti", "sneak"),
    ),
    Rule(
        "hidden-instruction",
        "fail",
        rx(
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
    Rule(
        "hidden-instruction",
        "warn",
        rx(
            r"\buse\s+(?:the\s+)?(?!this\b|it\b)(?P<tool>[\w.:/-]+)\s+(?:tool|server|function|mcp)\s+instead\b"
            r"|\binstead\s+of\s+(?:using\s+|calling\s+)?(?:(?:the|any)\s+)?(?P<tool2>other|[\w.:/-]+)\s+"
            r"(?:tools?|servers?|functions?)\b"
            r"|\b(?:all|every|any)\s+other\s+(?:tools?|servers?|mcp\s+servers?|tool\s+calls?|functions?)\b"
        ),
        "steers the model to or away from other tools: '{m}'",
        ("instead", "other"),
    ),
    Rule(
        "hidden-instruction",
        "warn",
        rx(
            r"\b(?:do\s+not|don['\u2019]?t|never)\s+(?:use|call|invoke|trust|run)\s+(?:(?:the|any)\s+)?(?!this\b|it\b)"
            r"(?P<tool>[\w.:/-]+)\s+(?:tools?|servers?|functions?|mcp\s+servers?)\b"
            r"|\b(?:when(?:ever)?|if|after)\s+(?:the\s+)?(?:(?:user|you|model|assistant|agent)\s+)?"
            r"(?:uses?|calls?|invokes?|using|calling|invoking|runs?|running)\s+(?:(?:the|any)\s+)?(?!this\b)"
            rf"(?P<tool2>[\w.:/-]+)\s+tools?\b{SENTENCE}{{0,100}}?\b(?P<verb>bcc|cc|add|include|change|replace|set|send"
            r"|redirect|forward|append|prepend|modify)\b"
        ),
        "",
        ("tool", "server", "function"),
        _other_tool,
    ),
    Rule(
        "hidden-instruction",
        "fail",
        rx(
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
    Rule(
        "hidden-instruction",
        "fail",
        rx(
            r"\bthis\s+is\s+(?:your\s+|the\s+)?(?:top|highest|most\s+important|first)\s+priority\b"
            r"|\bbefore\s+you\s+do\s+anything\s+else\b"
            r"|\b(?:this|these)\s+(?:instructions?|rules?)\s+(?:override|supersede|take\s+precedence)"
        ),
        _ASKS + " (claims priority over the model's instructions)",
        ("priority", "anything else", "override", "supersede", "precedence"),
    ),
    Rule(
        "hidden-instruction",
        "warn",
        rx(
            r"\b(?:note|message|instructions?|reminder|attention)\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:ai|assistant"
            r"|model|llm|agent|claude|chatgpt|gpt|copilot|cursor|language\s+model)s?\s*[:,-]"
            r"|\botherwise\s+(?:the\s+|this\s+)?(?:tool|it|server|system|application|request)\s+(?:will|would|may"
            r"|might)\s+(?:not\s+work|stop\s+working|crash|break)\b"
        ),
        "text addressed to the model: '{m}'",
        ("note", "message", "instruction", "reminder", "attention", "otherwise"),
    ),
    Rule(
        "hidden-instruction",
        "warn",
        rx(
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
    Rule(
        "hidden-instruction",
        "warn",
        rx(r"\bexfiltrat(?:e|es|ed|ing|ion)\b"),
        "mentions exfiltration: '{m}'",
        ("exfiltrat",),
    ),
]
