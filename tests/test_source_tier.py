"""Every offer says who published its source (source_tier); rules.prices.pick_tiers says which
tiers may rank a pick; offers.csv and the pages carry the tier."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from conftest import MINI_BUILD_DATE, REPO, replace_in

from generator.data.problems import DataError
from generator.data.records import SourceTier
from generator.pipeline import Project, generate


def test_an_offer_without_a_tier_is_refused_with_its_line(mini: Path) -> None:
    replace_in(mini / "data" / "offers.yaml", "    source_tier: provider_page\n", "")
    with pytest.raises(DataError) as got:
        generate(Project.at(mini, build_date=MINI_BUILD_DATE))
    [p] = [p for p in got.value.problems if "source_tier" in p.path or "source_tier" in p.message]
    assert p.file == "data/offers.yaml" and p.path.startswith("offers[0]")


def test_pick_tiers_decide_what_ranks(mini: Path) -> None:
    """The mini's H100 container (¥15/hour, provider_page) prices serve-7b's fallback pick; with only
    aggregator prices allowed, Fixture Cloud's first-hand prices stop ranking while staying on the pages."""
    everything = generate(Project.at(mini, build_date=MINI_BUILD_DATE))
    assert {o.provider for o in everything.catalogue.pickable_offers} == {"fixture-cloud", "fixture-market"}
    assert '"c-4090-hour"' in everything.files["calculator.md"].decode("utf-8")
    replace_in(mini / "data" / "rules.yaml",
               "pick_tiers: [provider_page, provider_api, provider_doc, aggregator, article]",
               "pick_tiers: [aggregator]")  # fmt: skip
    gen = generate(Project.at(mini, build_date=MINI_BUILD_DATE))
    assert {o.provider for o in gen.catalogue.pickable_offers} == {"fixture-market"}
    assert all(o.source_tier is SourceTier.aggregator for o in gen.catalogue.pickable_offers)
    page = gen.files["gpus/rtx-4090-24g.md"].decode("utf-8")
    assert "[官网价格页](https://example.com/prices)" in page  # still shown, with its tier
    calculator = gen.files["calculator.md"].decode("utf-8")  # the calculator embeds only pickable offers
    assert '"m-4090-usd"' in calculator and '"c-4090-hour"' not in calculator


def test_offers_csv_has_tier_and_age(mini: Path) -> None:
    gen = generate(Project.at(mini, build_date=MINI_BUILD_DATE))
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(gen.files["data/offers.csv"].decode("utf-8")))}
    assert rows["c-4090-hour"]["source_tier"] == "provider_page"
    assert rows["old-a100-survey"]["source_tier"] == "article"
    assert rows["c-4090-hour"]["age_days"] == "30"  # 2026-07-01 to 2026-07-31


def test_every_bundled_offer_has_a_tier_and_jygpu_is_its_own_doc() -> None:
    """The bundled data: the seed seller's prices come from articles on its own site (provider_doc),
    the market survey printed there is a third party's (article)."""
    text = (REPO / "data" / "offers.yaml").read_text(encoding="utf-8")
    assert text.count("  - id: ") == text.count("    source_tier: ")
    gen_cat = generate(Project.at(REPO, build_date=None)).catalogue
    tiers = {o.id: o.source_tier for o in gen_cat.offers}
    assert tiers["jygpu-h100-80g-bm-8card-month"] is SourceTier.provider_doc
    assert tiers["survey-2025-h100-card-month"] is SourceTier.article
