"""Typed records of the trainer control API (``docs/trainer-api.md``): rows, stream records and answers.

Each dataclass has a ``from_wire(obj, path)`` constructor that checks the fields a trainer relies on and raises
:class:`~relax_client.errors.RelaxProtocolError` naming the field path otherwise. Fields the client does not
know yet are kept in ``extra`` (never dropped), so a newer server works with an older client.
"""

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Type, Union

from .errors import RelaxProtocolError

__all__ = [
    "ROW_STATUSES",
    "WeightVersionSpan",
    "Row",
    "StepStart",
    "DroppedGroup",
    "StepSummary",
    "EvalSummary",
    "EvalResult",
    "StepProgress",
    "DatasetCursor",
    "EvalSchedule",
    "InFlight",
    "Status",
    "Health",
    "PauseResult",
    "ResumeResult",
    "WorkerResult",
    "WeightsResult",
]

#: Terminal statuses of a row (slime's ``Sample.Status`` values, lower case).
ROW_STATUSES = ("completed", "truncated", "aborted", "failed")

_Kinds = Union[Type[Any], Tuple[Type[Any], ...]]
_MISSING = object()


def _get(obj: Dict[str, Any], key: str, kinds: _Kinds, path: str, default: Any = _MISSING) -> Any:
    """``obj[key]`` checked against ``kinds`` (bool never counts as a number); ``default`` when absent."""
    where = "%s.%s" % (path, key) if path else key
    if key not in obj:
        if default is _MISSING:
            raise RelaxProtocolError("is missing", where)
        return default
    value = obj[key]
    if value is None and default is None:
        return None
    wants_bool = kinds is bool or (isinstance(kinds, tuple) and bool in kinds)
    if (isinstance(value, bool) and not wants_bool) or not isinstance(value, kinds):
        raise RelaxProtocolError("has type %s" % type(value).__name__, where)
    if isinstance(value, float) and not math.isfinite(value):
        raise RelaxProtocolError("must be finite", where)
    return value


def _obj(value: Any, path: str) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise RelaxProtocolError("must be an object", path)
    return value


def _extra(obj: Dict[str, Any], known: Any) -> Dict[str, Any]:
    return {key: value for key, value in obj.items() if key not in known}


def _int_list(values: Any, path: str) -> List[int]:
    if not isinstance(values, list):
        raise RelaxProtocolError("must be an array", path)
    for index, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int):
            raise RelaxProtocolError("must be an integer", "%s[%d]" % (path, index))
    return values


def _number_list(values: Any, path: str) -> List[float]:
    if not isinstance(values, list):
        raise RelaxProtocolError("must be an array", path)
    for index, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise RelaxProtocolError("must be a finite number", "%s[%d]" % (path, index))
    return values


@dataclass
class WeightVersionSpan:
    """Tokens ``tokens[prompt_length + start : prompt_length + end]`` were generated under ``version``."""

    version: str
    start: int
    end: int

    @classmethod
    def from_wire(cls, obj: Any, path: str) -> "WeightVersionSpan":
        obj = _obj(obj, path)
        span = cls(_get(obj, "version", str, path), _get(obj, "start", int, path), _get(obj, "end", int, path))
        if span.start < 0 or span.end < span.start:
            raise RelaxProtocolError("start %d, end %d is not a span" % (span.start, span.end), path)
        return span

    @property
    def length(self) -> int:
        """Number of tokens in the span."""
        return self.end - self.start


_ROW_KNOWN = (
    "tokens", "loss_mask", "rollout_log_probs", "advantage", "advantages", "reward", "reward_details",
    "response_length", "prompt_length", "status", "weight_versions", "weight_version_spans", "abort_count",
    "prompt_index", "sample_index", "rollout_id", "group_index", "session_id", "context_name", "state_hash",
    "num_turns", "stop_reason", "metadata", "multimodal_train_inputs", "request_class", "parent_state_hash",
    "turn_rewards", "turn_reward_positions", "segment_kind",
)  # fmt: skip


