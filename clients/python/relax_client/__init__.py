"""Python client of the Relax trainer control API (``relax serve``, ``docs/trainer-api.md``).

Standard library only; NumPy is optional (``Row.to_numpy``)::

    from relax_client import RelaxClient
    client = RelaxClient("http://127.0.0.1:8000", token="…")   # or $RELAX_CONTROL_URL / $RELAX_CONTROL_TOKEN
    with client.step(0, weight_version="v0") as stream:
        for row in stream:          # rows arrive as their Group is exported
            ...
    print(stream.summary)

``relax_client.slime`` is a slime ``--rollout-function-path`` adapter.
"""

from .client import DEFAULT_TOKEN_ENV, DEFAULT_URL_ENV, RelaxClient, WeightUpdate
from .errors import RelaxApiError, RelaxConnectionError, RelaxError, RelaxProtocolError, RelaxStepError
from .streams import EvalStream, StepStream
from .types import (
    ROW_STATUSES,
    DatasetCursor,
    DroppedGroup,
    EvalResult,
    EvalSchedule,
    EvalSummary,
    Health,
    InFlight,
    PauseResult,
    ResumeResult,
    Row,
    Status,
    StepProgress,
    StepStart,
    StepSummary,
    WeightsResult,
    WeightVersionSpan,
    WorkerResult,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_TOKEN_ENV", "DEFAULT_URL_ENV", "RelaxClient", "WeightUpdate",
    "RelaxApiError", "RelaxConnectionError", "RelaxError", "RelaxProtocolError", "RelaxStepError",
    "EvalStream", "StepStream",
    "ROW_STATUSES", "DatasetCursor", "DroppedGroup", "EvalResult", "EvalSchedule", "EvalSummary", "Health",
    "InFlight", "PauseResult", "ResumeResult", "Row", "Status", "StepProgress", "StepStart", "StepSummary",
    "WeightsResult", "WeightVersionSpan", "WorkerResult",
]  # fmt: skip
