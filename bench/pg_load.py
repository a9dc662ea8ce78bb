"""Several ``citewise serve`` processes on one PostgreSQL: load, freshness across servers,
nothing lost (issue 19).

For each process count in ``--servers`` (default 1, 2, 4) it starts a throwaway PostgreSQL
15 cluster (Debian's binaries, as in tests/pg.py, but durable: fsync and synchronous
commit on), seeds one knowledge base from examples/corpus through server 0, then for
``--seconds`` runs ``--clients`` concurrent clients spread over the servers, alternating
POST /search and POST /ask, while one more client uploads batches of notes through server
0. After every batch it asks the *last* server about a word only that batch holds: the
answer must be ``answered`` and cite the new note in that one request (freshness across
servers). At the end it counts versions and ledger entries in the database and compares
them with what the clients were told was written. Loopback only, bounded in time.

Run: ``.venv/bin/python -m bench.pg_load [--servers 1,2,4] [--seconds 20] [--clients 8]
[--dense] [--json]``. Skips (exit 0, says why) when PostgreSQL cannot be started.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from bench.load import CORPUS, Tally, _pct, ask_and_search

REPO = Path(__file__).resolve().parents[1]
MAX_SECONDS = 300
CITEWISE = str(Path(sys.executable).parent / "citewise")


def _batch(i: int) -> tuple[list[tuple[str, tuple[str, bytes, str]]], str, str]:
    """Five notes; the first names a word no other batch holds. Returns the files, the
    question about that word and the path that must be cited."""
    word = f"zq{i}x"
    files = []
    for n in range(5):
        if n == 0:
            text = f"# Cursor {word}\n\nThe cursor {word} expires after {i % 9 + 2} days.\n"
        else:
            text = f"# Load note {i}-{n}\n\nBatch {i} note {n}: kept for {n + 1} days.\n"
        files.append(("files", (f"load/{i}/note{n}.md", text.encode(), "text/markdown")))
    return files, f"When does the cursor {word} expire?", f"load/{i}/note0.md"


def _start_cluster(base: Path) -> tuple[Any, list[str], Path]:
    sys.path.insert(0, str(REPO))
    from tests.pg import _start

    return _start(base, durable=True)


def _stop_cluster(prefix: list[str], data: Path) -> None:
    from tests.pg import PG_BIN

    subprocess.run(
        [*prefix, str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
        capture_output=True,
        timeout=120,
    )


def _free_port() -> int:
    from tests.pg import _free_port as free

    return free()


def _serve(store: str, home: Path, port: int, dense: bool) -> subprocess.Popen[bytes]:
    env = dict(os.environ, CITEWISE_DENSE="on" if dense else "off", OPENBLAS_NUM_THREADS="1")
    cmd = [CITEWISE, "--store", store, "serve", "--port", str(port), "--home", str(home)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 180) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            err = proc.stderr.read().decode(errors="replace")[-800:] if proc.stderr else ""
            raise SystemExit(f"server exited early: {err}")
        try:
            if httpx.get(url + "/health", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"server at {url} did not become healthy")


def _counts(store: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(store) as conn:
        out = {}
        for table in ("version", "ledger", "document"):
            row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
            out[table] = int(row[0]) if row else 0
        return out


def run_one(
    store: str, root: Path, servers: int, seconds: float, clients: int, dense: bool
) -> dict[str, Any]:
    procs, urls = [], []
    try:
        for k in range(servers):
            port = _free_port()
            procs.append(_serve(store, root / f"home{servers}-{k}", port, dense))
            urls.append(f"http://127.0.0.1:{port}")
        for url, proc in zip(urls, procs, strict=True):
            _wait_healthy(url, proc)
        return _drive(store, urls, seconds, clients)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def _drive(store: str, urls: list[str], seconds: float, clients: int) -> dict[str, Any]:
    lat: dict[str, list[float]] = {"search": [], "ask": [], "upload": [], "fresh": []}
    errors: list[str] = []
    stale: list[str] = []
    written = {"versions": 0}
    lock = threading.Lock()
    before = _counts(store)
    stop = time.monotonic() + seconds

    record = Tally(lat, errors, lock).record

    def reader(k: int) -> None:
        ask_and_search(urls[k % len(urls)], k, stop, record)

    def uploader() -> None:
        with (
            httpx.Client(base_url=urls[0], timeout=300) as up,
            httpx.Client(base_url=urls[-1], timeout=300) as other,
        ):
            i = 0
            while time.monotonic() < stop:
                files, question, path = _batch(i)
                t0 = time.perf_counter()
                try:
                    resp = up.post("/kb/default/documents", files=files)
                    record("upload", t0, resp, "" if resp.status_code < 300 else resp.text)
                    if resp.status_code < 300:
                        with lock:
                            written["versions"] += sum(
                                1 for f in resp.json()["files"] if f["status"] == "added"
                            )
                        t1 = time.perf_counter()
                        ans = other.post("/kb/default/ask", json={"question": question})
                        record("fresh", t1, ans, "" if ans.status_code < 300 else ans.text)
                        body = ans.json() if ans.status_code < 300 else {}
                        cited = {c["path"] for c in body.get("citations", [])}
                        if body.get("outcome") != "answered" or path not in cited:
                            with lock:
                                stale.append(f"{question} -> {body.get('outcome')} {cited}")
                except httpx.HTTPError as exc:
                    record("upload", t0, None, repr(exc))
                i += 1

    threads = [threading.Thread(target=reader, args=(k,)) for k in range(clients)]
    threads.append(threading.Thread(target=uploader))
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - began
    after = _counts(store)
    out: dict[str, Any] = {
        "servers": len(urls),
        "seconds": round(elapsed, 2),
        "clients": clients,
        "errors": len(errors),
        "error_samples": errors[:5],
        "stale_answers": len(stale),
        "stale_samples": stale[:3],
        "versions_written": written["versions"],
        "versions_in_db": after["version"] - before["version"],
        "ledger_entries_added": after["ledger"] - before["ledger"],
    }
    for kind, values in lat.items():
        out[kind] = {
            "requests": len(values),
            "rps": round(len(values) / elapsed, 2) if elapsed else 0.0,
            "p50_ms": round(_pct(values, 0.5), 1),
            "p95_ms": round(_pct(values, 0.95), 1),
        }
    return out


def _seed(store: str, root: Path, dense: bool) -> None:
    port = _free_port()
    proc = _serve(store, root / "seed-home", port, dense)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        files = [
            ("files", (p.relative_to(CORPUS).as_posix(), p.read_bytes(), "text/markdown"))
            for p in sorted(CORPUS.rglob("*.md"))
        ]
        r = httpx.post(url + "/kb/default/documents", files=files, timeout=600)
        if r.status_code not in (201, 207):
            raise SystemExit(f"seeding failed: {r.status_code} {r.text[:200]}")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--servers", default="1,2,4", help="comma-separated process counts")
    ap.add_argument("--seconds", type=float, default=20.0, help=f"at most {MAX_SECONDS}")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--dense", action="store_true", help="keep the dense route on")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    counts = [int(x) for x in args.servers.split(",") if x.strip()]
    seconds = min(args.seconds, MAX_SECONDS)
    base = Path(tempfile.mkdtemp(prefix="citewise-pgload-"))
    os.chmod(base, 0o755)
    try:
        try:
            cluster, prefix, data = _start_cluster(base)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            print(f"skipped: PostgreSQL unavailable: {exc}")
            return 0
        results = []
        try:
            for n in counts:
                store = cluster.create_database(f"load{n}")
                root = Path(tempfile.mkdtemp(prefix=f"homes{n}-", dir=base))
                _seed(store, root, args.dense)
                results.append(run_one(store, root, n, seconds, args.clients, args.dense))
        finally:
            _stop_cluster(prefix, data)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        _print(results)
    bad = any(
        r["errors"] or r["stale_answers"] or r["versions_in_db"] != r["versions_written"]
        for r in results
    )
    return 1 if bad else 0


def _print(results: list[dict[str, Any]]) -> None:
    print(
        "| servers | search req/s | p50 / p95 ms | ask req/s | p50 / p95 ms | uploads | "
        "fresh ask p50 ms | errors | stale | versions written / in db | ledger added |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        s, a, u, f = r["search"], r["ask"], r["upload"], r["fresh"]
        print(
            f"| {r['servers']} | {s['rps']} | {s['p50_ms']} / {s['p95_ms']} | {a['rps']} | "
            f"{a['p50_ms']} / {a['p95_ms']} | {u['requests']} | {f['p50_ms']} | "
            f"{r['errors']} | {r['stale_answers']} | {r['versions_written']} / "
            f"{r['versions_in_db']} | {r['ledger_entries_added']} |"
        )
        for e in r["error_samples"] + r["stale_samples"]:
            print(f"  - {e}")


if __name__ == "__main__":
    raise SystemExit(main())