def _turn_rewards(obj: Dict[str, Any], path: str) -> Tuple[Optional[List[Optional[float]]], Optional[List[int]]]:
    """``turn_rewards`` (finite numbers or ``None``) and ``turn_reward_positions`` (ints), both or neither."""
    rewards = _get(obj, "turn_rewards", list, path, None)
    positions = _get(obj, "turn_reward_positions", list, path, None)
    if rewards is None and positions is None:
        return None, None
    if rewards is None or positions is None:
        raise RelaxProtocolError("comes without turn_rewards / turn_reward_positions", path + ".turn_rewards")
    for index, value in enumerate(rewards):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise RelaxProtocolError("must be a finite number or null", "%s.turn_rewards[%d]" % (path, index))
    return rewards, _int_list(positions, path + ".turn_reward_positions")


def _images(value: Optional[List[Any]], path: str) -> Optional[List[Dict[str, Any]]]:
    """Checks ``multimodal_train_inputs``: image dicts with a grid of three positive ints and a source or data."""
    if value is None:
        return None
    for index, entry in enumerate(value):
        where = "%s.multimodal_train_inputs[%d]" % (path, index)
        if not isinstance(entry, dict) or entry.get("type") != "image":
            raise RelaxProtocolError("must be an image object", where)
        grid = entry.get("image_grid_thw")
        if not isinstance(grid, list) or len(grid) != 3 or not all(isinstance(v, int) and v > 0 for v in grid):
            raise RelaxProtocolError("must be three positive integers", where + ".image_grid_thw")
        if not isinstance(entry.get("source"), str) and not isinstance(entry.get("data"), str):
            raise RelaxProtocolError("needs a source URL or inline data", where)
    return [dict(entry) for entry in value]


