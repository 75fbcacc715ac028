"""Typed form of ``data/rules.yaml``: every constant the buying engine uses.

An editor changes a number in ``data/rules.yaml``; this module only says what each
number means (``description=`` feeds the JSON Schema and the editor's guide). Each
value's source is the YAML comment next to it. Method notes: ``docs-dev/estimator.md``.

Rules are data: the engine reads only the :class:`Rules` object it is handed, never
the repository's file, so ``diff`` against an older ref, ``serve`` after an edit and an
installed package all compute with the rules they were given. Validation happens in
:mod:`generator.data.validate`, as strict as for every other file (``"730"``, ``yes``
or ``true`` where a number belongs are refused).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, model_validator

from generator.data.records import (
    Billing,
    FabricKind,
    HttpUrl,
    Offload,
    Optimizer,
    Precision,
    Runtime,
    SourceTier,
    Vendor,
)

#: A precision name as YAML text (records.Precision's values).
PrecisionName = Annotated[Precision, Strict(False)]
#: Precisions full training / pre-training supports.
TrainPrecisionName = Literal["mixed", "bf16", "fp16", "fp32"]
LoraTarget = Literal["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


class ActivationRegime(StrEnum):
    """How a training recipe's activations are laid out (see MemoryTrainingRules.layer_activations)."""

    bf16 = "bf16"
    autocast_fp32 = "autocast_fp32"
    fp32 = "fp32"


class LinkKind(StrEnum):
    """How the cards of one job talk to each other."""

    single = "single"
    nvlink = "nvlink"
    pcie = "pcie"
    multi_node = "multi_node"


Regime = Annotated[ActivationRegime, Strict(False)]
OptimizerName = Annotated[Optimizer, Strict(False)]
BillingName = Annotated[Billing, Strict(False)]
VendorName = Annotated[Vendor, Strict(False)]
SourceTierName = Annotated[SourceTier, Strict(False)]

_Fraction = Field(gt=0, le=1)


