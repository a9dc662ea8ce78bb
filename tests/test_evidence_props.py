"""Property tests of the evidence stage: exact offsets and hard budgets, for any pack."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.evidence import Budget, assemble
from citewise.evidence.budget import truncate
from citewise.evidence.models import TRUNCATION_MARKER, Fragment, RSEParams
from citewise.evidence.rse import best_segments
from citewise.evidence.sentences import split_sentences
from citewise.evidence.tokens import estimate_tokens
from citewise.kb import Home

WORDS = ["cursor", "sync", "retry", "quota", "ledger", "token", "expires", "batch", "node"]
ZH = ["同步游标会过期。", "重试五次！", "为什么限流？", "令牌每分钟一百二十次。"]

sentence = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=3, max_size=30).map(
        lambda ws: " ".join(ws).capitalize() + "."
    ),
    st.sampled_from(ZH),
)
paragraph = st.lists(sentence, min_size=1, max_size=8).map(" ".join)
block = st.one_of(
    paragraph,
    paragraph,
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=80).map(
        lambda ws: "```\n" + "\n".join(ws) + "\n```"
    ),
    st.lists(st.sampled_from(WORDS), min_size=2, max_size=6).map(
        lambda ws: "```mermaid\nflowchart LR\n" + "\n".join(f"  A --> {w}" for w in ws) + "\n```"
    ),
)
section = st.tuples(st.sampled_from(WORDS), st.lists(block, min_size=1, max_size=8))
document = st.lists(section, min_size=1, max_size=5).map(
    lambda secs: "# Doc\n\n" + "\n\n".join(f"## {h}\n\n" + "\n\n".join(bs) for h, bs in secs) + "\n"
)
budgets = st.builds(
    Budget,
    max_fragments=st.integers(1, 16),
    fragment_chars=st.integers(60, 1600),
    total_chars=st.integers(200, 9000),
)

_STATE: dict[str, object] = {}
_COUNTER = itertools.count()


def _home() -> Home:
    if "home" not in _STATE:
        _STATE["dir"] = tempfile.TemporaryDirectory()
        _STATE["home"] = Home.open(Path(str(_STATE["dir"].name)) / "home")  # type: ignore[attr-defined]
    home = _STATE["home"]
    assert isinstance(home, Home)
    return home


pytestmark = pytest.mark.usefixtures("dense_off")


def _check(fragments: tuple[Fragment, ...], text_of: dict[str, str]) -> None:
    for f in fragments:
        src = text_of[f.doc_id]
        if f.truncated:
            assert f.head_end is not None and f.tail_start is not None
            assert f.char_start < f.head_end < f.tail_start < f.char_end
            assert f.text == (
                src[f.char_start : f.head_end] + TRUNCATION_MARKER + src[f.tail_start : f.char_end]
            )
        else:
            assert f.text == src[f.char_start : f.char_end]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    docs=st.lists(document, min_size=1, max_size=3),
    query=st.lists(st.sampled_from([*WORDS, "同步", "过期"]), min_size=1, max_size=4).map(" ".join),
    budget=budgets,
    rse=st.booleans(),
)
def test_pack_is_exact_and_within_budget(
    docs: list[str], query: str, budget: Budget, rse: bool
) -> None:
    home = _home()
    name = f"k{next(_COUNTER)}"
    home.create_kb(name)
    folder = Path(str(_STATE["dir"].name)) / name  # type: ignore[attr-defined]
    folder.mkdir()
    for i, body in enumerate(docs):
        (folder / f"d{i}.md").write_text(body, encoding="utf-8")
    kb = home.kb(name)
    assert kb.add([folder]).ok
    pack = assemble(kb.context, query, budget=budget, rse=rse)
    text_of = {
        d.doc_id: kb.store.get_document_text(name, d.doc_id, d.version_id) for d in kb.documents()
    }
    _check(pack.fragments, text_of)
    use = pack.budget_use
    assert len(pack.fragments) == use.fragments <= budget.max_fragments
    assert sum(f.tokens for f in pack.fragments) == use.tokens <= budget.total_tokens
    assert sum(len(f.text) for f in pack.fragments) <= budget.total_chars
    for f in pack.fragments:
        assert f.tokens == estimate_tokens(f.text) <= budget.fragment_tokens
        assert len(f.text) <= budget.fragment_chars
        if f.kind in ("code", "mermaid", "table"):
            assert not f.truncated
    for tokens in use.per_doc.values():
        assert tokens <= budget.doc_tokens


@given(text=st.text(min_size=1, max_size=400), base=st.integers(0, 1000))
def test_sentences_slice_exactly(text: str, base: int) -> None:
    spans = split_sentences(text, base, blocks=False, clauses=True)
    last = base
    for s, e in ((p.start, p.end) for p in spans):
        assert last <= s < e <= base + len(text)
        piece = text[s - base : e - base]
        assert piece == piece.strip() and piece
        last = e


@given(
    text=st.text(alphabet=st.sampled_from("ab cd。同步 .x\n"), min_size=20, max_size=3000),
    tokens=st.integers(1, 400),
    chars=st.integers(1, 1600),
)
def test_truncate_keeps_exact_head_and_tail(text: str, tokens: int, chars: int) -> None:
    f = Fragment(
        "parent_context",
        "d",
        "p",
        1,
        1,
        ("n",),
        1,
        1,
        10,
        10 + len(text),
        (),
        text,
        estimate_tokens(text),
        False,
        "n_x:10-20",
    )
    cut = truncate(f, tokens, chars)
    if cut is None:
        return
    assert cut.truncated and cut.tokens <= tokens and len(cut.text) <= chars
    assert cut.head_end is not None and cut.tail_start is not None
    src = " " * 10 + text
    assert cut.text == src[10 : cut.head_end] + TRUNCATION_MARKER + src[cut.tail_start :]


@given(
    values=st.dictionaries(
        st.integers(0, 5),
        st.lists(st.floats(-2, 2, allow_nan=False), min_size=1, max_size=40),
        max_size=4,
    ),
    max_seg=st.integers(1, 15),
    total=st.integers(1, 30),
)
def test_rse_segments_are_valid(values: dict[int, list[float]], max_seg: int, total: int) -> None:
    params = RSEParams(max_segment_chunks=max_seg, max_total_chunks=total)
    chosen = best_segments(values, params)
    assert sum(e - s for _, s, e, _ in chosen) <= total
    for key, s, e, v in chosen:
        assert 0 <= s < e <= len(values[key]) and e - s <= max_seg
        assert v >= params.min_segment_value
        assert abs(sum(values[key][s:e]) - v) < 1e-9
    for key in values:
        runs = sorted((s, e) for k, s, e, _ in chosen if k == key)
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(runs))