@dataclass
class Row:
    """One exported context of one session: a training row (``packages/export/schema/training-row.schema.json``).

    ``tokens`` is the whole lineage (prompt then response). ``loss_mask``, ``rollout_log_probs`` (natural log)
    and ``advantages`` have ``response_length`` entries aligned to ``tokens[prompt_length:]``; observation
    tokens inside the response carry mask 0. ``rollout_id`` is shared by every row of one session (sibling
    contexts). ``weight_version_spans`` are response-relative (end exclusive) over generated tokens only.
    ``prompt_index`` / ``sample_index`` / ``weight_version_spans`` / ``abort_count`` are ``None`` / ``[]`` /
    ``0`` when the server does not send them. ``dataset`` names the eval dataset of an eval row (``None`` for
    a train row). ``multimodal_train_inputs`` lists the images of a multimodal row in prompt order (dicts
    with ``digest``, ``source`` or base64 ``data``, ``format``, ``original_size``, ``resized_size``,
    ``image_grid_thw``, ``num_tokens``); ``None`` for a text row. ``request_class`` is ``"main"`` for the
    session's own contexts and the class (``"compaction"``, ``"subagent"``, …) of a trained side request,
    whose ``parent_state_hash`` names the main-loop turn it came after. ``turn_rewards`` (one per response
    turn, ``None`` for a turn without one) and ``turn_reward_positions`` (each turn's last generated token,
    response-relative) are ``None`` when no per-turn rewards were given. ``segment_kind`` says what split the
    session into sibling contexts sharing its reward and advantage: ``"compaction"`` or ``"agent"`` (an agent
    switch, docs/contract.md#agent-contexts); ``None`` for a session exported as one context. Unknown row
    fields are kept in ``extra``.
    """

    tokens: List[int]
    loss_mask: List[int]
    rollout_log_probs: List[float]
    advantage: float
    advantages: List[float]
    reward: Optional[float]
    reward_details: Dict[str, float]
    response_length: int
    prompt_length: int
    status: str
    weight_versions: List[str]
    rollout_id: str
    group_index: int
    session_id: str
    context_name: Optional[str]
    state_hash: str
    num_turns: int
    stop_reason: str
    metadata: Dict[str, Any]
    weight_version_spans: List[WeightVersionSpan] = field(default_factory=list)
    abort_count: int = 0
    prompt_index: Optional[int] = None
    sample_index: Optional[int] = None
    dataset: Optional[str] = None
    multimodal_train_inputs: Optional[List[Dict[str, Any]]] = None
    request_class: str = "main"
    parent_state_hash: Optional[str] = None
    turn_rewards: Optional[List[Optional[float]]] = None
    turn_reward_positions: Optional[List[int]] = None
    segment_kind: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, obj: Any, path: str = "row", dataset: Optional[str] = None) -> "Row":
        """Decodes and checks a row: field types, ``status``, and the length invariants of the schema.

        :raises RelaxProtocolError: naming the field path (``row.loss_mask``, ``row.tokens[3]``, …).
        """
        obj = _obj(obj, path)
        number = (int, float)
        spans_wire = _get(obj, "weight_version_spans", list, path, [])
        turn_rewards, turn_reward_positions = _turn_rewards(obj, path)
        row = cls(
            tokens=_int_list(_get(obj, "tokens", list, path), path + ".tokens"),
            loss_mask=_int_list(_get(obj, "loss_mask", list, path), path + ".loss_mask"),
            rollout_log_probs=_number_list(_get(obj, "rollout_log_probs", list, path), path + ".rollout_log_probs"),
            advantage=_get(obj, "advantage", number, path),
            advantages=_number_list(_get(obj, "advantages", list, path), path + ".advantages"),
            reward=_get(obj, "reward", number, path, None),
            reward_details=_get(obj, "reward_details", dict, path),
            response_length=_get(obj, "response_length", int, path),
            prompt_length=_get(obj, "prompt_length", int, path),
            status=_get(obj, "status", str, path),
            weight_versions=_get(obj, "weight_versions", list, path),
            rollout_id=_get(obj, "rollout_id", str, path),
            group_index=_get(obj, "group_index", int, path),
            session_id=_get(obj, "session_id", str, path),
            context_name=_get(obj, "context_name", str, path, None),
            state_hash=_get(obj, "state_hash", str, path),
            num_turns=_get(obj, "num_turns", int, path),
            stop_reason=_get(obj, "stop_reason", str, path),
            metadata=_get(obj, "metadata", dict, path),
            weight_version_spans=[
                WeightVersionSpan.from_wire(span, "%s.weight_version_spans[%d]" % (path, index))
                for index, span in enumerate(spans_wire)
            ],
            abort_count=_get(obj, "abort_count", int, path, 0),
            prompt_index=_get(obj, "prompt_index", int, path, None),
            sample_index=_get(obj, "sample_index", int, path, None),
            dataset=dataset,
            multimodal_train_inputs=_images(_get(obj, "multimodal_train_inputs", list, path, None), path),
            request_class=_get(obj, "request_class", str, path, "main"),
            parent_state_hash=_get(obj, "parent_state_hash", str, path, None),
            turn_rewards=turn_rewards,
            turn_reward_positions=turn_reward_positions,
            segment_kind=_get(obj, "segment_kind", str, path, None),
            extra=_extra(obj, _ROW_KNOWN),
        )
        row._check(path)
        return row

    def _check(self, path: str) -> None:
        if self.status not in ROW_STATUSES:
            raise RelaxProtocolError("must be one of %s" % ", ".join(ROW_STATUSES), path + ".status")
        if self.prompt_length < 0 or self.response_length < 0:
            raise RelaxProtocolError("lengths must be >= 0", path + ".response_length")
        expected = self.prompt_length + self.response_length
        if len(self.tokens) != expected:
            raise RelaxProtocolError("has %d entries, expected %d" % (len(self.tokens), expected), path + ".tokens")
        for name in ("loss_mask", "rollout_log_probs", "advantages"):
            if len(getattr(self, name)) != self.response_length:
                message = "has %d entries, expected %d" % (len(getattr(self, name)), self.response_length)
                raise RelaxProtocolError(message, "%s.%s" % (path, name))
        for index, version in enumerate(self.weight_versions):
            if not isinstance(version, str):
                raise RelaxProtocolError("must be a string", "%s.weight_versions[%d]" % (path, index))
        for index, span in enumerate(self.weight_version_spans):
            if span.end > self.response_length:
                message = "end %d is past response_length %d" % (span.end, self.response_length)
                raise RelaxProtocolError(message, "%s.weight_version_spans[%d]" % (path, index))
        self._check_turn_rewards(path)

    def _check_turn_rewards(self, path: str) -> None:
        if self.turn_rewards is None or self.turn_reward_positions is None:
            return
        if len(self.turn_rewards) != self.num_turns:
            message = "has %d entries, expected num_turns %d" % (len(self.turn_rewards), self.num_turns)
            raise RelaxProtocolError(message, path + ".turn_rewards")
        if len(self.turn_reward_positions) != len(self.turn_rewards):
            raise RelaxProtocolError("must have one entry per turn reward", path + ".turn_reward_positions")
        for index, position in enumerate(self.turn_reward_positions):
            if not 0 <= position < max(1, self.response_length):
                message = "%d is outside the response (length %d)" % (position, self.response_length)
                raise RelaxProtocolError(message, "%s.turn_reward_positions[%d]" % (path, index))

    def turn_reward_tokens(self) -> List[float]:
        """Per-turn rewards placed on the response: ``response_length`` values, each turn's reward at its
        last generated token (``turn_reward_positions``), 0.0 elsewhere and for a turn without one. All
        zeros when the row has no per-turn rewards."""
        dense = [0.0] * self.response_length
        for reward, position in zip(self.turn_rewards or [], self.turn_reward_positions or []):
            if reward is not None:
                dense[position] = float(reward)
        return dense

    @property
    def response_tokens(self) -> List[int]:
        """``tokens[prompt_length:]``: the response region the per-token arrays are aligned to."""
        return self.tokens[self.prompt_length :]

    @property
    def prompt_tokens(self) -> List[int]:
        """``tokens[:prompt_length]``."""
        return self.tokens[: self.prompt_length]

    @property
    def trained_tokens(self) -> int:
        """Number of response tokens with ``loss_mask`` 1."""
        return sum(self.loss_mask)

    def to_dict(self) -> Dict[str, Any]:
        """The row as its wire JSON object (unknown fields from ``extra`` included, ``dataset`` left out)."""
        wire: Dict[str, Any] = {name: getattr(self, name) for name in _ROW_KNOWN if name != "weight_version_spans"}
        if self.multimodal_train_inputs is None:
            del wire["multimodal_train_inputs"]
        if self.request_class == "main":
            del wire["request_class"]  # a main context's rows do not carry it
        for name in ("parent_state_hash", "turn_rewards", "turn_reward_positions", "segment_kind"):
            if wire[name] is None:
                del wire[name]
        wire["weight_version_spans"] = [
            {"version": span.version, "start": span.start, "end": span.end} for span in self.weight_version_spans
        ]
        wire.update(self.extra)
        return wire

    def to_numpy(self) -> Dict[str, Any]:
        """The per-token arrays as NumPy arrays (NumPy is imported only here).

        dtypes: ``tokens`` int64, ``loss_mask`` uint8, ``rollout_log_probs`` and ``advantages`` float64.
        """
        import numpy as np  # optional dependency

        return {
            "tokens": np.asarray(self.tokens, dtype=np.int64),
            "loss_mask": np.asarray(self.loss_mask, dtype=np.uint8),
            "rollout_log_probs": np.asarray(self.rollout_log_probs, dtype=np.float64),
            "advantages": np.asarray(self.advantages, dtype=np.float64),
        }


