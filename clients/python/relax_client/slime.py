"""A slime rollout function that takes its rollouts from ``relax serve``.

Use it as ``--rollout-function-path relax_client.slime.generate_rollout``. slime calls
``generate_rollout(args, rollout_id, data_source, evaluation=False)`` once per rollout step (and with
``evaluation=True`` for evals). This module asks the control API for step ``rollout_id`` (``POST
/rollout/v1/steps``) or runs the evals (``POST /rollout/v1/evals``) and returns what slime expects:

* train: ``RolloutFnTrainOutput(samples=groups, metrics=…)`` where ``groups`` is one list per Group, ordered by
  ``group_index``. Each session of a Group is one ``Sample``; when any session of the step exported several
  contexts (sibling rows), every session becomes a ``list[Sample]`` instead, whose samples share one integer
  ``Sample.rollout_id`` (slime's contract for several training samples of one rollout).
* eval: ``RolloutFnEvalOutput(data={dataset: {"rewards": [...], "truncated": [...], "samples": [...]}})``.

Configuration, read from slime's ``args`` (e.g. set through ``--custom-config-path`` YAML) or the
environment: ``relax_control_url`` / ``$RELAX_CONTROL_URL``, ``relax_control_token`` /
``$RELAX_CONTROL_TOKEN``, ``relax_eval_datasets`` (list; default all), ``relax_reward_source`` (``"reward"``,
the default: slime normalises rewards itself; ``"advantage"``: Relax's per-row credit, for use with
``--disable-rewards-normalization``).

What slime's own rollout would give, from slime's ``args``:

* ``group_index`` / ``index`` count across the run, taken from (and advanced on) slime's data source
  (``sample_group_index`` / ``sample_index``, which slime saves with each checkpoint), else from the
  adapter's own counters;
* ``prompt`` / ``response`` are the decoded prompt and response tokens when a tokenizer is known (given, or
  loaded from ``args.hf_checkpoint`` with ``transformers``), ``label`` the row metadata's ``args.label_key``;
* with ``args.reward_key`` set, ``Sample.reward`` is a dict (``{reward_key: reward, **reward_details}``), as
  slime's ``Sample.get_reward_value`` expects;
* several contexts per session (multi-agent rows): slime's group normalisation cannot see Groups of unequal
  size, so use ``--custom-reward-post-process-path relax_client.slime.reward_post_process`` (Relax's
  per-row advantages) or ``--disable-rewards-normalization`` with ``relax_reward_source: advantage``;
  otherwise such a step is refused with that advice;
* trained side requests (``--request-class-policy compaction=train``, sub-agents) are sibling rows of their
  session like multi-agent rows (same ``Sample.rollout_id``, so the same post-process advice applies), with
  ``metadata["relax"]["request_class"]`` / ``["parent_state_hash"]`` saying which side request they are;
* per-turn rewards: slime trains one scalar per ``Sample`` (``Sample.reward``, normalised per group, or the
  advantage through ``reward_post_process``), so the mapping is: the row's scalar credit stays that scalar,
  and ``metadata["relax"]["turn_rewards"]`` / ``["turn_reward_positions"]`` carry the per-turn values for a
  custom reward post-process or loss; :func:`turn_reward_tokens` places them on the response tokens;
* vision rows get ``multimodal_train_inputs`` from the model's image processor (``args.hf_checkpoint``, or
  ``process_images=``), its ``image_grid_thw`` checked against the row's; without a processor they are refused;
* ``--rollout-top-p`` below 1 is refused up front: slime's conversion then needs top-p replay token ids that
  Relax rows do not carry.

slime's ``Sample`` and output classes are imported from slime when it is installed; tests inject stand-ins.
This adapter has not been run inside a real slime job yet (see ``clients/python/README.md``).
"""

import os
from typing import Any, Dict, Iterable, List, Optional, Tuple, Type

from .client import RelaxClient
from .streams import StepStream
from .types import Row

