"""The page plan: which files the build generates, from which template and context.

:func:`generated_files` is the whole render stage: it returns every generated file
as ``{path under docs/: bytes}``, so ``build`` writes them, ``check`` compares them
with what is committed and ``diff`` compares two editions, all from one function.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator import charts, guide, landing, tables
from generator import cost as costs
from generator.calculator import calculator_data
from generator.evaluate import Results
from generator.lint import MAX_PRICE_AGE_DAYS
from generator.names import DELIVERY_NAMES, FIGURE_NAMES, FORM_NAMES, SITE_NAME, WORKLOAD_NAMES
from generator.records import Delivery, GpuFigure, Offer
from generator.output import MARKER
from generator.recommend import fallback_note, links_cards
from generator.render import Page, cny, environment, num, price_label, render_page
from generator.validate import Catalogue


#: (figure, digits) in the order GPU pages list them
SPEC_ROWS = [
    ("memory_gb", 0), ("memory_type", 0), ("memory_bandwidth_gbps", 0), ("bf16_tflops_dense", 1),
    ("fp16_tflops_dense", 1), ("fp8_tflops_dense", 1), ("int8_tops_dense", 1), ("fp32_tflops", 1),
    ("fp64_tflops", 1), ("tdp_w", 0), ("interconnect", 0), ("interconnect_gbps", 0), ("pcie_gen", 0),
]  # fmt: skip


def _ladder_rows(cat: Catalogue, results: Results) -> list[dict[str, Any]]:
    rows = []
    for rec in results.ladder.to_dict("records"):
        gpu = cat.gpus[rec["id"]]
        tensor_name = "bf16_tflops_dense" if gpu.bf16_tflops_dense else "fp16_tflops_dense"
        mark = " †" if tensor_name in gpu.unconfirmed_names else ""
        low, high = rec["month_low"], rec["month_high"]
        if low is None or low != low:  # NaN from pandas when no offer
            price = "—"
        elif round(low) == round(high):
            price = cny(low)
        else:
            price = f"{cny(low)}–{num(high, 0)}"
        rows.append(
            {
                **rec,
                "gpu": gpu,
                "tensor_label": f"{num(rec['tensor_tflops'], 1)}{mark}",
                "price_label": price,
                "cny_per_tflop_hour": _nan_to_none(rec["cny_per_tflop_hour"]),
                "cny_per_gib_month": _nan_to_none(rec["cny_per_gib_month"]),
                "hour_low": _nan_to_none(rec["hour_low"]),
            }
        )
    return rows


def _nan_to_none(value: Any) -> Any:
    """pandas stores a missing number as NaN; templates want None ('—')."""
    return None if value is None or value != value else value


def _offer_rows(cat: Catalogue, offers: list[Offer]) -> list[dict[str, Any]]:
    return [
        {
            "offer": o,
            "gpu": cat.gpus[o.gpu],
            "price_label": price_label(o),
            "card_month": costs.card_month_cny(o, cat.rules.cost),
            "date_label": date_label(cat, o),
        }
        for o in offers
    ]


def date_label(cat: Catalogue, offer: Offer) -> str:
    """The offer's date, marked when it is much older than the newest price in the data.

    Measured against the data's edition date, not today, so the same data always builds
    the same page; ``gpu-guide check`` warns about age against today's date.
    """
    lag = (cat.as_of - offer.as_of).days
    return f"{offer.as_of}（比本期最新报价早 {lag} 天）" if lag > MAX_PRICE_AGE_DAYS else offer.as_of.isoformat()


# --------------------------------------------------------------------------- page plan


def clip(text: str, limit: int) -> str:
    """Fold white space and cut to ``limit`` characters with an ellipsis (meta descriptions)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def page_url(site_url: str, path: str) -> str:
    """Public URL of a docs/ Markdown path (MkDocs' directory URLs)."""
    base = site_url.rstrip("/") + "/"
    if path == "index.md":
        return base
    stem = path[: -len("index.md")] if path.endswith("/index.md") else path[: -len(".md")] + "/"
    return base + stem


HOME = ("首页", "index.md")
GPUS = ("GPU 详情", "gpus/index.md")
SCENARIOS = ("场景指南", "scenarios/index.md")
MODELS = ("模型显存与卡数", "models/index.md")
COMPARE = ("GPU 对比", "compare/index.md")


