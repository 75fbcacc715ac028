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
from enum import StrEnum
from typing import Any

from generator.engine.exclusion import Exclusion, ExclusionKind
from generator.engine.reason import Param, Reason, ReasonKind, Record
from generator.engine.recommend import Option
from generator.engine.request import Assumption
from generator.pages.names import BILLING_NAMES

#: Chinese messages for every exclusion kind.
EXCLUSION_ZH: dict[ExclusionKind, str] = {
    ExclusionKind.not_domestic: "不满足国产化要求",
    ExclusionKind.needs_cuda: "按依赖 CUDA 的代码计算：这张卡要把代码迁移到厂商自己的软件栈才能用",
    ExclusionKind.too_big: "即使用到 {max_cards} 张卡，每张卡的显存也不够",
    ExclusionKind.video_does_not_fit: (
        "视频生成的显存峰值即使开启 --offload_model 和 --t5_cpu 也至少约 {peak_gib} GiB（最多按 {cards} 张卡序列并行），"
        "超过每张卡可用的 {usable_gib} GiB"
    ),
    ExclusionKind.video_no_tensor_figure: "没有这张卡的 BF16/FP16 稠密算力数字，无法估算视频生成时间",
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
        "租 {instances} 台 {server_cards} 卡服务器（共 {cards_billed} 张卡），机间用平台提供的{fabric}组成集群"
    ),
    ReasonKind.idle_cards: "报价按整机 {cards_billed} 张卡计费，其中 {idle_cards} 张闲置也要付钱",
    ReasonKind.replicas: "租用的 {cards_billed} 张卡同时跑 {replicas} 份模型副本",
    ReasonKind.whole_machine: "报价按整机 {cards_billed} 张卡计费，任务用满整机的 {cards_used} 张卡，跑得更快",
    ReasonKind.job: "参照任务在 {cards} 张卡上约 {hours} 小时完成，租金约 {rent}[（{minimum}）]",
    ReasonKind.faster: "租 {cards} 张卡（{provider}）租金约 {rent}，差不多一样贵，约 {hours} 小时就能跑完",
    ReasonKind.serving_load: (
        "按 {batch} 路并发（每个请求提示 {prompt_tokens} + 输出 {output_tokens} token）[、{copies} 份副本]："
        "首 token 约 {ttft_s} 秒，每个用户每秒约 {user_tokens_per_s} 个输出 token，合计每秒约 {tokens_per_s} token，"
        "每百万 token（提示与输出合计，只计 GPU 租金）约 {cost}[；{launch}]"
    ),
    ReasonKind.serving_capacity: (
        "满载时按{limit}允许的 {concurrency} 路并发[、{replicas} 份副本]每秒约处理 {tokens_per_s} token，每百万 token 约 {cost}"
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
    ReasonKind.link_nvswitch: "卡间 {link} 经 NVSwitch 全互联[，每卡 {gbps} GB/s]",
    ReasonKind.link_all_to_all: "卡间 {link} 点对点全互联（每两张卡之间一条直连链路）[，每卡合计 {gbps} GB/s]",
    ReasonKind.link_cube_mesh: (
        "卡间 {link} 为 hybrid cube-mesh 拓扑：每张卡只与另外 4 张卡直连，并非任意两卡直连[，每卡合计 {gbps} GB/s]"
    ),
    ReasonKind.link_bridged: "两张卡用 {link} 桥接[，每卡 {gbps} GB/s]",
    ReasonKind.link_bridged_pairs: "{link} 只能两两桥接，桥接对之间走 PCIe {pcie_gen}.0",
    ReasonKind.link_multi_node: ("{nodes} 台服务器、每台 {node_cards} 张卡：台内{inner}，台与台之间走{fabric}"),
    ReasonKind.fabric_infiniband: "InfiniBand 网络[（每卡 {gbit} Gb/s）]",
    ReasonKind.fabric_roce: "RoCE 网络[（每卡 {gbit} Gb/s）]",
    ReasonKind.fabric_efa: "AWS EFA（Elastic Fabric Adapter）网络[（每卡 {gbit} Gb/s）]",
    ReasonKind.fabric_assumed: "机间网络（未指定平台，速度按{fabric}估算）",
    ReasonKind.fabric_any: "平台提供的机间高速网络",
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
        "并发数取{limit}允许的 {concurrency} 路[；{launch}][；空闲时单个请求的首 token 延迟约 {ttft_ms} ms]。"
    ),
    ReasonKind.image_speed: (
        "出图速度：{resolution}×{resolution}、{steps} 步、{passes}，单卡每张约 {seconds} 秒（每小时约 {per_hour} 张）；"
        "按去噪参数 × 潜空间 token 数估算计算量，效率按公开的 SDXL / FLUX.1 实测校准，未计 torch.compile、TensorRT 等加速与批量出图"
    ),
    ReasonKind.video_speed: (
        "视频生成：{width}×{height}、{frames} 帧（{tokens} 个潜空间 token）、{steps} 步、{passes}，"
        "{cards} 张卡每段约 {seconds} 秒；自注意力约占计算量的 {attention_share}，"
        "效率按 Wan2.1 官方表格（A100）校准[，多卡按序列并行 {scaling} 倍加速]"
    ),
    ReasonKind.video_memory: "每张卡显存峰值约 {peak_gib} GiB，出现在{phase}阶段[（{offload}）]",
    ReasonKind.video_cost: "每段视频租金约 {cost}，每分钟成片约 {cost_per_minute}（只计 GPU 租金）",
    ReasonKind.video_phase_text: "文本编码（umt5-xxl）",
    ReasonKind.video_phase_denoise: "去噪（DiT）",
    ReasonKind.video_phase_decode: "VAE 解码",
    ReasonKind.video_offload_model: "DiT 与文本编码器只在各自的阶段放进显卡",
    ReasonKind.video_offload_t5: "文本编码器在 CPU 上运行",
    ReasonKind.video_offload_both: "DiT 只在去噪时放进显卡，文本编码器在 CPU 上运行",
    ReasonKind.video_needs_offload: (
        "全部常驻显存时每张卡约 {plain_gib} GiB，超过可用的 {usable_gib} GiB，要用 Wan 官方脚本的卸载选项才装得下"
        "（{offload}）；卸载的搬运时间没有单独计入：计算效率按官方开了 --offload_model 的单卡 A100 实测校准，"
        "已含那张卡上的搬运，PCIe 更慢的卡上未经确认（UNCONFIRMED）[；{cpu_text}]"
    ),
    ReasonKind.video_t5_cpu_time: "--t5_cpu 时文本编码器在 CPU 上编码提示的用时未计入（UNCONFIRMED）",
    ReasonKind.editor_gpu: "编辑推荐 {editor}[（{excluded}）]，计算结果为 {computed}",
    ReasonKind.editor_delivery: "编辑推荐交付形式 {editor}，规则给出 {rule}（{why}）",
    ReasonKind.limit_engine_cap: "这张卡上 vLLM 的默认并发上限（max_num_seqs）",
    ReasonKind.limit_max_slots: "llama.cpp 一个上下文的序列上限（LLAMA_MAX_SEQ）",
    ReasonKind.limit_static_batch: "transformers generate() 的静态批（没有请求调度，并发就是设定的批大小）",
    ReasonKind.launch_slots: (
        "llama-server 不加 --parallel 只开 {default} 个槽位（共用 -c 的上下文），"
        "按 --parallel {slots} -c {ctx} 启动才能同时处理这么多路（每个槽位 {context} token）"
    ),
    ReasonKind.limit_kv_cache: "显存能放下的 KV 缓存",
    ReasonKind.denoise_cfg: "每步两次去噪（CFG：正向、负向提示各一次）",
    ReasonKind.denoise_distilled: "每步一次去噪（引导蒸馏模型）",
    ReasonKind.minimum_months: "按月计费，至少付满 {months} 个月",
    ReasonKind.minimum_days: "按天计费，至少付满 {days} 天",
}

