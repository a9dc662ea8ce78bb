"""Conflicts between facts: true conflicts and false-conflict guards per qualifier."""

from __future__ import annotations

import pytest

from citewise.sufficiency.conflicts import (
    Conflict,
    find_conflicts,
    is_generic_subject,
    scopes_separate,
    subject_key,
)
from citewise.sufficiency.facts import Fact, Qualifiers, extract_facts


def facts_of(*docs: str | tuple[str, tuple[str, ...]]) -> list[Fact]:
    out: list[Fact] = []
    for i, doc in enumerate(docs):
        text, headings = (doc, ()) if isinstance(doc, str) else doc
        out.extend(extract_facts(text, doc_path=f"doc{i}.md", heading_path=headings))
    return out


def conflicts(*docs: str | tuple[str, tuple[str, ...]]) -> list[Conflict]:
    return find_conflicts(facts_of(*docs))


# ------------------------------------------------------------------ true conflicts


def test_retry_limit_in_two_docs_unqualified() -> None:
    (c,) = conflicts("The default retry limit is 3.", "The retry limit is 5.")
    assert c.values == ("3", "5")
    assert c.reason == "value_mismatch:count:unscoped"
    assert c.citations == (("doc0.md", 0, 29), ("doc1.md", 0, 21))


def test_retry_limit_synonyms() -> None:
    assert len(conflicts("The max attempts is 3.", "The retry limit is 5.")) == 1
    assert len(conflicts("Maximum number of retries: 3", "- Retry limit: 5")) == 1
    # Conservative: a more specific subject is a different subject.
    assert conflicts("The sync retry limit is 3.", "The retry limit is 5.") == []


def test_tolerance_same_part() -> None:
    (c,) = conflicts(
        "The flatness tolerance of part A-12 is ±0.10 mm.",
        "The flatness tolerance of part A-12 is ±0.20 mm.",
    )
    assert c.values == ("±0.1 mm", "±0.2 mm")
    assert c.attribute == "length"


def test_tolerance_equal_after_normalisation_is_no_conflict() -> None:
    assert conflicts("The gap of part B is 0.10 mm.", "The gap of part B is 0.1 mm.") == []
    assert conflicts("The upload timeout is 60 s.", "The upload timeout is 1 min.") == []


def test_duration_mismatch_after_normalisation() -> None:
    (c,) = conflicts("The upload timeout is 30 s.", "The upload timeout is 1 min.")
    assert c.values == ("30 s", "60 s")


def test_owner_team_a_vs_team_b() -> None:
    (c,) = conflicts(
        "The sync service is owned by Team A.", "The owner of the sync service is Team B."
    )
    assert c.values == ("team a", "team b")
    assert c.attribute == "owner"


def test_json_vs_yaml_payload_for_same_endpoint() -> None:
    (c,) = conflicts(
        "The /api/v2/sync endpoint accepts JSON payloads.",
        "Payloads for /api/v2/sync are YAML.",
    )
    assert c.values == ("json", "yaml")
    assert c.subject == "/api/v2/sync"


def test_sqlite_vs_postgresql_storage_engine() -> None:
    (c,) = conflicts(
        "The metadata store uses SQLite as its storage engine.",
        "The metadata store uses PostgreSQL.",
    )
    assert c.values == ("sqlite", "postgresql")
    assert c.reason == "value_mismatch:engine:unscoped"


def test_same_scope_contradiction_still_conflicts() -> None:
    (c,) = conflicts(
        "In staging, the API port is 9443.",
        ("The API port is 9444.", ("Deploy", "Staging")),
    )
    assert c.reason == "value_mismatch:port:same_scope"


def test_port_unqualified_conflict_control() -> None:
    assert len(conflicts("The API port is 9443.", "The API port is 8443.")) == 1


