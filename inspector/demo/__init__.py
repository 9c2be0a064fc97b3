"""The bundled demo server: `python -m mcp_review.demo` serves stdio. See server.py for its deliberate defects."""
