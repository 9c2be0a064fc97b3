"""Credentials where servers leak them, or benign look-alikes there: `python leaks.py leaky|benign` (stdio, or
--http/--sse): the fixture of the credential judgement (issue 20) for `review.results-safe` and
`review.descriptions-grounded`.

- `print_env()` (read-only) prints its environment as indented JSON, as server-everything's get-env does. Both
  modes print the shell's working-directory, home, locale and temp variables (PWD, OLDPWD, HOME, SHELL, LANG,
  TMPDIR, XDG_RUNTIME_DIR): a server started from a shell for HTTP has them, one started by mcp-review over
  stdio does not (`mcp_review.targets.INHERITED`), and they are printed here on both so both transports are
  judged on the same text. `leaky` adds an API key with an unknown vendor prefix and an AWS-format key id that
  merely spells EXAMPLE; `benign` adds AWS's documented example keys, a path to a key file and a placeholder.
- `get_weather(city)` (read-only): `leaky`'s description carries `api_key=` with a key of an unknown vendor;
  `benign`'s says where the key comes from, with a placeholder.
- resource `internal://credentials`: `leaky` holds production-looking keys and a password; `benign` holds the
  documented examples, paths and placeholders.
- resource `file:///srv/app/.env`, read as bytes (so served as a base64 `blob`): `leaky`'s holds a session
  secret, `benign`'s placeholders.
- `--many`: 24 plain pages (`docs://page/00`...) are listed before those two, more than a review reads.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from serve import serve

MODE = next((a for a in sys.argv[1:] if a in ("leaky", "benign")), "benign")
LEAKY = MODE == "leaky"
KEY = "acme_live_3f9a2c7e1b8d4f6a9e0c1b2d3e4f5a6b"  # an unknown vendor's prefix, 32 hex digits
SHELL = {
    "PWD": os.environ.get("PWD", os.getcwd()),
    "OLDPWD": "/home/app",
    "HOME": "/home/app",
    "SHELL": "/bin/bash",
    "LANG": "C.UTF-8",
    "TMPDIR": tempfile.gettempdir(),
    "XDG_RUNTIME_DIR": "/run/user/1000",
}
SAID = {
    "leaky": {
        "env": {"ACME_API_KEY": KEY, "AWS_ACCESS_KEY_ID": "AKIA5EXAMPLE12345678", "NODE_ENV": "production"},
        "weather": f"Current weather for a city. Calls the provider with api_key=xk_{KEY[10:]}.",
        "credentials": f"SERVICE CREDENTIALS\nAPI Key: {KEY}\nDB_PASSWORD=Xq7-vL2pR9t!\n",
        "dotenv": "NODE_ENV=production\nSESSION_SECRET=q8Vb2Lm9Zt7Rk1Wc9Pn4Xs6Yd0Hf3Jg5\n",
    },
    "benign": {
        "env": {
            "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
            "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "GOOGLE_APPLICATION_CREDENTIALS": "/etc/gcp/service-account-key.json",
            "ACME_API_KEY": "${ACME_API_KEY}",
        },
        "weather": "Current weather for a city. Calls the provider with api_key=<your-key> from ACME_API_KEY.",
        "credentials": (
            "SERVICE CREDENTIALS (templates)\nAPI Key: <your-key>\nDB_PASSWORD=/run/secrets/db_password\n"
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
        ),
        "dotenv": "NODE_ENV=production\nSESSION_SECRET=${SESSION_SECRET}\n",
    },
}[MODE]
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

mcp = MCPServer(f"leaks-{MODE}", version="1.0.0", log_level="WARNING")


@mcp.tool(title="Print environment", annotations=READ_ONLY)
def print_env() -> str:
    """Print the server's environment variables as JSON, to debug its configuration."""
    return json.dumps({**SHELL, **SAID["env"]}, indent=2)


@mcp.tool(title="Get weather", annotations=READ_ONLY, description=SAID["weather"])
def get_weather(city: str) -> str:
    return f"Sunny in {city[:40]}"


for page in range(24 if "--many" in sys.argv else 0):
    mcp.resource(f"docs://page/{page:02}", name=f"page {page:02}", mime_type="text/plain")(lambda: "A plain page.")


@mcp.resource("internal://credentials", name="credentials", mime_type="text/plain")
def credentials() -> str:
    """The service's credentials file."""
    return SAID["credentials"]


@mcp.resource("file:///srv/app/.env", name="dotenv", mime_type="application/octet-stream")
def dotenv() -> bytes:
    """The service's .env file, as read from disk."""
    return SAID["dotenv"].encode()


if __name__ == "__main__":
    serve(mcp)
