"""Training efficiency across nodes: total GPUs, GPUs per node and the fabric between nodes.

A platform's MFU (rules.yaml ``speed.training.platforms``) comes from a published run of a known
size (``measured_gpus``: BLOOM's 384 A100, Llama 3's 16,384 H100 ...), so its scale-out loss up to
that size is already in the figure: nothing more is lost there. Beyond it each doubling of the GPU
count keeps ``per_doubling`` of the speed, from a published pair of runs on that fabric class
(``speed.scaling.fabrics``: InfiniBand from NVIDIA's MLPerf Training v3.1 GPT-3 runs, RoCE from
Meta's Llama 3 405B runs, EFA a marked assumption). ``none`` (no scale-out fabric) runs on one
node only. A fabric slower per GPU than the published runs is not modelled: the result says it is
an extrapolation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from generator.data import records
from generator.data.rules import ScalingRules
from generator.engine.units import BITS_PER_BYTE

Fabric = Literal["none", "roce", "infiniband", "efa"]

#: providers.yaml's fabric kinds in the engine's terms.
_KIND: dict[records.FabricKind, Fabric] = {
    records.FabricKind.none: "none",
    records.FabricKind.infiniband: "infiniband",
    records.FabricKind.roce: "roce",
    records.FabricKind.efa: "efa",
}


@dataclass(frozen=True)
class Cluster:
    """Where a job's cards sit: servers of ``gpus_per_node`` cards joined by ``fabric``."""

    gpus_per_node: int
    fabric: Fabric
    gbit_per_gpu: float | None = None  # scale-out bandwidth per GPU, Gbit/s (providers.yaml); None: as published


def cluster_of(gpus_per_node: int, fabric: records.Fabric | None) -> Cluster:
    """Servers of ``gpus_per_node`` cards joined by a provider's ``fabric`` (None: unknown, so none)."""
    if fabric is None:
        return Cluster(gpus_per_node, "none")
    return Cluster(gpus_per_node, _KIND[fabric.kind], fabric.gbps_per_gpu)


@dataclass(frozen=True)
class NodeScaling:
    """Share of linear speed-up a job keeps across nodes."""

    efficiency: float
    nodes: int
    extrapolated: bool  # the fabric is slower per GPU than the runs the figure comes from


def node_scaling(
    total_gpus: int,
    gpus_per_node: int,
    fabric: Fabric,
    gbps_per_gpu: float | None,
    measured_gpus: int,
    rules: ScalingRules,
) -> NodeScaling:
    """Efficiency of ``total_gpus`` GPUs in nodes of ``gpus_per_node`` over ``fabric`` (``gbps_per_gpu``
    GB/s of scale-out bandwidth per GPU; None: as the published runs), for a platform whose MFU was
    measured on ``measured_gpus`` GPUs: ``per_doubling ** log2(total / measured)`` beyond that size."""
    if total_gpus < 1 or gpus_per_node < 1 or measured_gpus < 1:
        raise ValueError("total_gpus, gpus_per_node and measured_gpus must be at least 1")
    nodes = math.ceil(total_gpus / gpus_per_node)
    if nodes == 1:
        return NodeScaling(1.0, 1, False)
    if fabric == "none":
        raise ValueError(f"{total_gpus} GPUs need {nodes} nodes, and there is no fabric between nodes")
    f = rules.fabrics[fabric]
    doublings = max(0.0, math.log2(total_gpus / measured_gpus))
    slower = gbps_per_gpu is not None and gbps_per_gpu < f.published_gbps_per_gpu
    return NodeScaling(f.per_doubling**doublings, nodes, slower)


def cluster_scaling(total_gpus: int, cluster: Cluster, measured_gpus: int, rules: ScalingRules) -> NodeScaling:
    """:func:`node_scaling` for a :class:`Cluster` (its bandwidth given in Gbit/s per GPU)."""
    gbps = cluster.gbit_per_gpu / BITS_PER_BYTE if cluster.gbit_per_gpu is not None else None
    return node_scaling(total_gpus, cluster.gpus_per_node, cluster.fabric, gbps, measured_gpus, rules)
