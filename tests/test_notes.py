"""Topic notes (issue 40): topics, quotations with citations that resolve, revisions kept
current by sync (only the notes whose sources changed), and what each principal sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.config import Settings
from citewise.core.records import sha256_text
from citewise.errors import NoteNotFound, UsageError
from citewise.ingest.parse import parse_document
from citewise.kb import Home
from citewise.notes.extract import Source, defined_subject, document_pieces, topic_key
from citewise.notes.hook import notes_mode
from citewise.notes.read import NoteReader
from citewise.notes.rebuild import rebuild_notes
from citewise.notes.topics import topic_id

pytestmark = pytest.mark.usefixtures("dense_off")

#: A small operations handbook (English) and two Chinese statutes: definitions, headings
#: shared across documents, code names, figures, a conflict and a front-matter relation.
DOCS: dict[str, str] = {
    "glossary.md": (
        "# Glossary\n\n## Sync cursor\n\n"
        "A **sync cursor** is an opaque token that records how far the service has read. "
        "Each `cursor_store` keeps one sync cursor per source.\n\n"
        "## Retry policy\n\nThe retry policy is the rule that decides when a failed batch "
        "is written again. The retry policy allows 3 attempts per batch.\n"
    ),
    "config.md": (
        "---\nrelations:\n  - {type: requires, target: glossary.md}\n---\n"
        "# Configuration\n\n## Retry policy\n\n"
        "Set `sync.retry.max_attempts` to configure the retry policy. "
        "The retry policy allows 5 attempts per batch.\n\n"
        "## Sync cursor\n\nThe sync cursor is stored by `cursor_store` in the database.\n\n"
        "```yaml\nsync:\n  cursor_store: postgres\n```\n"
    ),
    "ops.md": (
        "# Operations\n\n## Sync cursor\n\n"
        "Use `cursor_store` to reset the sync cursor when a source was restored. "
        "The `cursor_store` keeps its data in one table. "
        "Back up `cursor_store` before an upgrade.\n"
    ),
    "zh/a.md": (
        "# 甲法\n\n## 第一章 总则\n\n第一条 本法所称数据处理者，是指处理个人数据的组织。\n\n"
        "第二条 数据处理者应当保护个人数据。\n"
    ),
    "zh/b.md": ("# 乙法\n\n## 第一章 总则\n\n第一条 数据处理者应当在七日内报告数据泄露。\n"),
    "zh/c.md": "# 丙法\n\n第一条 本法自公布之日起施行。\n",
    "faq.md": "# FAQ\n\nAsk the operations team first.\n",
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, "utf-8")
    return root


def _built(tmp_path: Path, files: dict[str, str] = DOCS) -> tuple[Home, Path]:
    src = _write(tmp_path / "src", files)
    home = Home.open(tmp_path / "home")
    kb = home.kb()
    assert kb.add([src]).ok
    rebuild_notes(kb.context)
    return home, src


def _by_title(home: Home, principal: str | None = None) -> dict[str, object]:
    notes = NoteReader(home.kb().context, principal).notes()
    return {n.topic.title.casefold(): n for n in notes.values()}


# -- pure parts ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sentence", "subject"),
    [
        ("A **sync cursor** is an opaque token that records progress.", "sync cursor"),
        ("`Context` objects are the state of one invocation.", "Context objects"),
        ("The timeout is 30 seconds.", ""),  # a value, not what the subject is
        ("The `Request` class is a wrapper around the ASGI scope.", "Request class"),
        ("Middleware means code that runs around every request.", "Middleware"),
        ("It is a token.", ""),  # a pronoun defines what the sentence before named
        ("Here is an example of a group with two commands.", ""),  # click's pages
        ("The answer to this is the `decode_unicode` flag.", ""),
        ("Who is the author of this mess?", ""),
        ("What this means is that the session is kept.", ""),  # requests' pages
        ("If `flag_value` is an `int`, the type is the matching basic type.", ""),
        ("When the cursor is a token, it is kept.", ""),
        ("第一条 本法所称数据处理者，是指处理个人数据的组织。", "数据处理者"),
        ("个人信息是指以电子方式记录的各种信息。", "个人信息"),
        ("The limit is 5 attempts, or less, in most setups of this large cluster.", ""),
    ],
)
def test_definition_subjects_in_english_and_chinese(sentence: str, subject: str) -> None:
    assert defined_subject(sentence) == subject


def test_topic_keys_and_ids_are_stable_and_url_safe() -> None:
    assert topic_key("## 2.3 The Retry Policy:") == "retry policy"
    assert topic_key("第一章 总则") == "总则"
    assert topic_key("`click.option()`") == "click.option"
    assert topic_id("retry policy") == topic_id(topic_key("Retry policy"))
    assert topic_id("retry policy").startswith("retry-policy-")
    assert topic_id("a/b c") != topic_id("a b c")


def _source(text: str) -> Source:
    parsed = parse_document(
        text.encode("utf-8"),
        name="x.md",
        kb="default",
        doc_path="x.md",
        config=Settings.resolve(None).ingest,
    )
    return Source("x.md", "d", 1, 1, parsed.text, tuple(parsed.nodes), {})


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(st.characters(blacklist_categories=("Cc", "Cs")) | st.just("\n"), max_size=80),
            st.sampled_from(
                [
                    "# H",
                    "## Sub *x*",
                    "- item `code`",
                    "| a | b |\n|---|---|\n| 1 | 2 |",
                    "```\ncode\n```",
                    "第一条 本法所称甲，是指乙。",
                    "> quoted",
                ]
            ),
        ),
        max_size=8,
    )
)
def test_every_piece_is_an_exact_span_inside_its_node(blocks: list[str]) -> None:
    """The parser boundary: whatever the text, each piece quotes the document exactly and
    lies inside the node its span id names."""
    src = _source("\n\n".join(["# Title", *blocks]))
    for p in document_pieces(src):
        assert src.text[p.start : p.end] == p.text
        assert p.node.char_start <= p.start <= p.end <= p.node.char_end
        first, last = p.lines
        assert p.node.line_start <= first <= last <= max(p.node.line_end, first)


def test_notes_mode_names_a_bad_value() -> None:
    assert notes_mode({}) == "auto"
    with pytest.raises(UsageError, match="CITEWISE_NOTES"):
        notes_mode({"CITEWISE_NOTES": "sometimes"})


# -- compiled notes -------------------------------------------------------------------------
def test_every_line_is_a_quotation_whose_citation_resolves(tmp_path: Path) -> None:
    home, _ = _built(tmp_path)
    with home:
        notes = NoteReader(home.kb().context, None).notes()
        assert notes
        for note in notes.values():
            for line in note.lines:
                got = home.resolve(line.id)
                assert got.text == line.excerpt and got.sha256 == line.sha256
                assert sha256_text(line.excerpt) == line.sha256
                assert (got.path, got.char_start, got.char_end) == (
                    line.path,
                    line.char_start,
                    line.char_end,
                )
                assert (got.line_start, got.line_end) == (line.line_start, line.line_end)


def test_topics_and_sections_from_both_languages(tmp_path: Path) -> None:
    home, _ = _built(tmp_path)
    with home:
        notes = _by_title(home)
        cursor = notes["sync cursor"]
        assert "defined" in cursor.topic.kinds and "heading" in cursor.topic.kinds
        assert [x.path for x in cursor.section("definition")] == ["glossary.md"]
        assert {x.path for x in cursor.section("discussed")} == {
            "glossary.md",
            "config.md",
            "ops.md",
        }
        retry = notes["retry policy"]
        conflict = {x.excerpt for x in retry.section("conflicts")}
        assert any("3 attempts" in t for t in conflict) and any("5 attempts" in t for t in conflict)
        assert any("sync.retry.max_attempts" in x.excerpt for x in retry.section("used"))
        assert "cursor_store" in notes  # a code name three documents write, one discusses
        zh = notes["数据处理者"]
        assert [x.path for x in zh.section("definition")] == ["zh/a.md"]
        assert {x.path for x in zh.lines} >= {"zh/a.md", "zh/b.md"}
        # links go both ways
        for note in notes.values():
            for other in note.links:
                assert note.topic.id in NoteReader(home.kb().context, None).find(other).links


def test_a_note_of_section_titles_only_is_no_note(tmp_path: Path) -> None:
    """Two documents sharing a section title with nothing said about it: no note."""
    home, _ = _built(tmp_path)
    with home:
        titles = set(_by_title(home))
        assert "总则" not in titles  # 第一章 总则 in both statutes, nothing else
        assert "sync cursor" in titles


def test_unknown_topic_is_a_clear_error(tmp_path: Path) -> None:
    home, _ = _built(tmp_path)
    with home:
        reader = NoteReader(home.kb().context, None)
        assert reader.find("Sync Cursor").topic.title.casefold() == "sync cursor"
        with pytest.raises(NoteNotFound, match="citewise notes list"):
            reader.find("no such topic")


# -- kept current ------------------------------------------------------------------------
def _revisions(home: Home) -> dict[str, int]:
    return {n.topic.id: n.revision for n in NoteReader(home.kb().context, None).notes().values()}


def test_sync_rebuilds_only_the_notes_whose_sources_changed(tmp_path: Path) -> None:
    home, src = _built(tmp_path)
    with home:
        kb = home.kb()
        before = _revisions(home)
        quoting_ops = {
            t
            for t, n in NoteReader(kb.context, None).notes().items()
            if any(x.path == "ops.md" for x in n.lines)
        }
        assert quoting_ops and len(quoting_ops) < len(before)
        (src / "ops.md").write_text(
            DOCS["ops.md"] + "\nRun `cursor_check` daily to verify the sync cursor.\n", "utf-8"
        )
        kb.sync(src)  # CITEWISE_NOTES=auto: this base has notes, so sync keeps them current
        after = _revisions(home)
        bumped = {t for t in after if after[t] != before.get(t)}
        assert bumped == quoting_ops  # counted: only the notes quoting the changed file
        cursor = _by_title(home)["sync cursor"]
        changed = [x for x in cursor.lines if x.changed]
        assert [x.excerpt for x in changed] == [
            "Run `cursor_check` daily to verify the sync cursor."
        ]
        assert all(not x.changed for x in cursor.lines if x.path != "ops.md")


def test_a_line_whose_source_is_deleted_disappears_and_history_keeps_it(tmp_path: Path) -> None:
    home, src = _built(tmp_path)
    with home:
        kb = home.kb()
        old = _by_title(home)["sync cursor"]
        assert any(x.path == "ops.md" for x in old.lines)
        (src / "ops.md").unlink()
        kb.sync(src)
        new = _by_title(home)["sync cursor"]
        assert all(x.path != "ops.md" for x in new.lines)
        assert new.revision == old.revision + 1
        assert any(x.path == "ops.md" for x in new.removed)
        history = NoteReader(kb.context, None).history(new.topic.id)
        assert [h.revision for h in history] == [old.revision, new.revision]
        assert any(x.path == "ops.md" for x in history[0].lines)
        home.resolve(next(x.id for x in history[0].lines if x.path == "ops.md"))  # still cited


def test_notes_off_leaves_them_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, src = _built(tmp_path)
    with home:
        before = _revisions(home)
        monkeypatch.setenv("CITEWISE_NOTES", "off")
        (src / "ops.md").write_text(DOCS["ops.md"] + "\nMore about the sync cursor.\n", "utf-8")
        home.kb().sync(src)
        assert _revisions(home) == before


# -- access -------------------------------------------------------------------------------
SECRET = (
    "---\naccess: [alice]\n---\n# Vault\n\n## Sync cursor\n\n"
    "The sync cursor of the vault is ZEBRAQUARTZ and rotates hourly.\n\n"
    "## Vault keys\n\nA **vault key** is a secret that opens the vault.\n\n"
    "## Retry policy\n\nThe vault retry policy uses `vault_retry` and `cursor_store`.\n"
)


def test_a_principal_sees_only_lines_it_may_read(tmp_path: Path) -> None:
    home, _ = _built(tmp_path, {**DOCS, "secret/vault.md": SECRET})
    plain_home, _ = _built(tmp_path / "plain", DOCS)
    with home, plain_home:
        for who in (None, "bob"):
            seen = NoteReader(home.kb().context, who).notes()
            assert all(x.path != "secret/vault.md" for n in seen.values() for x in n.lines)
            assert "vault key" not in {n.topic.key for n in seen.values()}
            with pytest.raises(NoteNotFound):
                NoteReader(home.kb().context, who).find("vault key")
            # the same notes as a base that never held the restricted document
            plain = NoteReader(plain_home.kb().context, who).notes()
            assert {t: n.to_json() for t, n in seen.items()} == {
                t: n.to_json() for t, n in plain.items()
            }
        alice = NoteReader(home.kb().context, "alice")
        assert any(x.path == "secret/vault.md" for x in alice.find("vault key").lines)
