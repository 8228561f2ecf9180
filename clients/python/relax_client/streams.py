"""NDJSON record streams of ``POST /rollout/v1/steps`` and ``POST /rollout/v1/evals``.

A stream reads one JSON object per ``\\n``-terminated line from an open ``http.client`` response as the server
flushes it, so a row is yielded as soon as its Group is exported, not when the step ends.
"""

import json
import socket
from http.client import HTTPConnection, HTTPException, HTTPResponse
from typing import Any, Dict, Iterator, List, Optional, Union

from .errors import RelaxConnectionError, RelaxProtocolError, RelaxStepError
from .types import DroppedGroup, EvalResult, EvalSummary, Row, StepStart, StepSummary

__all__ = ["StepStream", "EvalStream", "StreamRecord"]

#: What :meth:`StepStream.records` yields: ``Row`` for ``row`` and ``eval_row`` (``Row.dataset`` set for the
#: latter), ``DroppedGroup``, ``EvalSummary`` for ``eval_end``, ``StepStart`` and ``StepSummary``.
StreamRecord = Union[StepStart, Row, DroppedGroup, EvalSummary, StepSummary]


class _RecordStream:
    """Shared reader: decodes lines, tracks drops and eval results, raises on ``error`` records."""

    _terminal = ""

    def __init__(self, connection: HTTPConnection, response: HTTPResponse, rollout_id: int) -> None:
        self._connection = connection
        self._response = response
        self.rollout_id = rollout_id
        #: Groups the server dropped in this stream, in arrival order.
        self.dropped: List[DroppedGroup] = []
        #: Eval rows and summaries per dataset, in arrival order.
        self.evals: Dict[str, EvalResult] = {}
        #: Rows (train and eval) decoded so far.
        self.rows_received = 0
        #: Records of a type this client does not know (kept verbatim, not an error).
        self.unknown_records: List[Dict[str, Any]] = []
        #: True once the terminal record (``step_end`` / ``evals_end``) was read.
        self.finished = False
        self._line = 0

    def __enter__(self) -> "_RecordStream":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection. Closing before the end does not cancel the step on the server."""
        self._response.close()
        self._connection.close()

    def _lines(self) -> Iterator[Dict[str, Any]]:
        while not self.finished:
            try:
                line = self._response.readline()
            except (OSError, HTTPException, socket.timeout) as error:
                raise RelaxConnectionError("stream of step %d broke: %s" % (self.rollout_id, error)) from error
            if not line:
                self.close()
                raise RelaxProtocolError(
                    "stream of rollout_id %d ended after %d rows without %s" % (self.rollout_id, self.rows_received, self._terminal)
                )  # fmt: skip
            self._line += 1
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as error:
                raise RelaxProtocolError("line %d is not JSON (%s)" % (self._line, error)) from error
            if not isinstance(record, dict) or not isinstance(record.get("type"), str):
                raise RelaxProtocolError("line %d has no string type" % self._line, "type")
            yield record

    def records(self) -> Iterator[StreamRecord]:
        """Every record as it arrives, typed. Ends after the terminal record.

        :raises RelaxStepError: on an ``error`` record (the stream's last line).
        :raises RelaxProtocolError: on a malformed line or a stream that ends without its terminal record.
        :raises RelaxConnectionError: when the connection breaks or the read times out.
        """
        try:
            for record in self._records():
                yield record
        except Exception:
            self.close()
            raise
        self.close()

    def _records(self) -> Iterator[StreamRecord]:
        for record in self._lines():
            kind = record["type"]
            if kind == "row" or kind == "eval_row":
                dataset = None
                if kind == "eval_row":
                    dataset = record.get("dataset")
                    if not isinstance(dataset, str):
                        raise RelaxProtocolError("eval_row on line %d has no dataset" % self._line, "dataset")
                row = Row.from_wire(record.get("row"), "row", dataset=dataset)
                self.rows_received += 1
                if dataset is not None:
                    self.evals.setdefault(dataset, EvalResult(dataset)).rows.append(row)
                yield row
            elif kind == "group_dropped":
                dropped = DroppedGroup.from_wire(record)
                self.dropped.append(dropped)
                yield dropped
            elif kind == "eval_end":
                dataset = record.get("dataset")
                if not isinstance(dataset, str):
                    raise RelaxProtocolError("eval_end on line %d has no dataset" % self._line, "dataset")
                summary = record.get("summary")
                eval_summary = EvalSummary(dataset, summary if isinstance(summary, dict) else {})
                self.evals.setdefault(dataset, EvalResult(dataset)).summary = eval_summary
                yield eval_summary
            elif kind == "error":
                self.close()
                self.finished = True
                raise RelaxStepError.from_record(record, self.rollout_id, self.rows_received)
            else:
                typed = self._other(record)
                if typed is not None:
                    yield typed

    def _other(self, record: Dict[str, Any]) -> Optional[StreamRecord]:
        self.unknown_records.append(record)
        return None


class StepStream(_RecordStream):
    """The answer of ``POST /rollout/v1/steps``: iterate it for the step's train rows as they arrive.

    Iterating yields :class:`Row` for ``row`` records only; eval rows of a due eval go to :attr:`evals`,
    dropped Groups to :attr:`dropped`. After the last row, :attr:`summary` holds the ``step_end`` summary.
    Use it as a context manager so the connection is closed even when the loop stops early::

        with client.step(3, weight_version="v3") as stream:
            for row in stream:
                batch.append(row)
        print(stream.summary.rows, len(stream.dropped))
    """

    _terminal = "step_end"

    def __init__(self, connection: HTTPConnection, response: HTTPResponse, rollout_id: int) -> None:
        super().__init__(connection, response, rollout_id)
        #: The ``step_start`` record (``None`` until read).
        self.start: Optional[StepStart] = None
        #: The ``step_end`` summary (``None`` until the stream has ended).
        self.summary: Optional[StepSummary] = None

    def __enter__(self) -> "StepStream":
        return self

    def __iter__(self) -> Iterator[Row]:
        for record in self.records():
            if isinstance(record, Row) and record.dataset is None:
                yield record

    def collect(self) -> List[Row]:
        """Reads the whole stream and returns its train rows."""
        return list(self)

    def _other(self, record: Dict[str, Any]) -> Optional[StreamRecord]:
        kind = record["type"]
        if kind == "step_start":
            self.start = StepStart.from_wire(record)
            if self.start.rollout_id != self.rollout_id:
                message = "step_start names rollout_id %d, asked %d" % (self.start.rollout_id, self.rollout_id)
                raise RelaxProtocolError(message, "rollout_id")
            return self.start
        if kind == "step_end":
            self.summary = StepSummary.from_wire(record.get("summary"))
            self.finished = True
            return self.summary
        return super()._other(record)


class EvalStream(_RecordStream):
    """The answer of ``POST /rollout/v1/evals``: iterate it for eval rows (``Row.dataset`` set).

    :attr:`evals` maps each dataset to its rows and ``eval_end`` summary; :attr:`finished` turns true at
    ``evals_end``. :meth:`collect` reads everything and returns :attr:`evals`.
    """

    _terminal = "evals_end"

    def __enter__(self) -> "EvalStream":
        return self

    def __iter__(self) -> Iterator[Row]:
        for record in self.records():
            if isinstance(record, Row):
                yield record

    def collect(self) -> Dict[str, EvalResult]:
        """Reads the whole stream; returns the rows and summary per dataset."""
        for _ in self:
            pass
        return self.evals

    def _other(self, record: Dict[str, Any]) -> Optional[StreamRecord]:
        if record["type"] == "evals_end":
            self.finished = True
            return None
        return super()._other(record)