@dataclass
class StepStart:
    """The ``step_start`` record: the step's mode, size and the weight version it was asked under."""

    rollout_id: int
    mode: str
    groups: int
    samples_per_group: int
    weight_version: Optional[str]
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, obj: Dict[str, Any]) -> "StepStart":
        return cls(
            rollout_id=_get(obj, "rollout_id", int, ""),
            mode=_get(obj, "mode", str, ""),
            groups=_get(obj, "groups", int, ""),
            samples_per_group=_get(obj, "samples_per_group", int, ""),
            weight_version=_get(obj, "weight_version", str, "", None),
            extra=_extra(obj, ("type", "rollout_id", "mode", "groups", "samples_per_group", "weight_version")),
        )


@dataclass
class DroppedGroup:
    """A ``group_dropped`` record: a Group that produced no rows, and why."""

    rollout_id: int
    group_id: str
    prompt_index: Optional[int]
    reason: str
    message: str
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, obj: Dict[str, Any]) -> "DroppedGroup":
        return cls(
            rollout_id=_get(obj, "rollout_id", int, ""),
            group_id=_get(obj, "group_id", str, ""),
            prompt_index=_get(obj, "prompt_index", int, "", None),
            reason=_get(obj, "reason", str, ""),
            message=_get(obj, "message", str, "", ""),
            extra=_extra(obj, ("type", "rollout_id", "group_id", "prompt_index", "reason", "message")),
        )


