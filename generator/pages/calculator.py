"""Data for the calculator page, and links that open it preloaded.

The calculator runs the whole engine in the browser: ``docs/javascripts/engine/*.js`` is a
hand-written port of ``generator/engine`` (memory, speed, sizing, delivery, cost, recommend)
and of the command line's request building (``generator/cli/workload.py``).
:func:`calculator_data` hands it the same inputs the Python engine reads: the rules, every
GPU and model, the offers that may price a recommendation, provider names and exchange
rates. The page embeds (``escape.json_for_script``) all of it except most of the models
(:func:`page_data`): the model the form starts with stays whole inline, the next few of the
catalogue only with what the form's list shows, and every model, architecture included, is one
static file, :data:`ARCHITECTURES`, that the script fetches after its first calculation and adds
to the list (at 40 copies of every model the inline list alone put the page over the 150 KiB
first-view budget, issue #21).
``tests/test_calculator_parity.py`` runs both engines on the same inputs and compares them.

The page's URL holds the calculator's state with keys named like the flags of
``gpu-guide recommend`` (``workload``, ``model``, ``precision``, ``hours-per-month`` …;
switches as ``=1``; the request's flags are :mod:`generator.engine.flags`, shared with the command
line). :func:`calculator_query` writes such a query for a scenario or a model
page, with only the values that differ from what the command line would assume.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from generator.data.catalogue import Catalogue
from generator.data.records import Gpu, ModelKind, Offer, OpenModel, Workload
from generator.engine.bounds import BOUNDS
from generator.engine.cost import Usage
from generator.engine.flags import num, request_flags
from generator.engine.recommend import scenario_requires_cuda
from generator.engine.request import Request
from generator.engine.sizing import MAX_CARDS
from generator.engine.tariff import tariffs_of
from generator.pages.form_messages import form_messages_json
from generator.pages.messages import messages_json
from generator.pages.names import (
    BILLING_NAMES,
    DELIVERY_NAMES,
    OPTIMIZER_NAMES,
    PRECISION_NAMES,
    WORKLOAD_NAMES,
)
from generator.pages.render import price_label

#: Every model, architecture included, for the calculator (a file under docs/, so in site/), fetched by the page.
ARCHITECTURES = "assets/calculator-models.json"
#: What the form reads of a model before its architecture arrives: the list's labels and groups
#: (calculator.js) and the precision it is sized in by default (engine/workload.js defaultPrecision).
FORM_FIELDS = ("id", "name", "kind", "params_b", "checkpoint_precision", "pipeline_precision")
#: How many of the catalogue's first models the page lists before the file arrives (the start model
#: besides). Measured (gzip) at 40 copies of every model: the whole inline list was 8,214 B, the same
#: list as server-rendered ``<option>`` elements 7,888 B, so neither form fits; a first screen shows
#: the start model, and the file comes right after the first calculation.
INLINE_MODELS = 8

#: The rules sections the engine reads (``pages`` is editorial and stays out).
RULE_SECTIONS = ("cost", "prices", "defaults", "delivery", "memory", "speed", "support", "decision")


#: Keys of a rule that cite where its figure comes from: the pages and the editor's guide show them; the
#: calculator's engine never reads them, so they stay out of its page (the 150 KiB first-view budget).
CITATION_KEYS = frozenset({"source", "sources", "quote"})


def _without_citations(value: Any) -> Any:
    """``value`` with every :data:`CITATION_KEYS` entry left out of its mappings, at any depth."""
    if isinstance(value, dict):
        return {k: _without_citations(v) for k, v in value.items() if k not in CITATION_KEYS}
    if isinstance(value, list):
        return [_without_citations(v) for v in value]
    return value


def calculator_data(cat: Catalogue) -> dict[str, Any]:
    """Everything the calculator's engine needs, as plain JSON values in a stable order."""
    rules = cat.rules
    return {
        "rules": {name: _without_citations(getattr(rules, name).model_dump(mode="json")) for name in RULE_SECTIONS},
        "gpus": [_gpu(cat, g) for g in cat.gpus.values()],
        # video models are sized by generator/engine/video.py, which the calculator does not offer yet
        "models": [_model(m) for m in cat.models.values() if m.kind is not ModelKind.video],
        "offers": [_offer(cat, o) for o in cat.pickable_offers],
        "providers": {p.id: p.name for p in cat.providers.values()},
        # each provider's own extras in yuan (generator/engine/tariff.py), as the Python cost model uses them
        "tariffs": {
            pid: {
                "disk_cny_per_gb_month": t.disk_cny_per_gb_month,
                "disk_stopped_cny_per_gb_month": t.disk_stopped_cny_per_gb_month,
                "egress_cny_per_gb": t.egress_cny_per_gb,
                "public_ip_cny_month": t.public_ip_cny_month,
                "stopped_bills_instance": t.stopped_bills_instance,
            }
            for pid, t in tariffs_of(cat.providers.values(), cat.fx, cat.rules.cost).items()
        },
        "fx": [
            {"currency": r.currency.value, "cny_per_unit": r.cny_per_unit, "as_of": r.as_of.isoformat()} for r in cat.fx
        ],
        "bounds": {
            k: {"low": b.low, "high": b.high, "whole": b.whole, "low_open": b.low_open} for k, b in BOUNDS.items()
        },
        "max_cards": MAX_CARDS,
        "start": [[k, v] for k, v in default_flags(cat).items()],  # query pairs, in order
        "names": {
            "delivery": DELIVERY_NAMES,
            "billing": BILLING_NAMES,
            "workload": WORKLOAD_NAMES,
            "precision": PRECISION_NAMES,
            "optimizer": OPTIMIZER_NAMES,
        },
        # the engine's typed records in words (pages.messages) and the form's errors (pages.form_messages)
        "messages": messages_json(video=False) | form_messages_json(),
    }


