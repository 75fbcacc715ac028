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
from generator.engine.reason import Reason, ReasonKind


def delivery_form(
    workload: Workload, cards: int, rules: DeliveryRules, data_parallel: bool = False
) -> tuple[Delivery, Reason]:
    """The delivery form for ``cards`` cards of this workload, with its reason (a record).

    ``data_parallel``: adapter training that fits one card, where more cards all-reduce only the
    adapters' gradients and need no scale-up link (the rule is for sharded training).
    """
    training = workload is not Workload.inference
    if training and data_parallel:
        return Delivery.container, Reason(ReasonKind.delivery_adapter)
    if training and cards >= rules.bare_metal_min_training_cards:
        return Delivery.bare_metal, Reason(ReasonKind.delivery_sharded, {"cards": cards})
    if training:
        return Delivery.container, Reason(ReasonKind.delivery_single)
    return Delivery.container, Reason(ReasonKind.delivery_serving)
