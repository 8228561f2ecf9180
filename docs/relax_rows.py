#!/usr/bin/env python3
"""Read Relax training rows (JSONL written by @relax/export) into Python lists or NumPy arrays.

Standard library only; NumPy is imported lazily by ``to_numpy``. Python 3.8+.

Each line is one exported context of one session. The per-token arrays ``loss_mask``,
``rollout_log_probs`` and ``advantages`` have ``response_length`` entries and are aligned to
``tokens[prompt_length:]``. The JSON Schema is ``packages/export/schema/training-row.schema.json``.

Usage as a library::

    from relax_rows import read_rows, to_columns, to_numpy
    rows = read_rows("rows.jsonl")            # list of dicts, validated
    batch = to_columns(rows)                  # dict of lists, one entry per row
    arrays = to_numpy(rows)                   # same, with per-row NumPy arrays

Rows of multimodal sessions also carry ``multimodal_train_inputs``: one entry per image in prompt
order (``digest``, ``source`` URL or inline base64 ``data``, ``format``, ``original_size``,
``resized_size``, ``image_grid_thw``, ``num_tokens``). Their ``tokens`` are training ids, with each
image expanded to ``num_tokens`` image-pad tokens; ``image_bytes(entry)`` returns an entry's bytes for
the trainer's processor and ``image_grid_thw(row)`` the ``[t, h, w]`` rows it must reproduce.

Rows of trained side requests (``--request-class-policy compaction=train``, sub-agents) carry
``request_class`` (``compaction``, ``subagent``, …; absent means the session's own, ``main``) and
``parent_state_hash`` (the main-loop turn the side request came after); ``request_class(row)`` reads it.
Rows with per-turn rewards carry ``turn_rewards`` (one per response turn, ``None`` for a turn without
one) and ``turn_reward_positions`` (each turn's last generated token, relative to ``prompt_length``);
``turn_reward_tokens(row)`` places them on the response (``response_length`` floats).

Usage from a shell (prints a JSON summary; exit status 1 on a bad row)::

    python3 relax_rows.py rows.jsonl [--numpy]

A torn last line (a crash while the writer was appending it: no final newline and not valid JSON) is
skipped with a ``TornLineWarning`` (and counted in the summary's ``torn_lines``) instead of failing the
file; every earlier, complete row is kept. A bad line anywhere else is still an error.
"""

import base64
import json
import math
import sys
import warnings

__all__ = [
    "RowFormatError",
    "TornLineWarning",
    "ROW_FIELDS",
    "OPTIONAL_ROW_FIELDS",
    "iter_rows",
    "read_rows",
    "read_rows_report",
    "validate_row",
    "to_columns",
    "to_numpy",
    "summarize",
    "image_bytes",
    "image_grid_thw",
]

# Field name -> accepted Python types after json.loads (bool is excluded from numbers explicitly).
ROW_FIELDS = {
    "tokens": list,
    "loss_mask": list,
    "rollout_log_probs": list,
    "advantage": (int, float),
    "advantages": list,
    "reward": (int, float, type(None)),
    "reward_details": dict,
    "response_length": int,
    "prompt_length": int,
    "status": str,
    "weight_versions": list,
    "weight_version_spans": list,
    "abort_count": int,
    "rollout_id": str,
    "group_index": int,
    "prompt_index": int,
    "sample_index": int,
    "session_id": str,
    "context_name": (str, type(None)),
    "state_hash": str,
    "num_turns": int,
    "stop_reason": str,
    "metadata": dict,
}

# Optional fields added after the first row format (absent in rows from older writers): the per-turn
# request kinds, the train step whose batch the row fills (partition), the train steps a sample's Group lived through, the off-policy distance, where
# the reward came from (reward_source, a dict with a ``kind``), the images of a multimodal lineage, and what split a
# session into sibling contexts (segment_kind: a compaction or an agent switch); to_columns gives None for a row without them.
OPTIONAL_ROW_FIELDS = {
    "request_kinds": list,
    "partition": int,
    "steps_lived": list,
    "weight_version_lag": int,
    "reward_source": dict,
    "multimodal_train_inputs": list,
    "request_class": str,
    "parent_state_hash": str,
    "turn_rewards": list,
    "turn_reward_positions": list,
    "segment_kind": str,
}
REQUEST_KINDS = ("fresh", "resumed", "protected")
REWARD_SOURCE_KINDS = ("agent_output", "reward_function", "group_reward_function", "none")
SEGMENT_KINDS = ("compaction", "agent")

