from __future__ import annotations

import codecs

import pytest

from citewise.errors import DecodeFailed, EmptyFile, FrontMatterError
from citewise.ingest.decode import LineIndex, decode_bytes
from citewise.ingest.frontmatter import split_front_matter


def test_utf8_and_bom_variants() -> None:
    text = "Héllo 世界\r\nline two\n"
    assert decode_bytes(text.encode("utf-8"), "a.md") == text
    assert decode_bytes(codecs.BOM_UTF8 + text.encode("utf-8"), "a.md") == text
    assert decode_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"), "a.md") == text
    assert decode_bytes(codecs.BOM_UTF16_BE + text.encode("utf-16-be"), "a.md") == text


def test_binary_rejected_names_file() -> None:
    with pytest.raises(DecodeFailed, match=r"img\.md.*binary") as info:
        decode_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "img.md")
    assert "UTF-8" in str(info.value)


def test_control_chars_rejected() -> None:
    with pytest.raises(DecodeFailed):
        decode_bytes(b"ab\x01\x02\x03\x04cd" * 10, "x.txt")


def test_latin1_rejected_with_hint() -> None:
    with pytest.raises(DecodeFailed, match=r"notes\.txt.*not valid UTF-8.*offset 3") as info:
        decode_bytes("café au lait".encode("latin-1"), "notes.txt")
    assert info.value.code == "NOT_TEXT"
    assert "Save" in str(info.value)


@pytest.mark.parametrize("raw", [b"", b"   \n\t\r\n", codecs.BOM_UTF8 + b"\n"])
def test_empty_rejected(raw: bytes) -> None:
    with pytest.raises(EmptyFile, match=r"e\.md"):
        decode_bytes(raw, "e.md")


def test_line_index_crlf_and_cr() -> None:
    text = "a\r\nbb\ncc\rd"
    idx = LineIndex(text)
    assert idx.line_count == 4
    assert [idx.line_start(n) for n in range(1, 5)] == [0, 3, 6, 9]
    assert text[idx.line_start(1) : idx.line_end(1)] == "a"
    assert idx.line_range(0, len(text)) == (1, 4)
    assert idx.line_range(3, 5) == (2, 2)


def test_front_matter_ok_and_normalised() -> None:
    text = (
        "---\ntitle: T\ntags: a, b\ndate: 2024-01-02\naccess: [alice]\n"
        "relations:\n  - {type: supersedes, target: x.md}\nextra: {k: 1}\n---\nBody\n"
    )
    meta, offset = split_front_matter(text, "f.md")
    assert text[offset:] == "Body\n"
    assert meta == {
        "title": "T",
        "tags": ["a", "b"],
        "date": "2024-01-02",
        "access": ["alice"],
        "relations": [{"type": "supersedes", "target": "x.md"}],
        "extra": {"k": 1},
    }


def test_no_front_matter() -> None:
    assert split_front_matter("# Title\n---\n", "f.md") == ({}, 0)


def test_broken_front_matter_has_line() -> None:
    with pytest.raises(FrontMatterError, match=r"f\.md.*valid YAML at line [34]"):
        split_front_matter("---\ntitle: ok\nbad: [unclosed\n---\nbody\n", "f.md")


def test_non_mapping_front_matter() -> None:
    with pytest.raises(FrontMatterError, match="mapping"):
        split_front_matter("---\n- a\n- b\n---\nbody\n", "f.md")


def test_unclosed_front_matter() -> None:
    with pytest.raises(FrontMatterError, match="never closed"):
        split_front_matter("---\ntitle: x\nbody\n", "f.md")
