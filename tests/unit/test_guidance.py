"""Issue 25: guidance that points the right way. Every command-line flag a rule's message names (what a blocking
finding tells the reviewer to run) is one `mcp-review` has today; a rule's docstring may quote a server's own
flags (`--token X` in a launch command), its messages may not send the reviewer to a flag that is gone."""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from pathlib import Path

from mcp_review.cli import parser

CHECKS = Path(__file__).resolve().parents[2] / "checks"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


def known_flags() -> set[str]:
    flags: set[str] = set()
    for action in parser()._actions:  # argparse keeps its subcommands' parsers only there
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                flags.update(o for a in command._actions for o in a.option_strings)
    return flags


def message_strings(source: str) -> Iterator[str]:
    """Every string literal of a module but its docstrings (which document, and quote servers' flags)."""
    tree = ast.parse(source)
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.value


def named_flags(source: str) -> set[str]:
    return {flag for text in message_strings(source) for flag in FLAG.findall(text)}


def test_every_flag_a_rule_names_exists():
    named = {flag: path.name for path in CHECKS.rglob("*.py") for flag in named_flags(path.read_text())}
    assert named, "no rule names a flag: the scan reads nothing"
    assert {f: p for f, p in named.items() if f not in known_flags()} == {}


def test_the_scan_sees_a_stale_flag_in_a_message_but_not_in_a_docstring():
    source = (
        '"""Module doc: --token X."""\ndef f():\n    """Doc: --gone."""\n    return f"run with --baseline-dir {1}"\n'
    )
    assert named_flags(source) == {"--baseline-dir"} and "--baseline-dir" not in known_flags()


def test_rug_pull_mitigation_sends_the_reviewer_to_the_lock():
    source = (CHECKS / "review" / "security.py").read_text()
    messages = " ".join(message_strings(source))
    assert "mcp-review pin" in messages and "Changes tab" in messages


def test_the_pack_option_names_every_pack():
    """`--pack`'s help lists every pack there is (apps was missing) and says which run by default."""
    from mcp_review.rules.core import DEFAULT_PACKS, PACKS

    check = parser("check")._actions[-1].choices["check"]  # type: ignore[attr-defined]
    helps = [a.help or "" for a in check._actions if "--pack" in a.option_strings]
    assert all(pack in helps[0] for pack in PACKS) and " ".join(DEFAULT_PACKS) in helps[0]
