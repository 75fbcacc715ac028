"""One workload to size, and the estimate that comes back.

A :class:`Request` is what the buyer wants to run (workload, model shape, precision,
batch, context, card count); an :class:`Estimate` is the peak memory per card with its
breakdown and the assumptions behind it, in the words the pages print.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from generator.data.records import Optimizer, Precision, Workload
from generator.engine.arch import Arch

#: Breakdown keys, in display order.
BREAKDOWN_KEYS = ("weights", "kv_cache", "activations", "gradients", "optimizer_states", "overhead")


class PeakPhase(StrEnum):
    """The moment of a job at which memory peaks."""

    inference = "inference"
    forward_backward = "forward_backward"
    optimizer_step = "optimizer_step"


@dataclass(frozen=True)
class Assumption:
    """One assumption behind an estimate; ``text_zh`` is shown on the page as is."""

    key: str
    value: str | float | int
    text_zh: str


@dataclass(frozen=True)
class Request:
    """One workload to size.

    ``batch`` is the per-card micro-batch for training and the number of concurrent
    sequences for inference; ``context`` is tokens per sequence (prompt + output for
    inference). ``gpus`` is the card count; ``zero_stage`` applies to training on
    more than one card (1: optimizer states, 2: + gradients, 3: + parameters sharded).
    """

    workload: Workload
    arch: Arch
    precision: Precision
    kv_precision: Precision | None = None
    batch: int = 1
    context: int = 2048
    grad_checkpointing: bool = True
    optimizer: Optimizer = Optimizer.adamw
    lora_rank: int = 16
    gpus: int = 1
    zero_stage: int = 0

    def __post_init__(self) -> None:
        # Accept plain strings for the enums (convenient in tests and scripts).
        object.__setattr__(self, "workload", Workload(self.workload))
        object.__setattr__(self, "precision", Precision(self.precision))
        object.__setattr__(self, "optimizer", Optimizer(self.optimizer))
        if self.kv_precision is not None:
            object.__setattr__(self, "kv_precision", Precision(self.kv_precision))
        for name in ("batch", "context", "lora_rank", "gpus"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not 0 <= self.zero_stage <= 3:
            raise ValueError("zero_stage must be 0, 1, 2 or 3")

    @property
    def tokens(self) -> int:
        """Tokens one card processes per step (micro-batch × context)."""
        return self.batch * self.context


@dataclass(frozen=True)
class Estimate:
    """Peak memory per card, where it goes, and why."""

    total_gib: float
    #: GiB per card at the peak moment, keys BREAKDOWN_KEYS; sums to total_gib.
    breakdown: dict[str, float]
    assumptions: list[Assumption]
    peak_phase: PeakPhase
