"""Errors raised by the Relax control-API client.

Every error derives from :class:`RelaxError`. A non-2xx answer becomes :class:`RelaxApiError` built from the
control API's error body ``{"error": {"code", "message", "path"?}}``; an ``error`` record inside a step or
eval stream becomes :class:`RelaxStepError`; a stream or body that does not follow the wire format becomes
:class:`RelaxProtocolError`; a connection that cannot be made or breaks becomes :class:`RelaxConnectionError`.
"""

import json
from typing import Any, Dict, Optional

__all__ = ["RelaxError", "RelaxApiError", "RelaxStepError", "RelaxProtocolError", "RelaxConnectionError"]


class RelaxError(Exception):
    """Base class of every error of :mod:`relax_client`."""


class RelaxApiError(RelaxError):
    """A non-2xx answer of the control API.

    ``status`` is the HTTP status, ``code`` the error code (``invalid_body``, ``unauthorized``, ``not_found``,
    ``step_out_of_order``, ``step_running``, ``not_paused``, ``pause_cancelled``, ``pause_timeout``,
    ``backend_error``, ``backend_unavailable``, ``internal_error``, or
    ``http_<status>`` when the body is not the documented error shape), ``message`` the server's message and
    ``path`` the dotted field path of a body error (``None`` otherwise).
    """

    def __init__(self, status: int, code: str, message: str, path: Optional[str] = None) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.path = path
        where = " (at %s)" % path if path else ""
        super().__init__("%d %s: %s%s" % (status, code, message, where))

    @classmethod
    def from_body(cls, status: int, body: bytes) -> "RelaxApiError":
        """Builds the error from a raw answer body; a body that is not the error shape keeps its first 200 chars."""
        text = body.decode("utf-8", errors="replace")
        try:
            decoded: Any = json.loads(text)
        except ValueError:
            decoded = None
        error = decoded.get("error") if isinstance(decoded, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            path = error.get("path")
            return cls(status, error["code"], str(error.get("message", "")), path if isinstance(path, str) else None)
        return cls(status, "http_%d" % status, text[:200].strip() or "no body")


class RelaxStepError(RelaxError):
    """The server ended a step (or eval) stream early with an ``error`` record.

    ``rows_received`` counts the rows yielded before the error; they were already exported by the server.
    """

    def __init__(self, code: str, message: str, rollout_id: Optional[int] = None, rows_received: int = 0) -> None:
        self.code = code
        self.message = message
        self.rollout_id = rollout_id
        self.rows_received = rows_received
        step = "step %d" % rollout_id if rollout_id is not None else "stream"
        super().__init__("%s failed after %d rows: %s: %s" % (step, rows_received, code, message))

    @classmethod
    def from_record(cls, record: Dict[str, Any], rollout_id: Optional[int], rows_received: int) -> "RelaxStepError":
        error = record.get("error")
        error = error if isinstance(error, dict) else {}
        return cls(str(error.get("code", "unknown")), str(error.get("message", "")), rollout_id, rows_received)


class RelaxProtocolError(RelaxError):
    """An answer that does not follow the control API's wire format; ``path`` names the offending field."""

    def __init__(self, message: str, path: Optional[str] = None) -> None:
        self.path = path
        super().__init__("%s: %s" % (path, message) if path else message)


class RelaxConnectionError(RelaxError):
    """The control API could not be reached, or the connection broke mid-answer."""
