"""The trainer loop against the client's fake control server: call order, versions, checkpoints (runs today)."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "clients", "python"))
sys.path.insert(0, os.path.join(REPO, "clients", "python", "tests"))

import trainer  # noqa: E402
from fake_control_server import FakeControlServer, make_row  # noqa: E402

from relax_client import RelaxClient  # noqa: E402


def script(rollout_id, version, prompts):
    records = [{"type": "step_start", "rollout_id": rollout_id, "mode": "train", "groups": len(prompts), "samples_per_group": 1, "weight_version": version}]
    for group, prompt in enumerate(prompts):
        row = make_row(session="s-%d-%d" % (rollout_id, group), group_index=group, prompt_index=prompt, versions=[version], reward=float(group))
        records.append({"type": "row", "rollout_id": rollout_id, "row": row})
    summary = {"groups": len(prompts), "rows": len(prompts), "dropped_groups": 0, "debt": 0, "resident_groups": 0, "wall_s": 0.1, "drops_by_reason": {}, "metrics": {}}
    records.append({"type": "step_end", "rollout_id": rollout_id, "summary": summary})
    return records


class TrainerAgainstFakeServerTest(unittest.TestCase):
    def test_two_steps_rollout_train_pause_load_resume(self):
        with FakeControlServer() as fake, tempfile.TemporaryDirectory() as checkpoints:
            fake.step_scripts = {0: script(0, "v0", [0, 1]), 1: script(1, "v1", [2, 3])}
            log = []

            class Log:
                def write(self, text):
                    log.append(json.loads(text))

                def flush(self):
                    pass

            client = RelaxClient(fake.url, fake.token)
            reports = trainer.run_trainer(client, steps=2, checkpoint_dir=checkpoints, log=Log())
            calls = [(request["path"], json.loads(request["body"]) if request["body"] else None) for request in fake.requests]
            self.assertEqual(calls, [
                ("/rollout/v1/status", None),
                ("/rollout/v1/steps", {"rollout_id": 0, "weight_version": "v0"}),
                ("/rollout/v1/pause", {}),
                ("/rollout/v1/weights", {"model_path": os.path.join(checkpoints, "step-0"), "weight_version": "v1", "load_format": None, "flush_cache": True}),
                ("/rollout/v1/resume", {"weight_version": "v1"}),
                ("/rollout/v1/steps", {"rollout_id": 1, "weight_version": "v1"}),
                ("/rollout/v1/pause", {}),
                ("/rollout/v1/weights", {"model_path": os.path.join(checkpoints, "step-1"), "weight_version": "v2", "load_format": None, "flush_cache": True}),
                ("/rollout/v1/resume", {"weight_version": "v2"}),
            ])  # fmt: skip
            self.assertEqual([[row.prompt_index for row in report.rows] for report in reports], [[0, 1], [2, 3]])
            self.assertEqual([report.stats["trained_tokens"] for report in reports], [8, 8])
            self.assertEqual([report.stats["reward_mean"] for report in reports], [0.5, 0.5])
            with open(os.path.join(checkpoints, "step-1", "standin-checkpoint.json"), encoding="utf-8") as handle:
                self.assertEqual(json.load(handle)["weight_version"], "v2")
            self.assertEqual([(line["rollout_id"], line["weight_version"], line["next_weight_version"]) for line in log],
                             [(0, "v0", "v1"), (1, "v1", "v2")])  # fmt: skip
            self.assertEqual(fake.weight_version, "v2")

    def test_start_version_from_the_server_status(self):
        with FakeControlServer() as fake, tempfile.TemporaryDirectory() as checkpoints:
            fake.weight_version = "v7"
            fake.next_rollout_id = 4
            fake.step_scripts = {4: script(4, "v7", [8])}
            report = trainer.run_trainer(RelaxClient(fake.url, fake.token), steps=1, checkpoint_dir=checkpoints)[0]
            self.assertEqual((report.rollout_id, report.weight_version, report.update.resume.weight_version), (4, "v7", "v8"))


if __name__ == "__main__":
    unittest.main()
