"""Training efficiency across nodes: total GPUs, GPUs per node and the fabric between nodes.

The platform MFUs (rules.yaml ``speed.training.platforms``) come from runs of thousands of GPUs,
so inside a node (NVLink) and across nodes up to those runs' size nothing more is lost. Beyond
``reference_gpus`` each doubling of the GPU count keeps ``per_doubling`` of the speed, from a
published pair of runs on that fabric class (``speed.scaling.fabrics``: InfiniBand from NVIDIA's
MLPerf Training v3.1 GPT-3 runs, RoCE from Meta's Llama 3 405B runs). ``none`` (no scale-out
fabric) runs on one node only. A fabric slower per GPU than the published runs is not modelled:
the result says it is an extrapolation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from generator.data.rules import ScalingRules

Fabric = Literal["none", "roce", "infiniband"]


@dataclass(frozen=True)
class NodeScaling:
    """Share of linear speed-up a job keeps across nodes."""

    efficiency: float
    nodes: int
    extrapolated: bool  # the fabric is slower per GPU than the runs the figure comes from


def node_scaling(
    total_gpus: int, gpus_per_node: int, fabric: Fabric, gbps_per_gpu: float | None, rules: ScalingRules
) -> NodeScaling:
    """Efficiency of ``total_gpus`` GPUs in nodes of ``gpus_per_node`` over ``fabric`` (``gbps_per_gpu``
    GB/s of scale-out bandwidth per GPU; None: as the published runs)."""
    if total_gpus < 1 or gpus_per_node < 1:
        raise ValueError("total_gpus and gpus_per_node must be at least 1")
    nodes = math.ceil(total_gpus / gpus_per_node)
    if nodes == 1:
        return NodeScaling(1.0, 1, False)
    if fabric == "none":
        raise ValueError(f"{total_gpus} GPUs need {nodes} nodes, and there is no fabric between nodes")
    f = rules.fabrics[fabric]
    doublings = max(0.0, math.log2(total_gpus / f.reference_gpus))
    slower = gbps_per_gpu is not None and gbps_per_gpu < f.published_gbps_per_gpu
    return NodeScaling(f.per_doubling**doublings, nodes, slower)
