"""The page plan: every Markdown page the build generates, with its template and context.

Titles, descriptions and every count a page states come from the data, so adding a
scenario, GPU, model or pitfall is a YAML edit and nothing else.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from generator.data.catalogue import Catalogue
from generator.data.datafiles import DataFile
from generator.data.records import Billing, ExtraState, Gpu, ModelKind, Offer, OpenModel, Precision, Provider, Workload
from generator.engine import cost as costs
from generator.engine import video
from generator.engine.flags import request_flags
from generator.engine.links import link_reason
from generator.engine.reason import Reason, ReasonKind
from generator.engine.recommend import Option, links_cards, scenario_requires_cuda
from generator.engine.request import Assumption, Request
from generator.formats import cny, num
from generator.pages import charts, editor_guide
from generator.pages import contexts as ctx
from generator.pages.calculator import calculator_query, page_data, scenario_flags, usage_flags
from generator.pages.messages import assumption_text, explain
from generator.pages.names import (
    COMPONENT_ROLE_NAMES,
    DELIVERY_NAMES,
    DELIVERY_PHRASES,
    EXTRA_ITEM_NAMES,
    EXTRA_STATE_NAMES,
    EXTRA_UNIT_NAMES,
    FIGURE_NAMES,
    PRECISION_NAMES,
    PRECISION_USES,
    PROVIDER_KIND_NAMES,
    TREND_TOPIC_NAMES,
    VERDICT_CLASSES,
    WORKLOAD_NAMES,
    reader_ids,
    reader_text,
    variant,
)
from generator.pages.ownership_form import ownership_form_data
from generator.pages.render import Page, money
from generator.pages.rows import LadderRow, OfferRow, ladder_rows, offer_rows, scenario_rows
from generator.pages.seo import Crumb, breadcrumb_ld, clip, faq_ld, product_ld, provider_ld
from generator.results import comparisons, model_pages, video_plans
from generator.results.claims import Verdict
from generator.results.evaluate import Results
from generator.results.market import PriceSeries, ProviderSummary, price_series
from generator.results.ownership import default_inputs, electricity_range, unrented_purchases, unrunnable_purchases
from generator.results.scenarios import ScenarioResult

#: (figure, digits) in the order GPU pages list them
SPEC_ROWS = [
    ("memory_gb", 0),
    ("memory_type", 0),
    ("memory_bandwidth_gbps", 0),
    ("bf16_tflops_dense", 1),
    ("fp16_tflops_dense", 1),
    ("fp8_tflops_dense", 1),
    ("int8_tops_dense", 1),
    ("fp32_tflops", 1),
    ("fp64_tflops", 1),
    ("tdp_w", 0),
    ("interconnect", 0),
    ("interconnect_gbps", 0),
    ("topology", 0),
    ("pcie_gen", 0),
    ("peer_to_peer", 0),
    ("compute_capability", 1),
]

HOME: Crumb = ("首页", "index.md")
GPUS: Crumb = ("GPU 详情", "gpus/index.md")
SCENARIOS: Crumb = ("场景指南", "scenarios/index.md")
MODELS: Crumb = ("模型显存与卡数", "models/index.md")
COMPARE: Crumb = ("GPU 对比", "compare/index.md")
PROVIDERS: Crumb = ("租赁平台", "providers/index.md")


#: the data files of pages that show specs and prices only
SPECS_PRICES = (DataFile.gpus.path, DataFile.offers.path, DataFile.rules.path)
#: the data files a GPU page is made from
GPU_INPUTS = (
    DataFile.gpus.path,
    DataFile.offers.path,
    DataFile.providers.path,
    DataFile.fx.path,
    DataFile.models.path,
    DataFile.scenarios.path,
)
#: the data files a provider page is made from
PROVIDER_INPUTS = (DataFile.providers.path, DataFile.offers.path, DataFile.fx.path, DataFile.gpus.path)


class _Planner:
    """Collects pages; fills in breadcrumbs, JSON-LD, lastmod and description limits.

    It also holds what several page kinds share: the catalogue, the results, the ladder's rows
    and the pricing, each derived once.
    """

    def __init__(self, cat: Catalogue, results: Results, site_url: str, drawn: dict[str, str]) -> None:
        self.cat = cat
        self.results = results
        self.site_url = site_url
        self.drawn = drawn  # the ladder page's charts (pages.charts)
        self.pages: list[Page] = []
        self.ladder = ladder_rows(cat, results.ladder)
        self.by_id = {row.id: row for row in self.ladder}  # ladder rows by GPU id
        self.srows = scenario_rows(cat, results.scenarios)
        self.everything = cat.inputs  # every data file: pages that draw on the whole catalogue
        self.pricing = costs.pricing_of(cat)
        self.spec_rows = [(n, FIGURE_NAMES[n], d) for n, d in SPEC_ROWS]
        self.gpu_names = {g.id: g.name for g in cat.gpus.values()}
        self.sellers = {p.id: p.name for p in cat.providers.values()}

    def add(
        self,
        path: str,
        title: str,
        description: str,
        context: ctx.PageContext,
        inputs: tuple[str, ...],
        trail: tuple[Crumb, ...] = (),
        extra_ld: tuple[dict[str, Any], ...] = (),
        lastmod: str | None = None,
        hide_toc: bool = False,
        nav_order: int | None = None,
        hide_nav: bool = False,
        redirect: str | None = None,
    ) -> None:
        crumbs = ((HOME,) if path != "index.md" else ()) + trail + ((title, path),)
        jsonld = {"@context": "https://schema.org", "@graph": [breadcrumb_ld(self.site_url, crumbs), *extra_ld]}
        root = "../" * path.count("/")
        self.pages.append(
            Page(
                path,
                title,
                clip(description, self.cat.rules.pages.description_max_chars),
                context,
                breadcrumbs=tuple((name, root + p) for name, p in crumbs[:-1]),
                inputs=inputs,
                hide_toc=hide_toc,
                hide_nav=hide_nav,
                jsonld=jsonld,
                lastmod=lastmod or self.cat.as_of.isoformat(),
                nav_order=nav_order,
                redirect=redirect,
            )
        )


def plan_pages(cat: Catalogue, results: Results, site_url: str, drawn: dict[str, str]) -> list[Page]:
    """Every Markdown page with its context; ``drawn``: the ladder page's charts (pages.charts)."""
    pl = _Planner(cat, results, site_url, drawn)
    # every kind of page, in the order the navigation and the sitemap list them
    for plan_kind in (
        plan_home,
        plan_ladder,
        plan_scenario_index,
        plan_pitfalls,
        plan_delivery,
        plan_gpu_index,
        plan_sources,
        plan_calculator,
        plan_editions,
        plan_editor_guide,
        plan_model_index,
        plan_metrics,
        plan_claims,
        plan_rent_or_buy,
        plan_buyers,
        plan_trends,
        plan_compare_index,
        plan_scenario_pages,
        plan_gpu_pages,
        plan_provider_pages,
        plan_provider_index,
        plan_model_pages,
        plan_video_model_pages,
        plan_compare_pages,
        plan_compare_redirects,
    ):
        plan_kind(pl)
    return pl.pages


