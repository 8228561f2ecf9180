"""A fake ``relax serve`` control API (``docs/trainer-api.md``) for the client tests, on ``http.server``.

It checks the bearer token, validates bodies, keeps ``next_rollout_id`` / paused state like the spec, and
streams scripted NDJSON records with chunked transfer encoding, one flushed chunk per line. A record script
entry may be a ``threading.Event`` (the server waits for it, up to 5 s, before the next line) so a test can
prove a row reached the client while the server still held the rest of the stream.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Union

Script = List[Union[Dict[str, Any], threading.Event, float]]


def make_row(
    *, session: str = "s-0", group_index: int = 0, prompt_index: int = 0, sample_index: int = 0,
    prompt: Optional[List[int]] = None, response: Optional[List[int]] = None, mask: Optional[List[int]] = None,
    reward: Optional[float] = 1.0, advantage: float = 0.5, versions: Optional[List[str]] = None,
    spans: Optional[List[Dict[str, Any]]] = None, context_name: Optional[str] = None, status: str = "completed",
    metadata: Optional[Dict[str, Any]] = None, **extra: Any,
) -> Dict[str, Any]:  # fmt: skip
    """A valid training row: ``prompt`` + ``response`` tokens, logprob ``-0.5`` on every masked-in token."""
    prompt = [151644, 872, 198] if prompt is None else prompt
    response = [40, 1079, 13, 151645] if response is None else response
    mask = [1] * len(response) if mask is None else mask
    versions = ["v0"] if versions is None else versions
    row = {
        "tokens": prompt + response,
        "loss_mask": mask,
        "rollout_log_probs": [-0.5 if bit else 0 for bit in mask],
        "advantage": advantage,
        "advantages": [advantage if bit else 0 for bit in mask],
        "reward": reward,
        "reward_details": {"format": 1.0},
        "response_length": len(response),
        "prompt_length": len(prompt),
        "status": status,
        "weight_versions": versions,
        "weight_version_spans": spans if spans is not None else [{"version": versions[0], "start": 0, "end": len(response)}],
        "abort_count": 0,
        "prompt_index": prompt_index,
        "sample_index": sample_index,
        "rollout_id": "r-" + session,
        "group_index": group_index,
        "session_id": session,
        "context_name": context_name,
        "state_hash": "h-" + session,
        "num_turns": 1,
        "stop_reason": "stop",
        "metadata": {"answer": "18"} if metadata is None else metadata,
    }
    row.update(extra)
    return row


class _QuietServer(ThreadingHTTPServer):
    """Ignores a client that hangs up mid-stream (the tests that stop reading early do that on purpose)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        return


