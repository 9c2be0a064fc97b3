"""The Claude estimate reproduces ai-tokenizer's own figures (its src/sdk.test.ts at 9fa777aa, claude-sonnet-4.5:
the count with tools minus the count without, for its small, medium and large tool sets), with the data shipped
in the package."""

from __future__ import annotations

import pytest

from mcp_review import claude
from mcp_review.encodings import ENCODINGS
from mcp_review.tokens import ESTIMATES, TokenCounter


def tool(name, description, props):
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": props}}


S = {"type": "string"}
SMALL = [tool("getWeather", "Get the current weather", {"location": S})]
MEDIUM = [
    tool(
        "getWeather",
        "Get the current weather for a location",
        {
            "location": {"type": "string", "description": "The city name"},
            "units": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature units"},
        },
    ),
    tool("calculateDate", "Calculate days between dates", {"fromDate": S, "toDate": S}),
]
LARGE = [
    tool(
        "getWeather",
        "Get the current weather for a specific location with detailed information",
        {
            "location": {"type": "string", "description": "The city and country"},
            "units": {
                "type": "string",
                "enum": ["celsius", "fahrenheit", "kelvin"],
                "description": "Temperature units to use",
            },
            "includeHourly": {"type": "boolean", "description": "Include hourly forecast"},
        },
    ),
    tool(
        "calculateDate",
        "Calculate the number of days between two dates",
        {
            "fromDate": {"type": "string", "description": "Start date in YYYY-MM-DD format"},
            "toDate": {"type": "string", "description": "End date in YYYY-MM-DD format"},
            "includeWeekends": {"type": "boolean"},
        },
    ),
    tool(
        "searchWikipedia",
        "Search Wikipedia for information about a topic",
        {
            "query": {"type": "string", "description": "The search query"},
            "language": {"type": "string", "description": "Language code"},
            "maxResults": {"type": "number", "description": "Maximum number of results"},
            "filters": {
                "type": "object",
                "description": "Search filters",
                "properties": {
                    "category": S,
                    "dateRange": {"type": "object", "properties": {"start": S, "end": S}},
                },
            },
        },
    ),
]


@pytest.mark.parametrize(("tools", "expected"), [(SMALL, 585 - 11), (MEDIUM, 748 - 37), (LARGE, 1106 - 84)])
def test_matches_ai_tokenizer_own_figures(tools, expected):
    assert TokenCounter("claude").tools_total(tools) == expected


def test_a_tool_costs_its_wrapping_not_its_json():
    counter = TokenCounter("claude")
    one = counter.count_tool(SMALL[0])
    assert one == counter.tools_total(SMALL + SMALL) - counter.tools_total(SMALL)  # one more tool
    assert counter.breakdown(SMALL[0])["total"] == one
    assert counter.tools_total([]) == 0
    assert counter.count_json(SMALL[0]) != one  # plain text counting is still there for other objects


def test_shipped_data_is_labelled_with_its_source_and_date():
    data = claude.calibration()
    assert data["commit"].startswith("9fa777aa") and data["date"] == "2025-12-01"
    assert data["models"][data["default_model"]]["tokens"]["toolsExist"] == 549
    assert "claude" in ENCODINGS and "estimate" in ESTIMATES["claude"]() and "2025-12-01" in ESTIMATES["claude"]()
    assert "MIT" in (claude.DATA.parent / "LICENSE-ai-tokenizer.txt").read_text()


def test_a_hostile_schema_nesting_without_end_is_bounded():
    deep: dict = {"type": "object", "properties": {}}
    node = deep
    for _ in range(500):
        child = {"type": "object", "properties": {}}
        node["properties"]["x"] = child
        node = child
    assert 0 < TokenCounter("claude").count_tool({"name": "t", "inputSchema": deep}) < 2000
