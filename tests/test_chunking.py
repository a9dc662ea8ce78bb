from __future__ import annotations

from citewise.config import ChunkConfig, IngestConfig
from citewise.ingest.chunking import breadcrumb, count_words
from citewise.ingest.parse import parse_document


def test_count_words_cjk() -> None:
    assert count_words("hello world") == 2
    assert count_words("数据安全法") == 4  # ceil(5 / 1.5)
    assert count_words("GDPR 数据 rules") == 4


def test_breadcrumb() -> None:
    assert breadcrumb("Doc", ("Doc", "Fees")) == "Doc > Fees"
    assert breadcrumb("Doc", ()) == "Doc"


def _doc(text: str, cfg: ChunkConfig) -> list[tuple[int, int]]:
    doc = parse_document(
        text.encode(), name="c.md", kb="kb", doc_path="c.md", config=IngestConfig(chunks=cfg)
    )
    return [(len(c.node_ids), c.word_count) for c in doc.chunks]


def test_packing_and_section_boundaries() -> None:
    para = " ".join(["word"] * 10)
    text = "# A\n\n" + "\n\n".join([para] * 5) + "\n\n# B\n\n" + para + "\n"
    assert _doc(text, ChunkConfig(target_words=25, max_words=30)) == [
        (3, 30), (2, 20), (1, 10)
    ]  # fmt: skip


def test_oversize_node_is_its_own_chunk() -> None:
    big = " ".join(["w"] * 50)
    text = f"small one\n\n{big}\n\nsmall two\n"
    assert _doc(text, ChunkConfig(target_words=10, max_words=20)) == [(1, 2), (1, 50), (1, 2)]


def test_chunk_ids_stable_and_distinct() -> None:
    text = "# A\n\none\n\n# B\n\ntwo\n"
    cfg = IngestConfig()
    a = parse_document(text.encode(), name="x.md", kb="kb", doc_path="x.md", config=cfg)
    b = parse_document(text.encode(), name="x.md", kb="kb", doc_path="x.md", config=cfg)
    assert [c.id for c in a.chunks] == [c.id for c in b.chunks]
    assert len({c.id for c in a.chunks}) == len(a.chunks) == 2
    assert [c.breadcrumb for c in a.chunks] == ["A", "A > B"]  # title = first H1
