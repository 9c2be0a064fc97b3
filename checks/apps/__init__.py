"""Pack `apps`: MCP Apps (SEP-1865; the ext-apps spec 2026-01-26, extension `io.modelcontextprotocol/ui`) and the
OpenAI Apps SDK keys that came before it, reviewed as a host runs them: the app resource a tool names, its CSP,
the origins its page reaches, its permissions, the tools' visibility, the page's handling of data, and its cost.
An app is an HTML page with scripts: a script is never a finding here, what the page does with data is.
"""

from mcp_review.checks.apps import resources, origins, tools, preview  # noqa: F401, I001  (registers the rules, in order)