STATUSES = ("completed", "truncated", "aborted", "failed")


def _validate_image(entry, line, path):
    if not isinstance(entry, dict) or entry.get("type") != "image":
        raise RowFormatError(line, path, "must be an image object")
    for name in ("digest", "format"):
        if not isinstance(entry.get(name), str):
            raise RowFormatError(line, "%s.%s" % (path, name), "must be a string")
    if not isinstance(entry.get("source"), str) and not isinstance(entry.get("data"), str):
        raise RowFormatError(line, path, "needs a source URL or inline data")
    for name in ("original_size", "resized_size"):
        size = entry.get(name)
        if not isinstance(size, dict) or not all(
            isinstance(size.get(k), int) and not isinstance(size.get(k), bool) and size.get(k) > 0 for k in ("height", "width")
        ):
            raise RowFormatError(line, "%s.%s" % (path, name), "must be {height, width} in positive pixels")
    grid = entry.get("image_grid_thw")
    if not isinstance(grid, list) or len(grid) != 3 or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in grid):
        raise RowFormatError(line, "%s.image_grid_thw" % path, "must be three positive integers [t, h, w]")
    tokens = entry.get("num_tokens")
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1:
        raise RowFormatError(line, "%s.num_tokens" % path, "must be a positive integer")


def image_bytes(entry):
    """The bytes of one ``multimodal_train_inputs`` entry: inline ``data``, or a ``data:`` URI ``source``.

    Returns None for an http(s) ``source`` (fetch it yourself, then check ``digest``).
    """
    if isinstance(entry.get("data"), str):
        return base64.b64decode(entry["data"])
    source = entry.get("source", "")
    if source.startswith("data:") and "," in source:
        header, payload = source[5:].split(",", 1)
        return base64.b64decode(payload) if header.endswith(";base64") else payload.encode("latin-1")
    return None


def image_grid_thw(row):
    """The ``image_grid_thw`` rows of a row's images, in prompt order (``[]`` for a text row)."""
    return [list(entry["image_grid_thw"]) for entry in row.get("multimodal_train_inputs") or []]


class RowFormatError(ValueError):
    """A line that is not a valid training row. ``line`` is 1-based, ``field`` names the field."""

    def __init__(self, line, field, reason):
        self.line = line
        self.field = field
        self.reason = reason
        where = "line %d" % line + (" %s" % field if field else "")
        super().__init__("%s: %s" % (where, reason))


class TornLineWarning(UserWarning):
    """The file ends in a torn line (``line`` 1-based, ``size`` bytes): skipped, earlier rows kept."""

    def __init__(self, path, line, size):
        self.path = path
        self.line = line
        self.size = size
        super().__init__(
            "%s: line %d is torn (%d bytes, no final newline, not JSON: a crash during the write); skipped"
            % (path, line, size)
        )


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _validate_turn_rewards(row, line):
    rewards, positions = row.get("turn_rewards"), row.get("turn_reward_positions")
    if rewards is None and positions is None:
        return
    if rewards is None or positions is None:
        raise RowFormatError(line, "turn_rewards", "turn_rewards and turn_reward_positions come together")
    if len(rewards) != row["num_turns"]:
        raise RowFormatError(line, "turn_rewards", "has %d entries, expected num_turns %d" % (len(rewards), row["num_turns"]))
    if len(positions) != len(rewards):
        raise RowFormatError(line, "turn_reward_positions", "must have one entry per turn reward")
    for i, reward in enumerate(rewards):
        if reward is not None and (not _is_number(reward) or not math.isfinite(reward)):
            raise RowFormatError(line, "turn_rewards[%d]" % i, "must be a finite number or null")
    for i, position in enumerate(positions):
        if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < max(1, row["response_length"]):
            raise RowFormatError(line, "turn_reward_positions[%d]" % i, "must be a response position")


def request_class(row):
    """The row's request class: ``"main"`` for the session's own contexts, else the side request's class."""
    return row.get("request_class", "main")


def turn_reward_tokens(row):
    """Per-turn rewards placed on the response: ``response_length`` floats, each turn's reward at its last
    generated token, 0.0 elsewhere (all zeros for a row without per-turn rewards)."""
    dense = [0.0] * row["response_length"]
    for reward, position in zip(row.get("turn_rewards") or [], row.get("turn_reward_positions") or []):
        if reward is not None:
            dense[position] = float(reward)
    return dense