def plan_home(pl: _Planner) -> None:
    """The front page: the scenarios and what the guide counts."""
    cat, results = pl.cat, pl.results
    context = ctx.HomeContext(
        pl.srows,
        len(cat.gpus),
        len(results.models),
        len(results.pairs),
        len(cat.pitfalls),
        len({o.provider for o in cat.current_offers}),
        len(cat.current_offers),
    )
    pl.add("index.md", "按工作负载选 GPU：显存、卡数、交付形式与月成本", _home_description(cat), context, pl.everything)


def plan_ladder(pl: _Planner) -> None:
    """The ladder: every GPU ranked, with its charts."""
    cat, drawn = pl.cat, pl.drawn
    pl.add(
        "ladder.md",
        "GPU 天梯图：稠密算力、显存与租金排行",
        f"{len(cat.gpus)} 款租赁常见 GPU 按稠密 BF16 算力排序，附显存、带宽、参考月租和每 TFLOP 时价格，数据截至 {cat.as_of}。",
        ctx.LadderContext(
            pl.ladder,
            cat.rules.cost.hours_per_month,
            drawn,
            {name: charts.lazy_chart(name, drawn[name]) for name in ("price", "memory")},
        ),
        SPECS_PRICES,
        hide_toc=True,
    )


def plan_scenario_index(pl: _Planner) -> None:
    """The list of scenarios with their picks."""
    titles = "、".join(r.scenario.title for r in pl.results.scenarios.values())
    pl.add(
        "scenarios/index.md",
        f"{len(pl.cat.scenarios)} 个典型场景的选型方案",
        titles[:60] + "：按规则计算的选型结果与月成本。",
        ctx.ScenariosIndexContext(pl.srows),
        pl.everything,
    )


def plan_pitfalls(pl: _Planner) -> None:
    """The pitfalls, each with the numbers behind it."""
    cat = pl.cat
    pl.add(
        "pitfalls.md",
        "GPU 租赁避坑指南",
        f"{len(cat.pitfalls)} 个常见选型错误，每条都附数据：" + "、".join(p.title for p in cat.pitfalls),
        ctx.PitfallsContext(_pitfall_items(cat, pl.results.scenarios)),
        pl.everything,
    )


def plan_delivery(pl: _Planner) -> None:
    """Containers or bare metal: the rules and the multi-card offers."""
    cat, delivery = pl.cat, pl.cat.rules.delivery
    pl.add(
        "delivery.md",
        "GPU 容器实例还是裸金属服务器",
        "容器实例与裸金属的隔离、互联、计费差异，以及按卡数和任务类型选择交付形式的规则。",
        ctx.DeliveryContext(
            pl.srows,
            offer_rows(cat, [o for o in cat.current_offers if o.cards > 1]),
            delivery.container_virtualization_loss,
            delivery.bare_metal_min_training_cards,
            delivery.vm_whole_server_cards,
        ),
        pl.everything,
    )


def plan_gpu_index(pl: _Planner) -> None:
    """The list of GPUs."""
    description = f"{len(pl.cat.gpus)} 款 GPU 的规格、数据来源和租赁报价一览。"
    pl.add("gpus/index.md", "GPU 详情", description, ctx.GpusIndexContext(pl.ladder), SPECS_PRICES)


def plan_sources(pl: _Planner) -> None:
    """Where every figure and price comes from."""
    cat = pl.cat
    pl.add(
        "sources.md",
        "数据来源",
        "本站每个规格数字和价格的来源链接与日期，以及成本计算的假设。",
        ctx.SourcesContext(
            list(cat.gpus.values()), offer_rows(cat, cat.offers), list(cat.models.values()), cat.rules.cost, cat.fx
        ),
        pl.everything,
    )


def plan_calculator(pl: _Planner) -> None:
    """The calculator, with the data its script computes from."""
    pl.add(
        "calculator.md",
        "GPU 选型与成本计算器",
        "填模型或参数量、用法、精度和用量，按本站的公式和报价算出每款 GPU 要几张卡、每月和整个任务花多少钱。",
        ctx.CalculatorContext(page_data(pl.cat)),
        pl.everything,
        hide_toc=True,
        hide_nav=True,
    )


def plan_editions(pl: _Planner) -> None:
    """What changed in each data update, newest first."""
    editions = pl.cat.editions
    latest = editions[-1].date.isoformat() if editions else None
    pl.add(
        "editions.md",
        "本期变化：数据更新记录",
        f"每次数据更新的变化：价格、规格、天梯排名和场景推荐。最近一次更新 {latest or '暂无'}。",
        ctx.EditionsContext(list(reversed(editions))),
        (DataFile.editions.path,),
        lastmod=latest,
    )


