"""The per-KB policy file (issue 38): defaults, every key checked with an error naming
it, and the parse warnings that quarantine rules name."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.errors import BadPolicy
from citewise.governance.holds import holds, parse_warnings
from citewise.governance.policy import (
    Policy,
    QuarantineRules,
    load_policy,
    parse_policy,
    policy_path,
)

FULL = """
publication: review
publishers: [alice, compliance]
quarantine: {ocr_degraded: true, repaired_extraction: false, parse_warnings: true, max_bytes: 5000}
conflicts: needs_review
verification: regulatory
retention: {default_days: 365}
"""


def test_a_missing_file_is_todays_behaviour(tmp_path: Path) -> None:
    policy = load_policy(tmp_path, "default")
    assert policy == Policy()
    assert policy.publication == "open" and not policy.gated


def test_every_field_is_read_and_shown(tmp_path: Path) -> None:
    path = policy_path(tmp_path, "legal")
    path.parent.mkdir(parents=True)
    path.write_text(FULL, "utf-8")
    policy = load_policy(tmp_path, "legal")
    assert policy.publication == "review" and policy.gated
    assert policy.publishers == ("alice", "compliance")
    assert policy.quarantine == QuarantineRules(True, False, True, 5000)
    assert (policy.conflicts, policy.verification) == ("needs_review", "regulatory")
    assert policy.retention.default_days == 365
    shown = policy.to_json()
    assert shown["quarantine"]["max_bytes"] == 5000
    assert shown["not_enforced"] == [] and shown["redaction"] == "off"


@pytest.mark.parametrize(
    ("text", "named", "fix"),
    [
        ("publication: draft", "'publication' is 'draft'", "open, review"),
        ("publishers: 3", "'publishers'", "publishers: [alice"),
        ("quarantin: {}", "unknown key 'quarantin'", "quarantine"),
        ("quarantine: {ocr: true}", "unknown key 'quarantine.ocr'", "quarantine.ocr_degraded"),
        (
            "quarantine: {parse_warnings: yes please}",
            "'quarantine.parse_warnings'",
            "true or false",
        ),
        ("quarantine: {max_bytes: -1}", "'quarantine.max_bytes' is -1", "at least 1"),
        ("quarantine: {max_bytes: true}", "'quarantine.max_bytes' is True", "at least 1"),
        ("conflicts: block", "'conflicts' is 'block'", "degrade, needs_review"),
        ("verification: on", "'verification' is True", "off, regulatory, always"),
        ("retention: {default_days: 0}", "'retention.default_days' is 0", "at least 1"),
        ("retention: {keep: 3}", "unknown key 'retention.keep'", "retention.default_days"),
        ("- a\n- b", "must be a mapping", "key: value"),
        ("publication: [open", "not valid YAML", "Fix the YAML"),
    ],
)
def test_a_bad_key_is_named_with_its_fix(text: str, named: str, fix: str) -> None:
    with pytest.raises(BadPolicy) as info:
        parse_policy(text, "policy.yaml")
    assert named in str(info.value) and fix in str(info.value)
    assert info.value.code == "BAD_POLICY"


def test_a_bare_off_is_off() -> None:
    """YAML 1.1 reads ``off`` as false; the policy means the choice named off."""
    assert parse_policy("verification: off").verification == "off"


def test_an_oversized_or_binary_file_is_refused(tmp_path: Path) -> None:
    path = policy_path(tmp_path, "default")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(BadPolicy, match="not UTF-8"):
        load_policy(tmp_path, "default")
    path.write_text("# x\n" * 20_000, "utf-8")
    with pytest.raises(BadPolicy, match="limit"):
        load_policy(tmp_path, "default")


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=8,
)
_keys = st.sampled_from(
    ["publication", "publishers", "quarantine", "conflicts", "verification", "retention", "x"]
)


#: A shared 2-core machine: generation may be slow; the property is what is checked.
_LOADED = settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=80)


@_LOADED
@given(st.dictionaries(_keys, _values, max_size=6))
def test_any_yaml_mapping_gives_a_policy_or_bad_policy(data: dict[str, Any]) -> None:
    """At the parser boundary nothing but a policy or BAD_POLICY comes out."""
    try:
        policy = parse_policy(yaml.safe_dump(data), "policy.yaml")
    except BadPolicy:
        return
    assert policy.publication in ("open", "review")
    assert all(isinstance(p, str) for p in policy.publishers)


@_LOADED
@given(st.text(max_size=200))
def test_any_text_gives_a_policy_or_bad_policy(text: str) -> None:
    with contextlib.suppress(BadPolicy):
        parse_policy(text)


# -- the warnings quarantine rules name -----------------------------------------------
OCR = {"ocr_pages": [2, 3], "pages": 3}
REPAIRED = {"text_check": {"pages_checked": 2, "pages_reextracted": [1], "chars_changed": 9}}
SUSPECT = {"text_suspect": [{"page": 4, "reason": "foreign script"}], "needs_ocr": [5]}


def test_parse_warnings_name_their_class_and_pages() -> None:
    kinds = [(w.kind, w.message) for w in parse_warnings(OCR | REPAIRED | SUSPECT)]
    assert kinds == [
        ("ocr_degraded", "pages 2, 3 were read by OCR"),
        (
            "repaired_extraction",
            "pages 1 failed the glyph check and were read again by a second extractor",
        ),
        ("parse_warnings", "pages 5 have no text layer (not read)"),
        ("parse_warnings", "the text of pages 4 looks mis-mapped"),
    ]
    assert parse_warnings({"title": "clean", "text_check": {"pages_reextracted": []}}) == []


def test_only_the_named_rules_hold() -> None:
    meta = OCR | REPAIRED | SUSPECT
    assert holds(meta, 10, QuarantineRules()) == []
    assert [w.kind for w in holds(meta, 10, QuarantineRules(ocr_degraded=True))] == ["ocr_degraded"]
    assert {w.kind for w in holds(meta, 10, QuarantineRules(parse_warnings=True))} == {
        "parse_warnings"
    }
    big = holds({}, 6000, QuarantineRules(max_bytes=5000))
    assert [w.kind for w in big] == ["max_bytes"] and "6,000 bytes" in big[0].message
    assert holds({}, 5000, QuarantineRules(max_bytes=5000)) == []
