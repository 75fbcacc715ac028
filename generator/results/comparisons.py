"""GPU-versus-GPU comparison pages: which pairs get one, the reference jobs, the verdict.

Which pairs get a page (:func:`comparison_pairs`): GPUs at most
``rules.pages.compare_max_rank_gap`` places apart on the ladder (the cards people weigh
against each other); for every scenario, its computed pick against each of its
alternatives; and the pairs people search for, listed with their search phrase in
``data/comparisons.yaml``. With 33 GPUs that is a few dozen pages, not 528.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from generator.data.catalogue import Catalogue
from generator.data.records import Gpu
from generator.engine.recommend import Option
from generator.results.scenarios import ScenarioResult


@dataclass(frozen=True)
class Comparison:
    a: Gpu  # the better-ranked of the two
    b: Gpu
    reasons: tuple[str, ...]  # why this pair has a page
    queries: tuple[str, ...] = ()  # what people search for this pair (comparisons.yaml)

    @property
    def slug(self) -> str:
        return f"{self.a.id}-vs-{self.b.id}"


def comparison_pairs(
    cat: Catalogue, rank: Mapping[str, int], scenarios: Mapping[str, ScenarioResult]
) -> list[Comparison]:
    """The pairs that get a page, faster GPU first (``rank``: GPU id -> place by dense TFLOPS)."""
    gap = cat.rules.pages.compare_max_rank_gap
    why: dict[tuple[str, str], list[str]] = {}

    def add(x: str, y: str, reason: str) -> None:
        a, b = sorted((x, y), key=lambda g: rank[g])
        reasons = why.setdefault((a, b), [])
        if reason not in reasons:
            reasons.append(reason)

    for x, y in combinations(cat.gpus, 2):
        if abs(rank[x] - rank[y]) <= gap:
            add(x, y, "稠密算力相近")
    for r in scenarios.values():
        pick = r.rec.pick
        if pick is None:
            continue
        for alt in r.rec.alternatives:
            add(pick.gpu.id, alt.gpu.id, f"「{r.scenario.title}」的推荐与备选")
    queries: dict[frozenset[str], list[str]] = {}
    for s in cat.searched:
        add(s.a, s.b, "常被一起搜索")
        queries.setdefault(frozenset((s.a, s.b)), []).append(s.query)
    pairs = [
        Comparison(cat.gpus[a], cat.gpus[b], tuple(reasons), tuple(queries.get(frozenset((a, b)), ())))
        for (a, b), reasons in why.items()
    ]
    return sorted(pairs, key=lambda c: (rank[c.a.id], rank[c.b.id]))


@dataclass(frozen=True)
class JobRow:
    scenario_id: str
    title: str
    a: Option | None
    b: Option | None


def job_rows(cat: Catalogue, scenarios: Mapping[str, ScenarioResult], pair: Comparison) -> list[JobRow]:
    """The reference jobs (``rules.pages.compare_reference_scenarios``) priced on both GPUs."""
    rows = []
    for sid in cat.rules.pages.compare_reference_scenarios:
        r = scenarios.get(sid)
        if r is None:
            continue
        rows.append(JobRow(sid, r.scenario.title, r.rec.option_for(pair.a.id), r.rec.option_for(pair.b.id)))
    return rows


def verdict(pair: Comparison, jobs: list[JobRow], hour_price: dict[str, float | None]) -> str:
    """A one-paragraph computed verdict (Chinese)."""
    a, b = pair.a, pair.b
    for job in jobs:
        if job.a and job.b and job.a.job_cost_cny and job.b.job_cost_cny and job.a.eligible and job.b.eligible:
            cheap, dear = (job.a, job.b) if job.a.job_cost_cny <= job.b.job_cost_cny else (job.b, job.a)
            ratio = dear.job_cost_cny / cheap.job_cost_cny  # type: ignore[operator]
            return (
                f"按「{job.title}」的参照任务计算，{cheap.gpu.name}（{cheap.cards} 张）完成任务的租金约为 "
                f"{dear.gpu.name}（{dear.cards} 张）的 1/{ratio:.1f}，更划算。"
            )
    pa, pb = hour_price.get(a.id), hour_price.get(b.id)
    if pa and pb:
        per_a, per_b = pa / a.tensor_tflops, pb / b.tensor_tflops
        low, high, ca, cb = (a, b, per_a, per_b) if per_a <= per_b else (b, a, per_b, per_a)
        return (
            f"两张卡在参照任务上无法直接比较；按每 TFLOP·小时的租金，{low.name}（¥{ca:.3f}）"
            f"比 {high.name}（¥{cb:.3f}）更划算。"
        )
    priced = [g.name for g in (a, b) if hour_price.get(g.id)]
    note = f"数据中只有 {priced[0]} 的报价。" if priced else "数据中两张卡都没有报价。"
    return f"{a.name} 的稠密算力更高（{a.tensor_tflops:g} 对 {b.tensor_tflops:g} TFLOPS）；{note}"


def comparisons_for(pairs: list[Comparison], gpu_id: str) -> list[Comparison]:
    return [p for p in pairs if gpu_id in (p.a.id, p.b.id)]


@dataclass(frozen=True)
class Redirect:
    """A retired comparison URL and the current page it sends readers (and search engines) to."""

    slug: str  # the retired page's slug (compare/<slug>/)
    target: Comparison | None  # the nearest current comparison; None: the comparison index
    gpus: tuple[str, str] | None = None  # the retired pair's GPU ids, when both are in the catalogue


def _gpus_of(slug: str, known: Collection[str]) -> tuple[str, str] | None:
    """The two GPU ids of ``a-vs-b`` when both are in the catalogue (ids may hold '-', so every split is tried)."""
    parts = slug.split("-vs-")
    for i in range(1, len(parts)):
        a, b = "-vs-".join(parts[:i]), "-vs-".join(parts[i:])
        if a in known and b in known:
            return a, b
    return None


def redirects(retired: Sequence[str], pairs: Sequence[Comparison], rank: Mapping[str, int]) -> list[Redirect]:
    """A redirect for each retired slug that is not a current page again, to the nearest current page.

    Nearest: the same two GPUs in the other order; else a page that keeps one of the two GPUs and
    puts beside it the GPU closest on the ladder to the one that is gone (``rank``: GPU id -> place),
    ties by slug; else (neither GPU has a page, or a GPU left the catalogue) the comparison index.
    Deterministic: the data (the retired list, the current pairs, the ladder) decide it.
    """
    current = {p.slug for p in pairs}
    out: list[Redirect] = []
    for slug in retired:
        if slug in current:
            continue
        gpus = _gpus_of(slug, rank.keys())
        out.append(Redirect(slug, None if gpus is None else _nearest(gpus, pairs, rank), gpus))
    return out


def _nearest(gpus: tuple[str, str], pairs: Sequence[Comparison], rank: Mapping[str, int]) -> Comparison | None:
    """The current pair nearest to the retired pair ``gpus`` (see :func:`redirects`)."""
    wanted = set(gpus)
    best: tuple[int, str] | None = None
    found: Comparison | None = None
    for p in pairs:
        have = {p.a.id, p.b.id}
        if have == wanted:
            return p
        kept = have & wanted
        if len(kept) != 1:
            continue
        (other,) = have - kept
        (gone,) = wanted - kept
        key = (abs(rank[other] - rank[gone]), p.slug)
        if best is None or key < best:
            best, found = key, p
    return found
