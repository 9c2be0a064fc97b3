"""The trust boundary, piece by piece: parsing server text within bounds, masking secrets in any encoding,
refusing other origins, validating schemas offline, the time budget, terminal-safe sinks and process
trees. tests/hostile/test_hostile.py proves the same end to end against hostile servers; these say which piece broke.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from mcp_review.connection import procs
from mcp_review.connection.channel import Budget, BudgetSpent
from mcp_review.connection.egress import EgressRefused, guarded_client, origin_of, session_id_valid
from mcp_review.localschema import remote_refs, validate
from mcp_review.output import SafeStream, terminal_safe
from mcp_review.redact import MASK, Redactor
from mcp_review.untrusted import DEEP, MAX_DEPTH, MAX_STRING, Unusable, depth_of, original_length, parse_message
from tests.support import eventually

SECRET = "ghp_" + "a1B2c3D4e5" * 3


# ------------------------------------------------------------------------------------------ redaction
@pytest.mark.parametrize(
    "form",
    [
        SECRET,
        "\\u0067" + SECRET[1:],  # one character JSON-escaped
        "".join(f"\\u{ord(c):04x}" for c in SECRET),  # all of them
        "%67" + SECRET[1:],
        "&#103;" + SECRET[1:],
        SECRET.encode().hex(),
        base64.b64encode(SECRET.encode()).decode(),
        base64.b64encode(f"Bearer {SECRET}".encode()).decode(),  # inside a longer base64 string
        base64.urlsafe_b64encode(f"u:{SECRET}?".encode()).decode(),
    ],
)
def test_a_secret_is_masked_in_every_form(form):
    redactor = Redactor([SECRET])
    text = f"before {form} after"
    assert redactor.needed(text)
    masked = redactor.text(text)
    assert MASK in masked and SECRET not in masked and form not in masked


def test_masking_leaves_other_text_alone():
    redactor = Redactor([SECRET, "ab"])  # too short to be a secret: never masked
    text = "a plain description with ab and ghp_short"
    assert not redactor.needed(text) and redactor.text(text) is text


# ------------------------------------------------------------------------------------------- parsing
def test_deep_nesting_is_cut_and_said():
    parsed = parse_message('{"jsonrpc":"2.0","id":1,"result":' + "[" * 100000 + "]" * 100000 + "}")
    assert depth_of(parsed.value) == MAX_DEPTH and DEEP in json.dumps(parsed.value)
    assert parsed.value["id"] == 1 and any("deeper" in n for n in parsed.notes)


def test_huge_integers_surrogates_and_long_strings_are_kept_safe():
    digits, long = "9" * 9000, "L" * (MAX_STRING + 10)
    text = '{"n":' + digits + ',"s":"\\ud800x","long":"' + long + '"}'
    value = parse_message(text).value
    assert value["n"].startswith("<integer of 9000 digits")
    assert value["s"] == "\ufffdx"
    value["s"].encode()  # no lone surrogate left to raise
    assert len(value["long"]) < MAX_STRING + 100 and original_length(value["long"]) == MAX_STRING + 10


def test_too_many_values_is_refused_before_parsing():
    with pytest.raises(Unusable, match="values"):
        parse_message("[" + "{}," * 2_100_000 + "{}]")
    assert parse_message('{"s": "' + "{," * 1_100_000 + '"}').value  # brackets inside a string do not count


def test_secrets_are_masked_at_parse_time():
    parsed = parse_message(json.dumps({"t": f"x {SECRET}"}).replace("g", "\\u0067", 1), Redactor([SECRET]))
    assert parsed.value == {"t": f"x {MASK}"} and "secret values masked" in parsed.notes


def test_secrets_in_cut_strings_are_looked_for_in_what_is_kept():
    """Where strings are cut, secrets are looked for in the kept value, not the raw text: one escaped into the
    kept start of a long string, another in a short string beside it, and a key, are all masked."""
    escaped = json.dumps(SECRET).replace("g", "\\u0067", 1)[1:-1]
    text = '{"long": "' + escaped + "x" * MAX_STRING + '", "short": "' + SECRET + '", "' + SECRET + '": 1}'
    parsed = parse_message(text, Redactor([SECRET]))
    assert SECRET not in json.dumps(parsed.value) and parsed.value["long"].startswith(MASK)
    assert parsed.value["short"] == MASK and MASK in parsed.value
    assert "secret values masked" in parsed.notes and original_length(parsed.value["long"]) == len(SECRET) + MAX_STRING


# -------------------------------------------------------------------------------------------- egress
def test_only_the_targets_origin_is_reachable():
    refused: list[str] = []

    async def attempt() -> None:
        client = guarded_client("http://127.0.0.1:9/mcp", True, 1.0, refused.append)
        async with client:
            for url in ("http://127.0.0.2:9/x", "http://127.0.0.1:10/x", "https://127.0.0.1:9/x"):
                with pytest.raises(EgressRefused):
                    await client.get(url, headers={"Authorization": "Bearer x"})

    asyncio.run(attempt())
    assert refused == ["http://127.0.0.2:9/x", "http://127.0.0.1:10/x", "https://127.0.0.1:9/x"]
    assert origin_of("HTTP://LocalHost/a") == ("http", "localhost", 80) and origin_of("file:///etc") is None


def test_session_ids_must_be_visible_ascii():
    assert session_id_valid("abc-123_DEF") and not session_id_valid("sessiön") and not session_id_valid("a b")


# ------------------------------------------------------------------------------------------- schemas
def test_remote_refs_are_reported_never_fetched():
    schema = {"type": "object", "properties": {"q": {"$ref": "http://127.0.0.2:9/s.json"}}}
    outcome = validate({"q": 1}, schema)
    assert outcome.unverified and "not fetched" in outcome.unverified and not outcome.errors
    assert remote_refs(schema) == ["http://127.0.0.2:9/s.json"]
    cyclic = {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$ref": "#/$defs/a"}}}
    assert "cycle" in (validate({"a": 1}, cyclic).unverified or "")
    assert validate({"a": 5}, {"properties": {"a": {"type": "string"}}}).errors == ["a: 5 is not of type 'string'"]


# -------------------------------------------------------------------------------------------- budget
def test_a_budget_grows_with_requests_and_then_refuses():
    budget = Budget(0.05, per_request=0.0)
    assert budget.clip(10) <= 0.05
    time.sleep(0.06)
    assert budget.spent
    with pytest.raises(BudgetSpent, match="--budget"):
        budget.clip(10)
    assert Budget(0.5, per_request=1.0).clip(10) == pytest.approx(1.5, abs=0.05), "each request earns its second"


# --------------------------------------------------------------------------------------------- sinks
def test_the_terminal_gets_no_foreign_escape_and_no_secret():
    from mcp_review.redact import remember

    remember([SECRET])
    out = terminal_safe(f"\x1b[1mbold\x1b[0m \x1b]52;c;Zm9v\x07 \u009b2J \u202e {SECRET}\n")
    assert "\x1b[1mbold\x1b[0m" in out and "\\e]52" in out and "\\x07" in out and "\\x9b" in out
    assert "<U+202E>" in out and SECRET not in out
    stream = io.StringIO()
    SafeStream(stream).write("lone \ud800 surrogate\n")  # an encoding error never raises
    assert "surrogate" in stream.getvalue()


# ---------------------------------------------------------------------------------------- processes
def test_a_detached_descendant_is_found_by_its_mark_and_killed():
    token = procs.new_token()
    script = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\nelse:\n    time.sleep(60)\n"
    env = {**os.environ, procs.MARK: token}
    parent = subprocess.Popen([sys.executable, "-c", script], env=env, start_new_session=True)
    try:
        eventually(lambda: len(procs.tree(parent.pid, token)) >= 2)
        found = procs.tree(parent.pid, token)
        assert len(found) == 2, "the parent and its setsid child"
        os.kill(parent.pid, signal.SIGKILL)  # the child is now an orphan in its own session
        parent.wait()
        child = (found - {parent.pid}).pop()
        assert procs.tree(parent.pid, token) == {parent.pid, child}, "found by its mark once its parent is gone"
        procs.kill_tree(parent.pid, token)
        assert eventually(lambda: not procs._alive(child), timeout=5), "the orphan is killed"
    finally:
        procs.kill_tree(parent.pid, token)


def test_flood_caps_are_changed_by_name_and_junk_is_ignored():
    """MCP_REVIEW_LIMITS changes the caps it names; an unknown name or a value that is no positive integer is not
    taken (a typo must not lift a cap)."""
    from mcp_review.limits import Limits, _from_env

    changed = _from_env("listing_items=500, input_rounds=2,nonsense=3,write_buffer=-1,prompt_messages=x,=4")
    assert changed == Limits(listing_items=500, input_rounds=2)
    assert _from_env("") == Limits()
