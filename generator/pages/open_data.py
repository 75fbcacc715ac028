"""Open data files under ``docs/data/``: the GPU specs, the offers and the providers as JSON and CSV.

Offers carry every field of ``data/offers.yaml`` plus what the site computed from them:
``card_hour_cny`` and ``card_month_cny`` (yuan per card-hour and per card-month; a range
counts with its middle), the exchange rate used (``fx_cny_per_unit``, ``fx_as_of``) and
whether the offer is current or history in this edition.

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
from generator.engine.recommend import Option
from generator.pages.messages import explain
from generator.results.evaluate import Results
from generator.results.model_pages import with_format_pages

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
    "status",
]


def gpu_record(gpu: Gpu) -> dict[str, Any]:
    """A GPU as plain JSON-ready values (enums as text, sources as a figure->URL map)."""
    raw = gpu.model_dump(mode="json")
    sources = {"*": raw["source"], **{k: v for k, v in sorted(raw["field_sources"].items())}}
    row = {k: raw.get(k) for k in GPU_COLUMNS if k not in ("sources", "status")}
    row["unconfirmed"] = sorted(raw["unconfirmed"])
    row["sources"] = sources
    row["status"] = raw["status"]  # dated export restrictions / end of production, each with source and quote
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
        r["status"] = ";".join(f"{st['kind']}@{st['since']}" for st in r["status"])
        rows.append(r)
    return _csv(pd.DataFrame(rows, columns=GPU_COLUMNS))


#: Columns of docs/data/offers.csv and the keys of offers.json, in order.
OFFER_COLUMNS = [
    "id", "provider", "provider_name", "gpu", "cards", "per", "delivery", "billing", "unit",
    "price", "price_low", "price_high", "currency", "card_hour_cny", "card_month_cny", "fx_cny_per_unit", "fx_as_of",
    "vcpu", "ram_gb", "disk_gb", "region", "as_of", "age_days", "status", "promo", "variant_unstated",
    "source", "source_tier", "quote", "note", "outlier_note",
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
            age_days=cat.age_days(o),
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


#: The licence of every open data file (and of the data under data/): LICENSE-DATA at the repository root.
DATA_LICENSE = "CC BY 4.0"
DATA_LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"

#: Columns of docs/data/price_history.csv and the keys of each record in price_history.json, in order.
HISTORY_COLUMNS = [
    "series", "id", "replaces", "gpu", "provider", "cards", "per", "delivery", "billing", "unit",
    "price", "price_low", "price_high", "currency", "card_month_cny", "as_of", "status", "source", "source_tier",
]  # fmt: skip


def _series(cat: Catalogue) -> dict[str, str]:
    """Each offer's series: the id of the first price of its product (following ``replaces`` back)."""
    by_id = {o.id: o for o in cat.offers}
    out: dict[str, str] = {}
    for o in cat.offers:
        first, seen = o, {o.id}
        while first.replaces in by_id and first.replaces not in seen:
            first = by_id[first.replaces]
            seen.add(first.id)
        out[o.id] = first.id
    return out


def history_records(cat: Catalogue) -> list[dict[str, Any]]:
    """Every dated price, grouped by GPU, provider and series (a product and the prices that replaced
    one another), oldest first: the price history an edition holds (history prices are never dropped)."""
    series = _series(cat)
    replaces = {o.id: o.replaces for o in cat.offers}
    rows = []
    for r in offer_records(cat):
        rows.append({k: r.get(k) for k in HISTORY_COLUMNS} | {"series": series[r["id"]], "replaces": replaces[r["id"]]})
    return sorted(rows, key=lambda r: (r["gpu"], r["provider"], r["series"], r["as_of"], r["id"]))


def history_csv(cat: Catalogue) -> bytes:
    rows = [{k: f"{v:.10g}" if isinstance(v, float) else v for k, v in r.items()} for r in history_records(cat)]
    return _csv(pd.DataFrame(rows, columns=HISTORY_COLUMNS))


