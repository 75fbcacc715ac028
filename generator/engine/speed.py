"""How long a training job takes and how fast a card set serves tokens.

First-order roofline estimates, each term calibrated against published runs
(``docs-dev/calibration/``, method in ``docs-dev/estimator.md``):

* training divides MODEL FLOPs (6·N + attention per token; recomputation is hardware work,
  not model FLOPs) by the card's dense 16-bit peak and the platform's published MFU;
* a decode step streams the weights and the KV cache once, or runs the batch's GEMMs, or
  dequantizes weight-only quantized weights on the CUDA cores, whichever is slowest, plus two
  all-reduces per layer under tensor parallelism and a fixed per-step cost;
* prompt processing (prefill) is compute-bound, but never faster than reading the weights once;
* serving at a concurrency time-shares prefill and decode: a wave of ``c`` requests takes the
  prefill of all prompts plus ``output`` decode steps;
* the runtime decides how cards split the work and what a step costs beyond the GPU
  (``speed.runtimes``): vLLM runs tensor-parallel with CUDA graphs; Hugging Face transformers
  ``generate()`` splits layers over the cards (``device_map``: one card works at a time), issues
  every kernel from Python (a per-layer floor on the step), moves its growing cache more than once
  per step, and batches statically (a request's first token waits for the whole batch's prefill);
  llama.cpp splits layers too.

Every constant lives in ``data/rules.yaml`` (:class:`~generator.data.rules.SpeedRules`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from generator.data.records import Gpu, Precision, Runtime, Workload
from generator.data.rules import LinkKind, MemoryRules, Rules, ServingRules, SpeedRules, TrainingPlatform
from generator.engine import memory
from generator.engine.arch import Arch
from generator.engine.footprint import default_kv_precision, kv_bytes_per_sequence, parallel_layout, weight_bytes
from generator.engine.links import (
    allreduce_seconds,
    cluster_fabric_reason,
    link_gbps_per_direction,
    link_kind,
    link_reason,
)
from generator.engine.reason import Param, Reason, ReasonKind
from generator.engine.request import Assumption, Request
from generator.engine.scaling import Cluster, cluster_scaling
from generator.engine.training_memory import frozen_base_bytes
from generator.engine.units import BITS_PER_BYTE, GIGA, MILLION, SECONDS_PER_HOUR, TERA

#: FP32 TFLOPS assumed for dequantization when a datasheet gives none: the A100's ratio of
#: dense 16-bit tensor to FP32 throughput (312 / 19.5 = 16).
_TENSOR_TO_FP32 = 16.0


@dataclass(frozen=True)
class TrainTime:
    """Wall-clock estimate of a training job."""

    hours: float  # wall clock, including the time lost to restarts (goodput)
    gpu_hours: float
    step_hours: float  # the training steps alone (steady-state throughput)
    flops: float  # model FLOPs of the whole job
    mfu: float  # model FLOPs utilization the job runs at (platform MFU x scaling)
    platform: TrainingPlatform
    scaling: float
    link: LinkKind
    assumptions: list[Assumption]


@dataclass(frozen=True)
class Step:
    """One decode step of a replica (all its cards together), seconds per part."""

    seconds: float
    weights: float  # streaming the weights
    gemm: float  # the batch's matmuls
    dequant: float  # weight-only quantized formats: dequantizing on the CUDA cores
    kv: float  # reading the KV cache (times the runtime's kv_traffic)
    comm: float  # tensor-parallel all-reduces and pipeline hops
    overhead: float  # sampling, scheduling, launches
    host: float = 0.0  # the runtime's floor: layers x the host's time to issue one layer's kernels
    dispatch: float = 0.0  # a runtime that routes MoE experts on the host: dispatching them, on top of the rest

    @property
    def bound(self) -> str:
        """What limits the step: memory, compute, dequant, kv or host."""
        parts = {
            "memory": self.weights,
            "compute": self.gemm,
            "dequant": self.dequant,
            "kv": self.kv,
            "host": self.host + self.dispatch,
        }
        return max(parts, key=lambda k: parts[k])


@dataclass(frozen=True)
class Throughput:
    """Decode speed of one replica (all its cards together)."""

    tokens_per_s: float  # output tokens per second over the whole batch
    per_token_ms: float  # one decode step = time between two tokens of one sequence
    bound: str  # "memory" | "compute" | "dequant" | "kv" | "host"
    assumptions: list[Assumption]


@dataclass(frozen=True)
class Serving:
    """A replica serving ``concurrency`` requests of ``prompt_tokens`` + ``output_tokens`` at once."""

    concurrency: int
    prompt_tokens: int
    output_tokens: int
    prefill_s: float  # all prompts of one wave
    step_s: float  # one decode step halfway through the answers
    ttft_s: float  # time to first token: its prompt alone on an idle replica; static batching: the wave's prefill

    @property
    def wave_s(self) -> float:
        """One wave: every prompt, then every output token (prefill and decode time-shared)."""
        return self.prefill_s + self.output_tokens * self.step_s

    @property
    def output_tokens_per_s(self) -> float:
        return self.concurrency * self.output_tokens / self.wave_s

    @property
    def total_tokens_per_s(self) -> float:
        """Prompt and output tokens processed per second."""
        return self.concurrency * (self.prompt_tokens + self.output_tokens) / self.wave_s


# --------------------------------------------------------------------------- FLOPs


def _compute_params(arch: Arch) -> float:
    """Parameters that do matmul work per token: active parameters minus the input embedding
    lookup (Kaplan et al. 2020 count non-embedding N; the lm_head matmul is real work)."""
    lookup = arch.input_embedding_params if not arch.tied_embeddings else 0.0
    return max(0.0, arch.active_params - lookup)


def forward_flops_per_token(arch: Arch, context: int, rules: SpeedRules) -> float:
    """Forward FLOPs for one token that attends to ``context`` tokens.

    2·N (Kaplan et al. 2020 §2.1) + 4·layers·(heads·head_dim)·context for QKᵀ and AV
    (Chowdhery et al. 2022, PaLM App. B: 6N + 12·L·H·Q·T per training token = 3 × forward).
    N is the active parameters (a MoE token runs its routed and shared experts only); windowed
    layers attend to at most their window, linear-attention layers to no context, and MLA to its
    latent (:attr:`Arch.attention_width`).
    """
    dense = rules.forward_flops_per_param * _compute_params(arch)
    attended = arch.full_attention_layers * context + arch.window_layers * arch.attended(context)
    attention = rules.attention_flops_per_layer_width_context * arch.attention_width * attended
    return dense + attention


def train_flops(req: Request, rules: SpeedRules, tokens: float | None = None) -> float:
    """Model FLOPs to train on ``tokens`` tokens (default: one step, batch × context × cards).

    Full / pre-training: forward + backward (2× forward) = 6·N per token plus attention (Kaplan
    2020; PaLM App. B), the count MFU is defined on. LoRA / QLoRA: the frozen base needs
    activation gradients only, no weight gradients: ≈ 4·N. Activation recomputation is extra
    hardware work, not model FLOPs: the published MFUs it is divided by already include it.
    MoE: N = active parameters.
    """
    n_tokens = tokens if tokens is not None else req.tokens * req.gpus
    frozen = req.workload in (Workload.lora, Workload.qlora)
    backward = rules.frozen_backward_to_forward if frozen else rules.backward_to_forward
    return forward_flops_per_token(req.arch, req.context, rules) * (1 + backward) * n_tokens


# --------------------------------------------------------------------------- training


def platform(gpu: Gpu, rules: SpeedRules) -> TrainingPlatform:
    """The training efficiency of ``gpu``'s architecture, or the marked default."""
    found = next((p for p in rules.training.platforms if p.architecture == gpu.architecture), None)
    if found is not None:
        return found
    t = rules.training
    # Built without validation: the architecture is the GPU's own text, of any length.
    return TrainingPlatform.model_construct(
        architecture=gpu.architecture,
        mfu=t.default_mfu,
        confirmed=False,
        source=None,
        basis=t.default_basis,
        measured_gpus=t.default_measured_gpus,
    )