__all__ = [
    "SlimeTypes", "load_slime_types", "row_to_sample", "rows_to_groups", "RelaxSlimeRollout", "generate_rollout",
    "reward_post_process",
    "turn_reward_tokens",
]  # fmt: skip


class SlimeTypes:
    """The three slime classes the adapter builds: ``Sample``, ``RolloutFnTrainOutput``, ``RolloutFnEvalOutput``.

    ``train_output`` / ``eval_output`` may be ``None``: slime then accepts the legacy return values (the bare
    groups list for train, the bare data dict for eval).
    """

    def __init__(self, sample: Type[Any], train_output: Optional[Type[Any]] = None, eval_output: Optional[Type[Any]] = None) -> None:
        self.sample = sample
        self.train_output = train_output
        self.eval_output = eval_output


def load_slime_types() -> SlimeTypes:
    """Imports ``slime.utils.types.Sample`` and ``slime.rollout.base_types.RolloutFn{Train,Eval}Output``.

    :raises ImportError: when slime is not installed (pass ``SlimeTypes`` explicitly then).
    """
    from slime.utils.types import Sample  # type: ignore[import-not-found]

    try:
        from slime.rollout.base_types import RolloutFnEvalOutput, RolloutFnTrainOutput  # type: ignore[import-not-found]
    except ImportError:  # older slime: legacy return values
        return SlimeTypes(Sample)
    return SlimeTypes(Sample, RolloutFnTrainOutput, RolloutFnEvalOutput)


def _session_rewards(rows: Iterable[Row]) -> Dict[str, float]:
    """Each session's primary reward: the first non-null ``reward`` among its rows."""
    rewards: Dict[str, float] = {}
    for row in rows:
        if row.reward is not None and row.session_id not in rewards:
            rewards[row.session_id] = float(row.reward)
    return rewards


def _image_url(entry: Dict[str, Any]) -> str:
    """The URL of one image entry: its ``source``, else a ``data:image/<format>;base64,`` URI of ``data``."""
    if isinstance(entry.get("source"), str):
        return entry["source"]
    return "data:image/%s;base64,%s" % (entry.get("format", "png"), entry["data"])


