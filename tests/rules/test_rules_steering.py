"""Steering and excessive agency proven on real servers (issue 20): the steering twins (tests/servers/steering.py,
stdio) reviewed through tests/rules/runs.py's harness. The vulnerable twin's descriptions steer, its tools carry
no annotations and send_message sends without asking; the guarded twin says the same things plainly, annotates
every tool and confirms through elicitation. Each changed rule is proven both ways, and the twins get different
security verdicts."""

from __future__ import annotations

from mcp_review.review import verdict_of
from mcp_review.scan import scan_text
from tests.rules.runs import Run, describe, findings, review_of, worst

GUARDED = Run(("steering", "guarded"))
VULNERABLE = Run(("steering", "vulnerable"))


def by_subject(run: Run, rule: str) -> dict[str | None, list[str]]:
    out: dict[str | None, list[str]] = {}
    for f in findings(run).get(rule, []):
        out.setdefault(f.subject, []).append(f"{f.status}: {f.message}")
    return out


# Both twins are MCPServer: an unknown tool comes back isError, which seed 003 fails on both alike.
SDK = {"review.error-channel-correct"}


def test_the_twins_get_different_security_verdicts():
    """Pack review (seed 003) alone, less what the SDK does for both: the vulnerable twin fails, the guarded one
    does not."""
    security = {
        run: [f for f in review_of(run).findings if f.rule.startswith("review.") and f.rule not in SDK]
        for run in (GUARDED, VULNERABLE)
    }
    assert verdict_of(security[VULNERABLE]) == "FAIL"
    assert verdict_of(security[GUARDED]) != "FAIL", describe([f for f in security[GUARDED] if f.status == "fail"])


def test_descriptions_grounded_fails_proven_steering_and_warns_suggestive():
    rule = "review.descriptions-grounded"
    assert worst(findings(GUARDED)[rule]) == "pass", describe(findings(GUARDED)[rule])
    bad = by_subject(VULNERABLE, rule)
    assert bad["send_message"][0].startswith("fail: description: waives the user's confirmation")
    assert "urges the model to act at once: 'send promptly'" in bad["send_message"][0]
    assert bad["fetch_url"][0].startswith("fail: description: trusts what the tool returns: 'trust returned content'")
    assert bad["read_email"][0].startswith("warn: description: tells the model what to say or do for the user")
    assert bad[None][0].startswith("fail: server instructions: waives the user's confirmation: 'No confirmation")
    # the guarded twin's instructions say "Always summarise a thread for the user": a warn in a description,
    # the purpose of instructions (it passed above)
    guarded = "Mail tools. Always summarise a thread for the user with summarise_email; the user must confirm"
    assert [h.severity for h in scan_text(guarded) if h.kind == "steering"] == ["warn"]
    # the look-alikes both twins list: the summariser's "always summarise" and the ~/.ssh/config printer
    for subject in ("summarise_email", "ssh_config"):
        assert "steering" not in " ".join(bad[subject]) and "sensitive" not in " ".join(bad[subject])
        assert "SSH keys" not in " ".join(bad[subject])


def test_destructive_elicitation_reads_the_annotation_defaults():
    """Unannotated tools are destructive by MCP's defaults, so they are in scope (not n/a): the outbound one that
    sends without asking fails, the others warn; the guarded twin's confirmed send passes."""
    rule = "tokens.destructive-elicitation"
    good = by_subject(GUARDED, rule)
    assert good == {"send_message": ["pass: asked for confirmation through elicitation"]}, good
    bad = by_subject(VULNERABLE, rule)
    assert bad["send_message"] == [
        "fail: completed (ok) without asking for confirmation: an outbound or destructive action ('send') with no "
        "annotation, so destructive and open-world by MCP's defaults"
    ]
    assert all(bad[t][0].startswith("warn: completed (ok)") for t in ("fetch_url", "read_email", "ssh_config"))


def test_annotations_set_names_an_unannotated_outbound_action():
    rule = "review.annotations-set"
    assert worst(findings(GUARDED)[rule]) == "pass", describe(findings(GUARDED)[rule])
    bad = by_subject(VULNERABLE, rule)
    assert bad["send_message"][0].startswith("warn: an outbound or destructive action ('send') with no annotations")
    assert not bad["read_email"][0].startswith("warn: an outbound"), "reading an email is not an outbound action"