@dataclass
class StepSummary:
    """The ``summary`` of a ``step_end`` record. ``wall_s`` in seconds; ``metrics`` keyed like ``rollout/…``."""

    groups: int
    rows: int
    dropped_groups: int
    debt: int
    resident_groups: int
    wall_s: float
    drops_by_reason: Dict[str, int]
    metrics: Dict[str, float]
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, obj: Any, path: str = "summary") -> "StepSummary":
        obj = _obj(obj, path)
        known = ("groups", "rows", "dropped_groups", "debt", "resident_groups", "wall_s", "drops_by_reason", "metrics")
        return cls(
            groups=_get(obj, "groups", int, path),
            rows=_get(obj, "rows", int, path),
            dropped_groups=_get(obj, "dropped_groups", int, path),
            debt=_get(obj, "debt", int, path, 0),
            resident_groups=_get(obj, "resident_groups", int, path, 0),
            wall_s=float(_get(obj, "wall_s", (int, float), path, 0.0)),
            drops_by_reason=_get(obj, "drops_by_reason", dict, path, {}),
            metrics=_get(obj, "metrics", dict, path, {}),
            extra=_extra(obj, known),
        )


@dataclass
class EvalSummary:
    """The ``summary`` of an ``eval_end`` record, kept verbatim (its keys are the server's eval metrics)."""

    dataset: str
    values: Dict[str, Any]


@dataclass
class EvalResult:
    """The rows and the summary of one eval dataset (``summary`` is ``None`` until its ``eval_end``)."""

    dataset: str
    rows: List[Row] = field(default_factory=list)
    summary: Optional[EvalSummary] = None


@dataclass
class StepProgress:
    """``status.step`` while a step runs."""

    rollout_id: int
    mode: str
    groups_target: int
    groups_done: int
    groups_dropped: int
    rows: int
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, obj: Any, path: str = "step") -> "StepProgress":
        obj = _obj(obj, path)
        known = ("rollout_id", "mode", "groups_target", "groups_done", "groups_dropped", "rows")
        values = {name: _get(obj, name, str if name == "mode" else int, path) for name in known}
        return cls(extra=_extra(obj, known), **values)


@dataclass
class DatasetCursor:
    """``status.dataset``: prompts in the dataset, the next prompt's position, and the epoch."""

    size: int
    cursor: int
    epoch: int

    @classmethod
    def from_wire(cls, obj: Any, path: str = "dataset") -> "DatasetCursor":
        obj = _obj(obj, path)
        return cls(_get(obj, "size", int, path), _get(obj, "cursor", int, path), _get(obj, "epoch", int, path, 0))


@dataclass
class EvalSchedule:
    """``status.eval``: the eval interval (``None`` when off), the next due step, the eval datasets."""

    interval: Optional[int]
    next_eval_rollout_id: Optional[int]
    datasets: List[str]

    @classmethod
    def from_wire(cls, obj: Any, path: str = "eval") -> "EvalSchedule":
        obj = _obj(obj, path)
        return cls(
            _get(obj, "interval", int, path, None),
            _get(obj, "next_eval_rollout_id", int, path, None),
            _get(obj, "datasets", list, path, []),
        )


@dataclass
class InFlight:
    """``status.in_flight``: engine requests generating, agent requests held, aborted partial outputs kept."""

    generating: int
    held: int
    aborted_partials: int
    #: ``--agentic-prelaunch``: Groups started for the next step, waiting at their first-request barrier.
    prelaunched_groups: int = 0
    #: The agent sessions of ``prelaunched_groups`` (their first requests are not in ``held``).
    prelaunched_agents: int = 0

    @classmethod
    def from_wire(cls, obj: Any, path: str = "in_flight") -> "InFlight":
        obj = _obj(obj, path)
        return cls(
            _get(obj, "generating", int, path, 0), _get(obj, "held", int, path, 0),
            _get(obj, "aborted_partials", int, path, 0), _get(obj, "prelaunched_groups", int, path, 0),
            _get(obj, "prelaunched_agents", int, path, 0),
        )  # fmt: skip


