"""What the engine says about an option, as typed records (like :mod:`generator.engine.exclusion`).

A :class:`Reason` is a :class:`ReasonKind` and the figures its message names; it and
:class:`~generator.engine.exclusion.Exclusion` are one :class:`Record` shape. The reader's words
live in the message table :data:`generator.pages.messages.REASON_ZH`, which the pages, the command
line and open data format through, and which the calculator receives in its JSON;
``docs/javascripts/engine/*.js`` build the same ``{kind, params}`` records.

Parameters are display-ready scalars: integers (card counts, tokens; the table writes their
thousands separators), strings the engine has formatted as figures (``"12.3"``, money with
:func:`generator.formats.cny`) or taken verbatim from the data (a GPU's name, a kernel's note in
``rules.yaml``), tuples of billing tier ids, and nested reasons (a part of a sentence whose words
depend on a case, such as the minimum rental of a job). A message may hold an optional part in
``[…]``, said only when every parameter it names is present.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, Generic, TypeAlias, TypeVar

#: A parameter's value: a count, a formatted figure, billing tier ids, or nested records.
Param: TypeAlias = "int | str | tuple[str, ...] | Record[StrEnum] | tuple[Record[StrEnum], ...]"

K_co = TypeVar("K_co", bound=StrEnum, covariant=True)


@dataclass(frozen=True)
class Record(Generic[K_co]):
    """The one shape of everything the engine says (griffe's ``Breakage``): a kind from a closed
    enum and the figures its message names. :class:`Reason` and
    :class:`~generator.engine.exclusion.Exclusion` are its two tables; ``table`` names the message
    table that words a record (the key of ``messages_json()`` in :mod:`generator.pages.messages`)."""

    kind: K_co
    params: dict[str, Param] = field(default_factory=dict)
    table: ClassVar[str]

    def record(self) -> dict[str, object]:
        """The JSON form shared with the calculator: ``{"kind": …, "params": {…}}``."""
        return {"kind": self.kind.value, "params": {k: param_record(v) for k, v in self.params.items()}}


class ReasonKind(StrEnum):
    """What a reason says (the message table words each)."""

    # next to every option (recommend._reasons)
    memory = "memory"  # per-card peak and usable memory, and the cards needed
    month_by_use = "month_by_use"  # the month's total, billed by the hour
    month_fixed = "month_fixed"  # the month's total, billed by the month
    cluster = "cluster"  # several servers joined by the provider's fabric
    idle_cards = "idle_cards"  # a whole server billed, some cards idle
    replicas = "replicas"  # the rented cards run several copies of the model
    whole_machine = "whole_machine"  # the job uses every card of the whole server
    job = "job"  # the reference job's hours and rent (minimum: a nested minimum rental)
    faster = "faster"  # a plan about as dear that finishes at least twice as fast
    serving_load = "serving_load"  # serving figures at the request's own concurrency
    serving_capacity = "serving_capacity"  # serving figures at the concurrency memory allows
    images = "images"  # images per hour and per 1,000 images (volume: the month's hours)
    not_cuda = "not_cuda"  # a non-NVIDIA card: CUDA code must be ported
    support_note = "support_note"  # how the format runs on the card (note: rules.yaml's words)
    fallback_unspecified = "fallback_unspecified"  # priced with an offer whose form the source does not say
    fallback_bare_metal = "fallback_bare_metal"  # priced with a whole bare-metal server
    form_bare_metal = "form_bare_metal"  # a bare-metal offer serves a container need
    form_vm_container = "form_vm_container"  # a cloud VM serves a container need
    form_vm_bare_metal = "form_vm_bare_metal"  # a whole-server VM serves a bare-metal need
    # the delivery rule (engine.delivery)
    delivery_adapter = "delivery_adapter"  # adapter training (LoRA / QLoRA): data parallel, a container
    delivery_sharded = "delivery_sharded"  # sharded multi-card training: bare metal
    delivery_single = "delivery_single"  # single-card training: a container
    delivery_serving = "delivery_serving"  # serving: a container
    # how the cards are linked (engine.links.link_reason)
    link_single = "link_single"  # one card
    link_pcie_only = "link_pcie_only"  # no scale-up link: PCIe only
    link_nvswitch = "link_nvswitch"  # every card of the server through NVSwitch (gbps: per card)
    link_all_to_all = "link_all_to_all"  # a full mesh: one direct link between every pair of cards (gbps: per card)
    link_cube_mesh = "link_cube_mesh"  # DGX-1's hybrid cube-mesh: each card linked to 4 others, not every pair
    link_bridged = "link_bridged"  # two PCIe cards on a bridge
    link_bridged_pairs = "link_bridged_pairs"  # bridged pairs that talk over PCIe
    fabric_slower = "fabric_slower"  # the fabric between servers is slower per GPU than the published runs
    link_multi_node = "link_multi_node"  # several servers: the link inside each (inner), a fabric between them
    # the fabric between servers (engine.links.fabric_reason, nested in link_multi_node and cluster)
    fabric_infiniband = "fabric_infiniband"  # the provider sells InfiniBand (gbit: per GPU)
    fabric_roce = "fabric_roce"  # the provider sells RoCE (gbit: per GPU)
    fabric_efa = "fabric_efa"  # AWS's Elastic Fabric Adapter (gbit: per GPU)
    fabric_assumed = "fabric_assumed"  # no offer: the speed assumes rules.yaml scaling.unknown_fabric (fabric)
    fabric_any = "fabric_any"  # no offer chosen yet: whatever fabric the provider sells
    # why a format does not run (engine.support.refusal, nested in an unsupported_format exclusion)
    format_below_cc = "format_below_cc"  # the kernels' compute-capability floors, above the card's
    format_no_nvidia_kernel = "format_no_nvidia_kernel"  # the runtime has no kernel for NVIDIA cards
    format_no_vendor_kernel = "format_no_vendor_kernel"  # the runtime has no kernel for this vendor
    kernel_floor_first = "kernel_floor_first"  # the first kernel's floor (names "compute capability")
    kernel_floor = "kernel_floor"  # a further kernel's floor
    format_instead = "format_instead"  # the nearest formats that run
    format_no_alternative = "format_no_alternative"  # no format runs instead
    # assumptions behind an estimate (engine.footprint, engine.sizing)
    per_card_memory = "per_card_memory"  # memory is per card: cards do not pool
    derived_arch = "derived_arch"  # the model's missing fields were derived Llama-style
    overhead = "overhead"  # CUDA context, fragmentation (comm_gib: several cards' buffers)
    serving_throughput = "serving_throughput"  # serving figures at capacity (limit: what caps concurrency)
    image_speed = "image_speed"  # seconds per image and the model behind it (passes: denoiser passes)
    video_speed = "video_speed"  # seconds per video: tokens, steps, passes, cards, attention's share (engine.video)
    video_memory = "video_memory"  # peak GiB per card of a video job and its phase (offload: what is off the card)
    video_cost = "video_cost"  # rent per video and per minute of finished video
    video_phase_text = "video_phase_text"  # the peak phase: umt5-xxl encoding the prompt
    video_phase_denoise = "video_phase_denoise"  # the peak phase: the DiT's denoising steps
    video_phase_decode = "video_phase_decode"  # the peak phase: the Wan-VAE decoding the latents
    video_offload_model = "video_offload_model"  # --offload_model: the DiT and T5 on the card only in their own phase
    video_offload_t5 = "video_offload_t5"  # --t5_cpu: the text encoder runs on the CPU
    video_offload_both = "video_offload_both"  # both
    video_needs_offload = "video_needs_offload"  # a plan fits the card only offloaded (results/video_plans.fit)
    video_t5_cpu_time = "video_t5_cpu_time"  # --t5_cpu: the text encoder's CPU time is not counted
    # the editor's pick against the computed one (engine.recommend.editor_disagreement)
    editor_gpu = "editor_gpu"  # another GPU (excluded: why the editor's card is out)
    editor_delivery = "editor_delivery"  # another delivery form (why: the rule's reason)
    # parts of sentences
    limit_engine_cap = "limit_engine_cap"  # the serving engine's per-card concurrency default (vLLM max_num_seqs)
    limit_max_slots = "limit_max_slots"  # the most sequences one llama.cpp context holds (LLAMA_MAX_SEQ)
    limit_static_batch = "limit_static_batch"  # transformers generate(): the static batch the request names
    launch_slots = "launch_slots"  # a slots server (llama-server) launched with --parallel N -c N x context
    limit_kv_cache = "limit_kv_cache"  # the KV cache memory holds
    denoise_cfg = "denoise_cfg"  # two denoiser passes a step (classifier-free guidance)
    denoise_distilled = "denoise_distilled"  # one pass a step (guidance-distilled model)
    minimum_months = "minimum_months"  # a monthly offer bills whole months
    minimum_days = "minimum_days"  # a daily offer bills whole days
    # --- the memory and speed estimates' assumptions (engine.training_memory, inference_memory, speed);
    # figures the old sentences wrote without thousands separators are passed as strings
    # training memory: the recipe (base: a nested base_* reason) and what the job assumes
    recipe_full = "recipe_full"  # full training: bytes per parameter (autocast_bytes: AMP's 16-bit copy)
    recipe_adapter = "recipe_adapter"  # LoRA / QLoRA: the frozen base (nested) and the adapters' bytes
    base_qlora = "base_qlora"  # QLoRA's 4-bit base, its wider embeddings and compute precision
    base_mixed = "base_mixed"  # a LoRA base in fp32 under automatic mixed precision
    base_frozen = "base_frozen"  # a LoRA base stored at the request's precision
    optimizer_adamw = "optimizer_adamw"  # PyTorch AdamW (foreach step temporaries)
    optimizer_adamw_8bit = "optimizer_adamw_8bit"  # bitsandbytes 8-bit AdamW
    optimizer_sgd = "optimizer_sgd"  # SGD without momentum
    optimizer_zero_fused = "optimizer_zero_fused"  # AdamW under DeepSpeed ZeRO (FusedAdam in place)
    checkpointing_on = "checkpointing_on"  # gradient checkpointing: layer inputs kept, recomputed
    checkpointing_off = "checkpointing_off"  # every layer's activations kept for backward
    micro_batch = "micro_batch"  # the card's own micro-batch sizes the activations
    zero_sharded = "zero_sharded"  # data parallel with ZeRO (states: a nested zero_states_*)
    zero_none = "zero_none"  # data parallel without ZeRO: a whole copy per card
    zero_states_1 = "zero_states_1"  # what ZeRO-1 shards
    zero_states_2 = "zero_states_2"  # what ZeRO-2 shards
    zero_states_3 = "zero_states_3"  # what ZeRO-3 shards
    gradients_late = "gradients_late"  # no gradients yet at the start of backward
    peak_phase = "peak_phase"  # which phase peaks (phase, other: nested phase_* reasons)
    phase_forward_backward = "phase_forward_backward"  # forward / backward
    phase_optimizer_step = "phase_optimizer_step"  # the optimizer step
    transient_autocast = "transient_autocast"  # a training transient: AMP's 16-bit weight copies
    transient_dequant = "transient_dequant"  # a 4-bit weight dequantized to 16 bits
    transient_step = "transient_step"  # optimizer-step temporaries
    transient_zero3_gather = "transient_zero3_gather"  # ZeRO-3 parameter gathers
    transient_zero_reduce = "transient_zero_reduce"  # ZeRO 1-2 gradient reduce bucket
    # inference memory: language models
    weights_format = "weights_format"  # the weights' precision (embeddings16, experts: optional parts)
    embeddings_16bit = "embeddings_16bit"  # embeddings and lm_head stay 16-bit
    kv_cache = "kv_cache"  # the KV cache's precision and size (mla, window, linear: nested kv_*)
    kv_mla = "kv_mla"  # multi-head latent attention caches a latent per token
    kv_window = "kv_window"  # sliding-window layers cap their cache
    kv_linear = "kv_linear"  # linear-attention layers keep a fixed state
    parallelism = "parallelism"  # tensor parallel (pp: pipeline stages)
    parallelism_layers = "parallelism_layers"  # a layer-split runtime: a run of whole layers per card
    prefill_chunked = "prefill_chunked"  # the runtime prefills in chunks (logits: a nested logits_*)
    prefill_whole = "prefill_whole"  # the whole batch prefilled at once
    logits_runtime = "logits_runtime"  # the runtime's own logits (allocates: rules.yaml's words)
    logits_all_tokens = "logits_all_tokens"  # logits kept for every prompt token
    logits_last_token = "logits_last_token"  # logits of the last token only
    # inference memory: image pipelines
    diffusion = "diffusion"  # the pipeline's residency, images and passes (where, guidance, peak: nested)
    offload_none = "offload_none"  # every component stays on the GPU
    offload_model = "offload_model"  # diffusers model CPU offload
    guidance_cfg = "guidance_cfg"  # classifier-free guidance's negative prompt
    guidance_distilled = "guidance_distilled"  # a guidance-distilled model
    phase_text_encoder = "phase_text_encoder"  # the text-encoding phase
    phase_denoiser = "phase_denoiser"  # the denoising phase
    phase_vae = "phase_vae"  # VAE decoding
    vae_upcast = "vae_upcast"  # diffusers decodes this VAE in fp32 under fp16
    component = "component"  # one pipeline component's line (role: a nested role_*)
    role_denoiser = "role_denoiser"  # a UNet or transformer denoiser
    role_text_encoder = "role_text_encoder"  # a text encoder
    role_vae = "role_vae"  # the image decoder
    # speed: training time and decode throughput (engine.speed)
    train_flops_full = "train_flops_full"  # model FLOPs of full training (6 N per token)
    train_flops_adapter = "train_flops_adapter"  # model FLOPs of LoRA / QLoRA (4 N per token)
    mfu = "mfu"  # the card's peak and the platform's MFU (nested marks when unconfirmed)
    peak_unconfirmed = "peak_unconfirmed"  # the datasheet does not confirm the peak
    mfu_unconfirmed = "mfu_unconfirmed"  # no published run confirms the MFU
    scaling = "scaling"  # the cards, their link (a nested link_* reason) and the scaling efficiency
    goodput = "goodput"  # the share of rented time spent training
    finetune = "finetune"  # fine-tuning's fixed costs per micro-batch (dequant, checkpointing: nested)
    finetune_dequant = "finetune_dequant"  # QLoRA dequantizes the 4-bit base each pass
    finetune_recompute = "finetune_recompute"  # gradient checkpointing recomputes the forward
    finetune_no_recompute = "finetune_no_recompute"  # no recomputation
    decode_bandwidth = "decode_bandwidth"  # a decode step reads the weights and KV cache once
    decode_batch = "decode_batch"  # concurrency, context and what bounds the step (a nested bound_*)
    bound_memory = "bound_memory"  # memory bandwidth (reading the weights)
    bound_compute = "bound_compute"  # compute
    bound_dequant = "bound_dequant"  # dequantization
    bound_kv = "bound_kv"  # reading the KV cache
    bound_host = "bound_host"  # the host issuing kernels (eager PyTorch, no CUDA graphs)
    decode_dequant = "decode_dequant"  # a weight-only format dequantizes every step
    decode_parallel = "decode_parallel"  # the cards' split (pp: pipeline stages) and link
    decode_layer_split = "decode_layer_split"  # the runtime splits layers over the cards, one card at a time
    decode_runtime = "decode_runtime"  # the runtime's host floor and KV traffic per step (transformers)
    decode_expert_dispatch = "decode_expert_dispatch"  # the runtime dispatches MoE experts from the host (llama.cpp)


@dataclass(frozen=True)
class Reason(Record[ReasonKind]):
    """One thing said about an option: its kind and the figures its message names."""

    table: ClassVar[str] = "reason"


def param_record(value: Param) -> object:
    """A parameter in JSON: tuples become lists, nested records their records."""
    if isinstance(value, tuple):
        return [v if isinstance(v, str) else v.record() for v in value]
    if isinstance(value, int | str):
        return value
    return value.record()