def row_to_sample(
    row: Row, sample_cls: Type[Any], *, index: int, rollout_id: int, reward: Any, reward_filled: bool = False,
    group_index: Optional[int] = None, decode: Optional[Any] = None, label_key: Optional[str] = None,
) -> Any:  # fmt: skip
    """One training row as a slime ``Sample``.

    ``tokens``, ``response_length``, ``loss_mask``, ``rollout_log_probs``, ``weight_versions``, ``session_id``
    and ``group_index`` are copied; ``status`` becomes ``sample_cls.Status(row.status)`` (slime's values are
    the same lower-case words); ``reward`` is the given value (a number, or slime's ``--reward-key`` dict);
    ``index``, ``group_index`` (default the row's) and the integer ``rollout_id`` are the numbers chosen by
    the caller. ``decode(ids) -> str`` fills ``prompt`` / ``response``; ``label_key`` picks ``label`` from the
    row's metadata. ``metadata`` is the row's metadata plus a ``"relax"`` entry
    with the Relax identifiers (session, rollout id string, context name, state hash, prompt / sample index,
    weight-version spans, abort count, turns, stop reason, reward details, advantage).
    """
    sample = sample_cls()
    sample.group_index = row.group_index if group_index is None else group_index
    sample.index = index
    if decode is not None:
        prompt_length = len(row.tokens) - row.response_length
        sample.prompt = decode(list(row.tokens[:prompt_length]))
        sample.response = decode(list(row.tokens[prompt_length:]))
    if label_key is not None and row.metadata.get(label_key) is not None:
        sample.label = str(row.metadata[label_key])
    sample.rollout_id = rollout_id
    sample.tokens = list(row.tokens)
    sample.response_length = row.response_length
    sample.loss_mask = list(row.loss_mask)
    sample.rollout_log_probs = [float(value) for value in row.rollout_log_probs]
    sample.reward = reward
    sample.status = sample_cls.Status(row.status)
    sample.weight_versions = list(row.weight_versions)
    sample.session_id = row.session_id
    if row.multimodal_train_inputs:
        # Raw images for the trainer's processor (slime's ``multimodal_inputs``), as URLs: the row's
        # ``source`` or a data: URI of its inline bytes. The processor builds pixel_values itself; its
        # image_grid_thw must equal the rows in metadata["relax"]["multimodal_train_inputs"].
        sample.multimodal_inputs = {"image": [_image_url(entry) for entry in row.multimodal_train_inputs]}
    metadata = dict(row.metadata)
    metadata["relax"] = {
        "session_id": row.session_id,
        "rollout_id": row.rollout_id,
        "context_name": row.context_name,
        "request_class": row.request_class,
        "parent_state_hash": row.parent_state_hash,
        "turn_rewards": row.turn_rewards,
        "turn_reward_positions": row.turn_reward_positions,
        "state_hash": row.state_hash,
        "prompt_index": row.prompt_index,
        "sample_index": row.sample_index,
        "weight_version_spans": [[span.version, span.start, span.end] for span in row.weight_version_spans],
        "abort_count": row.abort_count,
        "num_turns": row.num_turns,
        "stop_reason": row.stop_reason,
        "reward_details": dict(row.reward_details),
        "advantage": row.advantage,
        "reward_filled": reward_filled,
        "group_index": row.group_index,
        "partition": row.extra.get("partition"),
        "steps_lived": row.extra.get("steps_lived"),
        "weight_version_lag": row.extra.get("weight_version_lag"),
    }
    if row.multimodal_train_inputs:
        metadata["relax"]["multimodal_train_inputs"] = [dict(entry) for entry in row.multimodal_train_inputs]
    sample.metadata = metadata
    return sample


def _ordered_sessions(rows: List[Row]) -> List[Tuple[int, List[List[Row]]]]:
    """``[(group_index, [rows of session 0, rows of session 1, …]), …]`` by group index, then sample index."""
    groups: Dict[int, Dict[str, List[Row]]] = {}
    for row in rows:
        groups.setdefault(row.group_index, {}).setdefault(row.session_id, []).append(row)
    ordered = []
    for group_index in sorted(groups):
        sessions = list(groups[group_index].values())
        sessions.sort(key=lambda session: (session[0].sample_index is None, session[0].sample_index or 0))
        ordered.append((group_index, sessions))
    return ordered


def rows_to_groups(
    rows: List[Row], sample_cls: Type[Any], *, nest: str = "auto", reward_source: str = "reward",
    first_group_index: Optional[int] = None, first_index: int = 0, decode: Optional[Any] = None,
    label_key: Optional[str] = None, reward_key: Optional[str] = None,
) -> List[List[Any]]:  # fmt: skip
    """Rows of one step as slime groups.

    ``nest``: ``"auto"`` gives ``list[list[Sample]]`` when every session has one row and
    ``list[list[list[Sample]]]`` (one list per session) as soon as one session has several; ``"always"`` /
    ``"never"`` force either shape (``"never"`` flattens sibling rows into the group). The shape is uniform
    across the step, as slime flattens by looking at the first element only.

    Rewards (``reward_source="reward"``): a row without a reward (a sibling context) gets its session's
    primary reward, or 0.0 when the session has none (``metadata["relax"]["reward_filled"]`` is then true).
    ``reward_source="advantage"`` puts Relax's ``advantage`` in ``Sample.reward`` instead.

    Integer rollout ids number the sessions of the step from 0 in order; sample indices number the rows from
    ``first_index``; with ``first_group_index`` the Groups are numbered from it in order (slime's run-wide
    ``group_index``; the row's own index stays in ``metadata["relax"]["group_index"]``). ``reward_key``:
    ``Sample.reward`` becomes ``{reward_key: value, **reward_details}`` (slime's ``--reward-key``).
    """
    if nest not in ("auto", "always", "never"):
        raise ValueError("nest must be 'auto', 'always' or 'never', got %r" % nest)
    if reward_source not in ("reward", "advantage"):
        raise ValueError("reward_source must be 'reward' or 'advantage', got %r" % reward_source)
    session_rewards = _session_rewards(rows)
    ordered = _ordered_sessions(rows)
    nested = nest == "always" or (nest == "auto" and any(len(s) > 1 for _, sessions in ordered for s in sessions))
    groups: List[List[Any]] = []
    index = first_index
    session_number = 0
    for position, (_, sessions) in enumerate(ordered):
        group_index = None if first_group_index is None else first_group_index + position
        group: List[Any] = []
        for session_rows in sessions:
            samples = []
            for row in session_rows:
                if reward_source == "advantage":
                    reward, filled = float(row.advantage), False
                elif row.reward is not None:
                    reward, filled = float(row.reward), False
                else:
                    reward, filled = session_rewards.get(row.session_id, 0.0), True
                value: Any = reward
                if reward_key is not None:
                    value = dict(row.reward_details)
                    value[reward_key] = reward
                samples.append(
                    row_to_sample(
                        row, sample_cls, index=index, rollout_id=session_number, reward=value, reward_filled=filled,
                        group_index=group_index, decode=decode, label_key=label_key,
                    )  # fmt: skip
                )
                index += 1
            session_number += 1
            if nested:
                group.append(samples)
            else:
                group.extend(samples)
        groups.append(group)
    return groups


