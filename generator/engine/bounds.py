"""The ranges a person may type for a workload: the command line's flags and the calculator's
fields check the same ones (the calculator page carries this table in its JSON).

The engine itself needs only "positive"; these bounds keep a request meaningful and its
numbers finite. Keys are the flag names of ``gpu-guide recommend`` without the dashes.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_PARAMS_B = 10_000
MAX_CONTEXT = 1_048_576
MAX_BATCH = 4096
MAX_ARCH_FIELD = 10_000_000


@dataclass(frozen=True)
class Bound:
    """A finite number in [low, high] (``low_open``: strictly above ``low``); ``whole``: an integer."""

    low: float | None
    high: float | None
    whole: bool = False
    low_open: bool = False


#: Every numeric flag of ``estimate`` / ``recommend`` and the calculator's fields of the same name.
BOUNDS: dict[str, Bound] = {
    "params": Bound(0, MAX_PARAMS_B, low_open=True),
    "layers": Bound(1, MAX_ARCH_FIELD, whole=True),
    "hidden": Bound(1, MAX_ARCH_FIELD, whole=True),
    "heads": Bound(1, MAX_ARCH_FIELD, whole=True),
    "kv-heads": Bound(1, MAX_ARCH_FIELD, whole=True),
    "vocab": Bound(1, MAX_ARCH_FIELD, whole=True),
    "intermediate": Bound(1, MAX_ARCH_FIELD, whole=True),
    "head-dim": Bound(1, MAX_ARCH_FIELD, whole=True),
    "experts": Bound(2, 1024, whole=True),
    "experts-per-token": Bound(1, 64, whole=True),
    "active-params": Bound(0, MAX_PARAMS_B, low_open=True),
    "kv-lora-rank": Bound(1, 65536, whole=True),
    "qk-rope-head-dim": Bound(0, 4096, whole=True),
    "sliding-window": Bound(1, MAX_CONTEXT, whole=True),
    "window-layers": Bound(1, 1000, whole=True),
    "linear-layers": Bound(1, 1000, whole=True),
    "linear-state": Bound(1, 1_000_000_000, whole=True),
    "dense-layers": Bound(1, 1000, whole=True),
    "shared-experts": Bound(1, 64, whole=True),
    # a model's positions (config.json max_position_embeddings): Llama 4 Scout's is 10,485,760
    "max-context": Bound(1, 2**24, whole=True),
    "batch": Bound(1, MAX_BATCH, whole=True),
    "context": Bound(1, MAX_CONTEXT, whole=True),
    "lora-rank": Bound(1, 1024, whole=True),
    "prompt-tokens": Bound(1, MAX_CONTEXT, whole=True),
    "output-tokens": Bound(1, MAX_CONTEXT, whole=True),
    "resolution": Bound(64, 8192, whole=True),
    "steps": Bound(1, 1000, whole=True),
    "images-per-month": Bound(0, 1e10, low_open=True),
    "budget": Bound(0, None, low_open=True),
    "hours-per-month": Bound(0, 744, low_open=True),
    "job-tokens": Bound(0, 1e6, low_open=True),
    "deadline-days": Bound(0, 3650, low_open=True),
    "disk-gb": Bound(0, 1e6),
    "egress-gb": Bound(0, 1e7),
}
