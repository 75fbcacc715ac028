"""How the cards of one job are connected, in the engine's terms and as a reason record.

Everything here is derived from ``gpus.yaml``'s ``interconnect`` (null for PCIe only) and
``topology``: SXM and OAM modules link the cards of a server through NVSwitch (HGX boards), a
full mesh (MI300X, 910B) or DGX-1's hybrid cube-mesh (V100 SXM2: each card linked to 4 of the
other 7); PCIe cards with an interconnect (A100 PCIe with an NVLink bridge, H100 NVL) are
bridged two by two, and the pairs talk to each other over PCIe.

The speed model treats the three server-wide topologies alike: NCCL's rings over a cube-mesh
use every card's links (the DGX-1 whitepaper's "three interwoven rings"), so an all-reduce runs
at the card's link bandwidth there too. Only the words differ.
"""

from __future__ import annotations

from generator.data.records import Gpu, LinkTopology
from generator.data.rules import LinkKind, MemoryRules, SpeedRules
from generator.engine.reason import Param, Reason, ReasonKind
from generator.engine.scaling import Cluster, Fabric
from generator.engine.units import GIGA

#: A bridge joins this many cards.
BRIDGE_CARDS = 2

#: The reason kind of each server-wide topology.
_SERVER_LINK = {
    LinkTopology.nvswitch: ReasonKind.link_nvswitch,
    LinkTopology.full_mesh: ReasonKind.link_all_to_all,
    LinkTopology.hybrid_cube_mesh: ReasonKind.link_cube_mesh,
}


def is_bridged(gpu: Gpu) -> bool:
    """A PCIe card with a scale-up bridge between pairs (NVLink bridge, H100 NVL)."""
    return gpu.interconnect is not None and not gpu.has_nvlink_class_link


def link_kind(gpu: Gpu, cards: int, rules: MemoryRules) -> LinkKind:
    """How the cards of one job talk: single, nvlink, pcie, or multi_node (beyond one server)."""
    if cards <= 1:
        return LinkKind.single
    if cards > rules.inference.max_tensor_parallel:
        return LinkKind.multi_node
    if gpu.has_nvlink_class_link or (is_bridged(gpu) and cards <= BRIDGE_CARDS):
        return LinkKind.nvlink
    return LinkKind.pcie


#: The reason kind naming each fabric a provider sells (``none`` never joins servers).
_FABRIC: dict[Fabric, ReasonKind] = {
    "infiniband": ReasonKind.fabric_infiniband,
    "roce": ReasonKind.fabric_roce,
    "efa": ReasonKind.fabric_efa,
}


def fabric_reason(kind: Fabric | None, gbit_per_gpu: float | None = None) -> Reason:
    """The fabric between servers as a record: the provider's own (InfiniBand, RoCE, AWS EFA, with its
    bandwidth per GPU where stated), or ``fabric_any`` where no offer is chosen (``kind`` None or none)."""
    if kind is None or kind not in _FABRIC:
        return Reason(ReasonKind.fabric_any)
    params: dict[str, Param] = {} if gbit_per_gpu is None else {"gbit": f"{gbit_per_gpu:g}"}
    return Reason(_FABRIC[kind], params)


def cluster_fabric_reason(cluster: Cluster | None, assumed: Fabric) -> Reason:
    """The fabric of ``cluster`` (an offer's servers); None: cards sized without an offer, whose speed
    assumes ``assumed`` (rules.yaml ``scaling.unknown_fabric``), and the record says so."""
    if cluster is None:
        return Reason(ReasonKind.fabric_assumed, {"fabric": fabric_reason(assumed)})
    return fabric_reason(cluster.fabric, cluster.gbit_per_gpu)


def link_reason(gpu: Gpu, cards: int, node_cards: int | None = None, fabric: Reason | None = None) -> Reason:
    """The cards' connection, from the interconnect fields (never "only PCIe" for a card that has a
    bridge), as a record the message table words (``link_*``). With ``node_cards`` (the cards one server
    holds) and more cards than that, the plan spans servers: the link inside each server, and the
    fabric between them (``link_multi_node``; ``fabric``: the offer's, see :func:`fabric_reason`;
    None: ``fabric_any``), never "all linked by NVLink"."""
    if node_cards is not None and cards > node_cards:
        nodes = -(-cards // node_cards)
        between = fabric if fabric is not None else Reason(ReasonKind.fabric_any)
        return Reason(
            ReasonKind.link_multi_node,
            {"nodes": nodes, "node_cards": node_cards, "inner": link_reason(gpu, node_cards), "fabric": between},
        )
    params: dict[str, Param] = {"pcie_gen": gpu.pcie_gen}
    if gpu.interconnect is not None:
        params["link"] = gpu.interconnect
    if gpu.interconnect_gbps:
        params["gbps"] = f"{gpu.interconnect_gbps:g}"
    if cards <= 1:
        return Reason(ReasonKind.link_single)
    if gpu.interconnect is None or gpu.topology is None:
        return Reason(ReasonKind.link_pcie_only, params)
    if gpu.topology in _SERVER_LINK:
        return Reason(_SERVER_LINK[gpu.topology], params)
    if cards <= BRIDGE_CARDS:
        return Reason(ReasonKind.link_bridged, params)
    return Reason(ReasonKind.link_bridged_pairs, params)


def link_gbps_per_direction(gpu: Gpu, cards: int, memory: MemoryRules, speed: SpeedRules) -> float:
    """Bandwidth one card sends at during an all-reduce, GB/s (half the bidirectional NVLink figure)."""
    kind = link_kind(gpu, cards, memory)
    if kind in (LinkKind.nvlink, LinkKind.multi_node) and gpu.interconnect_gbps:
        return gpu.interconnect_gbps / 2
    return speed.decode.pcie_gbps.of(gpu.pcie_gen)


def allreduce_seconds(gpu: Gpu, tp: int, message_bytes: float, memory: MemoryRules, speed: SpeedRules) -> float:
    """One ring all-reduce of ``message_bytes`` over ``tp`` cards: a fixed latency per link kind plus
    2·(tp−1)/tp of the message at the link's per-direction bandwidth (NCCL ring algorithm)."""
    if tp <= 1:
        return 0.0
    kind = link_kind(gpu, tp, memory)
    lat = speed.decode.allreduce_latency_us
    latency = (lat.nvlink if kind is LinkKind.nvlink else lat.pcie) * 1e-6
    bw = link_gbps_per_direction(gpu, tp, memory, speed) * GIGA
    if through_host(gpu, tp, memory):  # no peer-to-peer: staged through host memory (rules.yaml, fitted)
        staged = speed.decode.no_peer_to_peer
        latency, bw = latency * staged.latency_factor, bw * staged.bandwidth_share
    return latency + 2 * (tp - 1) / tp * message_bytes / bw


def through_host(gpu: Gpu, cards: int, memory: MemoryRules) -> bool:
    """Whether the all-reduces of ``cards`` cards go through host memory: PCIe cards whose stock driver
    gives them no GPU peer-to-peer (gpus.yaml ``peer_to_peer: false``). Speeds that rest on this rule are
    extrapolated from one A/B (rules.yaml ``speed.decode.no_peer_to_peer``)."""
    return gpu.peer_to_peer is False and link_kind(gpu, cards, memory) is LinkKind.pcie
