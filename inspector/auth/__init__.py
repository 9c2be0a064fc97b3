"""OAuth 2.1 for MCP servers: what the review sends a resource server to prove it checks tokens (`forged`)."""
