"""``gpu-guide estimate`` and ``gpu-guide recommend``: the engine from the command line."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from dataclasses import replace
from typing import Any

from generator import memory
from generator.build import Project
from generator.estimate import MAX_CARDS, arch_for, size_workload
from generator.memory import Arch, Request
from generator.problems import DataError
from generator.records import Precision, Workload
from generator.recommend import Constraints, recommend
from generator.validate import Catalogue, load_catalogue


def add_workload_arguments(p: argparse.ArgumentParser, recommend: bool) -> None:
    """The workload description both commands share, plus each one's own options."""
    p.add_argument("--workload", required=True, choices=[w.value for w in Workload])
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--model", help="model id from data/models.yaml")
    who.add_argument("--params", type=float, metavar="BILLIONS", help="total parameters in billions (MoE: all)")
    for name in ("layers", "hidden", "heads", "kv-heads", "vocab", "intermediate"):
        p.add_argument(f"--{name}", type=int, help="with --params: architecture field (derived if missing)")
    p.add_argument("--precision", default="bf16", choices=[x.value for x in Precision])
    p.add_argument("--kv-precision", choices=[x.value for x in Precision])
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--context", type=int, default=2048, help="tokens per sequence")
    p.add_argument("--grad-checkpointing", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--optimizer", default="adamw", choices=["adamw", "adamw-8bit", "sgd"])
    p.add_argument("--lora-rank", type=int, default=16)
    p.add_argument("--zero-stage", type=int, default=None, choices=[0, 1, 2, 3],
                   help="training on several cards: ZeRO stage (default 3)")  # fmt: skip
    p.add_argument("--json", action="store_true", help="machine-readable output")
    if recommend:
        p.add_argument("--domestic-only", action="store_true", help="only 国产 accelerators")
        p.add_argument("--require-cuda", action="store_true", help="only NVIDIA GPUs")
        p.add_argument("--budget", type=float, metavar="CNY", help="monthly budget in yuan")
        p.add_argument("--hours-per-month", type=float, default=730)
        p.add_argument("--job-tokens", type=float, metavar="BILLIONS", help="training: tokens to process")
        p.add_argument("--disk-gb", type=float, default=500)
        p.add_argument("--egress-gb", type=float, default=100)
        p.add_argument("--no-public-ip", action="store_true")
    else:
        p.add_argument("--gpus", type=int, default=1, help="cards (tensor parallel for inference, ZeRO for training)")
        p.add_argument("--gpu-memory-gb", type=float, help="a card's nominal memory; adds min_gpus to the result")


class UsageError(Exception):
    pass


def _catalogue(project: Project) -> Catalogue:
    cat, problems = load_catalogue(project.data, display_root=project.root)
    if cat is None:
        raise DataError(problems)
    return cat


def _request(cat: Catalogue, args: argparse.Namespace, gpus: int) -> Request:
    if args.model:
        if args.model not in cat.models:
            close = difflib.get_close_matches(args.model, list(cat.models), n=1)
            hint = f'; did you mean "{close[0]}"?' if close else f"; known: {', '.join(cat.models)}"
            raise UsageError(f'unknown model "{args.model}"{hint}')
        arch = arch_for(cat.models[args.model], cat.rules)
    else:
        if args.params <= 0:
            raise UsageError("--params must be a positive number of billions")
        arch = Arch.from_params(
            args.params, layers=args.layers, hidden=args.hidden, heads=args.heads, kv_heads=args.kv_heads,
            vocab=args.vocab, intermediate=args.intermediate, defaults=cat.rules.memory.arch_defaults,
        )  # fmt: skip
    for name in ("batch", "context", "lora_rank"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
    if gpus < 1:
        raise UsageError("--gpus must be at least 1")
    # ZeRO only acts on several cards, so stage 3 is a harmless default for one card and
    # what `recommend` needs when it tries larger counts.
    zero = args.zero_stage if args.zero_stage is not None else 3
    return Request(
        workload=Workload(args.workload), arch=arch, precision=Precision(args.precision),
        kv_precision=Precision(args.kv_precision) if args.kv_precision else None, batch=args.batch,
        context=args.context, grad_checkpointing=args.grad_checkpointing, optimizer=args.optimizer,
        lora_rank=args.lora_rank, gpus=gpus, zero_stage=zero,
    )  # fmt: skip


def run_estimate(project: Project, args: argparse.Namespace) -> int:
    cat = _catalogue(project)
    try:
        req = _request(cat, args, args.gpus)
    except (UsageError, ValueError) as exc:
        print(f"gpu-guide estimate: {exc}", file=sys.stderr)
        return 2
    est = memory.estimate(req, cat.rules.memory)
    out: dict[str, Any] = {
        "total_gib": round(est.total_gib, 3),
        "breakdown": {k: round(v, 3) for k, v in est.breakdown.items()},
        "peak_phase": est.peak_phase,
        "gpus": req.gpus,
        "zero_stage": req.zero_stage,
        "assumptions": [{"key": a.key, "value": a.value, "text": a.text_zh} for a in est.assumptions],
    }
    if args.gpu_memory_gb:
        base = replace(req, gpus=1)
        out["gpu_memory_gb"] = args.gpu_memory_gb
        out["usable_gib"] = round(memory.usable_gib(args.gpu_memory_gb, cat.rules.memory), 3)
        out["min_gpus"] = memory.min_gpus(base, args.gpu_memory_gb, cat.rules.memory, MAX_CARDS)
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2, sort_keys=True))
        return 0
    print(f"Peak memory per card: {est.total_gib:.1f} GiB on {req.gpus} card(s) ({est.peak_phase})")
    for k, v in est.breakdown.items():
        print(f"  {k:<17} {v:8.2f} GiB")
    if "min_gpus" in out:
        fits = out["min_gpus"]
        print(f"Cards of {args.gpu_memory_gb:g} GB needed: {fits if fits else f'more than {MAX_CARDS}'}")
    for a in est.assumptions:
        print(f"  - {a.text_zh}")
    return 0


