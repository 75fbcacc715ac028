/* Hand-written port of generator/engine/delivery.py: container or bare metal, with the reason. */

/** delivery_form: [delivery, reason in Chinese] for `cards` cards of this workload. */
export function deliveryForm(workload, cards, rules, dataParallel = false) {
  const training = workload !== "inference";
  if (training && dataParallel) {
    return ["container", "LoRA 类训练底座冻结：多卡时只同步适配器梯度（底座一张卡放不下时分片到各卡，走 PCIe 更慢），不需要 NVLink，容器实例即可、按小时计费"];
  }
  if (training && cards >= rules.bare_metal_min_training_cards) {
    return ["bare_metal", `${cards} 卡训练需要 NVLink 等卡间高速互联和整机独享，选裸金属`];
  }
  if (training) return ["container", "单卡训练用不到卡间互联，容器实例秒级启停、可按小时计费"];
  return ["container", "推理服务选容器实例，便于弹性扩缩容、按需计费"];
}
