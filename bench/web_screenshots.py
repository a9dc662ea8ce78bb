"""Screenshots of the web page (issue 39): an answered, a degraded and a refused question
over ``examples/corpus``, and a Chinese question, each with its status line.

    python -m bench.web_screenshots [--out docs/img]

Builds a fresh home from ``examples/corpus`` (dense route off, so no model is loaded),
serves it on 127.0.0.1 in this process, asks each question in Debian's Chromium
(``/usr/bin/chromium``, driven by Playwright) and writes ``<name>.png`` to ``--out``.
The browser test ``tests/test_web_wording.py`` runs the same :func:`capture` into a
temporary folder, so what the screenshots show is what is tested.
"""

from __future__ import annotations

import argparse
import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "examples" / "corpus"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]


@dataclass(frozen=True, slots=True)
class Shot:
    """One question asked on the page: the file name it is saved under and the outcome
    and degradation its answer must have."""

    name: str
    question: str
    outcome: str
    degraded: bool


SHOTS = (
    Shot("answered", "What is the default retry limit?", "answered", False),
    Shot(
        "degraded",
        "How long are audit logs retained and who approves deletion?",
        "answered",
        True,
    ),
    Shot("refused", "How do I configure Kafka in Harbor?", "insufficient_evidence", False),
    Shot("answered-zh", "同步失败时如何排查？", "answered", False),
)


@dataclass(frozen=True, slots=True)
class Seen:
    """What the page showed for one shot."""

    shot: Shot
    status_line: str
    notes: list[str]
    outcome: str
    degradation: str
    ask_label: str
    lang: str
    path: Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serving(home_dir: Path, *, notes: bool = False) -> Iterator[str]:
    """``home_dir`` built from ``examples/corpus`` (and its topic notes when ``notes``)
    and served on a free loopback port."""
    import uvicorn

    from citewise.kb import Home
    from citewise.server.app import create_app

    os.environ["CITEWISE_DENSE"] = "off"
    with Home.open(home_dir) as home:
        home.kb().add([CORPUS])
        if notes:
            home.kb().build_notes()
        port = _free_port()
        server = uvicorn.Server(
            uvicorn.Config(create_app(home), host="127.0.0.1", port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        try:
            yield url
        finally:
            server.should_exit = True
            thread.join(timeout=10)


def _ask(page: Any, url: str, shot: Shot, out: Path) -> Seen:
    page.goto(url + "/")
    page.fill("#question", shot.question)
    page.click("#ask-button")
    page.wait_for_selector(f'#status-line[data-outcome="{shot.outcome}"]', timeout=120_000)
    line = page.locator("#status-line")
    path = out / f"{shot.name}.png"
    page.screenshot(path=str(path), full_page=False)
    return Seen(
        shot=shot,
        status_line=line.inner_text(),
        notes=page.locator("#status-notes li").all_inner_texts(),
        outcome=str(line.get_attribute("data-outcome")),
        degradation=str(line.get_attribute("data-degradation")),
        ask_label=page.locator("#ask-button").inner_text(),
        lang=str(page.evaluate("document.documentElement.lang")),
        path=path,
    )


def capture(out: Path, shots: tuple[Shot, ...] = SHOTS) -> list[Seen]:
    """Ask each of ``shots`` on the page and save its screenshot under ``out``."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as tmp,
        serving(Path(tmp) / "home") as url,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1100, "height": 760}, locale="en-US")
        try:
            return [_ask(page, url, shot, out) for shot in shots]
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img")
    args = parser.parse_args()
    for seen in capture(args.out):
        print(f"{seen.path}: [{seen.outcome}/{seen.degradation}] {seen.status_line}")


if __name__ == "__main__":
    main()
