"""`python -m mcp_review` is `mcp-review`."""

from mcp_review.cli import entry

entry()
