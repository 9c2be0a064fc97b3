"""Connections to MCP servers: transports, the JSON-RPC channel, the session, the raw prober."""
