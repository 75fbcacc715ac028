"""Step 3 of the decision: container or bare metal.

The rule, from the seed article and kept tunable in ``rules.yaml``: training that
needs several cards needs the cards' scale-up link (NVLink or equivalent) and a
whole machine, which only bare metal gives; everything else (inference, development,
single-card fine-tuning) runs in a container that starts in seconds and bills by
the hour.
"""

from __future__ import annotations

from generator.data.records import Delivery, Workload
from generator.data.rules import DeliveryRules


def delivery_form(
    workload: Workload, cards: int, rules: DeliveryRules, data_parallel: bool = False
) -> tuple[Delivery, str]:
    """The delivery form for ``cards`` cards of this workload, with the reason in Chinese.

    ``data_parallel``: adapter training (LoRA / QLoRA), where more cards all-reduce only the adapters'
    gradients (a base too big for one card is sharded and gathered, slower over PCIe) and need no
    scale-up link: the rule is for full-parameter sharded training.
    """
    training = workload is not Workload.inference
    if training and data_parallel:
        return (
            Delivery.container,
            "LoRA 类训练底座冻结：多卡时只同步适配器梯度（底座一张卡放不下时分片到各卡，走 PCIe 更慢），不需要 NVLink，容器实例即可、按小时计费",
        )
    if training and cards >= rules.bare_metal_min_training_cards:
        return Delivery.bare_metal, f"{cards} 卡训练需要 NVLink 等卡间高速互联和整机独享，选裸金属"
    if training:
        return Delivery.container, "单卡训练用不到卡间互联，容器实例秒级启停、可按小时计费"
    return Delivery.container, "推理服务选容器实例，便于弹性扩缩容、按需计费"