def validate_row(row, line=0):
    """Check one decoded row: field types and the cross-field invariants. Returns the row."""
    if not isinstance(row, dict):
        raise RowFormatError(line, "", "a row must be a JSON object")
    for name, kinds in ROW_FIELDS.items():
        if name not in row:
            raise RowFormatError(line, name, "is missing")
        value = row[name]
        if isinstance(value, bool) or not isinstance(value, kinds):
            if not (value is None and isinstance(kinds, tuple) and type(None) in kinds):
                raise RowFormatError(line, name, "has type %s" % type(value).__name__)
    for name, kinds in OPTIONAL_ROW_FIELDS.items():
        if name in row and (isinstance(row[name], bool) or not isinstance(row[name], kinds)):
            raise RowFormatError(line, name, "has type %s" % type(row[name]).__name__)
    for i, kind in enumerate(row.get("request_kinds", [])):
        if kind not in REQUEST_KINDS:
            raise RowFormatError(line, "request_kinds[%d]" % i, "must be one of %s" % ", ".join(REQUEST_KINDS))
    if "reward_source" in row and row["reward_source"].get("kind") not in REWARD_SOURCE_KINDS:
        raise RowFormatError(line, "reward_source.kind", "must be one of %s" % ", ".join(REWARD_SOURCE_KINDS))
    if "segment_kind" in row and row["segment_kind"] not in SEGMENT_KINDS:
        raise RowFormatError(line, "segment_kind", "must be one of %s" % ", ".join(SEGMENT_KINDS))
    if row.get("weight_version_lag", 0) < 0:
        raise RowFormatError(line, "weight_version_lag", "must be >= 0")
    images = row.get("multimodal_train_inputs")
    if images is not None:
        if not isinstance(images, list):
            raise RowFormatError(line, "multimodal_train_inputs", "must be a list")
        for i, entry in enumerate(images):
            _validate_image(entry, line, "multimodal_train_inputs[%d]" % i)
    _validate_turn_rewards(row, line)
    if row["status"] not in STATUSES:
        raise RowFormatError(line, "status", "must be one of %s" % ", ".join(STATUSES))
    prompt, response = row["prompt_length"], row["response_length"]
    if prompt < 0 or response < 0:
        raise RowFormatError(line, "prompt_length", "lengths must be >= 0")
    if len(row["tokens"]) != prompt + response:
        raise RowFormatError(line, "tokens", "has %d entries, expected %d" % (len(row["tokens"]), prompt + response))
    for name in ("loss_mask", "rollout_log_probs", "advantages"):
        if len(row[name]) != response:
            raise RowFormatError(line, name, "has %d entries, expected %d" % (len(row[name]), response))
    for i, token in enumerate(row["tokens"]):
        if isinstance(token, bool) or not isinstance(token, int) or token < 0:
            raise RowFormatError(line, "tokens[%d]" % i, "must be a non-negative integer")
    for i, (mask, logprob, advantage) in enumerate(zip(row["loss_mask"], row["rollout_log_probs"], row["advantages"])):
        if mask not in (0, 1) or isinstance(mask, bool):
            raise RowFormatError(line, "loss_mask[%d]" % i, "must be 0 or 1")
        if not _is_number(logprob) or not math.isfinite(logprob):
            raise RowFormatError(line, "rollout_log_probs[%d]" % i, "must be a finite number")
        if not _is_number(advantage) or not math.isfinite(advantage):
            raise RowFormatError(line, "advantages[%d]" % i, "must be a finite number")
        if mask == 0 and (advantage != 0 or logprob != 0):
            raise RowFormatError(line, "advantages[%d]" % i, "advantages and logprobs must be 0 where loss_mask is 0")
    return row


def iter_rows(path, validate=True, on_torn=None):
    """Yield rows from a JSONL file one at a time (blank lines are skipped).

    A torn last line (no final newline and not JSON) is skipped: ``on_torn(TornLineWarning)`` is called
    when given, else the warning is issued with ``warnings.warn``.
    """
    # Bytes, so a line cut inside a multi-byte character is still seen (and reported) as torn.
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw.decode("utf-8"))
            except ValueError as error:
                if not raw.endswith(b"\n"):  # only the last line can lack its newline
                    torn = TornLineWarning(path, number, len(raw))
                    if on_torn is not None:
                        on_torn(torn)
                    else:
                        warnings.warn(torn, stacklevel=2)
                    return
                raise RowFormatError(number, "", "not JSON (%s)" % error)
            yield validate_row(row, number) if validate else row


