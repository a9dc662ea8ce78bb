"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for the LLM tests.

Each request is recorded (path, headers, JSON body). What a model answers is scripted per
model name: ``script[model]`` is a queue of behaviours consumed one per generation call
(``default`` when empty); judge calls use ``judge_script[model]`` (default ``sufficient``);
connection checks are always answered. Behaviours:

- ``extractive``: sentences copied from the fenced evidence that share terms with the
  question, each citing its own item (a stand-in for a well-behaved model);
- ``extractive+unsupported``: the same plus one invented sentence citing ``E1``;
- ``timeout``: answer after ``delay`` seconds; ``429``/``503``/``401``: that status;
- ``refusal``: a policy refusal; ``bad_json``; ``unknown_id`` (cites ``E9``);
- ``echo_auth``: the extractive sentences, the first one followed by the request's
  ``Authorization`` header (a model or proxy that echoes what it was sent);
- judge: ``sufficient``, ``insufficient``, ``judge_bad_json``, ``judge_timeout``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from citewise.analysis.tokenize import key_terms, tokenize
from citewise.answer.clean import clean_sentence
from citewise.evidence.sentences import split_sentences

_EVIDENCE = re.compile(
    r'<evidence id="(E\d+)"[^>]*heading="([^"]*)"[^>]*>\n(.*?)\n</evidence>', re.S
)
_INTENT = re.compile(r'&quot;intent&quot;: &quot;(\w+)&quot;|"intent": "(\w+)"')
_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.S)
INVENTED = "The warranty also covers accidental damage for ten years at no extra cost."


def _unescape(s: str) -> str:
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def extractive(user: str, limit: int = 4) -> list[dict[str, Any]]:
    q = _QUESTION.search(user)
    question = _unescape(q.group(1)) if q else ""
    terms = set(key_terms(question))
    literals = {t for t in tokenize(question) if any(ch.isdigit() for ch in t)}
    m = _INTENT.search(user)
    steps = bool(m and "how_to" in m.groups())
    scored: list[tuple[int, int, str, str]] = []
    order = 0
    for item_id, heading, body in _EVIDENCE.findall(user):
        # a question naming the item's clause number, or a procedure: take the whole item
        whole = steps or bool(literals & set(tokenize(_unescape(heading))))
        for span in split_sentences(_unescape(body)):
            if span.kind == "heading" or "[…]" in span.text:
                continue
            text = clean_sentence(span.text)
            hits = len(terms & set(tokenize(text))) or (1 if whole else 0)
            if whole:
                hits = 99
            if hits and len(text) > 2:
                scored.append((-hits, order, text, item_id))
            order += 1
    scored.sort()
    return [{"text": t, "items": [i]} for _, _, t, i in scored[: 12 if steps else limit]]


class ScriptedLLM:
    def __init__(self, default: str = "extractive", delay: float = 2.0) -> None:
        self.default = default
        self.delay = delay
        self.script: dict[str, deque[str]] = {}
        self.judge_script: dict[str, deque[str]] = {}
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> ScriptedLLM:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def queue(self, model: str, *behaviours: str) -> None:
        self.script.setdefault(model, deque()).extend(behaviours)

    def queue_judge(self, model: str, *behaviours: str) -> None:
        self.judge_script.setdefault(model, deque()).extend(behaviours)

    def calls(self, kind: str = "generate") -> list[dict[str, Any]]:
        return [r for r in self.requests if r["kind"] == kind]

    def _next(self, table: dict[str, deque[str]], model: str, default: str) -> str:
        with self._lock:
            q = table.get(model)
            return q.popleft() if q else default

    def respond(self, body: dict[str, Any], auth: str = "") -> tuple[int, dict[str, Any] | str]:
        messages = body.get("messages") or []
        system = messages[0]["content"] if messages else ""
        user = messages[-1]["content"] if messages else ""
        model = str(body.get("model"))
        if "connection check" in system:
            return 200, _completion("ok")
        if system.startswith("You check whether evidence"):
            b = self._next(self.judge_script, model, "sufficient")
            if b == "judge_timeout":
                time.sleep(self.delay)
                b = "sufficient"
            if b == "judge_bad_json":
                return 200, _completion('{"verdict": "maybe", ')
            return 200, _completion(json.dumps({"verdict": b, "missing": []}))
        b = self._next(self.script, model, self.default)
        if b == "timeout":
            time.sleep(self.delay)
            b = "extractive"
        if b in ("429", "503", "401", "500"):
            return int(b), {"error": {"message": f"scripted {b}"}}
        if b == "refusal":
            msg = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
            return 200, {"choices": [{"index": 0, "message": msg, "finish_reason": "stop"}]}
        if b == "bad_json":
            return 200, _completion("Sure! Here is the answer: it depends.")
        if b == "unknown_id":
            return 200, _completion(json.dumps({"sentences": [{"text": "x", "items": ["E9"]}]}))
        sentences = extractive(user)
        if b == "echo_auth" and sentences:
            first = sentences[0]
            sentences[0] = {**first, "text": f"{first['text']} Sent with Authorization: {auth}"}
        if b == "extractive+unsupported":
            sentences.append({"text": INVENTED, "items": ["E1"]})
        return 200, _completion(json.dumps({"sentences": sentences}))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                system = (body.get("messages") or [{}])[0].get("content", "")
                kind = (
                    "check"
                    if "connection check" in system
                    else "judge"
                    if system.startswith("You check whether evidence")
                    else "generate"
                )
                with server._lock:
                    server.requests.append(
                        {
                            "path": self.path,
                            "kind": kind,
                            "model": body.get("model"),
                            "authorization": self.headers.get("Authorization"),
                            "body": body,
                        }
                    )
                if self.path != "/v1/chat/completions":
                    status, out = 404, {"error": "not found"}
                else:
                    status, out = server.respond(body, self.headers.get("Authorization") or "")
                data = json.dumps(out).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        return Handler


def _completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }
