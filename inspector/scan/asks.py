"""What a definition or a form asks for, beyond its text: secrets, context, a preset copy recipient.

A parameter is text the model fills: one named `aws_secret_access_key` on a calculator, or `tools_list` on a
multiplier, asks the model to hand over what the tool's purpose never needs. `parameter_asks(tool)` says so
when none of the parameter's own words (less generic ones: key, token, id, file...) occurs in the tool's name,
title or description; a login tool's `password`, a GitHub tool's `github_token` and a parameter whose own
description says what it is for in the tool's terms (`admin_password`: "Password for the WordPress admin account" on
`deploy_wordpress`) pass. `token` that names a count (`max_tokens`, `prompt_tokens`) or a crypto token (`tokenName`,
`tokenTicker`, `token_address`) asks for no secret. A copy field
(`bcc`, `forward_to`) whose default or example is an address sends a copy unless the model overrides it.
`form_asks_secret(params)` names the fields of a form-mode elicitation that ask the user for a secret.
"""

from __future__ import annotations

import re

from mcp_review.scan.rules import identifier_words, word_set

SECRET_WORDS = word_set(
    "password passwd passphrase passcode pin cvv cvc otp mfa totp 2fa seed mnemonic recovery ssn secret "
    "secrets token tokens credential credentials apikey cookie cookies"
)
SECRET_PAIRS = ("api key", "private key", "card number", "security code", "access key", "session id")
CONTEXT_WORDS = word_set("conversation history transcript tools memory")
CONTEXT_PAIRS = ("tools list", "tool list", "system prompt", "chat history", "previous messages", "available tools")
FILE_WORDS = word_set("ssh rsa ed25519 dotenv aws kube kubeconfig npmrc netrc pgpass gnupg keychain wallet")
# `env` alone names a deployment ("env": "staging"); with one of these it names the environment's secrets.
ENV_CONTENTS = word_set("file files contents content vars variables dump")
# Words that say nothing about a tool's purpose: a parameter made only of these is not judged by name.
GENERIC = word_set(
    "the a an of for to in and or your user id value key keys access secret api token content contents "
    "file files text data string required optional input param field new old list"
)
# A tool whose purpose is signing in or holding secrets is expected to take one.
AUTH_PURPOSE = word_set(
    "login logon log signin sign auth authenticate authentication authorize credential credentials "
    "account session password passwords token tokens key keys secret secrets vault keychain register "
    "signup"
)
QUANTITY = word_set(
    "max min count limit num number total budget usage remaining per input output prompt completion context "
    "reasoning cached cache used estimated estimate window"
)
# What follows `token` when it names a counted or a crypto token, not a credential: tokenName, token_ticker,
# tokenAddress, token_id (an NFT), token_count.
TOKEN_ATTRIBUTES = word_set(
    "name names ticker symbol symbols address addresses contract mint decimals supply amount amounts balance "
    "balances price prices standard type uri metadata list count counts limit limits usage budget length size "
    "estimate ids id holder holders pair pairs chain network logo icon info details"
)
# Words too common to tie a parameter's description to its tool's purpose.
_PLAIN = word_set("this that with from when will must used uses using which into more than been have each")
COPY_FIELDS = word_set("bcc cc forward forward_to copy_to archive reply_to")


def _asks(words: list[str]) -> str | None:
    """What a field named by `words` asks for: "a secret", "the conversation or tool context", or None."""
    joined = " ".join(words)
    dotenv = "env" in words and not ENV_CONTENTS.isdisjoint(words)
    if (FILE_WORDS.intersection(words) or dotenv) and not {"pub", "public"}.intersection(words):
        return "a secret file's contents"
    secret = SECRET_WORDS.intersection(words) - ({"token", "tokens"} if _counted(words) else set())
    if secret or any(pair in joined for pair in SECRET_PAIRS):
        return "a secret"
    if CONTEXT_WORDS.intersection(words) and ("list" in words or "history" in words):
        return "the conversation or tool context"
    if any(pair in joined for pair in CONTEXT_PAIRS):
        return "the conversation or tool context"
    return None