class _Section(BaseModel):
    """Base of every rules section: unknown keys are errors, values never change."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# --------------------------------------------------------------------------- precision support


class SupportKernel(_Section):
    """One way a runtime runs a number format, and the cards it runs on."""

    kernel: str = Field(min_length=1, max_length=60, description="The kernel or path, as the reason names it.")
    min_cc: float | None = Field(
        ge=1, le=20, description="Lowest NVIDIA compute capability it runs on; null: not on NVIDIA cards."
    )
    vendors: list[VendorName] = Field(
        default_factory=list, description="Other vendors whose software stack runs it (a source says so)."
    )
    note: str | None = Field(
        default=None, min_length=1, max_length=200, description="Said next to an option that runs this way."
    )
    confirmed: bool = Field(
        default=True,
        description="false: the source does not confirm the format runs this way (it names the cards as still "
        "being worked on); such an option stays listed with its note but ranks after confirmed ones and is "
        "not the pick while a confirmed option exists. Needs a note saying so.",
    )
    source: HttpUrl = Field(description="The runtime's documentation or source code that says so.")

    @model_validator(mode="after")
    def _unconfirmed_has_note(self) -> SupportKernel:
        if not self.confirmed and self.note is None:
            raise ValueError("a kernel with confirmed: false needs a note saying what is not confirmed")
        return self


class RuntimeSupport(_Section):
    """Which formats one runtime runs on which cards."""

    name: str = Field(min_length=1, max_length=40, description="The runtime's name in reasons (vLLM ...).")
    vendors: list[VendorName] = Field(
        description="Non-NVIDIA vendors the sources cover: a format whose kernels leave one out is ruled out there."
    )
    unconfirmed: str = Field(min_length=1, max_length=200, description="Said of a card of a vendor not covered.")
    formats: dict[PrecisionName, list[SupportKernel]] = Field(
        description="Kernels per format, tried in order; a format not listed is not checked."
    )


class SupportRules(_Section):
    """Precision × card support per runtime (generator/engine/support.py)."""

    training_runtime: str = Field(
        min_length=1, description="Runtime training and image generation assume (a key of runtimes)."
    )
    labels: dict[PrecisionName, str] = Field(description="Each precision's name in reasons.")
    nearest: dict[PrecisionName, list[PrecisionName]] = Field(
        description="Formats to suggest instead, nearest first; the reason names the first two that run."
    )
    runtimes: dict[str, RuntimeSupport] = Field(
        min_length=1,
        description="Support tables per runtime: training_runtime's, and one per serving runtime (a request's "
        "runtime, defaults.runtime).",
    )

    @model_validator(mode="after")
    def _known_runtimes(self) -> SupportRules:
        for name in (self.training_runtime, *(r.value for r in Runtime)):
            if name not in self.runtimes:
                raise ValueError(f"runtime {name!r} is not one of runtimes ({', '.join(self.runtimes)})")
        return self


# --------------------------------------------------------------------------- cost, delivery


class CostRules(_Section):
    """Prices that are not GPU rent, and the month length."""

    hours_per_month: float = Field(gt=0, le=744, description="Hours in an average month (24*365/12 = 730).")
    disk_cny_per_gb_month: float = Field(ge=0, description="Data disk price, yuan per GB per month.")
    egress_cny_per_gb: float = Field(ge=0, description="Outbound traffic price, yuan per GB.")
    public_ip_cny_month: float = Field(ge=0, description="Public IP price, yuan per month.")
    assumptions_confirmed: bool = Field(
        description="false while the prices above are assumptions; pages then mark them as unconfirmed."
    )


class PriceRules(_Section):
    """Which prices count: how old a price may be, and which billing tiers rank a recommendation."""

    fresh_days: int = Field(
        ge=1,
        le=3650,
        description=(
            "Offers older than this many days before the build date (SOURCE_DATE_EPOCH, else the commit "
            "date of data/) are history: "
            "pages show them under 历史报价 and nothing is ranked or priced with them."
        ),
    )
    api_fresh_days: int = Field(
        ge=1,
        le=3650,
        description=(
            "API prices (api_prices.yaml) older than this many days before the build date are history: pages list "
            "them with their age, and no comparison with renting uses them."
        ),
    )
    pick_billing: list[BillingName] = Field(
        min_length=1,
        description=(
            "Billing tiers a recommendation may be priced with; other tiers (spot, reserved) are shown "
            "on the pages but never ranked."
        ),
    )
    pick_tiers: list[SourceTierName] = Field(
        min_length=1,
        description=(
            "Source tiers (offers.yaml source_tier) whose prices may rank and price a recommendation; offers of "
            "other tiers are shown on the pages with their tier but never ranked."
        ),
    )
    runner_ups: int = Field(
        ge=0, le=20, description="Other providers' cheapest offers shown next to a recommended GPU."
    )


class DefaultRules(_Section):
    """What a scenario, the command line, model pages and the calculator assume when the
    reader gives nothing. The one source of defaults: change them here, nowhere else."""

    precision: PrecisionName = Field(
        description="Weights and compute precision when the command line or the calculator is not told."
    )
    batch: int = Field(ge=1, description="Concurrent sequences (inference) or micro-batch per card (training).")
    context: int = Field(ge=64, description="Tokens per sequence.")
    grad_checkpointing: bool = Field(description="Training: recompute activations in backward.")
    optimizer: OptimizerName = Field(description="Training optimizer.")
    lora_rank: int = Field(ge=1, description="LoRA rank.")
    zero_stage: int = Field(ge=0, le=3, description="ZeRO stage when training on several cards.")
    output_tokens: int = Field(
        ge=1, description="Serving: tokens generated per request; the prompt is the context minus this."
    )
    resolution: int = Field(ge=64, le=8192, description="Image models: side of the square image in pixels.")
    offload: Annotated[Offload, Strict(False)] = Field(
        description="Image models: none (all parts on the GPU) or model (model CPU offload)."
    )
    steps: int = Field(
        ge=1, le=1000, description="Image models: denoising steps when neither the reader nor the model entry says."
    )
    runtime: Annotated[Runtime, Strict(False)] = Field(
        description="Serving a language model: the runtime whose way of allocating memory is assumed."
    )
    disk_gb: float = Field(ge=0, description="Data disk kept all month, GB.")
    egress_gb_month: float = Field(ge=0, description="Outbound traffic per month, GB.")
    public_ip: bool = Field(description="Whether one public IP per instance is rented.")
    require_cuda: bool = Field(
        description="Whether the buyer's code needs NVIDIA CUDA (other accelerators ruled out) unless a "
        "scenario or the command line says otherwise.",
    )


class DeliveryRules(_Section):
    """Container versus bare metal."""

    container_virtualization_loss: float = Field(
        ge=0, lt=1, description="Share of speed lost to container virtualization (seed article: 3%-8%)."
    )
    bare_metal_min_training_cards: int = Field(
        ge=1, description="Training on at least this many cards needs bare metal with NVLink."
    )
    vm_whole_server_cards: int = Field(
        ge=2,
        description=(
            "A cloud VM (or an offer of unstated form) may serve multi-card training only when it holds at least "
            "this many cards: a whole server, whose cards share the server's NVLink."
        ),
    )


# --------------------------------------------------------------------------- memory


class ArchDefaults(_Section):
    """Values used to fill in architecture fields a model entry leaves empty."""

    vocab: int = Field(ge=256, description="Vocabulary size assumed when unknown.")
    head_dim: int = Field(ge=8, description="Size of one attention head assumed when unknown.")
    hidden_per_layer: float = Field(gt=0, description="Hidden size divided by number of layers (Llama-like shape).")
    hidden_multiple: int = Field(ge=1, description="Derived hidden sizes are rounded to a multiple of this.")
    block_params_per_hidden_sq: float = Field(
        gt=0, description="Parameters of one decoder block divided by hidden squared (Llama: 12)."
    )
    intermediate_per_hidden: float = Field(gt=0, description="MLP intermediate size divided by hidden size.")
    intermediate_multiple: int = Field(ge=1, description="Derived intermediate sizes are rounded to this multiple.")
    moe_experts_per_token: int = Field(ge=1, description="Experts each token uses when a MoE entry omits it.")


class PrefillLogits(StrEnum):
    """Which prompt positions a serving stack computes logits for during prefill."""

    last_token = "last_token"  # vLLM, transformers generate() with logits_to_keep=1
    all_tokens = "all_tokens"  # a plain forward over the prompt (older generate(), scoring scripts)


class RuntimeMemory(_Section):
    """How one serving runtime allocates memory for a language model (generator/engine/inference_memory.py)."""

    name: str = Field(min_length=1, max_length=60, description="Display name, e.g. vLLM.")
    prefill_logits: Annotated[PrefillLogits, Strict(False)] = Field(
        description="last_token (one row of logits per sequence) or all_tokens (a row per token of a prefill step)."
    )
    max_batched_tokens: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000,
        description="Tokens the runtime processes per prefill step (vLLM's max_num_batched_tokens, llama.cpp's "
        "n_ubatch); prefill temporaries are counted for at most this many tokens. Null: the whole batch at once.",
    )
    chunk_setting: str | None = Field(
        default=None, min_length=1, max_length=40, description="The runtime's name for that setting, said on the page."
    )
    kv_precision: PrecisionName | None = Field(
        default=None,
        description="KV-cache type when the request names none; null: the weights' (kv_default_precision rules).",
    )
    activation_bytes: float | None = Field(
        default=None, gt=0, description="Bytes per activation value; null: the model's (activation_bytes rules)."
    )
    logits_bytes_per_vocab: float | None = Field(
        default=None,
        gt=0,
        description="With all_tokens: bytes per vocabulary entry per token; null: all_token_logits_bytes_per_vocab.",
    )
    layer_split: bool = Field(
        default=False,
        description="Several cards split the model by layer (llama.cpp --split-mode layer, transformers "
        "device_map): each card holds a run of whole layers and their KV cache; false: tensor parallel (vLLM).",
    )
    gpu_memory_utilization: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="Share of the card the runtime reserves at start and never exceeds (vLLM); null: it "
        "allocates as it goes, up to the usable memory.",
    )
    allocates_zh: str = Field(
        min_length=1, max_length=300, description="How it allocates, said on the page (one sentence, Chinese)."
    )
    source: HttpUrl = Field(description="The runtime's source or documentation for these defaults.")


class DenoiserActivations(_Section):
    """Denoiser activation peak per image pass per megapixel of output, 16-bit, GiB."""

    unet: float = Field(ge=0, description="UNet denoisers (SDXL).")
    transformer: float = Field(ge=0, description="Diffusion-transformer denoisers (SD3, FLUX).")


class DiffusionRules(_Section):
    """Memory of an image-generation pipeline beyond its weights."""

    vae_decode_gib_per_megapixel: float = Field(
        ge=0, description="VAE decode peak per image per megapixel in 16-bit, GiB (fp32 decoding doubles it)."
    )
    denoiser_gib_per_megapixel: DenoiserActivations = Field(
        description="Denoiser activations per image pass per megapixel, 16-bit, GiB."
    )


class InferenceRules(_Section):
    """Memory of serving a model."""

    max_tensor_parallel: int = Field(ge=1, description="Largest tensor-parallel group; more cards add pipeline stages.")
    activation_bytes: float = Field(gt=0, description="Bytes per activation value for 16-bit models.")
    fp32_activation_bytes: float = Field(gt=0, description="Bytes per activation value for fp32 models.")
    prefill_intermediate_copies: float = Field(
        ge=0, description="MLP-width temporaries alive at once while one layer processes the prompt."
    )
    prefill_hidden_copies: float = Field(
        ge=0, description="Hidden-width temporaries alive at once in attention while processing the prompt."
    )
    prefill_resident_hidden_copies: float = Field(
        ge=0, description="Hidden-width tensors alive across the whole layer (residual stream, layer input)."
    )
    last_token_logits_bytes_per_vocab: float = Field(
        ge=0, description="Bytes per vocabulary entry for the last position's logits and sampling, per sequence."
    )
    all_token_logits_bytes_per_vocab: float = Field(
        ge=0, description="Bytes per vocabulary entry per prompt token when a stack keeps logits for every token."
    )
    runtimes: dict[Annotated[Runtime, Strict(False)], RuntimeMemory] = Field(
        description="How each serving runtime allocates; requests name one (defaults.runtime)."
    )
    diffusion: DiffusionRules = Field(description="Image-generation pipelines.")


class TrainingRecipe(_Section):
    """Bytes per parameter one card holds for a training precision."""

    weights: float = Field(ge=0, description="Model weights as the forward pass uses them.")
    gradients: float = Field(ge=0, description="Gradients.")
    master_weights: float = Field(
        ge=0, description="Extra fp32 master copy kept by the optimizer (ZeRO mixed precision)."
    )
    autocast_copy: float = Field(
        ge=0, description="16-bit weight copies autocast keeps alive for backward (fp32 model under AMP)."
    )
    activations: Regime = Field(description="Activation layout: bf16, autocast_fp32 or fp32.")


class OptimizerRule(_Section):
    """What an optimizer keeps per trained parameter."""

    states_per_param: int = Field(ge=0, description="State tensors per parameter (AdamW: 2, exp_avg and exp_avg_sq).")
    state_bytes: float | None = Field(
        ge=0, description="Bytes per state value; null = same dtype as the (master) weights."
    )
    step_temporaries_per_param: float = Field(
        ge=0, description="Temporary tensors per parameter allocated during step() (foreach AdamW: 1)."
    )


class LayerActivations(_Section):
    """Saved-for-backward bytes per token per decoder layer."""

    per_hidden: float = Field(ge=0, description="Bytes per token per unit of hidden size.")
    per_intermediate: float = Field(ge=0, description="Bytes per token per unit of MLP intermediate size.")
    per_head: float = Field(ge=0, description="Bytes per token per attention head (SDPA logsumexp).")


class CheckpointBytes(_Section):
    """Bytes per token per unit of hidden size kept per layer with gradient checkpointing."""

    bf16: float = Field(ge=0, description="16-bit residual stream.")
    autocast_fp32: float = Field(ge=0, description="fp32 residual stream under autocast.")
    fp32: float = Field(ge=0, description="fp32 model.")


class MemoryTrainingRules(_Section):
    """Memory of fine-tuning and pre-training."""

    recipes: dict[TrainPrecisionName, TrainingRecipe] = Field(
        description="Bytes per parameter per precision on one card without ZeRO."
    )
    zero_recipes: dict[TrainPrecisionName, TrainingRecipe] = Field(
        description="Bytes per parameter per precision under DeepSpeed ZeRO (before sharding)."
    )
    optimizers: dict[OptimizerName, OptimizerRule] = Field(description="Optimizer states and step temporaries.")
    zero_step_temporaries_per_param: float = Field(
        ge=0, description="Step temporaries per parameter under ZeRO (DeepSpeed FusedAdam: 0)."
    )
    layer_activations: dict[Regime, LayerActivations] = Field(
        description="Saved activations per token per layer for each activation layout."
    )
    checkpoint_bytes_per_hidden: CheckpointBytes = Field(
        description="Per-layer bytes per token per hidden unit kept with gradient checkpointing."
    )
    recompute_layer_factor: float = Field(
        ge=1, description="One recomputed layer plus its backward temporaries, in units of one layer's activations."
    )
    logits_held_bytes_per_vocab: float = Field(
        ge=0, description="Bytes per token per vocabulary entry held from the loss until backward."
    )
    logits_backward_bytes_per_vocab: float = Field(
        ge=0, description="Extra bytes per token per vocabulary entry at the start of backward."
    )
    moe_dispatch_bytes_per_hidden: float = Field(
        ge=0, description="MoE: bytes per token per hidden unit per chosen expert for routing copies."
    )
    final_norm_bytes_per_hidden: float = Field(ge=0, description="Final norm's saved bytes per token per hidden unit.")
    lora_targets: list[LoraTarget] = Field(min_length=1, description="Linear layers that get LoRA adapters.")
    lora_adapter_bits: float = Field(gt=0, description="Bits per adapter weight (PEFT keeps adapters in fp32).")
    lora_input_copy_bytes: float = Field(
        ge=0, description="Bytes per input value PEFT saves when it casts a module's input to the adapter dtype."
    )
    qlora_weight_format: PrecisionName = Field(description="Storage format of the frozen base in QLoRA.")
    qlora_default_compute: PrecisionName = Field(description="Compute dtype of QLoRA when the scenario gives none.")
    qlora_embedding_bits: float = Field(gt=0, description="Bits per embedding / lm_head parameter in QLoRA.")
    qlora_activations: Regime = Field(description="Activation layout of QLoRA training.")
    zero3_live_modules: float = Field(ge=0, description="ZeRO-3: gathered modules alive at once.")
    zero3_gather_bytes: float = Field(gt=0, description="ZeRO-3: bytes per gathered parameter.")
    zero_reduce_bucket_elements: int = Field(ge=0, description="ZeRO 1-2: gradient reduce bucket, in elements.")
    zero_bucket_bytes: float = Field(gt=0, description="Bytes per element of the reduce bucket.")


class OverheadRules(_Section):
    """Memory a card loses to the software stack."""

    cuda_context_gib: float = Field(ge=0, description="CUDA context and cuBLAS workspaces per card, GiB.")
    multi_card_comm_gib: float = Field(ge=0, description="NCCL buffers per card when several cards work together, GiB.")
    fragmentation_fraction: float = Field(ge=0, lt=1, description="Allocator overhead as a share of everything else.")


class CardCountRules(_Section):
    """Card counts a job may use."""

    within_node: list[int] = Field(min_length=1, description="Counts possible inside one server, ascending.")
    node_step: int = Field(ge=1, description="Beyond one server, counts grow by whole servers of this many cards.")


class MemoryRules(_Section):
    """Everything the memory estimator needs."""

    bits_per_param: dict[PrecisionName, float] = Field(description="Storage bits per parameter for each precision.")
    embeddings_16bit_formats: list[PrecisionName] = Field(
        description="Formats whose tools keep embedding and lm_head in 16-bit."
    )
    embedding_bits: float = Field(gt=0, description="Bits per embedding parameter in those formats.")
    experts_only_formats: list[PrecisionName] = Field(
        default_factory=list,
        description="Formats a checkpoint applies to the routed experts only (gpt-oss's MXFP4): every other "
        "weight stays at embedding_bits, or at experts_only_rest_bits where that names the format.",
    )
    experts_only_rest_bits: dict[PrecisionName, float] = Field(
        default_factory=dict,
        description="Bits of every weight outside the routed experts for an experts-only format that does not "
        "keep them at 16 (unsloth's dynamic 1.58-bit GGUF: attention and dense layers at 4-6 bits).",
    )
    dequant_formats: list[PrecisionName] = Field(
        description="Formats that dequantize a whole weight to 16-bit before each matmul."
    )
    dequant_copies: float = Field(ge=0, description="Dequantized weight copies alive at once.")
    kv_default_precision: PrecisionName = Field(description="KV-cache precision when a scenario gives none.")
    kv_fp32_when_model_fp32: bool = Field(description="An fp32 model keeps an fp32 KV cache by default.")
    arch_defaults: ArchDefaults = Field(description="Architecture fill-in values.")
    inference: InferenceRules = Field(description="Serving.")
    training: MemoryTrainingRules = Field(description="Fine-tuning and pre-training.")
    overhead: OverheadRules = Field(description="Per-card software overhead.")
    usable_fraction: float = Field(gt=0, le=1, description="Usable share of the nominal memory per card.")
    card_counts: CardCountRules = Field(description="Card counts tried when sizing a job.")


# --------------------------------------------------------------------------- speed


class ScalingPoint(_Section):
    """Scaling efficiency from a card count upward."""

    cards: int = Field(ge=2, description="Applies to jobs with at least this many cards.")
    efficiency: float = Field(gt=0, le=1, description="Fraction of linear speed-up achieved.")


class FabricScaling(_Section):
    """How training scales across nodes over one class of scale-out fabric, from a published pair of runs."""

    per_doubling: float = Field(
        gt=0,
        le=1,
        description="Efficiency kept per doubling of GPUs beyond the cluster a platform's MFU was measured on.",
    )
    published_gbps_per_gpu: float = Field(gt=0, description="Scale-out bandwidth per GPU of those runs, GB/s.")
    confirmed: bool = Field(description="true when a published pair of runs on this fabric backs the figure.")
    source: HttpUrl | None = Field(description="The published runs; null for a marked assumption.")

    @model_validator(mode="after")
    def _sourced_when_confirmed(self) -> FabricScaling:
        if self.confirmed and self.source is None:
            raise ValueError("a confirmed figure needs its source")
        return self


#: Fabric classes a job may span hosts over (providers.yaml fabric.kind, less ``none``).
ScaleOutFabric = Literal["infiniband", "roce", "efa"]


class ScalingRules(_Section):
    """Multi-card scaling: inside one server per kind of link, across servers per fabric (one mechanism)."""

    nvlink: list[ScalingPoint] = Field(min_length=1, description="Cards of one server joined by NVLink-class links.")
    pcie: list[ScalingPoint] = Field(min_length=1, description="Cards of one server that talk over PCIe only.")
    adapter_pcie: list[ScalingPoint] = Field(
        min_length=1,
        description="LoRA / QLoRA data parallel over PCIe: only the adapters' gradients are all-reduced.",
    )
    fabrics: dict[ScaleOutFabric, FabricScaling] = Field(
        description="Scaling across nodes per fabric class (engine/scaling.py), beyond each platform's measured_gpus."
    )
    unknown_fabric: ScaleOutFabric = Field(
        description="Fabric assumed across nodes when no offer names one (`estimate`, a card count sized without an offer)."
    )

    @model_validator(mode="after")
    def _every_fabric(self) -> ScalingRules:
        missing = sorted(k.value for k in FabricKind if k is not FabricKind.none and k.value not in self.fabrics)
        if missing:
            raise ValueError(f"fabrics needs an entry for {', '.join(missing)} (providers.yaml fabric kinds)")
        return self


class TrainingPlatform(_Section):
    """Training efficiency of one GPU architecture."""

    architecture: str = Field(min_length=1, max_length=60, description="gpus.yaml architecture it applies to.")
    mfu: float = Field(gt=0, le=1, description="Model FLOPs utilization (6N + attention, no recomputation).")
    confirmed: bool = Field(description="true when published runs back the figure; false for a marked assumption.")
    source: HttpUrl | None = Field(description="Where the figure comes from; null for a pure assumption.")
    basis: str = Field(min_length=1, max_length=200, description="One line for the page: what the figure rests on.")
    measured_gpus: int = Field(
        ge=1,
        le=1_000_000,
        description=(
            "Cluster size the MFU was measured on (its scale-out loss is already in it): jobs up to this many GPUs "
            "are not discounted again; beyond it each doubling keeps the fabric's per_doubling."
        ),
    )


class FineTuneSpeedRules(_Section):
    """What fine-tuning (LoRA, QLoRA, full) at small micro-batches costs beyond the model FLOPs."""

    micro_step_overhead_s: float = Field(
        ge=0, description="Fixed seconds per micro-step per card (Trainer/PEFT launches, data, optimizer share)."
    )
    dequant_bytes_per_weight: float = Field(
        ge=0, description="QLoRA: memory traffic per 4-bit base weight per pass (dequantize, then 16-bit GEMM)."
    )


class TrainingSpeedRules(_Section):
    """Achievable training efficiency per platform."""

    platforms: list[TrainingPlatform] = Field(min_length=1, description="MFU per GPU architecture.")
    goodput: float = Field(gt=0, le=1, description="Share of wall-clock time spent on useful training steps.")
    default_mfu: float = Field(gt=0, le=1, description="MFU of architectures without an entry (an assumption).")
    default_basis: str = Field(min_length=1, max_length=200, description="What the page says about that default.")
    default_measured_gpus: int = Field(
        ge=1, description="measured_gpus of architectures without an entry (an assumption: one server)."
    )
    finetune: FineTuneSpeedRules = Field(description="Fine-tuning's fixed and dequantization costs.")


class LinkLatency(_Section):
    """Latency of one all-reduce, microseconds."""

    nvlink: float = Field(ge=0, description="NVLink-class links (also bridged pairs).")
    pcie: float = Field(ge=0, description="PCIe between cards.")


class PcieBandwidth(_Section):
    """PCIe x16 bandwidth per direction, GB/s (nominal)."""

    gen3: float = Field(gt=0, description="PCIe 3.0.")
    gen4: float = Field(gt=0, description="PCIe 4.0.")
    gen5: float = Field(gt=0, description="PCIe 5.0.")
    gen6: float = Field(gt=0, description="PCIe 6.0.")

    def of(self, generation: int) -> float:
        """Bandwidth of a generation (the nearest listed one outside 3-6)."""
        return float(getattr(self, f"gen{min(6, max(3, generation))}"))


class NoPeerToPeer(_Section):
    """Tensor-parallel all-reduce between PCIe cards without GPU peer-to-peer (gpus.yaml
    ``peer_to_peer: false``): every transfer is staged through host memory."""

    latency_factor: float = Field(ge=1, le=10, description="The PCIe all-reduce latency is this many times longer.")
    bandwidth_share: float = Field(gt=0, le=1, description="Share of the PCIe per-direction bandwidth left.")
    source: str = Field(min_length=1, description="Where the two figures come from (and which is an assumption).")


class DecodeRules(_Section):
    """Token generation speed."""

    bandwidth_efficiency: float = Field(gt=0, le=1, description="Share of peak memory bandwidth a decode step gets.")
    compute_efficiency: float = Field(gt=0, le=1, description="Share of dense tensor peak a decode GEMM gets.")
    step_overhead_ms: float = Field(ge=0, description="Fixed cost of one decode step (sampling, scheduling), ms.")
    dequant_ops_per_weight: dict[PrecisionName, float] = Field(
        description="Weight-only quantized formats: FP32-core operations to dequantize one weight."
    )
    allreduce_latency_us: LinkLatency = Field(description="One all-reduce on an idle link, per link kind.")
    pcie_gbps: PcieBandwidth = Field(description="PCIe x16 bandwidth per direction by generation, GB/s.")
    no_peer_to_peer: NoPeerToPeer = Field(
        description="All-reduce between PCIe cards the driver gives no peer-to-peer: through host memory."
    )
    pipeline_hop_us: float = Field(ge=0, description="Passing activations to the next server's pipeline stage, us.")


class ServingRules(_Section):
    """A serving engine's scheduling limits."""

    max_concurrency: int = Field(ge=1, description="Most sequences scheduled at once (vLLM max_num_seqs).")
    large_card_min_gib: float = Field(gt=0, description="Card memory (GiB) from which the larger default applies.")
    large_card_excluded_names: list[str] = Field(
        description="Lower-case name parts that keep the smaller default (vLLM: 'a100')."
    )
    large_card_max_concurrency: int = Field(ge=1, description="max_num_seqs on such large cards.")


