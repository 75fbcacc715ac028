"""Model pages: one per open model and workload, sized on every GPU.

They reuse the engine the scenario guides use, so a model page can never contradict
the ladder or a scenario. The workload each page kind sizes comes from
``rules.pages.model_pages``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from generator.data.catalogue import Catalogue
from generator.data.records import Delivery, DeploymentPlan, Gpu, ModelKind, Offload, OpenModel, Precision, Workload
from generator.engine import recommend as recommend_module
from generator.engine import support
from generator.engine.cost import Usage
from generator.engine.recommend import Constraints, Option, Recommendation, recommend
from generator.engine.request import Estimate, Request
from generator.engine.sizing import Sizer, Sizing, arch_for, output_tokens
from generator.results.api_compare import NO_API, ApiComparisons, same_size_prices


@dataclass(frozen=True)
class ModelPage:
    """One model under one workload, sized on every GPU."""

    model: OpenModel
    workload: Workload
    request: Request
    single_card: Estimate  # what one card would have to hold
    rec: Recommendation
    job_tokens_b: float | None
    #: image models: the same request with the other offload setting (the page shows both)
    other_offload: Estimate | None = None
    #: language-model serving: public API prices of models about this size, blended at the page's mix
    api: ApiComparisons = NO_API
    #: the model's deployment plans (models.yaml ``deployments``), each sized and priced at the page's workload
    plans: tuple[PlanResult, ...] = ()

    @property
    def is_image(self) -> bool:
        return self.model.kind is ModelKind.diffusion

    @property
    def serving(self) -> bool:
        """A language model served: the page prices tokens."""
        return self.workload is Workload.inference and not self.is_image

    @property
    def prompt_tokens(self) -> int:
        return self.request.context - self.output_tokens

    @property
    def output_tokens(self) -> int:
        return self.request.output_tokens or 0

    def cheapest_per_token(self) -> Option | None:
        """The eligible option with the lowest cost per million tokens at the concurrency memory allows;
        tentative options (unconfirmed speed figures or format support) only when no other is priced."""
        priced = [o for o in self.rec.options if o.eligible and o.cost_per_mtok_cny is not None]
        sure = [o for o in priced if not o.tentative] or priced
        return min(sure, key=lambda o: (o.cost_per_mtok_cny or 0.0, o.gpu.id), default=None)

    def fitting_gpus(self, estimate: Estimate) -> list[Option]:
        """Options whose one card holds ``estimate`` (image models run on one card)."""
        return [o for o in self.rec.options if estimate.total_gib <= o.sizing.usable_gib]

    @property
    def slug(self) -> str:
        return f"{self.model.id}-{self.workload.value}"

    def cheapest(self, delivery: Delivery) -> Option | None:
        """Cheapest eligible option whose plan is in this delivery form, by the page's own measure
        (tentative options after confirmed ones, as the ranking puts them)."""
        options = [o for o in self.rec.options if o.eligible and o.delivery is delivery and o.monthly]

        def key(o: Option) -> tuple[int, float, str]:
            return (int(o.tentative), o.measure_value if o.measure_value is not None else float("inf"), o.gpu.id)

        return min(options, key=key, default=None)


@dataclass(frozen=True)
class PlanResult:
    """One deployment plan: the engine's option for that card in that format (None: the card cannot hold it)."""

    plan: DeploymentPlan
    precision_request: Request
    option: Option | None
    #: how the runtime runs the plan's format on its card, when the support table says more than "it
    #: runs" (a weight-only fallback kernel, a card its source names as not yet confirmed)
    support_note: str | None = None


def plan_results(cat: Catalogue, model: OpenModel, req: Request, sizer: Sizer) -> tuple[PlanResult, ...]:
    """Each plan at the page's lengths and load, in its own format. Plans name their card, so the
    CUDA rule does not rule any out; a non-NVIDIA option still says its code must move off CUDA."""
    out = []
    for plan in model.deployments:
        preq = replace(req, precision=plan.precision)
        c = Constraints(usage=Usage.from_rules(cat.rules), require_cuda=False)
        rec = recommend(cat, partial(_size, sizer, preq), Workload.inference, c)
        option = next((o for o in rec.options if o.gpu.id == plan.gpu), None)
        note = support.check_request(cat.gpus[plan.gpu], preq, cat.rules).note if plan.gpu in cat.gpus else None
        out.append(PlanResult(plan, preq, option, note))
    return tuple(out)


