"""常见说法核对: each claim of data/claims.yaml checked against the data.

A claim names a check kind and its parameters; this module computes the number the claim
is about from the catalogue and the engine's results, compares it with the claim's
number and returns a verdict with the figures and one sentence that explains it. The
verdict is never written by hand:

* 成立 (holds): the computed number is within ``tolerance.holds`` (relative) of the claim's;
* 部分成立 (partly): within ``tolerance.partly``, or some but not all of a claim's parts hold;
* 不成立 (fails): further off;
* 无法核实 (unknown): the data cannot decide it (no price, a figure no vendor document
  confirms, or a number the site itself only assumes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

import pandas as pd

from generator.data.catalogue import Catalogue
from generator.data.editorial import CheckKind, Claim, ClaimCheck, Tolerance
from generator.data.records import Gpu, Workload
from generator.data.rules import ScalingPoint
from generator.formats import cny, num, pct
from generator.results.model_pages import ModelPage
from generator.results.prices import BASES, Basis, CardMonth, cheapest_by_basis, cheapest_card_month
from generator.results.scenarios import ScenarioResult

GIB = 2**30
#: Vendors print sparse tensor figures at twice the dense rate (2:4 structured sparsity).
SPARSITY_FACTOR = 2.0


class Verdict(StrEnum):
    holds = "成立"
    partly = "部分成立"
    fails = "不成立"
    unknown = "无法核实"


@dataclass(frozen=True)
class Figure:
    """One computed number as the page prints it."""

    label: str
    value: str


@dataclass(frozen=True)
class Link:
    """A page the reader can check the numbers on (path relative to docs/)."""

    text: str
    path: str


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    verdict: Verdict
    figures: tuple[Figure, ...]
    explanation: str
    links: tuple[Link, ...] = ()
    computed: float | None = None  # the number compared with check.stated


@dataclass(frozen=True)
class _Inputs:
    """What the checks read: the catalogue and what the rules computed."""

    cat: Catalogue
    ladder: pd.DataFrame
    scenarios: Mapping[str, ScenarioResult]
    models: Mapping[tuple[str, Workload], ModelPage]


def closeness(computed: float, stated: float, tol: Tolerance) -> Verdict:
    """成立 / 部分成立 / 不成立 by the relative difference of two positive numbers."""
    off = abs(computed / stated - 1)
    if off <= tol.holds:
        return Verdict.holds
    if off <= tol.partly:
        return Verdict.partly
    return Verdict.fails


def claim_results(
    cat: Catalogue, ladder: pd.DataFrame, scenarios: Mapping[str, ScenarioResult], models: list[ModelPage]
) -> list[ClaimResult]:
    """Every claim of the catalogue, checked, in the editors' order."""
    ins = _Inputs(cat, ladder, scenarios, {(m.model.id, m.workload): m for m in models})
    return [_CHECKS[c.check.kind](ins, c) for c in cat.claims.claims]


def _gpu(ins: _Inputs, gpu_id: str | None) -> Gpu:
    assert gpu_id is not None  # validate.editorial_check reports a check without its parameters
    return ins.cat.gpus[gpu_id]


def _stated(check: ClaimCheck) -> float:
    assert check.stated is not None
    return check.stated


def _gpu_link(gpu: Gpu) -> Link:
    return Link(gpu.name, f"gpus/{gpu.id}.md")


# --------------------------------------------------------------------------- specs