class ImageSpeedRules(_Section):
    """Image generation: seconds per image of a diffusion pipeline (generator/engine/image_speed.py)."""

    latent_downsample: int = Field(ge=1, description="Pixels per latent along one side (the VAE's factor, 8).")
    token_latents: dict[str, int] = Field(
        description="Latents per side of one denoiser token, by denoiser role: transformer 2 (2×2 patches), "
        "unet 4 (the innermost level, where most of its parameters work)."
    )
    efficiency: dict[str, float] = Field(
        description="Share of the dense 16-bit tensor peak one denoiser pass reaches, by denoiser role "
        "(calibrated: docs-dev/calibration/image-speed.yaml)."
    )
    architecture_factor: dict[str, float] = Field(
        default_factory=dict,
        description="Efficiency relative to Ampere and Ada by GPU architecture (gpus.yaml architecture; others 1).",
    )
    text_tokens: int = Field(ge=1, description="Tokens each text encoder reads per prompt (CLIP's 77).")
    vae_decode_tflops_per_megapixel: float = Field(gt=0, description="VAE decoder TFLOPs per output megapixel.")
    fp32_decode_slowdown: float = Field(
        ge=1, description="How much slower a VAE decode upcast to fp32 runs than in 16 bits (TF32 tensor cores)."
    )


