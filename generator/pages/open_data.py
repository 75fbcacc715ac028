"""Open data files under ``docs/data/``: the GPU specs and the offers as JSON and CSV.

The JSON files hold every value exactly. In the CSV files a text cell that starts with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'`` so that a
spreadsheet opening the file shows it as text instead of running it as a formula.
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


#: What makes a spreadsheet read a text cell as a formula (OWASP "CSV Injection"): such a
#: cell gets a leading apostrophe, which spreadsheets show as text and do not evaluate.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(value: object) -> object:
    """A text cell that cannot start a formula; numbers, booleans and empty cells unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _csv(frame: pd.DataFrame) -> bytes:
    # JSON-style booleans, so the CSV reads the same as gpus.json; then text cells are made
    # formula-proof (the JSON files keep every string exactly).
    frame = frame.apply(lambda col: col.map(lambda v: str(v).lower() if isinstance(v, bool) else spreadsheet_text(v)))
    buf = io.StringIO()
    frame.to_csv(buf, index=False, lineterminator="\n", float_format="%.6g")
    return buf.getvalue().encode("utf-8")