def default_cluster(rules: Rules) -> Cluster:
    """Where cards sized without an offer sit: whole servers over ``scaling.unknown_fabric`` (a marked assumption)."""
    return Cluster(rules.memory.inference.max_tensor_parallel, rules.speed.scaling.unknown_fabric)


def scaling_efficiency(
    gpu: Gpu, cards: int, rules: Rules, cluster: Cluster | None = None, adapter: bool = False
) -> tuple[float, LinkKind]:
    """Fraction of linear speed-up on ``cards`` cards, and the link kind it assumes.

    One mechanism: inside a server the link table (``scaling.nvlink`` / ``scaling.pcie`` at the cards one
    server uses; ``scaling.adapter_pcie`` for ``adapter`` training, LoRA / QLoRA, whose all-reduce carries
    only the adapters' gradients); across servers, in addition, the fabric's loss beyond the cluster size
    the platform's MFU was measured on (:func:`generator.engine.scaling.node_scaling`). ``cluster``: the
    offer's servers and fabric (None: :func:`default_cluster`).
    """
    link = link_kind(gpu, cards, rules.memory)
    if link is LinkKind.single:
        return 1.0, link
    where = cluster or default_cluster(rules)
    per_node = min(cards, where.gpus_per_node)
    intra = link
    if link is LinkKind.multi_node or per_node < cards:
        intra = LinkKind.nvlink if gpu.has_nvlink_class_link else LinkKind.pcie
    table = "adapter_pcie" if adapter and intra is LinkKind.pcie else intra.value
    points = sorted(getattr(rules.speed.scaling, table), key=lambda p: p.cards)
    eff = points[0].efficiency
    for p in points:
        if p.cards <= per_node:
            eff = p.efficiency
    if per_node < cards:
        measured = platform(gpu, rules.speed).measured_gpus
        eff *= cluster_scaling(cards, where, measured, rules.speed.scaling).efficiency
    return eff, link


