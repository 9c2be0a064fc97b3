"""`mcp-review auth login|list|logout`: OAuth logins kept per server (see inspector/auth)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from mcp_review.cli.common import Failure, UsageError
from mcp_review.review import ExitCode
from mcp_review.text import one_line, visible


def arguments(p: argparse.ArgumentParser) -> None:
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    login = verbs.add_parser("login", help="discover the server's authorization server and log in")
    login.add_argument("url", help="the MCP endpoint, e.g. https://mcp.example.com/mcp")
    login.add_argument("--scope", help="scopes to ask for (default: what the server's 401 or metadata names)")
    login.add_argument("--no-browser", action="store_true", help="print the URL only; paste the redirect URL back")
    login.add_argument("--client-id", help="a pre-registered client: with --client-secret-env, client credentials")
    login.add_argument("--client-secret-env", metavar="VAR", help="environment variable holding the client secret")
    login.add_argument(
        "--client-metadata-url",
        metavar="HTTPS_URL",
        help="your Client ID Metadata Document: the client id when the authorization server supports it "
        "(else a client stored at an earlier login, else dynamic registration)",
    )
    verbs.add_parser("list", help="servers with a stored token: scopes, audience, expiry (never the token)")
    logout = verbs.add_parser("logout", help="forget the token of one server, or of all")
    logout.add_argument("url", nargs="?", help="the server (default: all)")


def run(args: argparse.Namespace) -> int:
    from mcp_review.auth import store
    from mcp_review.auth.login import Browser, LoginFailed, login

    if args.verb == "list":
        shown = store.servers()
        for url, claims in shown.items():
            print(one_line(f"{url}  {store.describe(claims)}", 2000))  # the token's claims are the server's text
        if not shown:
            print(f"no stored tokens ({store.path()})")
        return ExitCode.OK
    if args.verb == "logout":
        gone = store.forget(args.url)
        print("\n".join(f"logged out of {u}" for u in gone) or "no stored token to forget")
        return ExitCode.OK
    secret = os.environ.get(args.client_secret_env or "") if args.client_secret_env else None
    if args.client_secret_env and not secret:
        raise UsageError(f"${args.client_secret_env} is empty")
    browser = Browser(say=lambda s: print(visible(s), file=sys.stderr), paste=args.no_browser)
    try:
        client = {"client_id": args.client_id, "client_secret": secret, "client_metadata_url": args.client_metadata_url}
        asyncio.run(login(args.url, browser, scope=args.scope, **client))
    except LoginFailed as e:
        raise Failure(f"login failed: {e}") from e
    print(one_line(f"{args.url}  {store.describe(store.servers()[args.url])}", 2000))
    return ExitCode.OK