class RelaxSlimeRollout:
    """The adapter: a :class:`RelaxClient` plus the slime classes. ``generate_rollout`` uses one per process.

    :param client: the control-API client.
    :param types: slime's classes (default: :func:`load_slime_types`).
    :param weight_version: sent with every step as the version the engine serves (default none: the engine
        responses name it).
    :param args: slime's parsed arguments (optional): ``num_rollout`` (the last step is sent as
        ``last_step``), ``label_key``, ``reward_key``, ``rollout_top_p``, ``rewards_normalization``,
        ``custom_reward_post_process_path``.
    :param decode: ``decode(token_ids) -> str`` for ``Sample.prompt`` / ``Sample.response`` (default none:
        they stay empty).
    :param process_images: ``process_images(image_urls) -> dict`` (the model's image processor: ``pixel_values``,
        ``image_grid_thw``, …) for ``Sample.multimodal_train_inputs`` of vision rows, as slime's rollout keeps
        its processor's output less ``input_ids`` / ``attention_mask``. Without it a step with images is refused.
    :raises ValueError: when ``args.rollout_top_p`` is below 1 (slime's conversion would then fail on the
        top-p replay ids Relax rows do not carry).
    """

    def __init__(
        self, client: RelaxClient, types: Optional[SlimeTypes] = None, *, weight_version: Optional[str] = None,
        eval_datasets: Optional[List[str]] = None, reward_source: str = "reward", nest: str = "auto",
        args: Any = None, decode: Optional[Any] = None, process_images: Optional[Any] = None,
    ) -> None:  # fmt: skip
        top_p = getattr(args, "rollout_top_p", 1.0)
        if top_p is not None and float(top_p) != 1.0:
            raise ValueError(
                "--rollout-top-p %s is not supported with relax_client.slime: slime then trains on the top-p replay "
                "token ids (rollout_top_p_token_ids / offsets) of each sample, which Relax rows do not carry; run slime "
                "and relax serve with --rollout-top-p 1" % top_p
            )
        self.client = client
        self.types = types if types is not None else load_slime_types()
        self.weight_version = weight_version
        self.eval_datasets = eval_datasets
        self.reward_source = reward_source
        self.nest = nest
        self.args = args
        self.decode = decode
        self.process_images = process_images
        #: The last step's stream (its ``summary``, ``dropped`` and any due-eval rows), for inspection.
        self.last_step: Optional[StepStream] = None
        # slime's run-wide numbering, when no data source carries it.
        self._next_group_index = 0
        self._next_index = 0

    def _check_credit(self, groups: List[List[Any]]) -> None:
        """Refuses multi-context rows whose credit slime would normalise over the whole batch."""
        args = self.args
        nested = any(isinstance(item, list) for group in groups for item in group)
        if not nested or self.reward_source != "reward" or args is None:
            return
        if not getattr(args, "rewards_normalization", False):
            return
        if "relax_client.slime" in str(getattr(args, "custom_reward_post_process_path", None) or ""):
            return
        raise ValueError(
            "this step has sessions with several contexts (sibling rows): slime's reward normalisation would "
            "average them over the whole batch with the main reward; use --custom-reward-post-process-path "
            "relax_client.slime.reward_post_process (Relax's per-row advantages), or "
            "--disable-rewards-normalization with relax_reward_source: advantage"
        )

    def _attach_images(self, groups: List[List[Any]]) -> None:
        """Sets ``multimodal_train_inputs`` of every vision sample, checking the processor's image grid against
        the row's (the image-pad tokens in ``tokens`` were counted from it)."""
        samples = [sample for sample in _leaves(groups) if getattr(sample, "multimodal_inputs", None)]
        if not samples:
            return
        if self.process_images is None:
            raise ValueError(
                "this step has image rows: slime trains them with Sample.multimodal_train_inputs (the image processor's "
                "pixel_values / image_grid_thw), which needs the model's processor; install transformers and set "
                "--hf-checkpoint, or pass RelaxSlimeRollout(process_images=…)"
            )
        for sample in samples:
            inputs = dict(self.process_images(list(sample.multimodal_inputs["image"])))
            for key in ("input_ids", "attention_mask"):
                inputs.pop(key, None)
            grid = inputs.get("image_grid_thw")
            expected = [list(entry["image_grid_thw"]) for entry in sample.metadata["relax"]["multimodal_train_inputs"]]
            got = grid.tolist() if hasattr(grid, "tolist") else grid
            if got is not None and [list(item) for item in got] != expected:
                raise ValueError(
                    "the image processor's image_grid_thw %s differs from the row's %s (session %s): the image-pad "
                    "tokens in the row were counted for another processor configuration" % (got, expected, sample.session_id)
                )
            sample.multimodal_train_inputs = inputs

    def train(self, rollout_id: int, data_source: Any = None) -> Any:
        """Runs step ``rollout_id`` and returns slime's train output.

        ``data_source`` (slime's): its ``sample_group_index`` / ``sample_index`` number the Groups and samples
        and are advanced by this step (slime saves them with its checkpoints, so a restart numbers alike).

        :raises RuntimeError: when the step produced no row (every Group dropped); slime cannot train on it.
        :raises ValueError: multi-context rows under slime's reward normalisation (see the module).
        :raises RelaxApiError: e.g. 409 ``step_out_of_order`` when slime's rollout id is beyond the server's next.
        """
        num_rollout = getattr(self.args, "num_rollout", None)
        last = isinstance(num_rollout, int) and rollout_id + 1 >= num_rollout
        with self.client.step(rollout_id, weight_version=self.weight_version, last_step=True if last else None) as stream:
            rows = stream.collect()
        self.last_step = stream
        if not rows:
            reasons = sorted({group.reason for group in stream.dropped})
            raise RuntimeError("relax step %d produced no rows (%d groups dropped: %s)" % (rollout_id, len(stream.dropped), ", ".join(reasons)))
        counted = data_source is not None and hasattr(data_source, "sample_group_index") and hasattr(data_source, "sample_index")
        first_group = data_source.sample_group_index if counted else self._next_group_index
        first_index = data_source.sample_index if counted else self._next_index
        groups = rows_to_groups(
            rows, self.types.sample, nest=self.nest, reward_source=self.reward_source,
            first_group_index=first_group, first_index=first_index, decode=self.decode,
            label_key=getattr(self.args, "label_key", None), reward_key=getattr(self.args, "reward_key", None),
        )  # fmt: skip
        self._check_credit(groups)
        self._attach_images(groups)
        next_group, next_index = first_group + len(groups), first_index + len(rows)
        if counted:
            data_source.sample_group_index, data_source.sample_index = next_group, next_index
        self._next_group_index, self._next_index = next_group, next_index
        metrics: Dict[str, Any] = dict(stream.summary.metrics) if stream.summary else {}
        metrics["relax/rows"] = len(rows)
        metrics["relax/dropped_groups"] = len(stream.dropped)
        if self.types.train_output is None:
            return groups
        return self.types.train_output(samples=groups, metrics=metrics)

    def evaluate(self, rollout_id: int) -> Any:
        """Runs the eval datasets and returns slime's eval output (``rewards``, ``truncated``, ``samples``).

        With ``relax serve --eval-function-path`` each dataset's ``eval_end`` summary carries what that function
        returned (``eval_function``: slime's ``RolloutFnEvalOutput`` shape): its ``data`` entries are returned as
        they are (an entry named like the dataset replaces the row rewards, keeping the samples) and its
        ``metrics`` become the output's ``metrics``, so slime logs what the eval function decided, as it does
        for its own ``--eval-function-path``.
        """
        with self.client.run_evals(rollout_id, datasets=self.eval_datasets) as stream:
            results = stream.collect()
        truncated_status = self.types.sample.Status("truncated")
        data: Dict[str, Dict[str, Any]] = {}
        metrics: Dict[str, Any] = {}
        for dataset, result in results.items():
            groups = rows_to_groups(result.rows, self.types.sample, nest="never", reward_source="reward")
            samples = [sample for group in groups for sample in group]
            data[dataset] = {
                "rewards": [sample.reward for sample in samples],
                "truncated": [sample.status == truncated_status for sample in samples],
                "samples": samples,
            }
            returned = result.summary.values.get("eval_function") if result.summary is not None else None
            if isinstance(returned, dict):
                for key, entry in (returned.get("data") or {}).items():
                    own = {"rewards": list(entry["rewards"])}
                    if "truncated" in entry:
                        own["truncated"] = list(entry["truncated"])
                    if key == dataset:
                        own["samples"] = samples
                    data[key] = own
                metrics.update(returned.get("metrics") or {})
        if self.types.eval_output is None:
            return data
        return self.types.eval_output(data=data, metrics=metrics or None)


