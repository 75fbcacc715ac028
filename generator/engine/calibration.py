"""Run the calibration set through the engine: each case's prediction against its published figure.

The ratio reported for a case is predicted / published in SPEED terms for training and serving
(for a time, published time / predicted time: above 1 the engine is faster than the source) and
predicted / published memory for image models (above 1 the engine aims high). The bands the
tests apply (median 0.8–1.25, every case 0.5–2) are symmetric on a log scale, so the direction
does not change which cases pass.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from generator.data.calibration import (
    CalibrationFile,
    CaseArch,
    DiffusionCase,
    ImageSpeedCase,
    InferenceMemoryCase,
    MemoryCase,
    ServingCase,
    TrainingCase,
    VideoCase,
)
from generator.data.records import Gpu, ModelKind, Precision, Runtime, Workload
from generator.data.rules import Rules
from generator.engine import image_speed, memory, speed, video
from generator.engine.arch import Arch, Component
from generator.engine.footprint import kv_bytes_per_token, weight_bytes
from generator.engine.request import Request
from generator.engine.units import SECONDS_PER_HOUR

#: Training workloads reported as the fine-tuning group (pre-training is "training").
FINETUNE = frozenset({Workload.lora, Workload.qlora, Workload.full})

#: The calibration group of a serving case by the runtime the engine predicts it with.
SERVING_GROUP = {
    Runtime.vllm: "serving",
    Runtime.transformers: "serving_transformers",
    Runtime.llama_cpp: "serving_llamacpp",
}

#: Every group, in the order reports list them.
GROUPS = (
    "training",
    "finetune",
    "serving",
    "serving_transformers",
    "serving_llamacpp",
    "diffusion",
    "memory",
    "inference_memory",
    "image_speed",
    "video",
)

#: Metrics that are times: a larger published value means slower.
TIME_METRICS = frozenset(
    {
        "gpu_hours",
        "wall_hours",
        "per_token_ms",
        "request_latency_s",
        "ttft_ms",
        "seconds_per_image",
        "seconds_per_video",
    }
)


@dataclass(frozen=True)
class CaseResult:
    file: str
    held_out: bool
    group: str  # one of GROUPS: training | finetune | serving[_transformers|_llamacpp] | diffusion | memory | inference_memory | image_speed
    kind: str  # serving: decode_single ...; training: the workload; inference_memory: the runtime; else the group
    id: str
    metric: str
    published: float
    predicted: float

    @property
    def ratio(self) -> float:
        """Predicted / published speed (training, serving) or memory (diffusion, memory)."""
        if self.metric in TIME_METRICS:
            return self.published / self.predicted
        return self.predicted / self.published


@dataclass(frozen=True)
class GroupSummary:
    group: str
    held_out: bool
    cases: int
    median: float
    worst: CaseResult  # the case farthest from 1 on a log scale
    low: float
    high: float


def _arch(a: CaseArch, rules: Rules) -> Arch:
    return Arch.from_params(
        a.params_b, layers=a.layers, hidden=a.hidden, heads=a.heads, kv_heads=a.kv_heads, vocab=a.vocab,
        intermediate=a.intermediate, head_dim=a.head_dim, experts=a.experts, experts_per_token=a.experts_per_token,
        active_params_b=a.active_params_b, tied_embeddings=a.tied_embeddings, defaults=rules.memory.arch_defaults,
        kv_lora_rank=a.kv_lora_rank, qk_rope_dim=a.qk_rope_head_dim, window=a.sliding_window,
        window_layers=a.sliding_window_layers, dense_layers=a.dense_layers, shared_experts=a.shared_experts,
    )  # fmt: skip


def _gpu(gpus: dict[str, Gpu], gpu_id: str, overrides: dict[str, float | int | str]) -> Gpu:
    try:
        base = gpus[gpu_id]
    except KeyError:
        raise ValueError(f"unknown GPU {gpu_id!r}; use an id from data/gpus.yaml and gpu_overrides") from None
    return base.model_copy(update=overrides) if overrides else base


def predict_training(case: TrainingCase, gpus: dict[str, Gpu], rules: Rules) -> float:
    gpu = _gpu(gpus, case.gpu, case.gpu_overrides)
    req = Request.with_defaults(
        rules.defaults, case.workload, _arch(case.arch, rules), Precision.bf16, batch=case.batch,
        context=case.context, grad_checkpointing=case.grad_checkpointing, gpus=case.gpus,
    )  # fmt: skip
    if case.metric == "tokens_per_s_per_gpu":
        probe = 1e12
        t = speed.training_hours(req, probe, gpu, case.gpus, rules)
        return probe / (t.step_hours * SECONDS_PER_HOUR) / case.gpus  # a benchmark's steady state
    t = speed.training_hours(req, (case.tokens_b or 0) * 1e9, gpu, case.gpus, rules)
    return t.gpu_hours if case.metric == "gpu_hours" else t.hours


def _with_build(rules: Rules, runtime: Runtime, build: str | None) -> Rules:
    """The rules with ``runtime`` scheduling as its older ``build`` (rules.yaml speed.runtime_builds)."""
    if build is None:
        return rules
    try:
        b = rules.speed.runtime_builds[build]
    except KeyError:
        raise ValueError(f"unknown runtime build {build!r}; use a key of speed.runtime_builds") from None
    if b.runtime is not runtime:
        raise ValueError(f"build {build!r} is a build of {b.runtime.value}, not of {runtime.value}")
    runtimes = dict(rules.speed.runtimes)
    runtimes[runtime] = runtimes[runtime].model_copy(update={"host_us_per_routed_expert": b.host_us_per_routed_expert})
    return rules.model_copy(update={"speed": rules.speed.model_copy(update={"runtimes": runtimes})})


def predict_serving(case: ServingCase, gpus: dict[str, Gpu], rules: Rules) -> float:
    rules = _with_build(rules, case.runtime, case.build)
    gpu = _gpu(gpus, case.gpu, case.gpu_overrides)
    n = case.gpus
    context = case.prompt_tokens + case.output_tokens
    req = Request.with_defaults(
        rules.defaults, Workload.inference, _arch(case.arch, rules), case.precision, kv_precision=case.kv_precision,
        batch=case.batch or 1, context=context, gpus=n, runtime=case.runtime,
    )  # fmt: skip
    batch = case.batch or speed.max_concurrency(req, gpu, n, rules, cap=case.max_concurrency)[0]
    point = speed.serve(req, gpu, n, rules, case.prompt_tokens, case.output_tokens, batch)
    if case.metric == "prompt_tokens_per_s":
        return case.prompt_tokens * batch / speed.prefill_seconds(req, gpu, n, rules, case.prompt_tokens, batch)
    if case.metric == "ttft_ms":
        return speed.prefill_seconds(req, gpu, n, rules, case.prompt_tokens, batch) * 1000
    if case.metric == "per_token_ms":
        return point.step_s * 1000
    if case.metric == "request_latency_s":
        return point.wave_s
    rate = point.output_tokens_per_s
    return rate / n if case.per_gpu else rate


def predict_diffusion(case: DiffusionCase, rules: Rules) -> float:
    parts = tuple(
        Component(c.role, c.name, float(c.params), c.fp32_decode_in_fp16, float(c.fp32_params_in_fp16))
        for c in case.components
    )
    total_b = sum(c.params for c in case.components) / 1e9
    arch = Arch.diffusion(total_b, parts, case.denoiser_passes, rules.memory.arch_defaults)
    assert arch.kind is ModelKind.diffusion
    req = Request.with_defaults(
        rules.defaults, Workload.inference, arch, case.precision,
        batch=case.batch, resolution=case.resolution, offload=case.offload,
    )  # fmt: skip
    return memory.estimate(req, rules.memory).total_gib


def predict_memory(case: MemoryCase, rules: Rules) -> float:
    """KV cache of one token (1000-byte KB, one card) or the weights' bytes (10^9) at the case's precision."""
    arch = _arch(case.arch, rules)
    if case.metric == "kv_kb_per_token":
        return kv_bytes_per_token(arch, case.precision, rules.memory) / 1000
    return weight_bytes(arch, case.precision, rules.memory) / 1e9


def predict_inference_memory(case: InferenceMemoryCase, rules: Rules) -> float:
    """Peak GiB of the tensors the runtime allocates (the estimate less its CUDA context and fragmentation)."""
    context = case.prompt_tokens + case.output_tokens
    req = Request.with_defaults(
        rules.defaults, Workload.inference, _arch(case.arch, rules), case.precision, batch=case.batch,
        context=context, output_tokens=case.output_tokens, gpus=case.gpus, runtime=case.runtime,
    )  # fmt: skip
    est = memory.estimate(req, rules.memory)
    return est.total_gib - est.breakdown["overhead"]


def predict_image_speed(case: ImageSpeedCase, gpus: dict[str, Gpu], rules: Rules) -> float:
    """Seconds per image (one image per call: the engine does not model batching)."""
    parts = tuple(
        Component(c.role, c.name, float(c.params), c.fp32_decode_in_fp16, float(c.fp32_params_in_fp16))
        for c in case.components
    )
    total_b = sum(c.params for c in case.components) / 1e9
    arch = Arch.diffusion(total_b, parts, case.denoiser_passes, rules.memory.arch_defaults,
                          denoiser_text_tokens=case.denoiser_text_tokens)  # fmt: skip
    req = Request.with_defaults(
        rules.defaults,
        Workload.inference,
        arch,
        Precision(case.precision),
        resolution=case.resolution,
        steps=case.steps,
    )
    return image_speed.seconds_per_image(req, _gpu(gpus, case.gpu, {}), rules).seconds


def predict_video(case: VideoCase, gpus: dict[str, Gpu], rules: Rules) -> float:
    """Seconds per video: the DiT's denoising at the card's dense BF16 peak x MFU, split over
    ``case.cards`` cards at the Wan table's sequence-parallel speed-up."""
    cfg = video.DitConfig(case.dim, case.ffn_dim, case.num_layers, case.num_heads, case.params,
                          case.text_encoder_params, case.vae_params)  # fmt: skip
    req = video.VideoRequest(case.width, case.height, case.frames, case.steps, case.guidance,
                             case.offload_model, case.t5_cpu)  # fmt: skip
    scaling = video.sp_scaling(rules, case.cards)
    if scaling is None:
        raise ValueError(f"{case.id}: no sequence-parallel speed-up for {case.cards} cards in rules.yaml speed.video")
    peak = image_speed.peak_tflops(_gpu(gpus, case.gpu, {}), Precision.bf16)
    return video.seconds_per_video(cfg, req, video.constants(rules), peak, scaling, case.cards).seconds


