import json
import os
import sys
import socket
import threading
import time
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fake_control_server import FakeControlServer, make_row  # noqa: E402

from relax_client import (  # noqa: E402
    DroppedGroup,
    RelaxApiError,
    RelaxClient,
    RelaxProtocolError,
    RelaxStepError,
    Row,
    StepSummary,
    WeightVersionSpan,
)

STEP_START = {"type": "step_start", "rollout_id": 0, "mode": "train", "groups": 2, "samples_per_group": 2, "weight_version": "v0"}
SUMMARY = {
    "groups": 2, "rows": 2, "dropped_groups": 1, "debt": 0, "resident_groups": 0, "wall_s": 4.2,
    "drops_by_reason": {"agent_timeout": 1}, "metrics": {"rollout/reward_mean": 0.71},
}  # fmt: skip
DROPPED = {"type": "group_dropped", "rollout_id": 0, "group_id": "g0-1-ab12cd", "prompt_index": 1, "reason": "agent_timeout", "message": "no first request in 600 s"}


def step_record(row, rollout_id=0):
    return {"type": "row", "rollout_id": rollout_id, "row": row}


class ClientTestCase(unittest.TestCase):
    def setUp(self):
        self.fake = FakeControlServer().__enter__()
        self.addCleanup(self.fake.__exit__, None, None, None)
        self.client = RelaxClient(self.fake.url, token="secret-token", timeout=10)


