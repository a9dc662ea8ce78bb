"""Cold against warm through a real server (issue 35), for ``bench/ask_speed_docs.py``.

A fresh ``citewise serve`` process over a built home: how long until ``/health/ready``
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


def serve_cold(home: Path, questions: list[str], *, kb: str = "default") -> dict[str, Any]:
    """Start ``citewise serve`` on ``home``, wait until ready, ask every question once in
    order; the first ask's figures against the p50 of the rest."""
    port = _free_port()
    env = dict(os.environ, CITEWISE_HOME=str(home))
    cmd = [sys.executable, "-c", "from citewise.cli import main; main()", "serve"]
    proc = subprocess.Popen(
        [*cmd, "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        t0 = time.perf_counter()
        report = _wait_ready(url, proc, 1800)
        ready_s = time.perf_counter() - t0
        ms, cpu = [], []
        with httpx.Client(base_url=url, timeout=600) as client:
            for q in questions:
                c0, w0 = cpu_seconds(proc.pid), time.perf_counter()
                r = client.post(f"/kb/{kb}/ask", json={"question": q})
                r.raise_for_status()
                ms.append((time.perf_counter() - w0) * 1000)
                cpu.append((cpu_seconds(proc.pid) - c0) * 1000)
        rss = peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    warm_ms, warm_cpu = ms[1:] or ms, cpu[1:] or cpu
    return {
        "ready_s": round(ready_s, 1),
        "warmup_steps": {s["step"]: s["ms"] for s in report.get("steps", [])},
        "first_ms": round(ms[0], 1),
        "first_cpu_ms": round(cpu[0], 1),
        "warm_p50_ms": round(_pct(warm_ms, 50), 1),
        "warm_p95_ms": round(_pct(warm_ms, 95), 1),
        "warm_cpu_p50_ms": round(_pct(warm_cpu, 50), 1),
        "first_over_warm_p50": round(ms[0] / max(_pct(warm_ms, 50), 1e-9), 2),
        "first_cpu_over_warm_cpu_p50": round(cpu[0] / max(_pct(warm_cpu, 50), 1e-9), 2),
        "server_peak_rss_mb": rss,
    }
