"""Typed records of the calibration set (``docs-dev/calibration/*.yaml``): published training
runs, serving measurements, image-model memory peaks and image-generation times, each with its source, where in the
source, and the source's own words.

A case file holds ``training``, ``serving``, ``diffusion``, ``memory``, ``image_speed``, ``video`` and/or
``inference_memory`` lists and says whether it is
``held_out`` (checked the same way, reported apart: cases nobody tuned a constant on). A new
file dropped into the folder is read, checked and reported with the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, Strict, model_validator

from generator.data.load import ParseMemo, load_file
from generator.data.problems import Problem
from generator.data.records import (
    ComponentRole,
    HttpUrl,
    Offload,
    Precision,
    Record,
    Runtime,
    ShortText,
    Slug,
    Text,
    Workload,
)

Confidence = Literal["high", "medium", "low"]
PrecisionName = Annotated[Precision, Strict(False)]


class CaseArch(Record):
    """A model's shape as the source (or its config.json) gives it."""

    params_b: float = Field(gt=0, description="Total parameters, billions (all experts).")
    layers: int = Field(ge=1)
    hidden: int = Field(ge=64)
    heads: int | None = Field(default=None, ge=1)
    kv_heads: int | None = Field(default=None, ge=1)
    head_dim: int | None = Field(default=None, ge=8)
    intermediate: int | None = Field(default=None, ge=64)
    vocab: int | None = Field(default=None, ge=256)
    experts: int | None = Field(default=None, ge=2)
    experts_per_token: int | None = Field(default=None, ge=1)
    active_params_b: float | None = Field(default=None, gt=0)
    tied_embeddings: bool = False
    kv_lora_rank: int | None = Field(default=None, ge=1, description="Multi-head latent attention (config.json).")
    qk_rope_head_dim: int = Field(default=0, ge=0)
    sliding_window: int | None = Field(default=None, ge=1)
    sliding_window_layers: int = Field(default=0, ge=0)
    dense_layers: int = Field(default=0, ge=0)
    shared_experts: int = Field(default=0, ge=0)


class _Case(Record):
    id: Slug
    model: ShortText = Field(description="The model as the source names it.")
    source: HttpUrl
    where: ShortText = Field(description="Where in the source the figure is.")
    quote: Text = Field(description="The source's own words or table row.")
    confidence: Confidence
    note: Text | None = None


class TrainingCase(_Case):
    """A published training run or throughput benchmark."""

    arch: CaseArch
    gpu: Slug = Field(description="gpus.yaml id.")
    gpu_overrides: dict[str, float | int | str] = Field(default_factory=dict, description="Figures that differ.")
    workload: Annotated[Workload, Strict(False)] = Workload.pretrain
    context: int = Field(ge=64, description="Sequence length of the run.")
    batch: int = Field(default=1, ge=1, description="Micro-batch per card (sequences per forward pass).")
    grad_checkpointing: bool = Field(default=True, description="Whether the run recomputes activations.")
    gpus: int = Field(ge=1, description="Cards of the run (GPU-hours do not depend on it when none is published).")
    tokens_b: float | None = Field(default=None, gt=0, description="Tokens trained on, billions.")
    metric: Literal["gpu_hours", "wall_hours", "tokens_per_s_per_gpu"]
    published: float = Field(gt=0)

    @model_validator(mode="after")
    def _tokens(self) -> TrainingCase:
        if self.metric != "tokens_per_s_per_gpu" and self.tokens_b is None:
            raise ValueError(f"metric {self.metric} needs tokens_b")
        return self


class ServingCase(_Case):
    """A published serving measurement."""

    kind: Literal["decode_single", "decode_tp", "decode_quant", "throughput", "ttft"]
    arch: CaseArch
    gpu: Slug
    gpu_overrides: dict[str, float | int | str] = Field(default_factory=dict)
    gpus: int = Field(ge=1, description="Cards the model runs on (split the runtime's way).")
    runtime: Annotated[Runtime, Strict(False)] = Field(
        default=Runtime.vllm,
        description="The runtime model the engine predicts with: vllm for vLLM and the engines that schedule "
        "like it (TensorRT-LLM, LMDeploy ...); transformers or llama.cpp for those runtimes' own measurements.",
    )
    build: ShortText | None = Field(
        default=None,
        description="An older build of the runtime the measurement ran (rules.yaml speed.runtime_builds), where it "
        "schedules differently from the current build the pages assume; null: the current build.",
    )
    precision: PrecisionName
    kv_precision: PrecisionName | None = None
    batch: int | None = Field(default=None, ge=1, description="Concurrent requests; null: as many as memory allows.")
    max_concurrency: int | None = Field(default=None, ge=1, description="The engine's cap when batch is null.")
    prompt_tokens: int = Field(ge=1)
    output_tokens: int = Field(ge=1)
    metric: Literal["per_token_ms", "output_tokens_per_s", "request_latency_s", "ttft_ms", "prompt_tokens_per_s"] = (
        Field(
            description="prompt_tokens_per_s: prompt tokens processed per second (llama-bench's pp test); "
            "output_tokens_per_s divides by the whole request's time when the source does (Qwen's speed benchmark)."
        )
    )
    per_gpu: bool = Field(default=False, description="The published rate is per GPU, not for the whole group.")
    published: float = Field(gt=0)
    engine: ShortText


