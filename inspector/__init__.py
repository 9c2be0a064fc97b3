"""mcp-review: review a live MCP server before it is merged or shipped.

`__version__` is the one place the version is written: pyproject.toml reads it (`[tool.setuptools.dynamic]`),
and `--version`, every export and the lock print it.
"""

from __future__ import annotations

import re

__version__ = "0.1.0"
REPOSITORY = "https://github.com/mcp-review/mcp-review"  # also pyproject.toml [project.urls]; the Action's home
RULES_DOC = f"{REPOSITORY}/blob/main/docs/rules.md"


def anchor(heading: str) -> str:
    """The fragment GitHub gives a markdown heading: lower case, punctuation but `-` and `_` dropped, spaces `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def documentation(rule_id: str) -> str:
    """Where a rule's documentation is read on the web: its heading in docs/rules.md."""
    return f"{RULES_DOC}#{anchor(rule_id)}"
