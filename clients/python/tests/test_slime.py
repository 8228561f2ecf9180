import argparse
import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fake_control_server import FakeControlServer, make_row  # noqa: E402
from slime_model import RolloutFnEvalOutput, RolloutFnTrainOutput, Sample, flatten  # noqa: E402

from relax_client import RelaxApiError, RelaxClient, Row  # noqa: E402
from relax_client import slime as relax_slime  # noqa: E402

TYPES = relax_slime.SlimeTypes(Sample, RolloutFnTrainOutput, RolloutFnEvalOutput)
SUMMARY = {"groups": 2, "rows": 4, "dropped_groups": 0, "debt": 0, "resident_groups": 0, "wall_s": 1.5,
           "drops_by_reason": {}, "metrics": {"rollout/reward_mean": 0.5}}  # fmt: skip


def start(rollout_id=0):
    return {"type": "step_start", "rollout_id": rollout_id, "mode": "train", "groups": 2, "samples_per_group": 2, "weight_version": "v0"}


def end(rollout_id=0, summary=None):
    return {"type": "step_end", "rollout_id": rollout_id, "summary": summary or SUMMARY}


def rows_record(*rows, rollout_id=0):
    return [{"type": "row", "rollout_id": rollout_id, "row": row} for row in rows]


def check_sibling_rollout_ids(node, depth=0):
    """slime's rule: a list of samples at depth >= 2 with more than one entry must share one rollout_id."""
    if isinstance(node, Sample):
        return
    if node and isinstance(node[0], Sample):
        if depth >= 2 and len(node) > 1:
            ids = {sample.rollout_id for sample in node}
            assert None not in ids and len(ids) == 1, ids
        return
    for item in node:
        check_sibling_rollout_ids(item, depth + 1)


