"""A model's shape, with the fields a ``models.yaml`` entry leaves empty filled in.

Every memory and speed formula reads the architecture from here: parameters, layers,
hidden size, attention heads and KV heads, MLP width, vocabulary, experts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from generator.data.records import ComponentRole, ModelKind, OpenModel
from generator.data.rules import ArchDefaults


@dataclass(frozen=True)
class Component:
    """One part of an image-generation pipeline (see ``models.yaml`` ``components``)."""

    role: ComponentRole
    name: str
    params: float
    #: the pipeline upcasts this VAE to fp32 for decoding when it runs in fp16
    fp32_decode_in_fp16: bool = False
    #: parameters kept in fp32 when the rest runs in fp16 (T5's ``wo`` layers)
    fp32_params_in_fp16: float = 0.0


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

    Attention and MoE variants (all optional; a plain Llama-like decoder leaves them empty):

    * multi-head latent attention (DeepSeek-V2/V3, Kimi K2): ``kv_lora_rank`` and
      ``qk_rope_dim``; the cache holds ``kv_lora_rank + qk_rope_dim`` values per token per layer;
    * sliding-window or chunked attention (Mistral, Gemma 2/3, gpt-oss, Llama 4): ``window``
      tokens on ``window_layers`` of the layers, the full context on the others;
    * linear attention (Qwen3-Next's Gated DeltaNet): ``linear_layers`` keep no KV cache but a
      fixed state of ``linear_state`` values per sequence each;
    * MoE: ``dense_layers`` leading layers with a dense MLP (``first_k_dense_replace``) and
      ``shared_experts`` experts' width that every token also passes through.
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
    kind: ModelKind
    #: names of the fields that were derived rather than read from the model entry
    derived: tuple[str, ...] = field(default=(), compare=False)
    #: diffusion pipelines: their parts, and denoiser passes per image per step (2 with CFG)
    components: tuple[Component, ...] = ()
    denoiser_passes: int = 1
    kv_lora_rank: int | None = None
    qk_rope_dim: int = 0
    window: int | None = None
    window_layers: int = 0
    linear_layers: int = 0
    linear_state: int = 0
    dense_layers: int = 0
    shared_experts: int = 0
    #: diffusion: denoising steps the model is usually run with (None: rules.defaults.steps), and the
    #: text tokens a joint-attention transformer carries beside the image tokens (FLUX: 512)
    default_steps: int | None = None
    denoiser_text_tokens: int = 0

    # ---------------------------------------------------------------- construction

    @classmethod
    def from_model(cls, m: OpenModel, defaults: ArchDefaults) -> Arch:
        """The architecture of a ``models.yaml`` entry, gaps filled from its size."""
        if m.kind is ModelKind.diffusion:
            return cls.diffusion(
                m.params_b,
                tuple(
                    Component(c.role, c.name, float(c.params), c.fp32_decode_in_fp16, float(c.fp32_params_in_fp16))
                    for c in m.components
                ),
                m.denoiser_passes or 1,
                defaults,
                default_steps=m.default_steps,
                denoiser_text_tokens=m.denoiser_text_tokens or 0,
            )
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
            kind=m.kind,
            kv_lora_rank=m.kv_lora_rank,
            qk_rope_dim=m.qk_rope_head_dim or 0,
            window=m.sliding_window,
            window_layers=m.sliding_window_layers or 0,
            linear_layers=m.linear_attention_layers or 0,
            linear_state=m.linear_state_values or 0,
            dense_layers=m.dense_layers or 0,
            shared_experts=m.shared_experts or 0,
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
        kind: ModelKind = ModelKind.llm,
        kv_lora_rank: int | None = None,
        qk_rope_dim: int = 0,
        window: int | None = None,
        window_layers: int = 0,
        linear_layers: int = 0,
        linear_state: int = 0,
        dense_layers: int = 0,
        shared_experts: int = 0,
        defaults: ArchDefaults,
    ) -> Arch:
        """Resolve an architecture from a parameter count and whatever fields are known.

        Raises ``ValueError`` naming the field for a shape no model has (see :func:`shape_problem`).
        """
        if params_b <= 0:
            raise ValueError("params_b must be positive")
        problem = shape_problem(
            layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads, head_dim=head_dim, experts=experts,
            experts_per_token=experts_per_token, window=window, window_layers=window_layers,
            linear_layers=linear_layers, dense_layers=dense_layers, kv_lora_rank=kv_lora_rank,
        )  # fmt: skip
        if problem is not None:
            raise ValueError(f"{problem[0]}: {problem[1]}")
        d = defaults
        derived: list[str] = []
        total = params_b * 1e9
        # The dense shape follows the active parameters of a MoE (what one token sees).
        shape_params = (active_params_b or params_b) * 1e9 if experts else total

        if vocab is None:
            # Diffusion models have no token embedding / lm_head.
            vocab = 0 if kind is ModelKind.diffusion else d.vocab
            derived.append("vocab")
        emb_copies = 1 if tied_embeddings else 2

        def block_and_embed(h: float, n_layers: float) -> float:
            # Llama-like count: L·12·h² + V·h·copies (EleutherAI "Transformer Math 101": P ≈ 12·L·h²).
            return n_layers * d.block_params_per_hidden_sq * h * h + vocab * h * emb_copies

        if hidden is None:
            if layers is None:
                h_raw = _solve_increasing(lambda h: block_and_embed(h, h / d.hidden_per_layer), shape_params)
            else:
                fixed_layers: float = layers
                h_raw = _solve_increasing(lambda h: block_and_embed(h, fixed_layers), shape_params)
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
            kv_lora_rank=kv_lora_rank,
            qk_rope_dim=qk_rope_dim,
            window=window,
            window_layers=window_layers if window else 0,
            linear_layers=linear_layers,
            linear_state=linear_state if linear_layers else 0,
            dense_layers=dense_layers if experts else 0,
            shared_experts=shared_experts if experts else 0,
        )

    @classmethod
    def diffusion(
        cls,
        params_b: float,
        components: tuple[Component, ...],
        denoiser_passes: int,
        defaults: ArchDefaults,
        *,
        default_steps: int | None = None,
        denoiser_text_tokens: int = 0,
    ) -> Arch:
        """An image-generation pipeline: its parts carry the sizes; the transformer fields stay a
        placeholder shape that no diffusion formula reads."""
        shape = cls.from_params(params_b, kind=ModelKind.diffusion, defaults=defaults)
        extra = {"default_steps": default_steps, "denoiser_text_tokens": denoiser_text_tokens}
        return cls(**{**shape.__dict__, "components": components, "denoiser_passes": denoiser_passes, "derived": (),
                      **extra})  # fmt: skip

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
        """MLP width one token goes through: (experts_per_token + shared experts) × intermediate for MoE."""
        return self.intermediate * ((self.experts_per_token or 1) + self.shared_experts)

    @property
    def attention_layers(self) -> int:
        """Layers with softmax attention (a KV cache): all but the linear-attention ones."""
        return self.layers - self.linear_layers

    @property
    def full_attention_layers(self) -> int:
        """Attention layers that see the whole context (not windowed or chunked)."""
        return self.attention_layers - self.window_layers

    def attended(self, context: int) -> int:
        """Tokens a windowed layer attends to (and caches) at ``context``."""
        return min(context, self.window) if self.window else context

    @property
    def attention_width(self) -> float:
        """Width of QKᵀ plus AV per context token, halved (heads × head_dim for ordinary attention).

        MLA decodes with absorbed weights (DeepSeek-V2 paper §2.1.2; vLLM/SGLang MLA backends): each
        head's scores run over the ``kv_lora_rank + qk_rope_dim`` latent and its values over the
        ``kv_lora_rank`` part, so the two products are heads × (2·kv_lora_rank + qk_rope_dim) / 2 wide.
        """
        if self.kv_lora_rank is not None:
            return self.heads * (2 * self.kv_lora_rank + self.qk_rope_dim) / 2
        return float(self.q_width)

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
        return float((self.layers - self.dense_layers) * self.experts * 3 * self.hidden * self.intermediate)

    @property
    def layer_params(self) -> float:
        """Parameters of one decoder block (all its experts)."""
        return max(0.0, self.params - self.embedding_params) / self.layers

    @property
    def largest_linear_params(self) -> float:
        """Parameters of the biggest single weight matrix in a block."""
        return float(max(a * b for a, b in self.linear_shapes().values()))


def shape_problem(
    *,
    layers: int | None = None,
    hidden: int | None = None,
    heads: int | None = None,
    kv_heads: int | None = None,
    head_dim: int | None = None,
    experts: int | None = None,
    experts_per_token: int | None = None,
    window: int | None = None,
    window_layers: int = 0,
    linear_layers: int = 0,
    dense_layers: int = 0,
    kv_lora_rank: int | None = None,
) -> tuple[str, str] | None:
    """The first field of a shape no model can have, and why (None when the shape can exist).

    Grouped-query attention shares each KV head among ``heads / kv_heads`` query heads, so there
    are never more KV heads than heads and they divide evenly (HF LlamaAttention:
    ``num_key_value_groups = num_attention_heads // num_key_value_heads``); without ``head_dim``
    the head size is ``hidden / heads``, which must be whole. Windowed, linear and dense layers are
    some of the layers, and a token uses some of the experts.
    """
    if heads is not None and kv_heads is not None and kv_lora_rank is None:
        if kv_heads > heads:
            return "kv_heads", f"{kv_heads} KV heads is more than the {heads} attention heads"
        if heads % kv_heads:
            return "kv_heads", f"{heads} attention heads cannot be shared evenly among {kv_heads} KV heads"
    if hidden is not None and heads is not None and head_dim is None and hidden % heads:
        return "heads", f"hidden size {hidden} is not a whole number of {heads} heads; give head_dim"
    if experts is not None and experts_per_token is not None and experts_per_token > experts:
        return "experts_per_token", f"{experts_per_token} experts per token is more than the {experts} experts"
    if window_layers and window is None:
        return "window_layers", "windowed layers need the window size"
    if layers is not None:
        if window_layers + linear_layers > layers:
            return (
                "window_layers",
                f"{window_layers} windowed + {linear_layers} linear layers exceed the {layers} layers",
            )
        if linear_layers >= layers:
            return "linear_layers", f"{linear_layers} linear-attention layers leave none of the {layers} with attention"
        if dense_layers >= layers:
            return "dense_layers", f"{dense_layers} dense layers leave none of the {layers} layers with experts"
    return None


def _solve_increasing(f: Callable[[float], float], target: float) -> float:
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
