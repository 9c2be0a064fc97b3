"""What the dialogs share: their CSS and the offline schema checks behind their live validation."""

from __future__ import annotations

from typing import Any

DIALOG_CSS = """
#dialog { width: 90%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
#dialog.-small { height: auto; max-height: 90%; }
#buttons { height: 3; align-horizontal: right; dock: bottom; }  /* never pushed out of a short terminal (60x20) */
#editor { height: 1fr; min-height: 5; }
#result { height: 1fr; }
#live { height: auto; max-height: 2; }
#problems { color: $error; height: auto; max-height: 3; overflow-y: auto; }
#dialog TabbedContent, #dialog ContentSwitcher, #dialog TabPane { height: 1fr; }
/* what is asked above a form: a few lines that scroll (focus them), so at 60x20 and 80x24 the form keeps its rows */
#about { height: auto; max-height: 3; }
#dialog.-above-form #result { height: auto; max-height: 4; }
#dialog.-above-form.-asked #result { max-height: 3; }
#dialog TabPane { padding: 0; }
"""


def schema_problems(value: Any, schema: Any) -> list[str]:
    """Why `value` does not satisfy `schema`: empty when it does, or when the schema is not usable (see
    `schema_note`). Offline: a remote `$ref` is never fetched, a cyclic one never followed."""
    from mcp_review.localschema import validate

    return validate(value, schema).errors if isinstance(schema, dict) else []


def schema_note(schema: Any) -> str:
    """What cannot be checked against `schema`: the remote `$ref`s it names (never fetched), or ""."""
    from mcp_review.localschema import remote_refs

    refs = remote_refs(schema)
    return f"not checked against {', '.join(repr(r[:80]) for r in refs)}: remote, never fetched" if refs else ""