class AdapterTest(unittest.TestCase):
    def setUp(self):
        self.fake = FakeControlServer().__enter__()
        self.addCleanup(self.fake.__exit__, None, None, None)
        self.adapter = relax_slime.RelaxSlimeRollout(RelaxClient(self.fake.url, "secret-token"), TYPES)

    def test_single_context_step_becomes_groups_of_samples_in_group_and_sample_order(self):
        # Groups finish out of order; the adapter orders by group_index, then sample_index.
        g1s1 = make_row(session="s-3", group_index=1, prompt_index=5, sample_index=1, reward=0.0, advantage=-1.0)
        g1s0 = make_row(session="s-2", group_index=1, prompt_index=5, sample_index=0, reward=1.0, advantage=1.0)
        g0s0 = make_row(session="s-0", group_index=0, prompt_index=4, sample_index=0, status="truncated",
                        response=[40, 1079], mask=[1, 1], versions=["v0", "v1"],
                        spans=[{"version": "v0", "start": 0, "end": 1}, {"version": "v1", "start": 1, "end": 2}])  # fmt: skip
        g0s1 = make_row(session="s-1", group_index=0, prompt_index=4, sample_index=1, status="aborted", reward=None)
        self.fake.step_scripts[0] = [start(), *rows_record(g1s1, g1s0, g0s1, g0s0), end()]
        output = self.adapter.train(0)
        self.assertIsInstance(output, RolloutFnTrainOutput)
        self.assertEqual(output.metrics, {"rollout/reward_mean": 0.5, "relax/rows": 4, "relax/dropped_groups": 0})
        groups = output.samples
        self.assertEqual([[sample.session_id for sample in group] for group in groups], [["s-0", "s-1"], ["s-2", "s-3"]])
        self.assertEqual([[sample.rollout_id for sample in group] for group in groups], [[0, 1], [2, 3]])
        self.assertEqual([[sample.index for sample in group] for group in groups], [[0, 1], [2, 3]])
        self.assertEqual([[sample.group_index for sample in group] for group in groups], [[0, 0], [1, 1]])
        first = groups[0][0]
        self.assertEqual(first.tokens, [151644, 872, 198, 40, 1079])
        self.assertEqual((first.response_length, first.loss_mask, first.rollout_log_probs), (2, [1, 1], [-0.5, -0.5]))
        self.assertEqual((first.reward, first.status, first.weight_versions), (1.0, Sample.Status.TRUNCATED, ["v0", "v1"]))
        self.assertEqual(first.metadata, {
            "answer": "18",
            "relax": {"session_id": "s-0", "rollout_id": "r-s-0", "context_name": None, "request_class": "main",
                      "parent_state_hash": None, "turn_rewards": None, "turn_reward_positions": None, "state_hash": "h-s-0",
                      "prompt_index": 4, "sample_index": 0, "weight_version_spans": [["v0", 0, 1], ["v1", 1, 2]],
                      "abort_count": 0, "num_turns": 1, "stop_reason": "stop", "reward_details": {"format": 1.0},
                      "advantage": 0.5, "reward_filled": False, "group_index": 0, "partition": None,
                      "steps_lived": None, "weight_version_lag": None},
        })  # fmt: skip
        aborted = groups[0][1]
        self.assertEqual((aborted.status, aborted.reward, aborted.metadata["relax"]["reward_filled"]), (Sample.Status.ABORTED, 0.0, True))
        self.assertEqual([sample.reward for sample in groups[1]], [1.0, 0.0])
        self.assertEqual(len(flatten(groups)), 4)
        check_sibling_rollout_ids(groups)

    def test_multimodal_rows_carry_their_images_to_the_sample(self):
        images = [
            {"type": "image", "digest": "sha256:ab", "source": "data:image/png;base64,AQID", "format": "png",
             "original_size": {"height": 70, "width": 98}, "resized_size": {"height": 56, "width": 112},
             "image_grid_thw": [1, 4, 8], "num_tokens": 8},
            {"type": "image", "digest": "sha256:cd", "data": "BAUG", "format": "png",
             "original_size": {"height": 96, "width": 64}, "resized_size": {"height": 84, "width": 56},
             "image_grid_thw": [1, 6, 4], "num_tokens": 6},
        ]  # fmt: skip
        rows = [make_row(session="s-0", multimodal_train_inputs=images), make_row(session="s-1", sample_index=1)]
        for rollout_id in (0, 1, 2):
            self.fake.step_scripts[rollout_id] = [start(rollout_id), *rows_record(*rows, rollout_id=rollout_id), end(rollout_id)]
        # Without the model's image processor a vision step is refused: slime would train the image-pad
        # tokens without pixel values.
        with self.assertRaisesRegex(ValueError, "needs the model's processor"):
            self.adapter.train(0)
        seen = []

        def process_images(urls):
            seen.append(urls)
            return {"input_ids": [[1]], "pixel_values": "pixels of %d images" % len(urls), "image_grid_thw": [[1, 4, 8], [1, 6, 4]]}

        adapter = relax_slime.RelaxSlimeRollout(RelaxClient(self.fake.url, "secret-token"), TYPES, process_images=process_images)
        [[vision, text]] = adapter.train(1).samples
        self.assertEqual(seen, [["data:image/png;base64,AQID", "data:image/png;base64,BAUG"]])
        # The processor's output less input_ids / attention_mask, as slime's rollout keeps it.
        self.assertEqual(vision.multimodal_train_inputs, {"pixel_values": "pixels of 2 images", "image_grid_thw": [[1, 4, 8], [1, 6, 4]]})
        self.assertIsNone(text.multimodal_train_inputs)
        wrong = relax_slime.RelaxSlimeRollout(
            RelaxClient(self.fake.url, "secret-token"), TYPES,
            process_images=lambda urls: {"pixel_values": "p", "image_grid_thw": [[1, 8, 8], [1, 6, 4]]},
        )  # fmt: skip
        with self.assertRaisesRegex(ValueError, r"image_grid_thw \[\[1, 8, 8\], \[1, 6, 4\]\] differs from the row's \[\[1, 4, 8\], \[1, 6, 4\]\]"):
            wrong.train(2)
        self.assertEqual(vision.multimodal_inputs, {"image": ["data:image/png;base64,AQID", "data:image/png;base64,BAUG"]})
        self.assertEqual(vision.metadata["relax"]["multimodal_train_inputs"], images)
        self.assertIsNone(text.multimodal_inputs)
        self.assertNotIn("multimodal_train_inputs", text.metadata["relax"])
        self.assertEqual(Row.from_wire(rows[0]).to_dict()["multimodal_train_inputs"], images)
        self.assertNotIn("multimodal_train_inputs", Row.from_wire(rows[1]).to_dict())
        bad = make_row(multimodal_train_inputs=[dict(images[0], image_grid_thw=[1, 4])])
        with self.assertRaisesRegex(Exception, r"row.multimodal_train_inputs\[0\].image_grid_thw"):
            Row.from_wire(bad)

    def test_sibling_contexts_nest_per_session_and_share_the_rollout_id(self):
        main = make_row(session="s-0", group_index=0, sample_index=0, context_name="main", reward=1.0)
        searcher = make_row(session="s-0", group_index=0, sample_index=0, context_name="searcher", reward=None, response=[7, 8], mask=[1, 0])
        other = make_row(session="s-1", group_index=0, sample_index=1, context_name="main", reward=0.0)
        self.fake.step_scripts[0] = [start(), *rows_record(main, searcher, other), end()]
        groups = self.adapter.train(0).samples
        self.assertEqual(len(groups), 1)
        self.assertEqual([[sample.metadata["relax"]["context_name"] for sample in session] for session in groups[0]],
                         [["main", "searcher"], ["main"]])  # fmt: skip
        self.assertEqual([[sample.rollout_id for sample in session] for session in groups[0]], [[0, 0], [1]])
        self.assertEqual([[sample.index for sample in session] for session in groups[0]], [[0, 1], [2]])
        sibling = groups[0][0][1]
        self.assertEqual((sibling.reward, sibling.metadata["relax"]["reward_filled"]), (1.0, True))
        self.assertEqual((sibling.loss_mask, sibling.rollout_log_probs, sibling.response_length), ([1, 0], [-0.5, 0.0], 2))
        check_sibling_rollout_ids(groups)
        self.assertEqual([sample.metadata["relax"]["context_name"] for sample in flatten(groups)], ["main", "searcher", "main"])

    def test_nest_never_and_always_and_the_advantage_as_reward(self):
        rows = [Row.from_wire(make_row(session="s-0", advantage=0.75)), Row.from_wire(make_row(session="s-0", context_name="b", reward=None, advantage=0.25))]
        flat = relax_slime.rows_to_groups(rows, Sample, nest="never", reward_source="advantage")
        self.assertEqual([[sample.reward for sample in group] for group in flat], [[0.75, 0.25]])
        single = relax_slime.rows_to_groups(rows[:1], Sample, nest="always")
        self.assertEqual([[[sample.reward for sample in session] for session in group] for group in single], [[[1.0]]])
        with self.assertRaises(ValueError):
            relax_slime.rows_to_groups(rows, Sample, nest="deep")

    def test_eval_returns_rewards_truncated_and_samples_per_dataset(self):
        self.fake.eval_script = [
            {"type": "eval_row", "dataset": "gsm8k", "row": make_row(session="e-0", reward=1.0, advantage=0)},
            {"type": "eval_row", "dataset": "gsm8k", "row": make_row(session="e-1", reward=0.0, advantage=0, status="truncated")},
            {"type": "eval_end", "dataset": "gsm8k", "summary": {"reward_mean": 0.5}},
            {"type": "evals_end", "rollout_id": 4},
        ]  # fmt: skip
        output = self.adapter.evaluate(4)
        self.assertIsInstance(output, RolloutFnEvalOutput)
        self.assertEqual(list(output.data), ["gsm8k"])
        entry = output.data["gsm8k"]
        self.assertEqual((entry["rewards"], entry["truncated"]), ([1.0, 0.0], [False, True]))
        self.assertEqual([sample.session_id for sample in entry["samples"]], ["e-0", "e-1"])

    def test_a_step_without_rows_is_refused_with_the_drop_reasons(self):
        dropped = {"type": "group_dropped", "rollout_id": 0, "group_id": "g0-0", "prompt_index": 0, "reason": "agent_timeout", "message": ""}
        self.fake.step_scripts[0] = [start(), dropped, end()]
        with self.assertRaises(RuntimeError) as caught:
            self.adapter.train(0)
        self.assertEqual(str(caught.exception), "relax step 0 produced no rows (1 groups dropped: agent_timeout)")

    def test_a_rollout_id_the_server_does_not_expect_raises_409(self):
        with self.assertRaises(RelaxApiError) as caught:
            self.adapter.train(5)
        self.assertEqual((caught.exception.status, caught.exception.code), (409, "step_out_of_order"))

    def test_legacy_output_without_the_output_classes(self):
        adapter = relax_slime.RelaxSlimeRollout(RelaxClient(self.fake.url, "secret-token"), relax_slime.SlimeTypes(Sample))
        self.fake.step_scripts[0] = [start(), *rows_record(make_row()), end()]
        groups = adapter.train(0)
        self.assertEqual([[sample.session_id for sample in group] for group in groups], [["s-0"]])

    def test_generate_rollout_reads_url_and_token_from_args_and_env(self):
        relax_slime._ADAPTERS.clear()
        self.addCleanup(relax_slime._ADAPTERS.clear)
        self.fake.step_scripts[0] = [start(), *rows_record(make_row()), end()]
        self.fake.step_scripts[1] = [start(1), *rows_record(make_row(session="s-9"), rollout_id=1), end(1)]
        args = argparse.Namespace(relax_control_url=self.fake.url)
        with mock.patch.object(relax_slime, "load_slime_types", return_value=TYPES), \
                mock.patch.dict(os.environ, {"RELAX_CONTROL_TOKEN": "secret-token"}):  # fmt: skip
            first = relax_slime.generate_rollout(args, 0, data_source=None)
            second = relax_slime.generate_rollout(args, 1, None, evaluation=False)
        self.assertEqual([first.samples[0][0].session_id, second.samples[0][0].session_id], ["s-0", "s-9"])
        self.assertEqual(len(relax_slime._ADAPTERS), 1)

    def test_load_slime_types_raises_import_error_without_slime(self):
        try:
            import slime  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError):
                relax_slime.load_slime_types()
            return
        types = relax_slime.load_slime_types()
        self.assertEqual(types.sample.__name__, "Sample")


if __name__ == "__main__":
    unittest.main()
