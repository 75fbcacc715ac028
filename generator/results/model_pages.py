"""Model pages: one per open model and workload, sized on every GPU.

They reuse the engine the scenario guides use, so a model page can never contradict
the ladder or a scenario. The workload each page kind sizes comes from
``rules.pages.model_pages``.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.data.catalogue import Catalogue
from generator.data.records import Delivery, Gpu, ModelKind, OpenModel, Precision, Workload
from generator.engine import memory
from generator.engine.cost import Usage
from generator.engine.recommend import Constraints, Option, Recommendation, recommend
from generator.engine.request import Estimate, Request
from generator.engine.sizing import MAX_CARDS, arch_for, size_workload


@dataclass(frozen=True)
class ModelPage:
    """One model under one workload, sized on every GPU."""

    model: OpenModel
    workload: Workload
    request: Request
    single_card: Estimate  # what one card would have to hold
    rec: Recommendation
    job_tokens_b: float | None

    @property
    def slug(self) -> str:
        return f"{self.model.id}-{self.workload.value}"

    def cheapest(self, delivery: Delivery) -> Option | None:
        """Cheapest eligible option in this delivery form (job cost for training, else monthly)."""
        options = [o for o in self.rec.options if o.eligible and o.delivery is delivery and o.monthly]
        key = (
            (lambda o: (o.job_cost_cny, o.gpu.id)) if self.rec.training_job else (lambda o: (o.monthly.total, o.gpu.id))
        )
        return min(options, key=key, default=None)  # type: ignore[arg-type, return-value]


def model_workloads(model: OpenModel) -> list[Workload]:
    """Diffusion models get an inference page only."""
    if model.kind is ModelKind.diffusion:
        return [Workload.inference]
    return [Workload.inference, Workload.lora, Workload.qlora, Workload.full]


def model_page(cat: Catalogue, model: OpenModel, workload: Workload) -> ModelPage:
    spec = getattr(cat.rules.pages.model_pages, workload.value)
    req = Request(
        workload=workload,
        arch=arch_for(model, cat.rules),
        precision=Precision(spec.precision),
        batch=spec.batch,
        context=spec.context,
        zero_stage=3,
    )
    c = Constraints(usage=Usage.from_rules(cat.rules), job_tokens_b=spec.job_tokens_b)
    rec = recommend(cat, lambda gpu: size_workload(req, gpu, cat.rules, spec.job_tokens_b), workload, c)
    single = memory.estimate(req, cat.rules.memory)
    return ModelPage(model, workload, req, single, rec, spec.job_tokens_b)


def model_pages(cat: Catalogue) -> list[ModelPage]:
    return [model_page(cat, m, w) for m in cat.models.values() for w in model_workloads(m)]


def cards_to_fit_all(cat: Catalogue) -> dict[str, list[tuple[OpenModel, int | None]]]:
    """:func:`cards_to_fit` for every GPU; GPUs of the same memory size are sized once."""
    by_memory: dict[float, list[tuple[OpenModel, int | None]]] = {}
    out = {}
    for gpu in cat.gpus.values():
        if gpu.memory_gb not in by_memory:
            by_memory[gpu.memory_gb] = cards_to_fit(cat, gpu)
        out[gpu.id] = by_memory[gpu.memory_gb]
    return out


def cards_to_fit(cat: Catalogue, gpu: Gpu) -> list[tuple[OpenModel, int | None]]:
    """For each LLM, the fewest cards of ``gpu`` that serve it (model-page inference workload)."""
    spec = cat.rules.pages.model_pages.inference
    out = []
    for m in cat.models.values():
        if m.kind is not ModelKind.llm:
            continue
        req = Request(workload=Workload.inference, arch=arch_for(m, cat.rules), precision=Precision(spec.precision),
                      batch=spec.batch, context=spec.context)  # fmt: skip
        out.append((m, memory.min_gpus(req, gpu.memory_gb, cat.rules.memory, MAX_CARDS)))
    return out