class RuntimeSpeed(_Section):
    """How one serving runtime schedules and splits a language model's work (generator/engine/speed.py)."""

    multi_card: Literal["tensor_parallel", "layer_split"] = Field(
        description="tensor_parallel: every card works on every layer (vLLM); layer_split: each card holds a "
        "run of layers and the cards work one after another (transformers device_map, llama.cpp --split-mode layer)."
    )
    batching: Literal["continuous", "static"] = Field(
        description="continuous: a request starts as soon as there is room (vLLM, llama-server); static: a batch "
        "is prefilled together and decodes until its longest answer ends (transformers generate)."
    )
    concurrency: Literal["engine_default", "slots", "batch"] = Field(
        description="What caps the sequences served at once: engine_default, the engine's own per-card default "
        "(speed.serving, vLLM's max_num_seqs); slots, the server slots it is launched with, at most max_slots "
        "(llama-server --parallel); batch, the static batch the request names (transformers generate has no "
        "scheduler)."
    )
    default_slots: int | None = Field(
        default=None, ge=1, description="slots: the slots the server opens without --parallel (llama-server: 4)."
    )
    max_slots: int | None = Field(
        default=None, ge=1, description="slots: the most sequences one context holds (llama.cpp LLAMA_MAX_SEQ)."
    )
    host_ms_per_layer: float = Field(
        ge=0,
        description="Milliseconds the host needs to issue one decoder layer's kernels; a step never runs faster "
        "than layers x this (0: the runtime replays captured CUDA graphs).",
    )
    kv_traffic: float = Field(
        ge=1, description="KV-cache bytes moved per decode step as a multiple of reading the cache once."
    )
    host_us_per_routed_expert: float = Field(
        default=0,
        ge=0,
        description="Microseconds the host spends dispatching one routed expert of one MoE layer (a runtime that "
        "copies the router's choice to the host and issues a matmul per expert); added to every forward pass "
        "(0: the runtime routes on the GPU).",
    )
    source: HttpUrl = Field(description="Where the runtime's scheduling is described (its source or docs).")

    @model_validator(mode="after")
    def _slots_given(self) -> RuntimeSpeed:
        if self.concurrency == "slots" and (self.default_slots is None or self.max_slots is None):
            raise ValueError("concurrency: slots needs default_slots and max_slots")
        return self


