"""The slime adapter's output through a model of slime's own conversion (tests/slime_model.py, written from
slime's source): what slime would train on for a GSM8K-like run, a fully-async run, a restart from an older
checkpoint and a multi-agent run."""

import argparse
import json
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fake_control_server import FakeControlServer, make_row  # noqa: E402
from slime_model import DataSource, Sample, convert_samples_to_train_data, flatten  # noqa: E402

from relax_client import RelaxClient  # noqa: E402
from relax_client import slime as relax_slime  # noqa: E402

TYPES = relax_slime.SlimeTypes(Sample)
SQRT_HALF = 1 / math.sqrt(2)


def slime_args(**overrides):
    values = dict(
        advantage_estimator="grpo", rewards_normalization=True, grpo_std_normalization=True, n_samples_per_prompt=2,
        rollout_batch_size=2, reward_key=None, label_key="answer", rollout_top_p=1.0, num_rollout=2,
        custom_reward_post_process_path=None,
    )  # fmt: skip
    values.update(overrides)
    return argparse.Namespace(**values)


def script(rollout_id, rows):
    start = {"type": "step_start", "rollout_id": rollout_id, "mode": "train", "groups": 2, "samples_per_group": 2, "weight_version": "v0"}
    summary = {"groups": 2, "rows": len(rows), "dropped_groups": 0, "debt": 0, "resident_groups": 0, "wall_s": 1.0,
               "drops_by_reason": {}, "metrics": {}}  # fmt: skip
    records = [{"type": "row", "rollout_id": rollout_id, "row": row} for row in rows]
    return [start, *records, {"type": "step_end", "rollout_id": rollout_id, "summary": summary}]


def batch(rollout_id, rewards, group_indices=(0, 1), **row_fields):
    """2 Groups × 2 samples; ``rewards`` per Group."""
    rows = []
    for group, (index, pair) in enumerate(zip(group_indices, rewards)):
        for sample, reward in enumerate(pair):
            session = "s%d-%d-%d" % (rollout_id, group, sample)
            rows.append(make_row(session=session, group_index=index, prompt_index=group, sample_index=sample, reward=reward,
                                 advantage=0.25 * (group + sample), **row_fields))  # fmt: skip
    return rows


def decode(ids):
    return " ".join(str(i) for i in ids)


class SlimeConversionTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeControlServer().__enter__()
        self.addCleanup(self.fake.__exit__, None, None, None)

    def adapter(self, args):
        return relax_slime.RelaxSlimeRollout(RelaxClient(self.fake.url, "secret-token"), TYPES, args=args, decode=decode)

    def test_gsm8k_steps_train_with_per_group_normalisation_and_run_wide_indices(self):
        args = slime_args()
        self.fake.step_scripts[0] = script(0, batch(0, [[1.0, 0.0], [1.0, 1.0]]))
        self.fake.step_scripts[1] = script(1, batch(1, [[0.0, 1.0], [0.0, 0.0]]))
        adapter, source = self.adapter(args), DataSource()
        step0 = flatten(adapter.train(0, source))
        step1 = flatten(adapter.train(1, source))
        # slime's data-source counters, advanced across steps (and saved with slime's checkpoints).
        self.assertEqual([sample.index for sample in step0 + step1], list(range(8)))
        self.assertEqual([sample.group_index for sample in step0 + step1], [0, 0, 1, 1, 2, 2, 3, 3])
        self.assertEqual((source.sample_group_index, source.sample_index), (4, 8))
        first = step0[0]
        self.assertEqual((first.prompt, first.response, first.label), ("151644 872 198", "40 1079 13 151645", "18"))
        # The last step (num_rollout 2) says so: nothing is prelaunched after it.
        bodies = [json.loads(request["body"]) for request in self.fake.requests if request["path"] == "/rollout/v1/steps"]
        self.assertEqual(bodies, [{"rollout_id": 0}, {"rollout_id": 1, "last_step": True}])
        data = convert_samples_to_train_data(args, step0)
        # n × B samples: slime normalises per Group of n (GRPO: mean, then sample std + 1e-6).
        expected = [0.5 / (SQRT_HALF + 1e-6), -0.5 / (SQRT_HALF + 1e-6), 0.0, 0.0]
        for got, want in zip(data["rewards"], expected):
            self.assertAlmostEqual(got, want, places=6)
        self.assertEqual(data["raw_reward"], [1.0, 0.0, 1.0, 1.0])
        self.assertEqual(data["sample_indices"], [0, 1, 2, 3])
        self.assertEqual(data["rollout_ids"], [0, 1, 2, 3])
        self.assertEqual(data["loss_masks"], [[1, 1, 1, 1]] * 4)
        self.assertEqual(data["rollout_log_probs"], [[-0.5] * 4] * 4)
        self.assertNotIn("multimodal_train_inputs", data)

    def test_reward_key_gives_the_dict_slime_reads_with_get_reward_value(self):
        args = slime_args(reward_key="score", num_rollout=None)
        self.fake.step_scripts[0] = script(0, batch(0, [[1.0, 0.0], [0.5, 0.5]]))
        samples = flatten(self.adapter(args).train(0))
        self.assertEqual(samples[0].reward, {"score": 1.0, "format": 1.0})
        data = convert_samples_to_train_data(args, samples)
        self.assertEqual(data["raw_reward"], [1.0, 0.0, 0.5, 0.5])

    def test_fully_async_steps_renumber_groups_in_order_and_keep_the_partition(self):
        args = slime_args()
        # Under --fully-async the server's Group indices count across the run and a step's batch may hold
        # Groups started earlier (queued or resident): 7 was started in step 0, 9 in step 1.
        lived = {"partition": 1, "steps_lived": [0, 1], "weight_version_lag": 1}
        rows = batch(1, [[0.0, 1.0], [1.0, 1.0]], group_indices=(9, 7), **lived)
        self.fake.next_rollout_id = 1
        self.fake.step_scripts[1] = script(1, rows)
        source = DataSource(sample_group_index=2, sample_index=4)
        groups = self.adapter(args).train(1, source)
        self.assertEqual([[sample.metadata["relax"]["group_index"] for sample in group] for group in groups], [[7, 7], [9, 9]])
        self.assertEqual([[sample.group_index for sample in group] for group in groups], [[2, 2], [3, 3]])
        self.assertEqual([sample.index for sample in flatten(groups)], [4, 5, 6, 7])
        relax = groups[0][0].metadata["relax"]
        self.assertEqual((relax["partition"], relax["steps_lived"], relax["weight_version_lag"]), (1, [0, 1], 1))
        data = convert_samples_to_train_data(args, flatten(groups))
        # Still n × B samples: Group 7 ([1, 1]) normalises to 0, Group 9 ([0, 1]) to ∓0.7071.
        expected = [0.0, 0.0, -0.5 / (SQRT_HALF + 1e-6), 0.5 / (SQRT_HALF + 1e-6)]
        for got, want in zip(data["rewards"], expected):
            self.assertAlmostEqual(got, want, places=6)

    def test_a_trainer_resumed_from_an_older_checkpoint_gets_the_same_batches_again(self):
        args = slime_args(num_rollout=3)
        self.fake.step_scripts[0] = script(0, batch(0, [[1.0, 0.0], [0.0, 0.0]]))
        self.fake.step_scripts[1] = script(1, batch(1, [[1.0, 1.0], [0.0, 1.0]]))
        first = self.adapter(args)
        source = DataSource()
        first.train(0, source)
        saved = (source.sample_group_index, source.sample_index)  # slime's checkpoint after step 0
        before = convert_samples_to_train_data(args, flatten(first.train(1, source)))
        # A new trainer process from the step-0 checkpoint asks step 1 again: the server replays it.
        resumed = self.adapter(args)
        after = convert_samples_to_train_data(args, flatten(resumed.train(1, DataSource(*saved))))
        self.assertEqual(after, before)
        self.assertEqual(self.fake.next_rollout_id, 2)

    def test_multi_agent_rows_are_refused_under_slime_normalisation_and_trained_with_relax_credit(self):
        rows = [
            make_row(session="s-0", group_index=0, sample_index=0, context_name="main", reward=1.0, advantage=0.5),
            make_row(session="s-0", group_index=0, sample_index=0, context_name="searcher", reward=None, advantage=0.125),
            make_row(session="s-1", group_index=0, sample_index=1, context_name="main", reward=0.0, advantage=-0.5),
        ]
        self.fake.step_scripts[0] = script(0, rows)
        with self.assertRaisesRegex(ValueError, "relax_client.slime.reward_post_process"):
            self.adapter(slime_args()).train(0)
        args = slime_args(custom_reward_post_process_path="relax_client.slime.reward_post_process")
        self.fake.next_rollout_id = 0
        samples = flatten(self.adapter(args).train(0))
        data = convert_samples_to_train_data(args, samples, custom_post=relax_slime.reward_post_process)
        # 3 rows for n × B = 4: slime alone would normalise the whole batch with the main reward.
        self.assertEqual(data["rewards"], [0.5, 0.125, -0.5])
        self.assertEqual(data["raw_reward"], [1.0, 1.0, 0.0])
        self.assertEqual(data["rollout_ids"], [0, 0, 1])

    def test_a_vision_step_reaches_train_data_with_the_processor_inputs(self):
        image = {"type": "image", "digest": "sha256:ab", "source": "data:image/png;base64,AQID", "format": "png",
                 "original_size": {"height": 70, "width": 98}, "resized_size": {"height": 56, "width": 112},
                 "image_grid_thw": [1, 4, 8], "num_tokens": 8}  # fmt: skip
        rows = batch(0, [[1.0, 0.0], [0.0, 0.0]], multimodal_train_inputs=[image])
        rows[3].pop("multimodal_train_inputs")  # a text-only sample in the same step
        self.fake.step_scripts[0] = script(0, rows)
        args = slime_args()
        adapter = relax_slime.RelaxSlimeRollout(
            RelaxClient(self.fake.url, "secret-token"), TYPES, args=args,
            process_images=lambda urls: {"pixel_values": [[0.5] * 4] * len(urls), "image_grid_thw": [[1, 4, 8]] * len(urls)},
        )  # fmt: skip
        data = convert_samples_to_train_data(args, flatten(adapter.train(0)))
        self.assertEqual(data["multimodal_train_inputs"], [{"pixel_values": [[0.5] * 4], "image_grid_thw": [[1, 4, 8]]}] * 3 + [None])
        self.assertEqual(data["raw_reward"], [1.0, 0.0, 0.0, 0.0])

    def test_top_p_below_one_is_refused_up_front(self):
        with self.assertRaisesRegex(ValueError, "--rollout-top-p 0.9 is not supported"):
            self.adapter(slime_args(rollout_top_p=0.9))
        # What slime's conversion would do with such samples: fail on the missing replay ids.
        with self.assertRaises(AssertionError):
            convert_samples_to_train_data(slime_args(rollout_top_p=0.9), [Sample(response_length=1, loss_mask=[1], reward=1.0)])


if __name__ == "__main__":
    unittest.main()
