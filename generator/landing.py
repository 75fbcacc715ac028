"""Landing pages: one per model and workload, and GPU-vs-GPU comparisons.

Everything here reuses the engine the scenario guides use, so a landing page can never
contradict the ladder or a scenario.

Which pairs get a comparison page (:func:`comparison_pairs`): GPUs at most
``rules.pages.compare_max_rank_gap`` places apart on the ladder (the cards people weigh
against each other), plus, for every scenario, its computed pick against each of its
alternatives. With 17 GPUs that is a few dozen pages, not 136.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from itertools import combinations

from generator import memory
from generator.estimate import MAX_CARDS, arch_for, size_workload
from generator.memory import Estimate, Request
from generator.records import Delivery, Gpu, ModelKind, OpenModel, Precision, Workload
from generator.recommend import Constraints, Option, Recommendation, recommend
from generator.validate import Catalogue

if TYPE_CHECKING:
    from generator.evaluate import Results


@dataclass(frozen=True)
class ModelPage:
    """One model under one workload, sized on every GPU."""

    model: OpenModel
    workload: Workload
    request: Request
    single_card: Estimate  # what one card would have to hold
    rec: Recommendation
    job_tokens_b: float | None

    @property
    def slug(self) -> str:
        return f"{self.model.id}-{self.workload.value}"

    def cheapest(self, delivery: Delivery) -> Option | None:
        """Cheapest eligible option in this delivery form (job cost for training, else monthly)."""
        options = [o for o in self.rec.options if o.eligible and o.delivery is delivery and o.monthly]
        key = (lambda o: (o.job_cost_cny, o.gpu.id)) if self.rec.training_job else (lambda o: (o.monthly.total, o.gpu.id))
        return min(options, key=key, default=None)  # type: ignore[arg-type, return-value]


def model_workloads(model: OpenModel) -> list[Workload]:
    """Diffusion models get an inference page only."""
    if model.kind is ModelKind.diffusion:
        return [Workload.inference]
    return [Workload.inference, Workload.lora, Workload.qlora, Workload.full]


def model_page(cat: Catalogue, model: OpenModel, workload: Workload) -> ModelPage:
    spec = getattr(cat.rules.pages.model_pages, workload.value)
    req = Request(
        workload=workload,
        arch=arch_for(model, cat.rules),
        precision=Precision(spec.precision),
        batch=spec.batch,
        context=spec.context,
        zero_stage=3,
    )
    c = Constraints(job_tokens_b=spec.job_tokens_b)
    rec = recommend(cat, lambda gpu: size_workload(req, gpu, cat.rules, spec.job_tokens_b), workload, c)
    single = memory.estimate(req, cat.rules.memory)
    return ModelPage(model, workload, req, single, rec, spec.job_tokens_b)


def model_pages(cat: Catalogue) -> list[ModelPage]:
    return [model_page(cat, m, w) for m in cat.models.values() for w in model_workloads(m)]


def cards_to_fit(cat: Catalogue, gpu: Gpu) -> list[tuple[OpenModel, int | None]]:
    """For each LLM, the fewest cards of ``gpu`` that serve it (model-page inference workload)."""
    spec = cat.rules.pages.model_pages.inference
    out = []
    for m in cat.models.values():
        if m.kind is not ModelKind.llm:
            continue
        req = Request(workload=Workload.inference, arch=arch_for(m, cat.rules), precision=Precision(spec.precision),
                      batch=spec.batch, context=spec.context)  # fmt: skip
        out.append((m, memory.min_gpus(req, gpu.memory_gb, cat.rules.memory, MAX_CARDS)))
    return out


# --------------------------------------------------------------------------- comparisons


@dataclass(frozen=True)
class Comparison:
    a: Gpu  # the better-ranked of the two
    b: Gpu
    reasons: tuple[str, ...]  # why this pair has a page

    @property
    def slug(self) -> str:
        return f"{self.a.id}-vs-{self.b.id}"


def comparison_pairs(cat: Catalogue, results: "Results") -> list[Comparison]:
    """The pairs that get a page, better-ranked GPU first, in ladder order."""
    rank = {row["id"]: int(row["rank"]) for row in results.ladder.to_dict("records")}
    gap = cat.rules.pages.compare_max_rank_gap
    why: dict[tuple[str, str], list[str]] = {}

    def add(x: str, y: str, reason: str) -> None:
        a, b = sorted((x, y), key=lambda g: rank[g])
        reasons = why.setdefault((a, b), [])
        if reason not in reasons:
            reasons.append(reason)

    for x, y in combinations(cat.gpus, 2):
        if abs(rank[x] - rank[y]) <= gap:
            add(x, y, "天梯图上位置相近")
    for r in results.scenarios.values():
        pick = r.rec.pick
        if pick is None:
            continue
        for alt in r.rec.alternatives:
            add(pick.gpu.id, alt.gpu.id, f"「{r.scenario.title}」的推荐与备选")
    pairs = [Comparison(cat.gpus[a], cat.gpus[b], tuple(reasons)) for (a, b), reasons in why.items()]
    return sorted(pairs, key=lambda c: (rank[c.a.id], rank[c.b.id]))


@dataclass(frozen=True)
class JobRow:
    scenario_id: str
    title: str
    a: Option | None
    b: Option | None


def job_rows(cat: Catalogue, results: "Results", pair: Comparison) -> list[JobRow]:
    rows = []
    for sid in cat.rules.pages.compare_reference_scenarios:
        r = results.scenarios.get(sid)
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