class StepStreamTest(ClientTestCase):
    def test_rows_arrive_while_the_server_still_holds_the_rest_of_the_stream(self):
        gate = threading.Event()
        first = make_row(session="s-0", prompt_index=0, sample_index=0)
        second = make_row(session="s-1", prompt_index=0, sample_index=1, reward=0.0, advantage=-0.5, future_row_field=[1, 2])
        self.fake.step_scripts[0] = [STEP_START, 0.05, step_record(first), gate, 0.05, step_record(second), 0.05, DROPPED,
                                     {"type": "step_end", "rollout_id": 0, "summary": SUMMARY}]  # fmt: skip
        seen = []
        with self.client.step(0, weight_version="v0") as stream:
            for row in stream:
                seen.append((row, self.fake.lines_written, self.fake.step_end_written.is_set(), stream.summary))
                gate.set()
        self.assertEqual(len(seen), 2)
        # The first row was in the client's hands after 2 lines, with step_end not yet written.
        self.assertEqual(seen[0][1:], (2, False, None))
        row = seen[0][0]
        self.assertIsInstance(row, Row)
        self.assertEqual(row.tokens, [151644, 872, 198, 40, 1079, 13, 151645])
        self.assertEqual(row.response_tokens, [40, 1079, 13, 151645])
        self.assertEqual(row.prompt_tokens, [151644, 872, 198])
        self.assertEqual(row.loss_mask, [1, 1, 1, 1])
        self.assertEqual(row.rollout_log_probs, [-0.5, -0.5, -0.5, -0.5])
        self.assertEqual(row.advantages, [0.5, 0.5, 0.5, 0.5])
        self.assertEqual((row.advantage, row.reward, row.reward_details), (0.5, 1.0, {"format": 1.0}))
        self.assertEqual((row.prompt_length, row.response_length, row.status), (3, 4, "completed"))
        self.assertEqual(row.weight_versions, ["v0"])
        self.assertEqual(row.weight_version_spans, [WeightVersionSpan("v0", 0, 4)])
        self.assertEqual((row.abort_count, row.prompt_index, row.sample_index), (0, 0, 0))
        self.assertEqual((row.rollout_id, row.group_index, row.session_id), ("r-s-0", 0, "s-0"))
        self.assertEqual((row.context_name, row.state_hash, row.num_turns, row.stop_reason), (None, "h-s-0", 1, "stop"))
        self.assertEqual(row.metadata, {"answer": "18"})
        self.assertEqual((row.dataset, row.extra, row.trained_tokens), (None, {}, 4))
        self.assertEqual(row.to_dict(), first)
        second_row = seen[1][0]
        self.assertEqual((second_row.sample_index, second_row.reward, second_row.advantages), (1, 0.0, [-0.5] * 4))
        self.assertEqual(second_row.extra, {"future_row_field": [1, 2]})
        self.assertEqual(second_row.to_dict(), second)
        self.assertEqual(stream.start.weight_version, "v0")
        self.assertEqual((stream.start.groups, stream.start.samples_per_group, stream.start.mode), (2, 2, "train"))
        self.assertEqual(stream.dropped, [DroppedGroup(0, "g0-1-ab12cd", 1, "agent_timeout", "no first request in 600 s")])
        self.assertEqual(stream.summary, StepSummary(2, 2, 1, 0, 0, 4.2, {"agent_timeout": 1}, {"rollout/reward_mean": 0.71}))
        self.assertTrue(stream.finished)
        request = self.fake.requests[-1]
        self.assertEqual((request["method"], request["path"]), ("POST", "/rollout/v1/steps"))
        self.assertEqual(json.loads(request["body"]), {"rollout_id": 0, "weight_version": "v0"})
        self.assertEqual(request["headers"]["authorization"], "Bearer secret-token")
        self.assertEqual(request["headers"]["content-type"], "application/json")

    def test_records_yields_every_typed_record_and_due_eval_rows_go_to_evals(self):
        eval_row = make_row(session="e-0", reward=1.0, advantage=0)
        self.fake.step_scripts[0] = [
            STEP_START, step_record(make_row()), {"type": "eval_row", "dataset": "gsm8k", "row": eval_row},
            {"type": "eval_end", "dataset": "gsm8k", "summary": {"reward_mean": 1.0, "rows": 1}},
            {"type": "step_end", "rollout_id": 0, "summary": SUMMARY},
        ]  # fmt: skip
        with self.client.step(0) as stream:
            kinds = [type(record).__name__ for record in stream.records()]
        self.assertEqual(kinds, ["StepStart", "Row", "Row", "EvalSummary", "StepSummary"])
        self.assertEqual(json.loads(self.fake.requests[-1]["body"]), {"rollout_id": 0})
        self.assertEqual(list(stream.evals), ["gsm8k"])
        self.assertEqual([row.session_id for row in stream.evals["gsm8k"].rows], ["e-0"])
        self.assertEqual(stream.evals["gsm8k"].rows[0].dataset, "gsm8k")
        self.assertEqual(stream.evals["gsm8k"].summary.values, {"reward_mean": 1.0, "rows": 1})
        self.assertEqual(stream.rows_received, 2)

    def test_step_sends_the_cross_step_fields_only_when_given(self):
        self.fake.step_scripts[0] = [STEP_START, {"type": "step_end", "rollout_id": 0, "summary": dict(SUMMARY, final_backfill=True)}]
        with self.client.step(0, next_step_follows=False, final_backfill=True) as stream:
            records = list(stream.records())
        self.assertEqual(json.loads(self.fake.requests[-1]["body"]), {"rollout_id": 0, "next_step_follows": False, "final_backfill": True})
        self.assertEqual(records[-1].extra, {"final_backfill": True})

    def test_last_step_and_a_finished_step_asked_again(self):
        rows = [make_row(session="t-0"), make_row(session="t-1", sample_index=1)]
        summary = dict(SUMMARY, queued_groups=1)
        self.fake.step_scripts[0] = [STEP_START, *[step_record(row) for row in rows], {"type": "step_end", "rollout_id": 0, "summary": summary}]
        with self.client.step(0, last_step=True) as stream:
            first = stream.collect()
        self.assertEqual(json.loads(self.fake.requests[-1]["body"]), {"rollout_id": 0, "last_step": True})
        self.assertEqual(stream.summary.extra, {"queued_groups": 1})
        # Step 0 again (a trainer resumed from an older checkpoint): replayed, next_rollout_id unchanged.
        self.fake.step_scripts[0][-1] = {"type": "step_end", "rollout_id": 0, "summary": dict(SUMMARY, replayed=True)}
        with self.client.step(0) as again:
            replayed = again.collect()
        self.assertEqual([row.to_dict() for row in replayed], [row.to_dict() for row in first])
        self.assertEqual(again.summary.extra, {"replayed": True})
        self.assertEqual(self.client.status().next_rollout_id, 1)

    def test_step_rows_are_the_rows_file_bytes_and_parse_to_the_streamed_rows(self):
        rows = [make_row(session="t-0", reward=0.5), make_row(session="t-1", sample_index=1)]
        data = "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in rows).encode()
        self.fake.rows_files[0] = data
        self.assertEqual(self.client.step_rows_bytes(0), data)
        self.assertEqual([row.to_dict() for row in self.client.step_rows(0)], [Row.from_wire(row).to_dict() for row in rows])
        self.assertEqual(self.fake.requests[-1]["path"], "/rollout/v1/steps/0/rows")
        with self.assertRaises(RelaxApiError) as caught:
            self.client.step_rows(1)
        self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.path), (404, "not_found", "rollout_id"))

    def test_iteration_yields_only_train_rows(self):
        self.fake.step_scripts[0] = [
            STEP_START, {"type": "eval_row", "dataset": "gsm8k", "row": make_row(session="e-0")},
            step_record(make_row(session="t-0")), {"type": "step_end", "rollout_id": 0, "summary": SUMMARY},
        ]  # fmt: skip
        rows = self.client.step(0).collect()
        self.assertEqual([row.session_id for row in rows], ["t-0"])

    def test_error_record_raises_after_the_rows_before_it(self):
        self.fake.step_scripts[0] = [STEP_START, step_record(make_row()),
                                     {"type": "error", "error": {"code": "backend_error", "message": "engine answered 500"}}]  # fmt: skip
        rows = []
        with self.assertRaises(RelaxStepError) as caught:
            with self.client.step(0) as stream:
                for row in stream:
                    rows.append(row.session_id)
        self.assertEqual(rows, ["s-0"])
        error = caught.exception
        self.assertEqual((error.code, error.message, error.rollout_id, error.rows_received), ("backend_error", "engine answered 500", 0, 1))
        self.assertEqual(str(error), "step 0 failed after 1 rows: backend_error: engine answered 500")

    def test_stream_without_step_end_is_a_protocol_error(self):
        self.fake.step_scripts[0] = [STEP_START, step_record(make_row())]
        with self.assertRaises(RelaxProtocolError) as caught:
            self.client.step(0).collect()
        self.assertEqual(str(caught.exception), "stream of rollout_id 0 ended after 1 rows without step_end")

    def test_malformed_row_names_the_field_path(self):
        bad = make_row()
        bad["loss_mask"] = [1, 1]
        self.fake.step_scripts[0] = [STEP_START, step_record(bad)]
        with self.assertRaises(RelaxProtocolError) as caught:
            self.client.step(0).collect()
        self.assertEqual(caught.exception.path, "row.loss_mask")
        self.assertEqual(str(caught.exception), "row.loss_mask: has 2 entries, expected 4")
        # The client gave up mid-stream; the server ends its step on its own thread (as the real one runs
        # it to its end), so the next step is asked once it has.
        self.assertTrue(self.fake.step_idle.wait(5))
        bad = make_row()
        bad["tokens"][1] = "x"
        self.fake.step_scripts[1] = [dict(STEP_START, rollout_id=1), step_record(bad, 1)]
        with self.assertRaises(RelaxProtocolError) as caught:
            self.client.step(1).collect()
        self.assertEqual(caught.exception.path, "row.tokens[1]")

    def test_step_start_of_another_rollout_id_is_refused(self):
        self.fake.step_scripts[0] = [dict(STEP_START, rollout_id=7)]
        with self.assertRaises(RelaxProtocolError) as caught:
            self.client.step(0).collect()
        self.assertEqual(caught.exception.path, "rollout_id")

    def test_rows_of_old_servers_without_the_serve_fields_decode_with_defaults(self):
        row = make_row()
        for name in ("weight_version_spans", "abort_count", "prompt_index", "sample_index"):
            del row[name]
        decoded = Row.from_wire(row)
        self.assertEqual((decoded.weight_version_spans, decoded.abort_count, decoded.prompt_index, decoded.sample_index), ([], 0, None, None))


