"""A model of the parts of slime the adapter's output goes through, written from slime's source
(``slime/utils/types.py`` ``Sample``, ``slime/ray/rollout.py`` ``_post_process_rewards`` and
``_convert_samples_to_train_data``, ``slime/rollout/base_types.py`` outputs,
``slime/observability/rollout_metrics.py`` ``log_eval_rollout_data``, ``slime/rollout/data_source.py`` counters): the same fields, the same
checks and the same arithmetic, with lists instead of tensors. It is a test double, not slime.
"""

import itertools
import statistics
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List, Optional


@dataclass
class Sample:
    """slime's ``Sample`` fields (defaults as slime's)."""

    group_index: Optional[int] = None
    index: Optional[int] = None
    rollout_id: Optional[int] = None
    prompt: Any = ""
    tokens: List[int] = field(default_factory=list)
    multimodal_inputs: Optional[Dict[str, Any]] = None
    multimodal_train_inputs: Optional[Dict[str, Any]] = None
    response: str = ""
    response_length: int = 0
    label: Optional[str] = None
    reward: Any = None
    loss_mask: Optional[List[int]] = None
    weight_versions: List[str] = field(default_factory=list)
    rollout_log_probs: Optional[List[float]] = None
    rollout_top_p_token_ids: Optional[List[int]] = None
    rollout_top_p_token_offsets: Optional[List[int]] = None
    remove_sample: bool = False

    class Status(Enum):
        PENDING = "pending"
        COMPLETED = "completed"
        TRUNCATED = "truncated"
        ABORTED = "aborted"
        FAILED = "failed"

    status: Status = Status.PENDING
    metadata: Dict[str, Any] = field(default_factory=dict)
    session_id: Optional[str] = None

    def get_reward_value(self, args: Any) -> Any:
        # slime: the reward itself, or reward[args.reward_key] when a key is configured.
        return self.reward if not args.reward_key else self.reward[args.reward_key]


@dataclass
class RolloutFnTrainOutput:
    """slime's ``RolloutFnTrainOutput`` (``slime/rollout/base_types.py``): Groups of samples, extra metrics."""

    samples: List[Any]
    metrics: Optional[Dict[str, Any]] = None


@dataclass
class RolloutFnEvalOutput:
    """slime's ``RolloutFnEvalOutput``: per eval name ``rewards`` (+ ``truncated``, ``samples``), extra metrics."""

    data: Dict[str, Dict[str, Any]]
    metrics: Optional[Dict[str, Any]] = None


def log_eval_rollout_data(data: Dict[str, Dict[str, Any]], extra_metrics: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """``log_eval_rollout_data`` without a custom logger or pass rates: the extra metrics, then per eval name
    ``eval/<name>`` (mean reward, over an extra metric of that name) and ``eval/<name>-truncated_ratio``."""
    log = dict(extra_metrics or {})
    for key, entry in data.items():
        rewards = entry["rewards"]
        log["eval/%s" % key] = sum(rewards) / len(rewards)
        if "truncated" in entry:
            truncated = entry["truncated"]
            log["eval/%s-truncated_ratio" % key] = sum(truncated) / len(truncated)
    return log


class DataSource:
    """slime's data-source counters (saved with each checkpoint, restored on load)."""

    def __init__(self, sample_group_index: int = 0, sample_index: int = 0) -> None:
        self.sample_group_index = sample_group_index
        self.sample_index = sample_index


def flatten(data: List[Any]) -> List[Sample]:
    """slime flattens the rollout function's nested lists by looking at the first element."""
    while isinstance(data[0], list):
        data = list(itertools.chain.from_iterable(data))
    return data


def post_process_rewards(args: Any, samples: List[Sample], custom: Any = None):
    """``_post_process_rewards``: group mean (and std for GRPO) when the batch is n × B samples, else over
    the whole batch as one group."""
    if custom is not None:
        return custom(args, samples)
    raw = [sample.get_reward_value(args) for sample in samples]
    if args.advantage_estimator in ("grpo", "gspo", "cispo", "reinforce_plus_plus_baseline") and args.rewards_normalization:
        width = args.n_samples_per_prompt if len(raw) == args.n_samples_per_prompt * args.rollout_batch_size else len(raw)
        rewards: List[float] = []
        for start in range(0, len(raw), width):
            chunk = [float(value) for value in raw[start:start + width]]
            mean = sum(chunk) / len(chunk)
            centred = [value - mean for value in chunk]
            if args.advantage_estimator in ("grpo", "gspo", "cispo") and args.grpo_std_normalization:
                # torch.std is the sample standard deviation (n - 1).
                std = statistics.stdev(chunk) if len(chunk) > 1 else float("nan")
                centred = [value / (std + 1e-6) for value in centred]
            rewards.extend(centred)
        return raw, rewards
    return raw, raw


def convert_samples_to_train_data(args: Any, samples: List[Sample], custom_post: Any = None) -> Dict[str, Any]:
    """``_convert_samples_to_train_data``: the fields slime trains on, with slime's assertions."""
    raw, rewards = post_process_rewards(args, samples, custom_post)
    assert len(raw) == len(samples) and len(rewards) == len(samples)
    rollout_ids = [sample.rollout_id for sample in samples]
    taken = {rid for rid in rollout_ids if rid is not None}
    spare = 0
    for i, rid in enumerate(rollout_ids):
        if rid is None:
            while spare in taken:
                spare += 1
            rollout_ids[i] = spare
            taken.add(spare)
    data: Dict[str, Any] = {
        "tokens": [sample.tokens for sample in samples],
        "response_lengths": [sample.response_length for sample in samples],
        "rewards": rewards,
        "raw_reward": raw,
        "truncated": [1 if sample.status == Sample.Status.TRUNCATED else 0 for sample in samples],
        "sample_indices": [sample.index for sample in samples],
        "rollout_ids": rollout_ids,
    }
    masks = []
    for sample in samples:
        if sample.loss_mask is None:
            sample.loss_mask = [1] * sample.response_length
        assert len(sample.loss_mask) == sample.response_length
        masks.append([0] * sample.response_length if sample.remove_sample else sample.loss_mask)
    data["loss_masks"] = masks
    if samples[0].rollout_log_probs is not None:
        data["rollout_log_probs"] = [sample.rollout_log_probs for sample in samples]
    if getattr(args, "rollout_top_p", 1.0) != 1.0:
        for sample in samples:
            assert sample.rollout_top_p_token_ids is not None
    if any(sample.multimodal_train_inputs is not None for sample in samples):
        data["multimodal_train_inputs"] = [sample.multimodal_train_inputs for sample in samples]
    return data
