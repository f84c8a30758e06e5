"""``citewise serve`` and ``citewise keys``: the HTTP API + web page, and its API keys."""

from __future__ import annotations

import errno
import socket

import click

from citewise.cli.common import (
    db_option,
    echo,
    echo_json,
    engine_from,
    friendly_errors,
    settings_options,
)
from citewise.errors import ConfigError
from citewise.index.location import shown
from citewise.serve.keys import ROLES, KeyFile
from citewise.types import Principal

keys_option = click.option("--keys", "keys_path", default="keys.json", show_default=True,
                           type=click.Path(dir_okay=False),
                           help="API keys file (sha256 hashes; `citewise keys add`).")


@click.command()
@keys_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="TCP port (0: any free port, printed on start).")
@click.option("--log-level", default="info", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]),
              help="uvicorn log level.")
@db_option
@settings_options
@friendly_errors
def serve(keys_path, host, port, log_level, db, config_path, model, threads):
    """Serve the HTTP API (/v1/..., /openapi.json, /metrics) and the web page (/) over one
    index. Every /v1 request needs an API key from the --keys file."""
    import uvicorn

    from citewise.cli.ask import with_api_key
    from citewise.embed.query_cache import cached_embedder
    from citewise.serve import create_app
    from citewise.serve.guard import server_config

    keys = KeyFile.load(keys_path)
    engine = with_api_key(engine_from(db, config_path, model, threads, must_exist=True))
    engine = cached_embedder(engine)
    app = create_app(engine, keys)
    sockets = _listen(host, port)
    port = sockets[0].getsockname()[1]  # --port 0: the free port it got
    where = f"[{host}]" if ":" in host else host
    echo(f"citewise serve: {shown(db)}, {len(keys.entries)} key(s) from {keys_path}; "
         f"http://{where}:{port}/ (API: /openapi.json)", err=True)
    if not _loopback(host):
        echo(f"warning: listening on {host} over plain HTTP: API keys are bearer tokens and "
             "travel in clear text. Fix: keep --host 127.0.0.1 behind a TLS reverse proxy "
             "(nginx, caddy) that other machines reach", err=True)
    uvicorn.Server(server_config(app, host, port, log_level=log_level)).run(sockets=sockets)


def _listen(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address ``host`` names (``localhost``: 127.0.0.1 and ::1 on a
    dual-stack machine, as uvicorn binds them), before the banner is printed, so that the
    banner names the port the server listens on (``--port 0``: the first address's free
    port, taken by the others too) and a port in use is one line: a new user's ``--port 0``
    banner said ":0", and with the port taken the banner came first, then uvicorn's bind
    error, and their requests went to the other process."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise _cannot_listen(host, port, exc) from None
    sockets: list[socket.socket] = []
    for family, kind, proto, _, address in dict.fromkeys(  # each address once
            (i[0], i[1], i[2], "", i[4][:2]) for i in infos):
        sock = socket.socket(family, kind, proto)
        try:
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((address[0], sockets[0].getsockname()[1] if sockets else port))
        except OSError as exc:
            sock.close()
            if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) and infos[1:]:
                continue  # e.g. ::1 on a machine without IPv6
            for bound in sockets:
                bound.close()
            raise _cannot_listen(host, port, exc) from None
        sockets.append(sock)
    if not sockets:
        raise _cannot_listen(host, port, OSError("no address to listen on"))
    return sockets


def _cannot_listen(host: str, port: int, exc: OSError) -> ConfigError:
    return ConfigError(f"cannot listen on {host}:{port} ({exc.strerror or exc}). Fix: pick "
                       "another --port (0 takes a free one) or --host")



@click.group("keys")
def keys_group():
    """API keys for `citewise serve` (stored hashed; a key is shown once)."""


@keys_group.command("add")
@click.argument("name")
@click.option("--tenant", default="default", show_default=True, help="Tenant of the principal.")
@click.option("--groups", default="", help="Comma-separated groups of the principal.")
@click.option("--role", type=click.Choice(ROLES), default="reader", show_default=True,
              help="reader: search/ask; editor: + documents of its tenant; admin: + its "
                   "tenant's log and drift; operator: + versions, reindex, rollback, "
                   "other tenants.")
@click.option("--reuse-name", is_flag=True,
              help="NAME belonged to a removed key: this key rotates it for the same person "
                   "and reads that key's request log and feedback.")
@keys_option
@friendly_errors
def keys_add(name, tenant, groups, role, reuse_name, keys_path):
    """Make a key for NAME and print it (only its sha256 is stored)."""
    kf = KeyFile.load(keys_path, must_exist=False)
    key = kf.add(name, tenant, sorted(Principal.of(groups).groups), role, reuse=reuse_name)
    echo(key)
    echo(f"(key for {name}: tenant {tenant}, groups {groups or '-'}, role {role}; "
         f"stored hashed in {keys_path}, not shown again)", err=True)


@keys_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the keys' principals as JSON.")
@keys_option
@friendly_errors
def keys_list(as_json, keys_path):
    """List the principals that have keys (never the keys)."""
    kf = KeyFile.load(keys_path)
    if as_json:
        echo_json([e.to_dict() | {"created_at": e.created_at} for e in kf.entries])
        return
    for e in kf.entries:
        echo(f"{e.name:<16} {e.role:<8} tenant={e.tenant}  groups="
             f"{','.join(e.groups) or '-'}  created {e.created_at}")


@keys_group.command("remove")
@click.argument("name")
@keys_option
@friendly_errors
def keys_remove(name, keys_path):
    """Revoke NAME's key (a running server re-reads the file: refused from its next request)."""
    KeyFile.load(keys_path).remove(name)
    echo(f"removed the key of {name}")


def _loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    import ipaddress

    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve to any interface
