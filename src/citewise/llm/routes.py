"""Route storage: ``<home>/llm_routes.yaml`` (0600), never exported with a KB.

A route is saved as a *draft*; ``activate`` runs a live connection check against every
target and, when all pass, records the checked configuration as active. Only an active
configuration is ever used; editing a route (``add`` again) makes it a draft again. The
file holds environment-variable names for keys, never keys.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

import yaml

from citewise.core.secrets import public_url, redact, resolve_key, stored_keys, url_secrets
from citewise.errors import RouteNotActive, RouteNotFound, SecretsError, UsageError
from citewise.llm.client import ChatClient, OpenAICompatibleClient
from citewise.llm.models import LLMCallError, LLMRouteStatus, Route, RouteState

ROUTES_FILE = "llm_routes.yaml"
CHECK_MESSAGES = [
    {"role": "system", "content": "You are a connection check. Reply with: ok"},
    {"role": "user", "content": "ok?"},
]


def _fingerprint(route: Route) -> str:
    blob = json.dumps(route.to_json(), sort_keys=True).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


class RouteStore:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = home / ROUTES_FILE

    def _load(self) -> dict[str, Any]:
        if not self.path.is_file():
            return {}
        try:
            data = yaml.safe_load(self.path.read_text("utf-8")) or {}
        except yaml.YAMLError as exc:
            raise UsageError(f"{self.path} is not valid YAML ({exc}).") from exc
        routes = data.get("routes") if isinstance(data, dict) else None
        return dict(routes) if isinstance(routes, dict) else {}

    def _save(self, routes: dict[str, Any]) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".yaml.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yaml.safe_dump({"routes": routes}, fh, sort_keys=True)
        os.replace(tmp, self.path)

    def add(self, route: Route) -> LLMRouteStatus:
        route.validate()
        routes = self._load()
        entry = dict(routes.get(route.name) or {})
        entry["draft"] = route.to_json()
        routes[route.name] = entry
        self._save(routes)
        return self.status(route.name)

    def remove(self, name: str) -> None:
        routes = self._load()
        if name not in routes:
            raise RouteNotFound(
                f"No LLM route named {name!r}.", hint="See: citewise llm route list"
            )
        del routes[name]
        self._save(routes)

    def status(self, name: str) -> LLMRouteStatus:
        routes = self._load()
        if name not in routes:
            raise RouteNotFound(
                f"No LLM route named {name!r}.", hint="See: citewise llm route list"
            )
        entry = routes[name]
        draft = Route.from_json(name, entry["draft"])
        active = entry.get("active")
        state: RouteState
        if not active:
            state = "draft"
        elif active.get("fingerprint") == _fingerprint(draft):
            state = "active"
        else:
            state = "changed"
        return LLMRouteStatus(
            name,
            state,
            draft,
            active.get("activated_at") if active else None,
            list(entry.get("check") or []),
        )

    def list(self) -> list[LLMRouteStatus]:
        return [self.status(n) for n in sorted(self._load())]

    def activate(self, name: str, client: ChatClient | None = None) -> LLMRouteStatus:
        """Live-check every target; activate only if all answered."""
        st = self.status(name)
        route = st.route
        results: list[dict[str, Any]] = []
        keys: dict[str, str] = {}
        for t in route.targets:
            if t.api_key_env:
                key = resolve_key(t.api_key_env, self.home)
                if key:
                    keys[t.api_key_env] = key
        use = client or OpenAICompatibleClient(keys)
        ok = True
        for i, t in enumerate(route.targets):
            started = time.perf_counter()
            if t.api_key_env and t.api_key_env not in keys:
                res = {"ok": False, "detail": f"variable {t.api_key_env} is not set"}
            else:
                try:
                    text = use.complete(t, CHECK_MESSAGES, timeout=t.timeout)
                    res = {
                        "ok": bool(text.strip()),
                        "detail": "answered" if text.strip() else "empty",
                    }
                except LLMCallError as exc:
                    detail = redact(exc.detail, [*keys.values(), *url_secrets(t.endpoint)])
                    res = {"ok": False, "detail": f"{exc.kind}: {detail}"}
            res |= {
                "target": i,
                "model": t.model,
                "endpoint": public_url(t.endpoint),
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            }
            ok = ok and bool(res["ok"])
            results.append(res)
        routes = self._load()
        entry = routes[name]
        entry["check"] = results
        if ok:
            entry["active"] = {
                "fingerprint": _fingerprint(route),
                "activated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "route": route.to_json(),
            }
        routes[name] = entry
        self._save(routes)
        if not ok:
            failed = "; ".join(
                f"{r['model']} at {r['endpoint']}: {r['detail']}" for r in results if not r["ok"]
            )
            raise RouteNotActive(
                f"Route {name!r} failed its connection check ({failed}); it is not active.",
                hint="Fix the endpoint, model or key variable and activate again.",
            )
        return self.status(name)

    def active(self, name: str) -> Route:
        """The checked configuration of ``name``; refuses a route never activated."""
        routes = self._load()
        if name not in routes:
            raise RouteNotFound(
                f"No LLM route named {name!r}.", hint="Add one: citewise llm route add NAME ..."
            )
        active = routes[name].get("active")
        if not active:
            raise RouteNotActive(
                f"LLM route {name!r} was never activated (it is a draft).",
                hint=f"Run: citewise llm route activate {name}",
            )
        return Route.from_json(name, active["route"])


def known_secrets(home: Path) -> list[str]:
    """Every secret value citewise knows of in ``home``: the secrets file's keys, the
    environment values of every route's key variable, and endpoint credentials."""
    found: list[str] = []
    with contextlib.suppress(SecretsError):
        found += stored_keys(home)
    try:
        routes = RouteStore(home).list()
    except Exception:  # a broken routes file must not stop an export from being scrubbed
        routes = []
    for st in routes:
        for t in st.route.targets:
            if t.api_key_env and os.environ.get(t.api_key_env):
                found.append(os.environ[t.api_key_env])
            found += url_secrets(t.endpoint)
    return sorted({s for s in found if s}, key=len, reverse=True)
