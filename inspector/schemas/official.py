"""The official MCP JSON Schemas, one per revision, and what they say a server->client message must satisfy.

The five official `schema.json` files are vendored in `inspector/data/schemas/` (see SOURCES.md there for
their commit and hashes). Each file is loaded the first time its revision is needed, and its validators
are cached. 2024-11-05 .. 2025-06-18 are draft-07 (`definitions`); 2025-11-25 and 2026-07-28 are 2020-12
(`$defs`). The dialect comes from each file's own `$schema`.

All method-to-definition tables are read from the schema itself, from each definition's
`"method": {"const": ...}` and from the unions. Nothing here is written by hand per revision.
`mcp_review.schemas.validate` checks messages against what this module finds.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry, Resource

REVISIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
_BASE_URI = "urn:mcp-review:schema"


def ref_name(ref: Any) -> str | None:
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


class RevisionSchema:
    """One revision's schema document, its tables, and its cached validators."""

    def __init__(self, revision: str) -> None:
        text = resources.files("mcp_review").joinpath("data", "schemas", f"{revision}.schema.json")
        doc: dict[str, Any] = json.loads(text.read_text(encoding="utf-8"))
        self.revision = revision
        self.cls: type[Validator] = validator_for(doc)
        self.defs_key = "$defs" if "$defs" in doc else "definitions"
        self.defs: dict[str, Any] = doc[self.defs_key]
        self.registry: Registry = Registry().with_resource(_BASE_URI, Resource.from_contents(doc))
        self._validators: dict[str, Validator] = {}

        # The envelope: which member of JSONRPCMessage each message shape must satisfy.
        self.envelope = "JSONRPCMessage"
        self.batches = False
        self.request_env = self.notification_env = self.result_env = self.error_env = self.envelope
        for member in self.defs[self.envelope].get("anyOf", []):
            if member.get("type") == "array":
                self.batches = True
                continue
            name = ref_name(member.get("$ref"))
            required = set(self.defs.get(name, {}).get("required", [])) if name else set()
            if {"method", "id"} <= required:
                self.request_env = name or self.envelope
            elif "method" in required:
                self.notification_env = name or self.envelope
            elif "error" in required:
                self.error_env = name or self.envelope
            elif "result" in required:
                self.result_env = name or self.envelope

        # What a server may send, by method (None: the revision has no such union, e.g. no ServerRequest).
        self.server_notifications = self._union("ServerNotification")
        self.server_requests = self._union("ServerRequest")
        # Every request definition by method (the client's requests first: their results are what we check).
        self.requests: dict[str, str] = dict(self._union("ClientRequest") or {})
        for name, d in self.defs.items():
            if name.endswith("Request") and isinstance(const := _method_const(d), str):
                self.requests.setdefault(const, name)
        # Error responses with a fixed code and their own definition (e.g. -32022 in 2026-07-28).
        self.coded_errors: dict[int, str] = {}
        for name, d in self.defs.items():
            error = d.get("properties", {}).get("error") if isinstance(d, dict) else None
            for part in error.get("allOf", []) if isinstance(error, dict) else []:
                code = part.get("properties", {}).get("code", {}).get("const")
                if isinstance(code, int):
                    self.coded_errors[code] = name
        self.result_typed = "resultType" in self.defs.get("Result", {}).get("properties", {})

    def _union(self, name: str) -> dict[str, str] | None:
        if name not in self.defs:
            return None
        out: dict[str, str] = {}
        for member in self.defs[name].get("anyOf", [self.defs[name]]):
            ref = ref_name(member.get("$ref")) if "$ref" in member else None
            const = _method_const(self.defs[ref] if ref else member)
            if isinstance(const, str):
                out[const] = ref or name
        return out

    def validator(self, name: str) -> Validator:
        v = self._validators.get(name)
        if v is None:
            v = self.cls({"$ref": f"{_BASE_URI}#/{self.defs_key}/{name}"}, registry=self.registry)
            self._validators[name] = v
        return v

    def result_for(self, method: str, result: Any) -> str | None:
        """The definition a result for `method` must satisfy; None when there is nothing specific."""
        request = self.requests.get(method)
        if request is None:
            return None
        name = request.removesuffix("Request") + "Result"
        if name not in self.defs:
            name = "EmptyResult" if "EmptyResult" in self.defs else "Result"
        if not isinstance(result, dict):
            return name
        if self.result_typed:  # 2026-07-28: dispatch on resultType
            kind = result.get("resultType")
            if kind == "input_required" and "InputRequiredResult" in self.defs:
                return "InputRequiredResult" if self._may_need_input(name) else name
            if kind == "task":
                return "CreateTaskResult" if "CreateTaskResult" in self.defs else None
            if isinstance(kind, str) and kind != "complete":
                return None  # an extension's result type: only the envelope applies
            return name
        # 2025-11-25: a task-augmented request is answered with CreateTaskResult ({"task": {...}}).
        if (
            "CreateTaskResult" in self.defs
            and isinstance(result.get("task"), dict)
            and "task" not in self.defs[name].get("properties", {})
        ):
            return "CreateTaskResult"
        return name

    def _may_need_input(self, result_def: str) -> bool:
        """May the method answer InputRequiredResult? (its `*ResultResponse` says so, when it has one)"""
        response = self.defs.get(result_def + "Response")
        return response is None or "InputRequiredResult" in json.dumps(response.get("properties", {}))


