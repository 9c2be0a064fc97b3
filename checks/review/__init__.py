"""Pack `review`: the MCP server review checklist (seed 003_7bd45472b514b87a.txt).

The seed pins MCP 2025-06-18 for tools and primitives and 2025-11-25 for authorization, and says:
"Mark items you cannot verify as blocking, not as passes."
"""

from mcp_review.checks.review import primitives, contracts, results, security, content, probes, auth, skills  # noqa: F401, I001  (registers the rules, in the seed's order)
from mcp_review.checks.review import declared, manifests, capabilities, endpoint, behaviour  # noqa: F401
