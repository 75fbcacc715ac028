"""Model pages: one per open model and workload, sized on every GPU.

They reuse the engine the scenario guides use, so a model page can never contradict
the ladder or a scenario. The workload each page kind sizes comes from
``rules.pages.model_pages``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from generator.data.catalogue import Catalogue
from generator.data.records import (
    Delivery,
    DeploymentPlan,
    Gpu,
    ModelKind,
    ModelRelease,
    Offload,
    OpenModel,
    Precision,
    Runtime,
    Workload,
)
from generator.engine import plans as plans_module
from generator.engine import recommend as recommend_module
from generator.engine import support
from generator.engine.cost import Usage
from generator.engine.recommend import Constraints, Option, Recommendation, recommend, scenario_usage
from generator.engine.request import Estimate, Request
from generator.engine.sizing import Sizer, Sizing, arch_for, scenario_request
from generator.results.api_compare import NO_API, ApiComparisons, same_size_prices


@dataclass(frozen=True)
class ServingLoad:
    """The one serving load every language model's inference page is priced at: the load of the
    scenario ``rules.pages.model_pages.inference.load_scenario`` names, read from that scenario, so the
    scenario page, the model page and the calculator links price one job once."""

    scenario_id: str
    scenario_title: str
    precision: Precision  # the pages' weight precision (rules), unless a checkpoint is released lower
    batch: int  # concurrent users
    context: int  # tokens per sequence (prompt plus output)
    output_tokens: int  # tokens generated per request
    kv_precision: Precision | None
    usage: Usage  # the month of use: hours, disk, traffic, public IP

    @property
    def prompt_tokens(self) -> int:
        return self.context - self.output_tokens


def serving_load(cat: Catalogue) -> ServingLoad:
    """The load of ``rules.pages.model_pages.inference.load_scenario`` (validation checks it names an
    inference scenario of a language model)."""
    spec = cat.rules.pages.model_pages.inference
    s = cat.scenarios[spec.load_scenario]
    req = scenario_request(s, cat.models[s.model], cat.rules)
    return ServingLoad(
        s.id,
        s.title,
        Precision(spec.precision),
        req.batch,
        req.context,
        req.output_tokens or 0,
        req.kv_precision,
        scenario_usage(s, cat.rules),
    )


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
    #: the month of use the page is priced at (serving pages: the load scenario's)
    usage: Usage | None = None
    #: serving pages: the load the page is priced at (the scenario it takes it from)
    load: ServingLoad | None = None
    #: a format page (models/<id>-inference-<format>.md): the published builds in its format
    releases: tuple[ModelRelease, ...] = ()
    #: a language model's main inference page: its pages in the other published formats
    format_pages: tuple[ModelPage, ...] = ()
    #: serving pages: the same load under every runtime, the page's own first (the 换一个推理框架 table)
    runtimes: tuple[RuntimeChoice, ...] = ()

    @property
    def format_page(self) -> bool:
        """A page of the model served in one of its published builds' formats (not the main page)."""
        return bool(self.releases)

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
        if self.releases:
            return format_slug(self.model.id, self.request.precision)
        return f"{self.model.id}-{self.workload.value}"

    @property
    def main_slug(self) -> str:
        """The slug of the model's main page of this workload (a format page links back to it)."""
        return f"{self.model.id}-{self.workload.value}"

    def cheapest(self, delivery: Delivery) -> Option | None:
        """Cheapest eligible option whose plan is in this delivery form, by the page's own measure
        (tentative options after confirmed ones, as the ranking puts them)."""
        options = [o for o in self.rec.options if o.eligible and o.delivery is delivery and o.monthly]

        def key(o: Option) -> tuple[int, float, str]:
            return (int(o.tentative), o.measure_value if o.measure_value is not None else float("inf"), o.gpu.id)

        return min(options, key=key, default=None)


@dataclass(frozen=True)
class RuntimeChoice:
    """A serving page's load under one runtime (``recommend --runtime``): the ranking that runtime gives,
    and its option on the card the page picks, so the reader sees what changing the software changes
    on the card they would rent."""

    runtime: Runtime
    request: Request  # the page's request with this runtime
    rec: Recommendation
    #: the option for the page's pick card under this runtime (None: the page has no pick)
    on_pick: Option | None

    @property
    def pick(self) -> Option | None:
        return self.rec.pick


def format_runtime(cat: Catalogue, precision: Precision) -> Runtime:
    """The runtime a page in ``precision`` is served with: ``rules.pages.model_pages.inference.format_runtimes``
    (GGUF builds: llama.cpp), else ``rules.defaults.runtime``."""
    return cat.rules.pages.model_pages.inference.format_runtimes.get(precision, cat.rules.defaults.runtime)