class RuntimeBuild(_Section):
    """An older build of a serving runtime: the fields where it differs from ``runtimes``."""

    runtime: Annotated[Runtime, Strict(False)] = Field(description="The runtime it is a build of.")
    host_us_per_routed_expert: float = Field(
        ge=0, description="As RuntimeSpeed.host_us_per_routed_expert, for this build."
    )
    until: str = Field(min_length=1, max_length=120, description="The change that ended this behaviour.")
    source: HttpUrl = Field(description="Where the change (or the older behaviour) is described.")


class VideoSpeedRules(_Section):
    """Text-to-video (Wan 2.1): tokens, seconds and memory per video (generator/engine/video.py)."""

    vae_stride: list[int] = Field(
        min_length=3, max_length=3, description="Wan-VAE compression: frames, rows, columns per latent."
    )
    patch_size: list[int] = Field(
        min_length=3, max_length=3, description="DiT patch: latents per token in time, rows, columns."
    )
    text_tokens: int = Field(ge=1, description="umt5-xxl prompt length the DiT cross-attends to (text_len).")
    default_steps: int = Field(ge=1, description="Sampling steps when the request names none.")
    mfu: float = Field(gt=0, le=1, description="Share of the dense BF16 peak one DiT pass reaches (calibrated).")
    weight_bytes: float = Field(gt=0, description="Bytes per DiT and text-encoder weight (bf16).")
    activation_bytes_per_token_width: float = Field(
        gt=0, description="Denoising activation peak per video token per unit of DiT width, bytes."
    )
    vae_decode_bytes_per_pixel_frame: float = Field(ge=0, description="VAE decode peak per output pixel-frame, bytes.")
    overhead_gib: float = Field(ge=0, description="CUDA context and allocator slack per card, GiB.")
    sp_scaling: dict[str, float] = Field(
        description="Speed-up of one video on n cards (the key) over one card (sequence parallel, xDiT USP)."
    )