def test_conflict_across_sections_of_one_document() -> None:
    text = "## Limits\n\nThe retry limit is 3.\n\n## Tuning\n\nThe retry limit is 5."
    (c,) = find_conflicts(extract_facts(text, doc_path="a.md"))
    assert c.a.doc_path == c.b.doc_path == "a.md"
    assert c.a.heading_path == ("Limits",) and c.b.heading_path == ("Tuning",)
    assert text[c.a.start : c.a.end] == "The retry limit is 3."


def test_table_vs_prose_conflict() -> None:
    table = "| Key | Default |\n|---|---|\n| sync.retry.max_attempts | 3 |"
    assert len(conflicts(table, "The default sync.retry.max_attempts is 5.")) == 1


# -------------------------------------------------------------- false-conflict guards


def test_environment_separates_staging_vs_production_port() -> None:
    assert (
        conflicts("In staging, the API port is 9443.", "In production, the API port is 8443.") == []
    )
    assert conflicts("The API port is 9443 in staging and 8443 in production.") == []


def test_environment_from_heading_separates() -> None:
    assert (
        conflicts(
            ("The API port is 9443.", ("Deploy", "Staging")),
            ("The API port is 8443.", ("Deploy", "Production")),
        )
        == []
    )


def test_version_separates_v1_vs_v2_payload() -> None:
    assert conflicts("In v1, the sync payload is JSON.", "In v2, the sync payload is YAML.") == []
    assert conflicts("The v1 sync payload is JSON.", "The v2 sync payload is YAML.") == []


def test_version_table_columns_separate_old_and_new_defaults() -> None:
    table = (
        "| Setting | Old default (2.3.x) | New default (2.4.0) |\n|---|---|---|\n"
        "| sync.retry.max_attempts | 3 | 5 |"
    )
    assert conflicts(table) == []


def test_platform_separates_windows_vs_linux_path() -> None:
    assert (
        conflicts(
            "On Windows, the config file is at C:\\ProgramData\\citewise\\config.toml.",
            "On Linux, the config file is at /etc/citewise/config.toml.",
        )
        == []
    )


def test_time_separates_previously_vs_now() -> None:
    assert conflicts("Previously the retry limit was 3, now it is 5.") == []
    assert conflicts("The retry limit was 3.", "The retry limit is 5.") == []
    assert conflicts("The retry limit will be 7.", "The retry limit is 5.") == []


def test_qualified_override_of_unqualified_default_is_not_a_conflict() -> None:
    assert conflicts("The API port is 8443.", "In staging, the API port is 9443.") == []


def test_different_endpoints_are_different_subjects_not_a_version_conflict() -> None:
    assert (
        conflicts(
            "The /api/v1/sync endpoint accepts JSON payloads.",
            "The /api/v2/sync endpoint accepts YAML payloads.",
        )
        == []
    )
    for f in facts_of(
        "The /api/v1/sync endpoint accepts JSON.", "The /api/v2/sync endpoint accepts YAML."
    ):
        assert f.qualifiers.version is None


def test_same_subject_endpoint_value_change_is_a_conflict() -> None:
    # The route segment is part of the value; no version qualifier separates them.
    (c,) = conflicts("The sync endpoint is /api/v1/sync.", "The sync endpoint is /api/v2/sync.")
    assert c.values == ("/api/v1/sync", "/api/v2/sync")


def test_values_listed_in_one_sentence_do_not_conflict() -> None:
    assert conflicts("POST /api/v2/sync accepts JSON and YAML payloads.") == []


def test_different_attributes_or_subjects_do_not_conflict() -> None:
    assert conflicts("The API port is 8443.", "The admin port is 9000.") == []
    assert conflicts("The upload timeout is 30 s.", "The upload timeout is 3.") == []


def test_same_value_is_not_a_conflict() -> None:
    assert conflicts("The retry limit is 3.", "Retry limit 3") == []


# ------------------------------------------------------------------------ helpers


