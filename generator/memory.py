"""How much GPU memory a workload needs on each card, and how many cards it takes.

The estimate is always PER CARD: memory of several cards is never added up into
one pool. With ``n`` cards, inference splits the model by tensor parallelism
(pipeline stages beyond one 8-card server) and training shards model states by
ZeRO stage; activations belong to the micro-batch each card processes.

Every constant comes from ``data/rules.yaml`` (:class:`~generator.rules.MemoryRules`);
every formula cites its source in a comment. Method, worked example and known limits:
``docs-dev/estimator.md``. Results aim slightly high (about +5-15 %) because a buyer
who rents too little memory loses more than one who rents a little too much.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from generator.records import ModelKind, OpenModel, Precision, Workload
from generator.rules import ArchDefaults, MemoryRules, TrainingRecipe, default_rules

#: Bytes in a GiB (unit definition, not a tunable constant).
GIB = 2**30
#: Bits in a byte (unit definition).
BITS_PER_BYTE = 8

#: Breakdown keys, in display order.
BREAKDOWN_KEYS = ("weights", "kv_cache", "activations", "gradients", "optimizer_states", "overhead")


@dataclass(frozen=True)
class Assumption:
    """One assumption behind an estimate; ``text_zh`` is shown on the page as is."""

    key: str
    value: str | float | int
    text_zh: str


# --------------------------------------------------------------------------- architecture


@dataclass(frozen=True)
class Arch:
    """A model's shape with every field resolved.

    Fields a model entry leaves empty are filled in by :meth:`from_params` from the
    parameter count, assuming a Llama-like decoder (see ``arch_defaults`` in rules.yaml):

    * hidden ``h`` and layers ``L`` solve ``params = L·12·h² + V·h·(1 or 2)`` with
      ``L = h / 128`` (Llama-2 7B/13B aspect ratio); ``h`` rounds to a multiple of 128;
    * ``heads = h / 128`` (head size 128), ``kv_heads = heads`` (no GQA: never
      under-counts the KV cache, so GQA models must state ``kv_heads``);
    * ``intermediate ≈ 8/3·h`` rounded to 256, or, when ``layers`` and ``hidden`` are
      known, whatever makes the parameter count add up;
    * ``vocab = 32000`` (Llama tokenizer); diffusion models have no vocabulary.

    For MoE models ``intermediate`` is the size of ONE expert's MLP.
    """

    params_b: float
    active_params_b: float
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    experts: int | None
    experts_per_token: int | None
    tied_embeddings: bool
    kind: str
    #: names of the fields that were derived rather than read from the model entry
    derived: tuple[str, ...] = field(default=(), compare=False)

    # ---------------------------------------------------------------- construction

    @classmethod
    def from_model(cls, m: OpenModel, defaults: ArchDefaults | None = None) -> Arch:
        """The architecture of a ``models.yaml`` entry, gaps filled from its size."""
        return cls.from_params(
            m.params_b,
            layers=m.layers,
            hidden=m.hidden,
            heads=m.heads,
            kv_heads=m.kv_heads,
            vocab=m.vocab,
            intermediate=m.intermediate,
            head_dim=m.head_dim,
            experts=m.experts,
            experts_per_token=m.experts_per_token,
            active_params_b=m.active_params_b,
            tied_embeddings=m.tied_embeddings,
            kind=m.kind.value,
            defaults=defaults,
        )

    @classmethod
    def from_params(
        cls,
        params_b: float,
        layers: int | None = None,
        hidden: int | None = None,
        heads: int | None = None,
        kv_heads: int | None = None,
        vocab: int | None = None,
        intermediate: int | None = None,
        *,
        head_dim: int | None = None,
        experts: int | None = None,
        experts_per_token: int | None = None,
        active_params_b: float | None = None,
        tied_embeddings: bool = False,
        kind: str = ModelKind.llm.value,
        defaults: ArchDefaults | None = None,
    ) -> Arch:
        """Resolve an architecture from a parameter count and whatever fields are known."""
        if params_b <= 0:
            raise ValueError("params_b must be positive")
        d = defaults or default_rules().memory.arch_defaults
        derived: list[str] = []
        total = params_b * 1e9
        # The dense shape follows the active parameters of a MoE (what one token sees).
        shape_params = (active_params_b or params_b) * 1e9 if experts else total

        if vocab is None:
            # Diffusion models have no token embedding / lm_head.
            vocab = 0 if kind == ModelKind.diffusion.value else d.vocab
            derived.append("vocab")
        emb_copies = 1 if tied_embeddings else 2

        def block_and_embed(h: float, n_layers: float) -> float:
            # Llama-like count: L·12·h² + V·h·copies (EleutherAI "Transformer Math 101": P ≈ 12·L·h²).
            return n_layers * d.block_params_per_hidden_sq * h * h + vocab * h * emb_copies

        if hidden is None:
            if layers is None:
                h_raw = _solve_increasing(lambda h: block_and_embed(h, h / d.hidden_per_layer), shape_params)
            else:
                h_raw = _solve_increasing(lambda h: block_and_embed(h, layers), shape_params)
            hidden = max(d.hidden_multiple, round(h_raw / d.hidden_multiple) * d.hidden_multiple)
            derived.append("hidden")
        if layers is None:
            if "hidden" in derived:
                layers = max(1, round(hidden / d.hidden_per_layer))
            else:
                per_layer = d.block_params_per_hidden_sq * hidden * hidden
                layers = max(1, round((shape_params - vocab * hidden * emb_copies) / per_layer))
            derived.append("layers")
        if heads is None:
            heads = max(1, hidden // (head_dim or d.head_dim))
            derived.append("heads")
        if head_dim is None:
            head_dim = max(1, hidden // heads)
        if kv_heads is None:
            kv_heads = heads  # MHA: conservative, see class docstring
            derived.append("kv_heads")
        if intermediate is None:
            intermediate = _derive_intermediate(
                total, layers, hidden, heads, kv_heads, head_dim, vocab * hidden * emb_copies, experts, derived, d
            )
            derived.append("intermediate")
        if experts and experts_per_token is None:
            experts_per_token = d.moe_experts_per_token
            derived.append("experts_per_token")
        return cls(
            params_b=params_b,
            active_params_b=active_params_b or params_b,
            layers=layers,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=head_dim,
            intermediate=intermediate,
            vocab=vocab,
            experts=experts,
            experts_per_token=experts_per_token,
            tied_embeddings=tied_embeddings,
            kind=kind,
            derived=tuple(derived),
        )

    # ---------------------------------------------------------------- derived sizes

    @property
    def params(self) -> float:
        """Total parameters (all experts)."""
        return self.params_b * 1e9

    @property
    def active_params(self) -> float:
        """Parameters one token passes through."""
        return self.active_params_b * 1e9

    @property
    def input_embedding_params(self) -> float:
        """Token embedding table (vocab × hidden)."""
        return float(self.vocab * self.hidden)

    @property
    def embedding_params(self) -> float:
        """Embedding plus lm_head (one table when tied)."""
        return self.input_embedding_params * (1 if self.tied_embeddings else 2)

    @property
    def q_width(self) -> int:
        """Width of all query heads together (heads × head_dim)."""
        return self.heads * self.head_dim

    @property
    def kv_width(self) -> int:
        """Width of all key (or value) heads together (kv_heads × head_dim)."""
        return self.kv_heads * self.head_dim

    @property
    def routed_intermediate(self) -> int:
        """MLP width one token goes through: experts_per_token × intermediate for MoE."""
        return self.intermediate * (self.experts_per_token or 1)

    def linear_shapes(self) -> dict[str, tuple[int, int]]:
        """(in, out) features of each Linear in a block (HF LlamaDecoderLayer names)."""
        h, i = self.hidden, self.intermediate
        return {
            "q_proj": (h, self.q_width),
            "k_proj": (h, self.kv_width),
            "v_proj": (h, self.kv_width),
            "o_proj": (self.q_width, h),
            "gate_proj": (h, i),
            "up_proj": (h, i),
            "down_proj": (i, h),
        }

    @property
    def expert_params(self) -> float:
        """Parameters inside routed experts (0 for dense models)."""
        if not self.experts:
            return 0.0
        return float(self.layers * self.experts * 3 * self.hidden * self.intermediate)

    @property
    def layer_params(self) -> float:
        """Parameters of one decoder block (all its experts)."""
        return max(0.0, self.params - self.embedding_params) / self.layers

    @property
    def largest_linear_params(self) -> float:
        """Parameters of the biggest single weight matrix in a block."""
        return float(max(a * b for a, b in self.linear_shapes().values()))


def _solve_increasing(f, target: float) -> float:  # type: ignore[no-untyped-def]
    """x > 0 with f(x) = target for an increasing f (bisection)."""
    lo, hi = 1.0, 1.0
    while f(hi) < target:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        if f(mid) < target:
            lo = mid
        else:
            hi = mid
    return hi


def _derive_intermediate(
    total: float,
    layers: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    embedding: float,
    experts: int | None,
    derived: list[str],
    d: ArchDefaults,
) -> int:
    """MLP width: from the parameter count when the shape is given, else 8/3·h."""
    fallback = d.intermediate_per_hidden * hidden
    if "hidden" in derived or "layers" in derived:
        value = fallback  # a derived shape already encodes the 8/3 ratio; keeps sizes monotone in params
    else:
        # Llama block: q,o = h·heads·hd each; k,v = h·kv·hd each; SwiGLU MLP = 3·h·i per expert
        # (HF modeling_llama.py LlamaAttention / LlamaMLP).
        attention = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim
        mlp_total = total - embedding - layers * attention
        # Too few params for the given shape: the smallest MLP (keeps memory monotone in params).
        value = max(0.0, mlp_total / (layers * 3 * hidden * (experts or 1)))
    return max(d.intermediate_multiple, round(value / d.intermediate_multiple) * d.intermediate_multiple)


# --------------------------------------------------------------------------- request / estimate


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
    optimizer: str = "adamw"  # adamw | adamw-8bit | sgd (PyTorch default: no momentum)
    lora_rank: int = 16
    gpus: int = 1
    zero_stage: int = 0

    def __post_init__(self) -> None:
        # Accept plain strings for the enums (convenient in tests and scripts).
        object.__setattr__(self, "workload", Workload(self.workload))
        object.__setattr__(self, "precision", Precision(self.precision))
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
    #: "forward_backward" | "optimizer_step" | "inference"
    peak_phase: str


# --------------------------------------------------------------------------- building blocks


def weight_bytes(
    arch: Arch, precision: Precision | str, rules: MemoryRules, embedding_bits: float | None = None
) -> float:
    """Bytes to store all weights at ``precision`` (one copy, all experts).

    ``embedding_bits`` overrides the bits of embedding and lm_head for quantized formats.
    """
    name = Precision(precision).value
    bits = rules.bits_per_param[name]
    if name in rules.embeddings_16bit_formats:
        # Quantizers touch Linear layers of the blocks only; embedding / lm_head stay 16-bit
        # (bitsandbytes llm_int8_skip_modules=["lm_head"]; nn.Embedding is not a Linear).
        emb = min(arch.embedding_params, arch.params)
        emb_bits = embedding_bits if embedding_bits is not None else rules.embedding_bits
        return (arch.params - emb) * bits / BITS_PER_BYTE + emb * emb_bits / BITS_PER_BYTE
    return arch.params * bits / BITS_PER_BYTE


def default_kv_precision(precision: Precision | str, rules: MemoryRules) -> Precision:
    """KV-cache dtype when none is given (vLLM kv_cache_dtype="auto" follows the model dtype)."""
    if Precision(precision) is Precision.fp32 and rules.kv_fp32_when_model_fp32:
        return Precision.fp32
    return Precision(rules.kv_default_precision)


def parallel_layout(gpus: int, rules: MemoryRules) -> tuple[int, int]:
    """(tensor-parallel, pipeline-parallel) sizes for serving on ``gpus`` cards."""
    tp = min(gpus, rules.inference.max_tensor_parallel)
    return tp, math.ceil(gpus / tp)


def kv_bytes_per_token(arch: Arch, kv_precision: Precision | str, rules: MemoryRules, gpus: int = 1) -> float:
    """KV-cache bytes per token on one card.

    2 (K and V) × layers × kv_heads × head_dim × bytes (vLLM paper, Kwon et al. 2023 §2:
    "2 (key and value vectors) × 5120 (hidden state size) × 40 (number of layers) × 2
    (bytes per FP16)" = 800 KB for OPT-13B). Tensor parallelism splits KV heads; when
    there are fewer KV heads than cards each card keeps a replica of one (vLLM
    replicates KV heads), hence ceil. Pipeline stages split the layers.
    """
    if arch.kind == ModelKind.diffusion.value:
        return 0.0
    tp, pp = parallel_layout(gpus, rules)
    layers = math.ceil(arch.layers / pp)
    heads = math.ceil(arch.kv_heads / tp)
    bytes_per = rules.bits_per_param[Precision(kv_precision).value] / BITS_PER_BYTE
    return 2 * layers * heads * arch.head_dim * bytes_per


def lora_params(arch: Arch, rank: int, rules: MemoryRules) -> float:
    """Adapter parameters: rank × (d_in + d_out) per targeted Linear (Hu et al. 2021, LoRA §4.1)."""
    shapes = arch.linear_shapes()
    per_layer = 0.0
    for target in rules.training.lora_targets:
        d_in, d_out = shapes[target]
        copies = arch.experts if (arch.experts and target in _MLP_MODULES) else 1
        per_layer += rank * (d_in + d_out) * copies
    return per_layer * arch.layers


_MLP_MODULES = ("gate_proj", "up_proj", "down_proj")


def card_counts(max_cards: int = 64, rules: MemoryRules | None = None) -> list[int]:
    """Card counts worth trying: 1, 2, 4, 8 inside a server, then whole servers (16, 24, 32 ...)."""
    cc = (rules or default_rules().memory).card_counts
    counts = [c for c in cc.within_node if c <= max_cards]
    top = max(cc.within_node)
    n = (top // cc.node_step + 1) * cc.node_step
    while n <= max_cards:
        counts.append(n)
        n += cc.node_step
    return counts


def usable_gib(gpu_memory_gb: float, rules: MemoryRules) -> float:
    """Memory a job can use on one card, in GiB, from the datasheet figure.

    Datasheet "GB" for GPU memory are binary (H100 80GB: nvidia-smi shows 81559 MiB
    ≈ 79.6 GiB), so the nominal figure is read as GiB and scaled by ``usable_fraction``
    (ECC-on GDDR cards lose 1/16; the allocator cannot fill the last blocks).
    """
    return gpu_memory_gb * rules.usable_fraction


# --------------------------------------------------------------------------- estimate


def estimate(req: Request, rules: MemoryRules) -> Estimate:
    """Peak memory on ONE card for ``req`` (see module docstring)."""
    if req.workload is Workload.inference:
        return _inference(req, rules)
    return _training(req, rules)


def min_gpus(req: Request, gpu_memory_gb: float, rules: MemoryRules, max_cards: int = 64) -> int | None:
    """Smallest card count in :func:`card_counts` whose per-card peak fits; None if none does."""
    limit = usable_gib(gpu_memory_gb, rules)
    for n in card_counts(max_cards, rules):
        if estimate(replace(req, gpus=n), rules).total_gib <= limit:
            return n
    return None


def _finish(parts: dict[str, float], n: int, extra_overhead: float, rules: MemoryRules) -> dict[str, float]:
    """Add the per-card overhead and convert bytes to GiB."""
    o = rules.overhead
    subtotal = sum(parts.values())
    fixed = o.cuda_context_gib * GIB + (o.multi_card_comm_gib * GIB if n > 1 else 0.0)
    # Caching-allocator fragmentation as a share of what the job allocates (PyTorch CUDA caching allocator).
    overhead = fixed + extra_overhead + o.fragmentation_fraction * subtotal
    out = {k: parts.get(k, 0.0) / GIB for k in BREAKDOWN_KEYS if k != "overhead"}
    out["overhead"] = overhead / GIB
    return {k: out[k] for k in BREAKDOWN_KEYS}


def _common_assumptions(req: Request, rules: MemoryRules) -> list[Assumption]:
    out = [
        Assumption(
            "per_card",
            req.gpus,
            f"按每张卡单独计算显存峰值（共 {req.gpus} 张卡），多张卡的显存不能相加当作一块用。",
        )
    ]
    if req.arch.derived:
        names = "、".join(req.arch.derived)
        out.append(
            Assumption(
                "derived_arch",
                names,
                f"模型资料缺少 {names}，按 Llama 式结构从参数量推算；结果可能与实际模型有出入。",
            )
        )
    o = rules.overhead
    out.append(
        Assumption(
            "overhead",
            o.cuda_context_gib,
            f"每张卡另计 CUDA 上下文和 cuBLAS 工作区约 {o.cuda_context_gib:g} GiB，"
            f"以及约 {o.fragmentation_fraction:.0%} 的显存碎片"
            + (f"；多卡通信缓冲约 {o.multi_card_comm_gib:g} GiB。" if req.gpus > 1 else "。"),
        )
    )
    return out


def _diffusion(req: Request, rules: MemoryRules) -> Estimate:
    """Image generation: all pipeline weights plus the denoise/VAE-decode peak, which grows
    with the image area. ``req.context`` is the image side in pixels for diffusion models."""
    ir = rules.inference
    weights = weight_bytes(req.arch, req.precision, rules)
    megapixels = req.batch * (req.context / 1000) ** 2
    activations = ir.diffusion_activation_gib_per_megapixel * megapixels * GIB
    breakdown = _finish({"weights": weights, "kv_cache": 0.0, "activations": activations}, 1, 0.0, rules)
    # The transformer-shape fill-in does not apply to a diffusion pipeline: drop its note.
    assumptions = [a for a in _common_assumptions(req, rules) if a.key != "derived_arch"]
    assumptions.append(
        Assumption(
            "diffusion",
            megapixels,
            f"图像生成：全部组件（去噪网络、文本编码器、VAE）按 {req.precision.value} 常驻显存；"
            f"每次生成 {req.batch} 张 {req.context}×{req.context} 图，去噪和 VAE 解码的峰值按每百万像素约 "
            f"{ir.diffusion_activation_gib_per_megapixel:g} GiB 估算。",
        )
    )
    return Estimate(sum(breakdown.values()), breakdown, assumptions, "inference")


def _inference(req: Request, rules: MemoryRules) -> Estimate:
    arch, n = req.arch, req.gpus
    if arch.kind == ModelKind.diffusion.value:
        # Diffusion pipelines are not split across cards here: one card must hold them.
        # Common tools do not split a diffusion pipeline across cards: one card holds it all.
        return _diffusion(replace(req, gpus=1), rules)
    ir = rules.inference
    tp, pp = parallel_layout(n, rules)
    prec = req.precision
    # Weights split evenly over the cards (tensor parallel inside a server, pipeline stages
    # across servers; vLLM also shards embedding and lm_head: VocabParallelEmbedding). MoE: all experts held.
    weights = weight_bytes(arch, prec, rules) / n
    if prec.value in rules.dequant_formats:
        # bnb dequantizes one whole weight to 16-bit before the matmul (bnb MatMul4Bit).
        weights += rules.dequant_copies * arch.largest_linear_params / tp * rules.embedding_bits / BITS_PER_BYTE
    kv_prec = req.kv_precision or default_kv_precision(prec, rules)
    kv = kv_bytes_per_token(arch, kv_prec, rules, n) * req.tokens
    act_bytes = ir.fp32_activation_bytes if prec is Precision.fp32 else ir.activation_bytes
    # Prefill of the whole batch at once (HF generate; vLLM without chunked prefill): the largest
    # per-layer temporaries — MLP gate/up/act (3·i) or attention q/k/v/out + norm upcast (~5·h) —
    # split by tensor parallelism, plus the residual stream kept whole on every card
    # (HF modeling_llama.py LlamaMLP.forward: down_proj(act_fn(gate_proj(x)) * up_proj(x))).
    per_token = act_bytes * (
        max(ir.prefill_intermediate_copies * arch.routed_intermediate, ir.prefill_hidden_copies * arch.hidden) / tp
        + ir.prefill_resident_hidden_copies * arch.hidden
    )
    # Last-position logits only (transformers generate(): logits_to_keep=1), fp32 + sampling probs.
    logits = req.batch * arch.vocab * ir.last_token_logits_bytes_per_vocab / tp
    activations = per_token * req.tokens + logits
    parts = {"weights": weights, "kv_cache": kv, "activations": activations}
    breakdown = _finish(parts, n, 0.0, rules)

    bits = rules.bits_per_param[prec.value]
    assumptions = _common_assumptions(req, rules)
    text = f"权重按 {prec.value} 存储，约 {bits:g} 位/参数"
    if prec.value in rules.embeddings_16bit_formats:
        text += "（词嵌入和输出层保持 16 位）"
    if arch.experts:
        text += f"；MoE 模型的全部 {arch.experts} 个专家都要放进显存"
    assumptions.append(Assumption("precision", prec.value, text + "。"))
    per_tok = kv_bytes_per_token(arch, kv_prec, rules, n)
    assumptions.append(
        Assumption(
            "kv_cache",
            kv_prec.value,
            f"KV 缓存按 {kv_prec.value} 存储，每个 token 每卡约 {per_tok / 1024:.0f} KiB，"
            f"按 {req.batch} 路并发 × {req.context} token 上下文预留。",
        )
    )
    if n > 1:
        assumptions.append(
            Assumption(
                "parallelism",
                f"tp={tp},pp={pp}",
                f"{n} 张卡按张量并行 {tp} 路" + (f"、流水线 {pp} 段" if pp > 1 else "") + "切分模型。",
            )
        )
    assumptions.append(
        Assumption(
            "prefill",
            req.tokens,
            f"预填充按 {req.batch} 条 × {req.context} token 一次处理，计入单层最大的临时张量。",
        )
    )
    return Estimate(sum(breakdown.values()), breakdown, assumptions, "inference")


# --------------------------------------------------------------------------- training


def model_state_bytes(req: Request, rules: MemoryRules) -> dict[str, float]:
    """Persistent model states on one card, in bytes: weights, gradients, optimizer_states.

    ZeRO paper (Rajbhandari et al. 2020) §3.1 / Fig. 1: mixed-precision Adam keeps
    2Ψ + 2Ψ + 12Ψ = 16Ψ bytes; stage 1 shards the 12Ψ, stage 2 also the gradients,
    stage 3 also the parameters, each over N_d cards. Transients (autocast copies,
    optimizer-step temporaries, ZeRO-3 gathers) are not model states and are left out.
    """
    s = _states(req, rules)
    return {"weights": s.weights, "gradients": s.gradients, "optimizer_states": s.optimizer}


@dataclass(frozen=True)
class _TrainStates:
    weights: float  # persistent weights on this card
    autocast: float  # 16-bit weight copies autocast saves for backward (freed as backward proceeds)
    dequant: float  # bnb 4-bit: one dequantized weight, alive whenever a layer runs
    gradients: float
    optimizer: float  # persistent optimizer states (incl. master weights)
    step_temp: float  # allocated only inside optimizer.step()
    zero_buffers: float  # ZeRO-3 gathered params or ZeRO 1-2 reduce bucket (overhead)
    regime: str  # activation layout
    use_zero: bool
    text_zh: str


def _uses_zero(req: Request) -> bool:
    return req.gpus > 1 and req.zero_stage >= 1


def _shard(req: Request, stage: int) -> int:
    """Cards a state is split over: ZeRO stage ``stage`` or higher shards it (ZeRO paper §5)."""
    return req.gpus if _uses_zero(req) and req.zero_stage >= stage else 1


def _optimizer_bytes(req: Request, rules: MemoryRules, dtype_bytes: float, master: float, zero: bool) -> tuple[float, float]:
    """(persistent state bytes, step temporary bytes) per trained parameter."""
    try:
        opt = rules.training.optimizers[req.optimizer]  # type: ignore[index]
    except KeyError:
        raise ValueError(f"unknown optimizer {req.optimizer!r}") from None
    state_bytes = opt.state_bytes if opt.state_bytes is not None else dtype_bytes
    persistent = opt.states_per_param * state_bytes + master
    temps = rules.training.zero_step_temporaries_per_param if zero else opt.step_temporaries_per_param
    return persistent, temps * dtype_bytes


def _states(req: Request, rules: MemoryRules) -> _TrainStates:
    arch, tr = req.arch, rules.training
    zero = _uses_zero(req)
    if req.workload in (Workload.full, Workload.pretrain):
        table = tr.zero_recipes if zero else tr.recipes
        recipe: TrainingRecipe | None = table.get(req.precision.value)  # type: ignore[call-overload]
        if recipe is None:
            raise ValueError(f"full training in {req.precision.value} is not supported; use mixed, bf16, fp16 or fp32")
        p = arch.params
        dtype = recipe.master_weights or recipe.weights  # optimizer states follow the fp32 master if any
        persistent, temp = _optimizer_bytes(req, rules, dtype, recipe.master_weights, zero)
        # Autocast keeps a 16-bit copy of every Linear weight for backward (F.linear saves its
        # weight); the input embedding is not autocast (PyTorch autocast op lists).
        autocast = (p - arch.input_embedding_params) * recipe.autocast_copy
        text = (
            f"全参训练，{req.precision.value} 精度：每个参数权重 {recipe.weights:g} 字节、梯度 {recipe.gradients:g} 字节、"
            f"优化器状态 {persistent:g} 字节"
        )
        if recipe.autocast_copy:
            text += f"，另有自动混合精度保存的 {recipe.autocast_copy:g} 字节半精度权重副本（计入权重）"
        return _TrainStates(
            weights=p * recipe.weights / _shard(req, 3),
            autocast=autocast,
            dequant=0.0,
            gradients=p * recipe.gradients / _shard(req, 2),
            optimizer=p * persistent / _shard(req, 1),
            step_temp=p * temp / _shard(req, 1),
            zero_buffers=_zero_buffers(req, rules),
            regime=recipe.activations,
            use_zero=zero,
            text_zh=text + "。",
        )

    # LoRA / QLoRA: frozen base, trainable fp32 adapters (PEFT).
    if req.workload is Workload.qlora:
        base_format = tr.qlora_weight_format
        compute = req.precision.value if req.precision.value in ("bf16", "fp16") else tr.qlora_default_compute
        regime = tr.qlora_activations
        base = weight_bytes(arch, base_format, rules, embedding_bits=tr.qlora_embedding_bits)
        text = (
            f"QLoRA：底座线性层按 {base_format} 存储（约 {rules.bits_per_param[base_format]:g} 位/参数），"
            f"词嵌入和输出层按 {tr.qlora_embedding_bits:g} 位（PEFT prepare_model_for_kbit_training 会升为 fp32），"
            f"计算精度 {compute}"
        )
    elif req.precision is Precision.mixed:
        base_format = "fp32"
        recipe = tr.recipes["mixed"]
        regime = recipe.activations
        base = arch.params * recipe.weights
        text = "LoRA：底座为 fp32 权重，在自动混合精度下训练"
    else:
        base_format = req.precision.value
        regime = {"fp32": "fp32"}.get(base_format, "bf16")
        base = weight_bytes(arch, base_format, rules)
        text = f"LoRA：冻结的底座按 {base_format} 存储（约 {rules.bits_per_param[base_format]:g} 位/参数）"
    autocast = dequant = 0.0
    if req.precision is Precision.mixed and req.workload is Workload.lora:
        autocast = (arch.params - arch.input_embedding_params) * tr.recipes["mixed"].autocast_copy
    if base_format in rules.dequant_formats:
        # bnb MatMul4Bit dequantizes the whole weight before F.linear, in forward and backward.
        dequant = rules.dequant_copies * arch.largest_linear_params * rules.embedding_bits / BITS_PER_BYTE
    adapters = lora_params(arch, req.lora_rank, rules)
    a_bytes = tr.lora_adapter_bits / BITS_PER_BYTE
    persistent, temp = _optimizer_bytes(req, rules, a_bytes, 0.0, zero)
    text += (
        f"；适配器 rank {req.lora_rank}，约 {adapters / 1e6:.1f}M 个参数，fp32 存储，"
        f"每个适配器参数权重 {a_bytes:g} + 梯度 {a_bytes:g} + 优化器状态 {persistent:g} 字节；底座没有梯度和优化器状态。"
    )
    return _TrainStates(
        weights=base / _shard(req, 3) + adapters * a_bytes,
        autocast=autocast,
        dequant=dequant,
        gradients=adapters * a_bytes,
        optimizer=adapters * persistent,
        step_temp=adapters * temp,
        zero_buffers=_zero_buffers(req, rules),
        regime=regime,
        use_zero=zero,
        text_zh=text,
    )


def _zero_buffers(req: Request, rules: MemoryRules) -> float:
    """ZeRO communication buffers on one card (bytes)."""
    if not _uses_zero(req):
        return 0.0
    tr, arch = rules.training, req.arch
    if req.zero_stage >= 3:
        # ZeRO-3 all-gathers each module before use and prefetches the next (DeepSpeed
        # stage3_prefetch_bucket_size / max_live_parameters): ~2 of the largest modules in 16-bit.
        biggest = max(arch.layer_params, arch.input_embedding_params)
        return tr.zero3_live_modules * biggest * tr.zero3_gather_bytes
    # ZeRO 1-2: gradient reduce bucket (DeepSpeed reduce_bucket_size default 5e8 elements).
    return tr.zero_reduce_bucket_elements * tr.zero_bucket_bytes


def _activations(req: Request, rules: MemoryRules, regime: str) -> tuple[float, float]:
    """(activations at the start of backward, activations at the end of backward), bytes per card.

    Per token per layer (HF modeling_llama.py, SDPA; see rules.yaml layer_activations):
    per_hidden·h + per_intermediate·i + per_head·heads, where i is the routed MLP width
    (experts_per_token × intermediate for MoE). Korthikanti et al. 2022 §4 give the same
    bookkeeping for GPT (34·s·b·h + 5·a·s²·b with eager attention); SDPA never stores s².
    Activations are not sharded by ZeRO; tokens are the card's own micro-batch.
    """
    arch, tr, t = req.arch, rules.training, req.tokens
    la = tr.layer_activations[regime]  # type: ignore[index]
    per_token_layer = (
        la.per_hidden * arch.hidden + la.per_intermediate * arch.routed_intermediate + la.per_head * arch.heads
    )
    if arch.experts:
        # Routing copies per chosen expert (HF MixtralSparseMoeBlock).
        per_token_layer += tr.moe_dispatch_bytes_per_hidden * arch.hidden * (arch.experts_per_token or 1)
    if req.workload in (Workload.lora, Workload.qlora):
        # PEFT casts each adapted module's input to the fp32 adapter dtype; lora_A saves it.
        shapes = arch.linear_shapes()
        for target in tr.lora_targets:
            copies = (arch.experts_per_token or 1) if target in _MLP_MODULES else 1
            per_token_layer += tr.lora_input_copy_bytes * shapes[target][0] * copies
    layer = per_token_layer * t
    # Loss on the full vocabulary (HF ForCausalLMLoss: logits.float() -> cross_entropy).
    logits = t * arch.vocab * (tr.logits_held_bytes_per_vocab + tr.logits_backward_bytes_per_vocab)
    final_norm = t * arch.hidden * tr.final_norm_bytes_per_hidden
    if req.grad_checkpointing:
        # HF gradient checkpointing wraps every decoder layer: only its input survives the forward;
        # in backward one layer at a time is recomputed (Chen et al. 2016; Korthikanti 2022 §5).
        ckpt = getattr(tr.checkpoint_bytes_per_hidden, regime)
        kept = arch.layers * t * arch.hidden * ckpt
        start = kept + final_norm + max(logits, tr.recompute_layer_factor * layer)
    else:
        start = arch.layers * layer + final_norm + logits
    # End of backward: the first layer's activations and its backward temporaries are still alive.
    end = tr.recompute_layer_factor * layer
    return start, end


def _training(req: Request, rules: MemoryRules) -> Estimate:
    s = _states(req, rules)
    act_start, act_end = _activations(req, rules, s.regime)
    # Three moments compete for the peak (PyTorch training loop with zero_grad(set_to_none=True)):
    # 1. start of backward: all saved activations + loss temporaries, no gradients yet;
    # 2. end of backward: all gradients, activations nearly freed;
    # 3. optimizer.step(): gradients + states + step temporaries (foreach AdamW), no activations.
    phases = {
        "backward_start": {
            "weights": s.weights + s.autocast + s.dequant,
            "activations": act_start,
            "optimizer_states": s.optimizer,
        },
        "backward_end": {
            # autocast copies are released node by node during backward; a dequantized weight is not
            "weights": s.weights + s.dequant,
            "activations": act_end,
            "gradients": s.gradients,
            "optimizer_states": s.optimizer,
        },
        "optimizer_step": {
            "weights": s.weights,
            "gradients": s.gradients,
            "optimizer_states": s.optimizer + s.step_temp,
        },
    }
    finished = {k: _finish(v, req.gpus, s.zero_buffers, rules) for k, v in phases.items()}
    totals = {k: sum(v.values()) for k, v in finished.items()}
    peak = max(totals, key=lambda k: totals[k])
    peak_phase = "optimizer_step" if peak == "optimizer_step" else "forward_backward"

    assumptions = _common_assumptions(req, rules)
    assumptions.append(Assumption("recipe", req.precision.value, s.text_zh))
    opt_text = {
        "adamw": "优化器为 PyTorch AdamW（默认 foreach 实现，step 时多占一份与状态同精度的临时显存）",
        "adamw-8bit": "优化器为 bitsandbytes 8 位 AdamW（每个参数 2 字节状态）",
        "sgd": "优化器为 SGD（无动量，不占状态显存）",
    }[req.optimizer]
    assumptions.append(Assumption("optimizer", req.optimizer, opt_text + "。"))
    if req.grad_checkpointing:
        ck = "开启梯度检查点：每层只保存输入，反向时逐层重算（计算量约增加三分之一）。"
    else:
        ck = "不开启梯度检查点：每层的中间结果都保存到反向传播。"
    assumptions.append(Assumption("grad_checkpointing", req.grad_checkpointing, ck))
    assumptions.append(
        Assumption(
            "micro_batch",
            req.tokens,
            f"每张卡每步处理 {req.batch} 条 × {req.context} token；激活按这张卡自己的微批次计算，不随卡数分摊。",
        )
    )
    if req.gpus > 1:
        if s.use_zero:
            what = {1: "优化器状态", 2: "优化器状态和梯度", 3: "优化器状态、梯度和权重"}[req.zero_stage]
            zt = f"{req.gpus} 张卡数据并行，ZeRO-{req.zero_stage} 把{what}平均分到各卡（DeepSpeed 混合精度布局）。"
        else:
            zt = f"{req.gpus} 张卡数据并行但不用 ZeRO：每张卡都存一整份模型状态，多卡不省显存。"
        assumptions.append(Assumption("zero_stage", req.zero_stage, zt))
    other = {"forward_backward": "optimizer_step", "optimizer_step": "forward_backward"}[peak_phase]
    other_total = max(v for k, v in totals.items() if (k == "optimizer_step") == (other == "optimizer_step"))
    phase_zh = {"forward_backward": "前向/反向传播", "optimizer_step": "优化器更新（step）"}
    assumptions.append(
        Assumption(
            "peak_phase",
            peak_phase,
            f"峰值出现在{phase_zh[peak_phase]}阶段，约 {totals[peak]:.1f} GiB；"
            f"{phase_zh[other]}阶段约 {other_total:.1f} GiB。表中分项是峰值时刻的占用。",
        )
    )
    breakdown = finished[peak]
    return Estimate(sum(breakdown.values()), breakdown, assumptions, peak_phase)