class ErrorAnswerTest(ClientTestCase):
    def test_wrong_token_is_401_unauthorized(self):
        client = RelaxClient(self.fake.url, token="wrong", timeout=10)
        for call in (client.status, lambda: client.step(0), client.pause, client.health):
            with self.assertRaises(RelaxApiError) as caught:
                call()
            error = caught.exception
            self.assertEqual((error.status, error.code, error.message, error.path), (401, "unauthorized", "missing or wrong control token", None))
        self.assertEqual(self.fake.next_rollout_id, 0)

    def test_missing_token_sends_no_authorization_header(self):
        with mock.patch.dict(os.environ, {}, clear=True):
            client = RelaxClient(self.fake.url, timeout=10)
        with self.assertRaises(RelaxApiError) as caught:
            client.status()
        self.assertEqual(caught.exception.status, 401)
        self.assertNotIn("authorization", {key.lower() for key in self.fake.requests[-1]["headers"]})

    def test_step_out_of_order_is_409_with_path(self):
        with self.assertRaises(RelaxApiError) as caught:
            self.client.step(3)
        error = caught.exception
        self.assertEqual((error.status, error.code, error.message, error.path), (409, "step_out_of_order", "rollout_id 3 asked, next is 0 (steps run in order)", "rollout_id"))
        self.assertEqual(str(error), "409 step_out_of_order: rollout_id 3 asked, next is 0 (steps run in order) (at rollout_id)")

    def test_step_or_eval_while_a_step_runs_is_409_step_running(self):
        gate = threading.Event()
        self.fake.step_scripts[0] = [STEP_START, step_record(make_row()), gate, {"type": "step_end", "rollout_id": 0, "summary": SUMMARY}]
        with self.client.step(0) as stream:
            first = next(iter(stream))
            self.assertEqual(first.session_id, "s-0")
            self.assertEqual(self.client.status().step.groups_done, 1)
            for call in (lambda: self.client.step(1), lambda: self.client.run_evals(1)):
                with self.assertRaises(RelaxApiError) as caught:
                    call()
                self.assertEqual((caught.exception.status, caught.exception.code), (409, "step_running"))
            gate.set()
            rest = list(stream)
        self.assertEqual((rest, stream.summary.rows), ([], 2))
        self.assertEqual(self.client.status().next_rollout_id, 1)

    def test_weights_while_not_paused_is_409_not_paused(self):
        with self.assertRaises(RelaxApiError) as caught:
            self.client.update_weights_from_disk("/ckpt/step-1", "v1")
        self.assertEqual((caught.exception.status, caught.exception.code), (409, "not_paused"))
        self.assertEqual(self.fake.weights_forwarded, [])

    def test_invalid_body_names_the_field(self):
        self.client.pause()
        with self.assertRaises(RelaxApiError) as caught:
            self.client.update_weights_from_disk(5, "v1")  # type: ignore[arg-type]
        error = caught.exception
        self.assertEqual((error.status, error.code, error.path), (400, "invalid_body", "model_path"))

    def test_unknown_path_is_404_and_a_body_that_is_not_the_error_shape_keeps_its_text(self):
        with self.assertRaises(RelaxApiError) as caught:
            self.client._call("GET", "/nope")
        self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.message), (404, "not_found", "no route GET /rollout/v1/nope"))
        plain = RelaxApiError.from_body(502, b"<html>Bad Gateway</html>")
        self.assertEqual((plain.status, plain.code, plain.message, plain.path), (502, "http_502", "<html>Bad Gateway</html>", None))