def read_rows(path, validate=True, on_torn=None):
    """All rows of a JSONL file as a list of dicts (a torn last line skipped, see ``iter_rows``)."""
    return list(iter_rows(path, validate=validate, on_torn=on_torn))


def read_rows_report(path, validate=True):
    """``(rows, torn)``: the rows, and the ``TornLineWarning`` of a skipped torn last line (or ``None``)."""
    torn = []
    rows = read_rows(path, validate=validate, on_torn=torn.append)
    return rows, (torn[0] if torn else None)


def to_columns(rows):
    """Columnar view: ``{field: [value of row 0, value of row 1, ...]}`` for every row field."""
    columns = {name: [row[name] for row in rows] for name in ROW_FIELDS}
    for name in OPTIONAL_ROW_FIELDS:
        columns[name] = [row.get(name) for row in rows]
    return columns


def to_numpy(rows):
    """Like ``to_columns``, with per-row arrays as NumPy arrays and scalars as 1-D arrays.

    Per-row arrays stay ragged (a list of arrays), since rows differ in length. dtypes:
    tokens int32, loss_mask uint8, rollout_log_probs and advantages float64 (values exactly as
    written); advantage, reward (NaN where null), prompt/response lengths, group_index and
    num_turns as 1-D arrays.
    """
    import numpy as np  # imported lazily so the reader needs only the standard library

    columns = to_columns(rows)
    columns["tokens"] = [np.asarray(v, dtype=np.int32) for v in columns["tokens"]]
    columns["loss_mask"] = [np.asarray(v, dtype=np.uint8) for v in columns["loss_mask"]]
    columns["rollout_log_probs"] = [np.asarray(v, dtype=np.float64) for v in columns["rollout_log_probs"]]
    columns["advantages"] = [np.asarray(v, dtype=np.float64) for v in columns["advantages"]]
    columns["advantage"] = np.asarray(columns["advantage"], dtype=np.float64)
    columns["reward"] = np.asarray([math.nan if r is None else r for r in columns["reward"]], dtype=np.float64)
    for name in ("prompt_length", "response_length", "group_index", "num_turns"):
        columns[name] = np.asarray(columns[name], dtype=np.int64)
    return columns


def summarize(rows, use_numpy=False):
    """Totals that let a caller check a file end to end (used by the @relax/export test suite)."""
    if use_numpy:
        columns = to_numpy(rows)
        response_tokens = int(sum(int(a.size) for a in columns["loss_mask"]))
        loss_tokens = int(sum(int(a.sum()) for a in columns["loss_mask"]))
        token_sum = int(sum(int(a.astype("int64").sum()) for a in columns["tokens"]))
        advantage_sum = float(sum(float(a.sum()) for a in columns["advantages"]))
        logprob_sum = float(sum(float(a.sum()) for a in columns["rollout_log_probs"]))
    else:
        response_tokens = sum(len(row["loss_mask"]) for row in rows)
        loss_tokens = sum(sum(row["loss_mask"]) for row in rows)
        token_sum = sum(sum(row["tokens"]) for row in rows)
        advantage_sum = math.fsum(v for row in rows for v in row["advantages"])
        logprob_sum = math.fsum(v for row in rows for v in row["rollout_log_probs"])
    return {
        "rows": len(rows),
        "sessions": len({row["session_id"] for row in rows}),
        "groups": len({row["group_index"] for row in rows}),
        "rollout_ids": len({row["rollout_id"] for row in rows}),
        "response_tokens": response_tokens,
        "loss_tokens": loss_tokens,
        "token_sum": token_sum,
        "advantage_sum": advantage_sum,
        "logprob_sum": logprob_sum,
        "advantages": [row["advantage"] for row in rows],
        "rewards": [row["reward"] for row in rows],
        "context_names": [row["context_name"] for row in rows],
        "images": sum(len(row.get("multimodal_train_inputs") or []) for row in rows),
        "image_tokens": sum(e["num_tokens"] for row in rows for e in row.get("multimodal_train_inputs") or []),
        "numpy": use_numpy,
    }


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: relax_rows.py ROWS.jsonl [--numpy]\n")
        return 2
    try:
        rows, torn = read_rows_report(argv[1])
    except RowFormatError as error:
        sys.stderr.write("relax_rows: %s\n" % error)
        return 1
    if torn is not None:
        sys.stderr.write("relax_rows: warning: %s\n" % torn)
    summary = summarize(rows, use_numpy="--numpy" in argv[2:])
    summary["torn_lines"] = 0 if torn is None else 1
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
