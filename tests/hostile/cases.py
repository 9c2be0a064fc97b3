"""The hostile corpus: one entry per server in stdio_server.py / http_server.py, with the class it attacks.

Classes (issue 8): leak (secrets, other hosts), hang, crash, orphan, terminal (raw escapes), memory, app;
(issue 21): trust (a call made without the consent its most dangerous definition needs), json (an export that
is not strict JSON), injection (server text live as structure in an export), secret (the reviewer's secrets, in any
form), egress (metadata, link-local and other hosts); keys (the app must answer `r`, `q`, the tab digits and `i` while
the server keeps a dialog up, and set aside what a server asks again at once).
"""

from __future__ import annotations

from dataclasses import dataclass

MODES = ("list", "call", "check", "app")  # the default ways mcp-review is run against a case
OAUTH_MODES = ("list", "check", "login")  # login: `auth login --no-browser`, stdin closed
FLOOD = "flood_server.py"
LISTING = "listing_items=400"  # two pages of 200, then the cap (10,000 junk tools: a 30 s checklist, 1,000: 8 s)


@dataclass(frozen=True)
class Case:
    name: str
    transport: str  # stdio, http, sse
    attacks: str  # the class of problem it is built for
    what: str
    modes: tuple[str, ...] = MODES
    server: str = "stdio_server.py"  # the file of tests/hostile that serves it (stdio)
    calls: str = "all"  # the consent the reviewer gives: "all" (--yes, --calls all) or "read-only" (no --yes)
    limits: str = ""  # MCP_REVIEW_LIMITS for mcp-review: a cap hit in seconds (the default is proven the same way)
    timeout: float | None = None  # --timeout when the suite's is too short for the flood to show