def _counted(words: list[str]) -> bool:
    """`token` names a count or a crypto token: max_tokens, prompt_tokens (a budget), tokenName, tokenTicker."""
    at = [i for i, w in enumerate(words) if w in ("token", "tokens")]
    return bool(at) and all(
        (i > 0 and words[i - 1] in QUANTITY) or (i + 1 < len(words) and words[i + 1] in TOKEN_ATTRIBUTES) for i in at
    )


# Whose secret a parameter's description says it is: "Password for the WordPress admin account", "The WordPress
# admin password", "Token used to access the Jira API".
_WHOSE = re.compile(
    r"\b(?P<before>(?:[\w-]+\s+){0,3})(?:password|passphrase|passcode|pin|key|token|secret|credentials?)s?\b"
    r"(?:\s+(?:for|of|to|used\s+(?:for|by|to))\s+(?:(?:access|log\s+in(?:to|\s+to)?|connect(?:\s+to)?|sign\s+in\s+to"
    r"|authenticate\s+(?:with|to|against))\s+)?(?P<after>(?:[\w-]+\s*){0,4}))?",
    re.I,
)


def _documented(sub: object, purpose: set[str]) -> bool:
    """The parameter's own description says whose secret it is, in the tool's terms ("Password for the WordPress
    admin account" on deploy_wordpress): a word of four or more letters next to the secret's name that the tool's
    name, title or description says too. A word elsewhere in it ("... needed to verify the numbers") is no owner."""
    said = sub.get("description") if isinstance(sub, dict) else None
    if not isinstance(said, str):
        return False
    for m in _WHOSE.finditer(said[:500]):
        near = re.findall(r"[a-z0-9]+", f"{m.group('before')} {m.group('after') or ''}".lower())
        if ({w for w in near if len(w) >= 4} - GENERIC - _PLAIN - SECRET_WORDS) & purpose:
            return True
    return False


def parameter_asks(raw: dict[str, object]) -> list[tuple[str, str]]:
    """(where, why) for each input property of a tool definition that asks the model for a secret or for its
    context when the tool's name and description never say why it would need it, and each copy field
    (`bcc`, `forward_to`) whose default or example sends a copy to an address."""
    schema = raw.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return []
    said = " ".join(str(raw.get(k) or "") for k in ("name", "title", "description"))
    purpose = {*identifier_words(said), *re.findall(r"[a-z0-9]+", said.lower())}  # "GitHub" is github and git hub
    out = []
    for name, sub in props.items():
        words = identifier_words(str(name))
        what = _asks(words)
        specific = [w for w in words if w not in GENERIC]
        # a login tool takes a password; a parameter whose description says what it is for, in the tool's terms
        expected = what == "a secret" and (not AUTH_PURPOSE.isdisjoint(purpose) or _documented(sub, purpose))
        if what and specific and not expected and not purpose.intersection(specific):
            out.append(
                (
                    f"inputSchema.properties.{name}",
                    f"asks the model for {what} ({name!r}) that the tool's name and description never say it needs",
                )
            )
        if isinstance(sub, dict) and COPY_FIELDS.intersection([str(name).lower()]):
            preset = [sub.get("default"), sub.get("const"), *(sub.get("examples") or [])]
            for value in preset:
                if isinstance(value, str) and re.search(r"@[\w-]+\.|https?://", value):
                    out.append(
                        (
                            f"inputSchema.properties.{name}",
                            f"sends a copy to {value[:60]!r} unless the model overrides it (a preset recipient)",
                        )
                    )
                    break
    return out


def form_asks_secret(params: dict[str, object]) -> list[str]:
    """The fields of a form-mode `elicitation/create` that ask the user for a secret. The spec (2025-06-18 on)
    says servers MUST NOT request sensitive information through form elicitation."""
    if params.get("mode", "form") != "form":
        return []
    schema = params.get("requestedSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    out = []
    for name, sub in props.items() if isinstance(props, dict) else []:
        label = (
            " ".join(str(v) for v in (name, *(sub.get(k, "") for k in ("title", "description"))) if v)
            if isinstance(sub, dict)
            else str(name)
        )
        if _asks(identifier_words(label)) in ("a secret", "a secret file's contents"):
            out.append(str(name))
    return out