class SpeedRules(_Section):
    """Everything the speed estimator needs."""

    forward_flops_per_param: float = Field(gt=0, description="Forward FLOPs per parameter per token (2).")
    attention_flops_per_layer_width_context: float = Field(
        ge=0, description="Forward attention FLOPs per token per layer per attention width per context token."
    )
    backward_to_forward: float = Field(ge=0, description="Backward FLOPs as a multiple of forward (full training).")
    frozen_backward_to_forward: float = Field(ge=0, description="Backward FLOPs as a multiple of forward (LoRA).")
    training: TrainingSpeedRules = Field(description="Training efficiency per platform.")
    scaling: ScalingRules = Field(description="Multi-card scaling.")
    decode: DecodeRules = Field(description="Decoding.")
    prefill_mfu: float = Field(gt=0, le=1, description="Share of the dense peak prompt processing reaches.")
    fp8_speedup: float = Field(ge=1, description="FP8 GEMM speed over BF16 in practice.")
    serving: ServingRules = Field(description="Serving engine limits.")
    runtimes: dict[Annotated[Runtime, Strict(False)], RuntimeSpeed] = Field(
        description="Scheduling and multi-card split per serving runtime (a request's runtime)."
    )
    runtime_builds: dict[str, RuntimeBuild] = Field(
        default_factory=dict,
        description="Older builds of a runtime that published measurements ran, where they schedule differently "
        "from the current build the pages assume; a calibration case names one with `build`, pages never use them.",
    )
    image: ImageSpeedRules = Field(description="Image generation speed.")
    video: VideoSpeedRules = Field(description="Text-to-video (Wan 2.1) speed and memory.")