class CaseComponent(Record):
    role: Annotated[ComponentRole, Strict(False)]
    name: ShortText
    params: int = Field(ge=1)
    fp32_decode_in_fp16: bool = False
    fp32_params_in_fp16: int = Field(default=0, ge=0)


class DiffusionCase(_Case):
    """A published peak-memory measurement of an image-generation pipeline."""

    components: list[CaseComponent] = Field(min_length=1)
    denoiser_passes: int = Field(ge=1, le=4)
    precision: PrecisionName
    batch: int = Field(ge=1)
    resolution: int = Field(ge=64)
    offload: Annotated[Offload, Strict(False)] = Offload.none
    metric: Literal["peak_gib"]
    published: float = Field(gt=0)


class MemoryCase(_Case):
    """A published memory fact of a language model: KV cache per token, or its checkpoint's size on disk."""

    arch: CaseArch
    precision: PrecisionName = Field(description="KV-cache dtype (kv metrics) or the checkpoint's weight format.")
    metric: Literal["kv_kb_per_token", "checkpoint_gb"] = Field(
        description="kv_kb_per_token: KV cache of one token over all layers, 1000-byte KB; checkpoint_gb: weights, "
        "10^9 bytes."
    )
    published: float = Field(gt=0)


class InferenceMemoryCase(_Case):
    """A published peak memory of serving a language model under a named runtime (e.g. Hugging Face
    ``generate`` measured by ``torch.cuda.max_memory_allocated``)."""

    arch: CaseArch
    runtime: Annotated[Runtime, Strict(False)] = Field(description="The runtime the source measured.")
    precision: PrecisionName = Field(description="The weights' format (GPTQ/AWQ 4-bit: int4).")
    gpus: int = Field(default=1, ge=1, le=1, description="Cards: single-card measurements only.")
    batch: int = Field(default=1, ge=1, description="Sequences generated together.")
    prompt_tokens: int = Field(ge=1)
    output_tokens: int = Field(ge=1)
    metric: Literal["peak_allocated_gib"] = Field(
        description="Peak of the tensors allocated (torch.cuda.max_memory_allocated), GiB: the estimate less its "
        "overhead (CUDA context, allocator fragmentation), which that counter does not see."
    )
    published: float = Field(gt=0)


class ImageSpeedCase(_Case):
    """A published time per image of an image-generation pipeline."""

    components: list[CaseComponent] = Field(min_length=1)
    denoiser_passes: int = Field(ge=1, le=4)
    denoiser_text_tokens: int = Field(default=0, ge=0, description="Text tokens a joint-attention denoiser carries.")
    gpu: Slug = Field(description="gpus.yaml id.")
    precision: PrecisionName
    steps: int = Field(ge=1)
    resolution: int = Field(ge=64)
    batch: int = Field(default=1, ge=1, description="Images per pipeline call in the source (the time is per image).")
    metric: Literal["seconds_per_image"]
    published: float = Field(gt=0)


class VideoCase(_Case):
    """A published time per video of a Wan 2.1 text-to-video run (generator/engine/video.py)."""

    dim: int = Field(ge=1, description="DiT width (wan/configs dim).")
    ffn_dim: int = Field(ge=1)
    num_layers: int = Field(ge=1)
    num_heads: int = Field(ge=1)
    params: float = Field(gt=0, description="DiT parameters.")
    text_encoder_params: float = Field(gt=0, description="umt5-xxl encoder parameters.")
    vae_params: float = Field(gt=0)
    gpu: Slug = Field(description="gpus.yaml id.")
    cards: int = Field(default=1, ge=1, description="Cards one video is split over (sequence parallel).")
    width: int = Field(ge=16)
    height: int = Field(ge=16)
    frames: int = Field(ge=1)
    steps: int = Field(ge=1)
    guidance: bool = Field(default=True, description="Classifier-free guidance: two DiT passes a step.")
    offload_model: bool = False
    t5_cpu: bool = False
    metric: Literal["seconds_per_video"]
    published: float = Field(gt=0)


class CalibrationFile(Record):
    """One file of ``docs-dev/calibration/``."""

    description: Text
    held_out: bool = Field(description="true: no constant was tuned on these cases; reported apart.")
    training: list[TrainingCase] = Field(default_factory=list)
    serving: list[ServingCase] = Field(default_factory=list)
    diffusion: list[DiffusionCase] = Field(default_factory=list)
    memory: list[MemoryCase] = Field(default_factory=list)
    image_speed: list[ImageSpeedCase] = Field(default_factory=list)
    inference_memory: list[InferenceMemoryCase] = Field(default_factory=list)
    video: list[VideoCase] = Field(default_factory=list)


def load_calibration(folder: Path, memo: ParseMemo | None = None) -> tuple[dict[str, CalibrationFile], list[Problem]]:
    """Every ``*.yaml`` in ``folder``, by file name, with the problems of those that do not validate
    (``memo``: keep the parse of files whose bytes did not change)."""
    from generator.data.validate import validate_document

    files: dict[str, CalibrationFile] = {}
    problems: list[Problem] = []
    for path in sorted(folder.glob("*.yaml")):
        doc, found = load_file(path, path.name, root="held_out", memo=memo)
        problems += found
        if doc is None:
            continue
        record, found = validate_document(doc, CalibrationFile)
        problems += found
        if isinstance(record, CalibrationFile):
            files[path.name] = record
    return files, problems
