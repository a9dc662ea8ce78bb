"""Property tests over generated Markdown: exact slices, lines, tables, fences, chunks."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.config import ChunkConfig, IngestConfig
from citewise.core.records import BLOCK_KINDS, ParsedDocument, sha256_text
from citewise.ingest.chunking import count_words
from citewise.ingest.parse import parse_document

_WORDS = st.sampled_from(
    ["alpha", "beta", "gamma", "*delta*", "`eps`", "[link](http://x.io)", "数据", "安全法",
     "(a)", "§", "7.3", "zeta", "**eta**", "theta"]
)  # fmt: skip
_LINE = st.lists(_WORDS, min_size=1, max_size=12).map(" ".join)


def _heading() -> st.SearchStrategy[str]:
    return st.tuples(st.integers(1, 4), _LINE).map(lambda t: "#" * t[0] + " " + t[1])


def _para() -> st.SearchStrategy[str]:
    return st.lists(_LINE, min_size=1, max_size=3).map("\n".join)


def _list() -> st.SearchStrategy[str]:
    item = st.tuples(_LINE, st.lists(_LINE, max_size=2))
    return st.lists(item, min_size=1, max_size=4).map(
        lambda items: "\n".join(f"- {t}" + "".join(f"\n  - {s}" for s in subs) for t, subs in items)
    )


def _table() -> st.SearchStrategy[str]:
    def render(ncols: int, rows: list[list[str]]) -> str:
        head = [f"h{i}" for i in range(ncols)]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * ncols]
        lines += ["| " + " | ".join(r[:ncols]) + " |" for r in rows]
        return "\n".join(lines)

    cell = st.sampled_from(["a", "b b", "数据", "1", "x-y"])
    return st.integers(1, 3).flatmap(
        lambda n: st.lists(st.lists(cell, min_size=n, max_size=n), min_size=1, max_size=4).map(
            lambda rows: render(n, rows)
        )
    )


def _fence() -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(["python", "mermaid", ""]), st.lists(_LINE, max_size=3)).map(
        lambda t: "```" + t[0] + "\n" + "".join(line + "\n" for line in t[1]) + "```"
    )


def _quote() -> st.SearchStrategy[str]:
    return st.lists(_LINE, min_size=1, max_size=3).map(lambda ls: "\n".join("> " + x for x in ls))


_BLOCK = st.one_of(_heading(), _para(), _list(), _table(), _fence(), _quote())


@st.composite
def documents(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(_BLOCK, min_size=1, max_size=12))
    text = "\n\n".join(blocks) + "\n"
    if draw(st.booleans()):
        text = "---\ntitle: Generated\ntags: [a, b]\n---\n" + text
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text


def _line_of(text: str, offset: int) -> int:
    """1-based line of the character at ``offset``; ``\r\n`` is one break."""
    return sum(1 for m in re.finditer(r"\r\n|\r|\n", text) if m.end() <= offset) + 1


def _check(doc: ParsedDocument, cfg: ChunkConfig) -> None:
    full = doc.text
    by_id = {n.id: n for n in doc.nodes}
    for n in doc.nodes:
        assert n.text == full[n.char_start : n.char_end]
        assert n.sha256 == sha256_text(n.text)
        assert n.line_start == _line_of(full, n.char_start)
        assert n.line_end == _line_of(full, max(n.char_end - 1, n.char_start))
        if n.parent_id is not None:
            p = by_id[n.parent_id]
            assert p.char_start <= n.char_start and n.char_end <= p.char_end
        if n.kind in ("code", "mermaid"):
            assert n.text.startswith("```") and n.text.endswith("```") and n.text.count("```") == 2
        if n.kind == "table_row":
            attrs = n.attrs
            assert attrs["row"] == dict(zip(attrs["header"], attrs["cells"], strict=True))
            assert all(c in n.text for c in attrs["cells"])
        if n.kind == "mermaid":
            assert n.attrs["language"] == "mermaid"
    for c in doc.chunks:
        members = [by_id[i] for i in c.node_ids]
        assert all(m.kind in BLOCK_KINDS for m in members)
        assert len({m.heading_path for m in members}) == 1
        assert c.char_start == members[0].char_start and c.char_end == members[-1].char_end
        assert c.word_count == sum(count_words(m.search_text) for m in members)
        assert c.word_count <= cfg.max_words or len(members) == 1
    # every top-level block lives in exactly one chunk
    chunked = [i for c in doc.chunks for i in c.node_ids]
    assert len(chunked) == len(set(chunked))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.sampled_from([ChunkConfig(), ChunkConfig(target_words=8, max_words=15)]))
def test_generated_markdown(text: str, cfg: ChunkConfig) -> None:
    doc = parse_document(
        text.encode("utf-8"), name="g.md", kb="kb", doc_path="g.md",
        config=IngestConfig(chunks=cfg),
    )  # fmt: skip
    _check(doc, cfg)
    if text.startswith("---"):
        assert doc.metadata["tags"] == ["a", "b"]
        assert all(n.char_start >= text.index("\n---") for n in doc.nodes[1:])


def test_fixed_markdown_shapes() -> None:
    text = (
        "# Guide\r\n\r\nIntro [site](http://e.x) *now*.\r\n\r\n## Fees\r\n\r\n"
        "| Class | Fee |\r\n|---|---|\r\n| Small | 10 |\r\n\r\n"
        "- top\r\n  - nested\r\n\r\n> quoted\r\n\r\n```mermaid\r\ngraph TD\r\n```\r\n"
    )
    doc = parse_document(
        text.encode(), name="g.md", kb="kb", doc_path="g.md", config=IngestConfig()
    )
    _check(doc, ChunkConfig())
    kinds = [(n.kind, n.heading_path) for n in doc.nodes]
    assert kinds == [
        ("document", ()),
        ("section", ("Guide",)),
        ("paragraph", ("Guide",)),
        ("section", ("Guide", "Fees")),
        ("table", ("Guide", "Fees")),
        ("table_row", ("Guide", "Fees")),
        ("list_item", ("Guide", "Fees")),
        ("list_item", ("Guide", "Fees")),
        ("blockquote", ("Guide", "Fees")),
        ("mermaid", ("Guide", "Fees")),
    ]
    assert doc.nodes[2].search_text == "Intro site now."
    assert doc.nodes[5].attrs["row"] == {"Class": "Small", "Fee": "10"}
    assert doc.nodes[7].parent_id == doc.nodes[6].id
    assert [c.breadcrumb for c in doc.chunks] == ["Guide", "Guide > Fees"]
    assert doc.chunks[1].node_ids == (doc.nodes[4].id, doc.nodes[6].id, doc.nodes[8].id,
                                      doc.nodes[9].id)  # fmt: skip