class ControlCallsTest(ClientTestCase):
    def test_status_decodes_every_field_and_keeps_unknown_ones(self):
        status = self.client.status()
        self.assertEqual((status.state, status.next_rollout_id, status.weight_version, status.step), ("idle", 0, None, None))
        self.assertEqual((status.dataset.size, status.dataset.cursor, status.dataset.epoch), (300, 0, 0))
        self.assertEqual((status.eval.interval, status.eval.next_eval_rollout_id, status.eval.datasets), (5, 4, ["gsm8k"]))
        self.assertEqual((status.in_flight.generating, status.in_flight.held, status.in_flight.aborted_partials), (0, 0, 0))
        self.assertEqual((status.run_dir, status.config_hash, status.backend), ("/abs/run", "sha256:abc", "standin"))
        self.assertEqual(status.extra, {"future_field": {"x": 1}})

    def test_health_ok_and_unhealthy(self):
        self.assertEqual(self.client.health().ok, True)
        self.fake.engine_healthy = False
        health = self.client.health()
        self.assertEqual((health.ok, health.code, health.message), (False, "backend_unavailable", "engine down"))

    def test_pause_weights_resume(self):
        paused = self.client.pause(timeout_s=60)
        self.assertEqual((paused.state, paused.aborted_requests, paused.held_requests, paused.quiescent_ms), ("paused", 3, 5, 18.5))
        self.assertEqual(json.loads(self.fake.requests[-1]["body"]), {"timeout_s": 60})
        again = self.client.pause()
        self.assertEqual(again.aborted_requests, 0)
        self.assertEqual(json.loads(self.fake.requests[-1]["body"]), {})
        weights = self.client.update_weights_from_disk("/ckpt/step-1", "v1")
        self.assertEqual((weights.success, weights.weight_version), (True, "v1"))
        self.assertEqual([(w.url, w.success, w.message) for w in weights.workers],
                         [("http://127.0.0.1:30000", True, "Succeeded to update model weights.")])  # fmt: skip
        self.assertEqual(self.fake.weights_forwarded, [{"model_path": "/ckpt/step-1", "load_format": None, "weight_version": "v1", "flush_cache": True}])
        resumed = self.client.resume("v1")
        self.assertEqual((resumed.state, resumed.resumed_requests, resumed.weight_version), ("idle", 3, "v1"))
        self.assertEqual(json.loads(self.fake.requests[-1]["body"]), {"weight_version": "v1"})
        noop = self.client.resume()
        self.assertEqual((noop.resumed_requests, noop.weight_version), (0, "v1"))
        self.assertEqual(self.client.status().weight_version, "v1")

    def test_update_weights_pauses_loads_and_resumes(self):
        update = self.client.update_weights("/ckpt/step-2", "v2", flush_cache=False)
        self.assertEqual((update.pause.state, update.weights.success, update.resume.weight_version), ("paused", True, "v2"))
        paths = [request["path"] for request in self.fake.requests]
        self.assertEqual(paths, ["/rollout/v1/pause", "/rollout/v1/weights", "/rollout/v1/resume"])
        self.assertEqual(self.fake.weights_forwarded[0]["flush_cache"], False)

    def test_run_evals_streams_eval_rows_per_dataset(self):
        self.fake.eval_script = [
            {"type": "eval_row", "dataset": "gsm8k", "row": make_row(session="e-0", advantage=0)}, 0.02,
            {"type": "eval_row", "dataset": "gsm8k", "row": make_row(session="e-1", reward=0.0, advantage=0)},
            {"type": "eval_end", "dataset": "gsm8k", "summary": {"reward_mean": 0.5}},
            {"type": "evals_end", "rollout_id": 4},
        ]  # fmt: skip
        with self.client.run_evals(4, datasets=["gsm8k"]) as evals:
            results = evals.collect()
        self.assertEqual(json.loads(self.fake.requests[-1]["body"]), {"rollout_id": 4, "datasets": ["gsm8k"]})
        self.assertEqual([(row.session_id, row.reward, row.dataset) for row in results["gsm8k"].rows], [("e-0", 1.0, "gsm8k"), ("e-1", 0.0, "gsm8k")])
        self.assertEqual(results["gsm8k"].summary.values, {"reward_mean": 0.5})
        self.assertTrue(evals.finished)


