#!/usr/bin/env python3
"""The reference trainer loop against ``relax serve``: rollout -> train -> pause -> load weights -> resume.

It does not train: the stand-in "train" step summarises the rows, writes a small checkpoint directory and
bumps the weight version (``v0`` -> ``v1`` -> ...). The weight update goes through the control API's
``POST /rollout/v1/weights``, which forwards SGLang's ``/update_weights_from_disk`` (with the new
``weight_version``) to every engine worker while generation is paused.

``--update-mid-step`` also performs one weight update *during* each step, as soon as the server reports a
generation in flight, the way an asynchronous trainer pushes weights while rollouts run: turns that span it
carry two weight-version spans.

Usage::

    python3 trainer.py --url http://127.0.0.1:8000 --token "$RELAX_CONTROL_TOKEN" --steps 3 --checkpoint-dir ckpt
"""

import argparse
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))

from relax_client import RelaxClient, Row, StepSummary, WeightUpdate  # noqa: E402


@dataclass
class StepReport:
    """What one loop iteration saw and did."""

    rollout_id: int
    weight_version: str
    rows: List[Row]
    summary: Optional[StepSummary]
    dropped: int
    mid_step_update: Optional[WeightUpdate] = None
    mid_step_version: Optional[str] = None
    update: Optional[WeightUpdate] = None
    stats: Dict[str, Any] = field(default_factory=dict)


def version_name(number: int) -> str:
    return "v%d" % number


def version_number(name: Optional[str]) -> Optional[int]:
    if name and name.startswith("v") and name[1:].isdigit():
        return int(name[1:])
    return None


def standin_train(rows: List[Row], rollout_id: int, next_version: str, checkpoint_dir: str) -> Dict[str, Any]:
    """Stands in for an optimizer step: token and reward statistics, written as a 'checkpoint' directory."""
    trained = sum(row.trained_tokens for row in rows)
    rewards = [row.reward for row in rows if row.reward is not None]
    stats = {
        "rollout_id": rollout_id,
        "weight_version": next_version,
        "rows": len(rows),
        "trained_tokens": trained,
        "reward_mean": sum(rewards) / len(rewards) if rewards else None,
        "advantage_token_sum": sum(sum(row.advantages) for row in rows),
    }
    path = os.path.join(checkpoint_dir, "step-%d" % rollout_id)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "standin-checkpoint.json"), "w", encoding="utf-8") as handle:
        json.dump(stats, handle, sort_keys=True)
    stats["model_path"] = os.path.abspath(path)
    return stats


def _update_when_generating(
    client: RelaxClient, model_path: str, version: str, report: StepReport, stop: threading.Event, delay_s: float = 0.0,
) -> None:  # fmt: skip
    """Waits until the server reports a generation in flight (then ``delay_s`` more), then pauses, loads and resumes."""
    while not stop.is_set():
        in_flight = client.status().in_flight
        if in_flight is not None and in_flight.generating > 0:
            if delay_s > 0:
                # Let the engine emit some tokens first, so the update splits a turn rather than preceding it.
                stop.wait(delay_s)
            report.mid_step_update = client.update_weights(model_path, version)
            report.mid_step_version = version
            return
        time.sleep(0.02)


def run_trainer(
    client: RelaxClient, *, steps: int, checkpoint_dir: str, start_version: Optional[int] = None,
    update_mid_step: bool = False, mid_step_delay_s: float = 0.0, log: Any = None,
) -> List[StepReport]:  # fmt: skip
    """Runs ``steps`` iterations from the server's ``next_rollout_id``; returns one report per step.

    The current version is ``start_version``, else the server's ``weight_version`` (``vN``), else 0.
    """
    status = client.status()
    rollout_id = status.next_rollout_id
    version = start_version if start_version is not None else (version_number(status.weight_version) or 0)
    reports = []
    for _ in range(steps):
        report = StepReport(rollout_id, version_name(version), [], None, 0)
        updater = None
        stop = threading.Event()
        if update_mid_step:
            path = os.path.abspath(os.path.join(checkpoint_dir, "mid-step-%d" % rollout_id))
            os.makedirs(path, exist_ok=True)
            version += 1
            updater = threading.Thread(target=_update_when_generating, args=(client, path, version_name(version), report, stop, mid_step_delay_s))
            updater.start()
        try:
            with client.step(rollout_id, weight_version=report.weight_version) as stream:
                for row in stream:
                    report.rows.append(row)
        finally:
            stop.set()
            if updater is not None:
                updater.join()
        report.summary = stream.summary
        report.dropped = len(stream.dropped)
        version += 1
        report.stats = standin_train(report.rows, rollout_id, version_name(version), checkpoint_dir)
        report.update = client.update_weights(report.stats["model_path"], version_name(version))
        if log is not None:
            line = {"rollout_id": rollout_id, "weight_version": report.weight_version, "rows": len(report.rows),
                    "dropped_groups": report.dropped, "next_weight_version": version_name(version),
                    "aborted_requests": report.update.pause.aborted_requests,
                    "mid_step_version": report.mid_step_version}  # fmt: skip
            log.write(json.dumps(line) + "\n")
            log.flush()
        reports.append(report)
        rollout_id += 1
    return reports


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("RELAX_CONTROL_URL"), help="relax serve origin ($RELAX_CONTROL_URL)")
    parser.add_argument("--token", default=os.environ.get("RELAX_CONTROL_TOKEN"), help="control token ($RELAX_CONTROL_TOKEN)")
    parser.add_argument("--token-file", help="read the token from this file (e.g. <run-dir>/control-token)")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--checkpoint-dir", default="checkpoints")
    parser.add_argument("--start-version", type=int)
    parser.add_argument("--update-mid-step", action="store_true", help="also update weights once during each step")
    parser.add_argument("--mid-step-delay", type=float, default=0.0, help="seconds to wait after a generation is seen before the mid-step update")
    options = parser.parse_args(argv)
    client = RelaxClient(options.url, options.token, token_file=options.token_file)
    run_trainer(client, steps=options.steps, checkpoint_dir=options.checkpoint_dir, start_version=options.start_version,
                update_mid_step=options.update_mid_step, mid_step_delay_s=options.mid_step_delay, log=sys.stdout)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