class _Planner:
    """Collects pages; fills in breadcrumbs, JSON-LD, lastmod and description limits."""

    def __init__(self, cat: Catalogue, site_url: str) -> None:
        self.cat = cat
        self.site_url = site_url
        self.pages: list[Page] = []

    def add(
        self,
        path: str,
        template: str,
        title: str,
        description: str,
        context: dict[str, Any],
        inputs: tuple[str, ...],
        trail: tuple[tuple[str, str], ...] = (),
        extra_ld: tuple[dict[str, Any], ...] = (),
        lastmod: str | None = None,
        hide_toc: bool = False,
    ) -> None:
        crumbs = ((HOME,) if path != "index.md" else ()) + trail + ((title, path),)
        items = [
            {"@type": "ListItem", "position": i, "name": name, "item": page_url(self.site_url, p)}
            for i, (name, p) in enumerate(crumbs, 1)
        ]
        graph = [{"@type": "BreadcrumbList", "itemListElement": items}, *extra_ld]
        jsonld = {"@context": "https://schema.org", "@graph": graph}
        root = "../" * path.count("/")
        nav = [(name, root + p) for name, p in crumbs[:-1]]
        self.pages.append(
            Page(
                path,
                template,
                title,
                clip(description, self.cat.rules.pages.description_max_chars),
                {**context, "breadcrumbs": nav},
                inputs,
                hide_toc=hide_toc,
                jsonld=jsonld,
                lastmod=lastmod or self.cat.as_of.isoformat(),
            )
        )


