"""Tables built from the catalogue with pandas: the ladder and the open-data files.

The ladder ranks GPUs by dense 16-bit tensor TFLOPS (BF16, else FP16). Price
columns use the cheapest per-card price among all offers of the GPU, normalised to
a card-month of ``rules.cost.hours_per_month`` hours; "price per dense TFLOP-hour"
divides the per-card hourly price by that TFLOPS figure.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pandas as pd

from generator import cost as costs
from generator.records import Gpu
from generator.validate import Catalogue

#: Columns of docs/data/gpus.json and gpus.csv, in order.
GPU_COLUMNS = [
    "id",
    "name",
    "vendor",
    "architecture",
    "form_factor",
    "release_year",
    "domestic",
    "memory_gb",
    "memory_type",
    "memory_bandwidth_gbps",
    "fp32_tflops",
    "fp64_tflops",
    "fp16_tflops_dense",
    "bf16_tflops_dense",
    "fp8_tflops_dense",
    "int8_tops_dense",
    "tdp_w",
    "interconnect",
    "interconnect_gbps",
    "pcie_gen",
    "unconfirmed",
    "sources",
]


def gpu_record(gpu: Gpu) -> dict[str, Any]:
    """A GPU as plain JSON-ready values (enums as text, sources as a figure->URL map)."""
    raw = gpu.model_dump(mode="json")
    sources = {"*": raw["source"], **{k: v for k, v in sorted(raw["field_sources"].items())}}
    row = {k: raw.get(k) for k in GPU_COLUMNS if k not in ("sources",)}
    row["unconfirmed"] = sorted(raw["unconfirmed"])
    row["sources"] = sources
    return row


def price_summary(cat: Catalogue, gpu_id: str) -> dict[str, float | None]:
    """Cheapest and dearest per-card-month prices over all offers, and the cheapest card-hour."""
    span = costs.card_month_range(cat.offers_for(gpu_id), cat.rules.cost)
    if span is None:
        return {"month_low": None, "month_high": None, "hour_low": None}
    low, high = span
    return {"month_low": low, "month_high": high, "hour_low": low / cat.rules.cost.hours_per_month}


def ladder(cat: Catalogue) -> pd.DataFrame:
    """One row per GPU, best dense 16-bit TFLOPS first (ties: more memory, then id)."""
    rows = []
    for gpu in cat.gpus.values():
        prices = price_summary(cat, gpu.id)
        tflops = gpu.tensor_tflops
        hour = prices["hour_low"]
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
            }
        )
    frame = pd.DataFrame(rows)
    frame = frame.sort_values(["tensor_tflops", "memory_gb", "id"], ascending=[False, False, True], kind="mergesort")
    frame.insert(0, "rank", range(1, len(frame) + 1))
    return frame.reset_index(drop=True)


def gpus_json(cat: Catalogue) -> bytes:
    rows = [gpu_record(g) for g in cat.gpus.values()]
    return (json.dumps(rows, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")


def gpus_csv(cat: Catalogue) -> bytes:
    rows = []
    for g in cat.gpus.values():
        r = gpu_record(g)
        r["unconfirmed"] = ";".join(r["unconfirmed"])
        r["sources"] = " ".join(f"{k}={v}" for k, v in r["sources"].items())
        rows.append(r)
    return _csv(pd.DataFrame(rows, columns=GPU_COLUMNS))


def offers_csv(cat: Catalogue) -> bytes:
    rules = cat.rules.cost
    rows = []
    for o in cat.offers:
        raw = o.model_dump(mode="json")
        raw["card_month_cny_mid"] = round(costs.card_month_cny(o, rules), 2)
        rows.append(raw)
    columns = [
        "id", "gpu", "delivery", "cards", "price_cny", "price_low_cny", "price_high_cny", "unit",
        "card_month_cny_mid", "as_of", "provider", "promo", "source", "note",
    ]  # fmt: skip
    return _csv(pd.DataFrame(rows, columns=columns))


def _csv(frame: pd.DataFrame) -> bytes:
    # JSON-style booleans, so the CSV reads the same as gpus.json.
    frame = frame.apply(lambda col: col.map(lambda v: str(v).lower() if isinstance(v, bool) else v))
    buf = io.StringIO()
    frame.to_csv(buf, index=False, lineterminator="\n", float_format="%.6g")
    return buf.getvalue().encode("utf-8")
