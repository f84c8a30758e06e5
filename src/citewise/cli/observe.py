"""``citewise log export|purge``, ``citewise monitor``, ``citewise feedback export``: the
request log read back by an operator (who has the index database, i.e. admin rights)."""

from __future__ import annotations

import sys
import time

import click

from citewise.cli.common import (
    db_option,
    echo,
    echo_json,
    friendly_errors,
    load_settings,
    require_index,
    safe_json,
)
from citewise.private import open_private


def _log(db: str, config_path: str | None):
    from citewise.reqlog import open_log

    require_index(db)
    settings = load_settings(config_path)
    return open_log(db, settings.log.retention_days)


config_option = click.option("--config", "config_path", type=click.Path(dir_okay=False,
                             exists=True), default=None,
                             help="JSON settings file (log.retention_days).")


@click.group("log")
def log_group():
    """The request log (one record per search/ask made through `citewise serve`)."""


@log_group.command("export")
@click.option("--since", "since", default=None, help="Only this recent, e.g. 7d, 12h.")
@click.option("--principal", default=None, help="Only this principal's requests.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="Write JSONL here (default: stdout).")
@db_option
@config_option
@friendly_errors
def log_export(since, principal, out_path, db, config_path):
    """Print log records as JSONL (ids, scores, versions, latencies; never passage text)."""
    from citewise.reqlog.monitor import parse_window

    log = _log(db, config_path)
    start = time.time() - parse_window(since) if since else None
    records = log.records(since=start, principal=principal)
    out = open_private(out_path) if out_path else sys.stdout  # the log holds users' questions
    try:
        for r in records:
            out.write(safe_json(r.to_dict()) + "\n")
    finally:
        if out_path:
            out.close()
            echo(f"wrote {len(records)} record(s) to {out_path}", err=True)


@log_group.command("purge")
@click.option("--older-than", default=None,
              help="Age to purge, e.g. 30d (default: log.retention_days).")
@db_option
@config_option
@friendly_errors
def log_purge(older_than, db, config_path):
    """Delete log records past the retention period (the server also does it hourly)."""
    from citewise.reqlog.monitor import parse_window

    log = _log(db, config_path)
    days = parse_window(older_than) / 86400 if older_than else None
    removed = log.purge(days)
    echo(f"purged {removed} record(s) older than "
         f"{older_than or f'{log.effective_days():g}d'}")


@click.command()
@click.option("--window", default="7d", show_default=True,
              help="Rates over this window (d/h/m/s); the baseline is the window before.")
@click.option("--factor", type=float, default=2.0, show_default=True,
              help="Alert when a rate is over FACTOR x its baseline ...")
@click.option("--floor", type=float, default=0.05, show_default=True,
              help="... and over this absolute rate.")
@click.option("--min-requests", type=int, default=20, show_default=True,
              help="No alerts on fewer requests than this in the window.")
@click.option("--json", "as_json", is_flag=True, help="Print rates and alerts as JSON.")
@db_option
@config_option
@friendly_errors
def monitor(window, factor, floor, min_requests, as_json, db, config_path):
    """Drift rates from the request log (empty retrieval, below gate, abstention by reason,
    citation failures, rerank timeouts, thumbs-down); exits 1 when one crosses its alert
    rule, so it can run from cron."""
    from citewise.reqlog.monitor import alerts, parse_window, rates

    log = _log(db, config_path)
    span, now = parse_window(window), time.time()
    current = rates(log.records(since=now - span, light=True))
    baseline = rates(log.records(since=now - 2 * span, until=now - span, light=True))
    found = alerts(current, baseline, factor=factor, floor=floor, min_requests=min_requests)
    if as_json:
        echo_json({"window": window, "current": current.to_dict(),
                   "baseline": baseline.to_dict(), "alerts": [a.to_dict() for a in found]})
    else:
        echo(f"window {window}: {current.requests} requests ({current.asks} asks); "
             f"baseline {baseline.requests} requests")
        for name, value in current.rates.items():
            echo(f"  {name:<18} {value:7.1%}   baseline {baseline.rates[name]:7.1%}")
        for reason, value in current.abstention_by_reason.items():
            echo(f"  abstention:{reason:<8} {value:7.1%}")
        if current.latency_p50_ms is not None:
            echo(f"  latency p50 {current.latency_p50_ms:.1f} ms, p95 "
                 f"{current.latency_p95_ms:.1f} ms")
        for a in found:
            echo(str(a))
        if not found:
            echo("no alerts")
        if baseline.requests < min_requests:
            echo(f"(no baseline yet: {baseline.requests} requests in the window before; a rate "
                 f"is compared once both windows hold --min-requests {min_requests})")
    if found:
        sys.exit(1)


@click.group("feedback")
def feedback_group():
    """The feedback loop: thumbs-down and declined requests become eval-set candidates."""


@feedback_group.command("export")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), required=True,
              help="Candidates JSONL (eval format, relevant pieces unconfirmed).")
@click.option("--since", default=None, help="Only this recent, e.g. 30d.")
@db_option
@config_option
@friendly_errors
def feedback_export(out_path, since, db, config_path):
    """Write eval-set candidates from thumbs-down and declined asks: the question, the
    retrieved/cited documents as UNCONFIRMED relevant pieces, the persona. Confirm each line
    (fix `relevant`, add `answer`, drop `unconfirmed` and `source`) before using it."""
    from citewise.reqlog.feedback import candidates
    from citewise.reqlog.monitor import parse_window

    log = _log(db, config_path)
    start = time.time() - parse_window(since) if since else None
    rows = list(candidates(log.records(since=start)))
    with open_private(out_path) as fh:  # users' questions, as in the log
        for row in rows:
            fh.write(safe_json(row) + "\n")
    echo(f"wrote {len(rows)} candidate(s) to {out_path}; confirm them before adding "
         "them to an eval set")