def plan_editor_guide(pl: _Planner) -> None:
    """How to edit the data: every field's meaning, type and range."""
    pl.add(
        "editor-guide.md",
        "编辑指南：如何维护数据",
        "如何新增 GPU、报价和场景，每个数据字段的含义、类型和取值范围，以及提交前的检查命令。",
        ctx.EditorGuideContext(editor_guide.field_docs(pl.cat.rules)),
        pl.everything + ("generator/data/records.py", "generator/data/rules.py"),
    )


def plan_model_index(pl: _Planner) -> None:
    """The list of models with their memory and card counts."""
    pl.add(
        "models/index.md",
        "模型显存与卡数速查",
        f"{len(pl.cat.models)} 个开源模型在推理、LoRA、QLoRA 和全参微调下每卡要多少显存、各 GPU 需要几张卡。",
        ctx.ModelsIndexContext(
            pl.results.models,
            pl.cat.rules.pages.model_pages,
            model_pages.serving_load(pl.cat),
            [m for m in pl.cat.models.values() if m.kind is ModelKind.video],
        ),
        pl.everything,
    )


def plan_metrics(pl: _Planner) -> None:
    """The explainer: precisions, sparsity, memory, links and power."""
    pl.add(
        "metrics.md",
        "GPU 指标怎么看：精度、稀疏、显存带宽、互联与功耗",
        "FP32、BF16、FP8、INT8 各用在哪，稀疏算力为什么是稠密的两倍，显存容量和带宽各决定什么，"
        "NVLink 与 PCIe 差多少，功耗换成电费是多少。",
        ctx.MetricsContext(pl.results.metrics, PRECISION_USES),
        pl.everything,
    )


def plan_claims(pl: _Planner) -> None:
    """The claims check: common statements against the data."""
    claims = pl.results.claims
    counts = [(v, sum(1 for c in claims if c.verdict is v)) for v in Verdict]
    summary = "，".join(f"{v.value} {n} 条" for v, n in counts if n)
    pl.add(
        "claims.md",
        "常见说法核对：GPU 租赁文章里的数字对不对",
        f"用本站数据逐条核对 {len(claims)} 条常见说法（{summary}），每条附计算出的数字和理由。",
        ctx.ClaimsContext(claims, pl.cat.claims.tolerance, VERDICT_CLASSES),
        pl.everything,
    )


def plan_rent_or_buy(pl: _Planner) -> None:
    """Rent or buy: what owning a card costs and when it pays back."""
    cat, rows = pl.cat, pl.results.ownership
    own = cat.ownership
    start = default_inputs(own) if own else None
    pl.add(
        "rent-or-buy.md",
        "租还是买：买卡的钱多久能回本",
        "按有来源的买价、功耗电费、托管和残值，算出持有一张卡每月多少钱、和租用比多久回本；可以改用你自己的参数。",
        ctx.OwnershipContext(
            rows=rows,
            unrented=unrented_purchases(cat),
            unrunnable=unrunnable_purchases(cat),
            system_power=list(own.system_power) if own else [],
            inputs=start,
            defaults=own.defaults if own else None,
            electricity=list(own.electricity) if own else [],
            electricity_range=electricity_range(own) if own else None,
            pue=list(own.pue) if own else [],
            hours_per_month=cat.rules.cost.hours_per_month,
            data=ownership_form_data(cat, rows, start),
        ),
        pl.everything,
        hide_toc=True,
    )


def plan_buyers(pl: _Planner) -> None:
    """Three kinds of buyer and what each should rent."""
    pl.add(
        "buyers.md",
        "三类用户怎么选 GPU：个人、API 服务和训练团队",
        "个人开发者、提供大模型 API 的中小企业和训练团队，各自典型任务按本站规则算出的推荐卡与成本。",
        ctx.BuyersContext(pl.results.buyers),
        pl.everything,
    )


def plan_trends(pl: _Planner) -> None:
    """Market trends: dated facts and trends computed from the data."""
    trends = pl.results.trends
    pl.add(
        "trends.md",
        "GPU 租赁市场趋势：出口管制、国产卡与显存",
        f"{len(trends.facts)} 条带日期和出处的市场动态，加上从本站规格和报价算出的趋势。",
        ctx.TrendsContext(trends, TREND_TOPIC_NAMES),
        pl.everything,
    )


def plan_compare_index(pl: _Planner) -> None:
    """The list of GPU comparisons."""
    pairs = pl.results.pairs
    pl.add(
        "compare/index.md",
        "GPU 对比",
        f"{len(pairs)} 组常被放在一起比较的 GPU：规格、每 TFLOP 价格、参照任务成本和计算结论。",
        ctx.CompareIndexContext(pairs, {k: v.rank_label for k, v in pl.by_id.items()}),
        pl.everything,
    )


def plan_scenario_pages(pl: _Planner) -> None:
    """One page per scenario: the pick, the options and why."""
    cat = pl.cat
    for order, r in enumerate(pl.results.scenarios.values(), 1):
        s, pick = r.scenario, r.rec.pick
        desc = s.summary
        if pick and pick.monthly and r.rec.training_job and pick.job_cost_cny is not None:
            # the job first (cards that work, its rent), as the page's headline
            desc = f"计算推荐 {pick.gpu.name} × {pick.cards_used or pick.cards}，跑完参照任务租金约 {cny(pick.job_cost_cny)}。{s.summary}"
        elif pick and pick.monthly:
            desc = f"计算推荐 {pick.gpu.name} × {pick.cards}，每月约 {cny(pick.monthly.total)}。{s.summary}"
        context = ctx.ScenarioContext(
            s,
            r.request,
            r.usage,
            r.rec,
            cat.models[s.model],
            _reader_disagreement(cat, r),
            _assumptions(r),
            r.api,
            calculator_query(scenario_flags(cat, s.id, r.request, r.usage)),
            scenario_requires_cuda(s, cat.rules),
            _job_note(cat, pick),
            _same_job(pl, r),
        )
        pl.add(f"scenarios/{s.id}.md", s.title, desc, context, pl.everything, trail=(SCENARIOS,), nav_order=order)


