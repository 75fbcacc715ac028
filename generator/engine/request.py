"""One workload to size, and the estimate that comes back.

A :class:`Request` is what the buyer wants to run (workload, model shape, precision,
batch, context, card count); an :class:`Estimate` is the peak memory per card with its
breakdown and the assumptions behind it, in the words the pages print.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from generator.data.records import Offload, Optimizer, Precision, Workload
from generator.data.rules import PrefillLogits
from generator.engine.arch import Arch

#: Breakdown keys, in display order. Persistent states: ``weights`` (as stored; for image models the
#: components on the GPU at the peak), ``kv_cache``, ``gradients``, ``optimizer_states`` (16 bytes per
#: parameter together for mixed-precision AdamW, ZeRO §3.1). Per step: ``activations``. Transients:
#: ``transients`` (optimizer-step temporaries, autocast weight copies, ZeRO-3 gathers and reduce
#: buckets, 4-bit dequantization buffers). ``overhead``: CUDA context, NCCL and allocator fragmentation.
BREAKDOWN_KEYS = ("weights", "kv_cache", "activations", "gradients", "optimizer_states", "transients", "overhead")


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

    ``batch`` is the per-card micro-batch for training, the number of concurrent
    sequences for serving a language model and the images generated together for an
    image model; ``context`` is tokens per sequence (prompt + output for inference, of
    which ``output_tokens`` are generated; None: ``rules.defaults.output_tokens``).
    Image models use ``resolution`` (side of a square image in pixels) and ``offload``
    instead of ``context``. ``gpus`` is the card count; ``zero_stage`` applies to
    training on more than one card (1: optimizer states, 2: + gradients, 3: + parameters
    sharded). ``prefill_logits`` overrides the serving stack's logits (None: the stack
    ``rules.memory.inference.serving_stack`` names).
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
    output_tokens: int | None = None
    resolution: int = 1024
    offload: Offload = Offload.none
    prefill_logits: PrefillLogits | None = None
    steps: int | None = None  # image models: denoising steps (None: the model's default_steps, else rules')

    def __post_init__(self) -> None:
        # Accept plain strings for the enums (convenient in tests and scripts).
        object.__setattr__(self, "workload", Workload(self.workload))
        object.__setattr__(self, "precision", Precision(self.precision))
        object.__setattr__(self, "optimizer", Optimizer(self.optimizer))
        object.__setattr__(self, "offload", Offload(self.offload))
        if self.kv_precision is not None:
            object.__setattr__(self, "kv_precision", Precision(self.kv_precision))
        if self.prefill_logits is not None:
            object.__setattr__(self, "prefill_logits", PrefillLogits(self.prefill_logits))
        for name in ("batch", "context", "lora_rank", "gpus", "resolution"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not 0 <= self.zero_stage <= 3:
            raise ValueError("zero_stage must be 0, 1, 2 or 3")
        if self.output_tokens is not None and not 1 <= self.output_tokens < self.context:
            raise ValueError("output_tokens must be at least 1 and below context (the prompt needs a token)")

    @property
    def tokens(self) -> int:
        """Tokens one card processes per step (micro-batch × context)."""
        return self.batch * self.context

    @property
    def megapixels(self) -> float:
        """Pixels of one generated image, in millions (image models)."""
        return self.resolution * self.resolution / 1e6


@dataclass(frozen=True)
class Estimate:
    """Peak memory per card, where it goes, and why."""

    total_gib: float
    #: GiB per card at the peak moment, keys BREAKDOWN_KEYS; sums to total_gib.
    breakdown: dict[str, float]
    assumptions: list[Assumption]
    peak_phase: PeakPhase
    #: (label, GiB) lines that explain parts of the breakdown: pipeline components of an image
    #: model, transients of a training step. Shown under the breakdown table.
    detail: tuple[tuple[str, float], ...] = ()
