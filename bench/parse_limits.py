"""Worst-case parse cost per MB of input, per format, under the default parse limits.

Hostile shapes (deep nesting, many headings, long lines, many table cells, unclosed tags,
deep indentation, non-ASCII XML, front matter at its size cap) are generated at ``--mb``
megabytes and parsed by ``parse_document`` with the default limits, each in a fresh
forked process, so the peak resident memory (``ru_maxrss``) is that one parse's. A shape
past a limit is refused (``PARSE_LIMIT``) and its cost is the cost of refusing.
No data files are needed.

Run: ``.venv/bin/python -m bench.parse_limits [--mb 1] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import resource
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.config import IngestConfig
from citewise.errors import CitewiseError
from citewise.ingest.parse import parse_document

MB = 1024 * 1024


def _fill(unit: Callable[[int], str], size: int) -> str:
    parts: list[str] = []
    total = i = 0
    while total < size:
        s = unit(i)
        parts.append(s)
        total += len(s.encode("utf-8"))
        i += 1
    return "".join(parts)


def _nested(open_: str, close: str, depth: int, size: int, body: str = "x") -> str:
    block = open_ * depth + body + close * depth
    return _fill(lambda _: block, size)


WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa "


def shapes(size: int) -> dict[tuple[str, str], tuple[str, str]]:
    """``(format, shape) -> (file name, text)`` of about ``size`` bytes each."""
    cells = "|" + "|".join(f"c{i}" for i in range(200)) + "|\n"
    rule = "|" + "-|" * 200 + "\n"
    para = _fill(lambda i: f"para {i}\n\n", size)
    deep_ul = _nested("<ul><li>", "</li></ul>", 50_000, size)
    return {
        ("markdown", "deep nesting (refused)"): ("a.md", "> " * 200 + "x\n\n" + para),
        ("markdown", "nesting 40 deep, repeated"): (
            "a.md", _fill(lambda _: "> " * 40 + "x\n\n", size)
        ),
        ("markdown", "many headings"): ("a.md", _fill(lambda i: f"# h{i}\n\n", size)),
        ("markdown", "long line"): ("a.md", _fill(lambda _: WORDS, size) + "\n"),
        ("markdown", "many table cells"): ("a.md", cells + rule + _fill(lambda _: cells, size)),
        ("markdown", "deep indentation"): (
            "a.md", _fill(lambda i: " " * (2 * (i % 400)) + "- x\n", size)
        ),
        ("markdown", "front matter at its 64 KiB cap"): (
            "a.md", "---\n" + _fill(lambda i: f"k{i}: [a, b, c]\n", 60_000) + "---\n" + para
        ),
        ("text", "many paragraphs"): ("a.txt", para),
        ("text", "long line"): ("a.txt", _fill(lambda _: WORDS, size)),
        ("html", "deep nesting (refused)"): ("a.html", deep_ul),
        ("html", "nesting 45 deep, repeated"): (
            "a.html", _nested("<ul><li>", "</li></ul>", 45, size)
        ),
        ("html", "many headings"): ("a.html", _fill(lambda i: f"<h2>h{i}</h2>", size)),
        ("html", "long line"): ("a.html", "<p>" + _fill(lambda _: WORDS, size) + "</p>"),
        ("html", "many table cells"): (
            "a.html", "<table>" + _fill(lambda _: "<tr>" + "<td>c</td>" * 50 + "</tr>", size)
        ),
        ("html", "unclosed tags"): ("a.html", _fill(lambda _: "<p><b><i><span>x", size)),
        ("xml", "deep nesting (refused)"): (
            "a.xml", "<part>" + _nested("<P>", "</P>", 60_000, size) + "</part>"
        ),
        ("xml", "nesting 90 deep, repeated"): (
            "a.xml", "<part>" + _nested("<P>", "</P>", 90, size) + "</part>"
        ),
        ("xml", "many paragraphs"): (
            "a.xml", "<part>" + _fill(lambda _: "<P>p</P>", size) + "</part>"
        ),
        ("xml", "long text"): (
            "a.xml", "<part><P>" + _fill(lambda _: WORDS, size) + "</P></part>"
        ),
        ("xml", "non-ASCII paragraphs"): (
            "a.xml", "<part>" + _fill(lambda _: "<P>第一条 总则 é</P>", size) + "</part>"
        ),
    }  # fmt: skip


def _child(name: str, text: str, out: Any) -> None:
    data = text.encode("utf-8")
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    try:
        doc = parse_document(data, name=name, kb="kb", doc_path=name, config=IngestConfig())
        outcome = f"{len(doc.nodes):,} nodes"
    except CitewiseError as exc:
        limit = (
            exc.message.split("ingest.limits.")[-1].split(" ")[0]
            if "limits." in exc.message
            else ""
        )
        outcome = f"{exc.code} {limit}".strip()
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out.send({"seconds": seconds, "rss_kib": max(0, peak - base), "outcome": outcome})


def measure(name: str, text: str) -> dict[str, Any]:
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(name, text, send))
    proc.start()
    got: dict[str, Any] = recv.recv() if recv.poll(600) else {"outcome": "timeout"}
    proc.join(10)
    return got


def run(size_mb: float, only: str = "") -> list[dict[str, Any]]:
    rows = []
    for (fmt, shape), (name, text) in shapes(int(size_mb * MB)).items():
        if only and only not in f"{fmt} {shape}":
            continue
        mbytes = len(text.encode("utf-8")) / MB
        got = measure(name, text)
        rss_mb = got.get("rss_kib", 0) / 1024
        rows.append(
            {
                "format": fmt,
                "shape": shape,
                "input_mb": round(mbytes, 3),
                "outcome": got["outcome"],
                "seconds": round(got.get("seconds", float("nan")), 3),
                "s_per_mb": round(got.get("seconds", float("nan")) / mbytes, 3),
                "peak_rss_mb": round(rss_mb, 1),
                "rss_mb_per_mb": round(rss_mb / mbytes, 1),
            }
        )
        print(f"  {fmt:8} {shape:28} {rows[-1]}", flush=True)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| format | shape | input MB | outcome | parse s | s per MB | peak RSS MB | RSS MB per MB |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['format']} | {r['shape']} | {r['input_mb']:.2f} | {r['outcome']} | "
            f"{r['seconds']:.2f} | {r['s_per_mb']:.2f} | {r['peak_rss_mb']:.0f} | "
            f"{r['rss_mb_per_mb']:.0f} |"
        )
    worst: dict[str, tuple[float, float]] = {}
    for r in rows:
        s, m = worst.get(r["format"], (0.0, 0.0))
        worst[r["format"]] = (max(s, r["s_per_mb"]), max(m, r["rss_mb_per_mb"]))
    lines += ["", "| format | worst s per MB | worst RSS MB per MB |", "|---|---|---|"]
    lines += [f"| {f} | {s:.2f} | {m:.0f} |" for f, (s, m) in worst.items()]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=1.0, help="input size per shape (MB)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", default="", help="run shapes whose 'format shape' contains this")
    args = ap.parse_args()
    load0 = os.getloadavg()
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{started}  {platform.machine()}, {os.cpu_count()} cores, load {load0[0]:.1f}")
    rows = run(args.mb, args.only)
    load1 = os.getloadavg()
    report = {"date": started, "load": [load0[0], load1[0]], "mb": args.mb, "rows": rows}
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    (out / "parse_limits.json").write_text(json.dumps(report, indent=2), "utf-8")
    print(json.dumps(report, indent=2) if args.json else table(rows))
    print(f"load average {load0[0]:.1f} at start, {load1[0]:.1f} at end")


if __name__ == "__main__":
    main()
