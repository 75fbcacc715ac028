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


def delivery_form(workload: Workload, cards: int, rules: DeliveryRules) -> tuple[Delivery, str]:
    """The delivery form for ``cards`` cards of this workload, with the reason in Chinese."""
    training = workload is not Workload.inference
    if training and cards >= rules.bare_metal_min_training_cards:
        return Delivery.bare_metal, f"{cards} 卡训练需要 NVLink 等卡间高速互联和整机独享，选裸金属"
    if training:
        return Delivery.container, "单卡训练用不到卡间互联，容器实例秒级启停、可按小时计费"
    return Delivery.container, "推理服务选容器实例，便于弹性扩缩容、按需计费"
