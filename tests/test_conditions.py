"""The query condition set (issue 22): read from questions and from a caller's key: value
pairs, compared with the conditions sentences and sections state."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.analysis.conditions import (
    ConditionSet,
    condition_order,
    conditions_in,
    contradicts,
    from_pairs,
)
from citewise.analysis.question import analyse


def _values(text: str) -> dict[str, str]:
    return {c.kind: c.value for c in conditions_in(text).conditions}


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Where is the fleet agent log on Linux?", {"platform": "linux"}),
        ("where is the log on windows?", {"platform": "windows"}),
        ("在Linux上日志在哪里？", {"platform": "linux"}),
        ("Which port is used in production?", {"environment": "production"}),
        ("生产环境的端口是多少？", {"environment": "production"}),
        ("How are payloads encoded in API v2?", {"version": "2"}),
        ("Install for version 2.x on macOS", {"version": "2.x", "platform": "macos"}),
        ("2.x 版本如何安装？", {"version": "2.x"}),
        ("What applied as of 1 July 2023 in the EU?", {"time": "2023-07-01", "region": "eu"}),
        ("What was required as of 2024-03-01?", {"time": "2024-03-01"}),
        # a month or a year alone means its last day (citewise.analysis.asof)
        ("截至2024年3月，欧盟的规定是什么？", {"time": "2024-03-31", "region": "eu"}),
        ("Which rules applied as of 2023?", {"time": "2023-12-31"}),
        # no condition: a path segment is no version, a bare number no date
        ("What is the health check endpoint GET /api/v1/health?", {}),
        ("What is the default calibration interval of 90 days?", {}),
    ],
)
def test_conditions_read_from_questions(question: str, expected: dict[str, str]) -> None:
    assert _values(question) == expected


def test_caller_pairs_map_known_keys_and_keep_the_rest_as_filters() -> None:
    got = from_pairs({"os": "Windows", "as_of": "1 July 2023", "team": "Blue"})
    assert [(c.kind, c.value, c.source) for c in got.conditions] == [
        ("time", "2023-07-01", "caller"),
        ("platform", "windows", "caller"),
        ("filter", "team=blue", "caller"),
    ]


def test_the_question_overrides_the_callers_condition_of_its_kind() -> None:
    q = analyse("How do I install the agent on Windows?", from_pairs({"platform": "linux"}))
    assert q.conditions.value("platform") == "windows"
    q = analyse("How do I install the agent?", from_pairs({"platform": "linux", "env": "prod"}))
    assert (q.conditions.value("platform"), q.conditions.value("environment")) == (
        "linux",
        "production",
    )


def test_two_values_of_one_kind_select_neither() -> None:
    both = conditions_in("Compare the log path on Windows and on Linux")
    assert both.value("platform") is None
    assert contradicts(both, conditions_in("On Windows, the log is in C:")) == ()


def test_contradiction_is_by_kind_and_unqualified_text_never_contradicts() -> None:
    linux = conditions_in("where is the log on Linux?")
    assert contradicts(linux, conditions_in("On Windows, the agent writes ...")) == ("platform",)
    assert contradicts(linux, conditions_in("On Linux, the agent writes ...")) == ()
    assert contradicts(linux, conditions_in("The agent rotates its log at 50 MB.")) == ()
    v2 = conditions_in("in API v2.x")
    assert contradicts(v2, conditions_in("In API v2.1, payloads are YAML.")) == ()
    assert contradicts(v2, conditions_in("In API v1, payloads are JSON.")) == ("version",)


# Text with no condition vocabulary: lowercase letters (no platform capital, no "v1"),
# spaces and CJK characters that name no environment or region.
_PLAIN = st.text(alphabet=st.sampled_from(list("bcghjkmwyz ") + list("网关端口同步")), max_size=40)
_PLATFORMS = {"Windows": "windows", "Linux": "linux", "macOS": "macos", "FreeBSD": "freebsd"}
_ENVS = {"production": "production", "staging": "staging", "生产环境": "production"}


@given(_PLAIN)
def test_plain_text_states_no_condition(text: str) -> None:
    assert conditions_in(text) == ConditionSet()


@given(_PLAIN, st.sampled_from(sorted(_PLATFORMS)), st.sampled_from(sorted(_ENVS)), _PLAIN)
def test_inserted_conditions_are_read_with_their_words(
    before: str, platform: str, env: str, after: str
) -> None:
    text = f"{before} on {platform}, in {env} {after}"
    found = conditions_in(text)
    assert found.value("platform") == _PLATFORMS[platform]
    assert found.value("environment") == _ENVS[env]
    for c in found.conditions:  # every condition quotes the words that state it
        assert c.text in text
    assert conditions_in(text) == found  # deterministic


@given(st.text(max_size=80))
def test_any_text_gives_canonical_quoted_conditions(text: str) -> None:
    found = conditions_in(text)
    for c in found.conditions:
        assert c.text and c.text in text
        assert c.value == c.value.lower()
    assert len({(c.kind, c.value) for c in found.conditions}) == len(found.conditions)


@given(st.dictionaries(st.sampled_from(["os", "env", "team", "region"]), st.text(min_size=1,
       alphabet="abcdefxyz", max_size=8)))  # fmt: skip
def test_over_keeps_one_condition_per_kind_and_filter_key(pairs: dict[str, str]) -> None:
    base = from_pairs({"os": "linux", "team": "red", "region": "EU"})
    merged = from_pairs(pairs).over(base)
    slots = [c.kind if c.kind != "filter" else c.value.split("=")[0] for c in merged.conditions]
    assert len(slots) == len(set(slots))
    assert set(slots) >= {"platform", "team", "region"}


def test_condition_order_puts_matching_first_keeps_unqualified_drops_contradicting() -> None:
    texts = [
        "Agent / Log on Windows\nThe agent writes to C:",
        "Agent / Rotation\nThe agent rotates at 50 MB.",
        "Agent / Log on Linux\nThe agent writes to /var/log.",
    ]
    assert condition_order(texts, conditions_in("agent log on Linux")) == [2, 1]
    assert condition_order(texts, ConditionSet()) == [0, 1, 2]
