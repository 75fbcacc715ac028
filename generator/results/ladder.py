"""Tables built from the catalogue with pandas: the ladder and the open-data files.

The ladder ranks GPUs by dense 16-bit tensor TFLOPS (BF16, else FP16), and only those whose
figure a vendor document confirms: a card whose tensor figure is marked unconfirmed in
``gpus.yaml`` (a launch claim, a reseller's copy) is listed after every ranked card, with
``ranked`` false, so an unconfirmed figure never outranks a confirmed one. Price
columns use the current offers that may price a recommendation (within
``rules.prices.fresh_days`` of the edition date, billing tier in
``rules.prices.pick_billing``), in yuan per card-month of ``rules.cost.hours_per_month``
hours; "price per dense TFLOP-hour" divides the lowest per-card hourly price by that
TFLOPS figure.
"""

from __future__ import annotations

import pandas as pd

from generator.data.catalogue import Catalogue
from generator.engine import cost as costs


def price_summary(cat: Catalogue, gpu_id: str, pricing: costs.Pricing | None = None) -> dict[str, float | None]:
    """Cheapest and dearest per-card-month prices over the current pickable offers, and the cheapest card-hour."""
    pricing = pricing or costs.pricing_of(cat)
    span = costs.card_month_range([o for o in cat.pickable_offers if o.gpu == gpu_id], pricing)
    if span is None:
        return {"month_low": None, "month_high": None, "hour_low": None}
    low, high = span
    return {"month_low": low, "month_high": high, "hour_low": low / cat.rules.cost.hours_per_month}


def ladder(cat: Catalogue) -> pd.DataFrame:
    """One row per GPU, best dense 16-bit TFLOPS first (ties: more memory, then id)."""
    rows = []
    pricing = costs.pricing_of(cat)
    for gpu in cat.gpus.values():
        prices = price_summary(cat, gpu.id, pricing)
        tflops = gpu.tensor_tflops
        hour = prices["hour_low"]
        figure = "bf16_tflops_dense" if gpu.bf16_tflops_dense else "fp16_tflops_dense"
        rows.append(
            {
                "id": gpu.id,
                "name": gpu.name,
                "vendor": gpu.vendor.value,
                "domestic": gpu.domestic,
                "form_factor": gpu.form_factor.value,
                "memory_gb": gpu.memory_gb,
                "memory_type": gpu.memory_type,
                "memory_bandwidth_gbps": gpu.memory_bandwidth_gbps,
                "tensor_tflops": tflops,
                "fp8_tflops_dense": gpu.fp8_tflops_dense,
                "month_low": prices["month_low"],
                "month_high": prices["month_high"],
                "hour_low": hour,
                "cny_per_tflop_hour": (hour / tflops) if hour is not None and tflops else None,
                "cny_per_gib_month": (prices["month_low"] / gpu.memory_gb) if prices["month_low"] else None,
                "unconfirmed": sorted(f.value for f in gpu.unconfirmed),
                "ranked": figure not in gpu.unconfirmed_names,
            }
        )
    frame = pd.DataFrame(rows)
    # Place by dense TFLOPS alone, confirmed or not: which GPUs are neighbours (comparison pages).
    by_tflops = frame.sort_values(
        ["tensor_tflops", "memory_gb", "id"], ascending=[False, False, True], kind="mergesort"
    )
    frame["tflops_place"] = pd.Series(range(1, len(frame) + 1), index=by_tflops.index)
    frame = frame.sort_values(
        ["ranked", "tensor_tflops", "memory_gb", "id"], ascending=[False, False, False, True], kind="mergesort"
    )
    # Unranked cards keep a place number after the ranked ones (comparison pairs use it); pages
    # print "未排名" for them.
    frame.insert(0, "rank", range(1, len(frame) + 1))
    return frame.reset_index(drop=True)


def by_tflops(frame: pd.DataFrame) -> pd.DataFrame:
    """The ladder in plain dense-TFLOPS order, confirmed or not (the scatter charts' order)."""
    return frame.sort_values("tflops_place", kind="mergesort").reset_index(drop=True)
