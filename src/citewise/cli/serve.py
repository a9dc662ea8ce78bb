"""``citewise serve``, ``citewise mcp`` and ``citewise keys`` (register with ``register``)."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated

import typer

from citewise.cli import output as ui
from citewise.cli.options import HomeOpt, JsonOpt, chosen_store, open_home
from citewise.errors import UsageError

keys_app = typer.Typer(
    help="API keys for the HTTP and MCP servers (stored as sha256 in <home>/keys.yaml).",
    no_args_is_help=True,
)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_port_free(host: str, port: int) -> None:
    """Refuse at once, before any start-up message, when ``host:port`` cannot be bound."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise UsageError(
                f"Cannot listen on {host}:{port}: {exc.strerror or exc} "
                "(is another server using the port?).",
                hint="Stop the other server, or pick another port with --port.",
            ) from None


def serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535)] = 8765,
    max_upload_bytes: Annotated[
        int | None, typer.Option(min=1, help="Per-file upload limit (default: ingest's).")
    ] = None,
    max_json_bytes: Annotated[
        int, typer.Option(min=1024, help="Cap of a JSON request body (not uploads).")
    ] = 1024 * 1024,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            help="Extra Host name the server answers to (repeatable; loopback names, "
            "the bound host and IP addresses are always accepted)."
        ),
    ] = None,
    sync_root: Annotated[
        list[Path] | None,
        typer.Option(
            help="Folder under which POST /kb/{kb}/sync may mirror subfolders (repeatable; "
            "none = server-side sync off)."
        ),
    ] = None,
    warm: Annotated[
        bool,
        typer.Option(
            help="Load every model and warm each knowledge base before /health/ready "
            "answers 200 (the first ask is then as fast as the next ones)."
        ),
    ] = True,
    home: HomeOpt = None,
) -> None:
    """Serve the HTTP API (OpenAPI at /docs) and the web page at /.

    Liveness: GET /health. Readiness: GET /health/ready (503 while warming)."""
    import uvicorn

    from citewise.server.app import create_app
    from citewise.server.auth import KeyStore

    if port:
        check_port_free(host, port)
    with open_home(home) as h:
        if not KeyStore(h.settings.home).configured:
            ui.err.print(
                "warning: no API keys configured (citewise keys add); serving loopback "
                "only, every caller is the anonymous local user.",
                markup=False,
            )
            if not is_loopback(host):
                raise UsageError(
                    f"Refusing to bind {host} without API keys.",
                    hint="Add a key with 'citewise keys add', or bind 127.0.0.1.",
                )
        api = create_app(
            h,
            max_upload_bytes=max_upload_bytes,
            max_json_bytes=max_json_bytes,
            bound_host=host,
            allowed_hosts=allowed_host or (),
            sync_roots=sync_root or (),
            warm=warm,
        )
        uvicorn.run(api, host=host, port=port, log_level="info")


def mcp(
    key: Annotated[
        str | None,
        typer.Option(envvar="CITEWISE_API_KEY", help="API key whose scope the tools use."),
    ] = None,
    home: HomeOpt = None,
) -> None:
    """Serve the MCP tools over stdio (scope: the key's principal and bases)."""
    from citewise.mcp_server import run_stdio

    run_stdio(home, key, store=chosen_store())


def kb_names(values: list[str]) -> list[str]:
    """Every base named by repeated and comma-separated ``--kbs`` values, in order, once."""
    return list(dict.fromkeys(k.strip() for v in values for k in v.split(",") if k.strip()))


@keys_app.command("add")
def keys_add(
    name: str,
    principal: Annotated[str, typer.Option(help="Principal matched against access: lists.")],
    kbs: Annotated[
        list[str],
        typer.Option(
            help="Knowledge base the key may use (repeatable or comma-separated); '*' = all, "
            "which also allows creating and deleting bases. Required: no default grant."
        ),
    ],
    role: Annotated[
        str,
        typer.Option(
            help="reader (search, read, ask), editor (+ add, sync, delete, revert) or admin "
            "(+ create, change and delete bases)."
        ),
    ] = "admin",
    home: HomeOpt = None,
) -> None:
    """Create a key; it is printed once and stored only as its sha256."""
    from citewise.config import Settings
    from citewise.server.auth import KeyStore

    settings = Settings.resolve(home)
    names = kb_names(kbs)
    token = KeyStore(settings.home).add(name, principal, names, role)
    ui.err.print(f"key {name} ({role}) for principal {principal}; store it now, it is not kept:")
    ui.out.print(token, markup=False)


@keys_app.command("list")
def keys_list(home: HomeOpt = None, json: JsonOpt = False) -> None:
    """Key names, principals and bases (never the keys)."""
    from citewise.config import Settings
    from citewise.server.auth import KeyStore

    records = KeyStore(Settings.resolve(home).home).records()
    rows = [
        {"name": r.name, "principal": r.principal, "kbs": list(r.kbs), "role": r.role}
        for r in records
    ]
    if json:
        ui.print_json(rows)
    else:
        for r in rows:
            kbs = ",".join(r["kbs"])
            ui.out.print(f"{r['name']}  principal={r['principal']}  kbs={kbs}  role={r['role']}")


@keys_app.command("remove")
def keys_remove(name: str, home: HomeOpt = None) -> None:
    """Remove a key."""
    from citewise.config import Settings
    from citewise.server.auth import KeyStore

    KeyStore(Settings.resolve(home).home).remove(name)
    ui.out.print(f"removed key {name}")


def register(app: typer.Typer) -> None:
    """Add ``serve``, ``mcp`` and the ``keys`` group to ``app``."""
    app.command()(serve)
    app.command()(mcp)
    app.add_typer(keys_app, name="keys")
