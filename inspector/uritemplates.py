"""A resource template's variables and its expansion (RFC 6570, every level), for reading a templated resource.

uritemplate (python-hyper) implements the RFC, operators, prefixes and explode included, and imports in ~20 ms
(the SDK's own `mcp.shared.uri_template` would bring `import mcp` and its second with it). A variable left empty is
undefined, so the RFC leaves it out (`{?q}` expands to nothing, not `?q=`). Which variables are required is not
said by MCP: those of a query (`{?…}`, `{&…}`) are taken as optional, the rest (path, host, fragment) as required.
"""

from __future__ import annotations

from uritemplate import URITemplate

OPTIONAL_OPERATORS = ("?", "&")  # form-style query expressions: a variable left out changes no path


def variables(template: str) -> list[tuple[str, bool]]:
    """(name, required) of each variable of `template`, in order, each once."""
    seen: dict[str, bool] = {}
    for expression in URITemplate(template).variables:
        required = expression.operator.value not in OPTIONAL_OPERATORS
        for name in expression.variable_names:
            seen[name] = seen.get(name, False) or required
    return list(seen.items())


def expand(template: str, values: dict[str, str]) -> str:
    """`template` with `values` (percent-encoded as each operator says); an empty value is left undefined."""
    return str(URITemplate(template).expand({k: v for k, v in values.items() if v != ""}))