# --------------------------------------------------------------------------- landing pages


class ModelPageWorkload(_Section):
    """The workload a model page sizes for one workload type."""

    precision: PrecisionName = Field(description="Weight / training precision.")
    batch: int = Field(ge=1, description="Concurrent sequences (inference) or micro-batch (training).")
    context: int = Field(ge=64, description="Tokens per sequence.")
    job_tokens_b: float | None = Field(
        default=None, gt=0, description="Training: tokens of the reference job, billions."
    )
    output_tokens: int | None = Field(
        default=None, ge=1, description="Serving: tokens generated per request (the prompt is context minus this)."
    )


class ServingPageWorkload(_Section):
    """What a language model's inference page sizes: its own precision, at the serving load of one
    scenario, so the model page and that scenario price one job once."""

    precision: PrecisionName = Field(
        description="Weight precision (a checkpoint released lower is served as released)."
    )
    load_scenario: str = Field(
        min_length=1,
        description=(
            "Scenario id (scenarios.yaml, an inference scenario of a language model) whose serving load the "
            "inference pages take: concurrent users (batch), context, output tokens, KV-cache precision and the "
            "month of use (hours, disk, traffic, public IP)."
        ),
    )
    format_runtimes: dict[PrecisionName, Annotated[Runtime, Strict(False)]] = Field(
        description=(
            "Formats served with another runtime than defaults.runtime (GGUF builds with llama.cpp): a model's "
            "page in that format is sized and ranked the way that runtime allocates and runs, and only formats "
            "its support table runs get a page."
        ),
    )


