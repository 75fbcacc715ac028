"""One typed context per page template: what each template may use, and nothing else.

:func:`generator.pages.render.render_page` hands a context's fields to its template as
variables, together with :class:`SiteContext` (shared by every page) and the page's
breadcrumbs. ``StrictUndefined`` turns a name missing here into a build error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from generator.data.editorial import OwnershipDefaults, Purchase, SourcedValue, Tolerance
from generator.data.records import Edition, FxRate, Gpu, OpenModel, Pitfall, Scenario
from generator.data.rules import CostRules, ModelPageKinds
from generator.engine.cost import Usage
from generator.engine.reason import Reason
from generator.engine.recommend import Option, Recommendation
from generator.engine.request import Request
from generator.pages.charts import LazyChart
from generator.pages.rows import LadderRow, OfferRow, ScenarioRow
from generator.results.api_compare import ApiComparisons
from generator.results.buyers import BuyerResult
from generator.results.claims import ClaimResult
from generator.results.comparisons import Comparison, JobRow
from generator.results.market import PriceSeries, ProviderSummary, Spread
from generator.results.metrics import MetricsResults
from generator.results.model_pages import ModelPage, RuntimeChoice, ServingLoad
from generator.results.ownership import OwnershipInputs, OwnershipRow
from generator.results.trends import TrendResults
from generator.results.trust import GroupTrust

#: (figure name, label, digits) of one spec table row
SpecRow = tuple[str, str, int]


@dataclass(frozen=True)
class SiteContext:
    """Names and settings every template may use."""

    as_of: str
    build_date: str  # the date prices are judged against (SOURCE_DATE_EPOCH or the commit date of data/)
    site_name: str
    delivery_names: Mapping[str, str]
    delivery_phrases: Mapping[str, str]  # the same where a sentence names the form alone (unstated: 交付形式未注明)
    workload_names: Mapping[str, str]
    form_names: Mapping[str, str]
    figure_names: Mapping[str, str]
    precision_names: Mapping[str, str]
    optimizer_names: Mapping[str, str]
    delivery_enum: Mapping[str, Any]
    fallback_note: Callable[..., Reason]  # worded by the explain filter
    form_note: Callable[..., Reason | None]
    billing_names: Mapping[str, str]
    tier_names: Mapping[str, str]  # offers.yaml source_tier -> the link text of a price's source
    provider_names: Mapping[str, str]  # provider id -> display name
    market_names: Mapping[str, str]
    provider_kind_names: Mapping[str, str]
    currency_names: Mapping[str, str]
    status_names: Mapping[str, str]  # gpus.yaml status kinds in Chinese
    term_names: Mapping[str, str]  # providers.yaml terms in Chinese ("increment.second" …)
    fresh_days: int  # rules.prices.fresh_days: the freshness window pages name (claims, rent or buy, prices)
    month_hours: float  # rules.cost.hours_per_month: a card-month
    pick_billing: list[str]  # billing tiers that rank a recommendation, as names
    pick_tiers: list[str]  # source tiers whose prices may rank a recommendation (rules.prices.pick_tiers), as names
    serving_stack: str  # the serving runtime serving figures assume (rules.yaml defaults.runtime), e.g. vLLM
    max_concurrency: str  # the engine's cap on concurrent sequences per card class, in words (rules.yaml speed.serving)
    runtime_caps: Mapping[str, str]  # runtime display name -> what caps its concurrency, in words (speed.runtimes)
    layer_split_names: list[str]  # display names of the runtimes that split a model over cards by layer
    latency_floor: Any  # rules.decision.latency_floor: the slowest serving a plan may give a user
    # how far the figures can be trusted (the calibration set's held-out record, results.trust)
    trust_notes: Callable[[tuple[str, ...] | list[str]], list[GroupTrust]]  # groups -> their records, in order
    trust_groups: Callable[[Request], tuple[str, ...]]  # a request -> the groups behind its figures
    calibration_names: Mapping[str, tuple[str, str]]  # group -> (名称, 对应的数字)


@dataclass(frozen=True)
class HomeContext:
    scenario_rows: list[ScenarioRow]
    gpu_count: int
    model_count: int
    compare_count: int
    pitfall_count: int
    provider_count: int  # providers with a current offer
    offer_count: int  # current offers


@dataclass(frozen=True)
class LadderContext:
    ladder: list[LadderRow]
    hours_per_month: float
    charts: Mapping[str, str]  # inline <svg> of each chart (generator.pages.charts.ladder_page_charts)
    lazy: Mapping[str, LazyChart]  # the charts below the fold, as lazy images of their .svg files


@dataclass(frozen=True)
class ScenariosIndexContext:
    scenario_rows: list[ScenarioRow]


@dataclass(frozen=True)
class PitfallItem:
    """A pitfall with the data that backs it."""

    pitfall: Pitfall
    gpus: list[Gpu]
    scenario: Scenario | None
    pick: Option | None
    dearest: Option | None  # the dearest option that also fits, when it is not the pick


@dataclass(frozen=True)
class PitfallsContext:
    pitfalls: list[PitfallItem]


@dataclass(frozen=True)
class DeliveryContext:
    scenario_rows: list[ScenarioRow]
    offer_rows: list[OfferRow]  # current multi-card offers
    virtualization_loss: float
    min_training_cards: int
    whole_server_cards: int  # a VM with this many cards serves multi-card training


@dataclass(frozen=True)
class GpusIndexContext:
    ladder: list[LadderRow]


@dataclass(frozen=True)
class SourcesContext:
    gpus: list[Gpu]
    offer_rows: list[OfferRow]
    models: list[OpenModel]
    cost_rules: CostRules
    rates: list[FxRate]


@dataclass(frozen=True)
class CalculatorContext:
    data: dict[str, Any]


@dataclass(frozen=True)
class EditionsContext:
    editions: list[Edition]


@dataclass(frozen=True)
class EditorGuideContext:
    files: list[dict[str, Any]]


@dataclass(frozen=True)
class ModelsIndexContext:
    pages: list[ModelPage]
    specs: ModelPageKinds  # what each kind of model page sizes
    load: ServingLoad  # the serving load every inference page is priced at
    video_models: list[OpenModel]  # text-to-video models: each has its own page models/<id>.md


@dataclass(frozen=True)
class CompareIndexContext:
    pairs: list[Comparison]
    rank: Mapping[str, str]  # GPU id -> place on the ladder, or 未排名


@dataclass(frozen=True)
class ScenarioContext:
    scenario: Scenario
    request: Request  # the workload with the rules' defaults filled in
    usage: Usage
    rec: Recommendation
    model: OpenModel
    disagreement: str | None
    assumptions: list[str]
    api: ApiComparisons  # API prices of models about this size (language-model serving): current, history
    calculator: str  # query string that opens the calculator with this scenario's inputs
    requires_cuda: bool  # the scenario's field, else rules.yaml defaults.require_cuda
    job_note: str | None  # the pick's billing tier outlasts the reference job: "按月计费，至少付满 1 个月"
    #: model pages of the same job (model, workload, request and month of use all equal): linked with their figures
    same_job: tuple[ModelPage, ...] = ()


@dataclass(frozen=True)
class ScenarioOption:
    """How one GPU fares in one scenario (GPU pages)."""

    scenario: Scenario
    option: Option | None
    is_pick: bool
    rank: int | None  # place among the eligible options


@dataclass(frozen=True)
class GpuContext:
    gpu: Gpu
    row: LadderRow
    offers: list[OfferRow]  # current offers, cheapest per card-hour first
    history: list[OfferRow]  # offers older than the freshness window, newest first
    spreads: list[Spread]  # per delivery form, current offers in pickable tiers
    series: list[PriceSeries]  # how providers' prices for this GPU moved (replaces-chains)
    history_chart: str | None  # the same as an inline <svg> line chart (None without series)
    no_offer_reason: str | None  # why no current price ranks this GPU, when none does
    scenario_options: list[ScenarioOption]
    gpu_count: int
    spec_rows: list[SpecRow]
    field_sources: Mapping[str, Any]
    fits: list[tuple[OpenModel, int | None]]
    fit_counts: list[int]
    fit_spec: ServingLoad  # the workload the "which models fit" table sizes
    comparisons: list[Comparison]
    pitfalls: list[Pitfall]
    links_cards: Callable[[Gpu, int], bool]
    link_reason: Callable[[Gpu, int], Reason]  # the cards' connection (a record: the explain filter words it)


@dataclass(frozen=True)
class ComponentRow:
    """One part of an image model with its weights at the page's precision."""

    name: str
    label: str  # its role in the pipeline, in Chinese
    params_b: float
    gib: float
    source: Any