def runs_somewhere(cat: Catalogue, precision: Precision, runtime: Runtime) -> bool:
    """Whether the runtime's support table has a kernel for the format (on some card)."""
    return bool(cat.rules.support.runtimes[runtime.value].formats.get(precision))


def format_slug(model_id: str, precision: Precision) -> str:
    """A format page's slug: ``qwen3-32b-inference-fp8``."""
    return f"{model_id}-{Workload.inference.value}-{precision.value}"


@dataclass(frozen=True)
class PlanResult:
    """One deployment plan: the engine's option for that card in that format (None: the card cannot hold it)."""

    plan: DeploymentPlan
    precision_request: Request
    option: Option | None
    #: how the runtime runs the plan's format on its card, when the support table says more than "it
    #: runs" (a weight-only fallback kernel, a card its source names as not yet confirmed)
    support_note: str | None = None
    #: a plan at its guide's own load misses the serving latency floor (it is priced as stated all the same)
    over_floor: bool = False


def plan_results(cat: Catalogue, model: OpenModel, req: Request, sizer: Sizer, usage: Usage) -> tuple[PlanResult, ...]:
    """Each plan at the page's lengths, load and month of use, in its own format (a plan whose source
    states its load, ``plan.load``, at that context and concurrency instead). Plans name their card,
    so the CUDA rule does not rule any out; a non-NVIDIA option still says its code must move off CUDA.
    A plan at its guide's load is priced at that load even when it misses the serving latency floor
    (the guide chose the load; the page marks the figures that miss it); a plan at the page's load keeps
    the floor, as the ranking does."""
    out = []
    floor = cat.rules.decision.latency_floor
    for plan in model.deployments:
        preq = replace(req, precision=plan.precision)
        if plan.load is not None:  # the guide's own load: its context, its concurrency (else one sequence)
            preq = replace(preq, context=plan.load.context, batch=plan.load.concurrency or 1)
        c = Constraints(
            usage=usage, require_cuda=False, plans=sizer.plans, options=sizer.options, latency_floor=plan.load is None
        )
        rec = recommend(cat, partial(_size, sizer, preq), Workload.inference, c)
        option = next((o for o in rec.options if o.gpu.id == plan.gpu), None)
        note = support.check_request(cat.gpus[plan.gpu], preq, cat.rules).note if plan.gpu in cat.gpus else None
        load = option.load if option is not None else None
        over = load is not None and not plans_module.meets_floor(load, floor)
        out.append(PlanResult(plan, preq, option, note, over))
    return tuple(out)


def _size(sizer: Sizer, req: Request, gpu: Gpu) -> Sizing:
    return sizer.size(req, gpu, None)


def speed_unconfirmed(o: Option) -> bool:
    """The option's serving speed rests on a bandwidth or tensor figure no datasheet confirms."""
    return recommend_module.speed_unconfirmed(o.gpu)


def model_workloads(model: OpenModel) -> list[Workload]:
    """Diffusion models get an inference page only; video models none here (their pages are planned apart)."""
    if model.kind is ModelKind.video:
        return []
    if model.kind is ModelKind.diffusion:
        return [Workload.inference]
    return [Workload.inference, Workload.lora, Workload.qlora, Workload.full]


def page_request(cat: Catalogue, model: OpenModel, workload: Workload) -> Request:
    """The workload a model page sizes: ``rules.pages.model_pages``, the rest from ``rules.defaults``.

    Image models use the ``diffusion`` entry (resolution, batch, offload) in their own
    ``pipeline_precision``; language models the entry of their workload; inference in the model's
    ``checkpoint_precision`` when it has one, at the serving load of :func:`serving_load`.
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
    if workload is Workload.inference:
        load = serving_load(cat)
        # A checkpoint released in a low precision (DeepSeek-V3/R1's FP8) is served as released.
        return Request.with_defaults(
            d,
            workload,
            arch,
            model.checkpoint_precision or load.precision,
            kv_precision=load.kv_precision,
            batch=load.batch,
            context=load.context,
            output_tokens=load.output_tokens,
        )
    spec = getattr(pages, workload.value)
    return Request.with_defaults(
        d,
        workload,
        arch,
        Precision(spec.precision),
        batch=spec.batch,
        context=spec.context,
    )


def published_formats(cat: Catalogue, model: OpenModel) -> dict[Precision, tuple[ModelRelease, ...]]:
    """The formats a language model gets a page in besides its main inference page: those of its
    published builds (models.yaml ``releases``) that the format's runtime (:func:`format_runtime`: GGUF
    with llama.cpp, the rest with vLLM) has a kernel for (a format its table does not run is not one the
    site can say runs anywhere), other than the main page's. Only a format with a named release gets a page."""
    if model.kind is not ModelKind.llm:
        return {}
    main = page_request(cat, model, Workload.inference).precision
    out: dict[Precision, tuple[ModelRelease, ...]] = {}
    for r in model.releases:
        if r.precision is not main and runs_somewhere(cat, r.precision, format_runtime(cat, r.precision)):
            out[r.precision] = (*out.get(r.precision, ()), r)
    return out