def _method_const(d: Any) -> Any:
    if not isinstance(d, dict):
        return None
    method = d.get("properties", {}).get("method")
    return method.get("const") if isinstance(method, dict) else None


@functools.cache
def _load(revision: str) -> RevisionSchema:
    return RevisionSchema(revision)


def revision_schema(revision: str) -> RevisionSchema:
    """The schema of `revision`, loaded once; ValueError for a revision with no vendored schema."""
    if revision not in REVISIONS:
        raise ValueError(f"no official schema for revision {revision!r} (known: {', '.join(REVISIONS)})")
    return _load(revision)


def dispatch(s: RevisionSchema, message: dict[str, Any], request_method: str | None) -> tuple[str, bool] | None:
    """(definition, applies to message["result"]) for a server->client message, or None."""
    if "method" in message:
        method = message["method"]
        table = s.server_requests if "id" in message else s.server_notifications
        name = table.get(method) if table is not None and isinstance(method, str) else None
        return (name, False) if name else None
    if "error" in message:
        error = message["error"]
        code = error.get("code") if isinstance(error, dict) else None
        if isinstance(code, int) and not isinstance(code, bool) and code in s.coded_errors:
            return s.coded_errors[code], False
        return s.error_env, False
    if "result" in message and request_method is not None:
        name = s.result_for(request_method, message["result"])
        return (name, True) if name else None
    return None


def definition_for(message: Any, revision: str, request_method: str | None) -> str | None:
    """The definition a server->client message must satisfy, beyond the envelope; None if nothing specific.

    For a result response this is the definition of its `result` (e.g. "ListToolsResult" for `tools/list`).
    For 2026-07-28, `resultType: "input_required"` selects InputRequiredResult. For an error response it is
    the revision's error response ("JSONRPCError" up to 2025-06-18, "JSONRPCErrorResponse" from 2025-11-25),
    or a coded error definition. A notification or server request gets its own definition, by method.
    """
    if not isinstance(message, dict):
        return None
    found = dispatch(revision_schema(revision), message, request_method)
    return found[0] if found else None


def validator_class(revision: str) -> type[Validator]:
    """The jsonschema validator class (dialect) the revision's schema declares."""
    return revision_schema(revision).cls


def server_notification_methods(revision: str) -> set[str]:
    """The notification methods a server may send in `revision` (its ServerNotification union)."""
    return set(revision_schema(revision).server_notifications or {})