def _same_job(pl: _Planner, r: ScenarioResult) -> tuple[model_pages.ModelPage, ...]:
    """The model pages that price exactly this scenario's job: the same model and workload, the same
    request (load, lengths, format) and the same month of use (llm-serving and the page of its model,
    whose serving load is this scenario's). Constraints the scenario adds (domestic only, a budget, its
    own CUDA rule, deadline or image volume) make another job."""
    s = r.scenario
    if s.domestic_only or s.require_cuda is not None or s.budget_cny_month or s.deadline_days or s.images_per_month:
        return ()
    return tuple(
        p
        for p in model_pages.with_format_pages(pl.results.models)
        if p.model.id == s.model and p.workload is s.workload and p.request == r.request and p.usage == r.usage
    )


def plan_gpu_pages(pl: _Planner) -> None:
    """One page per GPU: specs, offers, price history, fits and comparisons."""
    cat = pl.cat
    for row in pl.ladder:
        gpu = row.gpu
        current, history = cat.current_for(gpu.id), cat.history_for(gpu.id)
        lastmod = max((o.as_of for o in current + history), default=cat.as_of).isoformat()
        pickable = [o for o in cat.pickable_offers if o.gpu == gpu.id]
        pl.add(
            f"gpus/{gpu.id}.md",
            f"{gpu.name} 规格与租赁价格",
            _gpu_description(gpu, row),
            _gpu_context(pl, row, pickable),
            GPU_INPUTS,
            trail=(GPUS,),
            extra_ld=(product_ld(gpu, pickable, pl.pricing, pl.site_url, pl.sellers),),
            lastmod=lastmod,
        )


def _gpu_context(pl: _Planner, row: LadderRow, pickable: list[Offer]) -> ctx.GpuContext:
    """What one GPU page shows."""
    cat, results, gpu, pricing = pl.cat, pl.results, row.gpu, pl.pricing
    current_rows = sorted(offer_rows(cat, cat.current_for(gpu.id), pricing), key=lambda r: (r.card_hour, r.offer.id))
    history_rows = sorted(
        offer_rows(cat, cat.history_for(gpu.id), pricing), key=lambda r: (r.offer.as_of, r.offer.id), reverse=True
    )
    series = price_series(cat, gpu.id, pricing)
    return ctx.GpuContext(
        gpu=gpu,
        row=row,
        offers=current_rows,
        history=history_rows,
        spreads=results.spreads[gpu.id],
        series=series,
        history_chart=_history_chart(pl, gpu, series),
        no_offer_reason=None if pickable else _no_price_reason(cat, gpu),
        scenario_options=_scenario_options(results.scenarios, gpu),
        gpu_count=len(cat.gpus),
        spec_rows=pl.spec_rows,
        field_sources={k.value: v for k, v in gpu.field_sources.items()},
        fits=results.fits[gpu.id],
        fit_counts=cat.rules.pages.fit_card_counts,
        fit_spec=model_pages.serving_load(cat),
        comparisons=comparisons.comparisons_for(results.pairs, gpu.id),
        pitfalls=[p for p in cat.pitfalls if gpu.id in p.gpus],
        links_cards=links_cards,
        link_reason=link_reason,
    )


def _history_chart(pl: _Planner, gpu: Gpu, series: list[PriceSeries]) -> str | None:
    """The chart of each provider's price over time; None without a price series."""
    if not series:
        return None
    lines = [
        charts.Line(pl.sellers.get(s.provider, s.provider), [(p.date.isoformat(), p.card_month) for p in s.points])
        for s in series
    ]
    return charts.history_chart(lines, title=f"{gpu.name}：各提供方报价的变化")


def plan_provider_pages(pl: _Planner) -> None:
    """One page per provider: its offers by GPU, its price history and extras."""
    cat, pricing = pl.cat, pl.pricing
    for summary in pl.results.providers:
        prov = summary.provider
        rows = _provider_rows(pl, summary)
        history_rows = sorted(
            offer_rows(cat, summary.history, pricing), key=lambda r: (r.offer.as_of, r.offer.id), reverse=True
        )
        gpu_rows = _gpu_rows(pl, rows)
        lastmod = max((o.as_of for o in summary.current + summary.history), default=cat.as_of).isoformat()
        pl.add(
            f"providers/{prov.id}.md",
            f"{prov.name} GPU 租赁价格",
            _provider_description(prov, gpu_rows),
            ctx.ProviderContext(summary, rows, history_rows, _extra_rows(prov), gpu_rows, cat.rules.cost),
            PROVIDER_INPUTS,
            trail=(PROVIDERS,),
            extra_ld=(provider_ld(prov, summary.current, pl.gpu_names, pricing, pl.site_url),),
            lastmod=lastmod,
        )


def plan_provider_index(pl: _Planner) -> None:
    """The list of providers with each one's cheapest offer."""
    tiers = set(pl.cat.rules.prices.pick_billing)
    cheapest = {s.provider.id: _lowest(_provider_rows(pl, s), tiers) for s in pl.results.providers}
    pl.add(
        "providers/index.md",
        "GPU 租赁平台与报价",
        f"{len(pl.cat.providers)} 家国内外 GPU 租赁平台、云厂商和行情来源：各家的卡型、计费方式、交付形式和每卡价格。",
        ctx.ProvidersIndexContext(pl.results.providers, cheapest, pl.gpu_names),
        PROVIDER_INPUTS,
    )


def _provider_rows(pl: _Planner, summary: ProviderSummary) -> list[OfferRow]:
    """A provider's current offers, ordered by the GPU's rank, then price."""
    rows = offer_rows(pl.cat, summary.current, pl.pricing)
    return sorted(rows, key=lambda r: (pl.by_id[r.gpu.id].rank, r.card_hour, r.offer.id))


def _gpu_rows(pl: _Planner, rows: list[OfferRow]) -> list[tuple[LadderRow, OfferRow]]:
    """Each GPU a provider offers, in the rows' order, with its cheapest offer."""
    tiers = set(pl.cat.rules.prices.pick_billing)
    gpus = dict.fromkeys(r.gpu.id for r in rows)
    return [(pl.by_id[gid], _lowest([r for r in rows if r.gpu.id == gid], tiers)) for gid in gpus]


