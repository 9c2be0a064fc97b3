"""The GitHub Action's decisions that need no run: the gates, and the comment's size and marker."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mcp_review.cli.action import gate, inputs
from mcp_review.cli.common import UsageError
from mcp_review.cli.github import COMMENT_LIMIT, comment_body, marker


@pytest.mark.parametrize(
    ("verdict", "gates", "changes_fail", "code"),
    [
        ("FAIL", "FAIL,BLOCKED", False, 1),
        ("BLOCKED", "FAIL,BLOCKED", False, 3),
        ("BLOCKED", "FAIL", False, 0),
        ("BLOCKED", "FAIL", True, 1),
        ("PASS_WITH_WARNINGS", "fail, pass_with_warnings", False, 1),
        ("FAIL", "NONE", False, 0),
        ("PASS", "FAIL,BLOCKED", True, 1),
    ],
)
def test_the_gates(verdict, gates, changes_fail, code):
    assert gate(verdict, gates, changes_fail) == code


def test_an_unknown_gate_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown PASSED"):
        gate("PASS", "FAIL,PASSED", False)


def test_a_comment_never_passes_githubs_limit():
    body = comment_body("x" * 70_000, "server")
    assert len(body) == COMMENT_LIMIT and body.startswith("<!-- mcp-review:server -->")
    assert marker("a --> <b>").count(">") == 1, "a name cannot close the hidden comment"


ROOT = Path(__file__).resolve().parents[2]


def test_action_yml_passes_every_input_the_module_reads_and_the_readme_uses_only_those():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    (review,) = [step for step in action["runs"]["steps"] if step.get("id") == "review"]
    passed = {name for name in review["env"] if name.startswith("INPUT_")}
    read = {f"INPUT_{name.upper().replace('-', '_')}" for name in inputs({})}
    assert passed == read, "an input action.yml declares but never hands over, or one the module reads in vain"
    assert all(f"inputs.{name.lower()[6:].replace('_', '-')} }}" in review["env"][f"{name}"] + " }" for name in passed)
    readme = (ROOT / "README.md").read_text()
    workflow = yaml.safe_load(readme.split("`.github/workflows/mcp-review.yml`:\n\n```yaml\n")[1].split("```")[0])
    (step,) = [s for s in workflow["jobs"]["review"]["steps"] if str(s.get("uses", "")).startswith("mcp-review/")]
    assert set(step["with"]) <= set(action["inputs"])
    assert set(action["outputs"]) >= {"verdict", "exit-code", "sarif", "comment-url"}