def architectures_json(cat: Catalogue) -> bytes:
    """The file at :data:`ARCHITECTURES`: every model's entry in :func:`calculator_data`, in the
    catalogue's order (the order of the form's list)."""
    models = calculator_data(cat)["models"]
    return (json.dumps(models, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def page_data(cat: Catalogue) -> dict[str, Any]:
    """What the calculator page embeds: :func:`calculator_data` with the model the form starts with
    whole, so the first calculation needs nothing else, and the first :data:`INLINE_MODELS` others
    of the catalogue cut to :data:`FORM_FIELDS` (in the catalogue's order); the other models are
    left out. ``architectures`` says where every model is (its path under docs/, with a digest of
    its bytes so that no cached copy from an older build is taken), which models are whole inline,
    and how many models there are in all."""
    data = calculator_data(cat)
    start = dict(data["start"]).get("model")
    models = data["models"]
    data["models"] = [
        m if m["id"] == start else {k: m[k] for k in FORM_FIELDS if k in m}
        for i, m in enumerate(models)
        if i < INLINE_MODELS or m["id"] == start
    ]
    digest = hashlib.sha256(architectures_json(cat)).hexdigest()[:12]
    data["architectures"] = {
        "path": f"{ARCHITECTURES}?v={digest}",
        "inline": [start] if start else [],
        "count": len(models),
    }
    return data


def _gpu(cat: Catalogue, g: Gpu) -> dict[str, Any]:
    """A GPU with the figures the engine reads, and how many offers it has (for "why no price")."""
    return {
        "id": g.id,
        "name": g.name,
        "vendor": g.vendor.value,
        "architecture": g.architecture,
        "form_factor": g.form_factor.value,
        "compute_capability": g.compute_capability,
        "domestic": g.domestic,
        "memory_gb": g.memory_gb,
        "memory_bandwidth_gbps": g.memory_bandwidth_gbps,
        "fp32_tflops": g.fp32_tflops,
        "fp16_tflops_dense": g.fp16_tflops_dense,
        "bf16_tflops_dense": g.bf16_tflops_dense,
        "fp8_tflops_dense": g.fp8_tflops_dense,
        "interconnect": g.interconnect,
        "interconnect_gbps": g.interconnect_gbps,
        "topology": g.topology.value if g.topology is not None else None,
        "pcie_gen": g.pcie_gen,
        "peer_to_peer": g.peer_to_peer,
        "unconfirmed": sorted(g.unconfirmed_names),
        "offers_any": len(cat.offers_for(g.id)),  # current and history
        "offers_current": len(cat.current_for(g.id)),
    }


def _model(m: OpenModel) -> dict[str, Any]:
    """A model entry as ``Arch.from_model`` reads it, plus what the form shows."""
    out: dict[str, Any] = {
        "id": m.id,
        "name": m.name,
        "kind": m.kind.value,
        "params_b": m.params_b,
        "max_context": m.max_context,
    }
    if m.kind is ModelKind.llm:
        # the precision its inference is sized in when the form names none (engine/workload.js defaultPrecision)
        out["checkpoint_precision"] = m.checkpoint_precision.value if m.checkpoint_precision else None
    if m.kind is ModelKind.diffusion:
        out["pipeline_precision"] = m.pipeline_precision.value if m.pipeline_precision else None
        out["denoiser_passes"] = m.denoiser_passes
        out["default_steps"] = m.default_steps
        out["denoiser_text_tokens"] = m.denoiser_text_tokens
        out["components"] = [
            {
                "role": c.role.value,
                "name": c.name,
                "params": c.params,
                "fp32_decode_in_fp16": c.fp32_decode_in_fp16,
                "fp32_params_in_fp16": c.fp32_params_in_fp16,
            }
            for c in m.components
        ]
        return out
    for name in ("active_params_b", "layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab",
                 "experts", "experts_per_token", "tied_embeddings", "kv_lora_rank", "qk_rope_head_dim",
                 "sliding_window", "sliding_window_layers", "linear_attention_layers", "linear_state_values",
                 "dense_layers", "shared_experts"):  # fmt: skip
        out[name] = getattr(m, name)
    return out


def _offer(cat: Catalogue, o: Offer) -> dict[str, Any]:
    """An offer as ``engine/cost.js`` prices it: the quoted price (the middle of a range) in its own
    currency and basis, converted there exactly as :mod:`generator.engine.cost` converts it."""
    return {
        "id": o.id,
        "provider": o.provider,
        "gpu": o.gpu,
        "cards": o.cards,
        "per": o.per.value,
        "delivery": o.delivery.value,
        "billing": o.billing.value,
        "unit": o.unit.value,
        "price": o.price_mid,
        "currency": o.currency.value,
        "as_of": o.as_of.isoformat(),
        "variant_unstated": o.variant_unstated,
        # the cross-host fabric the provider sells for this GPU's instance family (plans.spans_hosts_ok,
        # scaling.cluster_of); null: not stated
        "fabric": (
            None
            if (f := cat.providers[o.provider].fabric_for(o.gpu)) is None
            else {"kind": f.kind.value, "gbps_per_gpu": f.gbps_per_gpu}
        ),
        "label": f"{cat.providers[o.provider].name} {price_label(o)}" + (f"（{o.cards} 卡）" if o.cards > 1 else ""),
    }


# --------------------------------------------------------------------------- links into the calculator


def usage_flags(cat: Catalogue, usage: Usage) -> dict[str, str]:
    """The month of use as flags, leaving out the defaults (``Usage.from_rules``)."""
    base = Usage.from_rules(cat.rules)
    flags: dict[str, str] = {}
    if usage.hours_per_month != base.hours_per_month:
        flags["hours-per-month"] = num(usage.hours_per_month)
    if usage.disk_gb != base.disk_gb:
        flags["disk-gb"] = num(usage.disk_gb)
    if usage.egress_gb_month != base.egress_gb_month:
        flags["egress-gb"] = num(usage.egress_gb_month)
    if usage.public_ip != base.public_ip:
        flags["public-ip" if usage.public_ip else "no-public-ip"] = "1"
    return flags


def calculator_query(flags: Mapping[str, str]) -> str:
    """``?workload=…&model=…`` for a link to the calculator (keys and values are ids and numbers)."""
    return "?" + "&".join(f"{k}={quote(v, safe='.,_-')}" for k, v in flags.items())


def scenario_flags(cat: Catalogue, scenario_id: str, req: Request, usage: Usage) -> dict[str, str]:
    """A scenario's workload, month and constraints as ``recommend`` flags."""
    s = cat.scenarios[scenario_id]
    flags = request_flags(cat, s.model, req, s.job_tokens_b)
    flags.update(usage_flags(cat, usage))
    cuda = scenario_requires_cuda(s, cat.rules)
    if cuda != cat.rules.defaults.require_cuda:
        flags["require-cuda" if cuda else "no-require-cuda"] = "1"
    if s.domestic_only:
        flags["domestic-only"] = "1"
    if s.budget_cny_month is not None:
        flags["budget"] = num(s.budget_cny_month)
    if s.deadline_days is not None:
        flags["deadline-days"] = num(s.deadline_days)
    if s.images_per_month is not None:
        flags["images-per-month"] = num(s.images_per_month)
    return flags


def default_flags(cat: Catalogue) -> dict[str, str]:
    """What the calculator shows before the reader chooses anything: the first language model served."""
    first = next((m for m in cat.models.values() if m.kind is ModelKind.llm), next(iter(cat.models.values())))
    return {"workload": Workload.inference.value, "model": first.id}
