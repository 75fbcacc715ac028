"""How much GPU memory a workload needs on each card, and how many cards it takes.

The estimate is always PER CARD: memory of several cards is never added up into
one pool. With ``n`` cards, inference splits the model by tensor parallelism
(pipeline stages beyond one 8-card server) and training shards model states by
ZeRO stage; activations belong to the micro-batch each card processes.

Every constant comes from ``data/rules.yaml`` (:class:`~generator.data.rules.MemoryRules`);
every formula cites its source in a comment. Method, worked example and known limits:
``docs-dev/estimator.md``. Results aim slightly high (about +5-15 %) because a buyer
who rents too little memory loses more than one who rents a little too much.

The pieces: :mod:`~generator.engine.footprint` (weights, KV cache, overhead),
:mod:`~generator.engine.inference_memory` and :mod:`~generator.engine.training_memory`.
"""

from __future__ import annotations

from dataclasses import replace

from generator.data.records import ModelKind, Workload
from generator.data.rules import MemoryRules
from generator.engine.inference_memory import inference_estimate
from generator.engine.request import Estimate, Request
from generator.engine.training_memory import training_estimate


def card_counts(rules: MemoryRules, max_cards: int = 64) -> list[int]:
    """Card counts worth trying: 1, 2, 4, 8 inside a server, then whole servers (16, 24, 32 ...)."""
    cc = rules.card_counts
    counts = [c for c in cc.within_node if c <= max_cards]
    top = max(cc.within_node)
    n = (top // cc.node_step + 1) * cc.node_step
    while n <= max_cards:
        counts.append(n)
        n += cc.node_step
    return counts


def usable_gib(gpu_memory_gb: float, rules: MemoryRules, req: Request | None = None) -> float:
    """Memory a job can use on one card, in GiB, from the datasheet figure.

    Datasheet "GB" for GPU memory are binary (H100 80GB: nvidia-smi shows 81559 MiB
    ≈ 79.6 GiB), so the nominal figure is read as GiB and scaled by ``usable_fraction``
    (ECC-on GDDR cards lose 1/16; the allocator cannot fill the last blocks). Serving a language
    model on a runtime that reserves a share of the card up front (vLLM's gpu_memory_utilization)
    gets no more than that share: weights, activations and the KV cache must fit inside it.
    """
    fraction = rules.usable_fraction
    if req is not None and req.workload is Workload.inference and req.arch.kind is ModelKind.llm:
        reserved = rules.inference.runtimes[req.runtime].gpu_memory_utilization
        if reserved is not None:
            fraction = min(fraction, reserved)
    return gpu_memory_gb * fraction


def estimate(req: Request, rules: MemoryRules) -> Estimate:
    """Peak memory on ONE card for ``req`` (see module docstring)."""
    if req.workload is Workload.inference:
        return inference_estimate(req, rules)
    return training_estimate(req, rules)


def min_gpus(req: Request, gpu_memory_gb: float, rules: MemoryRules, max_cards: int = 64) -> int | None:
    """Smallest card count in :func:`card_counts` whose per-card peak fits; None if none does."""
    limit = usable_gib(gpu_memory_gb, rules, req)
    for n in card_counts(rules, max_cards):
        if estimate(replace(req, gpus=n), rules).total_gib <= limit:
            return n
    return None