#: Chinese messages for the assumptions behind the memory and speed estimates (their own block of
#: REASON_ZH: engine.training_memory, engine.inference_memory, engine.speed).
ESTIMATE_ZH: dict[ReasonKind, str] = {
    ReasonKind.recipe_full: (
        "全参训练，{precision} 精度：每个参数权重 {weight_bytes} 字节、梯度 {grad_bytes} 字节、优化器状态 {state_bytes} 字节"
        "[，另有自动混合精度保存的 {autocast_bytes} 字节半精度权重副本（计入临时缓冲）]。"
    ),
    ReasonKind.recipe_adapter: (
        "{base}；适配器 rank {rank}，约 {adapter_millions}M 个参数，fp32 存储，"
        "每个适配器参数权重 {adapter_bytes} + 梯度 {adapter_bytes} + 优化器状态 {state_bytes} 字节；底座没有梯度和优化器状态。"
    ),
    ReasonKind.base_qlora: (
        "QLoRA：底座线性层按 {format} 存储（约 {bits} 位/参数），"
        "词嵌入和输出层按 {embedding_bits} 位（PEFT prepare_model_for_kbit_training 会升为 fp32），计算精度 {compute}"
    ),
    ReasonKind.base_mixed: "LoRA：底座为 fp32 权重，在自动混合精度下训练",
    ReasonKind.base_frozen: "LoRA：冻结的底座按 {format} 存储（约 {bits} 位/参数）",
    ReasonKind.optimizer_adamw: "优化器为 PyTorch AdamW（默认 foreach 实现，step 时多占一份与状态同精度的临时显存）。",
    ReasonKind.optimizer_adamw_8bit: "优化器为 bitsandbytes 8 位 AdamW（每个参数 2 字节状态）。",
    ReasonKind.optimizer_sgd: "优化器为 SGD（无动量，不占状态显存）。",
    ReasonKind.optimizer_zero_fused: "优化器为 AdamW；DeepSpeed ZeRO 用 FusedAdam 原地更新，step 时不另占临时显存。",
    ReasonKind.checkpointing_on: "开启梯度检查点：每层只保存输入，反向时逐层重算（计算量约增加三分之一）。",
    ReasonKind.checkpointing_off: "不开启梯度检查点：每层的中间结果都保存到反向传播。",
    ReasonKind.micro_batch: (
        "每张卡每步处理 {batch} 条 × {context} token；激活按这张卡自己的微批次计算，不随卡数分摊。"
    ),
    ReasonKind.zero_sharded: "{cards} 张卡数据并行，ZeRO-{stage} 把{states}平均分到各卡（DeepSpeed 混合精度布局）。",
    ReasonKind.zero_none: "{cards} 张卡数据并行但不用 ZeRO：每张卡都存一整份模型状态，多卡不省显存。",
    ReasonKind.zero_states_1: "优化器状态",
    ReasonKind.zero_states_2: "优化器状态和梯度",
    ReasonKind.zero_states_3: "优化器状态、梯度和权重",
    ReasonKind.gradients_late: (
        "不用 ZeRO 时梯度在反向传播中才逐层分配（zero_grad(set_to_none=True)），峰值时刻还没有梯度，表中梯度为 0。"
    ),
    ReasonKind.peak_phase: (
        "峰值出现在{phase}阶段，约 {peak_gib} GiB；{other}阶段约 {other_gib} GiB。表中分项是峰值时刻的占用。"
    ),
    ReasonKind.phase_forward_backward: "前向/反向传播",
    ReasonKind.phase_optimizer_step: "优化器更新（step）",
    ReasonKind.transient_autocast: "自动混合精度保存的半精度权重副本",
    ReasonKind.transient_dequant: "4 位权重反量化成 16 位的临时副本",
    ReasonKind.transient_step: "优化器更新（step）时的临时张量",
    ReasonKind.transient_zero3_gather: "ZeRO-3 参数收集缓冲",
    ReasonKind.transient_zero_reduce: "ZeRO 梯度归约缓冲",
    ReasonKind.weights_format: (
        "权重按 {precision} 存储，约 {bits} 位/参数[{embeddings16}][；MoE 模型的全部 {experts} 个专家都要放进显存]。"
    ),
    ReasonKind.embeddings_16bit: "（词嵌入和输出层保持 16 位）",
    ReasonKind.kv_cache: (
        "KV 缓存按 {kv_precision} 存储，每个 token 每卡约 {kib} KiB，按 {batch} 路并发 × {context} token 上下文预留"
        "[{mla}][{window}][{linear}]。"
    ),
    ReasonKind.kv_mla: (
        "；多头潜在注意力（MLA）每层每个 token 只缓存 {kv_lora_rank} + {rope_dim} 个值"
        "（vLLM / SGLang 的 MLA 布局，张量并行的每张卡各存一份）"
    ),
    ReasonKind.kv_window: (
        "；{attention_layers} 个注意力层中 {window_layers} 个只看最近 {window} 个 token，KV 缓存按窗口封顶"
    ),
    ReasonKind.kv_linear: "；{linear_layers} 个线性注意力层不存 KV，每条序列各存固定大小的状态",
    ReasonKind.parallelism: "{cards} 张卡按张量并行 {tp} 路[、流水线 {pp} 段]切分模型。",
    ReasonKind.parallelism_layers: (
        "{runtime} 把 {cards} 张卡按层切分模型（不是张量并行）：每张卡放约 {layers} 层的权重和这些层的 KV 缓存。"
    ),
    ReasonKind.prefill_chunked: (
        "预填充分块进行：{runtime} 每步最多处理 {chunk} 个 token（{setting}），"
        "{batch} 条 × {context} token 分几步处理完，临时张量按一步中单层最大的计；{logits}。"
    ),
    ReasonKind.prefill_whole: ("预填充按 {batch} 条 × {context} token 一次处理，计入单层最大的临时张量；{logits}。"),
    ReasonKind.logits_runtime: "{allocates}",
    ReasonKind.logits_all_tokens: (
        "按为每个提示 token 都保留 logits 的推理方式（如直接对整段提示做前向）计算，logits 单独占一大块"
    ),
    ReasonKind.logits_last_token: "预填充只为每条序列的最后一个 token 计算 logits",
    ReasonKind.diffusion: (
        "图像生成：{where}，权重按 {precision} 存储；每次生成 {images} 张 {resolution}×{resolution} 的图，"
        "去噪网络每步对每张图计算 {passes} 次{guidance}。峰值阶段：{peak}。"
    ),
    ReasonKind.offload_none: "全部组件常驻显存",
    ReasonKind.offload_model: (
        "开启模型 CPU 卸载（diffusers enable_model_cpu_offload），同一时刻只有正在工作的组件在显存中"
    ),
    ReasonKind.guidance_cfg: "（含无分类器引导的负向提示）",
    ReasonKind.guidance_distilled: "（引导蒸馏模型，无负向提示）",
    ReasonKind.phase_text_encoder: "文本编码",
    ReasonKind.phase_denoiser: "去噪",
    ReasonKind.phase_vae: "VAE 解码",
    ReasonKind.vae_upcast: (
        "fp16 下 diffusers 会把这个 VAE 升为 fp32 再解码（防止溢出），解码时它的权重和中间结果按 fp32 计。"
    ),
    ReasonKind.component: "{name}（{role}，{params_b}B 参数）",
    ReasonKind.role_denoiser: "去噪网络",
    ReasonKind.role_text_encoder: "文本编码器",
    ReasonKind.role_vae: "图像解码器",
    ReasonKind.train_flops_full: (
        "训练计算量按模型 FLOPs 计：每个 token 约 6 倍参数量（前向 + 反向）加注意力，共约 {flops} FLOPs；"
        "梯度检查点的重算不算模型 FLOPs，已含在实测 MFU 里。"
    ),
    ReasonKind.train_flops_adapter: (
        "训练计算量按模型 FLOPs 计：每个 token 约 4 倍参数量（LoRA 的底座只算激活梯度）加注意力，共约 {flops} FLOPs；"
        "梯度检查点的重算不算模型 FLOPs，已含在实测 MFU 里。"
    ),
    ReasonKind.mfu: (
        "{gpu} 稠密 16 位算力 {tflops} TFLOPS[{peak_unconfirmed}]，算力利用率（MFU）按 {mfu} 计[{mfu_unconfirmed}]："
        "{basis}。不假设使用 FP8。"
    ),
    ReasonKind.peak_unconfirmed: "（厂商数据表未确认）",
    ReasonKind.mfu_unconfirmed: "（未经公开数据确认的保守假设）",
    ReasonKind.scaling: "{cards} 张卡，{link}，多卡扩展效率按 {efficiency} 计[；{slower_fabric}]。",
    ReasonKind.fabric_slower: (
        "机间网络每卡约 {gbit} Gb/s，低于这一效率所依据的公开运行（每卡 {published} Gb/s），"
        "多机效率是外推，本站未计入网络更慢的损失，实际可能更低"
    ),
    ReasonKind.goodput: (
        "租用时间里约 {goodput} 真正在训练，其余耗在故障重启和保存检查点上"
        "（Meta 报告 Llama 3 405B 训练的有效训练时间在 90% 以上）。"
    ),
    ReasonKind.finetune: (
        "微调按 Hugging Face Trainer / PEFT 的实测计：每个微批次（{batch} × {context} token）另有约 "
        "{overhead_s} 秒的固定开销[{dequant}]{checkpointing}（按 Qwen 公布的单卡 A100 微调速度表校准）。"
    ),
    ReasonKind.finetune_dequant: "，QLoRA 每个微批次还要把 4 位底座权重反量化 {passes} 遍（约 {seconds} 秒）",
    ReasonKind.finetune_recompute: "；开启梯度检查点，前向要重算一遍",
    ReasonKind.finetune_no_recompute: "；不开梯度检查点，不重算前向",
    ReasonKind.decode_bandwidth: (
        "每生成一步要把权重和 KV 缓存读一遍；按显存带宽 {bandwidth_gbps} GB/s 的 {efficiency} 计，"
        "另加每步约 {overhead_ms} ms 的调度和采样开销。"
    ),
    ReasonKind.decode_batch: "{batch} 路并发、每路上下文 {context} token；瓶颈是{bound}。",
    ReasonKind.bound_memory: "显存带宽（读权重）",
    ReasonKind.bound_compute: "算力",
    ReasonKind.bound_dequant: "反量化计算",
    ReasonKind.bound_kv: "读 KV 缓存",
    ReasonKind.bound_host: "主机逐层发起内核的速度",
    ReasonKind.decode_dequant: (
        "{precision} 是只量化权重的格式：每一步都要在 CUDA 核心上把权重反量化回 16 位，"
        "FP32 算力少的卡（如 A100）受它限制，提速远小于权重缩小的倍数。"
    ),
    ReasonKind.decode_parallel: (
        "{cards} 张卡切分模型（张量并行 {tp} 路[、流水线 {pp} 段]，{link}）：每层两次 all-reduce，每步通信约 {comm_ms} ms。"
    ),
    ReasonKind.decode_layer_split: (
        "{runtime} 把 {cards} 张卡按层切分：各卡依次算自己那几层，同一时刻只有一张卡在工作，"
        "所以多卡只多了显存，速度与一张卡读完全部权重相当。"
    ),
    ReasonKind.decode_runtime: (
        "{runtime} 不用 CUDA Graph，每步由 Python 逐层发起内核，约每层 {host_ms} ms，一步不会快于 {floor_ms} ms；"
        "KV 缓存每步要拼接、收集后再读，按读一遍的 {kv_traffic} 倍计。"
    ),
    ReasonKind.decode_expert_dispatch: (
        "{runtime} 在主机上分派 MoE 专家：每层先把路由结果拷回主机并同步，再为每个选中的专家单独发起矩阵乘，"
        "约每个专家 {us} 微秒；{layers} 个 MoE 层、每层约 {experts} 个专家，每步多约 {dispatch_ms} ms（按公开实测校准）。"
    ),
}
REASON_ZH.update(ESTIMATE_ZH)

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