def plan_pages(cat: Catalogue, results: Results, site_url: str) -> list[Page]:
    """Every Markdown page with its context."""
    ladder = _ladder_rows(cat, results)
    by_id = {row["id"]: row for row in ladder}
    scenario_rows = [
        {"scenario": r.scenario, "rec": r.rec, "model": cat.models[r.scenario.model]} for r in results.scenarios.values()
    ]
    models, pairs = results.models, results.pairs
    hour_price = {row["id"]: row["hour_low"] for row in ladder}
    everything = cat.inputs
    specs_prices = ("data/gpus.yaml", "data/offers.yaml", "data/rules.yaml")
    pl = _Planner(cat, site_url)

    pl.add("index.md", "home.md.j2", "按工作负载选 GPU：显存、卡数、交付形式与月成本", _home_description(cat),
           {"scenario_rows": scenario_rows, "gpu_count": len(cat.gpus), "model_count": len(models),
            "compare_count": len(pairs)}, everything)
    pl.add("ladder.md", "ladder.md.j2", "GPU 天梯图：稠密算力、显存与租金排行",
           f"{len(cat.gpus)} 款租赁常见 GPU 按稠密 BF16 算力排序，附显存、带宽、参考月租和每 TFLOP 时价格，数据截至 {cat.as_of}。",
           {"ladder": ladder, "hours_per_month": cat.rules.cost.hours_per_month}, specs_prices, hide_toc=True)
    pl.add("scenarios/index.md", "scenarios_index.md.j2", "六大场景选型方案",
           "图像生成、LoRA 微调、全参微调、预训练、推理服务、国产化六个场景的计算选型结果与月成本。",
           {"scenario_rows": scenario_rows}, everything)
    pl.add("pitfalls.md", "pitfalls.md.j2", "GPU 租赁避坑指南",
           "SXM 与 PCIe、多卡互联、数据盘 IO、隐性成本和盲目追新：五个常见选型错误，每条都附数据。",
           {"pitfalls": _pitfall_items(cat, results)}, everything)
    pl.add("delivery.md", "delivery.md.j2", "GPU 容器实例还是裸金属服务器",
           "容器实例与裸金属的隔离、互联、计费差异，以及按卡数和任务类型选择交付形式的规则。",
           {"scenario_rows": scenario_rows, "offer_rows": _offer_rows(cat, cat.offers),
            "virtualization_loss": cat.rules.delivery.container_virtualization_loss,
            "min_training_cards": cat.rules.delivery.bare_metal_min_training_cards}, everything)
    pl.add("gpus/index.md", "gpus_index.md.j2", "GPU 详情",
           f"{len(cat.gpus)} 款 GPU 的规格、数据来源和租赁报价一览。", {"ladder": ladder}, specs_prices)
    pl.add("sources.md", "sources.md.j2", "数据来源",
           "本站每个规格数字和价格的来源链接与日期，以及成本计算的假设。",
           {"gpus": list(cat.gpus.values()), "offer_rows": _offer_rows(cat, cat.offers),
            "models": list(cat.models.values()), "cost_rules": cat.rules.cost}, everything)
    pl.add("calculator.md", "calculator.md.j2", "GPU 选型与成本计算器",
           "选择模型和用法，填入每月使用小时、数据盘和流量，按本站报价实时算出每款 GPU 需要几张卡和每月总成本。",
           {"data": calculator_data(cat, results)}, everything, hide_toc=True)
    latest = cat.editions[-1].date.isoformat() if cat.editions else None
    pl.add("editions.md", "editions.md.j2", "本期变化：数据更新记录",
           f"每次数据更新的变化：价格、规格、天梯排名和场景推荐。最近一次更新 {latest or '暂无'}。",
           {"editions": list(reversed(cat.editions))}, ("data/editions.yaml",), lastmod=latest)
    pl.add("editor-guide.md", "editor_guide.md.j2", "编辑指南：如何维护数据",
           "如何新增 GPU、报价和场景，每个数据字段的含义、类型和取值范围，以及提交前的检查命令。",
           {"files": guide.field_docs()}, everything + ("generator/records.py", "generator/rules.py"))
    pl.add("models/index.md", "models_index.md.j2", "模型显存与卡数速查",
           f"{len(cat.models)} 个开源模型在推理、LoRA、QLoRA 和全参微调下每卡要多少显存、各 GPU 需要几张卡。",
           {"pages": models}, everything, trail=())
    pl.add("compare/index.md", "compare_index.md.j2", "GPU 对比",
           f"{len(pairs)} 组常被放在一起比较的 GPU：规格、每 TFLOP 价格、参照任务成本和计算结论。",
           {"pairs": pairs, "rank": {k: v["rank"] for k, v in by_id.items()}}, everything)  # fmt: skip

    for r in results.scenarios.values():
        s, pick = r.scenario, r.rec.pick
        desc = s.summary
        if pick:
            desc = f"计算推荐 {pick.gpu.name} × {pick.cards}，每月约 {cny(pick.monthly.total)}。{s.summary}"  # type: ignore[union-attr]
        pl.add(f"scenarios/{s.id}.md", "scenario.md.j2", s.title, desc,
               {"scenario": s, "rec": r.rec, "model": cat.models[s.model], "disagreement": r.disagreement,
                "assumptions": _assumptions(r)}, everything, trail=(SCENARIOS,))  # fmt: skip

    gpu_pitfalls = {g: [p for p in cat.pitfalls if g in p.gpus] for g in cat.gpus}
    for row in ladder:
        gpu = row["gpu"]
        offers = cat.offers_for(gpu.id)
        options = []
        for r in results.scenarios.values():
            eligible = [o for o in r.rec.options if o.eligible]
            rank = next((i + 1 for i, o in enumerate(eligible) if o.gpu.id == gpu.id), None)
            options.append({"scenario": r.scenario, "option": r.rec.option_for(gpu.id), "is_pick": rank == 1,
                            "rank": rank})  # fmt: skip
        lastmod = max((o.as_of for o in offers), default=cat.as_of).isoformat()
        pl.add(f"gpus/{gpu.id}.md", "gpu.md.j2", f"{gpu.name} 规格与租赁价格", _gpu_description(gpu, row),
               {"gpu": gpu, "row": row, "offers": _offer_rows(cat, offers), "scenario_options": options,
                "gpu_count": len(cat.gpus), "spec_rows": [(n, FIGURE_NAMES[n], d) for n, d in SPEC_ROWS],
                "field_sources": {k.value: v for k, v in gpu.field_sources.items()},
                "fits": landing.cards_to_fit(cat, gpu), "fit_counts": cat.rules.pages.fit_card_counts,
                "comparisons": landing.comparisons_for(pairs, gpu.id), "pitfalls": gpu_pitfalls[gpu.id],
                "ranges": _delivery_ranges(cat, offers), "links_cards": links_cards},
               ("data/gpus.yaml", "data/offers.yaml", "data/models.yaml", "data/scenarios.yaml"),
               trail=(GPUS,), extra_ld=(_product_ld(cat, gpu, offers, site_url),), lastmod=lastmod)  # fmt: skip

    for mp in models:
        title = f"{mp.model.name} {WORKLOAD_NAMES[mp.workload.value]}需要多少显存、几张卡"
        faq = _model_faq(mp)
        pl.add(f"models/{mp.slug}.md", "model.md.j2", title, faq[0][0] + faq[0][1],
               {"mp": mp, "faq": faq, "assumptions": [a.text_zh for a in mp.single_card.assumptions]},
               everything, trail=(MODELS,), extra_ld=(_faq_ld(faq),))  # fmt: skip

    for pair in pairs:
        jobs = landing.job_rows(cat, results, pair)
        text = landing.verdict(pair, jobs, hour_price)
        question = f"{pair.a.name} 和 {pair.b.name} 哪个划算？"
        pl.add(f"compare/{pair.slug}.md", "compare.md.j2", f"{pair.a.name} 对比 {pair.b.name}", f"{question}{text}",
               {"pair": pair, "jobs": jobs, "verdict": text, "rows": (by_id[pair.a.id], by_id[pair.b.id]),
                "spec_rows": [(n, FIGURE_NAMES[n], d) for n, d in SPEC_ROWS]},
               specs_prices + ("data/scenarios.yaml",), trail=(COMPARE,), extra_ld=(_faq_ld([(question, text)]),))  # fmt: skip
    return pl.pages