def plan_model_pages(pl: _Planner) -> None:
    """One page per model: memory per card, card counts and the cheapest option."""
    cat = pl.cat
    for mp in model_pages.with_format_pages(pl.results.models):
        kind = _kind_label(mp)
        runtime = cat.rules.memory.inference.runtimes[mp.request.runtime].name
        faq = _model_faq(mp, runtime)
        context = ctx.ModelContext(
            mp,
            faq,
            [reader_text(assumption_text(a)) for a in mp.single_card.assumptions],
            kind,
            _component_rows(mp),
            model_pages.speed_unconfirmed,
            calculator_query(model_flags(cat, mp)),
            runtime,
            _runtime_rows(cat, mp),
        )
        # A format page names what it adds (fewer cards, the price per token): its own title, not the
        # main page's with the format in it (and not one more title for a generic 显存 query to wade through).
        title = (
            f"{_page_name(mp)} {kind}：几张卡、每百万 token 多少钱"
            if mp.format_page
            else f"{mp.model.name} {kind}需要多少显存、几张卡"
        )
        pl.add(
            f"models/{mp.slug}.md",
            title,
            faq[0][0] + faq[0][1],
            context,
            pl.everything,
            trail=(MODELS,),
            extra_ld=(faq_ld(faq),),
        )


def plan_video_model_pages(pl: _Planner) -> None:
    """One page per text-to-video model (kind: video) at its video_size, 81 frames, its default steps."""
    for model in (m for m in pl.cat.models.values() if m.kind is ModelKind.video):
        context = video_model_context(pl.cat, model)
        title = f"{model.name} 生成视频需要多少显存、每段多少钱"
        cheapest = context.plans[0] if context.plans else None
        if cheapest is None:
            pick = "数据中没有装得下的 GPU。"
        else:
            placed = f"（{cheapest.setting}）" if cheapest.needs_offload else ""
            pick = f"最省钱的是 {cheapest.name} × {cheapest.cards}{placed}，每段约 {cheapest.per_video}。"
        lead = f"{model.name} 生成 {context.width}×{context.height}、{context.frames} 帧的视频，{pick}"
        full, lowest = context.memory_rows[0], min(context.memory_rows, key=lambda r: r.peak_gib)
        faq = [
            (
                f"{model.name} 生成视频需要多少显存？",
                f"按 {context.width}×{context.height}、{context.frames} 帧、{context.steps} 步估算，全部常驻显存时每张卡峰值约"
                f" {full.peak_gib:.1f} GiB；{lowest.setting}时约 {lowest.peak_gib:.1f} GiB。",
            ),
            (f"{model.name} 生成一段视频要多少钱？", lead),
        ]  # the answers are the page's own figures: its memory table and its cheapest plan
        pl.add(f"models/{model.id}.md", title, lead, context, pl.everything, trail=(MODELS,), extra_ld=(faq_ld(faq),))


#: The video pages' plans shown (cheapest first).
VIDEO_PLANS_SHOWN = 10
#: A video placement with nothing offloaded, in words (the others are the message table's).
ALL_RESIDENT = "全部常驻显存"


def _offloads(req: video.VideoRequest) -> list[tuple[str, str]]:
    """What ``req``'s placement offloads, each as (Wan 2.1 generate.py's option, a few words)."""
    options = (("--offload_model True", "卸载模型", req.offload_model), ("--t5_cpu", "T5 在 CPU", req.t5_cpu))
    return [(flag, words) for flag, words, on in options if on]


def placement_label(req: video.VideoRequest) -> str:
    """A placement in a few words, for the plans table's narrow column (the memory table above it
    gives each setting in full, with its generate.py options)."""
    parts = [words for _flag, words in _offloads(req)]
    return "需" + " + ".join(parts) if parts else "常驻"


def generate_flags(req: video.VideoRequest) -> str:
    """A placement as Wan 2.1's generate.py options (its README's advice on OOM), "" when resident."""
    return " ".join(flag for flag, _words in _offloads(req))


def _setting(req: video.VideoRequest) -> str:
    """A placement in words: the memory table's setting column and the plans table's."""
    off = video.offload_reason(req)
    return ALL_RESIDENT if off is None else explain(off)


def video_model_context(cat: Catalogue, model: OpenModel, frames: int = 81) -> ctx.VideoModelContext:
    """The page of one video model: each placement of video_plans.OFFLOAD_LADDER's memory, and the
    ranking, each GPU at the placement video_plans.fit gives it (offloaded only where it must be)."""
    k = video.constants(cat.rules)
    cfg = video_plans.dit_config(model)
    w, h = model.video_size or (1280, 720)
    steps = model.default_steps or cat.rules.speed.video.default_steps
    base = video.VideoRequest(w, h, frames, steps, guidance=(model.denoiser_passes or 1) > 1)
    rows = []
    for off, t5 in video_plans.OFFLOAD_LADDER:
        placed = replace(base, offload_model=off, t5_cpu=t5)
        m = video.memory(cfg, placed, k)
        rows.append(
            ctx.VideoMemoryRow(
                _setting(placed), m.text_gib, m.denoise_gib, m.decode_gib, m.peak_gib, generate_flags(placed)
            )
        )
    fps = model.video_fps or 16.0
    plans, excluded = video_plans.rank(cat, model, base)
    sellers = {p.id: p.name for p in cat.providers.values()}
    out = [
        ctx.VideoPlanRow(
            p.gpu.id,
            p.gpu.name,
            p.cards,
            _setting(p.request),
            p.fit.needs_offload,
            placement_label(p.request),
            p.memory.peak_gib,
            p.speed.seconds,
            cny(p.cny_per_video, 2),
            cny(video.cost_per_video_minute(p.speed.seconds, p.cards, p.hourly_cny, frames, fps), 2),
            cny(p.hourly_cny, 2),
            sellers.get(p.offer.provider, p.offer.provider),
            p.offer.as_of.isoformat(),
        )
        for p in plans[:VIDEO_PLANS_SHOWN]
    ]
    reasons: list[str] = []
    if plans:
        p = plans[0]
        said = video.reasons(cfg, p.request, k, p.speed, p.memory, p.scaling, out[0].per_video, out[0].per_minute)
        note = p.fit.reason()
        reasons = [explain(r) for r in (*said, *((note,) if note is not None else ()))]
    return ctx.VideoModelContext(
        model, w, h, frames, steps, video.geometry(base, k).tokens, fps, frames / fps, rows, out,
        [(e.gpu.name, explain(e.why)) for e in excluded], reasons,
    )  # fmt: skip