@pytest.mark.parametrize(
    ("a", "b", "attribute"),
    [
        ("retry limit", "default retry limit", "count"),
        ("max attempts", "retry limit", "count"),
        ("api port", "API ports", "port"),
        ("sync service owner", "sync service", "owner"),
        ("重试上限", "retry limit", "count"),
    ],
)
def test_subject_keys_match(a: str, b: str, attribute: str) -> None:
    assert subject_key(a, attribute) == subject_key(b, attribute)


@pytest.mark.parametrize(
    ("a", "b", "attribute"),
    [
        ("/api/v1/sync", "/api/v2/sync", "format"),
        ("GET /api/v2/sync", "POST /api/v2/sync", "format"),
        ("api port", "admin port", "port"),
        ("sync.retry.max_attempts", "retry limit", "count"),
        ("sync retry limit", "retry limit", "count"),
    ],
)
def test_subject_keys_differ(a: str, b: str, attribute: str) -> None:
    assert subject_key(a, attribute) != subject_key(b, attribute)


def test_scopes_separate_names_the_dimension() -> None:
    q = Qualifiers
    assert scopes_separate(q(environment="staging"), q(environment="production")) == "environment"
    assert scopes_separate(q(platform="windows"), q(platform="linux")) == "platform"
    assert scopes_separate(q(version="1"), q(version="2")) == "version"
    assert scopes_separate(q(time="historical"), q()) == "time"
    assert scopes_separate(q(time="current"), q()) is None
    assert scopes_separate(q(), q()) is None


def test_generic_subject_only_conflicts_within_its_document() -> None:
    assert conflicts("The port is 8443.", "The port is 9443.") == []
    assert len(conflicts("The port is 8443. Later on, the port is 9443.")) == 1
    assert is_generic_subject("port", "port") and not is_generic_subject("api port", "port")


def test_rows_of_one_table_and_items_of_one_list_enumerate() -> None:
    table = "| Code | Cause |\n|---|---|\n| 503 | Nodes draining |\n| 503 | Storage unreachable |"
    assert conflicts(table) == []
    assert (
        conflicts(
            "- PostgreSQL: the metadata store uses Postgres.\n"
            "- SQLite: the metadata store uses SQLite."
        )
        == []
    )


def test_option_columns_are_not_values() -> None:
    table = (
        "| Key | Default | Allowed values |\n|---|---|---|\n| storage.backend | postgres | sqlite |"
    )
    facts = extract_facts(table)
    assert [(f.subject, f.value) for f in facts] == [("storage.backend", "postgresql")]


def test_version_values_need_a_role_to_conflict() -> None:
    assert conflicts("Install harbor 2.4.0.", "Harbor ships as 2.4.1.") == []
    assert len(conflicts("The minimum client is 2.4.0.", "The minimum client is 2.4.1.")) == 1


def test_thousands_separators_and_volume_units() -> None:
    (c,) = conflicts(
        "The rated life of the S400 lamp is 2,000 hours.",
        "The rated life of the S400 lamp is 1,500 hours.",
    )
    assert c.values == ("7200000 s", "5400000 s")
    (v,) = conflicts("The S400 sample volume is 3.5 mL.", "The S400 sample volume is 2.5 mL.")
    assert v.attribute == "volume"


def test_owner_teams_across_documents() -> None:
    facts = [
        *extract_facts(
            "The Lumen Telemetry Gateway is owned by the Instrument Reliability team.",
            doc_path="a.md",
        ),
        *extract_facts(
            "The Lumen Telemetry Gateway is owned by the Fleet Platform team.", doc_path="b.md"
        ),
    ]
    (c,) = find_conflicts(facts)
    assert c.attribute == "owner"
    assert c.values == ("instrument reliability team", "fleet platform team")
    assert [side[0] for side in c.citations] == ["a.md", "b.md"]


