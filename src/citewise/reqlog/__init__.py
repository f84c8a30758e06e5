"""The request log: one record per search/ask (ids, scores, versions, latencies, tokens,
validation, decline reason, feedback; never passage text), kept in the index database with a
retention period, read back for traces, drift monitoring and the feedback loop."""

from citewise.reqlog.record import LogRecord, redact_query
from citewise.reqlog.store import RequestLog, open_log

__all__ = ["LogRecord", "RequestLog", "open_log", "redact_query"]
