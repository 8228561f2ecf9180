"""The slime adapter on rows written by real ``relax rollout`` runs (``tests/fixtures/relax-runs``, see the README
there: the example agents against the stand-in engine, a scripted policy, not a model), streamed by the fake
control server and taken through the model of slime's own conversion (``tests/slime_model.py``): a GSM8K run,
a fully-async run, a multi-agent run and a vision run."""

import argparse
import base64
import json
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fake_control_server import FakeControlServer  # noqa: E402
from slime_model import DataSource, RolloutFnEvalOutput, RolloutFnTrainOutput, Sample, convert_samples_to_train_data, flatten, log_eval_rollout_data  # noqa: E402,E501

from relax_client import RelaxClient  # noqa: E402
from relax_client import slime as relax_slime  # noqa: E402

TYPES = relax_slime.SlimeTypes(Sample, RolloutFnTrainOutput, RolloutFnEvalOutput)
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "relax-runs")
IMAGE_PAD = 151655  # Qwen's <|image_pad|>


def read_rows(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def slime_args(**overrides):
    values = dict(
        advantage_estimator="grpo", rewards_normalization=True, grpo_std_normalization=True, n_samples_per_prompt=2,
        rollout_batch_size=2, reward_key=None, label_key=None, rollout_top_p=1.0, num_rollout=None,
        custom_reward_post_process_path=None,
    )  # fmt: skip
    values.update(overrides)
    return argparse.Namespace(**values)


def script(rollout_id, rows, samples_per_group=2):
    """The records ``relax serve`` streams for a step with these rows (as its rows file holds them)."""
    groups = len({row["group_index"] for row in rows})
    start = {"type": "step_start", "rollout_id": rollout_id, "mode": "train", "groups": groups,
             "samples_per_group": samples_per_group, "weight_version": "v0"}  # fmt: skip
    summary = {"groups": groups, "rows": len(rows), "dropped_groups": 0, "debt": 0, "resident_groups": 0,
               "wall_s": 1.0, "drops_by_reason": {}, "metrics": {}}  # fmt: skip
    records = [{"type": "row", "rollout_id": rollout_id, "row": row} for row in rows]
    return [start, *records, {"type": "step_end", "rollout_id": rollout_id, "summary": summary}]


def in_slime_order(rows):
    """The order the adapter hands slime a step's rows: by Group, then by sample within it."""
    return sorted(rows, key=lambda row: (row["group_index"], row["sample_index"]))


def decode(ids):
    return " ".join(str(i) for i in ids)


def png_size(url):
    """(height, width) from a PNG data URL's IHDR chunk."""
    data = base64.b64decode(url.split(",", 1)[1])
    width, height = struct.unpack(">II", data[16:24])
    return height, width


def qwen2vl_grid(url, factor=28):
    """The grid Qwen2-VL's processor gives an image (``smart_resize`` to multiples of patch 14 × merge 2, within
    the example's pixel bounds, which these small images never reach)."""
    height, width = png_size(url)
    resized = [max(factor, round(side / factor) * factor) for side in (height, width)]
    return [1, resized[0] // 14, resized[1] // 14]


class RealRunsTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeControlServer().__enter__()
        self.addCleanup(self.fake.__exit__, None, None, None)

    def adapter(self, args, **options):
        client = RelaxClient(self.fake.url, "secret-token")
        return relax_slime.RelaxSlimeRollout(client, TYPES, args=args, decode=decode, **options)

    def assert_trains_as_the_rows(self, data, rows):
        """What slime trains on is the rows' tokens, masks and logprobs, in slime order."""
        self.assertEqual(data["tokens"], [row["tokens"] for row in rows])
        self.assertEqual(data["loss_masks"], [row["loss_mask"] for row in rows])
        self.assertEqual(data["response_lengths"], [row["response_length"] for row in rows])
        self.assertEqual(data["rollout_log_probs"], [row["rollout_log_probs"] for row in rows])
        self.assertEqual(data["truncated"], [int(row["status"] == "truncated") for row in rows])

    def test_gsm8k_run_trains_with_slime_grpo_equal_to_the_relax_advantages(self):
        args = slime_args(label_key="answer", num_rollout=2)
        steps = [read_rows("gsm8k-0.jsonl"), read_rows("gsm8k-1.jsonl")]
        for rollout_id, rows in enumerate(steps):
            self.fake.step_scripts[rollout_id] = script(rollout_id, rows)
        adapter, source = self.adapter(args), DataSource()
        samples = [flatten(adapter.train(rollout_id, source).samples) for rollout_id in range(2)]
        self.assertEqual([sample.index for sample in samples[0] + samples[1]], list(range(8)))
        self.assertEqual([sample.group_index for sample in samples[0] + samples[1]], [0, 0, 1, 1, 2, 2, 3, 3])
        for step, rows in zip(samples, steps):
            rows = in_slime_order(rows)
            self.assertEqual([sample.session_id for sample in step], [row["session_id"] for row in rows])
            first, row = step[0], rows[0]
            self.assertEqual(first.prompt, decode(row["tokens"][: row["prompt_length"]]))
            self.assertEqual(first.response, decode(row["tokens"][row["prompt_length"]:]))
            self.assertEqual([sample.label for sample in step], [row["metadata"]["answer"] for row in rows])
            data = convert_samples_to_train_data(args, step)
            self.assert_trains_as_the_rows(data, rows)
            self.assertEqual(data["raw_reward"], [row["reward"] for row in rows])
            # slime's per-Group GRPO (mean, sample std + 1e-6) gives what Relax wrote as each row's advantage.
            for got, want in zip(data["rewards"], [row["advantage"] for row in rows]):
                self.assertAlmostEqual(got, want, places=9)
        # The second step: Groups [0, 1] and [1, 0]; the first step was all correct (advantages 0).
        self.assertEqual(convert_samples_to_train_data(args, samples[1])["raw_reward"], [0, 1, 1, 0])

    def test_fully_async_run_gives_slime_a_full_batch_each_step_numbered_across_the_run(self):
        # relax rollout --fully-async --partial-rollout --agentic-prelaunch, B = 2, n = 2, 3 steps (long-tail agent).
        args = slime_args(num_rollout=3)
        steps = [read_rows("longtail-%d.jsonl" % rollout_id) for rollout_id in range(3)]
        self.assertEqual([len(rows) for rows in steps], [4, 4, 4])
        for rollout_id, rows in enumerate(steps):
            self.fake.step_scripts[rollout_id] = script(rollout_id, rows)
        adapter, source = self.adapter(args), DataSource()
        for rollout_id, rows in enumerate(steps):
            groups = adapter.train(rollout_id, source).samples
            rows = in_slime_order(rows)
            self.assertEqual([[sample.group_index for sample in group] for group in groups],
                             [[2 * rollout_id, 2 * rollout_id], [2 * rollout_id + 1, 2 * rollout_id + 1]])  # fmt: skip
            relax = [sample.metadata["relax"] for sample in flatten(groups)]
            self.assertEqual([item["group_index"] for item in relax], [row["group_index"] for row in rows])
            self.assertEqual([item["partition"] for item in relax], [rollout_id] * 4)
            self.assertEqual([item["steps_lived"] for item in relax], [row["steps_lived"] for row in rows])
            self.assertEqual([item["weight_version_lag"] for item in relax], [0] * 4)
            data = convert_samples_to_train_data(args, flatten(groups))
            self.assert_trains_as_the_rows(data, rows)
            for got, want in zip(data["rewards"], [row["advantage"] for row in rows]):
                self.assertAlmostEqual(got, want, places=9)
        # Groups started a step early (prelaunched) trained in the next step's batch.
        self.assertEqual([row["steps_lived"] for row in steps[1]], [[0, 1]] * 4)
        self.assertEqual((source.sample_group_index, source.sample_index), (6, 12))
        bodies = [json.loads(request["body"]) for request in self.fake.requests if request["path"] == "/rollout/v1/steps"]
        self.assertEqual(bodies, [{"rollout_id": 0}, {"rollout_id": 1}, {"rollout_id": 2, "last_step": True}])

    def test_multi_agent_run_trains_each_context_with_the_relax_credit(self):
        rows = read_rows("multi-agent-0.jsonl")
        self.fake.step_scripts[0] = script(0, rows)
        with self.assertRaisesRegex(ValueError, "relax_client.slime.reward_post_process"):
            self.adapter(slime_args(rollout_batch_size=1)).train(0)
        self.fake.next_rollout_id = 0
        args = slime_args(rollout_batch_size=1, custom_reward_post_process_path="relax_client.slime.reward_post_process")
        [group] = self.adapter(args).train(0).samples
        # One Group of 2 sessions, each a list of its 3 contexts sharing one slime rollout_id.
        self.assertEqual([[sample.metadata["relax"]["context_name"] for sample in session] for session in group],
                         [["main", "searcher_0", "searcher_1"]] * 2)  # fmt: skip
        self.assertEqual([[sample.rollout_id for sample in session] for session in group], [[0, 0, 0], [1, 1, 1]])
        samples = flatten(group)
        by_context = {(row["session_id"], row["context_name"]): row for row in rows}
        ordered = [by_context[(sample.session_id, sample.metadata["relax"]["context_name"])] for sample in samples]
        data = convert_samples_to_train_data(args, samples, custom_post=relax_slime.reward_post_process)
        self.assert_trains_as_the_rows(data, ordered)
        # The example's credit: main ±1, each searcher ±0.25 (its session's outcome); the main reward on all.
        self.assertEqual(data["rewards"], [row["advantage"] for row in ordered])
        self.assertEqual(data["rewards"], [-1, -0.25, -0.25, 1, 0.25, 0.25])
        self.assertEqual(data["raw_reward"], [0, 0, 0, 1, 1, 1])
        self.assertEqual(data["rollout_ids"], [0, 0, 0, 1, 1, 1])

    def test_vision_run_reaches_train_data_with_processor_inputs_matching_the_image_pads(self):
        rows = read_rows("vision-0.jsonl")
        self.fake.step_scripts[0] = script(0, rows)
        calls = []

        def process_images(urls):
            calls.append(len(urls))
            return {"input_ids": [[0]], "pixel_values": [png_size(url) for url in urls],
                    "image_grid_thw": [qwen2vl_grid(url) for url in urls]}  # fmt: skip

        args = slime_args(rollout_batch_size=1)
        samples = flatten(self.adapter(args, process_images=process_images).train(0).samples)
        self.assertEqual(calls, [2, 2])
        rows = in_slime_order(rows)
        data = convert_samples_to_train_data(args, samples)
        self.assert_trains_as_the_rows(data, rows)
        # The screenshot (84×112) and its zoomed half (42×112, resized to 56×112), as the processor sees them.
        expected = {"pixel_values": [(84, 112), (42, 112)], "image_grid_thw": [[1, 6, 8], [1, 4, 8]]}
        self.assertEqual(data["multimodal_train_inputs"], [expected, expected])
        # tokens hold one pad per merged patch: 6·8/4 + 4·8/4 = 20, as the rows' num_tokens say.
        for row in rows:
            self.assertEqual(row["tokens"].count(IMAGE_PAD), 20)
            self.assertEqual([image["num_tokens"] for image in row["multimodal_train_inputs"]], [12, 8])
        self.assertEqual(data["raw_reward"], [0, 0])
        self.assertEqual(data["rewards"], [0.0, 0.0])

    def test_eval_with_an_eval_function_logs_what_it_returned(self):
        # The eval_end of `relax serve --eval-function-path` (the grade function of apps/gateway/test/fixtures).
        rows = read_rows("gsm8k-0.jsonl")
        returned = {"data": {"gsm8k_graded": {"rewards": [1, 0, 1, 1], "truncated": [False, False, True, False]}},
                    "metrics": {"eval/gsm8k/graded_rows": 4}}  # fmt: skip
        self.fake.eval_script = [
            *[{"type": "eval_row", "dataset": "gsm8k", "row": row} for row in rows],
            {"type": "eval_end", "dataset": "gsm8k", "summary": {"rows": 4, "metrics": {}, "eval_function": returned}},
            {"type": "evals_end", "rollout_id": 1},
        ]  # fmt: skip
        output = self.adapter(slime_args()).evaluate(1)
        self.assertEqual(list(output.data), ["gsm8k", "gsm8k_graded"])
        self.assertEqual(output.data["gsm8k"]["rewards"], [row["reward"] for row in rows])
        self.assertEqual(output.data["gsm8k_graded"], {"rewards": [1, 0, 1, 1], "truncated": [False, False, True, False]})
        self.assertEqual(output.metrics, {"eval/gsm8k/graded_rows": 4})
        self.assertEqual(log_eval_rollout_data(output.data, output.metrics), {
            "eval/gsm8k/graded_rows": 4, "eval/gsm8k": 1.0, "eval/gsm8k-truncated_ratio": 0.0,
            "eval/gsm8k_graded": 0.75, "eval/gsm8k_graded-truncated_ratio": 0.25,
        })  # fmt: skip


if __name__ == "__main__":
    unittest.main()