def tflops_ratio(ins: _Inputs, claim: Claim) -> ClaimResult:
    c, tol = claim.check, ins.cat.claims.tolerance
    a, b = _gpu(ins, c.gpu), _gpu(ins, c.versus)
    ratio = a.tensor_tflops / b.tensor_tflops
    verdict = closeness(ratio, _stated(c), tol)
    figures = [
        Figure(f"{a.name} 稠密 16 位算力", f"{num(a.tensor_tflops, 1)} TFLOPS"),
        Figure(f"{b.name} 稠密 16 位算力", f"{num(b.tensor_tflops, 1)} TFLOPS"),
        Figure("同口径（稠密对稠密）之比", f"{ratio:.1f} 倍"),
    ]
    why = f"同按稠密算力比，{a.name} 是 {b.name} 的 {ratio:.1f} 倍，说法是 {c.stated:g} 倍。"
    if c.stated_figure is not None:
        times_dense = c.stated_figure / a.tensor_tflops
        figures.append(Figure(f"说法里的 {c.stated_figure:g} TFLOPS", f"= 稠密值的 {times_dense:.2f} 倍"))
        if closeness(times_dense, SPARSITY_FACTOR, tol) is Verdict.holds:
            mixed = c.stated_figure / b.tensor_tflops
            figures.append(Figure("拿稀疏值比对方的稠密值", f"{mixed:.1f} 倍"))
            why = (
                f"{c.stated_figure:g} TFLOPS 是 {a.name} 的稀疏算力（稠密值的两倍），拿它去比 {b.name} 的稠密值才得出"
                f" {mixed:.1f} 倍；同口径比只有 {ratio:.1f} 倍。"
            )
    return ClaimResult(claim, verdict, tuple(figures), why, (_gpu_link(a), _gpu_link(b)), ratio)


def spec_value(ins: _Inputs, claim: Claim) -> ClaimResult:
    c = claim.check
    gpu = _gpu(ins, c.gpu)
    assert c.figure is not None
    name = c.figure.value
    value = getattr(gpu, name)
    source = ins.cat.gpus[gpu.id].field_sources.get(c.figure, gpu.source)
    link = (_gpu_link(gpu), Link("规格来源", str(source)))
    if not isinstance(value, (int, float)):
        why = f"数据里没有 {gpu.name} 的这项数字，无法核对。"
        return ClaimResult(claim, Verdict.unknown, (), why, link)
    stated = _stated(c)
    unconfirmed = name in gpu.unconfirmed_names
    figures = (Figure("本站数据", f"{value:g}" + ("（没有厂商数据表确认）" if unconfirmed else "")),
               Figure("说法", f"{stated:g}"))  # fmt: skip
    verdict = closeness(float(value), stated, ins.cat.claims.tolerance)
    if unconfirmed:
        agree = "与说法一致" if verdict is Verdict.holds else f"与说法相差 {abs(value / stated - 1):.0%}"
        why = f"本站数据为 {value:g}，{agree}，但这个数字没有厂商数据表确认，只能算“无法核实”。"
        return ClaimResult(claim, Verdict.unknown, figures, why, link, float(value))
    why = f"厂商数据为 {value:g}，说法为 {stated:g}，相差 {abs(value / stated - 1):.0%}。"
    return ClaimResult(claim, verdict, figures, why, link, float(value))


# --------------------------------------------------------------------------- fit and memory


def fit_share(ins: _Inputs, claim: Claim) -> ClaimResult:
    c = claim.check
    gpu = _gpu(ins, c.gpu)
    limit = c.cards or 1

    def fits(rec_cards: int | None) -> bool:
        return rec_cards is not None and rec_cards <= limit

    scen = [fits(_cards(r.rec.option_for(gpu.id))) for r in ins.scenarios.values()]
    pages = [fits(_cards(m.rec.option_for(gpu.id))) for m in ins.models.values()]
    total = len(scen) + len(pages)
    if total == 0:
        return ClaimResult(claim, Verdict.unknown, (), "数据中没有场景或模型页面，无法计算。")
    share = (sum(scen) + sum(pages)) / total
    stated = _stated(c)
    verdict = Verdict.holds if share >= stated else closeness(share, stated, ins.cat.claims.tolerance)
    misses = [m for m in ins.models.values() if not fits(_cards(m.rec.option_for(gpu.id)))]
    biggest = sorted({m.model.name for m in misses})
    figures = (
        Figure("场景指南", f"{sum(scen)} / {len(scen)} 个装得下"),
        Figure("模型页面", f"{sum(pages)} / {len(pages)} 个装得下"),
        Figure(f"合计（{limit} 张卡以内）", pct(share)),
    )
    why = (
        f"“企业需求”没有可统计的口径，本站用自己的 {total} 个场景和模型页面代替：{gpu.name} 在 {limit} 张卡以内"
        f"装得下其中 {pct(share)}。"
    )
    if biggest:
        why += f"装不下的涉及 {'、'.join(biggest[:4])}{' 等' if len(biggest) > 4 else ''}。"
    links = (_gpu_link(gpu), Link("模型显存与卡数", "models/index.md"))
    return ClaimResult(claim, verdict, figures, why, links, share)


