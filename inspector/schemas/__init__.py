"""Check what a server sent against the official MCP JSON Schema of the negotiated revision.

`official` loads the vendored schema of each revision and reads its tables (which definition a message
must satisfy); `validate` checks messages and whole wire logs against them and explains each failure.
"""

from mcp_review.schemas.official import REVISIONS, definition_for, server_notification_methods, validator_class
from mcp_review.schemas.validate import MAX_PROBLEMS, SchemaProblem, validate_message, validate_wire

__all__ = [
    "MAX_PROBLEMS",
    "REVISIONS",
    "SchemaProblem",
    "definition_for",
    "server_notification_methods",
    "validate_message",
    "validate_wire",
    "validator_class",
]
