"""A Hugging Face ``config.json`` read into the shape flags of ``gpu-guide recommend`` (``--params``,
``--layers``, … ``--kv-lora-rank``, ``--sliding-window``), so that ``--config-json`` sizes exactly
what the same flags typed by hand would. The calculator's paste box runs the port of this module
(``docs/javascripts/engine/hfconfig.js``); a test compares the two on the published configs in
``tests/fixtures/configs/``.

The parameter count is summed from the blocks each family's Hugging Face modeling file builds:
embedding and lm_head (one table when tied), Qwen2.5-VL's and Llama 4's vision towers (from ``vision_config``), per layer the attention projections (multi-head
latent attention: the down- and up-projections of DeepSeek's ``DeepseekV3Attention``; Qwen3-Next's
Gated DeltaNet on its linear layers), the MLP (dense, or routed experts + router + shared experts),
two RMSNorms, and the final norm. Biases and per-head norms are left out (under 0.01 %).

Family defaults where a key is absent: Gemma ties its embeddings (``GemmaConfig``
``tie_word_embeddings=True``), Gemma 2 alternates sliding and global layers, Gemma 3 has five
sliding layers to one global (``sliding_window_pattern=6``) and takes ``Gemma3TextConfig``'s
vocabulary (262,208), head size (256), KV heads (4) and window (4,096), Llama 4 makes every fourth layer
global (``no_rope_layers``), Qwen3-Next puts full attention on every fourth layer
(``full_attention_interval=4``). A ``sliding_window`` that ``use_sliding_window: false`` turns off
(Qwen2/Qwen3) is no window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from generator.engine.arch import shape_problem

#: Required keys with what they are (the reader's messages name both).
REQUIRED = (
    ("num_hidden_layers", "layers"),
    ("hidden_size", "hidden size"),
    ("num_attention_heads", "attention heads"),
    ("vocab_size", "vocabulary size"),
)
#: Keys of architectures the engine has no formula for (state-space and hybrid Mamba models).
UNSUPPORTED = (
    ("mamba_d_state", "Mamba state-space layers"),
    ("ssm_cfg", "state-space layers"),
    ("hybrid_override_pattern", "hybrid Mamba layers (Nemotron-H)"),
    ("attn_layer_period", "Jamba's Mamba layers"),
)
#: Keys of a Qwen2.5-VL vision_config the vision tower's size needs.
_VISION_REQUIRED = (
    ("depth", "vision blocks"),
    ("hidden_size", "vision width"),
    ("intermediate_size", "vision MLP width"),
    ("out_hidden_size", "width the merger projects to"),
)
#: Keys of a Llama 4 vision_config the vision encoder's size needs.
_LLAMA4_VISION_REQUIRED = (
    ("num_hidden_layers", "vision blocks"),
    ("hidden_size", "vision width"),
    ("intermediate_size", "vision MLP width"),
    ("image_size", "vision input size"),
    ("patch_size", "vision patch size"),
    ("projector_input_dim", "pixel-shuffle MLP width"),
    ("projector_output_dim", "pixel-shuffle MLP output width"),
    ("vision_output_dim", "width the projector reads"),
)
#: Keys of a SigLIP vision_config (Gemma 3) the vision encoder's size needs.
_SIGLIP_REQUIRED = (
    ("num_hidden_layers", "vision blocks"),
    ("hidden_size", "vision width"),
    ("intermediate_size", "vision MLP width"),
    ("image_size", "vision input size"),
    ("patch_size", "vision patch size"),
)
#: Gemma 3's defaults for keys its config.json may leave out (HF ``Gemma3TextConfig.__init__``,
#: transformers ``models/gemma3/configuration_gemma3.py``): the published 27B text_config gives no
#: vocab_size, and HF fills in these values.
_GEMMA3_DEFAULTS = {"vocab_size": 262_208, "head_dim": 256, "num_key_value_heads": 4, "sliding_window": 4096}
#: Expert-count keys by family: Mixtral / gpt-oss / Llama 4, Qwen MoE, DeepSeek.
_EXPERT_KEYS = ("num_local_experts", "num_experts", "n_routed_experts")


class ConfigError(ValueError):
    """A config.json the reader refuses: ``key`` is the field to look at."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason


@dataclass(frozen=True)
class ReadConfig:
    """The flags (name without dashes → text), the parameter count, and a note for the reader."""

    flags: dict[str, str]
    total: int
    note: str
    #: ``max_position_embeddings`` (the language model's, else the top level's): the longest context the
    #: model's positions reach, which :func:`generator.engine.limits.context_limit` holds a request to.
    max_context: int | None = None


def _int(cfg: dict[str, Any], key: str, default: int | None = None, *, zero: bool = False) -> int | None:
    value = cfg.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if zero else 1):
        raise ConfigError(key, f"should be a {'whole number' if zero else 'positive whole number'}, got {value!r}")
    return value


def _need(cfg: dict[str, Any], key: str, what: str) -> int:
    if key not in cfg or cfg[key] is None:
        raise ConfigError(key, f"missing ({what}): the model's shape cannot be read without it")
    value = _int(cfg, key)
    assert value is not None
    return value


def _text_config(cfg: dict[str, Any]) -> tuple[dict[str, Any], str]:
    if "num_hidden_layers" not in cfg and isinstance(cfg.get("text_config"), dict):
        inner: dict[str, Any] = cfg["text_config"]
        family = str(cfg.get("model_type", ""))
        if "model_type" not in inner and family:
            inner = {**inner, "model_type": family}
        if "tie_word_embeddings" not in inner and "tie_word_embeddings" in cfg:
            inner = {**inner, "tie_word_embeddings": cfg["tie_word_embeddings"]}
        return inner, "text_config (the language model of a multimodal model; the vision encoder is not counted)"
    return cfg, ""


def _layer_kinds(cfg: dict[str, Any], layers: int) -> tuple[int, int]:
    """(windowed layers, linear-attention layers)."""
    kinds = cfg.get("layer_types")
    if isinstance(kinds, list) and kinds:
        if len(kinds) != layers:
            raise ConfigError("layer_types", f"lists {len(kinds)} layers, num_hidden_layers says {layers}")
        windowed = sum(1 for k in kinds if k in ("sliding_attention", "chunked_attention"))
        linear = sum(1 for k in kinds if k == "linear_attention")
        return windowed, linear
    family = str(cfg.get("model_type", ""))
    if family.startswith("qwen3_next"):
        interval = _int(cfg, "full_attention_interval", 4)
        assert interval is not None
        return 0, layers - layers // interval
    if cfg.get("attention_chunk_size") is not None:  # Llama 4: chunked attention on the RoPE layers
        flags = cfg.get("no_rope_layers")
        if isinstance(flags, list) and flags:
            return sum(1 for f in flags if f), 0
        return layers - layers // 4, 0
    if cfg.get("sliding_window") is None or cfg.get("use_sliding_window") is False:
        return 0, 0
    if family.startswith("gemma3"):
        pattern = _int(cfg, "sliding_window_pattern", 6)
        assert pattern is not None
        return layers - layers // pattern, 0
    if family.startswith("gemma2"):
        return math.ceil(layers / 2), 0
    return layers, 0  # Mistral: every layer