_ADAPTERS: Dict[Tuple[Optional[str], Optional[str]], RelaxSlimeRollout] = {}


def _adapter_for(args: Any) -> RelaxSlimeRollout:
    url = getattr(args, "relax_control_url", None) or os.environ.get("RELAX_CONTROL_URL")
    token = getattr(args, "relax_control_token", None) or os.environ.get("RELAX_CONTROL_TOKEN")
    key = (url, token)
    if key not in _ADAPTERS:
        _ADAPTERS[key] = RelaxSlimeRollout(
            RelaxClient(url, token),
            eval_datasets=getattr(args, "relax_eval_datasets", None),
            reward_source=getattr(args, "relax_reward_source", None) or "reward",
            args=args,
            decode=_load_decode(args),
            process_images=_load_image_processor(args),
        )
    return _ADAPTERS[key]


def _leaves(groups: List[Any]) -> List[Any]:
    """Every ``Sample`` of a (possibly nested) group list, in order."""
    out: List[Any] = []
    for item in groups:
        if isinstance(item, list):
            out.extend(_leaves(item))
        else:
            out.append(item)
    return out


def _load_image_processor(args: Any) -> Optional[Any]:
    """``process_images(urls)`` with ``args.hf_checkpoint``'s image processor (``transformers``, PIL), or None."""
    checkpoint = getattr(args, "hf_checkpoint", None)
    if not checkpoint:
        return None
    try:
        import base64
        import io

        from PIL import Image  # type: ignore[import-not-found]
        from transformers import AutoProcessor  # type: ignore[import-not-found]

        processor = AutoProcessor.from_pretrained(checkpoint, trust_remote_code=True)
    except Exception:  # no transformers / PIL, or a text-only checkpoint: image steps are refused
        return None
    image_processor = getattr(processor, "image_processor", None)
    if image_processor is None:
        return None

    def load(url: str) -> Any:
        if not url.startswith("data:"):
            return Image.open(url) if not url.startswith(("http://", "https://")) else _fetch_image(url, Image, io)
        return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))

    return lambda urls: dict(image_processor(images=[load(url) for url in urls], return_tensors="pt"))