def _size(sizer: Sizer, req: Request, gpu: Gpu) -> Sizing:
    return sizer.size(req, gpu, None)


def speed_unconfirmed(o: Option) -> bool:
    """The option's serving speed rests on a bandwidth or tensor figure no datasheet confirms."""
    return recommend_module.speed_unconfirmed(o.gpu)


def model_workloads(model: OpenModel) -> list[Workload]:
    """Diffusion models get an inference page only."""
    if model.kind is ModelKind.diffusion:
        return [Workload.inference]
    return [Workload.inference, Workload.lora, Workload.qlora, Workload.full]


def page_request(cat: Catalogue, model: OpenModel, workload: Workload) -> Request:
    """The workload a model page sizes: ``rules.pages.model_pages``, the rest from ``rules.defaults``.

    Image models use the ``diffusion`` entry (resolution, batch, offload) in their own
    ``pipeline_precision``; language models the entry of their workload (inference in the model's
    ``checkpoint_precision`` when it has one).
    """
    pages, d = cat.rules.pages.model_pages, cat.rules.defaults
    arch = arch_for(model, cat.rules)
    if model.kind is ModelKind.diffusion:
        img = pages.diffusion
        return Request.with_defaults(
            d,
            Workload.inference,
            arch,
            model.pipeline_precision or Precision.bf16,
            batch=img.batch,
            resolution=img.resolution,
            offload=img.offload,
        )
    spec = getattr(pages, workload.value)
    # A checkpoint released in a low precision (DeepSeek-V3/R1's FP8) is served as released.
    native = model.checkpoint_precision if workload is Workload.inference else None
    return Request.with_defaults(
        d,
        workload,
        arch,
        native or Precision(spec.precision),
        batch=spec.batch,
        context=spec.context,
        output_tokens=output_tokens(spec.output_tokens, spec.context, cat.rules)
        if workload is Workload.inference
        else None,
    )


def model_page(cat: Catalogue, model: OpenModel, workload: Workload, sizer: Sizer) -> ModelPage:
    job = (
        None if model.kind is ModelKind.diffusion else getattr(cat.rules.pages.model_pages, workload.value).job_tokens_b
    )
    req = page_request(cat, model, workload)
    c = Constraints(usage=Usage.from_rules(cat.rules), require_cuda=cat.rules.defaults.require_cuda, job_tokens_b=job)
    # Two models of the same shape ask the same question: rank the GPUs once per distinct request
    # (the ranking is read-only afterwards, so the pages can share it).
    key = (req, workload, job)
    rec = sizer.rankings.get(key)
    if rec is None:
        rec = sizer.rankings[key] = recommend(cat, lambda gpu: sizer.size(req, gpu, job), workload, c)
    alt = None
    api: ApiComparisons = NO_API
    if model.kind is ModelKind.diffusion:
        other = Offload.model if req.offload is Offload.none else Offload.none
        alt = sizer.estimate(replace(req, offload=other))
    elif workload is Workload.inference and req.output_tokens:
        prompt = req.context - req.output_tokens
        tolerance = cat.rules.pages.api_size_tolerance
        api = same_size_prices(cat, model, prompt, req.output_tokens, tolerance)
    plans = plan_results(cat, model, req, sizer) if model.deployments and workload is Workload.inference else ()
    return ModelPage(model, workload, req, sizer.estimate(req), rec, job, alt, api, plans)


def model_pages(cat: Catalogue, sizer: Sizer) -> list[ModelPage]:
    return [model_page(cat, m, w, sizer) for m in cat.models.values() for w in model_workloads(m)]


def cards_to_fit(cat: Catalogue, sizer: Sizer) -> dict[str, list[tuple[OpenModel, int | None]]]:
    """Per GPU, for each LLM, the fewest cards that serve it (the model pages' inference workload)."""
    llms = [m for m in cat.models.values() if m.kind is ModelKind.llm]
    requests = [(m, page_request(cat, m, Workload.inference)) for m in llms]
    return {g.id: [(m, sizer.min_gpus(req, g.memory_gb)) for m, req in requests] for g in cat.gpus.values()}
