"""Get a real access token from the fixture authorization server (tests/servers/protected.py), as a test's setup.

The flow is driven step by step with httpx (register, authorize with PKCE S256 and `resource`, read the code from
the redirect, exchange it), so a rule's test does not depend on mcp-review's own client, which it may be testing.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlsplit

import httpx

from tests.pace import slowness

REDIRECT = "http://127.0.0.1:9/callback"  # never served: the auto-consent AS answers with a 302 we read


def login(origin: str, resource: str, scope: str = "mcp") -> str:
    """An access token from the AS at `origin` for `resource` (RFC 8707) and `scope`, by the authorization code
    flow."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    with httpx.Client(base_url=origin, timeout=10 * slowness()) as http:  # a hang bound, scaled
        meta = {"redirect_uris": [REDIRECT], "client_name": "tests", "token_endpoint_auth_method": "none"}
        meta["scope"] = "mcp read"
        client = http.post("/register", json=meta).raise_for_status().json()
        query = {"response_type": "code", "client_id": client["client_id"], "redirect_uri": REDIRECT}
        query |= {"code_challenge": challenge, "code_challenge_method": "S256", "state": "s", "resource": resource}
        query["scope"] = scope
        redirect = http.get("/authorize", params=query)
        assert redirect.status_code == 302, redirect.text
        code = parse_qs(urlsplit(redirect.headers["location"]).query)["code"][0]
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "resource": resource}
        form |= {"client_id": client["client_id"], "code_verifier": verifier}
        return str(http.post("/token", data=form).raise_for_status().json()["access_token"])