class ConfigurationTest(unittest.TestCase):
    def test_environment_defaults(self):
        with mock.patch.dict(os.environ, {"RELAX_CONTROL_URL": "http://10.0.0.5:8123/rollout/v1", "RELAX_CONTROL_TOKEN": "tok"}):
            client = RelaxClient()
        self.assertEqual((client._host, client._port, client._prefix, client.token), ("10.0.0.5", 8123, "/rollout/v1", "tok"))

    def test_token_file_and_missing_url(self):
        import tempfile

        with tempfile.NamedTemporaryFile("w", delete=False) as handle:
            handle.write("file-token\n")
        self.addCleanup(os.unlink, handle.name)
        with mock.patch.dict(os.environ, {}, clear=True):
            self.assertEqual(RelaxClient("http://h:1", token_file=handle.name).token, "file-token")
            with self.assertRaises(ValueError):
                RelaxClient()
        with self.assertRaises(ValueError):
            RelaxClient("ftp://h:1")

    def test_numpy_arrays_when_numpy_is_installed(self):
        row = Row.from_wire(make_row(mask=[1, 0, 0, 1]))
        try:
            import numpy  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError):
                row.to_numpy()
            return
        arrays = row.to_numpy()
        self.assertEqual(arrays["tokens"].tolist(), [151644, 872, 198, 40, 1079, 13, 151645])
        self.assertEqual((str(arrays["loss_mask"].dtype), arrays["loss_mask"].tolist()), ("uint8", [1, 0, 0, 1]))
        self.assertEqual(arrays["rollout_log_probs"].tolist(), [-0.5, 0.0, 0.0, -0.5])


