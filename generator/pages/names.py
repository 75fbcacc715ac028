"""Chinese display names for the enums and figures, shared by every page and the calculator."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

from generator.data.records import GpuFigure

SITE_NAME = "GPU 算力租赁选型指南"
#: one line on what the site is (llms.txt; mkdocs.yml site_description says the same)
SITE_SUMMARY = "按工作负载算显存、卡数、交付形式和月成本的 GPU 租赁选型指南。"

DELIVERY_NAMES = {"container": "容器实例", "vm": "云服务器", "bare_metal": "裸金属", "unspecified": "未注明"}
#: The form a plan is rented in, where a sentence names it alone ("H200 × 8, 交付形式未注明").
DELIVERY_PHRASES = {**DELIVERY_NAMES, "unspecified": "交付形式未注明"}
#: offers.yaml source_tier, as the link text of a price's source
SOURCE_TIER_NAMES = {
    "provider_page": "官网价格页",
    "provider_api": "官方价格接口",
    "provider_doc": "官方文章",
    "aggregator": "第三方汇总",
    "article": "第三方文章",
}
#: gpus.yaml status kinds, as the page names them
#: gpus.yaml link topologies as a buyer reads them (the GPU spec table and the metrics page).
TOPOLOGY_NAMES = {
    "nvswitch": "NVSwitch 全互联（整机任意两卡满速）",
    "full_mesh": "点对点全互联（每两卡一条直连链路）",
    "hybrid_cube_mesh": "hybrid cube-mesh（每卡直连 4 张，并非任意两卡直连）",
    "bridged_pairs": "两卡一组桥接，组间走 PCIe",
}

GPU_STATUS_NAMES = {"export_restricted": "出口管制", "discontinued": "停产", "sold_out": "售罄"}
#: providers.yaml terms, as the provider page words them (key: "<term>.<value>")
TERM_NAMES = {
    "increment.second": "按秒计费",
    "increment.minute": "按分钟计费",
    "increment.hour": "按小时计费，不足一小时按一小时",
    "increment.day": "按天计费，不足一天按一天",
    "stopped.nothing": "关机后不再收费",
    "stopped.storage": "关机后只收数据盘和镜像的存储费",
    "stopped.instance": "关机后仍按实例计费，释放才停止",
    "tax.true": "标价含税",
    "tax.false": "标价不含税",
}
BILLING_NAMES = {"on_demand": "按量", "daily": "按天", "monthly": "包月", "spot": "抢占式", "reserved": "长期合约"}
CURRENCY_SIGNS = {"CNY": "¥", "USD": "$"}
CURRENCY_NAMES = {"CNY": "人民币", "USD": "美元"}
MARKET_NAMES = {"cn": "国内", "intl": "海外"}
PROVIDER_KIND_NAMES = {
    "marketplace": "算力市场",
    "cloud": "云厂商",
    "bare_metal": "裸金属租赁",
    "market_survey": "行情报道",
}
EXTRA_ITEM_NAMES = {"disk": "存储", "egress": "出站流量", "public_ip": "公网 IP", "other": "其他"}
#: the instance state a storage price applies to (providers.yaml extras[].state)
EXTRA_STATE_NAMES = {"running": "运行时", "stopped": "停机时"}
EXTRA_UNIT_NAMES = {"gb_day": "GB·天", "gb_month": "GB·月", "gb": "GB", "month": "月", "hour": "小时"}
WORKLOAD_NAMES = {
    "inference": "推理",
    "lora": "LoRA 微调",
    "qlora": "QLoRA 微调",
    "full": "全参数微调",
    "pretrain": "预训练",
}
#: Calibration groups (generator.engine.calibration.GROUPS): what the group checks and which figures it stands behind.
CALIBRATION_GROUP_NAMES = {
    "training": ("预训练用时", "训练时长、卡时"),
    "finetune": ("微调速度", "微调时长、卡时"),
    "serving": ("推理速度（vLLM 式调度）", "每秒 token 数、首 token 延迟"),
    "serving_transformers": ("推理速度（Hugging Face transformers）", "每秒 token 数、首 token 延迟"),
    "serving_llamacpp": ("推理速度（llama.cpp）", "每秒 token 数、提示处理速度"),
    "memory": ("权重与 KV 缓存大小", "显存里的权重和 KV 缓存"),
    "inference_memory": ("推理峰值显存（对照 transformers 实测）", "每卡显存、卡数"),
    "diffusion": ("图像模型显存", "每卡显存、卡数"),
    "image_speed": ("出图用时", "每张图秒数、每千张成本"),
    "video": ("视频生成用时", "每段视频秒数、每段与每分钟成片成本"),
}
FORM_NAMES = {"sxm": "SXM 模组", "pcie": "PCIe 插卡", "oam": "OAM 模组", "nvl": "NVL 双卡桥接 PCIe 卡"}
UNIT_NAMES = {"hour": "时", "day": "天", "month": "月", "year": "年"}
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
    GpuFigure.topology.value: "卡间拓扑",
    GpuFigure.pcie_gen.value: "PCIe 代数",
    GpuFigure.peer_to_peer.value: "GPU 点对点（P2P）",
    GpuFigure.release_year.value: "发布年份",
    GpuFigure.compute_capability.value: "CUDA 计算能力",
}

#: Precision names as readers know them (field values like "mixed" never reach a page).
PRECISION_NAMES = {
    "fp32": "FP32",
    "bf16": "BF16",
    "fp16": "FP16",
    "fp8": "FP8",
    "int8": "INT8",
    "int4": "INT4",
    "mxfp4": "MXFP4（MoE 专家 4 位，其余 BF16）",
    "nf4": "NF4（QLoRA 的 4 位格式）",
    "q4_k_m": "GGUF Q4_K_M",
    "q8_0": "GGUF Q8_0",
    "iq1_s": "GGUF 1.58 位（MoE 专家 IQ1_S，其余 4–6 位）",
    "mixed": "混合精度（BF16 计算 + FP32 主权重）",
}
#: What each format is used for (the explainer page).
PRECISION_USES = {
    "fp32": "传统科学计算和模型的主权重；大模型训练很少整体用它，太占显存也太慢。",
    "bf16": "大模型训练和推理的主流格式：指数位和 FP32 一样多，不容易溢出。",
    "fp16": "推理和较早的混合精度训练；数值范围比 BF16 窄，训练时要做损失缩放。",
    "fp8": "Hopper 及更新的卡上的推理和部分训练，权重和算力都比 16 位省一半。",
    "int8": "量化推理：权重按 8 位存，显存减半，精度损失通常很小。",
    "int4": "量化推理（GPTQ、AWQ 等）：显存约为 16 位的四分之一，适合小显存跑大模型。",
    "mxfp4": "OCP 微缩放格式：每 32 个 4 位浮点数共用一个 8 位指数缩放（约 4.25 位/参数）；gpt-oss 官方权重只把 MoE 专家存成它，注意力和词嵌入仍是 BF16。",
    "nf4": "QLoRA 微调时底座模型的 4 位存储格式。",
    "q4_k_m": "llama.cpp / Ollama 常用的 4 位量化文件格式，适合本地部署。",
    "q8_0": "llama.cpp 的 8 位量化文件格式，几乎不掉精度。",
    "iq1_s": "unsloth 的 DeepSeek-R1 动态量化：MoE 专家按 IQ1_S（约 1.56 位），注意力和前几层稠密层留 4–6 位，只用 llama.cpp 跑；质量明显下降，适合卡少时试用。",
}
OPTIMIZER_NAMES = {"adamw": "AdamW 优化器", "adamw-8bit": "8 位 AdamW 优化器", "sgd": "SGD 优化器"}
VERDICT_CLASSES = {"成立": "holds", "部分成立": "partly", "不成立": "fails", "无法核实": "unknown"}
TREND_TOPIC_NAMES = {
    "export_controls": "出口管制",
    "memory": "显存",
    "domestic": "国产算力",
    "energy": "电力",
    "prices": "价格",
}

_PRECISION_WORD = re.compile(
    r"(?<![A-Za-z0-9_])(mixed 精度|fp32|bf16|fp16|fp8|int8|int4|mxfp4|nf4|q4_k_m|q8_0|iq1_s)(?![A-Za-z0-9_])"
)


def reader_text(text: str) -> str:
    """Engine sentences with precision field values in the words readers use
    ("mixed 精度" -> "混合精度（BF16 计算 + FP32 主权重）", "bf16" -> "BF16")."""

    def name(m: re.Match[str]) -> str:
        word = m.group(1)
        return PRECISION_NAMES["mixed"] if word == "mixed 精度" else PRECISION_NAMES[word].split("（")[0]

    text = text.replace("（PEFT prepare_model_for_kbit_training 会升为 fp32）", "（微调时会升为 FP32）")
    return _PRECISION_WORD.sub(name, text)


def reader_ids(text: str, names: dict[str, str]) -> str:
    """``text`` with the ids in ``names`` (GPU ids, delivery values) replaced by display names;
    longest ids first, whole words only, so "rtx-4090-48g" never half-matches "rtx-4090-4"."""
    if not names:
        return text
    # One pass, and the replacement is a function: a display name is data, never a pattern
    # (a backslash or ``\g<0>`` in it is text), and a name is never replaced again.
    ids = "|".join(re.escape(key) for key in sorted(names, key=len, reverse=True))
    pattern = re.compile(rf"(?<![A-Za-z0-9_.-])(?:{ids})(?![A-Za-z0-9_.-])")
    return pattern.sub(lambda m: names[m.group(0)], text)


def variant(options: Sequence[str], key: str) -> str:
    """One of ``options`` chosen by ``key`` (a page id): the same page always gets the same
    wording, and a sentence that every page of a kind carries does not read word for word
    the same on all of them."""
    return options[zlib.crc32(key.encode("utf-8")) % len(options)]


#: Roles of an image model's parts (models.yaml components[].role).
COMPONENT_ROLE_NAMES = {
    "unet": "去噪网络（UNet）",
    "transformer": "去噪网络（Transformer）",
    "text_encoder": "文本编码器",
    "vae": "VAE 图像解码器",
}