def _cards(option: object) -> int | None:
    return getattr(option, "cards", None)


def memory(ins: _Inputs, claim: Claim) -> ClaimResult:
    c = claim.check
    assert c.model is not None and c.workload is not None
    page = ins.models.get((c.model, c.workload))
    if page is None:
        return ClaimResult(claim, Verdict.unknown, (), "本站没有这个模型和用法的页面，无法计算。")
    est = page.single_card
    gb = est.total_gib * GIB / 1e9
    weights16 = page.model.params_b * 2  # GB of 16-bit weights alone
    stated = _stated(c)
    verdict = closeness(gb, stated, ins.cat.claims.tolerance)
    fitting = [o for o in page.rec.options if o.cards is not None]
    fewest = min(fitting, key=lambda o: (o.cards or 0, -o.gpu.memory_gb, o.gpu.id), default=None)
    figures = [
        Figure("本站估算的单卡峰值显存", f"{num(gb, 1)} GB（{num(est.total_gib, 1)} GiB）"),
        Figure("其中权重", f"{num(est.breakdown['weights'] * GIB / 1e9, 1)} GB"),
        Figure(f"只算 16 位权重（{page.model.params_b:g}B × 2 字节）", f"{num(weights16, 1)} GB"),
    ]
    if fewest is not None and (fewest.cards or 0) > 1:
        figures.append(Figure("最少需要", f"{fewest.cards} 张 {fewest.gpu.name}"))
    why = f"按本站的显存公式，这个任务单卡峰值约 {num(gb, 0)} GB，说法是 {stated:g} GB"
    if closeness(weights16, stated, ins.cat.claims.tolerance) is Verdict.holds and verdict is not Verdict.holds:
        why += f"；{stated:g} GB 差不多只是 16 位权重本身（{num(weights16, 1)} GB）"
        extra = [k for k in ("gradients", "optimizer_states", "kv_cache", "activations") if est.breakdown.get(k, 0) > 0]
        names = {"gradients": "梯度", "optimizer_states": "优化器状态", "kv_cache": "KV 缓存", "activations": "激活值"}
        if extra:
            listed = "、".join(names[k] for k in extra)
            why += "，没有算" + (" " if listed[0].isascii() else "") + listed
    why += "。"
    link = Link(f"{page.model.name} 的显存页面", f"models/{page.slug}.md")
    return ClaimResult(claim, verdict, tuple(figures), why, (link,), gb)


def card_fits(ins: _Inputs, claim: Claim) -> ClaimResult:
    c = claim.check
    gpu = _gpu(ins, c.gpu)
    limit = c.cards or 1
    figures, links, ok, missing = [], [_gpu_link(gpu)], [], []
    for model_id in c.models:
        for w in c.workloads:
            page = ins.models.get((model_id, w))
            if page is None:
                missing.append(f"{model_id} {w.value}")
                continue
            cards = _cards(page.rec.option_for(gpu.id))
            label = "装不下" if cards is None else f"{cards} 张"
            figures.append(Figure(f"{page.model.name} · {_WORKLOAD_WORDS[w]}", label))
            links.append(Link(f"{page.model.name} · {_WORKLOAD_WORDS[w]}", f"models/{page.slug}.md"))
            ok.append(cards is not None and cards <= limit)
    if not ok:
        return ClaimResult(claim, Verdict.unknown, (), "本站没有这些模型和用法的页面，无法计算。", tuple(links))
    if all(ok):
        verdict, why = Verdict.holds, f"这些任务在 {limit} 张 {gpu.name} 上都装得下。"
    elif any(ok):
        verdict = Verdict.partly
        why = f"{sum(ok)} / {len(ok)} 个任务在 {limit} 张 {gpu.name} 上装得下，其余要更多卡或装不下。"
    else:
        verdict, why = Verdict.fails, f"这些任务在 {limit} 张 {gpu.name} 上都装不下。"
    return ClaimResult(claim, verdict, tuple(figures), why, tuple(links), sum(ok) / len(ok))


