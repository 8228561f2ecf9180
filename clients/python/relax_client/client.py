"""``RelaxClient``: the trainer's side of the control API that ``relax serve`` serves under ``/rollout/v1``.

Standard library only (``http.client``); one connection per call, so a client may be shared by threads
(e.g. a step stream read in one thread while another pauses generation for a weight update).
"""

import json
import os
import socket
import time
from dataclasses import dataclass
from http.client import HTTPConnection, HTTPException, HTTPResponse, HTTPSConnection
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple
from urllib.parse import urlsplit

from .errors import RelaxApiError, RelaxConnectionError, RelaxProtocolError
from .streams import EvalStream, StepStream
from .types import Health, PauseResult, ResumeResult, Row, Status, WeightsResult

__all__ = ["RelaxClient", "WeightUpdate", "DEFAULT_URL_ENV", "DEFAULT_TOKEN_ENV"]

#: Environment variable holding the control API's base URL (e.g. ``http://127.0.0.1:8000``).
DEFAULT_URL_ENV = "RELAX_CONTROL_URL"
#: Environment variable holding the control token (``--control-token`` of ``relax serve``).
DEFAULT_TOKEN_ENV = "RELAX_CONTROL_TOKEN"

_PREFIX = "/rollout/v1"


@dataclass
class WeightUpdate:
    """What :meth:`RelaxClient.update_weights` did: the pause, the weight load, and the resume."""

    pause: PauseResult
    weights: WeightsResult
    resume: ResumeResult


