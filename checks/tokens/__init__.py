"""Pack `tokens`: the token-consciousness checklist for one-tool-per-domain servers (seed 000_71e9b31231f74ece.txt).

Its model: one MCP tool per domain with the canonical `{action, params, fields, limit, cursor}` input,
every handler ending in a central `respond()` that paginates, filters fields, truncates long strings,
guards an 8 KB output budget and stamps `_meta.request_id`. Rules that read results call the tools
(only as the calling policy allows).
"""

from mcp_review.checks.tokens import lists, sizes, registration, runtime, descriptions  # noqa: F401, I001  (registers the rules, in the seed's order)
