"""mcp-review against a corpus of hostile servers (tests/hostile): no secret leaves, nothing goes to another
host, nothing hangs past its bound, crashes, leaves a process behind, writes raw escapes or grows past 500 MB;
no tool is called without the consent its most dangerous definition needs, every JSON export is strict JSON,
and no server text is live structure (a fence, a tag, a heading, a link) in any export.

Each case runs as `list`, `call`, `check` and in the app, each in a fresh network namespace when this
machine allows it (see tests/hostile/harness.py), with secrets planted in mcp-review's environment, in
`--env`, `--bearer` and a credential header. Hostile repositories (tests/hostile/repository.py: a checkout
whose own files grant consent, waive, approve, preload state or write outside it) go through the trust judge.
The detectors the harness judges with are tested too.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from mcp_review.report import FORMATS
from tests.hostile import repository
from tests.hostile.cases import BY_NAME, CASES
from tests.hostile.harness import TERMINAL, marked, run
from tests.hostile.judges import exports, markdown_injection, strict_json, xml_injection
from tests.hostile.leakcheck import exposures

TIMEOUT = 1.0


def _runs(name: str) -> dict[str, dict[str, Any]]:
    modes = BY_NAME[name].modes
    timeout = BY_NAME[name].timeout or TIMEOUT
    with ThreadPoolExecutor(len(modes)) as pool:
        return dict(zip(modes, pool.map(lambda mode: run(name, mode, timeout), modes), strict=True))


def _problems(outcome: dict[str, Any]) -> list[str]:
    found = [f"{k}: {outcome[k]}" for k in ("crash", "hang", "terminal", "memory") if outcome.get(k)]
    found += [f"leak: {leak}" for leak in outcome.get("leaks", [])]
    found += [f"orphan pids {outcome['orphans']}"] if outcome.get("orphans") else []
    found += [f"{kind}: {what}" for kind in ("trust", "json", "injection") for what in outcome.get(kind, [])]
    return found


@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_hostile_server_breaks_nothing(name):
    runs = _runs(name)
    for mode, outcome in runs.items():
        assert outcome.get("ok") and not _problems(outcome), f"{name} {mode}: {_problems(outcome)} {outcome}"
    if name in EXPECT:
        assert EXPECT[name](runs), f"{name}: {json.dumps(runs, indent=1)[:3000]}"


def _rule(runs: dict[str, dict[str, Any]], rule: str) -> str:
    return " | ".join(runs["check"]["review"]["rules"][rule])


def _refused_elsewhere(runs) -> bool:
    """No session: the check still yields a review, failing review.same-origin; list says why, exit 2."""
    return (
        runs["check"]["exit"] == 1
        and runs["check"]["review"]["verdict"] == "FAIL"
        and _rule(runs, "review.same-origin").startswith("fail: the server sent the client to another origin")
        and "endpoint" in runs["list"]["error_line"]
        and runs["list"]["exit"] == 2
    )


def _rule_says(rule: str, *parts: str):
    """The check's review has `rule` saying every one of `parts` (a flood cut says where, never silently)."""
    return lambda runs: all(part in _rule(runs, rule) for part in parts)


def _rounds_cut(runs) -> bool:
    """input_required rounds that never end: every call blocks on the cap, named; call says it in one line."""
    said = "the server still asked for input (input_required"
    return said in runs["call"]["error_line"] and "blocking" in _rule(runs, "review.primitive-by-purpose")


def _keys_answered(*keys: str):
    """While the server keeps a dialog up, `r` opened the run dialog, `5` showed the Checklist (still shown a second
    later), `i` brought what the server asked back, and `q` quit; with "declined", three declines in a row set
    what the server asks next aside (within a hang bound: how long each took is bench/hostile.py's figure, not a
    test's)."""

    def judge(runs) -> bool:
        pressed = runs["app"]["app"]["keys"]
        return all(pressed.get(key) is not None for key in ("r", "5", "i", "q", *keys))

    return judge


FLOODED = "the server asked the client"  # what the one finding and the one note on a flood of requests begin with


def _same_review(runs) -> bool:
    """Issue 35: a flood of requests of the client during a run: the app's review and check's agree (the verdict, and
    the flood as one finding with its count), the app's run was not cut short by its time budget, and the review
    says it in one note, not one per request (nor one notification each: the app's screens hold none)."""
    app, check = runs["app"]["review"], runs["check"]["review"]
    if app is None or check is None:
        return False  # no review to compare: the app did not connect, or check did not run
    found = [app["rules"]["review.client-requests-safe"], check["rules"]["review.client-requests-safe"]]
    flooded = all(any(f.startswith(f"fail: {FLOODED}") for f in rule) for rule in found)
    cut = [f for rule in app["rules"].values() for f in rule if "time budget is spent" in f]
    notes = [n for n in app["notes"] if FLOODED in n or "during the run the server asked" in n]
    return app["verdict"] == check["verdict"] and flooded and not cut and len(notes) <= 2


