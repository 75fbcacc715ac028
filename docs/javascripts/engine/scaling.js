/* Hand-written port of generator/engine/scaling.py: training efficiency across nodes, discounted only
 * beyond the cluster size the platform's MFU was measured on, per fabric class. */

const BITS_PER_BYTE = 8;

/** cluster_of: servers of `gpusPerNode` cards joined by a provider's fabric ({kind, gbps_per_gpu} or null). */
export function clusterOf(gpusPerNode, fabric) {
  if (fabric === null || fabric === undefined) return { gpus_per_node: gpusPerNode, fabric: "none", gbit_per_gpu: null };
  return { gpus_per_node: gpusPerNode, fabric: fabric.kind, gbit_per_gpu: fabric.gbps_per_gpu };
}

/** node_scaling: {efficiency, nodes, extrapolated}. */
export function nodeScaling(totalGpus, gpusPerNode, fabric, gbpsPerGpu, measuredGpus, rules) {
  if (totalGpus < 1 || gpusPerNode < 1 || measuredGpus < 1) {
    throw new Error("total_gpus, gpus_per_node and measured_gpus must be at least 1");
  }
  const nodes = Math.ceil(totalGpus / gpusPerNode);
  if (nodes === 1) return { efficiency: 1, nodes: 1, extrapolated: false };
  if (fabric === "none") throw new Error(`${totalGpus} GPUs need ${nodes} nodes, and there is no fabric between nodes`);
  const f = rules.fabrics[fabric];
  const doublings = Math.max(0, Math.log2(totalGpus / measuredGpus));
  const slower = gbpsPerGpu !== null && gbpsPerGpu !== undefined && gbpsPerGpu < f.published_gbps_per_gpu;
  return { efficiency: f.per_doubling ** doublings, nodes, extrapolated: slower };
}

/** cluster_scaling: node_scaling for a cluster (its bandwidth in Gbit/s per GPU). */
export function clusterScaling(totalGpus, cluster, measuredGpus, rules) {
  const gbps = cluster.gbit_per_gpu !== null && cluster.gbit_per_gpu !== undefined ? cluster.gbit_per_gpu / BITS_PER_BYTE : null;
  return nodeScaling(totalGpus, cluster.gpus_per_node, cluster.fabric, gbps, measuredGpus, rules);
}