def _vision_params(raw: dict[str, Any]) -> int:
    """Parameters of the vision tower from ``vision_config`` (0 for families without one the reader
    knows). Biases and norms are left out, as for the language model. The weights are held with the
    model's; the image tokens a prompt carries are not sized.

    Qwen2.5-VL (HF ``Qwen2_5_VisionTransformerPretrainedModel``): the patch embedding (a Conv3d over
    ``temporal_patch_size`` × ``patch_size``² pixels of ``in_chans`` channels), ``depth`` blocks of
    attention (qkv + proj: 4 × hidden²) and a gated MLP (3 × hidden × intermediate), and the merger
    (an MLP from ``spatial_merge_size``² patches to the language model's width).

    Llama 4 (HF ``Llama4VisionModel`` and ``Llama4MultiModalProjector``): see :func:`_llama4_vision`;
    Gemma 3 (HF ``SiglipVisionModel`` and ``Gemma3MultiModalProjector``): see :func:`_siglip_vision`."""
    vision = raw.get("vision_config")
    family = str(raw.get("model_type", ""))
    if not isinstance(vision, dict):
        return 0
    if family == "llama4":
        return _llama4_vision(raw, vision)
    if family == "gemma3":
        return _siglip_vision(raw, vision)
    if not family.startswith("qwen2_5_vl"):
        return 0
    depth, width, inner, out = (_need(vision, k, w) for k, w in _VISION_REQUIRED)
    patch = _int(vision, "patch_size", 14)
    frames = _int(vision, "temporal_patch_size", 2)
    channels = _int(vision, "in_chans", 3)
    merge = _int(vision, "spatial_merge_size", 2)
    assert patch is not None and frames is not None and channels is not None and merge is not None
    merged = width * merge * merge
    return (
        channels * frames * patch * patch * width
        + depth * (4 * width * width + 3 * width * inner)
        + merged * (merged + out)
    )