def _fetch_image(url: str, image_module: Any, io_module: Any) -> Any:
    from urllib.request import urlopen

    with urlopen(url, timeout=30) as response:  # noqa: S310 (the row's own image URL)
        return image_module.open(io_module.BytesIO(response.read()))


def _load_decode(args: Any) -> Optional[Any]:
    """``decode(ids)`` of ``args.hf_checkpoint``'s tokenizer (special tokens kept), or None when unavailable."""
    checkpoint = getattr(args, "hf_checkpoint", None)
    if not checkpoint:
        return None
    try:
        from transformers import AutoTokenizer  # type: ignore[import-not-found]

        tokenizer = AutoTokenizer.from_pretrained(checkpoint, trust_remote_code=True)
    except Exception:  # no transformers, or no tokenizer there: prompt / response stay empty
        return None
    return lambda ids: tokenizer.decode(ids, skip_special_tokens=False)


def reward_post_process(args: Any, samples: List[Any]) -> Tuple[List[Any], List[float]]:
    """For slime's ``--custom-reward-post-process-path relax_client.slime.reward_post_process``.

    Returns ``(raw_rewards, rewards)`` as slime's own post-processing does, with ``rewards`` the per-row
    advantages Relax computed per Group (``metadata["relax"]["advantage"]``: GRPO / RLOO over the Group's
    sessions, sibling contexts credited by their own rules), correct for any Group size and count.
    """
    reward_key = getattr(args, "reward_key", None)
    raw = [sample.reward[reward_key] if reward_key else sample.reward for sample in samples]
    return raw, [float(sample.metadata["relax"]["advantage"]) for sample in samples]


def turn_reward_tokens(sample: Any) -> List[float]:
    """A ``Sample``'s per-turn rewards placed on its response: ``response_length`` values, each turn's reward
    at its last generated token (``metadata["relax"]["turn_reward_positions"]``), 0.0 elsewhere and for a
    turn without one; all zeros for a row without per-turn rewards. For a custom slime loss or reward
    post-process (slime itself reads only the scalar ``Sample.reward``)."""
    relax = sample.metadata["relax"]
    dense = [0.0] * int(sample.response_length)
    for reward, position in zip(relax.get("turn_rewards") or [], relax.get("turn_reward_positions") or []):
        if reward is not None:
            dense[position] = float(reward)
    return dense


def generate_rollout(args: Any, rollout_id: int, data_source: Any = None, evaluation: bool = False) -> Any:
    """slime's rollout-function signature (``--rollout-function-path relax_client.slime.generate_rollout``).

    ``data_source`` gives no prompts (they come from ``relax serve``'s ``--prompt-data`` and its own cursor,
    kept in its ``--run-dir``), only slime's run-wide ``group_index`` / ``index`` counters.
    """
    adapter = _adapter_for(args)
    return adapter.evaluate(rollout_id) if evaluation else adapter.train(rollout_id, data_source)