def run(files: dict[str, CalibrationFile], gpus: dict[str, Gpu], rules: Rules) -> list[CaseResult]:
    """Every case of every file, in file order."""
    out: list[CaseResult] = []
    for name, f in files.items():
        for t in f.training:
            group = "finetune" if t.workload in FINETUNE else "training"
            out.append(CaseResult(name, f.held_out, group, t.workload.value, t.id, t.metric, t.published,
                                  predict_training(t, gpus, rules)))  # fmt: skip
        for s in f.serving:
            out.append(CaseResult(name, f.held_out, SERVING_GROUP[s.runtime], s.kind, s.id, s.metric, s.published,
                                  predict_serving(s, gpus, rules)))  # fmt: skip
        for d in f.diffusion:
            out.append(CaseResult(name, f.held_out, "diffusion", "diffusion", d.id, d.metric, d.published,
                                  predict_diffusion(d, rules)))  # fmt: skip
        for m in f.memory:
            out.append(CaseResult(name, f.held_out, "memory", m.metric, m.id, m.metric, m.published,
                                  predict_memory(m, rules)))  # fmt: skip
        for im in f.image_speed:
            out.append(CaseResult(name, f.held_out, "image_speed", "image_speed", im.id, im.metric, im.published,
                                  predict_image_speed(im, gpus, rules)))  # fmt: skip
        for v in f.video:
            out.append(CaseResult(name, f.held_out, "video", "video", v.id, v.metric, v.published,
                                  predict_video(v, gpus, rules)))  # fmt: skip
        for c in f.inference_memory:
            out.append(CaseResult(name, f.held_out, "inference_memory", c.runtime.value, c.id, c.metric, c.published,
                                  predict_inference_memory(c, rules)))  # fmt: skip
    return out


def summarise(results: list[CaseResult]) -> list[GroupSummary]:
    """Median and worst ratio per (group, held_out), groups in a fixed order."""
    import math

    out = []
    for group in GROUPS:
        for held in (False, True):
            mine = [r for r in results if r.group == group and r.held_out is held]
            if not mine:
                continue
            ratios = [r.ratio for r in mine]
            worst = max(mine, key=lambda r: abs(math.log(r.ratio)))
            out.append(GroupSummary(group, held, len(mine), statistics.median(ratios), worst, min(ratios), max(ratios)))
    return out
