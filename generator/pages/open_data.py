"""Open data files under ``docs/data/``: the GPU specs, the offers and the providers as JSON and CSV.

Offers carry every field of ``data/offers.yaml`` plus what the site computed from them:
``card_hour_cny`` and ``card_month_cny`` (yuan per card-hour and per card-month; a range
counts with its middle), the exchange rate used (``fx_cny_per_unit``, ``fx_as_of``) and
whether the offer is current or history in this edition.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pandas as pd

from generator.data.catalogue import Catalogue
from generator.data.records import Gpu
from generator.engine import cost as costs

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


#: Columns of docs/data/offers.csv and the keys of offers.json, in order.
OFFER_COLUMNS = [
    "id", "provider", "provider_name", "gpu", "cards", "per", "delivery", "billing", "unit",
    "price", "price_low", "price_high", "currency", "card_hour_cny", "card_month_cny", "fx_cny_per_unit", "fx_as_of",
    "vcpu", "ram_gb", "disk_gb", "region", "as_of", "status", "promo", "variant_unstated",
    "source", "quote", "note", "outlier_note",
]  # fmt: skip


def offer_records(cat: Catalogue) -> list[dict[str, Any]]:
    """Every offer as plain JSON-ready values, in the editors' order."""
    pricing = costs.pricing_of(cat)
    rows = []
    for o in cat.offers:
        raw = o.model_dump(mode="json")
        rate = pricing.rate(o.currency, o.as_of)
        raw.update(
            provider_name=cat.providers[o.provider].name,
            card_hour_cny=round(costs.card_hour_cny(o, pricing), 4),
            card_month_cny=round(costs.card_month_cny(o, pricing), 2),
            fx_cny_per_unit=rate.cny_per_unit if rate else None,
            fx_as_of=rate.as_of.isoformat() if rate else None,
            status="current" if cat.is_current(o) else "history",
        )
        rows.append({k: raw.get(k) for k in OFFER_COLUMNS})
    return rows


def offers_csv(cat: Catalogue) -> bytes:
    # Prices keep every digit the source printed (21.957642), which _csv's 6 significant digits would cut.
    rows = [{k: f"{v:.10g}" if isinstance(v, float) else v for k, v in r.items()} for r in offer_records(cat)]
    return _csv(pd.DataFrame(rows, columns=OFFER_COLUMNS))


def offers_json(cat: Catalogue) -> bytes:
    return _json(offer_records(cat))


def providers_json(cat: Catalogue) -> bytes:
    """Every provider with its extras (as quoted) and the ids of its current offers."""
    rows = []
    for p in cat.providers.values():
        raw = p.model_dump(mode="json")
        raw["offers"] = [o.id for o in cat.current_offers if o.provider == p.id]
        raw["history_offers"] = [o.id for o in cat.history_offers if o.provider == p.id]
        rows.append(raw)
    return _json(rows)


def _json(rows: list[dict[str, Any]]) -> bytes:
    return (json.dumps(rows, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")


def _csv(frame: pd.DataFrame) -> bytes:
    # JSON-style booleans, so the CSV reads the same as gpus.json.
    frame = frame.apply(lambda col: col.map(lambda v: str(v).lower() if isinstance(v, bool) else v))
    buf = io.StringIO()
    frame.to_csv(buf, index=False, lineterminator="\n", float_format="%.6g")
    return buf.getvalue().encode("utf-8")
