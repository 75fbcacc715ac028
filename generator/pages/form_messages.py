"""The calculator's form errors in the reader's words: the tables its JavaScript formats from.

The calculator checks its fields in the browser (``docs/javascripts/engine/workload.js``, the
shape checks of ``arch.js`` and the ``config.json`` reader ``hfconfig.js``). Those modules build
``{kind, params}`` records, never sentences; ``docs/javascripts/messages.js`` words them with
these tables, which the calculator's JSON carries next to the reason and exclusion tables of
:mod:`generator.pages.messages`. A parameter may be a nested record that names its own table
(``{"table": "field", "kind": "layers"}`` for a field's name). Figures are passed as strings, as
the reader typed them. The command line's errors are argparse's, in English.
"""

from __future__ import annotations

#: Errors of the calculator's fields and of the config.json reader, by kind.
FORM_ZH: dict[str, str] = {
    # a field's text (workload.js checkNumber, parseFlags)
    "not_whole": "{field}要填整数，现在是“{text}”",
    "not_number": "{field}要填一个数字，现在是“{text}”",
    "not_finite": "{field}要填有限的数字，现在是“{text}”",
    "not_above": "{field}必须大于 {low}，现在是 {value}",
    "below": "{field}必须至少为 {low}，现在是 {value}",
    "above": "{field}不能超过 {high}，现在是 {value}",
    "repeated": "{field}在链接里出现了两次",
    "unknown_choice": "{field}不认识“{text}”",
    "no_model": "请选一个模型",
    "unknown_billing": "计费方式不认识“{text}”",
    "bad_switch": "开关“{flag}”只能是 1 或 0",
    "both_ways": "{field}的开和关只能选一个",
    "no_workload": "请选择用法",
    "model_or_params": "请选一个模型，或填参数量",
    "model_and_params": "模型和参数量只能选一种",
    # the model's shape (workload.js arch, arch.js shapeProblem)
    "shape_with_model": "{field}只用于按参数量描述的模型；选了数据中的模型就用它自己的结构",
    "unknown_model": "数据中没有模型“{model}”",
    "moe_without_experts": "每个 token 用的专家数和激活参数量只用于混合专家模型：请填专家数",
    "active_over_total": "激活参数量（{active}B）不能多于总参数量（{total}B）",
    "rope_without_mla": "MLA 旋转位置维度只用于多头潜在注意力：请同时填 MLA 潜在维度",
    "linear_pair": "线性注意力层数和它的状态大小要一起填",
    "dense_without_experts": "稠密层数和共享专家数只用于混合专家模型：请填专家数",
    "part_of_layers": "{field}是总层数中的一部分：请填层数",
    "kv_over_heads": "KV 头数（{kv_heads}）不能多于注意力头数（{heads}）：没有这样的模型",
    "heads_not_shared": "注意力头数（{heads}）要能被 KV 头数（{kv_heads}）整除：每个 KV 头由同样多的查询头共用",
    "hidden_not_heads": "隐藏维度 {hidden} 不能被注意力头数 {heads} 整除：请填每头维度（config.json 的 head_dim）",
    "experts_per_token_over": "每个 token 用的专家数（{k}）不能多于专家数（{experts}）",
    "window_size_missing": "填了滑动窗口层数，还要填窗口大小",
    "window_linear_over_layers": "滑动窗口层（{window_layers}）加线性注意力层（{linear_layers}）多于总层数（{layers}）",
    "linear_all_layers": "线性注意力层（{linear_layers}）不能占满全部 {layers} 层",
    "dense_all_layers": "稠密层（{dense_layers}）不能占满全部 {layers} 层：那就不是混合专家模型了",
    # the request (workload.js servingLengths, buildRequest, recommendResult)
    "lengths_not_serving": "提示和输出长度只用于语言模型的推理服务",
    "context_mismatch": "上下文 {context} 不等于提示 + 输出（{total}）：只填其中一种",
    "prompt_fills_context": (
        "提示 {prompt} token 占满了 {context} token 的上下文，没有留给输出的位置：填输出长度或加大上下文"
    ),
    "output_over_context": "输出长度 {output} 必须小于上下文（{context} token）",
    # generator/engine/limits.py context_limit (workload.js contextLimit)
    "context_over_model": "上下文 {context} token 超过了这个模型支持的长度：它的 {key} 是 {limit} token",
    "image_training": "图像模型只计算生成图像（推理），不计算训练",
    "image_context": "上下文长度只用于语言模型；图像模型看分辨率",
    "runtime_not_llm": "推理框架只用于语言模型推理",
    "image_only_memory": "分辨率和 CPU 卸载只用于图像模型",
    "image_only_volume": "去噪步数和每月出图量只用于图像模型",
    "no_prompt": "输出长度必须小于上下文：提示至少要有 1 个 token",
    "training_precision": "全参训练和预训练只支持 {precisions}",
    "billing_not_ranked": "{tier}价格只展示、不参与排名；可选：{tiers}",
    # config.json (hfconfig.js)
    "config_key": "{key}：{reason}",
    "config_not_json": "这不是合法的 JSON：请粘贴模型仓库里 config.json 的全部内容",
    "config_not_object": "应该是一个 { … } 对象",
    "config_not_positive": "应该是正整数，现在是 {value}",
    "config_negative": "应该是非负整数，现在是 {value}",
    "config_missing": "config.json 里没有 {key}（{what}），读不出模型结构：请改填参数量",
    "config_unsupported": "这个模型用了{what}，本站的公式算不准它的结构：请改填参数量",
    "config_layer_types": "列了 {listed} 层，num_hidden_layers 是 {layers}",
    "config_hidden_not_heads": "hidden_size {hidden} 不能被注意力头数 {heads} 整除",
    "config_needs_experts_per_token": "混合专家模型需要 num_experts_per_tok（每个 token 用的专家数）",
    "config_experts_per_token_over": "{k} 不能多于专家数（{experts}）",
    "config_no_expert_width": "没有给出单个专家的 MLP 宽度",
    "config_no_dense_width": "没有给出稠密层的 MLP 宽度",
    "config_dense_all_layers": "{dense_layers} 个稠密层占满了全部 {layers} 层",
    "config_text_config": "读取了 text_config（多模态模型的语言部分，视觉编码器未计入）。",
    "config_text_and_vision": "读取了 text_config（多模态模型的语言部分）和 vision_config（视觉编码器，已计入参数量）。",
}