def slower_fabric(gpu: Gpu, cards: int, cluster: Cluster | None, rules: Rules) -> Reason | None:
    """A note when ``cards`` span servers over a fabric slower per GPU than the published runs the
    per-doubling figure comes from (AWS P4d: 50 Gbit/s per GPU against 400): the efficiency is then an
    extrapolation, not a figure for that fabric (its loss is not modelled). None inside one server, or
    where the fabric's bandwidth is not stated."""
    if cluster is None or cluster.gbit_per_gpu is None or cards <= cluster.gpus_per_node or cluster.fabric == "none":
        return None
    measured = platform(gpu, rules.speed).measured_gpus
    if not cluster_scaling(cards, cluster, measured, rules.speed.scaling).extrapolated:
        return None
    published = rules.speed.scaling.fabrics[cluster.fabric].published_gbps_per_gpu * BITS_PER_BYTE
    return Reason(ReasonKind.fabric_slower, {"gbit": f"{cluster.gbit_per_gpu:g}", "published": f"{published:g}"})


def zero3_gather_seconds(req: Request, gpu: Gpu, cards: int, rules: Rules) -> float:
    """Seconds one micro-step of LoRA / QLoRA spends all-gathering a frozen base that ZeRO-3 shards over
    ``cards`` cards: every pass (forward, the recomputed forward, backward) gathers each layer's weights
    (ZeRO, Rajbhandari et al. 2020: stage 3 all-gathers the parameters for forward and backward), so a card receives
    (cards − 1) / cards of the base per pass at the link's per-direction bandwidth. 0 for one card, other
    workloads, or ZeRO below stage 3."""
    if req.workload not in (Workload.lora, Workload.qlora) or cards <= 1 or req.zero_stage < 3:
        return 0.0
    passes = 2 + (1 if req.grad_checkpointing else 0)
    received = frozen_base_bytes(req, rules.memory) * (cards - 1) / cards
    return passes * received / (link_gbps_per_direction(gpu, cards, rules.memory, rules.speed) * GIGA)


def training_hours(
    req: Request,
    tokens: float,
    gpu: Gpu,
    cards: int,
    all_rules: Rules,
    cluster: Cluster | None = None,
    replicated: bool = False,
) -> TrainTime:
    """Hours to train on ``tokens`` tokens with ``cards`` cards of ``gpu`` (in ``cluster``'s servers).

    hours = model FLOPs / (cards × dense 16-bit peak × platform MFU × scaling) / 3600, plus per micro-step
    the fixed fine-tuning costs and, for LoRA / QLoRA whose frozen base ZeRO-3 shards, the time its
    all-gathers take beyond the compute they overlap with (DeepSpeed prefetches the next layers' weights
    during compute). ``replicated``: every card holds the whole model (data parallel, no gathers).
    Container virtualization loss is not included (the delivery rules apply it).
    """
    rules = all_rules.speed
    flops = train_flops(req, rules, tokens)
    plat = platform(gpu, rules)
    adapter = req.workload in (Workload.lora, Workload.qlora)
    eff, link = scaling_efficiency(gpu, cards, all_rules, cluster, adapter)
    peak = gpu.tensor_tflops * TERA
    fine = finetune_costs(req, gpu, all_rules)
    micro_steps = tokens / (req.tokens * cards)  # per card
    compute = flops * fine.hardware_factor / (cards * peak * plat.mfu * eff)
    gather = 0.0 if replicated else zero3_gather_seconds(req, gpu, cards, all_rules)
    stall = max(0.0, gather - compute / micro_steps) if gather > 0 and micro_steps > 0 else 0.0
    seconds = compute + micro_steps * (fine.fixed_s + stall)
    steps = seconds / SECONDS_PER_HOUR
    hours = steps / rules.training.goodput
    job_mfu = flops / (cards * peak * seconds) if seconds > 0 else plat.mfu * eff
    frozen = req.workload in (Workload.lora, Workload.qlora)
    flops_kind = ReasonKind.train_flops_adapter if frozen else ReasonKind.train_flops_full
    mfu: dict[str, Param] = {
        "gpu": gpu.name,
        "tflops": f"{gpu.tensor_tflops:g}",
        "mfu": f"{plat.mfu:.0%}",
        "basis": plat.basis,
    }
    if _tensor_unconfirmed(gpu):
        mfu["peak_unconfirmed"] = Reason(ReasonKind.peak_unconfirmed)
    if not plat.confirmed:
        mfu["mfu_unconfirmed"] = Reason(ReasonKind.mfu_unconfirmed)
    node_cards = (cluster or default_cluster(all_rules)).gpus_per_node
    scaling: dict[str, Param] = {
        "cards": str(cards),
        "link": link_reason(gpu, cards, node_cards, cluster_fabric_reason(cluster, rules.scaling.unknown_fabric)),
        "efficiency": f"{eff:.0%}",
    }
    slower = slower_fabric(gpu, cards, cluster, all_rules)
    if slower is not None:
        scaling["slower_fabric"] = slower
    assumptions = [
        Assumption("train_flops", flops, message=Reason(flops_kind, {"flops": f"{flops:.3g}"})),
        Assumption("mfu", plat.mfu, message=Reason(ReasonKind.mfu, mfu)),
        Assumption("scaling", eff, message=Reason(ReasonKind.scaling, scaling)),
        *fine.assumptions,
        Assumption(
            "goodput",
            rules.training.goodput,
            message=Reason(ReasonKind.goodput, {"goodput": f"{rules.training.goodput:.0%}"}),
        ),
    ]
    return TrainTime(
        hours=hours,
        gpu_hours=hours * cards,
        step_hours=steps,
        flops=flops,
        mfu=job_mfu,
        platform=plat,
        scaling=eff,
        link=link,
        assumptions=assumptions,
    )