@dataclass
class Status:
    """``GET /rollout/v1/status``. ``state`` is ``idle`` | ``running`` | ``paused``."""

    state: str
    next_rollout_id: int
    weight_version: Optional[str]
    step: Optional[StepProgress]
    dataset: Optional[DatasetCursor]
    eval: Optional[EvalSchedule]
    in_flight: Optional[InFlight]
    run_dir: Optional[str]
    config_hash: Optional[str]
    backend: Optional[str]
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, obj: Any) -> "Status":
        obj = _obj(obj, "status")
        step = _get(obj, "step", dict, "", None)
        dataset = _get(obj, "dataset", dict, "", None)
        schedule = _get(obj, "eval", dict, "", None)
        in_flight = _get(obj, "in_flight", dict, "", None)
        known = (
            "state", "next_rollout_id", "weight_version", "step", "dataset", "eval", "in_flight", "run_dir",
            "config_hash", "backend",
        )  # fmt: skip
        return cls(
            state=_get(obj, "state", str, ""),
            next_rollout_id=_get(obj, "next_rollout_id", int, ""),
            weight_version=_get(obj, "weight_version", str, "", None),
            step=StepProgress.from_wire(step) if step is not None else None,
            dataset=DatasetCursor.from_wire(dataset) if dataset is not None else None,
            eval=EvalSchedule.from_wire(schedule) if schedule is not None else None,
            in_flight=InFlight.from_wire(in_flight) if in_flight is not None else None,
            run_dir=_get(obj, "run_dir", str, "", None),
            config_hash=_get(obj, "config_hash", str, "", None),
            backend=_get(obj, "backend", str, "", None),
            extra=_extra(obj, known),
        )


@dataclass
class Health:
    """``GET /rollout/v1/health``: ``ok`` plus, when unhealthy (503), the error code and message."""

    ok: bool
    code: Optional[str] = None
    message: Optional[str] = None


@dataclass
class PauseResult:
    """``POST /rollout/v1/pause``. ``quiescent_ms``: milliseconds until nothing was generating."""

    state: str
    aborted_requests: int
    held_requests: int
    quiescent_ms: float
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, obj: Any) -> "PauseResult":
        obj = _obj(obj, "")
        return cls(
            state=_get(obj, "state", str, ""),
            aborted_requests=_get(obj, "aborted_requests", int, ""),
            held_requests=_get(obj, "held_requests", int, ""),
            quiescent_ms=float(_get(obj, "quiescent_ms", (int, float), "", 0.0)),
            extra=_extra(obj, ("state", "aborted_requests", "held_requests", "quiescent_ms")),
        )


@dataclass
class ResumeResult:
    """``POST /rollout/v1/resume``: ``state`` ``running`` (a step runs) or ``idle``."""

    state: str
    resumed_requests: int
    weight_version: Optional[str]
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, obj: Any) -> "ResumeResult":
        obj = _obj(obj, "")
        return cls(
            state=_get(obj, "state", str, ""),
            resumed_requests=_get(obj, "resumed_requests", int, ""),
            weight_version=_get(obj, "weight_version", str, "", None),
            extra=_extra(obj, ("state", "resumed_requests", "weight_version")),
        )


@dataclass
class WorkerResult:
    """One engine worker's answer to ``/update_weights_from_disk``."""

    url: str
    success: bool
    message: str


@dataclass
class WeightsResult:
    """``POST /rollout/v1/weights``: overall success, the version now served, and each worker's answer."""

    success: bool
    weight_version: Optional[str]
    workers: List[WorkerResult]
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, obj: Any) -> "WeightsResult":
        obj = _obj(obj, "")
        workers = []
        for index, worker in enumerate(_get(obj, "workers", list, "", [])):
            path = "workers[%d]" % index
            worker = _obj(worker, path)
            workers.append(
                WorkerResult(
                    _get(worker, "url", str, path), _get(worker, "success", bool, path),
                    _get(worker, "message", str, path, ""),
                )  # fmt: skip
            )
        return cls(
            success=_get(obj, "success", bool, ""),
            weight_version=_get(obj, "weight_version", str, "", None),
            workers=workers,
            extra=_extra(obj, ("success", "weight_version", "workers")),
        )
