"""Rows of trained side requests (a compaction context, ``request_class``) and per-turn rewards, through the
client's ``Row`` and the slime adapter (docs/contract.md#side-contexts, docs/contract.md#per-turn-rewards)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fake_control_server import make_row  # noqa: E402
from slime_model import Sample as StandInSample  # noqa: E402

from relax_client import RelaxProtocolError, Row  # noqa: E402
from relax_client import slime as relax_slime  # noqa: E402


def session_rows():
    """Session s-0: its main row (two turns, per-turn rewards) and its compaction side row; session s-1: main."""
    main = make_row(
        session="s-0", sample_index=0, reward=1.0, advantage=0.5, response=[40, 1079, 13, 151645, 9, 9, 7, 151645],
        mask=[1, 1, 1, 1, 0, 0, 1, 1], turn_rewards=[0.25, None], turn_reward_positions=[3, 7], num_turns=2,
    )  # fmt: skip
    side = make_row(
        session="s-0", sample_index=0, reward=1.0, advantage=0.5, context_name="compaction:0",
        request_class="compaction", parent_state_hash="ab" * 32, response=[11, 151645],
    )  # fmt: skip
    other = make_row(session="s-1", sample_index=1, reward=0.0, advantage=-0.5)
    return [main, side, other]


class SideContextRowsTest(unittest.TestCase):
    def test_rows_say_their_request_class_and_parent_turn(self):
        main, side, other = [Row.from_wire(row) for row in session_rows()]
        self.assertEqual([row.request_class for row in (main, side, other)], ["main", "compaction", "main"])
        self.assertEqual((side.parent_state_hash, main.parent_state_hash), ("ab" * 32, None))
        self.assertNotIn("request_class", side.extra)
        # Back to the wire: the side row keeps its fields, a main row carries none of them.
        self.assertEqual(side.to_dict(), session_rows()[1])
        self.assertEqual(other.to_dict(), session_rows()[2])

    def test_rows_of_agent_contexts_say_their_segment_kind_and_round_trip(self):
        first = make_row(session="s-0", sample_index=0, reward=1.0, advantage=0.5, context_name=None)
        first["segment_kind"] = "agent"
        row = Row.from_wire(first)
        self.assertEqual(row.segment_kind, "agent")
        self.assertNotIn("segment_kind", row.extra)
        self.assertEqual(row.to_dict(), first)
        self.assertIsNone(Row.from_wire(session_rows()[2]).segment_kind)
        self.assertNotIn("segment_kind", Row.from_wire(session_rows()[2]).to_dict())

    def test_per_turn_rewards_are_checked_and_placed_on_the_response(self):
        main = Row.from_wire(session_rows()[0])
        self.assertEqual((main.turn_rewards, main.turn_reward_positions), ([0.25, None], [3, 7]))
        self.assertEqual(main.turn_reward_tokens(), [0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 0.0])
        self.assertEqual(Row.from_wire(make_row()).turn_reward_tokens(), [0.0, 0.0, 0.0, 0.0])
        bad = [
            ({"turn_rewards": [1.0]}, "row.turn_rewards: comes without turn_rewards / turn_reward_positions"),
            ({"turn_rewards": [1.0, 2.0], "turn_reward_positions": [0, 1]}, "row.turn_rewards: has 2 entries, expected num_turns 1"),
            ({"turn_rewards": ["x"], "turn_reward_positions": [0]}, r"row.turn_rewards\[0\]: must be a finite number or null"),
            ({"turn_rewards": [1.0], "turn_reward_positions": [4]}, r"row.turn_reward_positions\[0\]: 4 is outside the response"),
        ]  # fmt: skip
        for fields, message in bad:
            with self.assertRaisesRegex(RelaxProtocolError, message):
                Row.from_wire(make_row(num_turns=1, **fields))

    def test_the_slime_adapter_nests_the_side_row_with_its_session_and_keeps_the_fields(self):
        rows = [Row.from_wire(row) for row in session_rows()]
        groups = relax_slime.rows_to_groups(rows, StandInSample, reward_source="advantage")
        self.assertEqual([[s.metadata["relax"]["request_class"] for s in session] for session in groups[0]],
                         [["main", "compaction"], ["main"]])  # fmt: skip
        self.assertEqual([[s.rollout_id for s in session] for session in groups[0]], [[0, 0], [1]])
        main, side = groups[0][0]
        self.assertEqual((side.reward, side.metadata["relax"]["parent_state_hash"]), (0.5, "ab" * 32))
        self.assertEqual(main.metadata["relax"]["turn_rewards"], [0.25, None])
        self.assertEqual(relax_slime.turn_reward_tokens(main), [0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 0.0])
        self.assertEqual(relax_slime.turn_reward_tokens(side), [0.0, 0.0])


if __name__ == "__main__":
    unittest.main()