@dataclass(frozen=True)
class FineTuneCosts:
    """What a fine-tuning micro-step costs beyond the pre-training MFU (see :func:`finetune_costs`)."""

    hardware_factor: float  # hardware work per model FLOP, relative to the published pre-training runs
    fixed_s: float  # seconds per micro-step per card: framework overhead + QLoRA dequantization
    assumptions: list[Assumption]


def finetune_costs(req: Request, gpu: Gpu, rules: Rules) -> FineTuneCosts:
    """Fine-tuning (LoRA, QLoRA, full) on Hugging Face Trainer / PEFT at small micro-batches.

    The platform MFUs are pre-training runs that recompute activations: forward + recompute +
    backward = (2 + b) / (1 + b) of the model FLOPs with b = ``backward_to_forward``. A job does
    (1 + c + b') / (1 + b') with c = 1 under gradient checkpointing and b' its own backward (a frozen
    base: ``frozen_backward_to_forward``); the ratio of the two scales its compute. Per micro-step and
    card come a fixed cost and, for QLoRA, dequantizing every 4-bit base weight in each pass
    (``dequant_bytes_per_weight`` of memory traffic per weight per pass at the card's bandwidth).
    Pre-training keeps the published MFU as it is (large micro-batches, its own stack).
    """
    if req.workload not in (Workload.lora, Workload.qlora, Workload.full):
        return FineTuneCosts(1.0, 0.0, [])
    sp = rules.speed
    ft = sp.training.finetune
    frozen = req.workload in (Workload.lora, Workload.qlora)
    back = sp.frozen_backward_to_forward if frozen else sp.backward_to_forward
    recompute = 1.0 if req.grad_checkpointing else 0.0
    published = (2 + sp.backward_to_forward) / (1 + sp.backward_to_forward)
    factor = ((1 + recompute + back) / (1 + back)) / published
    dequant = 0.0
    passes = 2 + recompute  # forward, (recompute), backward
    if req.workload is Workload.qlora:
        weights = max(0.0, req.arch.params - req.arch.embedding_params)
        dequant = passes * weights * ft.dequant_bytes_per_weight / (gpu.memory_bandwidth_gbps * GIGA)
    fixed = ft.micro_step_overhead_s + dequant
    costs: dict[str, Param] = {
        "batch": str(req.batch),
        "context": req.context,
        "overhead_s": f"{ft.micro_step_overhead_s:g}",
        "checkpointing": Reason(
            ReasonKind.finetune_recompute if req.grad_checkpointing else ReasonKind.finetune_no_recompute
        ),
    }
    if dequant:
        costs["dequant"] = Reason(ReasonKind.finetune_dequant, {"passes": f"{passes:g}", "seconds": f"{dequant:.2f}"})
    return FineTuneCosts(factor, fixed, [Assumption("finetune", fixed, message=Reason(ReasonKind.finetune, costs))])


def _tensor_unconfirmed(gpu: Gpu) -> bool:
    name = "bf16_tflops_dense" if gpu.bf16_tflops_dense else "fp16_tflops_dense"
    return name in gpu.unconfirmed_names


# --------------------------------------------------------------------------- one decode step


def expected_experts_touched(experts: int, per_token: int, batch: int) -> float:
    """Expected distinct experts a decode step reads per MoE layer: E·(1 − (1 − k/E)^b),
    treating each sequence's top-k choice as independent and uniform."""
    return experts * (1 - (1 - per_token / experts) ** batch)


def _gemm_tflops(gpu: Gpu, precision: Precision, rules: SpeedRules) -> float:
    """Peak the matmuls run at: FP8 tensor cores for fp8 weights (at the FP8 speed-up seen in
    practice, not the datasheet's 2x), else 16-bit (weight-only int4/int8/nf4/GGUF kernels
    dequantize to 16-bit before the matmul)."""
    if precision is Precision.fp8 and gpu.fp8_tflops_dense:
        return gpu.tensor_tflops * rules.fp8_speedup
    return gpu.tensor_tflops


def _embedding_bits(prec: Precision, mem: MemoryRules) -> float:
    """Bits of the embedding table as weight_bytes stores it."""
    if prec.value in mem.experts_only_formats:
        return mem.experts_only_rest_bits.get(prec, mem.embedding_bits)
    if prec.value in mem.embeddings_16bit_formats:
        return mem.embedding_bits
    return mem.bits_per_param[prec]


