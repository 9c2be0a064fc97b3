"""Validate an instance against a server's own JSON Schema, offline and within bounds.

A server's `inputSchema` / `outputSchema` is untrusted: a `$ref` may name a remote URL (jsonschema would
fetch it: a request to a host the reviewer never named, and MCP says clients MUST NOT dereference network
`$ref`s, SEP-2106), refs may form a cycle, and a `$schema` may name an unknown dialect. Validation here
uses a `referencing` registry that resolves only what the schema itself contains; a remote reference is
reported, never fetched, and a cycle or a schema too deep to walk is reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from typing import Any


@dataclass
class Outcome:
    """What validating one instance found: `errors` (path: message), or why it could not be done."""

    errors: list[str] = field(default_factory=list)
    unverified: str | None = None  # the schema could not be used: a remote $ref, a cycle, an invalid schema

    @property
    def ok(self) -> bool:
        return not self.errors and self.unverified is None


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs class behind referencing._attrs.frozen: mypy sees no __init__


def validate(instance: Any, schema: Any, limit: int = 6) -> Outcome:
    """Check `instance` against `schema` (its own `$schema` dialect, 2020-12 by default), offline."""
    import jsonschema
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    if not isinstance(schema, dict | bool):
        return Outcome(unverified="the schema is not a JSON Schema (an object)")
    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        validator = cls(schema, registry=Registry(retrieve=_refuse))  # type: ignore[call-arg]
        errors = sorted(islice(validator.iter_errors(instance), limit), key=lambda e: list(map(str, e.absolute_path)))
    except Unresolvable as e:
        ref = getattr(e, "ref", "") or str(e)
        return Outcome(unverified=f"it refers to {str(ref)[:200]!r}, which is not in the schema: not fetched")
    except RecursionError:
        return Outcome(unverified="its $refs form a cycle (or it nests too deeply to walk): not validated")
    except jsonschema.SchemaError as e:
        return Outcome(unverified=f"the schema itself is not valid: {e.message[:200]}")
    except Exception as e:  # a malformed schema makes jsonschema raise TypeError, KeyError, UnknownType...
        return Outcome(unverified=f"the schema cannot be used: {type(e).__name__}: {str(e)[:200]}")
    return Outcome([f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:200]}" for e in errors])


def remote_refs(schema: Any, limit: int = 5) -> list[str]:
    """The references in `schema` that point outside it (`$ref` not starting with `#`), found without
    following any: what a validator would have to fetch."""
    found: list[str] = []
    stack = [schema]
    while stack and len(found) < limit:
        node = stack.pop()
        if isinstance(node, dict):
            for key in ("$ref", "$dynamicRef"):
                ref = node.get(key)
                if isinstance(ref, str) and not ref.startswith("#") and ref not in found:
                    found.append(ref)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found
