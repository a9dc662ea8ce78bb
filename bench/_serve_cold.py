"""Cold against warm through a real server (issue 35), for ``bench/ask_speed_docs.py``.

Fresh ``citewise serve`` processes over a built home: how long until ``/health/ready``
says 200, then the first ask after ready and the asks that follow (each question once),
with wall time at the client and the server's CPU time (user + system of every thread,
from ``/proc``; the machine is shared, so CPU is the steadier measure), and the server's
peak RSS (``VmHWM``) with everything it loaded. Linux only (``/proc``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (``VmHWM``) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def _wait_ready(url: str, proc: subprocess.Popen[bytes], seconds: float) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"citewise serve exited with {proc.returncode}")
        try:
            r = httpx.get(url + "/health/ready", timeout=5)
            if r.status_code == 200:
                body: dict[str, Any] = r.json()
                return body
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"not ready within {seconds:.0f} s")


def _serve_once(home: Path, questions: list[str], kb: str, warm: bool) -> dict[str, Any]:
    """One fresh server: time to ready, then every question once in order (wall ms and
    server CPU ms per question), and its peak RSS."""
    port = _free_port()
    env = dict(os.environ, CITEWISE_HOME=str(home))
    cmd = [sys.executable, "-c", "from citewise.cli import main; main()", "serve"]
    proc = subprocess.Popen(
        [*cmd, "--port", str(port), "--warm" if warm else "--no-warm"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        t0 = time.perf_counter()
        report = _wait_ready(url, proc, 1800)
        ready_s = time.perf_counter() - t0
        ms, cpu = {}, {}
        with httpx.Client(base_url=url, timeout=600) as client:
            for q in questions:
                c0, w0 = cpu_seconds(proc.pid), time.perf_counter()
                r = client.post(f"/kb/{kb}/ask", json={"question": q})
                r.raise_for_status()
                ms[q] = (time.perf_counter() - w0) * 1000
                cpu[q] = (cpu_seconds(proc.pid) - c0) * 1000
        rss = peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    steps = {s["step"]: s["ms"] for s in report.get("steps", [])}
    return {"ready_s": ready_s, "steps": steps, "ms": ms, "cpu": cpu, "rss": rss}


def serve_cold(
    home: Path, questions: list[str], *, kb: str = "default", warm: bool = True
) -> dict[str, Any]:
    """Two fresh servers on ``home`` ask ``questions`` once each, the second in an order
    rotated by half, so each server's first question is also asked warm (half-way) by the
    other: the first asks after ready against the same questions warm (``first_over_same``,
    wall and CPU; the question's own cost cancels), and against the warm asks' p50.
    ``warm=False`` starts the servers with ``--no-warm`` (the comparison without warm-up)."""
    half = len(questions) // 2
    runs = [
        _serve_once(home, questions, kb, warm),
        _serve_once(home, questions[half:] + questions[:half], kb, warm),
    ]
    firsts = [questions[0], questions[half]]
    out: dict[str, Any] = {
        "ready_s": [round(r["ready_s"], 1) for r in runs],
        "warmup_steps_ms": runs[0]["steps"],
        "server_peak_rss_mb": max(r["rss"] for r in runs),
    }
    for unit in ("ms", "cpu"):
        first = [runs[i][unit][q] for i, q in enumerate(firsts)]
        same = [runs[1 - i][unit][q] for i, q in enumerate(firsts)]
        later = [v for i, r in enumerate(runs) for q, v in r[unit].items() if q != firsts[i]]
        out[f"first_{unit}"] = [round(v, 1) for v in first]
        out[f"same_warm_{unit}"] = [round(v, 1) for v in same]
        out[f"warm_p50_{unit}"] = round(_pct(later, 50), 1)
        out[f"warm_p95_{unit}"] = round(_pct(later, 95), 1)
        out[f"first_over_same_{unit}"] = round(sum(first) / max(sum(same), 1e-9), 2)
        out[f"first_over_warm_p50_{unit}"] = round(
            sum(first) / len(first) / max(_pct(later, 50), 1e-9), 2
        )
    return out