def _touched_share(arch: Arch, batch: int) -> float:
    """Share of the routed experts a decode step of ``batch`` sequences reads (1 for dense models)."""
    if not (arch.experts and arch.experts_per_token):
        return 1.0
    return expected_experts_touched(arch.experts, arch.experts_per_token, batch) / arch.experts


def _weights_read(arch: Arch, prec: Precision, mem: MemoryRules, batch: int) -> float:
    """Bytes of weights one step reads over all cards: the input embedding is a lookup of
    ``batch`` rows, and a MoE reads only the experts some sequence routed to."""
    total = weight_bytes(arch, prec, mem)
    if not arch.tied_embeddings:
        total -= arch.input_embedding_params * _embedding_bits(prec, mem) / BITS_PER_BYTE
    untouched = arch.expert_params * (1 - _touched_share(arch, batch))
    return total - untouched * mem.bits_per_param[prec] / BITS_PER_BYTE


def _dequant_params(arch: Arch, prec: Precision, mem: MemoryRules, batch: int) -> float:
    """Weights a weight-only quantized kernel dequantizes per step (the Linear layers it quantized)."""
    linear = arch.params - (arch.embedding_params if prec.value in mem.embeddings_16bit_formats else 0.0)
    return max(0.0, linear - arch.expert_params * (1 - _touched_share(arch, batch)))


def _sixteen_bit_head(arch: Arch, prec: Precision, mem: MemoryRules) -> float:
    """Bytes of the output head a weight-only quantized format keeps in 16 bits (lm_head; a tied table
    is the same one). Its GEMV is a kernel of its own after the last layer: it reads memory while no
    quantized layer dequantizes, so its time adds to theirs instead of hiding under it."""
    if prec.value not in mem.embeddings_16bit_formats:
        return 0.0
    return arch.input_embedding_params * mem.embedding_bits / BITS_PER_BYTE


def serving_layout(cards: int, runtime: Runtime, rules: Rules) -> tuple[int, int]:
    """(tensor-parallel size, stages run one after another) for serving on ``cards`` cards.

    vLLM: tensor parallelism inside a server, pipeline stages beyond (:func:`parallel_layout`). A
    layer-split runtime (transformers ``device_map``, llama.cpp ``--split-mode layer``): every card is a
    stage of its own and only one works at a time.
    """
    if rules.speed.runtimes[runtime].multi_card == "layer_split":
        return 1, cards
    return parallel_layout(cards, rules.memory)


def _dequant_seconds(
    arch: Arch, prec: Precision, gpu: Gpu, cards: int, rules: Rules, batch: int, runtime: Runtime
) -> float:
    ops = rules.speed.decode.dequant_ops_per_weight.get(prec)
    if not ops:
        return 0.0
    fp32 = (gpu.fp32_tflops or gpu.tensor_tflops / _TENSOR_TO_FP32) * TERA
    _tp, pp = serving_layout(cards, runtime, rules)
    return _dequant_params(arch, prec, rules.memory, batch) / cards * pp * ops / fp32


def _comm_seconds(arch: Arch, gpu: Gpu, cards: int, tokens: int, rules: Rules, runtime: Runtime) -> float:
    """Two all-reduces per decoder layer of ``tokens`` hidden states (Megatron-LM tensor
    parallelism: after attention and after the MLP), plus the hops between stages."""
    tp, pp = serving_layout(cards, runtime, rules)
    message = tokens * arch.hidden * rules.memory.inference.activation_bytes
    per_layer = 2 * allreduce_seconds(gpu, tp, message, rules.memory, rules.speed) if tp > 1 else 0.0
    return arch.layers * per_layer + (pp - 1) * rules.speed.decode.pipeline_hop_us * 1e-6


def host_floor_seconds(arch: Arch, runtime: Runtime, rules: Rules) -> float:
    """The shortest forward pass the runtime's host allows: layers x the time to issue one layer's kernels
    (0 for a runtime that replays CUDA graphs)."""
    return arch.layers * rules.speed.runtimes[runtime].host_ms_per_layer / 1000


def expert_dispatch_seconds(arch: Arch, runtime: Runtime, rules: Rules, tokens: int) -> float:
    """Seconds a runtime that routes MoE tokens on the host spends dispatching the routed experts of one
    forward pass over ``tokens`` tokens: MoE layers x the distinct experts those tokens route to
    (:func:`expected_experts_touched`) x ``host_us_per_routed_expert``. llama.cpp's CUDA ``mul_mat_id`` of the
    builds the published cases ran copies the router's choice to the host, synchronizes the stream and issues
    one matmul per routed expert (``speed.runtimes`` in rules.yaml). The GPU waits at every synchronization,
    so the time adds to the step instead of hiding under it. 0 for dense models and runtimes routing on the GPU."""
    us = rules.speed.runtimes[runtime].host_us_per_routed_expert
    if not (us and arch.experts and arch.experts_per_token and tokens > 0):
        return 0.0
    touched = expected_experts_touched(arch.experts, arch.experts_per_token, tokens)
    return (arch.layers - arch.dense_layers) * touched * us * 1e-6


