"""三类用户怎么选: for each kind of buyer, the picks the rules compute for the workloads
that represent them (data/buyers.yaml), and how often the article's own picks win.

Nothing is picked here that the scenario guides and model pages did not already compute:
a buyer's row is the computed recommendation of one scenario or one model page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from generator.data.catalogue import Catalogue
from generator.data.editorial import Buyer
from generator.data.records import Gpu, Scenario, Workload
from generator.engine.recommend import Option, Recommendation
from generator.results.model_pages import ModelPage
from generator.results.scenarios import ScenarioResult


@dataclass(frozen=True)
class BuyerRow:
    """One workload of a buyer with what the rules computed for it."""

    scenario: Scenario | None  # set for a scenario guide
    page: ModelPage | None  # set for a model page
    rec: Recommendation

    @property
    def pick(self) -> Option | None:
        return self.rec.pick


@dataclass(frozen=True)
class ArticlePick:
    """A GPU the article recommended: in how many of the buyer's workloads it is the
    computed pick, and in how many it is at least a valid option."""

    gpu: Gpu
    picked: int
    eligible: int


@dataclass(frozen=True)
class BuyerResult:
    buyer: Buyer
    rows: list[BuyerRow]
    most_picked: list[tuple[Gpu, int]]  # GPUs by how many rows pick them, most first
    article: list[ArticlePick]


def buyer_results(
    cat: Catalogue, scenarios: Mapping[str, ScenarioResult], models: list[ModelPage]
) -> list[BuyerResult]:
    pages = {(m.model.id, m.workload): m for m in models}
    out = []
    for b in cat.buyers.buyers:
        rows = []
        for w in b.workloads:
            if w.scenario is not None:
                r = scenarios[w.scenario]
                rows.append(BuyerRow(r.scenario, None, r.rec))
            else:
                assert w.model is not None and w.workload is not None
                page = pages.get((w.model, Workload(w.workload)))
                if page is not None:  # validate.editorial_check rejects a page that does not exist
                    rows.append(BuyerRow(None, page, page.rec))
        counts = Counter(r.pick.gpu.id for r in rows if r.pick is not None)
        most = [(cat.gpus[g], n) for g, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        article = [
            ArticlePick(
                cat.gpus[g],
                sum(1 for r in rows if r.pick is not None and r.pick.gpu.id == g),
                sum(1 for r in rows if (o := r.rec.option_for(g)) is not None and o.eligible),
            )
            for g in b.article_picks
        ]
        out.append(BuyerResult(b, rows, most, article))
    return out