def _llama4_vision(raw: dict[str, Any], vision: dict[str, Any]) -> int:
    """Llama 4's vision encoder as HF ``modeling_llama4`` builds it: the patch embedding
    (``Llama4UnfoldConvolution``, a Linear from ``num_channels`` × ``patch_size``² pixels to the width),
    the class embedding and one position embedding per patch plus the class token, ``num_hidden_layers``
    blocks of attention (q, k, v, o: 4 × width²) and a plain MLP (fc1, fc2: 2 × width × intermediate),
    the pixel-shuffle MLP (``Llama4VisionMLP2``: intermediate → ``projector_input_dim`` →
    ``projector_output_dim``), and the projector (``vision_output_dim`` → the language model's width)."""
    depth, width, inner, image, patch, proj_in, proj_out, out = (
        _need(vision, k, w) for k, w in _LLAMA4_VISION_REQUIRED
    )
    channels = _int(vision, "num_channels", 3)
    assert channels is not None
    text = raw.get("text_config")
    text_width = _need(text if isinstance(text, dict) else {}, "hidden_size", "language model width")
    positions = (image // patch) ** 2 + 1
    return (
        channels * patch * patch * width
        + width
        + positions * width
        + depth * (4 * width * width + 2 * width * inner)
        + inner * proj_in
        + proj_out * proj_out
        + out * text_width
    )


def _siglip_vision(raw: dict[str, Any], vision: dict[str, Any]) -> int:
    """Gemma 3's SigLIP encoder (HF ``SiglipVisionModel``, no pooling head: ``vision_use_head`` false) and
    its projector: the patch embedding (a Conv2d over ``num_channels`` × ``patch_size``² pixels), one
    position embedding per patch, ``num_hidden_layers`` blocks of attention (q, k, v, out: 4 × width²)
    and an MLP (fc1, fc2: 2 × width × intermediate), and ``Gemma3MultiModalProjector``'s projection
    (width → the language model's width)."""
    depth, width, inner, image, patch = (_need(vision, k, w) for k, w in _SIGLIP_REQUIRED)
    channels = _int(vision, "num_channels", 3)
    assert channels is not None
    text = raw.get("text_config")
    text_width = _need(text if isinstance(text, dict) else {}, "hidden_size", "language model width")
    patches = (image // patch) ** 2
    return (
        channels * patch * patch * width
        + patches * width
        + depth * (4 * width * width + 2 * width * inner)
        + width * text_width
    )


def _family_defaults(cfg: dict[str, Any]) -> dict[str, Any]:
    """The config with the keys its family's HF config class fills in when absent (Gemma 3 only)."""
    if not str(cfg.get("model_type", "")).startswith("gemma3"):
        return cfg
    return {**_GEMMA3_DEFAULTS, **cfg}


def read_config(cfg: Any) -> ReadConfig:
    """The flags a ``config.json`` (already parsed) stands for; :class:`ConfigError` naming the key otherwise."""
    if not isinstance(cfg, dict):
        raise ConfigError("config.json", "should be a JSON object { … }")
    raw = cfg
    vision = _vision_params(cfg)
    cfg, note = _text_config(cfg)
    cfg = _family_defaults(cfg)
    if note and vision:
        note = "text_config (the language model of a multimodal model) and vision_config (its vision encoder)"
    for key, what in UNSUPPORTED:
        if cfg.get(key) is not None:
            raise ConfigError(key, f"{what}: the engine has no formula for them; give --params instead")
    layers, h, heads, vocab = (_need(cfg, k, w) for k, w in REQUIRED)
    family = str(cfg.get("model_type", ""))
    kv = _int(cfg, "num_key_value_heads", heads)
    assert kv is not None
    tied_default = family.startswith("gemma")
    tied_value = cfg.get("tie_word_embeddings", tied_default)
    tied = bool(tied_default if tied_value is None else tied_value)

    # attention
    rank = _int(cfg, "kv_lora_rank")
    rope = _int(cfg, "qk_rope_head_dim", 0, zero=True) or 0
    if rank is not None:
        nope = _int(cfg, "qk_nope_head_dim", 128)
        v_dim = _int(cfg, "v_head_dim", 128)
        q_rank = _int(cfg, "q_lora_rank")
        assert nope is not None and v_dim is not None
        qk = nope + rope
        hd = qk
        q = h * q_rank + q_rank + q_rank * heads * qk if q_rank else h * heads * qk
        attention = q + h * (rank + rope) + rank + rank * heads * (nope + v_dim) + heads * v_dim * h
        kv = heads  # keys and values are decompressed per head
    else:
        hd_given = _int(cfg, "head_dim")
        if hd_given is None and h % heads:
            raise ConfigError("num_attention_heads", f"hidden_size {h} is not a whole number of {heads} heads")
        hd = hd_given if hd_given is not None else h // heads
        # Qwen3-Next's q_proj also yields a gate per head (Qwen3NextAttention: num_heads * head_dim * 2)
        gate = 2 if cfg.get("attn_output_gate", family.startswith("qwen3_next")) else 1
        attention = h * heads * hd * gate + 2 * h * kv * hd + heads * hd * h
    problem = shape_problem(heads=heads, kv_heads=kv, kv_lora_rank=rank)
    if problem is not None:
        raise ConfigError("num_key_value_heads", problem[1])

    windowed, linear = _layer_kinds(cfg, layers)
    window = _int(cfg, "attention_chunk_size") or (_int(cfg, "sliding_window") if windowed else None)
    linear_state = 0
    linear_attention = 0
    if linear:
        nk = _need(cfg, "linear_num_key_heads", "linear-attention key heads")
        nv = _need(cfg, "linear_num_value_heads", "linear-attention value heads")
        dk = _need(cfg, "linear_key_head_dim", "linear-attention key size")
        dv = _need(cfg, "linear_value_head_dim", "linear-attention value size")
        kernel = _int(cfg, "linear_conv_kernel_dim", 4)
        assert kernel is not None
        conv = 2 * nk * dk + nv * dv
        # Gated DeltaNet state per sequence: nv heads × dk × dv, and the causal conv's last kernel−1 inputs
        linear_state = nv * dk * dv + (kernel - 1) * conv
        # in_proj_qkvz, in_proj_ba, conv1d, dt_bias + A_log, the gated norm, out_proj (HF Qwen3NextGatedDeltaNet)
        linear_attention = h * (2 * nk * dk + 2 * nv * dv) + h * 2 * nv + conv * kernel + 2 * nv + dv + nv * dv * h

    # MLP
    experts = next((_int(cfg, k) for k in _EXPERT_KEYS if cfg.get(k) is not None), None)
    moe = experts is not None and experts > 1
    dense_i = _int(cfg, "intermediate_size_mlp") or _int(cfg, "intermediate_size")
    if dense_i is None and not moe:
        raise ConfigError("intermediate_size", "missing (MLP width): the model's shape cannot be read without it")
    k = 1
    dense_layers = 0
    shared = 0
    expert_i = dense_i or 0
    shared_i = 0
    if moe:
        assert experts is not None
        k_given = _int(cfg, "num_experts_per_tok") or _int(cfg, "experts_per_token")
        if k_given is None:
            raise ConfigError("num_experts_per_tok", "a mixture of experts needs the experts each token uses")
        if k_given > experts:
            raise ConfigError("num_experts_per_tok", f"{k_given} is more than the {experts} experts")
        k = k_given
        expert_i = _int(cfg, "moe_intermediate_size") or _int(cfg, "intermediate_size") or 0
        if not expert_i:
            raise ConfigError("moe_intermediate_size", "missing (one expert's MLP width)")
        dense_layers = _int(cfg, "first_k_dense_replace", 0, zero=True) or 0
        only = cfg.get("mlp_only_layers")
        if isinstance(only, list):
            dense_layers += len(only)
        if dense_layers and dense_i is None:
            raise ConfigError("intermediate_size", "missing (the dense layers' MLP width)")
        n_shared = _int(cfg, "n_shared_experts", 0, zero=True) or 0
        shared_i = n_shared * expert_i + (_int(cfg, "shared_expert_intermediate_size", 0, zero=True) or 0)
        if family.startswith("llama4"):
            shared_i = expert_i  # Llama 4: one shared expert of the routed width
        shared = round(shared_i / expert_i) if shared_i else 0
        if dense_layers >= layers:
            raise ConfigError(
                "first_k_dense_replace", f"{dense_layers} dense layers leave none of {layers} with experts"
            )
    expert = 3 * h * expert_i
    moe_layers = layers - dense_layers if moe else 0
    gate = h if cfg.get("shared_expert_intermediate_size") else 0  # Qwen's shared_expert_gate
    moe_mlp = (experts or 0) * expert + h * (experts or 0) + 3 * h * shared_i + gate
    mlp = moe_layers * moe_mlp + (layers - moe_layers) * 3 * h * (dense_i or 0)
    attention_total = (layers - linear) * attention + linear * linear_attention
    total = vocab * h * (1 if tied else 2) + attention_total + mlp + layers * 2 * h + h + vision
    flags = {
        "params": repr(total / 1e9),
        "layers": str(layers),
        "hidden": str(h),
        "heads": str(heads),
        "kv-heads": str(kv),
        "vocab": str(vocab),
        "intermediate": str(expert_i if moe else dense_i),
    }
    if rank is not None or hd != h // heads:
        flags["head-dim"] = str(hd)
    if moe:
        assert experts is not None
        flags["experts"] = str(experts)
        flags["experts-per-token"] = str(k)
        # a decoded token passes through the language model only: the vision tower runs on image tokens
        flags["active-params"] = repr((total - vision - moe_layers * (experts - k) * expert) / 1e9)
        if dense_layers:
            flags["dense-layers"] = str(dense_layers)
        if shared:
            flags["shared-experts"] = str(shared)
    if tied:
        flags["tied-embeddings"] = "1"
    if rank is not None:
        flags["kv-lora-rank"] = str(rank)
        flags["qk-rope-head-dim"] = str(rope)
    if windowed and window is not None:
        flags["sliding-window"] = str(window)
        flags["window-layers"] = str(windowed)
    if linear:
        flags["linear-layers"] = str(linear)
        flags["linear-state"] = str(linear_state)
    max_context = _int(cfg, "max_position_embeddings")
    if max_context is None and cfg is not raw:
        max_context = _int(raw, "max_position_embeddings")
    if max_context is not None:
        flags["max-context"] = str(max_context)
    return ReadConfig(flags, total, note, max_context)


def key_line(text: str, key: str) -> int | None:
    """The line (1-based) where ``"key"`` first appears in the JSON text, for messages."""
    needle = f'"{key}"'
    at = text.find(needle)
    return None if at < 0 else text.count("\n", 0, at) + 1