@dataclass(frozen=True)
class ExtraRow:
    """A provider's charge besides the card, as quoted."""

    item: str  # Chinese name
    price_label: str  # '¥0.01/GB·天'
    as_of: str
    source: str
    note: str | None
    stopped: bool = False  # a storage price that applies while the instance is stopped


@dataclass(frozen=True)
class ProviderContext:
    summary: ProviderSummary
    offers: list[OfferRow]  # current offers, by GPU (ladder order) then card-hour price
    history: list[OfferRow]
    extras: list[ExtraRow]
    gpu_rows: list[tuple[LadderRow, OfferRow]]  # per GPU: its ladder row and this provider's cheapest offer
    # (in a pickable billing tier when it has one)
    cost_rules: CostRules  # the assumed extras used when a provider publishes none


@dataclass(frozen=True)
class ProvidersIndexContext:
    summaries: list[ProviderSummary]
    cheapest: Mapping[
        str, OfferRow | None
    ]  # provider id -> its cheapest current offer per card-hour (pickable tier first)
    gpu_names: Mapping[str, str]


@dataclass(frozen=True)
class RuntimeRow:
    """One row of a serving page's 换一个推理框架 table: the page's load under one runtime."""

    choice: RuntimeChoice
    name: str  # the runtime's name (rules.yaml memory.inference.runtimes), e.g. llama.cpp
    own: bool  # the runtime the page is sized and ranked under
    calculator: str  # query string that opens the calculator with this runtime
    allocates: str  # how the engine sizes memory under it (rules.yaml allocates_zh)


