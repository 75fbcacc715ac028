"""Chinese display names for the enums and figures, shared by every page and the calculator."""

from __future__ import annotations

from generator.data.records import GpuFigure

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
#: Roles of an image model's parts (models.yaml components[].role).
COMPONENT_ROLE_NAMES = {
    "unet": "去噪网络（UNet）",
    "transformer": "去噪网络（Transformer）",
    "text_encoder": "文本编码器",
    "vae": "VAE 图像解码器",
}