class FakeControlServer:
    """The fake server; ``url`` is its origin. Use as a context manager (starts and stops the thread)."""

    def __init__(self, token: str = "secret-token", port: int = 0) -> None:
        self.token = token
        self.next_rollout_id = 0
        self.state = "idle"
        self.weight_version: Optional[str] = None
        self.step_scripts: Dict[int, Script] = {}
        #: ``GET /steps/{k}/rows`` answers: the rows file bytes of finished step k.
        self.rows_files: Dict[int, bytes] = {}
        self.eval_script: Script = []
        self.requests: List[Dict[str, Any]] = []
        self.weights_forwarded: List[Dict[str, Any]] = []
        self.lines_written = 0
        self.engine_healthy = True
        self.starting_answers = 0  # GET /status answers 503 "still starting" this many times first
        self.step_end_written = threading.Event()
        #: Set while no step runs: a client that gave up on a stream waits on it before the next step.
        self.step_idle = threading.Event()
        self.step_idle.set()
        self._step_finished = True
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> "FakeControlServer":
        self._thread.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler_class(self) -> type:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                return

            def do_GET(self) -> None:
                fake._handle(self, "GET")

            def do_POST(self) -> None:
                fake._handle(self, "POST")

        return Handler

    # -- responses ---------------------------------------------------------------------------------------------

    @staticmethod
    def _json(handler: BaseHTTPRequestHandler, status: int, body: Dict[str, Any]) -> None:
        data = json.dumps(body).encode("utf-8")
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _error(self, handler: BaseHTTPRequestHandler, status: int, code: str, message: str, path: Optional[str] = None) -> None:
        error: Dict[str, Any] = {"code": code, "message": message}
        if path is not None:
            error["path"] = path
        self._json(handler, status, {"error": error})

    def _stream(self, handler: BaseHTTPRequestHandler, script: Script) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "application/x-ndjson")
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        for entry in script:
            if isinstance(entry, threading.Event):
                entry.wait(5)
                continue
            if isinstance(entry, (int, float)):
                time.sleep(entry)
                continue
            if entry.get("type") == "step_end":
                self._finish_step()
            line = (json.dumps(entry) + "\n").encode("utf-8")
            with self._lock:  # counted before the write, so a reader never sees a line not yet counted
                self.lines_written += 1
            if entry.get("type") == "step_end":
                self.step_end_written.set()
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()

    # -- routing -----------------------------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        self.requests.append({"method": method, "path": handler.path, "body": raw, "headers": dict(handler.headers)})
        if handler.headers.get("authorization") != "Bearer %s" % self.token:
            return self._error(handler, 401, "unauthorized", "missing or wrong control token")
        body: Any = {}
        if method == "POST":
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._error(handler, 400, "invalid_body", "body is not JSON")
            if not isinstance(body, dict):
                return self._error(handler, 400, "invalid_body", "body must be an object")
        route = (method, handler.path)
        if route == ("GET", "/rollout/v1/health"):
            if self.engine_healthy:
                return self._json(handler, 200, {"ok": True})
            return self._json(handler, 503, {"ok": False, "error": {"code": "backend_unavailable", "message": "engine down"}})
        if route == ("GET", "/rollout/v1/status"):
            if self.starting_answers > 0:
                self.starting_answers -= 1
                return self._error(handler, 503, "backend_unavailable", "relax serve is still starting")
            return self._json(handler, 200, self._status())
        if route == ("POST", "/rollout/v1/steps"):
            return self._step(handler, body)
        if method == "GET" and handler.path.startswith("/rollout/v1/steps/") and handler.path.endswith("/rows"):
            rollout_id = int(handler.path.split("/")[4])
            if rollout_id not in self.rows_files:
                message = "step %d has not finished (next_rollout_id is %d)" % (rollout_id, self.next_rollout_id)
                return self._error(handler, 404, "not_found", message, "rollout_id")
            data = self.rows_files[rollout_id]
            handler.send_response(200)
            handler.send_header("content-type", "application/x-ndjson; charset=utf-8")
            handler.send_header("content-length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
            return None
        if route == ("POST", "/rollout/v1/evals"):
            if self.state == "running":
                return self._error(handler, 409, "step_running", "a step or eval is already running")
            return self._stream(handler, self.eval_script)
        if route == ("POST", "/rollout/v1/pause"):
            aborted = 0 if self.state == "paused" else 3
            self._paused_from = self.state if self.state != "paused" else getattr(self, "_paused_from", "idle")
            self.state = "paused"
            return self._json(handler, 200, {"state": "paused", "aborted_requests": aborted, "held_requests": 5, "quiescent_ms": 18.5})
        if route == ("POST", "/rollout/v1/resume"):
            resumed = 3 if self.state == "paused" else 0
            if self.state == "paused":
                self.state = getattr(self, "_paused_from", "idle")
            if isinstance(body.get("weight_version"), str):
                self.weight_version = body["weight_version"]
            return self._json(handler, 200, {"state": self.state, "resumed_requests": resumed, "weight_version": self.weight_version})
        if route == ("POST", "/rollout/v1/weights"):
            if self.state != "paused":
                return self._error(handler, 409, "not_paused", "POST /weights needs paused generation")
            if not isinstance(body.get("model_path"), str):
                return self._error(handler, 400, "invalid_body", "expected string, received number", "model_path")
            forwarded = {key: body.get(key) for key in ("model_path", "load_format", "weight_version", "flush_cache")}
            self.weights_forwarded.append(forwarded)
            workers = [{"url": "http://127.0.0.1:30000", "success": True, "message": "Succeeded to update model weights."}]
            return self._json(handler, 200, {"success": True, "weight_version": body.get("weight_version"), "workers": workers})
        return self._error(handler, 404, "not_found", "no route %s %s" % (method, handler.path))

    def _status(self) -> Dict[str, Any]:
        step = None
        if self.state == "running":
            step = {"rollout_id": self.next_rollout_id, "mode": "train", "groups_target": 2, "groups_done": 1,
                    "groups_dropped": 0, "rows": 4}  # fmt: skip
        return {
            "state": self.state,
            "next_rollout_id": self.next_rollout_id,
            "weight_version": self.weight_version,
            "step": step,
            "dataset": {"size": 300, "cursor": 2 * self.next_rollout_id, "epoch": 0},
            "eval": {"interval": 5, "next_eval_rollout_id": 4, "datasets": ["gsm8k"]},
            "in_flight": {"generating": 0, "held": 0, "aborted_partials": 0},
            "run_dir": "/abs/run",
            "config_hash": "sha256:abc",
            "backend": "standin",
            "future_field": {"x": 1},
        }

    def _step(self, handler: BaseHTTPRequestHandler, body: Dict[str, Any]) -> None:
        rollout_id = body.get("rollout_id")
        if isinstance(rollout_id, bool) or not isinstance(rollout_id, int):
            return self._error(handler, 400, "invalid_body", "expected integer", "rollout_id")
        if self.state == "running":
            return self._error(handler, 409, "step_running", "a step or eval is already running")
        if rollout_id < self.next_rollout_id and rollout_id in self.step_scripts:
            # Like the server: a finished step asked again is replayed; the run does not rewind.
            return self._stream(handler, self.step_scripts[rollout_id])
        if rollout_id != self.next_rollout_id:
            message = "rollout_id %d asked, next is %d (steps run in order)" % (rollout_id, self.next_rollout_id)
            return self._error(handler, 409, "step_out_of_order", message, "rollout_id")
        self.state = "running"
        self.step_idle.clear()
        self._step_finished = False
        try:
            self._stream(handler, self.step_scripts.get(rollout_id, []))
        finally:
            self._finish_step()

    def _finish_step(self) -> None:
        """Like the server: the step's state is saved before its ``step_end`` line is written."""
        if self._step_finished:
            return
        self._step_finished = True
        self.state = "idle" if self.state == "running" else self.state
        self.next_rollout_id += 1
        self.step_idle.set()