def history_json(cat: Catalogue) -> bytes:
    """The records with the licence stated in the file itself."""
    body = {"license": DATA_LICENSE, "license_url": DATA_LICENSE_URL, "records": history_records(cat)}
    return (json.dumps(body, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")


def license_text(site_name: str) -> bytes:
    """docs/data/LICENSE.txt: the licence of the files beside it."""
    return (
        f"The data files in this folder are published by {site_name} (gpu-guide) under the Creative Commons\n"
        f"Attribution 4.0 International licence ({DATA_LICENSE}): {DATA_LICENSE_URL}\n"
        "Legal code: https://creativecommons.org/licenses/by/4.0/legalcode\n"
        'Attribute as: "gpu-guide, GPU 算力租赁选型指南" with a link to the page or file used.\n'
        "Quoted source text (`quote`) and the linked sources remain their publishers'; every price names its source.\n"
        "数据以知识共享 署名 4.0 国际许可协议（CC BY 4.0）发布；引用请注明出处。\n"
    ).encode()


def _json(rows: list[dict[str, Any]]) -> bytes:
    return (json.dumps(rows, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")


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


def estimates_json(results: Results) -> bytes:
    """docs/data/estimates.json: one record per model page, from the same results the pages print.

    Each record: the model, the workload and precision, the inputs the page sized (context and
    prompt/output tokens, or resolution and offload; batch), the single-card peak and its
    breakdown in GiB, and one option per GPU: cards, delivery form, monthly cost, the reference
    job's rent for training pages, and for language-model serving the concurrency the cards'
    memory allows with the cost per million prompt + output tokens at it.
    """
    records = []
    for mp in with_format_pages(results.models):
        req = mp.request
        inputs: dict[str, Any] = {"batch": req.batch}
        if mp.is_image:
            inputs.update(resolution=req.resolution, offload=req.offload.value)
        else:
            inputs["context"] = req.context
            if mp.serving:
                inputs.update(prompt_tokens=mp.prompt_tokens, output_tokens=mp.output_tokens, concurrency="memory")
        if mp.job_tokens_b:
            inputs["job_tokens_b"] = mp.job_tokens_b
        records.append(
            {
                "model": mp.model.id,
                "page": f"models/{mp.slug}/",
                "workload": "image" if mp.is_image else mp.workload.value,
                "precision": req.precision.value,
                "inputs": inputs,
                "total_gib": round(mp.single_card.total_gib, 3),
                "breakdown": {k: round(v, 3) for k, v in mp.single_card.breakdown.items()},
                "options": [_option_record(o) for o in mp.rec.options],
            }
        )
    # One record a line: readable in a diff, and written by json's fast (C) encoder, which an
    # indented dump never uses (a 2,000-page site spent 0.8 s here).
    lines = [json.dumps(r, ensure_ascii=False, sort_keys=True, separators=(",", ":")) for r in records]
    return ("[\n" + ",\n".join(lines) + "\n]\n").encode("utf-8")


def _option_record(o: Option) -> dict[str, Any]:
    def r(value: float | None, digits: int = 2) -> float | None:
        return None if value is None else round(value, digits)

    row: dict[str, Any] = {
        "gpu": o.gpu.id,
        "cards": o.cards,
        "cards_billed": o.cards_billed,
        "cards_used": o.cards_used,
        "delivery": o.delivery.value,
        "eligible": o.eligible,
        "excluded": explain(o.excluded) if o.excluded else None,
        "per_card_gib": round(o.sizing.per_card_gib, 3),
        "monthly_cny": r(o.monthly.total if o.monthly else None),
        "job_cny": r(o.job_cost_cny),
        "cny_per_million_tokens": r(o.cost_per_mtok_cny, 4),
    }
    if o.sizing.serving is not None and o.cost_per_mtok_cny is not None:
        row["concurrency"] = o.sizing.serving.at_capacity.concurrency
        row["cny_per_million_tokens_at_batch"] = r(o.cost_per_mtok_at_batch_cny, 4)
    return row
