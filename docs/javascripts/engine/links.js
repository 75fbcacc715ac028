/* Hand-written port of generator/engine/links.py: how the cards of one job are connected. */
import { general } from "./py.js";
import { reason } from "./reason.js";

const BRIDGE_CARDS = 2;

/** _SERVER_LINK: the reason kind of each server-wide topology. */
const SERVER_LINK = { nvswitch: "link_nvswitch", full_mesh: "link_all_to_all", hybrid_cube_mesh: "link_cube_mesh" };

/** Gpu.has_nvlink_class_link: a server-wide scale-up link (NVSwitch, full mesh or hybrid cube-mesh). */
export function hasNvlinkClassLink(gpu) {
  return gpu.topology !== null && gpu.topology !== undefined && gpu.topology !== "bridged_pairs";
}

/** Gpu.tensor_tflops: dense 16-bit tensor TFLOPS, BF16 else FP16. */
export function tensorTflops(gpu) {
  return gpu.bf16_tflops_dense || gpu.fp16_tflops_dense || 0;
}

/** is_bridged */
export function isBridged(gpu) {
  return gpu.interconnect !== null && !hasNvlinkClassLink(gpu);
}

/** link_kind: single, nvlink, pcie or multi_node */
export function linkKind(gpu, cards, mem) {
  if (cards <= 1) return "single";
  if (cards > mem.inference.max_tensor_parallel) return "multi_node";
  if (hasNvlinkClassLink(gpu) || (isBridged(gpu) && cards <= BRIDGE_CARDS)) return "nvlink";
  return "pcie";
}

/** _FABRIC: the reason kind naming each fabric a provider sells (`none` never joins servers). */
const FABRIC = { infiniband: "fabric_infiniband", roce: "fabric_roce", efa: "fabric_efa" };

/** fabric_reason: the provider's fabric as a record ({kind, gbps_per_gpu} or null; fabric_any where none is stated). */
export function fabricReason(fabric) {
  if (fabric === null || fabric === undefined || !Object.hasOwn(FABRIC, fabric.kind)) return reason("fabric_any");
  const params = fabric.gbps_per_gpu === null || fabric.gbps_per_gpu === undefined ? {} : { gbit: general(fabric.gbps_per_gpu) };
  return reason(FABRIC[fabric.kind], params);
}

/** link_reason: the cards' connection as a reason record (link_*); beyond `nodeCards` a link_multi_node
 * record naming `fabric` (a fabric record; null: fabric_any). */
export function linkReason(gpu, cards, nodeCards = null, fabric = null) {
  if (nodeCards !== null && cards > nodeCards) {
    return reason("link_multi_node", {
      nodes: Math.ceil(cards / nodeCards), node_cards: nodeCards, inner: linkReason(gpu, nodeCards), fabric: fabric || reason("fabric_any"),
    });
  }
  const params = { pcie_gen: gpu.pcie_gen };
  if (gpu.interconnect !== null) params.link = gpu.interconnect;
  if (gpu.interconnect_gbps) params.gbps = general(gpu.interconnect_gbps);
  if (cards <= 1) return reason("link_single");
  if (gpu.interconnect === null || gpu.topology === null || gpu.topology === undefined) return reason("link_pcie_only", params);
  if (Object.hasOwn(SERVER_LINK, gpu.topology)) return reason(SERVER_LINK[gpu.topology], params);
  if (cards <= BRIDGE_CARDS) return reason("link_bridged", params);
  return reason("link_bridged_pairs", params);
}

/** link_gbps_per_direction */
export function linkGbpsPerDirection(gpu, cards, mem, speed) {
  const kind = linkKind(gpu, cards, mem);
  if ((kind === "nvlink" || kind === "multi_node") && gpu.interconnect_gbps) return gpu.interconnect_gbps / 2;
  const gen = Math.min(6, Math.max(3, gpu.pcie_gen));
  return speed.decode.pcie_gbps[`gen${gen}`];
}

/** allreduce_seconds: one ring all-reduce of `messageBytes` over `tp` cards. */
export function allreduceSeconds(gpu, tp, messageBytes, mem, speed) {
  if (tp <= 1) return 0;
  const kind = linkKind(gpu, tp, mem);
  const lat = speed.decode.allreduce_latency_us;
  const latency = (kind === "nvlink" ? lat.nvlink : lat.pcie) * 1e-6;
  let bw = linkGbpsPerDirection(gpu, tp, mem, speed) * 1e9;
  let lag = latency;
  if (throughHost(gpu, tp, mem)) {
    const staged = speed.decode.no_peer_to_peer;
    lag = latency * staged.latency_factor;
    bw = bw * staged.bandwidth_share;
  }
  return lag + 2 * (tp - 1) / tp * messageBytes / bw;
}

/** through_host: PCIe cards without GPU peer-to-peer (peer_to_peer: false) all-reduce through host memory. */
export const throughHost = (gpu, cards, mem) => gpu.peer_to_peer === false && linkKind(gpu, cards, mem) === "pcie";
