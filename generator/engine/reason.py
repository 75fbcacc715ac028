"""What the engine says about an option, as typed records (like :mod:`generator.engine.exclusion`).

A :class:`Reason` is a :class:`ReasonKind` and the figures its message names. The reader's words
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
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from generator.engine.exclusion import Exclusion

#: A parameter's value: a count, a formatted figure, billing tier ids, or nested records.
Param: TypeAlias = "int | str | tuple[str, ...] | Reason | Exclusion | tuple[Reason, ...]"


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
    link_all_to_all = "link_all_to_all"  # SXM/OAM: every card of the server linked (gbps: per card)
    link_bridged = "link_bridged"  # two PCIe cards on a bridge
    link_bridged_pairs = "link_bridged_pairs"  # bridged pairs that talk over PCIe
    link_multi_node = "link_multi_node"  # several servers: the link inside each (inner), a fabric between them
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
    # the editor's pick against the computed one (engine.recommend.editor_disagreement)
    editor_gpu = "editor_gpu"  # another GPU (excluded: why the editor's card is out)
    editor_delivery = "editor_delivery"  # another delivery form (why: the rule's reason)
    # parts of sentences
    limit_engine_cap = "limit_engine_cap"  # the serving engine's concurrency cap
    limit_kv_cache = "limit_kv_cache"  # the KV cache memory holds
    denoise_cfg = "denoise_cfg"  # two denoiser passes a step (classifier-free guidance)
    denoise_distilled = "denoise_distilled"  # one pass a step (guidance-distilled model)
    minimum_months = "minimum_months"  # a monthly offer bills whole months
    minimum_days = "minimum_days"  # a daily offer bills whole days


@dataclass(frozen=True)
class Reason:
    """One thing said about an option: its kind and the figures its message names."""

    kind: ReasonKind
    params: dict[str, Param] = field(default_factory=dict)

    def record(self) -> dict[str, object]:
        """The JSON form shared with the calculator: ``{"kind": …, "params": {…}}``."""
        return {"kind": self.kind.value, "params": {k: param_record(v) for k, v in self.params.items()}}


def param_record(value: Param) -> object:
    """A parameter in JSON: tuples become lists, nested records their records."""
    if isinstance(value, tuple):
        return [v if isinstance(v, str) else v.record() for v in value]
    if isinstance(value, int | str):
        return value
    return value.record()


def brief(value: Param) -> str:
    """A record in no reader's language, for editors' check messages: ``kind(name=value, …)``."""
    if isinstance(value, tuple):
        return "[" + ", ".join(v if isinstance(v, str) else brief(v) for v in value) + "]"
    if isinstance(value, int | str):
        return str(value)
    inner = ", ".join(f"{k}={brief(v)}" for k, v in value.params.items())
    return f"{value.kind.value}({inner})" if inner else value.kind.value