def _prefill_dispatch_seconds(arch: Arch, runtime: Runtime, rules: Rules, tokens: int) -> float:
    """:func:`expert_dispatch_seconds` for a prompt of ``tokens`` tokens processed in the runtime's chunks
    (llama.cpp: n_ubatch tokens per forward pass; each chunk routes and dispatches its own experts)."""
    chunk = rules.memory.inference.runtimes[runtime].max_batched_tokens or tokens
    full, rest = divmod(tokens, chunk) if chunk > 0 else (0, tokens)
    seconds = full * expert_dispatch_seconds(arch, runtime, rules, chunk)
    return seconds + (expert_dispatch_seconds(arch, runtime, rules, rest) if rest else 0.0)


def decode_step(
    arch: Arch,
    prec: Precision,
    kv_prec: Precision,
    batch: int,
    context: int,
    gpu: Gpu,
    cards: int,
    rules: Rules,
    runtime: Runtime = Runtime.vllm,
) -> Step:
    """One decode step of ``batch`` sequences holding ``context`` tokens each, on ``cards`` cards.

    The weights part is the slowest of streaming the weights, running the GEMMs, dequantizing
    (they overlap inside each layer's kernels) and the runtime's host floor (the GPU waits for kernels
    the host has not issued yet); a dequantizing format's 16-bit output head is read by a kernel of its
    own and adds to it, as do reading the KV cache (``kv_traffic`` times for a runtime that copies it),
    the all-reduces, the fixed step cost and, for a runtime routing MoE experts on the host, dispatching
    them (:func:`expert_dispatch_seconds`). Stages (pipeline beyond one server; every card under a
    layer-split runtime) run one after another.
    """
    d, mem = rules.speed.decode, rules.memory
    rt = rules.speed.runtimes[runtime]
    tp, pp = serving_layout(cards, runtime, rules)
    bw = gpu.memory_bandwidth_gbps * GIGA * d.bandwidth_efficiency
    weights = _weights_read(arch, prec, mem, batch) / cards * pp / bw
    flops = forward_flops_per_token(arch, 0, rules.speed) * batch
    gemm = flops / (tp * _gemm_tflops(gpu, prec, rules.speed) * TERA * d.compute_efficiency)
    dequant = _dequant_seconds(arch, prec, gpu, cards, rules, batch, runtime)
    head = _sixteen_bit_head(arch, prec, mem) / tp / bw if dequant else 0.0
    # a layer split keeps each layer's whole cache on its card: the cards together read all of it in turn
    kv_cards = 1 if rt.multi_card == "layer_split" else cards
    kv_stages = 1 if rt.multi_card == "layer_split" else pp
    kv = kv_bytes_per_sequence(arch, kv_prec, mem, kv_cards, context) * batch * kv_stages * rt.kv_traffic / bw
    comm = _comm_seconds(arch, gpu, cards, batch, rules, runtime)
    overhead = d.step_overhead_ms / 1000
    host = host_floor_seconds(arch, runtime, rules)
    dispatch = expert_dispatch_seconds(arch, runtime, rules, batch)
    total = max(weights - head, gemm, dequant, host) + head + kv + comm + overhead + dispatch
    return Step(total, weights, gemm, dequant, kv, comm, overhead, host, dispatch)


def _kv_precision(req: Request, mem: MemoryRules) -> Precision:
    return req.kv_precision or default_kv_precision(req.precision, mem)


