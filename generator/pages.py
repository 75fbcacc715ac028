"""The page plan: which files the build generates, from which template and context.

:func:`generated_files` is the whole render stage: it returns every generated file
as ``{path under docs/: bytes}``, so ``build`` writes them, ``check`` compares them
with what is committed and ``diff`` compares two editions, all from one function.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator import charts, tables
from generator import cost as costs
from generator.evaluate import Results
from generator.records import GpuFigure, Offer
from generator.render import Page, cny, environment, num, render_page
from generator.validate import Catalogue

SITE_NAME = "GPU 算力租赁选型指南"

DELIVERY_NAMES = {"container": "容器实例", "bare_metal": "裸金属", "unspecified": "未注明"}
WORKLOAD_NAMES = {
    "inference": "推理",
    "lora": "LoRA 微调",
    "qlora": "QLoRA 微调",
    "full": "全参数微调",
    "pretrain": "预训练",
}
FORM_NAMES = {"sxm": "SXM 模组", "pcie": "PCIe 插卡", "oam": "OAM 模组", "nvl": "NVL 双卡桥接 PCIe 卡"}
UNIT_NAMES = {"hour": "时", "day": "天", "month": "月"}
FIGURE_NAMES = {
    GpuFigure.memory_gb.value: "显存 (GB)",
    GpuFigure.memory_type.value: "显存类型",
    GpuFigure.memory_bandwidth_gbps.value: "显存带宽 (GB/s)",
    GpuFigure.fp32_tflops.value: "FP32 (TFLOPS)",
    GpuFigure.fp64_tflops.value: "FP64 (TFLOPS)",
    GpuFigure.fp16_tflops_dense.value: "稠密 FP16 Tensor (TFLOPS)",
    GpuFigure.bf16_tflops_dense.value: "稠密 BF16 Tensor (TFLOPS)",
    GpuFigure.fp8_tflops_dense.value: "稠密 FP8 Tensor (TFLOPS)",
    GpuFigure.int8_tops_dense.value: "稠密 INT8 Tensor (TOPS)",
    GpuFigure.tdp_w.value: "功耗 (W)",
    GpuFigure.interconnect.value: "卡间互联",
    GpuFigure.interconnect_gbps.value: "互联带宽 (GB/s)",
    GpuFigure.pcie_gen.value: "PCIe 代数",
    GpuFigure.release_year.value: "发布年份",
}
#: (figure, digits) in the order GPU pages list them
SPEC_ROWS = [
    ("memory_gb", 0), ("memory_type", 0), ("memory_bandwidth_gbps", 0), ("bf16_tflops_dense", 1),
    ("fp16_tflops_dense", 1), ("fp8_tflops_dense", 1), ("int8_tops_dense", 1), ("fp32_tflops", 1),
    ("fp64_tflops", 1), ("tdp_w", 0), ("interconnect", 0), ("interconnect_gbps", 0), ("pcie_gen", 0),
]  # fmt: skip


def price_label(offer: Offer) -> str:
    """'¥1.96/时' or '¥6,000–9,000/月'."""
    unit = UNIT_NAMES[offer.unit.value]
    digits = 2 if offer.unit.value == "hour" else 0
    if offer.price_cny is not None:
        return f"{cny(offer.price_cny, digits)}/{unit}"
    return f"{cny(offer.price_low_cny, digits)}–{num(offer.price_high_cny, digits)}/{unit}"


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
                "cny_per_tflop_hour": None if rec["cny_per_tflop_hour"] != rec["cny_per_tflop_hour"] else rec["cny_per_tflop_hour"],
                "cny_per_gib_month": None if rec["cny_per_gib_month"] != rec["cny_per_gib_month"] else rec["cny_per_gib_month"],
            }
        )
    return rows


def _offer_rows(cat: Catalogue, offers: list[Offer]) -> list[dict[str, Any]]:
    return [
        {
            "offer": o,
            "gpu": cat.gpus[o.gpu],
            "price_label": price_label(o),
            "card_month": costs.card_month_cny(o, cat.rules.cost),
        }
        for o in offers
    ]


def plan_pages(cat: Catalogue, results: Results) -> list[Page]:
    """Every Markdown page with its context."""
    ladder = _ladder_rows(cat, results)
    scenario_rows = [
        {"scenario": r.scenario, "rec": r.rec, "model": cat.models[r.scenario.model]} for r in results.scenarios.values()
    ]
    all_inputs = cat.inputs
    pages = [
        Page("index.md", "home.md.j2", SITE_NAME, _home_description(cat, results),
             {"scenario_rows": scenario_rows, "gpu_count": len(cat.gpus)}, all_inputs),
        Page("ladder.md", "ladder.md.j2", "GPU 天梯图：稠密算力、显存与租金排行",
             f"{len(cat.gpus)} 款租赁常见 GPU 按稠密 BF16 算力排序，附显存、带宽、参考月租和每 TFLOP 时价格，数据截至 {cat.as_of}。",
             {"ladder": ladder, "hours_per_month": cat.rules.cost.hours_per_month},
             ("data/gpus.yaml", "data/offers.yaml", "data/rules.yaml"), hide_toc=True),
        Page("scenarios/index.md", "scenarios_index.md.j2", "六大场景选型方案",
             "图像生成、LoRA 微调、全参微调、预训练、推理服务、国产化六个场景的计算选型结果与月成本。",
             {"scenario_rows": scenario_rows}, all_inputs),
        Page("pitfalls.md", "pitfalls.md.j2", "GPU 租赁避坑指南",
             "SXM 与 PCIe、多卡互联、数据盘 IO、隐性成本和盲目追新：五个常见选型错误，每条都附数据。",
             {"pitfalls": _pitfall_items(cat, results)}, all_inputs),
        Page("delivery.md", "delivery.md.j2", "GPU 容器实例还是裸金属服务器",
             "容器实例与裸金属的隔离、互联、计费差异，以及按卡数和任务类型选择交付形式的规则。",
             {"scenario_rows": scenario_rows, "offer_rows": _offer_rows(cat, cat.offers),
              "virtualization_loss": cat.rules.delivery.container_virtualization_loss,
              "min_training_cards": cat.rules.delivery.bare_metal_min_training_cards}, all_inputs),
        Page("gpus/index.md", "gpus_index.md.j2", "GPU 详情",
             f"{len(cat.gpus)} 款 GPU 的规格、数据来源和租赁报价一览。", {"ladder": ladder},
             ("data/gpus.yaml", "data/offers.yaml")),
        Page("sources.md", "sources.md.j2", "数据来源",
             "本站每个规格数字和价格的来源链接与日期，以及成本计算的假设。",
             {"gpus": list(cat.gpus.values()), "offer_rows": _offer_rows(cat, cat.offers),
              "models": list(cat.models.values()), "cost_rules": cat.rules.cost}, all_inputs),
    ]  # fmt: skip
    for r in results.scenarios.values():
        s = r.scenario
        pick = r.rec.pick
        desc = s.summary if len(s.summary) <= 80 else s.summary[:78] + "…"
        if pick:
            desc = f"计算推荐 {pick.gpu.name} × {pick.cards}，每月约 {cny(pick.monthly.total)}。{desc}"[:120]  # type: ignore[union-attr]
        pages.append(
            Page(f"scenarios/{s.id}.md", "scenario.md.j2", s.title, desc,
                 {"scenario": s, "rec": r.rec, "model": cat.models[s.model], "disagreement": r.disagreement,
                  "assumptions": _assumptions(r)}, all_inputs)  # fmt: skip
        )
    for row in ladder:
        gpu = row["gpu"]
        offers = _offer_rows(cat, cat.offers_for(gpu.id))
        options = []
        for r in results.scenarios.values():
            opt = r.rec.option_for(gpu.id)
            eligible = [o for o in r.rec.options if o.eligible]
            rank = next((i + 1 for i, o in enumerate(eligible) if o.gpu.id == gpu.id), None)
            options.append({"scenario": r.scenario, "option": opt, "is_pick": rank == 1, "rank": rank})
        pages.append(
            Page(f"gpus/{gpu.id}.md", "gpu.md.j2", f"{gpu.name} 规格与租赁价格",
                 _gpu_description(gpu, row),
                 {"gpu": gpu, "row": row, "offers": offers, "scenario_options": options, "gpu_count": len(cat.gpus),
                  "spec_rows": [(n, FIGURE_NAMES[n], d) for n, d in SPEC_ROWS],
                  "field_sources": {k.value: v for k, v in gpu.field_sources.items()}},
                 ("data/gpus.yaml", "data/offers.yaml", "data/scenarios.yaml"))  # fmt: skip
        )
    return pages


def _home_description(cat: Catalogue, results: Results) -> str:
    return (
        f"按工作负载算显存、卡数、交付形式和月成本的 GPU 租赁选型指南：{len(cat.gpus)} 款 GPU 天梯图、"
        f"六大场景方案和避坑指南，数据截至 {cat.as_of}。"
    )


def _gpu_description(gpu, row: dict[str, Any]) -> str:  # type: ignore[no-untyped-def]
    price = f"，参考月租 {row['price_label']}/卡" if row["price_label"] != "—" else ""
    return (
        f"{gpu.name}：{num(gpu.memory_gb, 0)} GB {gpu.memory_type}，稠密 BF16/FP16 {row['tensor_label']} TFLOPS"
        f"{price}。规格来源、报价和适用场景。"
    )


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


def generated_files(cat: Catalogue, results: Results, templates: Path) -> dict[str, bytes]:
    """Every generated file under docs/, as bytes."""
    env = environment(templates)
    common = {"as_of": cat.as_of.isoformat(), "delivery_names": DELIVERY_NAMES, "workload_names": WORKLOAD_NAMES,
              "form_names": FORM_NAMES, "figure_names": FIGURE_NAMES, "site_name": SITE_NAME}  # fmt: skip
    files: dict[str, bytes] = {}
    for page in plan_pages(cat, results):
        root = "../" * page.path.count("/")
        files[page.path] = render_page(env, page, {**common, "root": root})
    files["assets/charts/ladder.svg"] = charts.ladder_chart(results.ladder)
    files["assets/charts/price-vs-tflops.svg"] = charts.price_performance_chart(results.ladder)
    files["assets/charts/memory-vs-bandwidth.svg"] = charts.memory_bandwidth_chart(results.ladder)
    files["data/gpus.json"] = tables.gpus_json(cat)
    files["data/gpus.csv"] = tables.gpus_csv(cat)
    files["data/offers.csv"] = tables.offers_csv(cat)
    return files