class ConnectionErrorTest(unittest.TestCase):
    def test_connection_error_names_the_full_url(self):
        from relax_client import RelaxConnectionError

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        client = RelaxClient("http://127.0.0.1:%d" % port, token="t", timeout=2)
        with self.assertRaises(RelaxConnectionError) as caught:
            client.status()
        self.assertIn("GET http://127.0.0.1:%d/rollout/v1/status: " % port, str(caught.exception))


class WaitReadyTest(unittest.TestCase):
    def test_waits_out_503_still_starting_and_returns_the_first_status(self):
        with FakeControlServer() as fake:
            fake.starting_answers = 3
            lines = []
            client = RelaxClient(fake.url, token="secret-token", timeout=5)
            status = client.wait_ready(timeout_s=10, interval_s=0.05, progress=lines.append)
            self.assertEqual((status.state, status.next_rollout_id), ("idle", 0))
            status_calls = [r for r in fake.requests if r["path"] == "/rollout/v1/status"]
            self.assertEqual(len(status_calls), 4)
            # One progress line per reason, not per poll.
            self.assertEqual(lines, ["relax serve at %s answers 503 backend_unavailable: relax serve is still starting; waiting" % fake.url])

    def test_waits_for_the_token_file_and_the_listening_socket(self):
        import tempfile

        import shutil

        work = tempfile.mkdtemp(prefix="relax-client-wait-")
        self.addCleanup(shutil.rmtree, work, True)
        token_file = os.path.join(work, "control-token")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        client = RelaxClient("http://127.0.0.1:%d" % port, token_file=token_file, timeout=2)
        self.assertIsNone(client.token)  # not there yet: read at the first call that finds it
        lines = []
        started = []

        def start_later():  # the token file after 0.3 s, the server 0.3 s later
            time.sleep(0.3)
            with open(token_file, "w") as handle:
                handle.write("secret-token\n")
            time.sleep(0.3)
            started.append(FakeControlServer(port=port).__enter__())

        threading.Thread(target=start_later, daemon=True).start()
        self.addCleanup(lambda: [fake.__exit__(None, None, None) for fake in started])
        status = client.wait_ready(timeout_s=10, interval_s=0.05, progress=lines.append)
        self.assertEqual(status.next_rollout_id, 0)
        self.assertEqual(client.token, "secret-token")
        self.assertEqual(len(lines), 2, lines)
        self.assertIn("token file %s does not exist (yet)" % token_file, lines[0])
        self.assertIn("not reachable yet (GET http://127.0.0.1:%d/rollout/v1/status: " % port, lines[1])

    def test_a_wrong_token_raises_at_once_and_a_timeout_names_the_reason(self):
        with FakeControlServer() as fake:
            with self.assertRaises(RelaxApiError) as caught:
                RelaxClient(fake.url, token="wrong", timeout=5).wait_ready(timeout_s=10)
            self.assertEqual((caught.exception.status, caught.exception.code), (401, "unauthorized"))
            self.assertEqual(len(fake.requests), 1)
            fake.starting_answers = 1000
            from relax_client import RelaxConnectionError

            started = time.monotonic()
            with self.assertRaises(RelaxConnectionError) as timed_out:
                RelaxClient(fake.url, token="secret-token", timeout=5).wait_ready(timeout_s=0.3, interval_s=0.05)
            self.assertLess(time.monotonic() - started, 2)
            self.assertEqual(
                str(timed_out.exception),
                "relax serve at %s not ready after 0.3s: answers 503 backend_unavailable: relax serve is still starting" % fake.url,
            )


class TimingTest(ClientTestCase):
    def test_stream_timeout_breaks_a_silent_stream(self):
        from relax_client import RelaxConnectionError

        gate = threading.Event()
        self.addCleanup(gate.set)
        self.fake.step_scripts[0] = [STEP_START, gate]
        client = RelaxClient(self.fake.url, token="secret-token", stream_timeout=0.3)
        started = time.monotonic()
        with self.assertRaises(RelaxConnectionError):
            client.step(0).collect()
        self.assertLess(time.monotonic() - started, 3)


if __name__ == "__main__":
    unittest.main()
