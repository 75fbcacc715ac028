"""The reader's words for the engine's typed records: one message table per language.

Each :class:`~generator.engine.exclusion.ExclusionKind` and :class:`~generator.engine.reason.ReasonKind`
has a template whose ``{name}`` fields are the record's parameters. Integers are written with
thousands separators, strings as they are, nested reasons by their own message, a tuple by its
items joined with "、" (billing tier ids by the page's billing names). A part in ``[…]`` is said
only when every field it names is present. The same tables go to the calculator in its JSON
(``messages``), and ``docs/javascripts/calculator.js`` fills them the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from generator.engine.exclusion import Exclusion, ExclusionKind
from generator.engine.reason import Param, Reason, ReasonKind
from generator.engine.recommend import Option
from generator.engine.request import Assumption
from generator.pages.names import BILLING_NAMES

#: Chinese messages for every exclusion kind.
EXCLUSION_ZH: dict[ExclusionKind, str] = {
    ExclusionKind.not_domestic: "不满足国产化要求",
    ExclusionKind.needs_cuda: "按依赖 CUDA 的代码计算：这张卡要把代码迁移到厂商自己的软件栈才能用",
    ExclusionKind.too_big: "即使用到 {max_cards} 张卡，每张卡的显存也不够",
    ExclusionKind.unsupported_format: "{gpu} 不支持 {format}：{why}；{instead}",
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
    ExclusionKind.no_multi_card_offer: (
        "需要 {cards} 张卡装在同一台服务器上；数据中这张卡的报价每个实例最多 {largest} 张卡，"
        "没有人出租 {cards} 卡的实例"
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

#: Chinese messages for every reason kind.
REASON_ZH: dict[ReasonKind, str] = {
    ReasonKind.memory: "每卡峰值显存约 {per_card_gib} GiB，可用约 {usable_gib} GiB，需要 {cards} 张卡",
    ReasonKind.month_by_use: "按小时计费，每月（按用 {hours} 小时）合计约 {total}（GPU 租金占 {gpu_share}）",
    ReasonKind.month_fixed: "按月计费，每月（按用 {hours} 小时）合计约 {total}（GPU 租金占 {gpu_share}）",
    ReasonKind.cluster: (
        "租 {instances} 台 {server_cards} 卡服务器（共 {cards_billed} 张卡），机间用平台提供的 InfiniBand/RoCE 高速网络组成集群"
    ),
    ReasonKind.idle_cards: "报价按整机 {cards_billed} 张卡计费，其中 {idle_cards} 张闲置也要付钱",
    ReasonKind.replicas: "租用的 {cards_billed} 张卡同时跑 {replicas} 份模型副本",
    ReasonKind.whole_machine: "报价按整机 {cards_billed} 张卡计费，任务用满整机的 {cards_used} 张卡，跑得更快",
    ReasonKind.job: "参照任务在 {cards} 张卡上约 {hours} 小时完成，租金约 {rent}[（{minimum}）]",
    ReasonKind.faster: "租 {cards} 张卡（{provider}）租金约 {rent}，差不多一样贵，约 {hours} 小时就能跑完",
    ReasonKind.serving_load: (
        "按 {batch} 路并发（每个请求提示 {prompt_tokens} + 输出 {output_tokens} token）[、{copies} 份副本]："
        "首 token 约 {ttft_s} 秒，每个用户每秒约 {user_tokens_per_s} 个输出 token，合计每秒约 {tokens_per_s} token，"
        "每百万 token（提示与输出合计，只计 GPU 租金）约 {cost}"
    ),
    ReasonKind.serving_capacity: (
        "满载时按显存可容纳的 {concurrency} 路并发[、{replicas} 份副本]每秒约处理 {tokens_per_s} token，每百万 token 约 {cost}"
    ),
    ReasonKind.images: "每小时约 {per_hour} 张，每千张约 {cost}（只计 GPU 租金）[：每月 {volume} 张约要跑 {hours} 小时]",
    ReasonKind.not_cuda: "这张卡不支持 CUDA：基于 PyTorch/CUDA 的代码要迁移到厂商自己的软件栈（如昇腾 CANN、AMD ROCm）才能跑",
    ReasonKind.support_note: "{note}",
    ReasonKind.fallback_unspecified: "没有对应交付形式的报价，按来源未注明交付形式的报价计算",
    ReasonKind.fallback_bare_metal: "没有容器或云服务器报价，按裸金属整机（{cards} 卡）报价计算",
    ReasonKind.form_bare_metal: "按 {cards} 卡裸金属整机报价计算：整机独享，按这台机器的全部卡计费",
    ReasonKind.form_vm_container: "按云服务器报价计算：GPU 云服务器能跑容器能跑的一切，只是启动稍慢",
    ReasonKind.form_vm_bare_metal: (
        "按 {cards} 卡整机云服务器报价计算：整台服务器的卡都在这台云服务器里，卡间 NVLink 与裸金属相同"
    ),
    ReasonKind.delivery_adapter: "LoRA 类训练底座冻结：多卡时只同步适配器梯度（底座一张卡放不下时分片到各卡，走 PCIe 更慢），不需要 NVLink，容器实例即可、按小时计费",
    ReasonKind.delivery_sharded: "{cards} 卡训练需要 NVLink 等卡间高速互联和整机独享，选裸金属",
    ReasonKind.delivery_single: "单卡训练用不到卡间互联，容器实例秒级启停、可按小时计费",
    ReasonKind.delivery_serving: "推理服务选容器实例，便于弹性扩缩容、按需计费",
    ReasonKind.link_single: "单卡",
    ReasonKind.link_pcie_only: "卡间只有 PCIe {pcie_gen}.0，没有 NVLink 等高速互联",
    ReasonKind.link_all_to_all: "卡间 {link} 全互联[，每卡 {gbps} GB/s]",
    ReasonKind.link_bridged: "两张卡用 {link} 桥接[，每卡 {gbps} GB/s]",
    ReasonKind.link_bridged_pairs: "{link} 只能两两桥接，桥接对之间走 PCIe {pcie_gen}.0",
    ReasonKind.link_multi_node: (
        "{nodes} 台服务器、每台 {node_cards} 张卡：台内{inner}，台与台之间走机间网络（InfiniBand/RoCE）"
    ),
    ReasonKind.format_below_cc: "{runtime} 的 {floors}，这张卡是 {cc}",
    ReasonKind.format_no_nvidia_kernel: "{runtime} 在 NVIDIA 卡上没有 {format} 的实现",
    ReasonKind.format_no_vendor_kernel: "{runtime} 在 {vendor} 的卡上没有 {format} 的实现",
    ReasonKind.kernel_floor_first: "{kernel} 要求计算能力 ≥ {min_cc}",
    ReasonKind.kernel_floor: "{kernel} 要求 ≥ {min_cc}",
    ReasonKind.format_instead: "改用 {formats}",
    ReasonKind.format_no_alternative: "这张卡上没有可替代的精度",
    ReasonKind.per_card_memory: "按每张卡单独计算显存峰值（共 {cards} 张卡），多张卡的显存不能相加当作一块用。",
    ReasonKind.derived_arch: "模型资料缺少 {fields}，按 Llama 式结构从参数量推算；结果可能与实际模型有出入。",
    ReasonKind.overhead: (
        "每张卡另计 CUDA 上下文和 cuBLAS 工作区约 {cuda_gib} GiB，以及约 {fragmentation} 的显存碎片"
        "[；多卡通信缓冲约 {comm_gib} GiB]。"
    ),
    ReasonKind.serving_throughput: (
        "服务吞吐：每个请求提示 {prompt_tokens} + 输出 {output_tokens} token，预填充和解码分时进行；"
        "并发数取{limit}允许的 {concurrency} 路；空闲时单个请求的首 token 延迟约 {ttft_ms} ms。"
    ),
    ReasonKind.image_speed: (
        "出图速度：{resolution}×{resolution}、{steps} 步、{passes}，单卡每张约 {seconds} 秒（每小时约 {per_hour} 张）；"
        "按去噪参数 × 潜空间 token 数估算计算量，效率按公开的 SDXL / FLUX.1 实测校准，未计 torch.compile、TensorRT 等加速与批量出图"
    ),
    ReasonKind.editor_gpu: "编辑推荐 {editor}[（{excluded}）]，计算结果为 {computed}",
    ReasonKind.editor_delivery: "编辑推荐交付形式 {editor}，规则给出 {rule}（{why}）",
    ReasonKind.limit_engine_cap: "引擎的并发上限",
    ReasonKind.limit_kv_cache: "显存能放下的 KV 缓存",
    ReasonKind.denoise_cfg: "每步两次去噪（CFG：正向、负向提示各一次）",
    ReasonKind.denoise_distilled: "每步一次去噪（引导蒸馏模型）",
    ReasonKind.minimum_months: "按月计费，至少付满 {months} 个月",
    ReasonKind.minimum_days: "按天计费，至少付满 {days} 天",
}

_FIELD = re.compile(r"\{(\w+)\}")
_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z0-9]")


def _word(value: Param, billing: Mapping[str, str]) -> str:
    if isinstance(value, tuple):
        return "、".join(billing.get(v, v) if isinstance(v, str) else explain(v) for v in value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, str):
        return value
    return explain(value)


def fill(template: str, params: Mapping[str, Param]) -> str:
    """A message with its fields filled: optional ``[…]`` parts first (kept when all their fields are
    given), then every ``{name}`` (a missing one is a KeyError: the engine and the table disagree).
    Words that start with a Latin letter or digit right after a Chinese character get a space
    before them ("而 NVLink …")."""
    kept = _OPTIONAL.sub(lambda m: m.group(1) if set(_FIELD.findall(m.group(1))) <= params.keys() else "", template)

    def word(m: re.Match[str]) -> str:
        text = _word(params[m.group(1)], BILLING_NAMES)
        spaced = m.start() > 0 and _HAN.match(kept[m.start() - 1]) and _LATIN.match(text)
        return " " + text if spaced else text

    return _FIELD.sub(word, kept)


def explain(record: Exclusion | Reason) -> str:
    """The exclusion or reason in the reader's words."""
    if isinstance(record, Exclusion):
        return fill(EXCLUSION_ZH[record.kind], record.params)
    return fill(REASON_ZH[record.kind], record.params)


def messages_json() -> dict[str, dict[str, str]]:
    """The tables as the calculator's JSON carries them: ``{"exclusion": {kind: template}, "reason": …}``."""
    return {
        "exclusion": {k.value: v for k, v in EXCLUSION_ZH.items()},
        "reason": {k.value: v for k, v in REASON_ZH.items()},
    }


def assumption_text(a: Assumption) -> str:
    """An estimate's assumption in words: its record's message, else the sentence it carries."""
    return explain(a.message) if a.message is not None else a.text_zh


def cards_label(o: Option) -> str:
    """Cards in words for tables: "4", "8（用满整机）", "1（整机 8 张，7 张闲置）" (calculator.js ``cardsLabel``)."""
    if o.cards is None:
        return "装不下"
    if not o.cards_billed or o.cards_billed == o.cards:
        return str(o.cards)
    if o.idle_cards == 0:
        return (
            f"{o.cards_used}（用满整机）"
            if o.replicas == 1
            else f"{o.cards}（整机 {o.cards_billed} 张，{o.replicas} 份副本）"
        )
    return f"{o.cards}（整机 {o.cards_billed} 张，{o.idle_cards} 张闲置）"