def _delivery_ranges(cat: Catalogue, offers: list[Offer]) -> list[dict[str, Any]]:
    """Per delivery form: lowest and highest price per card-month, and how many offers."""
    out = []
    for d in Delivery:
        mine = [o for o in offers if o.delivery is d]
        span = costs.card_month_range(mine, cat.rules.cost)
        if span is not None:
            out.append({"delivery": d.value, "low": span[0], "high": span[1], "count": len(mine)})
    return out


def _home_description(cat: Catalogue) -> str:
    return (
        f"按工作负载算显存、卡数、交付形式和月成本的 GPU 租赁选型指南：{len(cat.gpus)} 款 GPU 天梯图、"
        f"六大场景方案和避坑指南，数据截至 {cat.as_of}。"
    )


def _gpu_description(gpu, row: dict[str, Any]) -> str:  # type: ignore[no-untyped-def]
    price = f"，参考月租 {row['price_label']}/卡" if row["price_label"] != "—" else "，暂无报价"
    return f"{gpu.name} 租赁价格与规格：{num(gpu.memory_gb, 0)} GB {gpu.memory_type}，稠密 BF16/FP16 {row['tensor_label']} TFLOPS{price}。"


def _product_ld(cat: Catalogue, gpu, offers: list[Offer], site_url: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    product: dict[str, Any] = {
        "@type": "Product",
        "name": gpu.name,
        "brand": {"@type": "Brand", "name": gpu.vendor.value},
        "category": "GPU 算力租赁",
        "description": f"{gpu.name}，{num(gpu.memory_gb, 0)} GB {gpu.memory_type}，租赁价格按每卡每月折算。",
        "url": page_url(site_url, f"gpus/{gpu.id}.md"),
    }
    span = costs.card_month_range(offers, cat.rules.cost)
    if span is not None:
        rules = cat.rules.cost
        product["offers"] = {
            "@type": "AggregateOffer",
            "priceCurrency": "CNY",
            "lowPrice": f"{span[0]:.2f}",
            "highPrice": f"{span[1]:.2f}",
            "offerCount": len(offers),
            "offers": [
                {"@type": "Offer", "priceCurrency": "CNY", "price": f"{costs.card_month_cny(o, rules):.2f}",
                 "validFrom": o.as_of.isoformat(), "url": str(o.source), "seller": {"@type": "Organization", "name": o.provider}}
                for o in offers
            ],  # fmt: skip
        }
    return product


def _faq_ld(faq: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "@type": "FAQPage",
        "mainEntity": [
            {"@type": "Question", "name": q, "acceptedAnswer": {"@type": "Answer", "text": a}} for q, a in faq
        ],
    }


def _model_faq(mp: landing.ModelPage) -> list[tuple[str, str]]:
    name, kind = mp.model.name, WORKLOAD_NAMES[mp.workload.value]
    first = (
        f"{name} {kind}需要多少显存？",
        f"按 {mp.request.precision.value}、batch {mp.request.batch}、上下文 {mp.request.context} token 估算，"
        f"单卡峰值约 {mp.single_card.total_gib:.1f} GiB。",
    )
    fitting = [o for o in mp.rec.options if o.cards is not None]
    cards = "；".join(f"{o.gpu.name} {o.cards} 张" for o in sorted(fitting, key=lambda o: (o.cards, o.gpu.id))[:6])
    second = (f"{name} {kind}需要几张卡？", f"显存不能跨卡相加，按每卡峰值计算：{cards}。" if cards else "数据中的 GPU 都装不下。")
    out = [first, second]
    pick = mp.rec.pick
    if pick is not None:
        cost = f"完成参照任务租金约 {cny(pick.job_cost_cny)}" if pick.job_cost_cny is not None else f"每月约 {cny(pick.monthly.total)}"  # type: ignore[union-attr]
        out.append((f"{name} {kind}用哪张卡最省钱？", f"按当前报价，{pick.gpu.name} × {pick.cards}（{DELIVERY_NAMES[pick.delivery.value]}），{cost}。"))
    return out


def _pitfall_items(cat: Catalogue, results: Results) -> list[dict[str, Any]]:
    items = []
    for p in cat.pitfalls:
        r = results.scenarios.get(p.scenario) if p.scenario else None
        pick = r.rec.pick if r else None
        dearest = None
        if r and pick:
            fitting = [o for o in r.rec.options if o.eligible and o.monthly]
            dearest = max(fitting, key=lambda o: (o.monthly.total, o.gpu.id), default=None)  # type: ignore[union-attr]
        items.append(
            {
                "pitfall": p,
                "gpus": [cat.gpus[g] for g in p.gpus],
                "scenario": r.scenario if r else None,
                "pick": pick,
                "dearest": dearest if dearest is not pick else None,
            }
        )
    return items


def _assumptions(r) -> list[str]:  # type: ignore[no-untyped-def]
    pick = r.rec.pick or (r.rec.options[0] if r.rec.options else None)
    return list(pick.sizing.assumptions) if pick else []


def site_url_of(config: Path) -> str:
    """``site_url`` from mkdocs.yml (canonical URLs, JSON-LD, robots.txt)."""
    import yaml

    try:
        value = yaml.safe_load(config.read_text(encoding="utf-8")).get("site_url")
    except (OSError, yaml.YAMLError, AttributeError):
        value = None
    return str(value or "https://example.com/")


def generated_files(cat: Catalogue, results: Results, templates: Path, site_url: str) -> dict[str, bytes]:
    """Every generated file under docs/, as bytes."""
    env = environment(templates)
    common = {"as_of": cat.as_of.isoformat(), "delivery_names": DELIVERY_NAMES, "workload_names": WORKLOAD_NAMES,
              "form_names": FORM_NAMES, "figure_names": FIGURE_NAMES, "site_name": SITE_NAME,
              "delivery_enum": {d.value: d for d in Delivery}, "fallback_note": fallback_note}  # fmt: skip
    files: dict[str, bytes] = {}
    for page in plan_pages(cat, results, site_url):
        root = "../" * page.path.count("/")
        files[page.path] = render_page(env, page, {**common, "root": root})
    files["assets/charts/ladder.svg"] = charts.ladder_chart(results.ladder)
    files["assets/charts/price-vs-tflops.svg"] = charts.price_performance_chart(results.ladder)
    files["assets/charts/memory-vs-bandwidth.svg"] = charts.memory_bandwidth_chart(results.ladder)
    files["data/gpus.json"] = tables.gpus_json(cat)
    files["data/gpus.csv"] = tables.gpus_csv(cat)
    files["data/offers.csv"] = tables.offers_csv(cat)
    files["robots.txt"] = (
        f"# {MARKER}\nUser-agent: *\nAllow: /\nSitemap: {site_url.rstrip('/')}/sitemap.xml\n"
    ).encode()
    return files