def plan_compare_pages(pl: _Planner) -> None:
    """One page per GPU pair: specs side by side, job costs and the verdict."""
    cat, results = pl.cat, pl.results
    hour_price = {row.id: row.hour_low for row in pl.ladder}
    for pair in results.pairs:
        jobs = comparisons.job_rows(cat, results.scenarios, pair)
        text = comparisons.verdict(pair, jobs, hour_price)
        question = f"{pair.a.name} 和 {pair.b.name} 哪个划算？"
        if pair.queries:  # the words people search with come first in the description
            question = f"{pair.queries[0]}？{question}"
        pl.add(
            f"compare/{pair.slug}.md",
            f"{pair.a.name} 对比 {pair.b.name}",
            f"{question}{text}",
            ctx.CompareContext(pair, jobs, text, (pl.by_id[pair.a.id], pl.by_id[pair.b.id]), pl.spec_rows),
            SPECS_PRICES + (DataFile.scenarios.path,),
            trail=(COMPARE,),
            extra_ld=(faq_ld([(question, text)]),),
        )


def plan_compare_redirects(pl: _Planner) -> None:
    """A page at each retired comparison URL (comparisons.yaml ``retired``) that sends readers and
    search engines to the nearest current comparison (results.comparisons.redirects): a meta refresh
    and a canonical link to it, kept out of the sitemap and the search index."""
    for r in pl.results.redirects:
        if r.target is None:
            target, title = "compare/index.md", "GPU 对比"
        else:
            target, title = f"compare/{r.target.slug}.md", f"{r.target.a.name} 对比 {r.target.b.name}"
        url = target.removesuffix("index.md").removesuffix(".md") + ("/" if not target.endswith("index.md") else "")
        # the retired pair by name (its slug where a GPU left the catalogue): titles stay unique
        old = r.slug if r.gpus is None else " 对比 ".join(pl.cat.gpus[g].name for g in r.gpus)
        pl.add(
            f"compare/{r.slug}.md",
            f"{old}：此对比页已移至 {title}",
            f"「{old}」的对比页已不再单独生成，内容见「{title}」。",
            ctx.CompareRedirectContext(r.slug, target.removeprefix("compare/"), title),
            (DataFile.comparisons.path,),
            trail=(COMPARE,),
            redirect=url,
        )


def _no_price_reason(cat: Catalogue, gpu: Gpu) -> str:
    """Why a GPU page has no price that ranks anything (pages say so instead of empty tables)."""
    if not cat.offers_for(gpu.id):
        return "数据中还没有这张卡的报价：本站收录的平台和行情来源里都没有找到带日期、可引用的价格。"
    if not cat.current_for(gpu.id):
        return (
            f"这张卡只有 {cat.rules.prices.fresh_days} 天以前的历史报价，已过时效，"
            "不用于排名和成本计算，见下方历史报价。"
        )
    return "这张卡当前只有抢占式或长期合约报价：它们列在下表，但不用于排名和成本计算。"


def _lowest(rows: list[OfferRow], tiers: set[Billing]) -> Any:
    """The cheapest row per card-hour among those in a pickable billing tier, else among all; None if none."""
    pool = [r for r in rows if r.offer.billing in tiers] or rows
    return min(pool, key=lambda r: (r.card_hour, r.offer.id), default=None)


def _provider_description(prov: Provider, gpu_rows: list[tuple[LadderRow, OfferRow]]) -> str:
    if not gpu_rows:
        return f"{prov.name}（{PROVIDER_KIND_NAMES[prov.kind.value]}）的 GPU 租赁报价：本期没有当前报价。"
    names = "、".join(f"{row.name} {r.card_hour_range}/卡·时" for row, r in gpu_rows[:3])
    return f"{prov.name} GPU 租赁价格：{names}等 {len(gpu_rows)} 款卡的报价、计费方式和附加费用。"


def _extra_rows(prov: Provider) -> list[ctx.ExtraRow]:
    return [
        ctx.ExtraRow(
            item=EXTRA_ITEM_NAMES[x.item.value] + (f"（{EXTRA_STATE_NAMES[x.state.value]}）" if x.state else ""),
            price_label="免费"
            if x.price == 0
            else f"{money(x.price, x.currency.value, 2 if x.price < 100 else 0)}/{EXTRA_UNIT_NAMES[x.unit.value]}",
            as_of=x.as_of.isoformat(),
            source=str(x.source),
            note=x.note,
            stopped=x.state is ExtraState.stopped,
        )
        for x in prov.extras
    ]


def _home_description(cat: Catalogue) -> str:
    return (
        f"按工作负载算显存、卡数、交付形式和月成本的 GPU 租赁选型指南：{len(cat.gpus)} 款 GPU 天梯图、"
        f"{len(cat.scenarios)} 个场景方案和避坑指南，数据截至 {cat.as_of}。"
    )


def _gpu_description(gpu: Gpu, row: LadderRow) -> str:
    price = f"，参考月租 {row.price_label}/卡" if row.price_label != "—" else "，暂无报价"
    # A card without BF16 tensor cores (V100, T4) states its FP16 figure as such.
    tensor = (
        f"稠密 BF16/FP16 {row.tensor_label} TFLOPS"
        if gpu.bf16_tflops_dense
        else f"稠密 FP16 {row.tensor_label} TFLOPS（无 BF16）"
    )
    return f"{gpu.name} 租赁价格与规格：{num(gpu.memory_gb, 0)} GB {gpu.memory_type}，{tensor}{price}。"


