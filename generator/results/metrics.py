"""指标怎么看: the numbers of the explainer page, each computed from the data.

The worked examples use the data itself: the reference model is the model of the first
inference scenario (a model every reader of the scenario guides has seen), the dense/sparse
example is the GPU of the first claim about TFLOPS ratios (the claim the sparse figure
misleads), and every per-GPU table covers every GPU of gpus.yaml.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.data.catalogue import Catalogue
from generator.data.editorial import CheckKind, SourcedValue
from generator.data.records import Gpu, ModelKind, OpenModel, Precision, Workload
from generator.results.model_pages import ModelPage
from generator.results.ownership import chosen

BITS_PER_BYTE = 8
#: Dense tensor figure of gpus.yaml per precision (formats without a column have none).
FIGURE_OF_PRECISION = {
    Precision.fp32: "fp32_tflops",
    Precision.bf16: "bf16_tflops_dense",
    Precision.fp16: "fp16_tflops_dense",
    Precision.fp8: "fp8_tflops_dense",
    Precision.int8: "int8_tops_dense",
}
#: Vendors print sparse tensor figures at twice the dense rate (2:4 structured sparsity).
SPARSITY_FACTOR = 2


@dataclass(frozen=True)
class PrecisionRow:
    precision: Precision
    bits: float  # per weight, as the memory rules store it (scales included)
    weights_gb: float  # the reference model's weights in this format
    gpus_with_figure: int | None  # GPUs with a dense tensor figure for it; None: no column in the data


@dataclass(frozen=True)
class SparseExample:
    gpu: Gpu
    dense: float
    sparse: float
    stated: float | None  # the figure a claim quotes, if a claim names this GPU


@dataclass(frozen=True)
class BandwidthRow:
    gpu: Gpu
    ceiling_tokens_per_s: float  # bandwidth / bytes of 16-bit weights read per token
    engine_tokens_per_s: float | None  # one user's decode speed at the model page's load, when one card holds it
    cards: int | None  # cards the model page needs on this GPU


@dataclass(frozen=True)
class LinkRow:
    gpu: Gpu  # the template shows its interconnect, bandwidth and topology


@dataclass(frozen=True)
class PowerRow:
    gpu: Gpu
    kwh_month: float  # at full TDP all month
    cny_month: float | None  # that energy times PUE and the rent-or-buy page's electricity price


@dataclass(frozen=True)
class MetricsResults:
    model: OpenModel
    page: ModelPage | None  # the reference model's inference page
    precisions: list[PrecisionRow]
    sparse: SparseExample | None
    bandwidth: list[BandwidthRow]  # most bandwidth first
    links: list[LinkRow]  # most link bandwidth first
    power: list[PowerRow]  # most power first
    electricity: SourcedValue | None
    pue: SourcedValue | None
    hours_per_month: float
    bandwidth_efficiency: float  # share of peak bandwidth the engine assumes a decode step reaches


def reference_model(cat: Catalogue) -> OpenModel:
    """The model of the first LLM inference scenario, else the first LLM, else the first model."""
    for s in cat.scenarios.values():
        m = cat.models[s.model]
        if s.workload is Workload.inference and m.kind is ModelKind.llm:
            return m
    llms = [m for m in cat.models.values() if m.kind is ModelKind.llm]
    return (llms or list(cat.models.values()))[0]


def weights_gb(model: OpenModel, bits: float) -> float:
    return model.params_b * bits / BITS_PER_BYTE


def metrics_results(cat: Catalogue, models: list[ModelPage]) -> MetricsResults:
    rules = cat.rules
    model = reference_model(cat)
    page = next((m for m in models if m.model.id == model.id and m.workload is Workload.inference), None)
    gpus = list(cat.gpus.values())
    precisions = [
        PrecisionRow(
            p,
            bits,
            weights_gb(model, bits),
            sum(1 for g in gpus if getattr(g, FIGURE_OF_PRECISION[p]) is not None)
            if p in FIGURE_OF_PRECISION
            else None,
        )
        for p, bits in rules.memory.bits_per_param.items()
        # a dense reference model at a MoE-experts-only format (MXFP4) would be all 16-bit: no row
        if p is not Precision.mixed and p not in rules.memory.experts_only_formats
    ]
    w16 = weights_gb(model, rules.memory.bits_per_param[Precision.bf16])
    bandwidth = []
    for g in sorted(gpus, key=lambda g: (-g.memory_bandwidth_gbps, g.id)):
        opt = page.rec.option_for(g.id) if page else None
        cards = opt.cards if opt else None
        # one user's decoding speed at the page's load (the page serves several users at once: their
        # tokens together are not one stream's, which is what the bandwidth bound is about)
        tps = opt.load.user_tokens_per_s if opt and cards == 1 and opt.load else None
        bandwidth.append(BandwidthRow(g, g.memory_bandwidth_gbps / w16, tps, cards))
    links = [LinkRow(g) for g in sorted(gpus, key=lambda g: (-(g.interconnect_gbps or 0), g.id))]
    own = cat.ownership
    elec = chosen(own.electricity, own.defaults.electricity) if own else None
    pue = chosen(own.pue, own.defaults.pue) if own else None
    hours = rules.cost.hours_per_month
    power = [
        PowerRow(g, g.tdp_w * hours / 1000, g.tdp_w * hours / 1000 * pue.value * elec.value if elec and pue else None)
        for g in sorted(gpus, key=lambda g: (-g.tdp_w, g.id))
    ]
    return MetricsResults(
        model,
        page,
        precisions,
        sparse_example(cat),
        bandwidth,
        links,
        power,
        elec,
        pue,
        hours,
        rules.speed.decode.bandwidth_efficiency,
    )


def sparse_example(cat: Catalogue) -> SparseExample | None:
    """The GPU of the first TFLOPS-ratio claim with the figure it quotes, else the top GPU."""
    claim = next((c for c in cat.claims.claims if c.check.kind is CheckKind.tflops_ratio and c.check.gpu), None)
    if claim is not None and claim.check.gpu in cat.gpus:
        gpu, stated = cat.gpus[claim.check.gpu], claim.check.stated_figure
    else:
        ranked = sorted(cat.gpus.values(), key=lambda g: (-g.tensor_tflops, g.id))
        if not ranked:
            return None
        gpu, stated = ranked[0], None
    return SparseExample(gpu, gpu.tensor_tflops, gpu.tensor_tflops * SPARSITY_FACTOR, stated)