#: Short workload words for figure labels (the pages' names module sits later in the pipeline).
_WORKLOAD_WORDS = {
    Workload.inference: "推理",
    Workload.lora: "LoRA 微调",
    Workload.qlora: "QLoRA 微调",
    Workload.full: "全参数微调",
    Workload.pretrain: "预训练",
}


# --------------------------------------------------------------------------- prices


def price_rank(ins: _Inputs, claim: Claim) -> ClaimResult:
    c = claim.check
    gpu = _gpu(ins, c.gpu)
    frame = ins.ladder[ins.ladder["cny_per_tflop_hour"].notna()]
    frame = frame.sort_values(["cny_per_tflop_hour", "id"], kind="mergesort")
    order = [str(i) for i in frame["id"]]
    per = dict(zip(order, (float(v) for v in frame["cny_per_tflop_hour"]), strict=True))
    links = (_gpu_link(gpu), Link("GPU 天梯图", "ladder.md"))
    if gpu.id not in per:
        return ClaimResult(claim, Verdict.unknown, (), f"数据中没有 {gpu.name} 的报价，无法排名。", links)
    rank = order.index(gpu.id) + 1
    best = ins.cat.gpus[order[0]]
    mine = cheapest_card_month(ins.cat, gpu.id, current_only=False)
    figures = [
        Figure(f"{gpu.name} 每 TFLOP·时租金", f"{cny(per[gpu.id], 3)}（第 {rank} 名，共 {len(order)} 款有报价）"),
        Figure(f"最低：{best.name}", cny(per[best.id], 3)),
    ]
    if mine is not None:
        figures.append(Figure(f"{gpu.name} 所用报价日期", mine.offer.as_of.isoformat()))
    verdict = Verdict.holds if rank <= _stated(c) else Verdict.fails
    why = f"按每卡时最低租金除以稠密 16 位算力，{gpu.name} 在 {len(order)} 款有报价的卡里排第 {rank}"
    if rank == 1:
        why += "，是最便宜的。"
    else:
        why += f"，每 TFLOP·时的租金是最便宜的 {best.name} 的 {per[gpu.id] / per[best.id]:.1f} 倍。"
    return ClaimResult(claim, verdict, tuple(figures), why, links, float(rank))


def _price_words(cat: Catalogue, cm: CardMonth) -> str:
    promo = "，活动价" if cm.offer.promo else ""
    return f"{cny(cm.cny)}/卡·月（{cat.providers[cm.offer.provider].name}，{cm.offer.as_of}{promo}）"


#: A comparison basis in words (generator.results.prices.BASES).
_BASIS_ZH = {
    "on_demand": "按量",
    "daily": "按天",
    "monthly": "包月",
    "instance": "容器或云服务器",
    "bare_metal": "裸金属整机",
    "unspecified": "未注明交付形式",
}


def _basis_words(basis: Basis) -> str:
    return f"{_BASIS_ZH[basis[0].value]}{_BASIS_ZH[basis[1]]}"