def test_owner_with_and_without_team_noun_agree() -> None:
    assert (
        conflicts(
            "The Telemetry Gateway is owned by Fleet Platform.",
            "The Telemetry Gateway is owned by the Fleet Platform team.",
        )
        == []
    )


def test_options_listed_by_one_list_contradict_nothing() -> None:
    table = "| Key | Default | Notes |\n|---|---|---|\n| storage.backend | postgres | - |\n"
    options = (
        "- **PostgreSQL** (`storage.backend: postgres`)\n"
        "  - needs PostgreSQL 14 or newer;\n"
        "- **SQLite** (`storage.backend: sqlite`)\n"
        "  - single node only.\n"
    )
    assert conflicts(table, options) == []
    # Control: a list that states one value is a statement, not a set of options.
    (c,) = conflicts(table, "- Backend: see below.\n- `storage.backend: sqlite`\n")
    assert c.values == ("postgresql", "sqlite")


def test_editions_of_a_specification_do_not_conflict() -> None:
    old = ("The Lumen S400 warm-up time is 30 minutes.", ("Specifications 2023", "Lumen S400"))
    new = ("The Lumen S400 warm-up time is 15 minutes.", ("Specifications 2024", "Lumen S400"))
    assert conflicts(old, new) == []
    t23 = "| Specification | Lumen S400 (2023) |\n|---|---|\n| Warm-up time | 30 minutes |\n"
    t24 = "| Specification | Lumen S400 (2024) |\n|---|---|\n| Warm-up time | 15 minutes |\n"
    assert conflicts(t23, t24) == []
    # Control: the same edition stating two values is still a conflict.
    assert len(conflicts(old, (old[0].replace("30", "45"), old[1]))) == 1


def test_rollback_to_previous_package_is_not_the_target_version() -> None:
    guide = (
        "The minimum client is 2.4.1.\n\n1. Drain the node.\n2. The {}minimum client is 2.4.0-1.\n"
    )
    assert conflicts(guide.format("previous ")) == []
    assert len(conflicts(guide.format(""))) == 1  # control


# ------------------------------------------- scientific prose (BEIR SciFact tally)
# Each class below was a false "conflict" on SciFact answers (docs/benchmarks.md);
# each has a control showing the same measure with a different value still conflicts.


def test_p_values_of_different_tests_do_not_conflict() -> None:
    assert (
        conflicts(
            "Mortality was 25.7% in the open group and 15.8% in the closed group (p = 0.01).",
            "The average stay was 17 days in the open group (P = 0.03).",
        )
        == []
    )
    assert (
        conflicts("Five new loci were found (P < 5 × 10−8).", "Loci were selected (P < 0.05).")
        == []
    )
    assert conflicts("This SNP was associated with leukopenia (P = 4.64 × 10−4).") == []


def test_sample_sizes_and_effect_labels_do_not_conflict() -> None:
    assert (
        conflicts("Older people (n = 150) were assessed.", "Residents (n = 15 022) were surveyed.")
        == []
    )
    assert conflicts("The odds ratio was 1.46.", "The odds ratio was 1.68.") == []
    assert conflicts("The relative risk was 1.68 (95% CI 1.26 to 2.23).") == []


def test_bounds_are_not_values() -> None:
    assert (
        conflicts(
            "Guidelines recommend ART initiation with CD4 ≤500 cells/µL.",
            "The previous recommendation was initiation with CD4 ≤350 cells/µL.",
        )
        == []
    )
    assert (
        conflicts("Women with birth weights >4000g were at risk.", "Birth weights >3500 g.") == []
    )


def test_ordinal_labels_years_and_name_parts_are_not_values() -> None:
    assert (
        conflicts(
            "Primary outcome was abstinence at week 12.",
            "Secondary outcomes were abstinence rates at weeks 26 and 52.",
        )
        == []
    )
    assert conflicts("Patients with type 1 diabetes.", "Patients with type 2 diabetes.") == []
    assert (
        conflicts("Data were available from the year 1953.", "Women received it in years 4.") == []
    )
    assert (
        conflicts(
            "The enzyme uses phosphatidylinositol 4,5-bisphosphate.",
            "It cannot use phosphatidylinositol 3,4,5-trisphosphate.",
        )
        == []
    )
    assert conflicts("A 7-day point prevalence was measured.", "A 3-day point prevalence.") == []