def run_recommend(project: Project, args: argparse.Namespace) -> int:
    cat = _catalogue(project)
    try:
        req = _request(cat, args, 1)
    except (UsageError, ValueError) as exc:
        print(f"gpu-guide recommend: {exc}", file=sys.stderr)
        return 2
    c = Constraints(
        domestic_only=args.domestic_only, require_cuda=args.require_cuda, budget_cny_month=args.budget,
        hours_per_month=args.hours_per_month, disk_gb=args.disk_gb, egress_gb_month=args.egress_gb,
        public_ip=not args.no_public_ip, job_tokens_b=args.job_tokens,
    )  # fmt: skip
    rec = recommend(cat, lambda gpu: size_workload(req, gpu, cat.rules, args.job_tokens), req.workload, c)
    rows = []
    for rank, o in enumerate(rec.options, 1):
        rows.append(
            {
                "rank": rank,
                "gpu": o.gpu.id,
                "name": o.gpu.name,
                "eligible": o.eligible,
                "cards": o.cards,
                "per_card_gib": round(o.sizing.per_card_gib, 3),
                "delivery": o.delivery.value,
                "offer": o.offer.id if o.offer else None,
                "monthly_cost_cny": round(o.monthly.total, 2) if o.monthly else None,
                "job_hours": round(o.job_hours, 2) if o.job_hours is not None else None,
                "job_cost_cny": round(o.job_cost_cny, 2) if o.job_cost_cny is not None else None,
                "cost_per_million_tokens_cny": round(o.cost_per_mtok_cny, 4) if o.cost_per_mtok_cny else None,
                "excluded": o.excluded,
                "reasons": o.reasons,
            }
        )
    if args.json:
        print(json.dumps({"options": rows, "pick": rows[0]["gpu"] if rec.pick else None}, ensure_ascii=False,
                         indent=2, sort_keys=True))  # fmt: skip
        return 0
    for r in rows:
        cost = f"¥{r['monthly_cost_cny']:,.0f}/月" if r["monthly_cost_cny"] is not None else "—"
        extra = ""
        if r["job_cost_cny"] is not None:
            extra = f"  任务 ¥{r['job_cost_cny']:,.0f}（{r['job_hours']:,.0f} 小时）"
        elif r["cost_per_million_tokens_cny"] is not None:
            extra = f"  ¥{r['cost_per_million_tokens_cny']:,.2f}/百万 token"
        state = "" if r["eligible"] else f"  [{r['excluded']}]"
        cards = r["cards"] or "-"
        print(f"{r['rank']:>2}. {r['name']:<28} ×{cards:<3} {r['per_card_gib']:>6.1f} GiB/卡  {r['delivery']:<11} {cost}{extra}{state}")
    return 0