def _scenario_options(scenarios: dict[str, ScenarioResult], gpu: Gpu) -> list[ctx.ScenarioOption]:
    out = []
    for r in scenarios.values():
        eligible = [o for o in r.rec.options if o.eligible]
        rank = next((i + 1 for i, o in enumerate(eligible) if o.gpu.id == gpu.id), None)
        out.append(ctx.ScenarioOption(r.scenario, r.rec.option_for(gpu.id), rank == 1, rank))
    return out


def model_flags(cat: Catalogue, mp: model_pages.ModelPage, req: Request | None = None) -> dict[str, str]:
    """The calculator flags of a model page: its request (or ``req``, the same load under another runtime)
    and, for a serving page, the month of use of the load it is priced at, so the calculator ranks the same job."""
    flags = request_flags(cat, mp.model.id, req or mp.request, mp.job_tokens_b)
    if mp.usage is not None:
        flags.update(usage_flags(cat, mp.usage))
    return flags


def _runtime_rows(cat: Catalogue, mp: model_pages.ModelPage) -> list[ctx.RuntimeRow]:
    """A serving page's 换一个推理框架 rows, each with the calculator link that carries its runtime."""
    names = cat.rules.memory.inference.runtimes
    return [
        ctx.RuntimeRow(
            ch,
            names[ch.runtime].name,
            ch.runtime is mp.request.runtime,
            calculator_query(model_flags(cat, mp, ch.request)),
            names[ch.runtime].allocates_zh,
        )
        for ch in mp.runtimes
    ]


def _page_name(mp: model_pages.ModelPage) -> str:
    """The model as the page names it: with the format on a format page (Qwen3-32B FP8)."""
    if not mp.format_page:
        return mp.model.name
    label = PRECISION_NAMES[mp.request.precision.value].split("（")[0]
    return f"{mp.model.name} {'AWQ/GPTQ ' if mp.request.precision is Precision.int4 else ''}{label}"


def _kind_label(mp: model_pages.ModelPage) -> str:
    """What the page sizes, in words: 生成图像 for image models, else the workload's name."""
    return "生成图像" if mp.is_image else WORKLOAD_NAMES[mp.workload.value]


def _component_rows(mp: model_pages.ModelPage) -> list[ctx.ComponentRow]:
    """An image model's parts with their weights at the page's precision (same order as the estimate's detail)."""
    if not mp.is_image:
        return []
    return [
        ctx.ComponentRow(c.name, COMPONENT_ROLE_NAMES[c.role.value], c.params / 1e9, gib, c.source)
        for c, (_label, gib) in zip(mp.model.components, mp.single_card.detail, strict=True)
    ]


def offload_phrase(offload: str) -> str:
    return "全部组件常驻显存" if offload == "none" else "开启模型 CPU 卸载"


def _image_faq(mp: model_pages.ModelPage) -> list[tuple[str, str]]:
    name, req = mp.model.name, mp.request
    prec = PRECISION_NAMES[req.precision.value].split("（")[0]
    side = f"{req.resolution}×{req.resolution}"
    alt = mp.other_offload
    other = offload_phrase("model" if req.offload.value == "none" else "none")
    alt_text = f"；{other}约 {alt.total_gib:.1f} GiB" if alt is not None else ""
    first = (
        f"{name} 生成图像需要多少显存？",
        f"按 {prec}、每次 {req.batch} 张 {side} 的图、{offload_phrase(req.offload.value)}估算，"
        f"单卡峰值约 {mp.single_card.total_gib:.1f} GiB{alt_text}。",
    )
    fits = [o.gpu.name for o in sorted(mp.fitting_gpus(mp.single_card), key=lambda o: (o.gpu.memory_gb, o.gpu.id))]
    answer = "图像生成流水线不跨卡切分，一张卡要装下它："
    answer += f"{offload_phrase(req.offload.value)}时能用 {'、'.join(fits[:6])}" if fits else "数据中的 GPU 都装不下"
    if alt is not None:
        alt_fits = sorted(mp.fitting_gpus(alt), key=lambda o: (o.gpu.memory_gb, o.gpu.id))
        more = [o.gpu.name for o in alt_fits if o.gpu.name not in fits]
        if more and alt.total_gib < mp.single_card.total_gib:
            answer += f"；{other}后还能用 {'、'.join(more[:6])}"
    second = (f"{name} 生成图像需要几张卡？", answer + "。")
    return [first, second]


def _model_faq(mp: model_pages.ModelPage, stack: str) -> list[tuple[str, str]]:
    name, kind = _page_name(mp), _kind_label(mp)
    if mp.is_image:
        out = _image_faq(mp)
        return out + _cheapest_faq(mp, name, kind)
    prec = PRECISION_NAMES[mp.request.precision.value].split("（")[0]  # the short name: "混合精度", "BF16"
    load = f"{mp.request.batch} 路并发" if mp.workload is Workload.inference else f"批大小 {mp.request.batch}"
    first = (
        f"{name} {kind}需要多少显存？",
        f"按{' ' if prec.isascii() else ''}{prec}、{load}、上下文 {mp.request.context} token 估算，"
        f"合计约 {mp.single_card.total_gib:.1f} GiB（一张卡放不下时切分到多张卡）。",
    )
    fitting = [o for o in mp.rec.options if o.cards is not None]
    cards = "；".join(f"{o.gpu.name} {o.cards} 张" for o in sorted(fitting, key=lambda o: (o.cards or 0, o.gpu.id))[:6])
    lead = variant(
        (
            "显存不能跨卡相加，按每卡峰值计算：",
            "每张卡都要装下自己那一份，按每卡峰值算，所需卡数为：",
            "多卡时模型被切分到各张卡上，每张卡都得放得下自己的部分：",
        ),
        mp.slug,
    )
    second = (f"{name} {kind}需要几张卡？", f"{lead}{cards}。" if cards else "数据中的 GPU 都装不下。")
    return [first, second] + _cheapest_faq(mp, name, kind) + _token_cost_faq(mp, stack)


