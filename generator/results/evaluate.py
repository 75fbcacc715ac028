"""Run the buying logic over the catalogue: everything the pages show, computed once.

The order matters and has no cycles: the ladder and the scenarios first, then the
model pages, then the comparison pairs (which need the ladder ranks and the scenario
picks), then the editorial pages (claims, rent or buy, buyers, trends, the explainer),
which only read what came before. :class:`Results` is built once, from all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from generator.data.catalogue import Catalogue
from generator.data.records import OpenModel
from generator.engine.cost import pricing_of
from generator.engine.plans import PlanMemo
from generator.engine.recommend import OptionMemo
from generator.engine.sizing import Sizer, SizingMemo
from generator.results.buyers import BuyerResult, buyer_results
from generator.results.claims import ClaimResult, claim_results
from generator.results.comparisons import Comparison, Redirect, comparison_pairs, redirects
from generator.results.ladder import ladder
from generator.results.market import ProviderSummary, Spread, market_spreads, provider_summaries
from generator.results.metrics import MetricsResults, metrics_results
from generator.results.model_pages import ModelPage, cards_to_fit, model_pages
from generator.results.ownership import OwnershipRow, ownership_rows
from generator.results.scenarios import ScenarioResult, scenario_results
from generator.results.trends import TrendResults, trend_results


@dataclass(frozen=True)
class Results:
    """What the rules compute from one catalogue."""

    ladder: pd.DataFrame  # one row per GPU, best first (see results.ladder)
    scenarios: dict[str, ScenarioResult]
    models: list[ModelPage]  # one per model and workload
    pairs: list[Comparison]  # GPU comparisons that get a page
    redirects: list[Redirect]  # retired comparison URLs (comparisons.yaml retired) and where they point
    fits: dict[str, list[tuple[OpenModel, int | None]]]  # per GPU: cards each LLM needs (GPU pages)
    spreads: dict[str, list[Spread]]  # per GPU: market spread per delivery form (current offers)
    providers: list[ProviderSummary]  # per provider: its current and history offers
    claims: list[ClaimResult]  # data/claims.yaml, checked
    ownership: list[OwnershipRow]  # rent or buy at the page's default inputs
    buyers: list[BuyerResult]  # data/buyers.yaml, with the computed picks
    trends: TrendResults
    metrics: MetricsResults  # the explainer's worked examples

    @property
    def ranks(self) -> dict[str, int]:
        """GPU id -> ladder rank."""
        return ladder_ranks(self.ladder)


def ladder_ranks(frame: pd.DataFrame) -> dict[str, int]:
    return {str(gid): int(rank) for gid, rank in zip(frame["id"], frame["rank"], strict=True)}


def evaluate(
    cat: Catalogue,
    memo: SizingMemo | None = None,
    plan_memo: PlanMemo | None = None,
    option_memo: OptionMemo | None = None,
) -> Results:
    """Everything the pages show, computed once (``memo``: sizings kept from the last evaluation,
    reused while the rules and GPUs are unchanged; ``plan_memo``, ``option_memo``: offers' plans and
    GPUs' options kept with them; ``gpu-guide serve``)."""
    # one memo of estimates for every page of this edition
    sizer = memo.sizer(cat.rules, cat.gpus) if memo is not None else Sizer(cat.rules)
    if plan_memo is not None and memo is not None:  # plans are kept only with the sizings they name
        plan_memo.start((cat.rules, pricing_of(cat), cat.providers))
        sizer.plans = plan_memo
    if option_memo is not None and memo is not None:  # options too, by their sizings
        option_memo.start((cat.rules, pricing_of(cat), cat.providers), cat)
        sizer.options = option_memo
    table = ladder(cat)
    scenarios = scenario_results(cat, sizer)
    # Neighbours by dense TFLOPS (unconfirmed figures included): the cards people weigh against each other.
    places = {str(g): int(p) for g, p in zip(table["id"], table["tflops_place"], strict=True)}
    pairs = comparison_pairs(cat, places, scenarios)
    models = model_pages(cat, sizer)
    return Results(
        ladder=table,
        scenarios=scenarios,
        models=models,
        pairs=pairs,
        redirects=redirects(cat.retired_comparisons, pairs, places),
        fits=cards_to_fit(cat, sizer),
        spreads=market_spreads(cat),
        providers=provider_summaries(cat),
        claims=claim_results(cat, table, scenarios, models),
        ownership=ownership_rows(cat),
        buyers=buyer_results(cat, scenarios, models),
        trends=trend_results(cat, table),
        metrics=metrics_results(cat, models),
    )