CASES = [
    Case("echo-secrets", "stdio", "leak", "echoes --env and the parent's environment, plain and encoded, everywhere"),
    Case("surrogates", "stdio", "crash", "lone surrogates and invalid UTF-8 in every text"),
    Case("escapes", "stdio", "terminal", "OSC 52, CSI, C1 and bidi sequences in every text"),
    Case("deep", "stdio", "crash", "a 100,000-deep result and a 5,000-deep schema"),
    Case("huge-int", "stdio", "hang", "20,000-digit integers in a listing and a result"),
    Case("no-read", "stdio", "hang", "stops reading stdin; a tool whose arguments fill the pipe"),
    Case("progress-flood", "stdio", "hang", "a call that only ever sends progress"),
    # the pages' cap (500 by default) at 100: 50 ms a page, each listing of the check waited ~25 s for the same proof
    Case("endless-cursor", "stdio", "hang", "tools/list pages that never end", limits="listing_pages=100"),
    Case("orphans", "stdio", "orphan", "a child, a setsid daemon, an env-scrubbed daemon; ignores SIGTERM"),
    Case("ignore-term", "stdio", "orphan", "ignores SIGTERM, SIGHUP, SIGINT and a closed stdin"),
    Case("fork-stdout", "stdio", "crash", "a forked child keeps stdout open after the server is gone"),
    Case("binary-blocks", "stdio", "memory", "every call returns 28 MB of base64 images"),
    Case("stderr-flood", "stdio", "memory", "an endless stderr, with 40 MB lines"),
    Case("notify-flood", "stdio", "memory", "an endless stream of log notifications"),
    Case("huge-line", "stdio", "memory", "a 100 MB line on stdout"),
    Case("burst-requests", "stdio", "app", "300 sampling, 50 roots and an elicitation request right after connecting"),
    Case("elicit-first", "stdio", "app", "an elicitation before anything else"),
    Case("remote-ref", "stdio", "leak", "schemas, icons, links and resources that point at another host"),
    Case("cyclic-ref", "stdio", "crash", "input and output schemas whose $refs form cycles"),
    Case("garbage", "stdio", "crash", "ids of every wrong type, batches, nulls, invalid requests"),
    Case("crash-mid", "stdio", "crash", "exits in the middle of a call"),
    Case("wide", "stdio", "memory", "a result of 3,000,000 empty objects"),
    Case("many-strings", "stdio", "memory", "a listing of twelve 900 KB descriptions"),
    Case("sse-elsewhere", "sse", "leak", "the SSE endpoint event names another host"),
    Case("sse-other-port", "sse", "leak", "the SSE endpoint event names another port"),
    Case("redirect", "http", "leak", "every POST is redirected to another host"),
    Case("prm-elsewhere", "http", "leak", "the 401's resource_metadata names another host"),
    Case("echo-auth", "http", "leak", "echoes the Authorization and X-Api-Key headers, plain, encoded and cut"),
    Case("drip", "http", "hang", "every response body, one byte every 0.25 s"),
    Case("drip-call", "http", "hang", "tool results one byte every 0.25 s"),
    Case("session-nonascii", "http", "crash", "a non-ASCII Mcp-Session-Id"),
    Case("sse-endless", "http", "memory", "an event stream whose event never ends"),
    Case("sse-longline", "http", "memory", "an event stream line that never ends"),
    Case("sse-forever", "http", "hang", "a tool call's event stream of log events that never ends, never answers"),
    Case("sse-pings", "http", "hang", "tools/list answers an event stream of comments every 100 ms, never the answer"),
    Case("gzip-bomb", "http", "memory", "512 MB of zeros, gzip-compressed"),
    Case("http-hang", "http", "hang", "accepts connections and never answers"),
    Case("huge-headers", "http", "crash", "20,000 response headers"),
    *[
        Case(name, "stdio", attacks, what, server="integrity_server.py", calls=calls)
        for name, attacks, what, calls in (
            ("dup-page", "trust", "one name: read-only on page 1, destructive and open-world on page 2", "read-only"),
            (
                "dup-relist",
                "trust",
                "one name: read-only in the first listing, destructive in every later one",
                "read-only",
            ),
            ("nonfinite", "json", "NaN, Infinity, -Infinity and 1e999 in the listing and every result", "all"),
            (
                "fences",
                "injection",
                "fences, HTML/XML tags, headings, links, XML-forbidden characters everywhere",
                "all",
            ),
            (
                "crash-escape",
                "terminal",
                "crashes in a call, a CSI colour and an OSC 8 link on its stderr first",
                "all",
            ),
        )
    ],
    Case("echo-transformed", "stdio", "secret", "echoes secrets reversed, rot13, base32, swapcase, spaced, UTF-16 hex"),
    Case(
        "echo-split",
        "stdio",
        "secret",
        "echoes secrets in halves, thirds, pieces with text between, interleaved, halves in computed forms",
        (*MODES, "pin"),
    ),
    Case("project-env", "project", "secret", "a project .mcp.json expands the reviewer's tokens and an envFile"),
    Case("oauth-metadata", "http", "egress", "AS metadata names 169.254.169.254, fe80:: and another host", OAUTH_MODES),
    Case("oauth-closed-stdin", "http", "crash", "auth login --no-browser with stdin closed", ("login",)),
    Case(
        "rounds-endless",
        "stdio",
        "hang",
        "2026-07-28: input_required rounds that never end, 1 MB each",
        server=FLOOD,
        timeout=2,  # check masks MBs of round state for 4 planted secrets: a 1 s timeout was too short on a loaded CI
        limits="session_state=8388608",  # the connection's cap (32 MB by default) at 8 MB: the check took 15 s, now 6
    ),
    Case("round-elicit", "stdio", "app", "2026-07-28: one input_required round holding one elicitation", server=FLOOD),
    Case(
        "endless-pages",
        "stdio",
        "hang",
        "tools/list pages of 200 tools, at once, never ending",
        server=FLOOD,
        limits=LISTING,
    ),
    Case("prompt-flood", "stdio", "memory", "prompts/get answers 100,000 messages", server=FLOOD),
    Case(
        "blob-bomb",
        "stdio",
        "memory",
        "resources/read answers a 48 MB blob (over the 32 MB a message may have)",
        server=FLOOD,
    ),
    Case(
        "sampling-loop",
        "stdio",
        "keys",
        "asks sampling again as soon as it is answered, for good",
        server=FLOOD,
        timeout=5,  # as elicit-huge: its first request comes with the listing, which once took over 1 s under load
    ),
    Case(
        "elicit-huge",
        "stdio",
        "keys",
        "an elicitation of 20,000 fields whose names are no widget ids",
        server=FLOOD,
        # its 1.3 MB request comes before the answer to tools/list: on a loaded machine, reading it took longer
        # than a 1 s --timeout, the listing failed, and `r` (which needs a listing) had nothing to open
        timeout=5,
    ),
    Case(
        "no-read-flood",
        "stdio",
        "memory",
        "stops reading stdin, sends pings with 200 KB ids to echo",
        server=FLOOD,
        # the answers pile up to the 8 MB write cap in ~0.2 s alone; with its four modes and their four floods
        # sharing two cores beside the suite's other workers, `list` once took over 5 s to get there, and its
        # tools/list timed out first (the expected line is the cap's). A run that passes is no longer for this.
        timeout=15,
    ),
    # issue 35: requests of the client without end, answered within one bound (LIMITS.client_requests) by the app
    # and `check` alike; the app's keys work whatever the server asks
    Case(
        "request-flood",
        "stdio",
        "app",
        "2026-07-28: every call asks again, 2,000 requests of the client a round (sampling, elicitation, roots)",
        server=FLOOD,
        timeout=5,  # its listing must not time out under load: the review of the flood is what is judged
    ),
    Case(
        "roots-deaf",
        "stdio",
        "memory",
        "never reads stdin; asks for roots at once, and 4 s later again and again",
        server=FLOOD,
        # the roots dialog stays up while the connection waits for server/discover, then initialize (a fresh
        # process): long enough that the requests piling up behind the dialog showed (past 500 MB before the
        # session's bound ended the connection, which it now does about 4 s in), and that the status line is read
        # while it is up
        timeout=15,
        limits="client_requests=2000",  # the bound (10,000 by default; request-flood proves that one) in 2,000
    ),
    Case(
        "ask-again",
        "stdio",
        "keys",
        "once listed, asks for sampling or elicitation again as soon as it is answered, for good",
        server=FLOOD,
        timeout=5,  # as sampling-loop
    ),
]
BY_NAME = {c.name: c for c in CASES}