def _token_cost_faq(mp: model_pages.ModelPage, stack: str) -> list[tuple[str, str]]:
    """What a million tokens cost on the page's pick at its stated load (the page's one basis), what the
    same cards give with their memory full, and what an API of the same size charges."""
    best = mp.rec.pick if mp.serving else None
    if best is None or best.cost_per_mtok_at_batch_cny is None or best.sizing.serving is None:
        return []
    cap = best.sizing.serving.at_capacity
    answer = (
        f"按 {stack} 在 {best.gpu.name} × {best.cards_billed or best.cards} 上服务本页的 {mp.request.batch} 路并发"
        f"（每个请求提示 {mp.prompt_tokens:,} + 输出 {mp.output_tokens:,} token）估算，"
        f"每百万 token（提示与输出合计，只计 GPU 租金）约 {cny(best.cost_per_mtok_at_batch_cny, 2)}"
    )
    if best.cost_per_mtok_cny is not None:
        answer += f"；同样的卡满载（{cap.concurrency} 路并发）时约 {cny(best.cost_per_mtok_cny, 2)}"
    if mp.api.current:
        top = mp.api.current[0]
        answer += (
            f"。同等规模的 {top.price.model}（{top.price.provider}，{top.price.as_of}）按同样比例折合约 "
            f"{cny(top.blended_cny_per_mtok, 2)}/百万 token"
        )
    return [(f"{_page_name(mp)} 推理每百万 token 要多少钱？", answer + "。")]


def _cheapest_faq(mp: model_pages.ModelPage, name: str, kind: str) -> list[tuple[str, str]]:
    """Which card the page picks, worded by what the ranking measures (the load, the job, the images)."""
    pick = mp.rec.pick
    if pick is None or pick.monthly is None:
        return []
    month = f"每月约 {cny(pick.monthly.total)}（按用 {pick.monthly.hours_used:,.0f} 小时）"
    plan = (
        f"{pick.gpu.name} × {pick.cards_billed or pick.cards}（{DELIVERY_PHRASES[pick.delivery.value]}）"  # as rented
    )
    if pick.job_cost_cny is not None and mp.job_tokens_b is not None:
        hours = f"，约 {pick.job_hours:,.0f} 小时完成" if pick.job_hours is not None else ""
        answer = (
            f"按当前报价，完成参照任务（{mp.job_tokens_b:g}B token）租金最低的是 {plan}："
            f"租金约 {cny(pick.job_cost_cny)}{hours}。"
        )
    elif pick.cost_per_mtok_at_batch_cny is not None:
        answer = (
            f"按当前报价，以本页的 {mp.request.batch} 路并发（每个请求提示 {mp.prompt_tokens:,} + 输出 "
            f"{mp.output_tokens:,} token）计，每百万 token 成本最低的是 {plan}：约 "
            f"{cny(pick.cost_per_mtok_at_batch_cny, 2)}/百万 token（只计 GPU 租金），{month}。"
        )
    elif pick.cost_per_kimage_cny is not None:
        answer = (
            f"按当前报价，每千张图成本最低的是 {plan}：约 {cny(pick.cost_per_kimage_cny, 2)}/千张"
            f"（只计 GPU 租金），{month}。"
        )
    else:
        answer = f"按当前报价，月成本最低的是 {plan}，{month}。"
    if pick.tentative:
        answer += "数据中没有已确认的方案，这个方案的速度或能否运行未经确认。"
    return [(f"{name} {kind}用哪张卡最省钱？", answer)]


def _pitfall_items(cat: Catalogue, scenarios: dict[str, ScenarioResult]) -> list[ctx.PitfallItem]:
    items = []
    for p in cat.pitfalls:
        r = scenarios.get(p.scenario) if p.scenario else None
        pick = r.rec.pick if r else None
        dearest = None
        if r and pick:
            fitting = [o for o in r.rec.options if o.eligible and o.monthly]
            dearest = max(fitting, key=lambda o: (o.monthly.total if o.monthly else 0.0, o.gpu.id), default=None)
        items.append(
            ctx.PitfallItem(
                pitfall=p,
                gpus=[cat.gpus[g] for g in p.gpus],
                scenario=r.scenario if r else None,
                pick=pick,
                dearest=dearest if dearest is not pick else None,
            )
        )
    return items


def _assumptions(r: ScenarioResult) -> list[str]:
    """The pick's sizing assumptions in words. A serving pick's page states its time to first token once,
    at the scenario's load in the headline box: the idle-card figure is left out of the list here."""
    pick = r.rec.pick or (r.rec.options[0] if r.rec.options else None)
    if pick is None:
        return []
    said = pick.load is not None
    return [reader_text(assumption_text(_without_ttft(a) if said else a)) for a in pick.sizing.assumptions]


def _without_ttft(a: Assumption) -> Assumption:
    """A serving-throughput assumption without its idle time to first token (the message's optional part)."""
    if a.message.kind is not ReasonKind.serving_throughput:
        return a
    return replace(a, message=Reason(a.message.kind, {k: v for k, v in a.message.params.items() if k != "ttft_ms"}))


def _job_note(cat: Catalogue, pick: Option | None) -> str | None:
    """Why the pick's job rent is more than its hours: the tier's shortest rental, else None."""
    if pick is None or pick.offer is None or pick.job_hours is None:
        return None
    note = costs.minimum_rental_note(pick.offer, pick.job_hours, cat.rules.cost)
    return explain(note) if note is not None else None


def _reader_disagreement(cat: Catalogue, r: ScenarioResult) -> str | None:
    """Where the editor's pick differs, in words, with GPU names and delivery forms instead of ids."""
    if not r.disagreement:
        return None
    words = "；".join(explain(d) for d in r.disagreement)
    return reader_ids(words, {**{g.id: g.name for g in cat.gpus.values()}, **DELIVERY_NAMES})
