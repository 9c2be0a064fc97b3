"""The raw prober: what the SDK refuses to send, on fresh connections, with exactly what came back."""

from __future__ import annotations

from mcp_review.connection.probe import Prober
from mcp_review.connection.protocol import modern_meta
from mcp_review.connection.wire import WireLog
from mcp_review.targets import http_target, stdio_target
from tests.support import fixture_argv, http_fixture


async def test_bogus_version_unknown_method_bad_params_and_cursor_on_stdio():
    wire = WireLog()
    async with Prober(stdio_target(fixture_argv("good")), wire) as p:
        init = await p.initialize("1999-01-01")
        assert init.result["protocolVersion"] == "2025-11-25", "a counter-offer, not an echo"
        assert (await p.request("no/such-method", {})).code == -32601
        assert (await p.request("tools/call", {"arguments": {}})).code == -32602
        quiet = await p.quiet_for(0.3)
        assert quiet == [], "nothing answers a notification"
    async with Prober(stdio_target(fixture_argv("paginated")), wire) as p:
        await p.initialize()
        assert (await p.request("tools/list", {"cursor": "!!bogus!!"})).code == -32602
    async with Prober(stdio_target(fixture_argv("banner")), wire) as p:
        replies = await p.send_raw("{this is not json", wait=0.5)
        assert [m.get("error", {}).get("code") for m, _ in replies] == [-32700]
    sent = [e for e in wire.entries if e.direction == "send" and e.text == "{this is not json"]
    assert sent, "raw text is logged as sent, as is"
    assert len({e.conn for e in wire.entries}) == 3, "one fresh connection per prober"


async def test_modern_probe_without_required_meta_and_with_a_bogus_version():
    wire = WireLog()
    async with Prober(stdio_target(fixture_argv("good")), wire) as p:
        ok = await p.modern("server/discover")
        assert "2026-07-28" in ok.result["supportedVersions"]
        bad = await p.modern("server/discover", {"_meta": modern_meta("1999-01-01")})
        assert bad.code == -32022 and bad.error["data"]["supported"]
        missing = await p.request("tools/list", {})
        assert missing.code == -32602, "2026-07-28 requests without _meta are invalid params"


async def test_http_probe_reports_statuses_and_can_drop_headers():
    with http_fixture("good") as url:
        async with Prober(http_target(url), WireLog()) as p:
            init = await p.initialize("2025-11-25")
            assert init.status == 200 and getattr(p.transport, "session_id", None)
            bogus = await p.request("tools/list", {}, headers={"Mcp-Session-Id": "nope"})
            assert bogus.status == 404
            evil = await p.request("tools/list", {}, headers={"Origin": "http://evil.example"})
            assert evil.status == 403
            plain = await p.http("GET", omit=["Content-Type"], headers={"Accept": "text/plain"})
            assert plain.status in (400, 405, 406)
            header_less = await p.modern("tools/list", omit=["Mcp-Method"])
            assert header_less.status == 400