@dataclass(frozen=True)
class ModelContext:
    mp: ModelPage
    faq: list[tuple[str, str]]
    assumptions: list[str]
    kind_label: str  # 生成图像 for image models, else the workload's name
    components: list[ComponentRow]
    speed_unconfirmed: Callable[[Option], bool]  # serving speed rests on an unconfirmed figure
    calculator: str  # query string that opens the calculator with this page's inputs
    runtime_name: str  # the runtime the page is sized under (a GGUF page: llama.cpp), e.g. vLLM
    runtime_rows: list[RuntimeRow]  # serving pages: the load under each runtime, the page's own first


@dataclass(frozen=True)
class VideoMemoryRow:
    """One offload setting of a video model's page: GiB per phase on one card."""

    setting: str  # the setting, in words (the message table's)
    text_gib: float
    denoise_gib: float
    decode_gib: float
    peak_gib: float
    flags: str  # what Wan's generate.py is given for it ("" when nothing is offloaded)


@dataclass(frozen=True)
class VideoPlanRow:
    """One GPU's cheapest plan for a video (results/video_plans.py), formatted for the table."""

    gpu_id: str
    name: str
    cards: int
    setting: str  # its placement in words, as the memory table's setting column says it
    needs_offload: bool  # it fits the card only offloaded (results/video_plans.fit)
    label: str  # that placement in a few words ("常驻", "需卸载模型"; plan.placement_label)
    peak_gib: float
    seconds: float
    per_video: str  # ¥ per video
    per_minute: str  # ¥ per minute of finished video
    hourly: str  # ¥ per card-hour
    seller: str
    as_of: str


@dataclass(frozen=True)
class VideoModelContext:
    """A text-to-video model's page (kind: video): memory by phase, seconds and rent per video."""

    model: OpenModel
    width: int
    height: int
    frames: int
    steps: int
    tokens: int
    fps: float
    video_seconds: float  # seconds of finished video per generated video
    memory_rows: list[VideoMemoryRow]
    plans: list[VideoPlanRow]
    excluded: list[tuple[str, str]]  # GPU name, why (the message table's words)
    reasons: list[str]  # what the engine says about the cheapest plan


