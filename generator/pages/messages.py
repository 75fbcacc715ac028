"""The reader's words for the engine's typed records: one message table per language.

Each :class:`~generator.engine.exclusion.ExclusionKind` has a template whose ``{name}`` fields
are the record's parameters. Integers are written with thousands separators, ``tiers`` (billing
tier ids) by the page's billing names joined with "、", strings as they are. The same table goes
to the calculator in its JSON (``messages``), and ``docs/javascripts/calculator.js`` fills it the
same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from generator.engine.exclusion import Exclusion, ExclusionKind, Param
from generator.pages.names import BILLING_NAMES

#: Chinese messages for every exclusion kind.
EXCLUSION_ZH: dict[ExclusionKind, str] = {
    ExclusionKind.not_domestic: "不满足国产化要求",
    ExclusionKind.needs_cuda: "按依赖 CUDA 的代码计算：这张卡要把代码迁移到厂商自己的软件栈才能用",
    ExclusionKind.too_big: "即使用到 {max_cards} 张卡，每张卡的显存也不够",
    ExclusionKind.unsupported_format: "{refusal}",
    ExclusionKind.no_scale_up_link: "{cards} 卡训练需要所有卡之间都有高速互联，而{link}",
    ExclusionKind.no_offers: "数据中还没有这张卡的报价",
    ExclusionKind.history_only: "这张卡只有 {fresh_days} 天前的历史报价，不用于排名",
    ExclusionKind.spot_only: "这张卡只有抢占式或长期合约报价，不用于排名",
    ExclusionKind.no_billing_tier: "这张卡没有所选计费方式（{tiers}）的当前报价",
    ExclusionKind.no_whole_server_offer: "数据中还没有这张卡的裸金属或整机云服务器当前报价",
    ExclusionKind.no_container_offer: "数据中还没有这张卡的容器或云服务器当前报价",
    ExclusionKind.needs_fabric: (
        "需要 {cards} 张卡，要 {nodes} 台 {whole} 卡服务器组成集群；数据中这张卡的报价平台"
        "都没有标明出售机间高速网络（InfiniBand/RoCE），单卡或容器实例拼不成一个集群"
    ),
    ExclusionKind.deadline: "即使用到 {max_cards} 张卡也无法在 {days} 天内完成",
    ExclusionKind.volume: "即使用到 {max_cards} 张卡，每月也出不了 {images} 张图",
    ExclusionKind.too_slow: (
        "达不到在线服务的速度下限（首 token ≤ {ttft_s} 秒、每个用户每秒 ≥ {tokens_per_s} 个输出 token）"
    ),
    ExclusionKind.thin_headroom: (
        "{paper_cards} 张卡时每卡约需 {need_gib} GiB 显存，超过 vLLM 默认可用的 {share}（约 {limit_gib} GiB），"
        "余量太小，不推荐用于在线服务；留足余量要更多卡，数据中没有能这样组合的报价"
    ),
    ExclusionKind.no_whole_server: (
        "{cards} 卡训练需要卡间高速互联的整机（裸金属或整机云服务器），这张卡的报价里没有：{link}"
    ),
    ExclusionKind.over_budget: "月成本 {total} 超出预算 {budget}",
}

_FIELD = re.compile(r"\{(\w+)\}")


def _word(value: Param, billing: Mapping[str, str]) -> str:
    if isinstance(value, tuple):
        return "、".join(billing.get(v, v) for v in value)
    if isinstance(value, int):
        return f"{value:,}"
    return value


def explain(exclusion: Exclusion, table: Mapping[ExclusionKind, str] = EXCLUSION_ZH) -> str:
    """The exclusion in the reader's words."""
    return _FIELD.sub(lambda m: _word(exclusion.params[m.group(1)], BILLING_NAMES), table[exclusion.kind])


def messages_json() -> dict[str, dict[str, str]]:
    """The table as the calculator's JSON carries it: ``{"exclusion": {kind: template}}``."""
    return {"exclusion": {k.value: v for k, v in EXCLUSION_ZH.items()}}