class RelaxClient:
    """Client of the trainer control API.

    :param base_url: origin of ``relax serve`` (``http://host:port``; a trailing ``/rollout/v1`` is accepted).
        Defaults to ``$RELAX_CONTROL_URL``.
    :param token: the control token, sent as ``Authorization: Bearer``. Defaults to ``$RELAX_CONTROL_TOKEN``;
        ``token_file`` (e.g. ``<run-dir>/control-token``) is read when neither is given. A token file that does
        not exist yet (``relax serve`` writes it as it starts) is read at the first call that finds it; until
        then a call raises :class:`RelaxConnectionError`, which :meth:`wait_ready` waits out.
    :param timeout: seconds for a plain call (connect and each read).
    :param stream_timeout: seconds a step or eval stream may stay silent between two lines (``None``: wait
        as long as the step takes).
    :raises ValueError: when no base URL is given or in the environment, or its scheme is not http(s).
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = 60.0,
        stream_timeout: Optional[float] = None,
        token_file: Optional[str] = None,
    ) -> None:
        base_url = base_url or os.environ.get(DEFAULT_URL_ENV)
        if not base_url:
            raise ValueError("no control API URL: pass base_url or set %s" % DEFAULT_URL_ENV)
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("base_url must be http(s)://host[:port], got %r" % base_url)
        self.base_url = base_url
        self._origin = "%s://%s" % (parts.scheme, parts.netloc)
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        path = parts.path.rstrip("/")
        if path.endswith(_PREFIX):
            path = path[: -len(_PREFIX)]
        self._prefix = path + _PREFIX
        if token is None:
            token = os.environ.get(DEFAULT_TOKEN_ENV)
        self.token = token
        self._token_file = token_file if token is None else None
        if self._token_file is not None and os.path.exists(self._token_file):
            self._read_token_file()
        self.timeout = timeout
        self.stream_timeout = stream_timeout

    # -- transport -------------------------------------------------------------------------------------------

    def _read_token_file(self) -> None:
        try:
            with open(self._token_file, "r", encoding="utf-8") as handle:  # type: ignore[arg-type]
                token = handle.read().strip()
        except FileNotFoundError as error:
            raise RelaxConnectionError(
                "token file %s does not exist (yet): relax serve writes it when it starts" % self._token_file
            ) from error
        if token:
            self.token = token
            self._token_file = None

    def _connect(self, timeout: Optional[float]) -> HTTPConnection:
        if self._https:
            return HTTPSConnection(self._host, self._port, timeout=timeout)
        return HTTPConnection(self._host, self._port, timeout=timeout)

    def _open(
        self, method: str, path: str, body: Optional[Dict[str, Any]], timeout: Optional[float]
    ) -> Tuple[HTTPConnection, HTTPResponse]:
        headers = {"accept": "application/json, application/x-ndjson"}
        if self.token is None and self._token_file is not None:
            self._read_token_file()
        if self.token is not None:
            headers["authorization"] = "Bearer %s" % self.token
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        connection = self._connect(timeout)
        try:
            connection.request(method, self._prefix + path, body=payload, headers=headers)
            return connection, connection.getresponse()
        except (OSError, HTTPException, socket.timeout) as error:
            connection.close()
            raise RelaxConnectionError(
                "%s %s%s%s: %s" % (method, self._origin, self._prefix, path, error)
            ) from error

    def _call(
        self, method: str, path: str, body: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None,
        accept_statuses: Sequence[int] = (),
    ) -> Tuple[int, Any]:  # fmt: skip
        connection, response = self._open(method, path, body, self.timeout if timeout is None else timeout)
        try:
            raw = response.read()
        except (OSError, HTTPException, socket.timeout) as error:
            raise RelaxConnectionError(
                "%s %s%s%s: %s" % (method, self._origin, self._prefix, path, error)
            ) from error
        finally:
            connection.close()
        if not 200 <= response.status < 300 and response.status not in accept_statuses:
            raise RelaxApiError.from_body(response.status, raw)
        try:
            return response.status, json.loads(raw)
        except ValueError as error:
            raise RelaxProtocolError("%s %s answered %d with a body that is not JSON" % (method, path, response.status)) from error

    def _stream(self, path: str, body: Dict[str, Any]) -> Tuple[HTTPConnection, HTTPResponse]:
        connection, response = self._open("POST", path, body, self.stream_timeout)
        if not 200 <= response.status < 300:
            try:
                raw = response.read()
            finally:
                connection.close()
            raise RelaxApiError.from_body(response.status, raw)
        return connection, response

    # -- endpoints -------------------------------------------------------------------------------------------

    def health(self) -> Health:
        """``GET /rollout/v1/health``. An unhealthy engine (503) is returned as ``Health(ok=False, …)``.

        :raises RelaxApiError: on any other non-2xx answer (e.g. 401 ``unauthorized``).
        """
        status, body = self._call("GET", "/health", accept_statuses=(503,))
        error = body.get("error") if isinstance(body, dict) else None
        error = error if isinstance(error, dict) else {}
        ok = bool(body.get("ok")) if isinstance(body, dict) else False
        return Health(ok=ok and status == 200, code=error.get("code"), message=error.get("message"))

    def wait_ready(
        self, timeout_s: float = 300.0, interval_s: float = 0.5, progress: Optional[Callable[[str], None]] = None
    ) -> Status:
        """Waits until ``relax serve`` is ready for a step, and returns its first :class:`Status`.

        Polls ``GET /rollout/v1/status`` every ``interval_s`` seconds while the server cannot be reached yet
        (not listening, or the token file not written yet: :class:`RelaxConnectionError`) or answers 503
        (``backend_unavailable`` "relax serve is still starting": its ``/health`` already answers while the
        runtime still loads the tokenizer, the agents' gateway and the engine connection). ``progress``, when
        given, is called with one line each time the reason for waiting changes.

        :raises RelaxApiError: at once for any other non-2xx answer (e.g. 401 ``unauthorized``: a wrong token).
        :raises RelaxConnectionError: when ``timeout_s`` seconds pass first; the message holds the last reason.
        """
        deadline = time.monotonic() + timeout_s
        last = None
        while True:
            try:
                return self.status()
            except RelaxConnectionError as error:
                reason = "not reachable yet (%s)" % error
            except RelaxApiError as error:
                if error.status != 503:
                    raise
                reason = "answers 503 %s: %s" % (error.code, error.message)
            if progress is not None and reason != last:
                progress("relax serve at %s %s; waiting" % (self._origin, reason))
            last = reason
            if time.monotonic() + interval_s > deadline:
                raise RelaxConnectionError("relax serve at %s not ready after %gs: %s" % (self._origin, timeout_s, reason))
            time.sleep(interval_s)

    def status(self) -> Status:
        """``GET /rollout/v1/status``: state, next rollout id, weight version, dataset cursor, in-flight counts."""
        return Status.from_wire(self._call("GET", "/status")[1])

    def step(
        self,
        rollout_id: int,
        weight_version: Optional[str] = None,
        next_step_follows: Optional[bool] = None,
        final_backfill: Optional[bool] = None,
        last_step: Optional[bool] = None,
    ) -> StepStream:
        """``POST /rollout/v1/steps``: runs step ``rollout_id`` and streams its rows.

        The request is sent and its status checked before this returns, so an out-of-order or concurrent
        step raises here. ``weight_version`` is the version the engine serves now (the label of tokens whose
        engine response names no version). Every step streams exactly ``--rollout-batch-size`` Groups, also
        with the cross-step flags (docs/contract.md#cross-step-scheduling). ``last_step=True`` (or
        ``next_step_follows=False``) says this is the run's last step, so ``--agentic-prelaunch`` starts
        nothing for a next one (the server assumes a next step otherwise). ``final_backfill`` is deprecated:
        the server reads ``True`` as ``last_step=True``. A ``rollout_id`` below ``next_rollout_id`` replays that
        finished step from its rows file (its ``step_end`` summary has ``extra["replayed"] is True``).

        :raises RelaxApiError: 409 ``step_out_of_order`` (``rollout_id`` beyond ``next_rollout_id``),
            409 ``step_running``, 400 ``invalid_body``, 401 ``unauthorized``, 502/503 backend errors.
        """
        body: Dict[str, Any] = {"rollout_id": rollout_id}
        if weight_version is not None:
            body["weight_version"] = weight_version
        if next_step_follows is not None:
            body["next_step_follows"] = next_step_follows
        if final_backfill is not None:
            body["final_backfill"] = final_backfill
        if last_step is not None:
            body["last_step"] = last_step
        connection, response = self._stream("/steps", body)
        return StepStream(connection, response, rollout_id)

    def step_rows_bytes(self, rollout_id: int) -> bytes:
        """``GET /rollout/v1/steps/{rollout_id}/rows``: a finished step's rows file, byte for byte (JSONL).

        For a trainer that lost a step's stream (a disconnect, a crash): each line is the ``row`` of one of
        the step's ``row`` records, exactly as streamed.

        :raises RelaxApiError: 404 ``not_found`` for a step not finished yet (or whose rows file is gone).
        """
        method, path = "GET", "/steps/%d/rows" % rollout_id
        connection, response = self._open(method, path, None, self.timeout)
        try:
            raw = response.read()
        except (OSError, HTTPException, socket.timeout) as error:
            raise RelaxConnectionError("%s %s%s%s: %s" % (method, self._origin, self._prefix, path, error)) from error
        finally:
            connection.close()
        if not 200 <= response.status < 300:
            raise RelaxApiError.from_body(response.status, raw)
        return raw

    def step_rows(self, rollout_id: int) -> List[Row]:
        """The rows of finished step ``rollout_id`` (:meth:`step_rows_bytes`), parsed, in the order written."""
        rows = []
        for number, line in enumerate(self.step_rows_bytes(rollout_id).decode("utf-8").split("\n")):
            if line:
                try:
                    rows.append(Row.from_wire(json.loads(line), "rows[%d]" % number))
                except ValueError as error:
                    raise RelaxProtocolError("step %d rows line %d: %s" % (rollout_id, number + 1, error)) from error
        return rows

    def run_evals(self, rollout_id: int, datasets: Optional[List[str]] = None) -> EvalStream:
        """``POST /rollout/v1/evals``: runs the eval datasets now (all when ``datasets`` is ``None``).

        :raises RelaxApiError: 409 ``step_running`` while a step runs, 400 on an unknown dataset.
        """
        body: Dict[str, Any] = {"rollout_id": rollout_id}
        if datasets is not None:
            body["datasets"] = list(datasets)
        connection, response = self._stream("/evals", body)
        return EvalStream(connection, response, rollout_id)

    def pause(self, timeout_s: Optional[float] = None) -> PauseResult:
        """``POST /rollout/v1/pause``: aborts in-flight generation (partial output kept), holds agent requests.

        Answers once nothing generates; idempotent. ``timeout_s`` is sent to the server; the HTTP read waits
        ``timeout_s + timeout`` seconds.
        """
        body: Dict[str, Any] = {} if timeout_s is None else {"timeout_s": timeout_s}
        wait = self.timeout + (timeout_s or 0)
        return PauseResult.from_wire(self._call("POST", "/pause", body, timeout=wait)[1])

    def resume(self, weight_version: Optional[str] = None) -> ResumeResult:
        """``POST /rollout/v1/resume``: held requests continue, aborted ones continue from their partial output."""
        body: Dict[str, Any] = {} if weight_version is None else {"weight_version": weight_version}
        return ResumeResult.from_wire(self._call("POST", "/resume", body)[1])

    def update_weights_from_disk(
        self,
        model_path: str,
        weight_version: str,
        load_format: Optional[str] = None,
        flush_cache: bool = True,
        timeout: Optional[float] = None,
    ) -> WeightsResult:
        """``POST /rollout/v1/weights``: every engine worker loads ``model_path`` (SGLang ``/update_weights_from_disk``).

        Generation must be paused. A worker that fails is reported in ``WeightsResult.workers`` with
        ``success`` false (the call itself does not raise for it).

        :raises RelaxApiError: 409 ``not_paused``, 502/503 when the engine fails or is unreachable.
        """
        body = {"model_path": model_path, "weight_version": weight_version, "load_format": load_format,
                "flush_cache": flush_cache}  # fmt: skip
        wait = timeout if timeout is not None else max(self.timeout, 600.0)
        return WeightsResult.from_wire(self._call("POST", "/weights", body, timeout=wait)[1])

    def update_weights(self, model_path: str, weight_version: str, **options: Any) -> WeightUpdate:
        """Pause, load ``model_path`` as ``weight_version``, resume under it.

        When the load fails (an error or ``success`` false) generation stays paused and the error is raised,
        so no token is labelled with a version the engine does not serve.

        :raises RelaxApiError: from any of the three calls, or code ``weights_failed`` (status 0) when a
            worker reported failure.
        """
        paused = self.pause()
        weights = self.update_weights_from_disk(model_path, weight_version, **options)
        if not weights.success:
            failed = [worker.url for worker in weights.workers if not worker.success]
            raise RelaxApiError(0, "weights_failed", "workers failed to load %s: %s" % (model_path, failed))
        resumed = self.resume(weight_version)
        return WeightUpdate(paused, weights, resumed)