def decode_throughput(req: Request, gpu: Gpu, cards: int, all_rules: Rules) -> Throughput:
    """Steady-state decode speed of ``req.batch`` sequences at ``req.context`` tokens."""
    rules, mem = all_rules.speed, all_rules.memory
    arch, prec = req.arch, req.precision
    step = decode_step(arch, prec, _kv_precision(req, mem), req.batch, req.context, gpu, cards, all_rules, req.runtime)
    bound = {
        "memory": ReasonKind.bound_memory,
        "compute": ReasonKind.bound_compute,
        "dequant": ReasonKind.bound_dequant,
        "kv": ReasonKind.bound_kv,
        "host": ReasonKind.bound_host,
    }[step.bound]
    bandwidth: dict[str, Param] = {
        "bandwidth_gbps": f"{gpu.memory_bandwidth_gbps:g}",
        "efficiency": f"{rules.decode.bandwidth_efficiency:.0%}",
        "overhead_ms": f"{rules.decode.step_overhead_ms:g}",
    }
    batch: dict[str, Param] = {"batch": str(req.batch), "context": str(req.context), "bound": Reason(bound)}
    assumptions = [
        Assumption(
            "decode_bandwidth",
            rules.decode.bandwidth_efficiency,
            message=Reason(ReasonKind.decode_bandwidth, bandwidth),
        ),
        Assumption("decode_batch", req.batch, message=Reason(ReasonKind.decode_batch, batch)),
    ]
    if prec in rules.decode.dequant_ops_per_weight:
        assumptions.append(
            Assumption(
                "dequant",
                rules.decode.dequant_ops_per_weight[prec],
                message=Reason(ReasonKind.decode_dequant, {"precision": prec.value}),
            )
        )
    rt = rules.runtimes[req.runtime]
    runtime_name = mem.inference.runtimes[req.runtime].name
    if rt.host_ms_per_layer or rt.kv_traffic != 1:
        costs: dict[str, Param] = {
            "runtime": runtime_name,
            "host_ms": f"{rt.host_ms_per_layer:g}",
            "floor_ms": f"{step.host * 1000:.0f}",
            "kv_traffic": f"{rt.kv_traffic:g}",
        }
        assumptions.append(
            Assumption("decode_runtime", rt.kv_traffic, message=Reason(ReasonKind.decode_runtime, costs))
        )
    if step.dispatch:
        routed: dict[str, Param] = {
            "runtime": runtime_name,
            "us": f"{rt.host_us_per_routed_expert:g}",
            "experts": f"{expected_experts_touched(arch.experts or 0, arch.experts_per_token or 0, req.batch):.0f}",
            "layers": str(arch.layers - arch.dense_layers),
            "dispatch_ms": f"{step.dispatch * 1000:.0f}",
        }
        assumptions.append(
            Assumption(
                "decode_expert_dispatch", step.dispatch, message=Reason(ReasonKind.decode_expert_dispatch, routed)
            )
        )
    if cards > 1 and rt.multi_card == "layer_split":
        layers: dict[str, Param] = {"runtime": runtime_name, "cards": str(cards)}
        assumptions.append(Assumption("decode_parallel", 1, message=Reason(ReasonKind.decode_layer_split, layers)))
    elif cards > 1:
        tp, pp = parallel_layout(cards, mem)
        split: dict[str, Param] = {
            "cards": str(cards),
            "tp": str(tp),
            "link": link_reason(gpu, cards, mem.inference.max_tensor_parallel),
            "comm_ms": f"{step.comm * 1000:.1f}",
        }
        if pp > 1:
            split["pp"] = str(pp)
        assumptions.append(Assumption("decode_parallel", tp, message=Reason(ReasonKind.decode_parallel, split)))
    return Throughput(
        tokens_per_s=req.batch / step.seconds,
        per_token_ms=step.seconds * 1000,
        bound=step.bound,
        assumptions=assumptions,
    )


# --------------------------------------------------------------------------- prefill and serving