#: The name of each calculator field (the flags of ``gpu-guide recommend``), as messages say it.
FIELD_ZH: dict[str, str] = {
    "workload": "用法",
    "model": "模型",
    "params": "参数量",
    "layers": "层数",
    "hidden": "隐藏维度",
    "heads": "注意力头数",
    "kv-heads": "KV 头数",
    "vocab": "词表大小",
    "intermediate": "MLP 中间维度",
    "head-dim": "每头维度",
    "experts": "专家数",
    "experts-per-token": "每个 token 用的专家数",
    "active-params": "激活参数量",
    "kv-lora-rank": "MLA 潜在维度",
    "qk-rope-head-dim": "MLA 旋转位置维度",
    "sliding-window": "滑动窗口（token）",
    "max-context": "模型最长上下文",
    "window-layers": "滑动窗口层数",
    "linear-layers": "线性注意力层数",
    "linear-state": "线性注意力状态（每层每条序列）",
    "dense-layers": "前几层稠密层数",
    "shared-experts": "共享专家数",
    "precision": "精度",
    "kv-precision": "KV 缓存精度",
    "batch": "并发数 / 批大小",
    "context": "上下文长度",
    "grad-checkpointing": "梯度检查点",
    "optimizer": "优化器",
    "lora-rank": "LoRA 秩",
    "zero-stage": "ZeRO 阶段",
    "prompt-tokens": "提示长度",
    "output-tokens": "输出长度",
    "resolution": "分辨率",
    "offload": "CPU 卸载",
    "runtime": "推理框架",
    "budget": "月预算",
    "hours-per-month": "每月使用小时",
    "job-tokens": "任务 token 数",
    "deadline-days": "完成期限",
    "disk-gb": "数据盘",
    "egress-gb": "出站流量",
    "public-ip": "公网 IP",
    "billing": "计费方式",
    "tied-embeddings": "共享词嵌入",
    "require-cuda": "只看 NVIDIA（CUDA）",
    "domestic-only": "只看国产加速卡",
    "steps": "去噪步数",
    "images-per-month": "每月出图量",
}

#: What a config.json key holds, for the reader's "missing" and "not supported" messages.
CONFIG_PART_ZH: dict[str, str] = {
    "vision_depth": "视觉编码器层数",
    "vision_width": "视觉编码器宽度",
    "vision_mlp": "视觉编码器 MLP 宽度",
    "merger_out": "合并层输出宽度",
    "vision_image": "视觉输入尺寸",
    "vision_patch": "视觉 patch 尺寸",
    "projector_in": "像素重排 MLP 宽度",
    "projector_out": "像素重排 MLP 输出宽度",
    "vision_output": "投影层输入宽度",
    "text_width": "语言模型宽度",
    "linear_key_heads": "线性注意力的键头数",
    "linear_value_heads": "线性注意力的值头数",
    "linear_key_dim": "线性注意力的键维度",
    "linear_value_dim": "线性注意力的值维度",
    "mamba": "Mamba 状态空间层",
    "ssm": "状态空间层",
    "nemotron_h": "混合 Mamba 层（Nemotron-H）",
    "jamba": "Jamba 的 Mamba 层",
}


def form_messages_json() -> dict[str, dict[str, str]]:
    """The tables as the calculator's JSON carries them, beside ``messages_json()``'s."""
    return {"form": dict(FORM_ZH), "field": dict(FIELD_ZH), "config_part": dict(CONFIG_PART_ZH)}