@dataclass(frozen=True)
class CompareContext:
    pair: Comparison
    jobs: list[JobRow]
    verdict: str
    rows: tuple[LadderRow, LadderRow]
    spec_rows: list[SpecRow]


@dataclass(frozen=True)
class CompareRedirectContext:
    """A retired comparison URL: where the comparison now lives (``target``: a path under docs/)."""

    slug: str
    target: str  # e.g. compare/a100-pcie-40g-vs-rtx-4090-24g.md or compare/index.md
    target_title: str


@dataclass(frozen=True)
class MetricsContext:
    """指标怎么看: the explainer's worked examples."""

    m: MetricsResults
    precision_uses: Mapping[str, str]


@dataclass(frozen=True)
class ClaimsContext:
    claims: list[ClaimResult]
    tolerance: Tolerance
    verdict_classes: Mapping[str, str]


@dataclass(frozen=True)
class OwnershipContext:
    """租还是买: the table at the default inputs, the inputs' sources, and the form's data."""

    rows: list[OwnershipRow]
    unrented: list[tuple[Purchase, Gpu]]  # purchase prices of GPUs without a current rental price
    unrunnable: list[tuple[Purchase, Gpu]]  # module prices (SXM, OAM) that buy nothing that runs alone
    system_power: list[Any]  # ownership.yaml system_power: servers are costed at system power
    inputs: OwnershipInputs | None  # None when the project has no ownership.yaml
    defaults: OwnershipDefaults | None
    electricity: list[SourcedValue]
    electricity_range: tuple[SourcedValue, SourcedValue] | None  # lowest and highest quoted price
    pue: list[SourcedValue]
    hours_per_month: float
    data: dict[str, Any]  # JSON for docs/javascripts/ownership.js


@dataclass(frozen=True)
class BuyersContext:
    buyers: list[BuyerResult]


@dataclass(frozen=True)
class TrendsContext:
    t: TrendResults
    topic_names: Mapping[str, str]


#: Any page's context; :data:`TEMPLATE_OF` names its template, so a page's template and context
#: cannot be mismatched (tests/test_template_variables.py checks the variables match too).
PageContext = (
    BuyersContext
    | CalculatorContext
    | ClaimsContext
    | CompareContext
    | CompareIndexContext
    | CompareRedirectContext
    | DeliveryContext
    | EditionsContext
    | EditorGuideContext
    | GpuContext
    | GpusIndexContext
    | HomeContext
    | LadderContext
    | MetricsContext
    | ModelContext
    | ModelsIndexContext
    | VideoModelContext
    | PitfallsContext
    | ProviderContext
    | ProvidersIndexContext
    | OwnershipContext
    | ScenarioContext
    | ScenariosIndexContext
    | SourcesContext
    | TrendsContext
)

#: The template under templates/pages/ of each page context type.
TEMPLATE_OF: dict[type, str] = {
    BuyersContext: "buyers.md.j2",
    CalculatorContext: "calculator.md.j2",
    ClaimsContext: "claims.md.j2",
    CompareContext: "compare.md.j2",
    CompareIndexContext: "compare_index.md.j2",
    CompareRedirectContext: "compare_redirect.md.j2",
    DeliveryContext: "delivery.md.j2",
    EditionsContext: "editions.md.j2",
    EditorGuideContext: "editor_guide.md.j2",
    GpuContext: "gpu.md.j2",
    GpusIndexContext: "gpus_index.md.j2",
    HomeContext: "home.md.j2",
    LadderContext: "ladder.md.j2",
    MetricsContext: "metrics.md.j2",
    ModelContext: "model.md.j2",
    ModelsIndexContext: "models_index.md.j2",
    VideoModelContext: "video_model.md.j2",
    PitfallsContext: "pitfalls.md.j2",
    ProviderContext: "provider.md.j2",
    ProvidersIndexContext: "providers_index.md.j2",
    OwnershipContext: "rent_or_buy.md.j2",
    ScenarioContext: "scenario.md.j2",
    ScenariosIndexContext: "scenarios_index.md.j2",
    SourcesContext: "sources.md.j2",
    TrendsContext: "trends.md.j2",
}