class DiffusionPageWorkload(_Section):
    """What an image model's page sizes (the precision is the model's own pipeline_precision)."""

    batch: int = Field(ge=1, description="Images generated together.")
    resolution: int = Field(ge=64, le=8192, description="Side of the square image in pixels.")
    offload: Annotated[Offload, Strict(False)] = Field(description="none or model (model CPU offload).")


class ModelPageKinds(_Section):
    """One workload definition per kind of model page; all five are required."""

    inference: ServingPageWorkload = Field(description="Serving a language model.")
    diffusion: DiffusionPageWorkload = Field(description="Generating images with a diffusion model.")
    lora: ModelPageWorkload = Field(description="LoRA fine-tuning.")
    qlora: ModelPageWorkload = Field(description="QLoRA fine-tuning.")
    full: ModelPageWorkload = Field(description="Full fine-tuning.")


class PageRules(_Section):
    """Editorial defaults of the generated landing pages (model pages, comparisons)."""

    model_pages: ModelPageKinds = Field(description="Workload per model page kind.")
    fit_card_counts: list[int] = Field(min_length=1, description="Card counts shown in 'which models fit' tables.")
    compare_max_rank_gap: int = Field(ge=1, description="Compare GPUs at most this many ladder places apart.")
    compare_reference_scenarios: list[str] = Field(
        min_length=1, description="Scenario ids whose job is priced on both GPUs of a comparison."
    )
    description_max_chars: int = Field(ge=40, le=160, description="Longest meta description written.")
    api_size_tolerance: float = Field(
        gt=0, le=1, description="API prices compared on a model page: served model within this share of its size."
    )


class LatencyFloor(_Section):
    """The slowest serving a plan may give each user and still count (MLPerf Inference's server
    constraints for an interactive LLM service)."""

    ttft_s: float = Field(gt=0, le=600, description="Most seconds to a request's first token.")
    output_tokens_per_s: float = Field(gt=0, le=1000, description="Fewest output tokens per second each user sees.")
    source: str = Field(min_length=1, description="Where the floor comes from.")


class DecisionRules(_Section):
    """How plans are built and ranked (step 4: the cheapest plan by the workload's own measure)."""

    max_plan_cards: int = Field(ge=1, le=16_384, description="Most cards one plan may rent (a cluster).")
    latency_floor: LatencyFloor = Field(description="Serving plans slower than this are not offered.")
    faster_note_tolerance: float = Field(
        ge=0,
        le=1,
        description="A plan this much dearer at most that finishes at least twice as fast is named beside the pick.",
    )


# --------------------------------------------------------------------------- whole file


class Rules(_Section):
    """The whole of ``data/rules.yaml``."""

    memory: MemoryRules = Field(description="Memory estimator constants.")
    speed: SpeedRules = Field(description="Speed estimator constants.")
    cost: CostRules = Field(description="Non-GPU prices and month length.")
    delivery: DeliveryRules = Field(description="Container versus bare metal.")
    prices: PriceRules = Field(description="Freshness of prices.")
    defaults: DefaultRules = Field(description="Inputs assumed when a scenario or a reader leaves them out.")
    support: SupportRules = Field(description="Which number formats run on which cards, per runtime.")
    pages: PageRules = Field(description="Landing-page defaults.")
    decision: DecisionRules = Field(description="How plans are built and ranked.")

    @model_validator(mode="after")
    def _every_runtime_sized(self) -> Rules:
        missing = [r.value for r in Runtime if r not in self.memory.inference.runtimes]
        if missing:
            raise ValueError(f"memory.inference.runtimes has no entry for {', '.join(missing)}")
        return self

    @model_validator(mode="after")
    def _one_split_per_runtime(self) -> Rules:
        for runtime, mem in self.memory.inference.runtimes.items():
            speed = self.speed.runtimes.get(runtime)
            if speed is not None and mem.layer_split != (speed.multi_card == "layer_split"):
                raise ValueError(
                    f"memory.inference.runtimes.{runtime.value}.layer_split must agree with "
                    f"speed.runtimes.{runtime.value}.multi_card ({speed.multi_card})"
                )
        return self
