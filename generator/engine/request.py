"""One workload to size, and the estimate that comes back.

A :class:`Request` is what the buyer wants to run (workload, model shape, precision,
batch, context, card count); an :class:`Estimate` is the peak memory per card with its
breakdown and the assumptions behind it, in the words the pages print.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from generator.data.records import Offload, Optimizer, Precision, Runtime, Workload
from generator.data.rules import DefaultRules, PrefillLogits
from generator.engine.arch import Arch
from generator.engine.reason import Reason

T = TypeVar("T")

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
    """One assumption behind an estimate: its key and value, and a record the message table words
    (``message``; :func:`generator.pages.messages.assumption_text`)."""

    key: str
    value: str | float | int
    message: Reason


@dataclass(frozen=True, kw_only=True)
class Request:
    """One workload to size. Every field is stated: build one with :meth:`with_defaults`, which
    takes what is not given from ``rules.yaml``'s ``defaults`` (the one source of defaults).

    ``batch`` is the per-card micro-batch for training, the number of concurrent
    sequences for serving a language model and the images generated together for an
    image model; ``context`` is tokens per sequence (prompt + output for inference, of
    which ``output_tokens`` are generated; None: ``rules.defaults.output_tokens``).
    Image models use ``resolution`` (side of a square image in pixels) and ``offload``
    instead of ``context``. ``gpus`` is the card count; ``zero_stage`` applies to
    training on more than one card (1: optimizer states, 2: + gradients, 3: + parameters
    sharded). ``kv_precision`` None: the KV cache in the weights' precision.
    ``runtime`` is the software serving a language model, sized the way it allocates
    (``rules.memory.inference.runtimes``). ``prefill_logits`` overrides the runtime's logits and
    prefills the whole batch at once (None: the runtime's own way).
    """

    workload: Workload
    arch: Arch
    precision: Precision
    kv_precision: Precision | None
    batch: int
    context: int
    grad_checkpointing: bool
    optimizer: Optimizer
    lora_rank: int
    gpus: int
    zero_stage: int
    output_tokens: int | None
    resolution: int
    offload: Offload
    runtime: Runtime
    prefill_logits: PrefillLogits | None
    steps: int | None  # image models: denoising steps (None: the model's default_steps, else rules')

    def __post_init__(self) -> None:
        for name in ("batch", "context", "lora_rank", "gpus", "resolution"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not 0 <= self.zero_stage <= 3:
            raise ValueError("zero_stage must be 0, 1, 2 or 3")
        if self.output_tokens is not None and not 1 <= self.output_tokens < self.context:
            raise ValueError("output_tokens must be at least 1 and below context (the prompt needs a token)")

    @classmethod
    def with_defaults(
        cls,
        defaults: DefaultRules,
        workload: Workload,
        arch: Arch,
        precision: Precision,
        *,
        batch: int | None = None,
        context: int | None = None,
        grad_checkpointing: bool | None = None,
        optimizer: Optimizer | None = None,
        lora_rank: int | None = None,
        zero_stage: int | None = None,
        resolution: int | None = None,
        offload: Offload | None = None,
        gpus: int = 1,
        kv_precision: Precision | None = None,
        output_tokens: int | None = None,
        prefill_logits: PrefillLogits | None = None,
        steps: int | None = None,
        runtime: Runtime | None = None,
    ) -> Request:
        """The request with each field left None taken from ``defaults`` (rules.yaml). ``gpus``
        is one card unless given (the sizing tries more); ``kv_precision``, ``output_tokens`` and
        ``prefill_logits`` and ``steps`` keep their meaning of None (see the class)."""

        def pick(value: T | None, default: T) -> T:
            return default if value is None else value

        d = defaults
        return cls(
            workload=workload, arch=arch, precision=precision, kv_precision=kv_precision,
            batch=pick(batch, d.batch), context=pick(context, d.context),
            grad_checkpointing=pick(grad_checkpointing, d.grad_checkpointing),
            optimizer=pick(optimizer, d.optimizer), lora_rank=pick(lora_rank, d.lora_rank), gpus=gpus,
            zero_stage=pick(zero_stage, d.zero_stage), output_tokens=output_tokens,
            resolution=pick(resolution, d.resolution), offload=pick(offload, d.offload),
            runtime=pick(runtime, d.runtime), prefill_logits=prefill_logits, steps=steps,
        )  # fmt: skip

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
    #: model, transients of a training step. Shown under the breakdown table; the label is a record
    #: the message table words (generator.pages.messages.explain).
    detail: tuple[tuple[Reason, float], ...] = ()
