"""Parse limits: hostile nesting, node counts, parse time and YAML bombs fail one file
with PARSE_LIMIT (or BAD_FRONT_MATTER) naming the file, the limit and its setting."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from citewise.config import IngestConfig, ParseLimits, limits_from_env
from citewise.core.records import ParsedDocument
from citewise.errors import FrontMatterError, ParseLimitExceeded, UsageError
from citewise.ingest.parse import parse_document
from citewise.kb import Home


def _parse(
    name: str,
    data: bytes,
    limits: ParseLimits | None = None,
    clock: Callable[[], float] | None = None,
) -> ParsedDocument:
    config = IngestConfig(limits=limits or ParseLimits())
    return parse_document(data, name=name, kb="kb", doc_path=name, config=config, clock=clock)


def _nested_ul(depth: int) -> bytes:
    return b"<ul><li>x" * depth + b"</li></ul>" * depth


def _nested_xml(depth: int) -> bytes:
    return b"<part>" + b"<P>x" * depth + b"</P>" * depth + b"</part>"


HOSTILE_DEPTH = {
    "deep.html": _nested_ul(150),
    "deep.xml": _nested_xml(150),
    "deep.md": b">" * 150 + b" quoted\n",
    "deep-list.md": b"- " * 150 + b"x\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_DEPTH))
def test_nesting_past_the_depth_limit_is_refused(name: str) -> None:
    with pytest.raises(ParseLimitExceeded) as err:
        _parse(name, HOSTILE_DEPTH[name])
    msg = str(err.value)
    assert err.value.code == "PARSE_LIMIT"
    assert name in msg and "ingest.limits.max_depth = 100" in msg
    assert "CITEWISE_PARSE_MAX_DEPTH" in msg


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("ok.html", _nested_ul(20)),
        ("ok.xml", _nested_xml(40)),
        ("ok.md", b"".join(b"  " * i + b"- item\n" for i in range(20))),
    ],
)
def test_nesting_within_the_limit_keeps_every_level(name: str, data: bytes) -> None:
    doc = _parse(name, data)
    items = [n for n in doc.nodes if n.kind in ("list_item", "paragraph")]
    assert len(items) >= 20
    assert doc.text.count("x") + doc.text.count("item") >= 20


def test_a_raised_depth_limit_lets_a_deep_file_through() -> None:
    doc = _parse("deep.html", _nested_ul(150), ParseLimits(max_depth=400))
    assert sum(1 for n in doc.nodes if n.kind == "list_item") == 150


NODE_BOMBS = {
    "many.md": b"".join(b"# h%d\n\n" % i for i in range(120)),
    "many.html": b"".join(b"<h2>h%d</h2>" % i for i in range(120)),
    "many.txt": b"".join(b"para %d\n\n" % i for i in range(120)),
    "many.xml": b"<part>" + b"<P>p</P>" * 120 + b"</part>",
    "cells.md": b"|a|b|\n|-|-|\n" + b"|1|2|\n" * 120,
    "cells.html": b"<table><tr><th>a</th></tr>" + b"<tr><td>1</td></tr>" * 120 + b"</table>",
}


@pytest.mark.parametrize("name", sorted(NODE_BOMBS))
def test_more_nodes_than_the_limit_is_refused(name: str) -> None:
    limits = ParseLimits(max_nodes=100)
    with pytest.raises(ParseLimitExceeded) as err:
        _parse(name, NODE_BOMBS[name], limits)
    assert "ingest.limits.max_nodes = 100" in str(err.value)
    assert "CITEWISE_PARSE_MAX_NODES" in str(err.value)
    assert len(_parse(name, NODE_BOMBS[name], ParseLimits(max_nodes=1000)).nodes) > 100


class _Ticks:
    """A clock that moves one second per read: parse time without timing anything."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.mark.parametrize("name", ["slow.md", "slow.html", "slow.xml", "slow.txt"])
def test_a_parse_that_runs_past_its_time_budget_is_refused(name: str) -> None:
    body = {
        "slow.md": b"".join(b"para %d\n\n" % i for i in range(3000)),
        "slow.html": b"".join(b"<p>para %d</p>" % i for i in range(3000)),
        "slow.xml": b"<part>" + b"<P>para</P>" * 3000 + b"</part>",
        "slow.txt": b"".join(b"para %d\n\n" % i for i in range(3000)),
    }[name]
    with pytest.raises(ParseLimitExceeded) as err:
        _parse(name, body, ParseLimits(max_seconds=5), clock=_Ticks())
    assert "ingest.limits.max_seconds = 5" in str(err.value)
    assert "CITEWISE_PARSE_MAX_SECONDS" in str(err.value)


def test_nested_text_amplification_is_bounded() -> None:
    # 48 nested list items each repeat the text of all deeper ones (about 25x the file).
    deep = b"".join(b"  " * i + b"- item %d\n" % i for i in range(48))
    with pytest.raises(ParseLimitExceeded) as err:
        _parse("amp.md", deep * 400, ParseLimits(max_text_ratio=8))
    assert "max_text_ratio" in str(err.value)


@pytest.mark.parametrize(
    "yaml_text",
    [
        "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n",
        "a: " + "[" * 200 + "]" * 200 + "\n",
    ],
    ids=["aliases", "deep"],
)
def test_front_matter_bombs_are_refused(yaml_text: str) -> None:
    with pytest.raises(FrontMatterError) as err:
        _parse("fm.md", f"---\n{yaml_text}---\nbody\n".encode())
    assert "fm.md" in str(err.value)


def test_oversized_front_matter_is_refused() -> None:
    yaml_text = "".join(f"k{i}: [a, b, c]\n" for i in range(5000))  # about 80 KB
    with pytest.raises(FrontMatterError, match="character limit"):
        _parse("fm.md", f"---\n{yaml_text}---\nbody\n".encode())


def test_limits_come_from_the_environment() -> None:
    env = {"CITEWISE_PARSE_MAX_DEPTH": "7", "CITEWISE_PARSE_MAX_SECONDS": "2.5"}
    assert limits_from_env(env) == ParseLimits(max_depth=7, max_seconds=2.5)
    assert limits_from_env({}) == ParseLimits()
    with pytest.raises(UsageError, match="CITEWISE_PARSE_MAX_NODES"):
        limits_from_env({"CITEWISE_PARSE_MAX_NODES": "lots"})


def test_a_hostile_file_fails_alone_in_a_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_DENSE", "off")  # the test is about parsing, not vectors
    home = Home.open(tmp_path / "home")
    src = tmp_path / "src"
    src.mkdir()
    (src / "bomb.html").write_bytes(_nested_ul(300))
    (src / "fine.md").write_text("# Fine\n\nA normal paragraph.\n")
    kb = home.kb()
    report = kb.add([src])
    by_path = {f.path: f for f in report.files}
    assert by_path["bomb.html"].status == "failed"
    assert by_path["bomb.html"].code == "PARSE_LIMIT"
    assert "max_depth" in by_path["bomb.html"].message
    assert by_path["fine.md"].status == "added"
    assert [d.path for d in kb.documents()] == ["fine.md"]
    home.close()
