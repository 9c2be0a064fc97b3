"""mcp-review: review a live MCP server before it is merged or shipped."""

__version__ = "0.1.0"