def _deaf_flood_said(runs) -> bool:
    """Issue 35: a server that never reads, asking for roots: while its dialog was up, the app's status line said what
    the connection waited for (not a bare "connecting…"); past the session's bound every mode ended the connection
    and said why, in one line."""
    said = runs["app"]["app"]["connecting"] or ""
    ended = all("ended the connection" in runs[mode]["error_line"] for mode in ("list", "check", "call"))
    return "no answer to server/discover" in said and "roots/list" in said and ended


def _one_timeout_more(said: str, more: int):
    """An endless event stream holds `check` one request's timeout, not one per request: it waits out `more`
    timeouts beyond `list` against the same server at most (counted in the wire log, where each ends in a
    cancellation, not in seconds: a loaded machine makes every run longer, not its timeouts more), so under 60 s
    at the default --timeout 30; and it says why, in its review or its one error line (`said`, where {timeout} is
    the --timeout it was given)."""

    def judge(runs) -> bool:
        check = runs["check"]
        told = check["error_line"] if check["review"] is None else json.dumps(check["review"]["rules"])
        return check["waited"] <= runs["list"]["waited"] + more and said.format(timeout=check["timeout"]) in told

    return judge


EXPECT = {
    "sampling-loop": _keys_answered("declined"),
    "elicit-huge": _keys_answered(),  # one request: nothing comes back to decline
    "ask-again": _keys_answered("declined"),
    "request-flood": _same_review,
    "roots-deaf": _deaf_flood_said,
    "rounds-endless": _rounds_cut,
    "round-elicit": lambda runs: runs["call"]["exit"] == 0 and len(runs["app"]["app"]["exported"]) == len(FORMATS),
    "endless-pages": _rule_says("spec.pagination", "blocking: stopped at 400 tools", "listing_items"),
    "prompt-flood": _rule_says("review.prompts-safe", "blocking: 100,000 messages: only the first 1,000"),
    "no-read-flood": lambda runs: "stopped reading its input" in runs["list"]["error_line"],
    # list does not call the tool: check waits for one call's stream (2 when each call waited for its own)
    "sse-forever": _one_timeout_more("so no tools/call is waited for again in this run", 1),
    # list waits for the same listing: check waits no longer (it stops at the listing, with one line)
    "sse-pings": _one_timeout_more("no answer to tools/list within {timeout:g}s", 0),
    "sse-elsewhere": _refused_elsewhere,
    "sse-other-port": _refused_elsewhere,
    "redirect": lambda runs: "does not follow" in runs["list"]["error_line"],
    "session-nonascii": lambda runs: "Mcp-Session-Id" in runs["list"]["error_line"],
    "prm-elsewhere": lambda runs: "does not fetch" in _rule(runs, "review.resource-server-metadata"),
    "remote-ref": lambda runs: "not fetched" in _rule(runs, "review.output-schema-and-structured"),
    "cyclic-ref": lambda runs: "cycle" in _rule(runs, "review.output-schema-and-structured"),
    "progress-flood": lambda runs: runs["check"]["review"]["verdict"] in ("FAIL", "BLOCKED"),
    "deep": lambda runs: runs["call"]["exit"] == 0,
    "huge-int": lambda runs: runs["call"]["exit"] == 0,
    "burst-requests": lambda runs: runs["app"]["app"]["connected"],
    "elicit-first": lambda runs: runs["app"]["app"]["connected"] and runs["app"]["app"]["first_paint"],
    # refused, and the refusal names the second definition (the harness's trust judge saw no call either)
    "dup-page": lambda runs: runs["call"]["exit"] == 2 and "second definition" in runs["call"]["error_line"],
    "nonfinite": lambda runs: runs["call"]["exit"] == 0 and runs["check"]["review"] is not None,
    "fences": lambda runs: runs["check"]["review"] is not None,  # judged: every format rendered from it
    "crash-escape": lambda runs: "\\e[31mfatal" in runs["call"]["error_line"],
    "project-env": lambda runs: (
        "gets nothing for ${GITHUB_TOKEN}, ${env:OPENAI_API_KEY}, envFile" in runs["list"]["error_line"]
    ),
    "oauth-metadata": lambda runs: (
        runs["login"]["exit"] == 2
        and "169.254.169.254/latest/meta-data/iam/security-credentials/: a cloud metadata"
        in runs["login"]["error_line"]
    ),
    "oauth-closed-stdin": lambda runs: (
        runs["login"]["error_line"]
        == "mcp-review: error: login failed: stdin is closed: nothing to read the redirect URL from (--no-browser)"
    ),
}


@pytest.mark.parametrize("name", list(repository.BY_NAME))
def test_a_hostile_repository_decides_nothing(name):
    """Issue 21: the checkout's own files change no verdict, no call, no state, and write nothing outside it."""
    outcome = repository.run(name)
    assert outcome["ok"], outcome


