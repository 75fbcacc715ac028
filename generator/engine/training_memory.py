"""Memory of fine-tuning and pre-training on one card: model states by precision and ZeRO
stage, activations with or without checkpointing, the loss, and the optimizer step.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.data.records import Optimizer, Precision, Workload
from generator.data.rules import ActivationRegime, MemoryRules, TrainingRecipe
from generator.engine.arch import Arch
from generator.engine.footprint import MLP_MODULES, common_assumptions, finish, weight_bytes
from generator.engine.reason import Param, Reason, ReasonKind
from generator.engine.request import Assumption, Estimate, PeakPhase, Request
from generator.engine.units import BITS_PER_BYTE, GIB


def lora_params(arch: Arch, rank: int, rules: MemoryRules) -> float:
    """Adapter parameters: rank × (d_in + d_out) per targeted Linear (Hu et al. 2021, LoRA §4.1)."""
    shapes = arch.linear_shapes()
    per_layer = 0.0
    for target in rules.training.lora_targets:
        d_in, d_out = shapes[target]
        copies = arch.experts if (arch.experts and target in MLP_MODULES) else 1
        per_layer += rank * (d_in + d_out) * copies
    return per_layer * arch.layers


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
    regime: ActivationRegime  # activation layout
    use_zero: bool
    recipe: Reason  # bytes per parameter, for the assumptions


def _uses_zero(req: Request) -> bool:
    return req.gpus > 1 and req.zero_stage >= 1


def _shard(req: Request, stage: int) -> int:
    """Cards a state is split over: ZeRO stage ``stage`` or higher shards it (ZeRO paper §5)."""
    return req.gpus if _uses_zero(req) and req.zero_stage >= stage else 1


def _optimizer_bytes(
    req: Request, rules: MemoryRules, dtype_bytes: float, master: float, zero: bool
) -> tuple[float, float]:
    """(persistent state bytes, step temporary bytes) per trained parameter."""
    try:
        opt = rules.training.optimizers[req.optimizer]
    except KeyError:
        raise ValueError(f"rules.yaml has no optimizer {req.optimizer.value!r}") from None
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
        full: dict[str, Param] = {
            "precision": req.precision.value,
            "weight_bytes": f"{recipe.weights:g}",
            "grad_bytes": f"{recipe.gradients:g}",
            "state_bytes": f"{persistent:g}",
        }
        if recipe.autocast_copy:
            full["autocast_bytes"] = f"{recipe.autocast_copy:g}"
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
            recipe=Reason(ReasonKind.recipe_full, full),
        )

    # LoRA / QLoRA: frozen base, trainable fp32 adapters (PEFT).
    base = frozen_base_bytes(req, rules)
    if req.workload is Workload.qlora:
        base_format = tr.qlora_weight_format
        compute = req.precision.value if req.precision.value in ("bf16", "fp16") else tr.qlora_default_compute
        regime = tr.qlora_activations
        base_reason = Reason(
            ReasonKind.base_qlora,
            {
                "format": base_format.value,
                "bits": f"{rules.bits_per_param[base_format]:g}",
                "embedding_bits": f"{tr.qlora_embedding_bits:g}",
                "compute": compute,
            },
        )
    elif req.precision is Precision.mixed:
        base_format = Precision.fp32
        recipe = tr.recipes["mixed"]
        regime = recipe.activations
        base_reason = Reason(ReasonKind.base_mixed)
    else:
        base_format = req.precision
        regime = ActivationRegime.fp32 if base_format is Precision.fp32 else ActivationRegime.bf16
        bits = f"{rules.bits_per_param[base_format]:g}"
        base_reason = Reason(ReasonKind.base_frozen, {"format": base_format.value, "bits": bits})
    autocast = dequant = 0.0
    if req.precision is Precision.mixed and req.workload is Workload.lora:
        autocast = (arch.params - arch.input_embedding_params) * tr.recipes["mixed"].autocast_copy
    if base_format in rules.dequant_formats:
        # bnb MatMul4Bit dequantizes the whole weight before F.linear, in forward and backward.
        dequant = rules.dequant_copies * arch.largest_linear_params * rules.embedding_bits / BITS_PER_BYTE
    adapters = lora_params(arch, req.lora_rank, rules)
    a_bytes = tr.lora_adapter_bits / BITS_PER_BYTE
    persistent, temp = _optimizer_bytes(req, rules, a_bytes, 0.0, zero)
    adapter_recipe = Reason(
        ReasonKind.recipe_adapter,
        {
            "base": base_reason,
            "rank": str(req.lora_rank),
            "adapter_millions": f"{adapters / 1e6:.1f}",
            "adapter_bytes": f"{a_bytes:g}",
            "state_bytes": f"{persistent:g}",
        },
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
        recipe=adapter_recipe,
    )


def frozen_base_bytes(req: Request, rules: MemoryRules) -> float:
    """Bytes of a LoRA / QLoRA job's frozen base weights, all cards together: QLoRA's 4-bit linear layers with
    its wider embeddings, a mixed-precision LoRA's fp32 weights, else the request's precision."""
    tr = rules.training
    if req.workload is Workload.qlora:
        return weight_bytes(req.arch, tr.qlora_weight_format, rules, embedding_bits=tr.qlora_embedding_bits)
    if req.precision is Precision.mixed:
        return req.arch.params * tr.recipes["mixed"].weights
    return weight_bytes(req.arch, req.precision, rules)


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


def _activations(req: Request, rules: MemoryRules, regime: ActivationRegime) -> tuple[float, float]:
    """(activations at the start of backward, activations at the end of backward), bytes per card.

    Per token per layer (HF modeling_llama.py, SDPA; see rules.yaml layer_activations):
    per_hidden·h + per_intermediate·i + per_head·heads, where i is the routed MLP width
    (experts_per_token × intermediate for MoE). Korthikanti et al. 2022 §4 give the same
    bookkeeping for GPT (34·s·b·h + 5·a·s²·b with eager attention); SDPA never stores s².
    Activations are not sharded by ZeRO; tokens are the card's own micro-batch.
    """
    arch, tr, t = req.arch, rules.training, req.tokens
    la = tr.layer_activations[regime]
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
            copies = (arch.experts_per_token or 1) if target in MLP_MODULES else 1
            per_token_layer += tr.lora_input_copy_bytes * shapes[target][0] * copies
    layer = per_token_layer * t
    # Loss on the full vocabulary (HF ForCausalLMLoss: logits.float() -> cross_entropy).
    logits = t * arch.vocab * (tr.logits_held_bytes_per_vocab + tr.logits_backward_bytes_per_vocab)
    final_norm = t * arch.hidden * tr.final_norm_bytes_per_hidden
    if req.grad_checkpointing:
        # HF gradient checkpointing wraps every decoder layer: only its input survives the forward;
        # in backward one layer at a time is recomputed (Chen et al. 2016; Korthikanti 2022 §5).
        ckpt = getattr(tr.checkpoint_bytes_per_hidden, regime.value)
        kept = arch.layers * t * arch.hidden * ckpt
        start = kept + final_norm + max(logits, tr.recompute_layer_factor * layer)
    else:
        start = arch.layers * layer + final_norm + logits
    # End of backward: the first layer's activations and its backward temporaries are still alive.
    end = tr.recompute_layer_factor * layer
    return start, end


def training_estimate(req: Request, rules: MemoryRules) -> Estimate:
    s = _states(req, rules)
    act_start, act_end = _activations(req, rules, s.regime)
    # Three moments compete for the peak (PyTorch training loop with zero_grad(set_to_none=True)):
    # 1. start of backward: all saved activations + loss temporaries, no gradients yet;
    # 2. end of backward: all gradients, activations nearly freed;
    # 3. optimizer.step(): gradients + states + step temporaries (foreach AdamW), no activations.
    # Persistent states are weights, gradients and optimizer states; transients (autocast copies,
    # a dequantized 4-bit weight, optimizer-step temporaries, ZeRO buffers) are reported apart.
    # DeepSpeed ZeRO keeps its gradient partitions in flat buffers allocated once (stage 3:
    # grad_partitions_flat_buffer), so under ZeRO the gradients are there in every phase.
    early_grads = s.gradients if s.use_zero else 0.0
    phases = {
        "backward_start": {
            "weights": s.weights,
            "activations": act_start,
            "gradients": early_grads,
            "optimizer_states": s.optimizer,
            "transients": s.autocast + s.dequant + s.zero_buffers,
        },
        "backward_end": {
            # autocast copies are released node by node during backward; a dequantized weight is not
            "weights": s.weights,
            "activations": act_end,
            "gradients": s.gradients,
            "optimizer_states": s.optimizer,
            "transients": s.dequant + s.zero_buffers,
        },
        "optimizer_step": {
            "weights": s.weights,
            "gradients": s.gradients,
            "optimizer_states": s.optimizer,
            "transients": s.step_temp + s.zero_buffers,
        },
    }
    transient_parts = {
        "backward_start": {"autocast": s.autocast, "dequant": s.dequant, "zero": s.zero_buffers},
        "backward_end": {"dequant": s.dequant, "zero": s.zero_buffers},
        "optimizer_step": {"step": s.step_temp, "zero": s.zero_buffers},
    }
    finished = {k: finish(v, req.gpus, 0.0, rules) for k, v in phases.items()}
    totals = {k: sum(v.values()) for k, v in finished.items()}
    peak = max(totals, key=lambda k: totals[k])
    peak_phase = PeakPhase.optimizer_step if peak == "optimizer_step" else PeakPhase.forward_backward

    assumptions = common_assumptions(req, rules)
    assumptions.append(Assumption("recipe", req.precision.value, message=s.recipe))
    optimizer = {
        Optimizer.adamw: ReasonKind.optimizer_adamw,
        Optimizer.adamw_8bit: ReasonKind.optimizer_adamw_8bit,
        Optimizer.sgd: ReasonKind.optimizer_sgd,
    }[req.optimizer]
    if s.use_zero and req.optimizer is Optimizer.adamw:
        optimizer = ReasonKind.optimizer_zero_fused
    assumptions.append(Assumption("optimizer", req.optimizer.value, message=Reason(optimizer)))
    checkpointing = ReasonKind.checkpointing_on if req.grad_checkpointing else ReasonKind.checkpointing_off
    assumptions.append(Assumption("grad_checkpointing", req.grad_checkpointing, message=Reason(checkpointing)))
    micro = Reason(ReasonKind.micro_batch, {"batch": str(req.batch), "context": str(req.context)})
    assumptions.append(Assumption("micro_batch", req.tokens, message=micro))
    if req.gpus > 1:
        if s.use_zero:
            states = Reason(
                {1: ReasonKind.zero_states_1, 2: ReasonKind.zero_states_2, 3: ReasonKind.zero_states_3}[req.zero_stage]
            )
            zero = Reason(
                ReasonKind.zero_sharded, {"cards": str(req.gpus), "stage": str(req.zero_stage), "states": states}
            )
        else:
            zero = Reason(ReasonKind.zero_none, {"cards": str(req.gpus)})
        assumptions.append(Assumption("zero_stage", req.zero_stage, message=zero))
    if peak == "backward_start" and not s.use_zero and s.gradients > 0:
        assumptions.append(Assumption("gradients", 0, message=Reason(ReasonKind.gradients_late)))
    other = PeakPhase.optimizer_step if peak_phase is PeakPhase.forward_backward else PeakPhase.forward_backward
    other_total = max(v for k, v in totals.items() if (k == "optimizer_step") == (other is PeakPhase.optimizer_step))
    phase_kind = {
        PeakPhase.forward_backward: ReasonKind.phase_forward_backward,
        PeakPhase.optimizer_step: ReasonKind.phase_optimizer_step,
    }
    peak_reason = Reason(
        ReasonKind.peak_phase,
        {
            "phase": Reason(phase_kind[peak_phase]),
            "peak_gib": f"{totals[peak]:.1f}",
            "other": Reason(phase_kind[other]),
            "other_gib": f"{other_total:.1f}",
        },
    )
    assumptions.append(Assumption("peak_phase", peak_phase.value, message=peak_reason))
    breakdown = finished[peak]
    labels = {
        "autocast": ReasonKind.transient_autocast,
        "dequant": ReasonKind.transient_dequant,
        "step": ReasonKind.transient_step,
        "zero": ReasonKind.transient_zero3_gather if req.zero_stage >= 3 else ReasonKind.transient_zero_reduce,
    }
    detail = tuple((Reason(labels[k]), v / GIB) for k, v in transient_parts[peak].items() if v > 0)
    return Estimate(sum(breakdown.values()), breakdown, assumptions, peak_phase, detail)