def model_page(
    cat: Catalogue,
    model: OpenModel,
    workload: Workload,
    sizer: Sizer,
    releases: tuple[ModelRelease, ...] = (),
) -> ModelPage:
    """One model page; with ``releases`` (published builds of one format), the inference page in that format."""
    job = (
        None
        if model.kind is ModelKind.diffusion or workload is Workload.inference
        else getattr(cat.rules.pages.model_pages, workload.value).job_tokens_b
    )
    req = page_request(cat, model, workload)
    if releases:
        precision = releases[0].precision
        req = replace(req, precision=precision, runtime=format_runtime(cat, precision))
    serving = workload is Workload.inference and model.kind is ModelKind.llm
    load = serving_load(cat) if serving else None
    usage = load.usage if load is not None else Usage.from_rules(cat.rules)
    c = Constraints(
        usage=usage,
        require_cuda=cat.rules.defaults.require_cuda,
        job_tokens_b=job,
        plans=sizer.plans,
        options=sizer.options,
    )
    rec = _ranking(cat, sizer, req, workload, job, c)
    runtimes = runtime_choices(cat, sizer, req, rec, c) if serving else ()
    alt = None
    api: ApiComparisons = NO_API
    if model.kind is ModelKind.diffusion:
        other = Offload.model if req.offload is Offload.none else Offload.none
        alt = sizer.estimate(replace(req, offload=other))
    elif workload is Workload.inference and req.output_tokens:
        prompt = req.context - req.output_tokens
        tolerance = cat.rules.pages.api_size_tolerance
        api = same_size_prices(cat, model, prompt, req.output_tokens, tolerance)
    main = workload is Workload.inference and not releases
    plans = plan_results(cat, model, req, sizer, usage) if model.deployments and main else ()
    formats: tuple[ModelPage, ...] = ()
    if main and serving:
        formats = tuple(model_page(cat, model, workload, sizer, rs) for rs in published_formats(cat, model).values())
    return ModelPage(
        model, workload, req, sizer.estimate(req), rec, job, alt, api, plans, usage, load, releases, formats, runtimes
    )


def _ranking(
    cat: Catalogue, sizer: Sizer, req: Request, workload: Workload, job: float | None, c: Constraints
) -> Recommendation:
    """``recommend`` for the request. Two models of the same shape ask the same question: rank the GPUs
    once per distinct request (the ranking is read-only afterwards, so the pages can share it)."""
    key = (req, workload, job)
    rec = sizer.rankings.get(key)
    if rec is None:
        rec = sizer.rankings[key] = recommend(cat, lambda gpu: sizer.size(req, gpu, job), workload, c)
    return rec


def runtime_choices(
    cat: Catalogue, sizer: Sizer, req: Request, rec: Recommendation, c: Constraints
) -> tuple[RuntimeChoice, ...]:
    """The page's load under each runtime of ``rules.memory.inference.runtimes``, the page's own first:
    each ranked as ``recommend --runtime`` ranks it, with its option on the page's pick card."""
    pick = rec.pick.gpu.id if rec.pick else None
    order = [req.runtime, *(r for r in cat.rules.memory.inference.runtimes if r is not req.runtime)]
    out = []
    for rt in order:
        rreq = replace(req, runtime=rt)
        rrec = rec if rt is req.runtime else _ranking(cat, sizer, rreq, Workload.inference, None, c)
        on_pick = next((o for o in rrec.options if o.gpu.id == pick), None)
        out.append(RuntimeChoice(rt, rreq, rrec, on_pick))
    return tuple(out)


def with_format_pages(pages: list[ModelPage]) -> list[ModelPage]:
    """Every page to write: each main page followed by its format pages."""
    return [q for p in pages for q in (p, *p.format_pages)]


def model_pages(cat: Catalogue, sizer: Sizer) -> list[ModelPage]:
    """One main page per model and workload; a language model's inference page carries its format pages."""
    return [model_page(cat, m, w, sizer) for m in cat.models.values() for w in model_workloads(m)]


def cards_to_fit(cat: Catalogue, sizer: Sizer) -> dict[str, list[tuple[OpenModel, int | None]]]:
    """Per GPU, for each LLM, the fewest cards that serve it (the model pages' inference workload)."""
    llms = [m for m in cat.models.values() if m.kind is ModelKind.llm]
    requests = [(m, page_request(cat, m, Workload.inference)) for m in llms]
    return {g.id: [(m, sizer.min_gpus(req, g.memory_gb)) for m, req in requests] for g in cat.gpus.values()}