# ---------------------------------------------------------------------------- the detectors themselves
def test_the_trust_judge_sees_a_changed_verdict_a_call_a_write_outside_and_a_silent_refusal():
    case = repository.BY_NAME["grants-consent"]
    clean = {"exit": 3, "verdict": "BLOCKED", "calls": [], "stderr": ""}
    told = {**clean, "stderr": 'mcp-review: mcp-review.toml asks for calls.policy = "all": refused'}
    assert repository.judge(case, clean, told, []) == []
    assert repository.judge(case, clean, clean, []) == ['asked for calls.policy = "all" and nobody was told']
    changed = {**told, "exit": 0, "verdict": "PASS", "calls": ["delete_note (check)"]}
    assert len(repository.judge(case, clean, changed, ["outside-baseline.json"])) == 4


@pytest.mark.quick
def test_the_leak_detector_sees_every_encoding():
    secret = "ghp_" + "0123456789abcdef" * 2
    for text in (
        f"x {secret} y",
        base64.b64encode(f"Bearer {secret}".encode()).decode(),
        base64.urlsafe_b64encode(f"u:{secret}".encode()).decode(),
        secret.encode().hex(),
        json.dumps("\\u0067" + secret[1:])[1:-1],
        "%67" + secret[1:],
        "&#103;" + secret[1:],
    ):
        assert exposures(text, secret), text
    assert not exposures("ghp_0123 and nothing else", secret)


@pytest.mark.quick
def test_the_secret_detector_sees_every_computed_form():
    from tests.hostile.secret_cases import transformed

    secret = "sk-" + "9f8e7d6c5b4a" * 3
    for form in transformed(secret):
        assert exposures(f"x {form} y", secret), form
    assert not exposures("sk- 9f8e 7d6c and other words", secret)


@pytest.mark.quick
def test_the_leak_detector_sees_a_secret_cut_in_pieces_and_not_its_look_alikes():
    """What `cut` prints (halves, thirds, pieces with text between, two secrets interleaved, halves reversed, rot13,
    base64, base32, hex) is seen in every form, each piece alone, and a piece of exactly PIECE too; a short common
    prefix, 9 characters of a secret, words sharing a few of its letters are not."""
    from tests.hostile.leakcheck import PIECE
    from tests.hostile.secret_cases import cut

    secret, other = "svcpw-" + "3f9a0c7e1b2d58a6c4e0f7b9", "ghp_" + "0a1b2c3d4e5f" * 3
    for form in cut([secret, other]):
        for piece in form.split(" "):
            if len(piece) >= PIECE + 3 and not piece.startswith(("t3_", "t1_", "t2_")):
                assert exposures(f"x {piece} y", secret, (secret, other)) or exposures(f"x {piece} y", other), piece
    for third in (secret[:10], secret[10:20], secret[20:]):
        assert exposures(f"t_{third}", secret) == ["a piece, plain"], third
    for benign in ("svcpw- keys", secret[:9], secret[-9:][::-1], "the svcpw password, 3f9a-0c7e", "ghp_0a1b and 2c3d"):
        assert not exposures(f"x {benign} y", secret) and not exposures(benign, other), benign


@pytest.mark.quick
def test_the_terminal_detector_flags_escapes_only():
    assert TERMINAL.search("\x1b]52;c;cm0=\x07") and TERMINAL.search("a\u009bb")
    assert not TERMINAL.search("plain text\nwith lines\tand tabs")


def test_the_orphan_detector_finds_a_marked_process():
    token = "orphan-detector-selftest-42"
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", token])
    try:
        assert proc.pid in marked(token)
    finally:
        proc.kill()
        proc.wait()
    assert proc.pid not in marked(token)


@pytest.mark.quick
def test_the_export_judges_see_live_structure_and_pass_inert_text():
    live = "# MCP review\n\n- a\n\n# zqx-heading\n\n<details open>\n\n```zqx-info\nx\n```\n\n[l](http://zqx) <b>"
    found = " | ".join(markdown_injection(live, "md"))
    for what in ("heading made of server text", "live HTML block", "fence opened", "link or image", "inline HTML"):
        assert what in found, what
    assert "do not balance" in " | ".join(markdown_injection("<details><summary>x</summary>\n\nx\n", "md"))
    inert = "# MCP review: x &lt;zqx&gt;\n\n<details><summary>evidence: zqx &lt;b&gt;</summary>\n\n````text\n"
    inert += "#3 ← ```zqx <details> # zqx\n````\n\n</details>\n\n- `<zqx>` \\[zqx](x) # zqx\n"
    assert markdown_injection(inert, "md") == []
    assert "not well-formed" in xml_injection("<testsuites>\x01</testsuites>", "xml")[0]
    assert "does not write" in xml_injection("<testsuites><zqx/></testsuites>", "xml")[0]
    assert xml_injection("<testsuites><testsuite><testcase name='&lt;zqx&gt;'/></testsuite></testsuites>", "x") == []
    assert strict_json('{"a": NaN}') and strict_json("[1]\n[-Infinity]", lines=True) and not strict_json('{"a": "NaN"}')
    sarif = json.dumps({"runs": [{"results": [{"message": {"text": "[fail] `<zqx>` \\<zqx> <zqx>"}}]}]})
    assert exports({"x.sarif": sarif})["injection"] == ["x.sarif message: live inline HTML '<zqx>'"]
