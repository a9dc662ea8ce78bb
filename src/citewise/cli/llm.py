"""``citewise llm``: manage LLM routes (drafts; activation runs a live connection check)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt
from citewise.config import Settings
from citewise.core.secrets import public_url
from citewise.errors import UsageError
from citewise.llm.models import MAX_FALLBACKS, Route, Target

if TYPE_CHECKING:
    from citewise.llm.models import LLMRouteStatus
    from citewise.llm.routes import RouteStore

llm_app = typer.Typer(
    help="Optional LLM generation: routes and their checks.", no_args_is_help=True
)
route_app = typer.Typer(help="Add, list, activate and remove LLM routes.", no_args_is_help=True)
llm_app.add_typer(route_app, name="route")

_KEYS = {"model", "endpoint", "timeout", "call_budget", "token_budget", "api_key_env"}


def _store(home: Path | None) -> RouteStore:
    from citewise.llm.routes import RouteStore

    return RouteStore(Settings.resolve(home).home)


def _fallback(spec: str, primary: Target) -> Target:
    """``model=M,endpoint=URL[,timeout=S,call_budget=N,token_budget=N,api_key_env=NAME]``;
    unset fields are taken from the primary."""
    fields = primary.to_json()
    for part in spec.split(","):
        key, sep, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in _KEYS:
            raise UsageError(
                f"Bad --fallback part {part!r}.",
                hint=f"Use KEY=VALUE with KEY in {', '.join(sorted(_KEYS))}.",
            )
        fields[key] = value.strip()
    return Target.from_json(fields)


def _show(st: LLMRouteStatus) -> dict[str, object]:
    return {
        "name": st.name,
        "state": st.state,
        "activated_at": st.activated_at,
        **st.route.to_json(public=True),
        "last_check": st.check,
    }


@route_app.command("add")
def route_add(
    name: str,
    model: Annotated[str, typer.Option(help="Model name the endpoint serves.")],
    endpoint: Annotated[
        str, typer.Option(help="OpenAI-compatible API base, e.g. http://127.0.0.1:11434/v1.")
    ],
    timeout: Annotated[float, typer.Option(help="Seconds per call.")] = 30.0,
    call_budget: Annotated[int, typer.Option(help="Calls to this target per question.")] = 1,
    token_budget: Annotated[int, typer.Option(help="Completion tokens per call.")] = 1024,
    api_key_env: Annotated[
        str, typer.Option(help="NAME of the environment variable (or secrets.yaml entry).")
    ] = "",
    fallback: Annotated[
        list[str] | None,
        typer.Option(
            help=f"model=M,endpoint=URL[,timeout=..,api_key_env=..]; up to {MAX_FALLBACKS}."
        ),
    ] = None,
    extractive_fallback: Annotated[
        bool,
        typer.Option(help="Offer the extractive answer when no model meets the contract."),
    ] = False,
    max_items: Annotated[int, typer.Option(help="Evidence items sent at most.")] = 3,
    item_chars: Annotated[int, typer.Option(help="Characters per item at most.")] = 1200,
    total_chars: Annotated[int, typer.Option(help="Characters in all at most.")] = 3000,
    home: HomeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Save a route as a draft (adding it again replaces it and makes it a draft again)."""
    primary = Target.from_json(
        {
            "model": model,
            "endpoint": endpoint,
            "timeout": timeout,
            "call_budget": call_budget,
            "token_budget": token_budget,
            "api_key_env": api_key_env,
        }
    )
    targets = (primary, *(_fallback(s, primary) for s in fallback or []))
    route = Route(
        name,
        targets,
        extractive_fallback=extractive_fallback,
        max_items=max_items,
        item_chars=item_chars,
        total_chars=total_chars,
    )
    st = _store(home).add(route)
    if json:
        ui.print_json(_show(st))
    else:
        ui.out.print(
            f"saved route {name} as a draft ({len(targets)} target(s)); "
            f"run: citewise llm route activate {name}",
            markup=False,
        )


@route_app.command("list")
def route_list(home: HomeOpt = None, json: JsonOpt = False) -> None:
    """List routes with their state (draft, active, changed since activation)."""
    routes = _store(home).list()
    if json:
        ui.print_json([_show(st) for st in routes])
        return
    if not routes:
        ui.out.print("no LLM routes", markup=False)
    for st in routes:
        chain = " -> ".join(f"{t.model}@{public_url(t.endpoint)}" for t in st.route.targets)
        ui.out.print(f"{st.name} [{st.state}] {chain}", markup=False)


@route_app.command("activate")
def route_activate(name: str, home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Run a live connection check on every target; activate only if all pass."""
    st = _store(home).activate(name)
    if json:
        ui.print_json(_show(st))
    else:
        ui.out.print(f"route {name} is active ({len(st.check)} target(s) checked)", markup=False)


@route_app.command("remove")
def route_remove(name: str, home: HomeOpt = None) -> None:
    """Delete a route."""
    _store(home).remove(name)
    ui.out.print(f"removed route {name}", markup=False)


def register(app: typer.Typer) -> None:
    """Add the ``llm`` group to ``app``."""
    app.add_typer(llm_app, name="llm")
