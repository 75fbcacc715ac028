"""The whole render stage: every generated file under ``docs/``, as ``{path: bytes}``.

``build`` writes them, ``check`` compares them with what is committed and ``diff``
compares two editions, all from this one function.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import jinja2

from generator.data.catalogue import Catalogue
from generator.data.records import Delivery
from generator.engine.recommend import fallback_note, form_note
from generator.pages import calculator, charts, open_data
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
from generator.pages.render import MARKER, Page, context_fields, environment, render_page
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


def _digest(value: object) -> bytes | None:
    """A digest of ``value``'s pickle, or None when it cannot be pickled (then nothing is reused).

    Equal digests mean equal pickles, and so equal values: a page whose digest matches the last
    render's renders to the same bytes. (Equal values may pickle differently; that only costs a render.)"""
    try:
        return hashlib.sha256(pickle.dumps(value, protocol=5)).digest()
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None


class RenderMemo:
    """The last render of each page by its digest, for a long-lived process (``gpu-guide serve``).

    A page is rendered again only when its own :class:`Page` (context, title, breadcrumbs...), the
    fields every page shares, or a file under templates/ changed; otherwise its last bytes stand,
    which are the bytes a render would give (rendering is a function of exactly those)."""

    def __init__(self) -> None:
        self._basis: bytes | None = None
        self._pages: dict[str, tuple[bytes, bytes]] = {}  # path -> (page digest, rendered bytes)
        #: the Jinja environment, whose compiled templates stand while no template changes
        self.env: jinja2.Environment | None = None
        self._sources: bytes | None = None

    def render(self, env: jinja2.Environment, page: Page, common: Mapping[str, Any]) -> bytes:
        """:func:`render_page`, or its last bytes when nothing it reads changed."""
        key = _digest(page)
        kept = self._pages.get(page.path)
        if key is not None and kept is not None and kept[0] == key:
            return kept[1]
        out = render_page(env, page, common)
        if key is not None:
            self._pages[page.path] = (key, out)
        return out

    def start(self, templates: Path, common: Mapping[str, Any]) -> jinja2.Environment:
        """The environment to render with; every page and compiled template is forgotten when the
        shared fields or any file under ``templates`` changed since the last render."""
        parts = sorted(
            (p.relative_to(templates).as_posix(), p.read_bytes()) for p in templates.rglob("*") if p.is_file()
        )
        sources = _digest(parts)
        basis = _digest((sources, dict(common)))
        if basis is None or basis != self._basis:
            self._pages.clear()
        if self.env is None or sources is None or sources != self._sources:
            self.env = environment(templates)
        self._basis, self._sources = basis, sources
        return self.env


def generated_files(
    cat: Catalogue,
    results: Results,
    templates: Path,
    site_url: str,
    trust: Mapping[str, GroupTrust] | None = None,
    memo: RenderMemo | None = None,
) -> dict[str, bytes]:
    """Every generated file under docs/, as bytes; ``trust``: the calibration set's record per group
    (results.trust.calibration_trust), named next to the figures it stands behind; ``memo``: reuse the
    last render of pages that did not change (:class:`RenderMemo`, ``gpu-guide serve``)."""
    common = context_fields(site_context(cat, trust))
    env = memo.start(templates, common) if memo is not None else environment(templates)
    files: dict[str, bytes] = {}
    drawn = charts.ladder_page_charts(results.ladder, cat)  # once, for the page and the .svg files
    pages = plan_pages(cat, results, site_url, drawn)
    for page in pages:
        root = "../" * page.path.count("/")
        fields = {**common, "root": root}
        files[page.path] = memo.render(env, page, fields) if memo is not None else render_page(env, page, fields)
    for name, svg_text in drawn.items():
        files[f"assets/charts/{charts.CHART_FILES[name]}"] = charts.standalone(svg_text)
    files[calculator.ARCHITECTURES] = calculator.architectures_json(cat)
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