def test_numbers_inside_noun_phrases_are_not_values() -> None:
    assert (
        conflicts(
            "Deletion of the N-terminal 23 amino acids compromises apoptosis.",
            "A deletion which eliminates the N-terminal 63 amino acids renders p53 inert.",
        )
        == []
    )
    assert conflicts("There have been 11 cases.", "There have been 21 complete responses.") == []
    strata = (
        "The rates of death were {} percent among the 314 patients with low levels, {} percent "
        "among the {} with middle levels, and {} percent among the {} with high levels."
    )
    assert (
        conflicts(strata.format(5.7, 7.8, 294, 16.5, 309), strata.format(5.4, 12, 300, 13, 303))
        == []
    )


def test_strata_in_one_sentence_are_options() -> None:
    assert (
        conflicts(
            "The early neonatal mortality was 46 per 1000 live births.",
            "The early neonatal mortality was 29 in boys and 69 in girls per 1000 live births.",
        )
        == []
    )


def test_opening_condition_separates_time_points_and_thresholds() -> None:
    assert (
        conflicts(
            "At 12 weeks, the abstinence rate was 43.2%.",
            "At 26 weeks, the abstinence rate was 27.6%.",
        )
        == []
    )
    assert (
        conflicts(
            "At 14 ng/L (20 papers), the summary sensitivity was 89.5%.",
            "At 3-5 ng/L (six papers), the summary sensitivity was 97.4%.",
        )
        == []
    )
    # A discourse opener is not a condition.
    assert len(conflicts("In addition, the retry limit is 3.", "The retry limit is 5.")) == 1


def test_scientific_real_conflicts_are_still_flagged() -> None:
    (c,) = conflicts(
        "The early neonatal mortality was 46 per 1000 live births.",
        "The early neonatal mortality was 52 per 1000 live births.",
    )
    assert c.values == ("46", "52")
    (p,) = conflicts(
        "At 12 weeks, the abstinence rate was 43%.", "At 12 weeks, the abstinence rate was 53%."
    )
    assert p.reason == "value_mismatch:percent:same_scope"
    # The value's confidence interval does not hide a disagreement about the value.
    (ci,) = conflicts(
        "The prevalence of diabetes is 6% (95% CI 5% to 7%).",
        "The prevalence of diabetes is 9% (95% CI 8% to 10%).",
    )
    assert ci.values == ("6 %", "9 %")
    (n,) = conflicts(
        "The number of enrolled patients was 120.", "The number of enrolled patients was 150."
    )
    assert n.attribute == "count"
    assert len(conflicts("The buffer size is 2048.", "The buffer size is 4096.")) == 1


def test_scope_condition_dimension() -> None:
    q = Qualifiers
    assert scopes_separate(q(condition="at 12 weeks"), q(condition="at 26 weeks")) == "condition"
    assert scopes_separate(q(condition="at 12 weeks"), q()) == "condition"
    assert scopes_separate(q(condition="at 12 weeks"), q(condition="at 12 weeks")) is None


def test_subject_continues_across_of_and_in() -> None:
    # Cut at "in", both subjects were "Ghana": two measures, one false conflict.
    assert (
        conflicts(
            "The prevalence of diabetes in Ghana was 6%.",
            "The prevalence of hypertension in Ghana was 28%.",
        )
        == []
    )
    (c,) = conflicts(
        "The prevalence of diabetes in Ghana was 6%.", "The prevalence of diabetes in Ghana was 9%."
    )
    assert c.values == ("6 %", "9 %")