def prefill_seconds(
    req: Request,
    gpu: Gpu,
    cards: int,
    all_rules: Rules,
    prompt_tokens: int | None = None,
    batch: int | None = None,
) -> float:
    """Seconds to process ``batch`` prompts of ``prompt_tokens`` (defaults: ``req.batch``, ``req.context``).

    Compute at ``prefill_mfu`` of the dense peak: 2·N per token plus causal attention (each token
    attends to half the prompt on average); never faster than reading the weights once (short
    prompts), dequantizing them or the runtime's host floor; plus the all-reduces of the prompt's
    hidden states, the fixed step cost and, for a runtime routing MoE experts on the host, dispatching
    them chunk by chunk. A layer-split runtime computes on one card at a time.
    """
    rules, mem = all_rules.speed, all_rules.memory
    arch, prec = req.arch, req.precision
    prompt = prompt_tokens if prompt_tokens is not None else req.context
    n = batch if batch is not None else req.batch
    tp, _pp = serving_layout(cards, req.runtime, all_rules)
    tokens = n * prompt
    flops = forward_flops_per_token(arch, prompt // 2, rules) * tokens
    compute = flops / (tp * _gemm_tflops(gpu, prec, rules) * TERA * rules.prefill_mfu)
    bw = gpu.memory_bandwidth_gbps * GIGA * rules.decode.bandwidth_efficiency
    weights = _weights_read(arch, prec, mem, n) / tp / bw
    dequant = _dequant_seconds(arch, prec, gpu, cards, all_rules, n, req.runtime)
    comm = _comm_seconds(arch, gpu, cards, tokens, all_rules, req.runtime)
    host = host_floor_seconds(arch, req.runtime, all_rules)
    dispatch = _prefill_dispatch_seconds(arch, req.runtime, all_rules, tokens)
    return max(compute, weights, dequant, host) + comm + rules.decode.step_overhead_ms / 1000 + dispatch


def time_to_first_token(req: Request, gpu: Gpu, cards: int, all_rules: Rules, prompt_tokens: int) -> float:
    """Seconds from a request's arrival to its first token on an idle replica (its prompt alone)."""
    return prefill_seconds(req, gpu, cards, all_rules, prompt_tokens, batch=1)


def serve(req: Request, gpu: Gpu, cards: int, all_rules: Rules, prompt: int, output: int, concurrency: int) -> Serving:
    """``concurrency`` requests of ``prompt`` + ``output`` tokens, prefill and decode time-shared.

    Under static batching (transformers ``generate``) the batch is prefilled in one forward before any
    sequence gets its first token, so a request's first token waits for the whole wave's prefill.
    """
    kv_prec = _kv_precision(req, all_rules.memory)
    step = decode_step(
        req.arch, req.precision, kv_prec, concurrency, prompt + output // 2, gpu, cards, all_rules, req.runtime
    )
    prefill = prefill_seconds(req, gpu, cards, all_rules, prompt, concurrency)
    static = all_rules.speed.runtimes[req.runtime].batching == "static"
    return Serving(
        concurrency=concurrency,
        prompt_tokens=prompt,
        output_tokens=output,
        prefill_s=prefill,
        step_s=step.seconds,
        ttft_s=prefill if static else time_to_first_token(req, gpu, cards, all_rules, prompt),
    )


def serving_cap(gpu: Gpu, serving: ServingRules) -> int:
    """vLLM's default ``max_num_seqs`` on this card: the larger default on cards of at least
    ``large_card_min_gib`` whose name has none of ``large_card_excluded_names`` (vLLM excludes the
    A100), else ``max_concurrency`` (EngineArgs.get_batch_defaults)."""
    name = gpu.name.lower()
    if gpu.memory_gb >= serving.large_card_min_gib and not any(x in name for x in serving.large_card_excluded_names):
        return serving.large_card_max_concurrency
    return serving.max_concurrency


def runtime_cap(req: Request, gpu: Gpu, all_rules: Rules) -> int:
    """The most sequences ``req.runtime`` serves at once on ``gpu`` (``speed.runtimes[...].concurrency``):
    vLLM's per-card max_num_seqs default (:func:`serving_cap`); llama.cpp's LLAMA_MAX_SEQ (``max_slots``: the
    server is launched with as many ``--parallel`` slots as it serves, up to that); transformers
    ``generate()``, which has no scheduler, the static batch the request names."""
    rt = all_rules.speed.runtimes[req.runtime]
    if rt.concurrency == "batch":
        return req.batch
    if rt.concurrency == "slots" and rt.max_slots is not None:
        return rt.max_slots
    return serving_cap(gpu, all_rules.speed.serving)


def cap_reason(req: Request, all_rules: Rules) -> Reason:
    """Why the runtime serves no more sequences than :func:`runtime_cap` (the serving note's ``limit`` when it binds)."""
    rt = all_rules.speed.runtimes[req.runtime]
    if rt.concurrency == "batch":
        return Reason(ReasonKind.limit_static_batch)
    if rt.concurrency == "slots":
        return Reason(ReasonKind.limit_max_slots)
    return Reason(ReasonKind.limit_engine_cap)


def launch_reason(req: Request, slots: int, context: int, all_rules: Rules) -> Reason | None:
    """How the server must be launched to serve ``slots`` sequences of ``context`` tokens at once: a slots
    runtime opens ``default_slots`` without ``--parallel`` (llama-server: 4 sharing one ``-c`` pool), so the
    figures assume ``--parallel slots -c slots x context`` (each slot ``context`` tokens, the KV cache the
    memory estimate holds). None for other runtimes."""
    rt = all_rules.speed.runtimes[req.runtime]
    if rt.concurrency != "slots" or rt.default_slots is None:
        return None
    params: dict[str, Param] = {
        "default": rt.default_slots,
        "slots": str(slots),  # flag values: written plain, without separators
        "ctx": str(slots * context),
        "context": context,
    }
    return Reason(ReasonKind.launch_slots, params)


def max_concurrency(req: Request, gpu: Gpu, cards: int, all_rules: Rules, cap: int | None = None) -> tuple[int, bool]:
    """Sequences of ``req.context`` tokens that fit the cards together, and whether the runtime's cap
    (:func:`runtime_cap`: vLLM's max_num_seqs on this card, llama.cpp's LLAMA_MAX_SEQ, transformers' static
    batch) limits it instead.

    A count fits when the memory estimate at that batch fits the usable memory: weights, every
    sequence's KV cache, the prefill temporaries of one step (the serving stack's chunk, so they stop
    growing at ``max_batched_tokens``), the sampler's rows and the overhead. The estimate grows with the
    count, so the largest count is found by bisection. At least 1 (the card count is sized for the
    request).
    """
    mem = all_rules.memory
    limit = cap or runtime_cap(req, gpu, all_rules)
    usable = memory.usable_gib(gpu.memory_gb, mem, req)

    def fits(count: int) -> bool:
        return memory.estimate(replace(req, batch=count, gpus=cards), mem).total_gib <= usable

    if fits(limit):
        return limit, True
    lo, hi = 1, limit  # hi does not fit; lo is the answer when nothing larger fits
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo, False


def cost_per_million_tokens(tokens_per_s: float, price_cny_per_hour: float) -> float:
    """Yuan per million tokens at ``tokens_per_s`` for ``price_cny_per_hour`` (all cards)."""
    if tokens_per_s <= 0:
        raise ValueError("tokens_per_s must be positive")
    return price_cny_per_hour / (tokens_per_s * SECONDS_PER_HOUR) * MILLION
