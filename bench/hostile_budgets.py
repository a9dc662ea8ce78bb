"""Hostile container files under the default parse budgets, and parity on real files.

Default mode: every hostile file of ``tests/hostile_files.py`` (ZIP bombs, a lying
declared size, crowded and spread packages, a whole-sheet merge, far-apart cells, a
repeated EPUB spine, dense XML past the in-process size) is parsed by ``parse_document``
in a fresh interpreter; the table gives the outcome, the peak RSS that parse added
(``ru_maxrss`` after minus before, libraries loaded), the largest child it started
(the memory-capped package parser) and the wall time, then the worst per format. PDF
files are measured by their own script (room for them: rows of other formats are kept
apart by the format column).
``--src DIR`` measures another tree's sources (e.g. the base commit), and
``--cap-mb N`` caps the measuring process's address space so old code cannot take the
machine (it then fails with MemoryError, shown as such).

``--parity OUT.json``: parses every file of ``documents/`` and ``papers/`` (and
``docs-corpora/`` with ``--docs-corpora``) under the data root with the default
configuration, writing per file its outcome, node count, and each node's text sha256,
kind and locator. ``--compare A.json B.json`` names the files whose digests differ.
Parity mode imports only ``citewise`` (run it with another tree's ``src`` on
``PYTHONPATH`` to digest that tree).

Run: ``.venv/bin/python -m bench.hostile_budgets [--json]``;
``python bench/hostile_budgets.py --parity out.json [--data DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def data_root(given: Path | None) -> Path:
    if given is not None:
        return given
    env = os.environ.get("CITEWISE_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


# --- hostile files ------------------------------------------------------------------


def measure_all(src: Path | None, cap_mb: int, only: list[str]) -> list[dict[str, Any]]:
    sys.path.insert(0, str(REPO))
    from tests import hostile_files as hf

    rows: list[dict[str, Any]] = []
    for key, (name, make) in hf.HOSTILE.items():
        if only and key not in only:
            continue
        raw = make()
        got = hf.measure_parse(name, raw, src=src, address_space_mb=cap_mb, timeout=900)
        rows.append(
            {
                "file": key,
                "format": name.rsplit(".", 1)[-1],
                "bytes": len(raw),
                "outcome": _outcome(got),
                "growth_mb": round(float(got.get("growth_mb", 0.0)), 1),
                "child_peak_mb": round(float(got.get("child_peak_mb", 0.0)), 1),
                "seconds": round(float(got.get("seconds", 0.0)), 2),
            }
        )
    return rows


def _outcome(got: dict[str, Any]) -> str:
    code = str(got.get("code"))
    message = str(got.get("message", ""))
    if code == "PARSE_LIMIT" and "ingest.limits." in message:
        return "PARSE_LIMIT " + message.split("ingest.limits.", 1)[1].split(" ", 1)[0]
    if code == "ok":
        return f"ok ({got.get('nodes')} nodes)"
    if "MemoryError" in message:
        return f"{code} (MemoryError)"
    return code


def _machine() -> str:
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{datetime.now(UTC).date().isoformat()}, load {os.getloadavg()[0]:.1f}"
    )


def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"Machine: {_machine()}\n")
    print("| file | format | bytes | outcome | RSS added MB | child peak MB | seconds |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['file']} | {r['format']} | {r['bytes']:,} | {r['outcome']} | "
            f"{r['growth_mb']} | {r['child_peak_mb']} | {r['seconds']} |"
        )
    print("\n| format | worst RSS added MB | worst child peak MB | worst seconds |")
    print("|---|---|---|---|")
    for fmt in sorted({r["format"] for r in rows}):
        mine = [r for r in rows if r["format"] == fmt]
        print(
            f"| {fmt} | {max(r['growth_mb'] for r in mine)} | "
            f"{max(r['child_peak_mb'] for r in mine)} | {max(r['seconds'] for r in mine)} |"
        )


# --- parity -------------------------------------------------------------------------

_SUFFIXES = (".docx", ".xlsx", ".pptx", ".epub", ".odt", ".pdf", ".md", ".txt", ".rst")


def parity_files(root: Path, docs_corpora: bool) -> list[Path]:
    dirs = ["documents", "papers"] + (["docs-corpora"] if docs_corpora else [])
    files: list[Path] = []
    for d in dirs:
        base = root / d
        if base.is_dir():
            files.extend(
                p for p in sorted(base.rglob("*")) if p.is_file() and p.suffix in _SUFFIXES
            )
    return files


def digest(path: Path, root: Path) -> dict[str, Any]:
    from citewise.config import IngestConfig
    from citewise.errors import CitewiseError
    from citewise.ingest.parse import parse_document

    name = str(path.relative_to(root))
    try:
        doc = parse_document(
            path.read_bytes(), name=path.name, kb="kb", doc_path=name, config=IngestConfig()
        )
    except CitewiseError as exc:
        return {"outcome": exc.code, "nodes": 0, "node_digests": []}
    return {
        "outcome": "ok",
        "nodes": len(doc.nodes),
        "node_digests": [
            [n.kind, n.sha256, json.dumps(n.attrs.get("locator"), sort_keys=True)]
            for n in doc.nodes
        ],
    }


def run_parity(out: Path, root: Path, docs_corpora: bool) -> None:
    files = parity_files(root, docs_corpora)
    if not files:
        print(f"skipped: no documents under {root} (the shared data is absent)")
        return
    result: dict[str, Any] = {}
    started = time.perf_counter()
    for path in files:
        result[str(path.relative_to(root))] = digest(path, root)
    out.write_text(json.dumps(result, indent=0, sort_keys=True))
    ok = sum(1 for v in result.values() if v["outcome"] == "ok")
    print(f"{len(result)} files ({ok} parsed), {time.perf_counter() - started:.1f} s -> {out}")


def compare(a: Path, b: Path) -> int:
    left, right = json.loads(a.read_text()), json.loads(b.read_text())
    differ = sorted(k for k in left.keys() | right.keys() if left.get(k) != right.get(k))
    same = len(left.keys() & right.keys()) - len([k for k in differ if k in left and k in right])
    print(
        f"{same} files identical (outcome, nodes, node sha256 and locators); {len(differ)} differ"
    )
    for k in differ:
        la, rb = left.get(k, {}), right.get(k, {})
        print(
            f"  {k}: {la.get('outcome')}/{la.get('nodes')} vs {rb.get('outcome')}/{rb.get('nodes')}"
        )
    return 1 if differ else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--src", type=Path, help="another tree's src directory to measure")
    ap.add_argument("--cap-mb", type=int, default=0, help="address-space cap of the parse")
    ap.add_argument("--only", nargs="*", default=[], help="hostile file keys")
    ap.add_argument("--parity", type=Path, metavar="OUT.json")
    ap.add_argument("--data", type=Path)
    ap.add_argument("--docs-corpora", action="store_true")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A.json", "B.json"))
    args = ap.parse_args()
    if args.compare:
        raise SystemExit(compare(*args.compare))
    if args.parity:
        run_parity(args.parity, data_root(args.data), args.docs_corpora)
        return
    rows = measure_all(args.src, args.cap_mb, args.only)
    if args.json:
        print(json.dumps({"machine": _machine(), "rows": rows}, indent=1))
    else:
        print_table(rows)


if __name__ == "__main__":
    main()