def price_ratio(ins: _Inputs, claim: Claim) -> ClaimResult:
    """Rent of one card against another on the same basis: the same billing tier and form on both
    sides (an 8-card monthly lease is never divided by an hourly container price)."""
    c = claim.check
    a, b = _gpu(ins, c.gpu), _gpu(ins, c.versus)
    pa, pb = cheapest_by_basis(ins.cat, a.id), cheapest_by_basis(ins.cat, b.id)
    links = (_gpu_link(a), _gpu_link(b))
    if not pa or not pb:
        lacking = "、".join(g.name for g, p in ((a, pa), (b, pb)) if not p)
        why = f"数据中没有 {lacking} 的当期报价（{ins.cat.rules.prices.fresh_days} 天以内），无法比较。"
        return ClaimResult(claim, Verdict.unknown, (), why, links)
    common = [k for k in BASES if k in pa and k in pb]
    if not common:
        sides = "；".join(
            f"{g.name}只有{'、'.join(_basis_words(k) for k in BASES if k in p)}报价" for g, p in ((a, pa), (b, pb))
        )
        why = f"两张卡没有同一计费方式、同一交付形式的当期报价，无法同口径比较（{sides}）。"
        return ClaimResult(claim, Verdict.unknown, (), why, links)
    basis = common[0]
    ca, cb = pa[basis], pb[basis]
    ratio = ca.cny / cb.cny
    stated = _stated(c)
    verdict = closeness(ratio, stated, ins.cat.claims.tolerance)
    # Every common basis is like with like: the verdict is the one they share, else "partly" (it then
    # depends on how the cards are rented, not on which basis happens to come first).
    others = {k: closeness(pa[k].cny / pb[k].cny, stated, ins.cat.claims.tolerance) for k in common[1:]}
    split = any(v is not verdict for v in others.values())
    words = _basis_words(basis)
    figures = [
        Figure(f"{a.name} 最低当期租金（{words}）", _price_words(ins.cat, ca)),
        Figure(f"{b.name} 最低当期租金（{words}）", _price_words(ins.cat, cb)),
        Figure("比值", f"{ratio:.2f}（说法 {stated:g}）"),
    ]
    for other in common[1:]:
        figures.append(Figure(f"另一口径（{_basis_words(other)}）的比值", f"{pa[other].cny / pb[other].cny:.2f}"))
    if verdict is Verdict.holds:
        compared = f"与说法的 {pct(stated)} 相符"
    else:
        compared = f"比说法的 {pct(stated)} {'更低' if ratio < stated else '更高'}"
    why = f"同为{words}的最低当期报价，{a.name} 的租金约为 {b.name} 的 {pct(ratio)}，{compared}。"
    if split:
        differ = "；".join(
            f"{_basis_words(k)}约为 {pct(pa[k].cny / pb[k].cny)}" for k, v in others.items() if v is not verdict
        )
        why += f"但换一种同口径（{differ}）结论不同：说法是否成立取决于怎么租，所以只算部分成立。"
        verdict = Verdict.partly
    if ca.offer.promo or cb.offer.promo:
        why += "其中用到的是活动价，活动结束后比值会变。"
    return ClaimResult(claim, verdict, tuple(figures), why, links, ratio)


# --------------------------------------------------------------------------- assumptions


def scaling(ins: _Inputs, claim: Claim) -> ClaimResult:
    c = claim.check
    n = c.cards or 2
    rules = ins.cat.rules.speed.scaling
    pcie, nvlink = _efficiency(rules.pcie, n), _efficiency(rules.nvlink, n)
    stated = _stated(c)
    figures = (
        Figure(f"本站假设的 {n} 卡 PCIe 扩展效率", pct(pcie)),
        Figure(f"本站假设的 {n} 卡 NVLink 扩展效率", pct(nvlink)),
    )
    if closeness(pcie, stated, ins.cat.claims.tolerance) is Verdict.holds:
        why = (
            f"本站计算多卡 PCIe 训练时间时也按 {pct(pcie)} 计，这是沿用这一说法的假设，不是测量值；"
            "数据里没有可以独立核对的实测，所以只能算“无法核实”。"
        )
    else:
        why = f"本站假设为 {pct(pcie)}，同样不是测量值；数据里没有可以核对的实测。"
    return ClaimResult(claim, Verdict.unknown, figures, why, (Link("卡间互联怎么看", "metrics.md#interconnect"),), pcie)


def _efficiency(points: list[ScalingPoint], cards: int) -> float:
    """The scaling point with the largest card count not above ``cards`` (the first below it)."""
    ordered = sorted(points, key=lambda p: p.cards)
    eff: float = ordered[0].efficiency
    for p in ordered:
        if p.cards <= cards:
            eff = p.efficiency
    return eff


_CHECKS: dict[CheckKind, Callable[[_Inputs, Claim], ClaimResult]] = {
    CheckKind.tflops_ratio: tflops_ratio,
    CheckKind.spec_value: spec_value,
    CheckKind.fit_share: fit_share,
    CheckKind.price_rank: price_rank,
    CheckKind.price_ratio: price_ratio,
    CheckKind.scaling: scaling,
    CheckKind.memory: memory,
    CheckKind.card_fits: card_fits,
}
