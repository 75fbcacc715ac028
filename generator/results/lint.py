"""Data lint for ``gpu-guide check``: things that validate but are probably wrong.

Every finding is a :class:`Problem` at the line of the offending field, a warning
unless noted, so it prints like a schema error and becomes a GitHub annotation.
"""

from __future__ import annotations

import datetime as dt
import statistics

from generator.data.catalogue import Catalogue
from generator.data.problems import Problem, Severity
from generator.engine import cost as costs
from generator.results.evaluate import Results

#: FP16 dense tensor over this multiple of FP32 suggests a sparse figure (H100 SXM is ~14.8x).
MAX_TENSOR_TO_FP32 = 16.0
#: A per-card price this many times away from the median of its GPU and delivery form is suspicious.
PRICE_OUTLIER_FACTOR = 3.0


def lint(cat: Catalogue, results: Results, today: dt.date, max_price_age_days: int | None = None) -> list[Problem]:
    """All lint findings, in file order. Prices older than ``max_price_age_days`` before ``today``
    (default: ``rules.prices.fresh_days``) are stale; ``today`` is an input, never the clock."""
    if max_price_age_days is None:
        max_price_age_days = cat.rules.prices.fresh_days
    out: list[Problem] = []
    warn = Severity.warning
    for i, g in enumerate(cat.gpus.values()):
        if g.fp32_tflops and g.fp16_tflops_dense and g.fp16_tflops_dense > MAX_TENSOR_TO_FP32 * g.fp32_tflops:
            out.append(cat.locate("gpus.yaml", ("gpus", i, "fp16_tflops_dense"),
                f"{g.fp16_tflops_dense:g} is {g.fp16_tflops_dense / g.fp32_tflops:.0f}x the FP32 figure; "
                "that looks like a sparse figure: halve it if the datasheet says 'with sparsity'", warn))  # fmt: skip
        if g.bf16_tflops_dense and g.fp8_tflops_dense and g.fp8_tflops_dense > 2.05 * g.bf16_tflops_dense:
            out.append(cat.locate("gpus.yaml", ("gpus", i, "fp8_tflops_dense"),
                f"FP8 ({g.fp8_tflops_dense:g}) is more than twice BF16 ({g.bf16_tflops_dense:g}); "
                "check for a sparse figure", warn))  # fmt: skip
        kind = g.memory_type.upper()
        limits = {"GDDR": (200, 2000), "HBM": (1000, 10000)}
        for prefix, (low, high) in limits.items():
            if kind.startswith(prefix) and not low <= g.memory_bandwidth_gbps <= high:
                out.append(cat.locate("gpus.yaml", ("gpus", i, "memory_bandwidth_gbps"),
                    f"{g.memory_bandwidth_gbps:g} GB/s does not fit {g.memory_type} ({low}-{high} GB/s per card); "
                    "is this the NVLink bandwidth?", warn))  # fmt: skip
    groups: dict[tuple[str, str], list[float]] = {}
    for o in cat.offers:
        groups.setdefault((o.gpu, o.delivery.value), []).append(costs.card_month_cny(o, cat.rules.cost))
    # GPUs some computed recommendation (scenario or model page) can actually use.
    recs = [r.rec for r in results.scenarios.values()] + [m.rec for m in results.models]
    used = {o.gpu.id for rec in recs for o in rec.options if o.eligible}
    for i, o in enumerate(cat.offers):
        age = (today - o.as_of).days
        if age > max_price_age_days:
            out.append(cat.locate("offers.yaml", ("offers", i, "as_of"),
                f"price is {age} days old (over {max_price_age_days}); check it and update as_of", warn))  # fmt: skip
        if o.as_of > today:
            out.append(cat.locate("offers.yaml", ("offers", i, "as_of"), "date is in the future", Severity.error))
        peers = groups[(o.gpu, o.delivery.value)]
        if len(peers) >= 3:
            median = statistics.median(peers)
            mine = costs.card_month_cny(o, cat.rules.cost)
            if mine > median * PRICE_OUTLIER_FACTOR or mine * PRICE_OUTLIER_FACTOR < median:
                out.append(cat.locate("offers.yaml", ("offers", i),
                    f"¥{mine:,.0f} per card-month is far from the median ¥{median:,.0f} of the other "
                    f"{o.delivery.value} offers for {o.gpu}; per-card vs per-instance mix-up?", warn))  # fmt: skip
        if o.cards > 1 and o.unit.value == "hour" and o.price_mid_cny / o.cards < 0.5:
            out.append(cat.locate("offers.yaml", ("offers", i, "cards"),
                f"¥{o.price_mid_cny:g}/hour for {o.cards} cards is under ¥0.5 per card-hour; "
                "is the price per card? then set cards: 1", warn))  # fmt: skip
        if o.gpu not in used:
            out.append(cat.locate("offers.yaml", ("offers", i, "gpu"),
                f"no recommendation can use this offer ({o.gpu} is never an eligible option on any scenario "
                "or model page)", warn))  # fmt: skip
    return out
