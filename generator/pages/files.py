"""The whole render stage: every generated file under ``docs/``, as ``{path: bytes}``.

``build`` writes them, ``check`` compares them with what is committed and ``diff``
compares two editions, all from this one function.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path

from generator.data.catalogue import Catalogue
from generator.data.records import Delivery
from generator.engine.recommend import fallback_note, form_note
from generator.pages import charts, open_data
from generator.pages.contexts import SiteContext
from generator.pages.llms import llms_txt
from generator.pages.names import (
    BILLING_NAMES,
    CALIBRATION_GROUP_NAMES,
    CURRENCY_NAMES,
    DELIVERY_NAMES,
    FIGURE_NAMES,
    FORM_NAMES,
    GPU_STATUS_NAMES,
    MARKET_NAMES,
    OPTIMIZER_NAMES,
    PRECISION_NAMES,
    PROVIDER_KIND_NAMES,
    SITE_NAME,
    SITE_SUMMARY,
    SOURCE_TIER_NAMES,
    TERM_NAMES,
    WORKLOAD_NAMES,
)
from generator.pages.plan import plan_pages
from generator.pages.render import MARKER, context_fields, environment, render_page
from generator.results.evaluate import Results
from generator.results.trust import GroupTrust, groups_for, notes


def site_context(cat: Catalogue, trust: Mapping[str, GroupTrust] | None = None) -> SiteContext:
    return SiteContext(
        as_of=cat.as_of.isoformat(),
        build_date=cat.today.isoformat(),
        site_name=SITE_NAME,
        delivery_names=DELIVERY_NAMES,
        workload_names=WORKLOAD_NAMES,
        form_names=FORM_NAMES,
        figure_names=FIGURE_NAMES,
        precision_names=PRECISION_NAMES,
        optimizer_names=OPTIMIZER_NAMES,
        delivery_enum={d.value: d for d in Delivery},
        fallback_note=fallback_note,
        form_note=form_note,
        billing_names=BILLING_NAMES,
        tier_names=SOURCE_TIER_NAMES,
        provider_names={p.id: p.name for p in cat.providers.values()},
        market_names=MARKET_NAMES,
        provider_kind_names=PROVIDER_KIND_NAMES,
        currency_names=CURRENCY_NAMES,
        status_names=GPU_STATUS_NAMES,
        term_names=TERM_NAMES,
        fresh_days=cat.rules.prices.fresh_days,
        month_hours=cat.rules.cost.hours_per_month,
        pick_billing=[BILLING_NAMES[b.value] for b in cat.rules.prices.pick_billing],
        pick_tiers=[SOURCE_TIER_NAMES[t.value] for t in cat.rules.prices.pick_tiers],
        serving_stack=cat.rules.memory.inference.runtimes[cat.rules.defaults.runtime].name,
        latency_floor=cat.rules.decision.latency_floor,
        max_concurrency=_concurrency_words(cat),
        trust_notes=partial(notes, trust or {}),
        trust_groups=groups_for,
        calibration_names=CALIBRATION_GROUP_NAMES,
    )


def _concurrency_words(cat: Catalogue) -> str:
    """vLLM's default cap on concurrent sequences per card class (rules.yaml speed.serving)."""
    sv = cat.rules.speed.serving
    return (
        f"{sv.max_concurrency:,} 路；显存 {sv.large_card_min_gib:g} GB 及以上的卡（A100 除外）"
        f"{sv.large_card_max_concurrency:,} 路"
    )


def generated_files(
    cat: Catalogue,
    results: Results,
    templates: Path,
    site_url: str,
    trust: Mapping[str, GroupTrust] | None = None,
) -> dict[str, bytes]:
    """Every generated file under docs/, as bytes; ``trust``: the calibration set's record per group
    (results.trust.calibration_trust), named next to the figures it stands behind."""
    env = environment(templates)
    common = context_fields(site_context(cat, trust))
    files: dict[str, bytes] = {}
    drawn = charts.ladder_page_charts(results.ladder, cat)  # once, for the page and the .svg files
    pages = plan_pages(cat, results, site_url, drawn)
    for page in pages:
        root = "../" * page.path.count("/")
        files[page.path] = render_page(env, page, {**common, "root": root})
    for name, svg_text in drawn.items():
        files[f"assets/charts/{charts.CHART_FILES[name]}"] = charts.standalone(svg_text)
    files["data/gpus.json"] = open_data.gpus_json(cat)
    files["data/gpus.csv"] = open_data.gpus_csv(cat)
    files["data/offers.csv"] = open_data.offers_csv(cat)
    files["data/offers.json"] = open_data.offers_json(cat)
    files["data/providers.json"] = open_data.providers_json(cat)
    files["data/estimates.json"] = open_data.estimates_json(results)
    files["data/price_history.csv"] = open_data.history_csv(cat)
    files["data/price_history.json"] = open_data.history_json(cat)
    files["data/LICENSE.txt"] = open_data.license_text(SITE_NAME)
    files["llms.txt"] = llms_txt(SITE_NAME, SITE_SUMMARY, site_url, pages)
    files["robots.txt"] = f"# {MARKER}\nUser-agent: *\nAllow: /\nSitemap: {site_url.rstrip('/')}/sitemap.xml\n".encode()
    return files