#: The message tables by :attr:`Record.table <generator.engine.reason.Record.table>`, as
#: ``messages_json()`` ships them and ``messages.js``'s ``explain`` looks them up.
TABLES_ZH: dict[str, Mapping[Any, str]] = {Exclusion.table: EXCLUSION_ZH, Reason.table: REASON_ZH}


def explain(record: Record[StrEnum]) -> str:
    """A record (an exclusion or a reason) in the reader's words, from its table."""
    return fill(TABLES_ZH[record.table][record.kind], record.params)


#: The editor's notice in ``check`` when a scenario's ``editor_pick`` differs from the rules'
#: (English, as every check message; nested records in the reader's words, as the page says them).
EDITOR_NOTICE_EN: dict[ReasonKind, str] = {
    ReasonKind.editor_gpu: "the editor picked {editor}, the rules pick {computed}[ ({editor} is out: {excluded})]",
    ReasonKind.editor_delivery: "the editor picked {editor} delivery, the rules give {rule} ({why})",
}


def editor_notice(disagreement: tuple[Reason, ...]) -> str:
    """The ``check`` notice for an editor's pick the rules disagree with, as one plain sentence."""
    parts = "; ".join(fill(EDITOR_NOTICE_EN[r.kind], r.params) for r in disagreement)
    return f"{parts}; the page shows the rules' pick and why"


#: the prefix every video-generation kind's value has (ReasonKind.video_*, ExclusionKind.video_*)
VIDEO_PREFIX = "video_"


def messages_json(*, video: bool = True) -> dict[str, dict[str, str]]:
    """The tables as the calculator's JSON carries them: ``{"exclusion": {kind: template}, "reason": …}``.

    ``video=False`` leaves out the video-generation kinds: the calculator has no video workload (video
    models are planned on their own pages), so its page, which is at its byte budget, does not carry them."""
    return {
        table: {k.value: v for k, v in words.items() if video or not k.value.startswith(VIDEO_PREFIX)}
        for table, words in TABLES_ZH.items()
    }


def assumption_text(a: Assumption) -> str:
    """An estimate's assumption in words (its record's message)."""
    return explain(a.message)


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
