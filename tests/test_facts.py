"""Comparable fact extraction: subjects, typed values, qualifiers, exact spans."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.sufficiency.facts import Fact, Qualifiers, extract_facts, qualifiers_in


def one(text: str, **kw: object) -> Fact:
    facts = extract_facts(text, **kw)  # type: ignore[arg-type]
    assert len(facts) == 1, facts
    return facts[0]


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(f.subject, f.attribute, f.value) for f in extract_facts(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The default retry limit is 3.", ("retry limit", "count", "3")),
        ("Retry limit 5", ("retry limit", "count", "5")),
        ("- Retry limit: 3", ("retry limit", "count", "3")),
        ("The API port is 8443.", ("api port", "port", "8443")),
        ("The API listens on port 9443.", ("api port", "port", "9443")),
        (
            "The flatness tolerance of part A-12 is ±0.10 mm.",
            ("flatness tolerance of part a-12", "length", "±0.1 mm"),
        ),
        ("The upload timeout is 30 s.", ("upload timeout", "duration", "30 s")),
        ("The upload timeout is 2 min.", ("upload timeout", "duration", "120 s")),
        ("The poll interval is 500 ms.", ("poll interval", "duration", "0.5 s")),
        ("The release date is March 5, 2024.", ("release date", "date", "2024-03-05")),
        ("The cutover date is 2024/3/5.", ("cutover date", "date", "2024-03-05")),
        ("The minimum client is v2.4.1.", ("minimum client", "version", "2.4.1")),
        ("Sync is enabled by default.", ("sync", "state", "enabled")),
        ("Telemetry is disabled.", ("telemetry", "state", "disabled")),
        ("The sync service is owned by Team A.", ("sync service", "owner", "team a")),
        ("The owner of the sync service is Team B.", ("sync service", "owner", "team b")),
        ("The sync endpoint is /api/v2/sync.", ("sync endpoint", "endpoint", "/api/v2/sync")),
        (
            "The metadata store uses SQLite as its storage engine.",
            ("metadata store", "engine", "sqlite"),
        ),
        ("The metadata store uses Postgres.", ("metadata store", "engine", "postgresql")),
        ("The sync payload is YML.", ("sync payload", "format", "yaml")),
        ("The gateway protocol is gRPC.", ("gateway protocol", "protocol", "grpc")),
        ("The cache size is 512 MiB.", ("cache size", "size", "536870912 B")),
        ("Sync retries up to 5 times.", ("sync retries", "count", "5")),
        ("同步服务的重试上限为3次。", ("同步服务的重试上限", "count", "3")),
        ("同步服务已启用。", ("同步服务", "state", "enabled")),
    ],
)
def test_prose_facts(text: str, expected: tuple[str, str, str]) -> None:
    assert triples(text) == [expected]


def test_status_code_keeps_its_condition_in_the_subject() -> None:
    f = one("The service returns HTTP 503 when overloaded.")
    assert (f.subject, f.attribute, f.value) == ("service when overloaded", "status_code", "503")


def test_endpoint_in_the_subject_phrase_is_the_subject() -> None:
    assert triples("The /api/v2/sync endpoint accepts JSON payloads.") == [
        ("/api/v2/sync", "format", "json")
    ]
    assert triples("POST /api/v1/sync accepts YAML over HTTP/2.") == [
        ("POST /api/v1/sync", "format", "yaml"),
        ("POST /api/v1/sync", "protocol", "http/2"),
    ]


def test_route_segment_is_not_a_version_qualifier() -> None:
    for f in extract_facts("The /api/v1/sync endpoint accepts JSON. The endpoint is /api/v1/sync."):
        assert f.qualifiers.version is None


def test_windows_and_unix_paths_are_locations() -> None:
    w = one("On Windows, the config file is at C:\\ProgramData\\citewise\\config.toml.")
    assert (w.subject, w.attribute) == ("config file", "location")
    assert w.value == "C:\\ProgramData\\citewise\\config.toml"
    assert w.qualifiers.platform == "windows"
    lx = one("On Linux, the config file is at /etc/citewise/config.toml.")
    assert (lx.attribute, lx.value, lx.qualifiers.platform) == (
        "location",
        "/etc/citewise/config.toml",
        "linux",
    )


@pytest.mark.parametrize(
    ("text", "quals"),
    [
        ("In staging, the API port is 9443.", Qualifiers(environment="staging")),
        ("The API port is 8443 in production.", Qualifiers(environment="production")),
        ("The prod API port is 8443.", Qualifiers(environment="production")),
        ("In the test environment the API port is 7443.", Qualifiers(environment="test")),
        ("在生产环境中，API 端口为 8443。", Qualifiers(environment="production")),
        ("In v1, the sync payload is JSON.", Qualifiers(version="1")),
        ("Since 2.4.0 the retry limit is 5.", Qualifiers(version="2.4.0")),
        ("In version 2.3 the retry limit is 3.", Qualifiers(version="2.3")),
        ("For 2.3.x the retry limit is 3.", Qualifiers(version="2.3.x")),
        ("On macOS the cache size is 1 GB.", Qualifiers(platform="macos")),
        ("The retry limit was 3.", Qualifiers(time="historical")),
        ("Previously the retry limit was 3.", Qualifiers(time="historical")),
        ("The retry limit will be 7.", Qualifiers(time="planned")),
        ("The retry limit is now 5.", Qualifiers(time="current")),
        ("The retry limit is 5.", Qualifiers()),
    ],
)
def test_sentence_qualifiers(text: str, quals: Qualifiers) -> None:
    assert one(text).qualifiers == quals


def test_clause_level_time_previously_now() -> None:
    facts = extract_facts("Previously the retry limit was 3, now it is 5.")
    assert [(f.subject, f.value, f.qualifiers.time) for f in facts] == [
        ("retry limit", "3", "historical"),
        ("retry limit", "5", "current"),
    ]


def test_clause_level_environments_and_inherited_subject() -> None:
    facts = extract_facts("The port is 9443 in staging and 8443 in production.")
    assert [(f.subject, f.attribute, f.value, f.qualifiers.environment) for f in facts] == [
        ("port", "port", "9443", "staging"),
        ("port", "port", "8443", "production"),
    ]


def test_pronoun_refers_to_previous_sentence_subject() -> None:
    facts = extract_facts("Sync retries up to 5 times. It was 3 in 2.3.x.")
    assert [(f.subject, f.value, f.qualifiers) for f in facts] == [
        ("sync retries", "5", Qualifiers()),
        ("sync retries", "3", Qualifiers(version="2.3.x", time="historical")),
    ]


def test_no_subject_no_fact() -> None:
    assert extract_facts("Step 2. See section 4.") == []
    assert extract_facts("See 3 for details.") == []
    assert extract_facts("") == []


def test_heading_path_qualifies_facts() -> None:
    f = one("The API port is 9443.", heading_path=("Deploy", "Staging"))
    assert f.qualifiers.environment == "staging"
    assert f.heading_path == ("Deploy", "Staging")
    g = one("The retry limit is 3.", heading_path=("Windows",))
    assert g.qualifiers.platform == "windows"
    h = one("The retry limit is 3.", heading_path=("Release 2.4.0",))
    assert h.qualifiers.version == "2.4.0"
    # The sentence's own qualifier wins over the heading.
    assert one("In production the port is 1.", heading_path=("Staging",)).qualifiers == (
        Qualifiers(environment="production")
    )


def test_headings_inside_text_scope_following_facts() -> None:
    text = "## Staging\n\nThe API port is 9443.\n\n## Production\n\nThe API port is 8443."
    facts = extract_facts(text, heading_path=("Deploy",))
    assert [(f.value, f.qualifiers.environment, f.heading_path) for f in facts] == [
        ("9443", "staging", ("Deploy", "Staging")),
        ("8443", "production", ("Deploy", "Production")),
    ]


def test_table_with_version_qualified_columns() -> None:
    text = (
        "| Setting | Old default (2.3.x) | New default (2.4.0) |\n"
        "|---|---|---|\n"
        "| sync.retry.max_attempts | 3 | 5 |\n"
        "| sync.timeout | 30 s | 1 min |\n"
    )
    facts = extract_facts(text)
    assert [
        (f.subject, f.attribute, f.value, f.qualifiers.version, f.qualifiers.time) for f in facts
    ] == [
        ("sync.retry.max_attempts", "count", "3", "2.3.x", "historical"),
        ("sync.retry.max_attempts", "count", "5", "2.4.0", "current"),
        ("sync.timeout", "duration", "30 s", "2.3.x", "historical"),
        ("sync.timeout", "duration", "60 s", "2.4.0", "current"),
    ]


def test_table_qualifier_columns_and_header_kinds() -> None:
    text = (
        "| Service | Port | Environment | Owner |\n"
        "| --- | ---: | --- | --- |\n"
        "| api | 8443 | production | Team A |\n"
        "| api | 9443 | staging | Team A |"
    )
    facts = extract_facts(text)
    assert [(f.subject, f.attribute, f.value, f.qualifiers.environment) for f in facts] == [
        ("api port", "port", "8443", "production"),
        ("api owner", "owner", "team a", "production"),
        ("api port", "port", "9443", "staging"),
        ("api owner", "owner", "team a", "staging"),
    ]


def test_table_row_with_separately_given_header() -> None:
    f = one("| sync.retry.max_attempts | 3 |", table_header=["Key", "Default"], base_offset=100)
    assert (f.subject, f.value, f.start, f.end) == ("sync.retry.max_attempts", "3", 100, 131)
    assert (f.value_start, f.value_end) == (128, 129)


def test_table_without_header_yields_nothing() -> None:
    assert extract_facts("| a | 3 |\n| b | 4 |") == []


def test_spans_and_doc_path() -> None:
    doc = "Intro text here.\nThe API port is 8443. The retry limit is 3."
    base = 17
    facts = extract_facts(doc[base:], base_offset=base, doc_path="ops/deploy.md")
    assert [f.text for f in facts] == ["The API port is 8443.", "The retry limit is 3."]
    for f in facts:
        assert doc[f.start : f.end] == f.text
        assert doc[f.value_start : f.value_end] == f.raw_value
        assert f.doc_path == "ops/deploy.md"


def test_qualifiers_in_headers() -> None:
    assert qualifiers_in("Old default (2.3.x)") == Qualifiers(version="2.3.x", time="historical")
    assert qualifiers_in("New default (2.4.0)") == Qualifiers(version="2.4.0", time="current")
    assert qualifiers_in("Staging") == Qualifiers(environment="staging")
    assert qualifiers_in("Linux") == Qualifiers(platform="linux")
    assert qualifiers_in("Installation") == Qualifiers()


_PIECES = st.sampled_from(
    [
        "The API port is 8443. ",
        "In staging, the port is 9443. ",
        "Retry limit 3\n",
        "- Owner: Team A\n",
        "| Key | Default |\n|---|---|\n| retry | 3 |\n",
        "## Staging\n",
        "同步服务的重试上限为3次。",
        "Previously 3, now it is 5. ",
        "POST /api/v2/sync uses JSON. ",
        "\n\n",
        "x ",
        "C:\\a\\b.toml ",
        "±0.10 mm ",
        "2024-03-05 ",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join), st.integers(0, 500))
def test_fact_spans_slice_the_source_exactly(text: str, base: int) -> None:
    for f in extract_facts(text, base_offset=base):
        assert text[f.start - base : f.end - base] == f.text
        assert text[f.value_start - base : f.value_end - base] == f.raw_value
        assert f.start <= f.value_start <= f.value_end <= f.end
        assert f.subject


def test_property_owner_before_has_verb_is_part_of_the_subject() -> None:
    assert triples("The Lumen S200 covers a wavelength range of 340–800 nm.") == [
        ("lumen s200 wavelength range", "length", "0.00034–0.0008 mm")
    ]
    assert triples("The S400 has a warm-up time of 15 minutes.") == [
        ("s400 warm-up time", "duration", "900 s")
    ]


def test_negated_state_is_flipped() -> None:
    assert triples("Telemetry is not enabled.") == [("telemetry", "state", "disabled")]
    assert triples("同步服务未启用。") == [("同步服务", "state", "disabled")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The Lumen Telemetry Gateway is owned by the Fleet Platform team.",
            ("lumen telemetry gateway", "owner", "fleet platform team"),
        ),
        (
            "The gateway is owned by the Fleet Platform team.",
            ("gateway", "owner", "fleet platform team"),
        ),
        (
            "The Telemetry Gateway is owned by Fleet Platform.",
            ("telemetry gateway", "owner", "fleet platform"),
        ),
        (
            "The sync service is maintained by a platform group.",
            ("sync service", "owner", "platform group"),
        ),
    ],
)
def test_owner_after_a_determiner_keeps_its_subject(
    text: str, expected: tuple[str, str, str]
) -> None:
    assert triples(text) == [expected]


def test_edition_year_in_headers_is_a_version() -> None:
    assert qualifiers_in("Lumen Instrument Specifications 2023") == Qualifiers(version="2023")
    assert qualifiers_in("Lumen S400 (2024)") == Qualifiers(version="2024")
    assert qualifiers_in("2024 edition") == Qualifiers(version="2024")
    assert qualifiers_in("Top 2000 errors") == Qualifiers()
    assert qualifiers_in("Harbor 2.4.1 — 2024-05-14") == Qualifiers(version="2.4.1")
    f = one("The S400 warm-up time is 30 minutes.", heading_path=("Specifications 2023",))
    assert f.qualifiers == Qualifiers(version="2023")


def test_previous_and_rollback_are_historical() -> None:
    f = one("2. Install the previous package, `harbor=2.4.0-1`.")
    assert (f.value, f.qualifiers.time) == ("2.4.0-1", "historical")
    assert one("Roll back to port 8080.").qualifiers.time == "historical"


REGML = (
    '<paragraph label="1030-4-b-4" marker="(4)">\n'
    '  <content>The <ref target="1030-2-a" reftype="term">monthly maintenance fee</ref>'
    " is $5 and the grace period is 10 days.</content>\n"
    "</paragraph>\n"
)


def test_xml_tags_and_references_state_no_facts() -> None:
    """RegML is stored as its source: tags are scaffolding, not paths or values (held-out
    regulations, 2026-12-07: before, this paragraph gave "monthly maintenance fee:
    location /ref" and "/paragraph", and conflict notes between such tags)."""
    from citewise.sufficiency._model import blank_markup

    facts = extract_facts(REGML, base_offset=100)
    assert [(f.subject, f.attribute, f.raw_value) for f in facts] == [
        ("grace period", "duration", "10 days")
    ]
    # the fact cites its source sentence exactly, tags and all
    assert facts[0].text == REGML[facts[0].start - 100 : facts[0].end - 100]
    assert "</ref> is $5" in facts[0].text
    assert blank_markup("a &#8220;b&#8221; `List<String>` <b>c</b>") == (
        "a “      b”       `List<String>`    c    "
    )
    autolinks = "Base URL: <https://api.example.com/v2>, owner <ops@example.com>."
    assert blank_markup(autolinks) == autolinks  # links are content, not tags


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('ab <>/&#;`\n="x1é')), max_size=80))
def test_blanking_markup_keeps_every_offset_and_line(text: str) -> None:
    from citewise.sufficiency._model import blank_markup

    out = blank_markup(text)
    assert len(out) == len(text)
    assert [i for i, c in enumerate(out) if c == "\n"] == [
        i for i, c in enumerate(text) if c == "\n"
    ]
