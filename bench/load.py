"""HTTP load benchmark: /search and /ask under concurrent clients while an upload runs.

Loopback only and bounded in time. It starts ``citewise serve``'s app on 127.0.0.1 (a free
port, a temporary home seeded with examples/corpus), then for ``--seconds`` runs
``--clients`` concurrent clients alternating POST /search and POST /ask while one more
client keeps uploading a batch of documents (``--no-upload``: readers only). It reports
requests/s and p50/p95 latency per endpoint and the error count; any error exits 1.

Run: ``.venv/bin/python -m bench.load [--seconds 10] [--clients 8] [--dense] [--no-upload]
[--json]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "examples" / "corpus"
QUESTIONS = (
    "what happens when a sync cursor expires?",
    "How do I upgrade a Harbor node to 2.4.1?",
    "What is the default retry limit?",
    "how long is data retained?",
    "clause 3.1",
)
MAX_SECONDS = 300


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


Record = Callable[[str, float, "httpx.Response | None", str], None]


class Tally:
    """Latencies of successful requests and samples of failed ones, per request kind."""

    def __init__(
        self, lat: dict[str, list[float]], errors: list[str], lock: threading.Lock
    ) -> None:
        self.lat, self.errors, self.lock = lat, errors, lock

    def record(self, kind: str, started: float, resp: httpx.Response | None, err: str) -> None:
        with self.lock:
            if resp is not None and resp.status_code < 300:
                self.lat[kind].append((time.perf_counter() - started) * 1000)
            else:
                code = resp.status_code if resp is not None else "-"
                self.errors.append(f"{kind} {code} {err}"[:200])


def ask_and_search(url: str, k: int, stop: float, record: Record) -> None:
    """Client ``k``: alternate POST /search and /ask over :data:`QUESTIONS` until ``stop``
    (at least one request, however slow the start)."""
    with httpx.Client(base_url=url, timeout=120) as cl:
        i = k
        while i == k or time.monotonic() < stop:
            q = QUESTIONS[i % len(QUESTIONS)]
            kind = "search" if i % 2 == 0 else "ask"
            body = {"query": q} if kind == "search" else {"question": q}
            t0 = time.perf_counter()
            try:
                resp = cl.post(f"/kb/default/{kind}", json=body)
                record(kind, t0, resp, "" if resp.status_code < 300 else resp.text)
            except httpx.HTTPError as exc:
                record(kind, t0, None, repr(exc))
            i += 1


def _upload_batch(i: int) -> list[tuple[str, tuple[str, bytes, str]]]:
    files = []
    for n in range(20):
        text = (
            f"# Load note {i}-{n}\n\nBatch {i} note {n}: the sync cursor is kept for "
            f"{n + 1} days and retried {i % 5 + 1} times.\n"
        )
        files.append(("files", (f"load/{i}/note{n}.md", text.encode(), "text/markdown")))
    return files


def run(
    seconds: float, clients: int, *, dense: bool = False, upload: bool = True
) -> dict[str, Any]:
    from tests._server import running_server

    seconds = min(seconds, MAX_SECONDS)
    lat: dict[str, list[float]] = {"search": [], "ask": [], "upload": []}
    errors: list[str] = []
    lock = threading.Lock()
    with (
        tempfile.TemporaryDirectory(prefix="citewise-load-") as tmp,
        running_server(Path(tmp) / "home", dense=dense) as url,
    ):
        with httpx.Client(base_url=url, timeout=120) as c:
            files = [
                ("files", (p.relative_to(CORPUS).as_posix(), p.read_bytes(), "text/markdown"))
                for p in sorted(CORPUS.rglob("*.md"))
            ]
            r = c.post("/kb/default/documents", files=files)
            if r.status_code not in (201, 207):
                raise SystemExit(f"seeding failed: {r.status_code} {r.text[:200]}")
        stop = time.monotonic() + seconds

        tally = Tally(lat, errors, lock)
        record = tally.record

        def reader(k: int) -> None:
            ask_and_search(url, k, stop, record)

        def uploader() -> None:
            with httpx.Client(base_url=url, timeout=300) as cl:
                i = 0
                while i == 0 or time.monotonic() < stop:  # at least one batch, however slow
                    t0 = time.perf_counter()
                    try:
                        resp = cl.post("/kb/default/documents", files=_upload_batch(i))
                        record("upload", t0, resp, "" if resp.status_code < 300 else resp.text)
                    except httpx.HTTPError as exc:
                        record("upload", t0, None, repr(exc))
                    i += 1

        threads = [threading.Thread(target=reader, args=(k,)) for k in range(clients)]
        if upload:
            threads.append(threading.Thread(target=uploader))
        began = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - began
    out: dict[str, Any] = {
        "seconds": round(elapsed, 2),
        "clients": clients,
        "dense": "on" if dense else "off",
        "errors": len(errors),
        "error_samples": errors[:5],
    }
    for kind, values in lat.items():
        out[kind] = {
            "requests": len(values),
            "rps": round(len(values) / elapsed, 2) if elapsed else 0.0,
            "p50_ms": round(statistics.median(values), 1) if values else 0.0,
            "p95_ms": round(_pct(values, 0.95), 1),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help=f"at most {MAX_SECONDS}")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--dense", action="store_true", help="keep the dense route on")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-upload", action="store_true", help="readers only (no concurrent uploads)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    result = run(args.seconds, args.clients, dense=args.dense, upload=not args.no_upload)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{result['clients']} clients, {result['seconds']} s, dense {result['dense']}, "
            f"errors {result['errors']}"
        )
        for kind in ("search", "ask", "upload"):
            r = result[kind]
            print(
                f"  {kind:<7} {r['requests']:>6} req  {r['rps']:>8.2f} req/s  "
                f"p50 {r['p50_ms']:>8.1f} ms  p95 {r['p95_ms']:>8.1f} ms"
            )
        for e in result["error_samples"]:
            print(f"  error: {e}")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
