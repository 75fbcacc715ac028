"""``gpu-guide estimate`` / ``recommend`` for a ``kind: video`` model (Wan 2.1 T2V).

``estimate`` prints the request's memory by phase (and, with ``--gpu``, the placement
video_plans.fit gives that card -- offloaded only where the request's own does not fit -- and the
seconds per video at ``--gpus`` cards); ``recommend`` ranks every GPU by rent per
video (generator/results/video_plans.py). The figures are generator/engine/video.py's; the words are
the message table's.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import Any

from generator.data.catalogue import Catalogue
from generator.data.records import ModelKind, OpenModel, Workload
from generator.engine import video
from generator.engine.video import VideoRequest
from generator.formats import cny
from generator.pages.messages import explain
from generator.results import video_plans
from generator.results.video_plans import VideoPlan

#: A request's defaults where the flags and the model's video_size leave them out: the Wan README's
#: examples (1280*720, 81 frames).
DEFAULT_SIZE = (1280, 720)
DEFAULT_FRAMES = 81

#: The workload flags (cli/workload.py add_workload_arguments) a video model takes; every other one
#: is refused for it (:func:`refused_flags`), so a flag added later is refused until it is listed here.
VIDEO_FLAGS = frozenset({"workload", "model", "resolution", "frames", "offload_model", "t5_cpu", "steps", "json",
                         "gpus", "gpu", "require_cuda", "videos_per_month"})  # fmt: skip

#: A refused flag: its destination, its option string and its default (set but equal: not given).
Refused = tuple[str, str, object]


def refused_flags(actions: Iterable[argparse.Action]) -> tuple[Refused, ...]:
    """The options among a parser's ``actions`` that a video model does not take (not in :data:`VIDEO_FLAGS`)."""
    return tuple((a.dest, a.option_strings[0], a.default) for a in actions
                 if a.option_strings and a.dest not in VIDEO_FLAGS and a.dest != "help")  # fmt: skip


def is_video(cat: Catalogue, args: argparse.Namespace) -> bool:
    """Whether ``--model`` names a video model."""
    m = cat.models.get(args.model) if getattr(args, "model", None) else None
    return m is not None and m.kind is ModelKind.video


def video_request(cat: Catalogue, args: argparse.Namespace) -> tuple[OpenModel, VideoRequest]:
    """The model and its request from the flags; ValueError names the flag that does not apply."""
    model = cat.models[args.model]
    if args.workload != Workload.inference.value:
        raise ValueError(f'"{model.id}" is a video model: it is sized for generating videos (--workload inference)')
    for dest, flag, default in args.not_for_video:
        if getattr(args, dest, default) != default:
            raise ValueError(f"{flag} is not for video models")
    size = args.resolution if args.resolution is not None else (model.video_size or DEFAULT_SIZE)
    if not isinstance(size, tuple):
        raise ValueError("a video's --resolution is WIDTHxHEIGHT, e.g. 1280x720")
    frames = args.frames if args.frames is not None else DEFAULT_FRAMES
    stride = cat.rules.speed.video.vae_stride[0]
    if (frames - 1) % stride:
        raise ValueError(
            f"--frames must be {stride}n+1 (the Wan-VAE keeps the first frame, then every {stride}), got {frames}"
        )
    steps = args.steps or model.default_steps or cat.rules.speed.video.default_steps
    req = VideoRequest(
        width=size[0], height=size[1], frames=frames, steps=steps, guidance=(model.denoiser_passes or 1) > 1,
        offload_model=bool(args.offload_model), t5_cpu=bool(args.t5_cpu),
    )  # fmt: skip
    return model, req


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, allow_nan=False)


def _request_json(req: VideoRequest, tokens: int) -> dict[str, Any]:
    return {"width": req.width, "height": req.height, "frames": req.frames, "steps": req.steps,
            "guidance": req.guidance, "offload_model": req.offload_model, "t5_cpu": req.t5_cpu, "tokens": tokens}  # fmt: skip


def _placement_json(req: VideoRequest, peak_gib: float) -> dict[str, Any]:
    return {"offload_model": req.offload_model, "t5_cpu": req.t5_cpu, "peak_gib": round(peak_gib, 3)}


def _plan_json(model: OpenModel, req: VideoRequest, p: VideoPlan) -> dict[str, Any]:
    fps = model.video_fps or 16.0
    return {
        "gpu": p.gpu.id, "name": p.gpu.name, "offer": p.offer.id, "cards": p.cards,
        "offload_model": p.request.offload_model, "t5_cpu": p.request.t5_cpu, "needs_offload": p.fit.needs_offload,
        "peak_gib": round(p.memory.peak_gib, 3), "seconds_per_video": round(p.speed.seconds, 1),
        "hourly_cny_per_card": round(p.hourly_cny, 4), "cny_per_video": round(p.cny_per_video, 4),
        "rent_per_video_cny": round(p.rent_per_video, 4),
        "cny_per_video_minute": round(p.cny_per_video / (req.frames / fps / 60.0), 4),
        "month_cny": None if p.month_cny is None else round(p.month_cny, 2),
    }  # fmt: skip


def video_estimate(cat: Catalogue, args: argparse.Namespace) -> int:
    """Memory by phase at ``--gpus`` cards; seconds and rent per video on ``--gpu`` where given."""
    try:
        model, req = video_request(cat, args)
        gpu = cat.gpus.get(args.gpu) if args.gpu else None
        if args.gpu and gpu is None:
            raise ValueError(f'no GPU has id "{args.gpu}"')
        scaling = video.sp_scaling(cat.rules, args.gpus)
        if scaling is None:
            counts = ", ".join(sorted(cat.rules.speed.video.sp_scaling, key=int))
            raise ValueError(f"--gpus {args.gpus}: the Wan speed-up table gives {counts} cards only")
    except ValueError as exc:
        print(f"gpu-guide estimate: {exc}", file=sys.stderr)
        return 2
    cfg, k = video_plans.dit_config(model), video.constants(cat.rules)
    m = video.memory(cfg, req, k, cards=args.gpus)
    g = video.geometry(req, k)
    out: dict[str, Any] = {
        "model": model.id, "kind": "video", "gpus": args.gpus, "request": _request_json(req, g.tokens),
        "memory_gib": {"text": round(m.text_gib, 3), "denoise": round(m.denoise_gib, 3), "decode": round(m.decode_gib, 3),
                       "peak": round(m.peak_gib, 3)},
    }  # fmt: skip
    if gpu is not None:
        f = video_plans.fit(cat, cfg, req, gpu, cards=args.gpus)  # the ranking's fit test and placement
        peak = video_plans.peak_tflops(gpu)
        s = video.seconds_per_video(cfg, f.request, k, peak or 0.0, scaling=scaling, cards=args.gpus)
        out["speed"] = {"gpu": gpu.id, "seconds_per_video": round(s.seconds, 1) if peak else None,
                        "tflops": round(s.tflops, 1), "fits": f.fits, "usable_gib": round(f.usable_gib, 3),
                        "placement": _placement_json(f.request, f.memory.peak_gib), "needs_offload": f.needs_offload}  # fmt: skip
    if args.json:
        print(_dumps(out))
        return 0
    print(f"{model.name}: {req.width}x{req.height}, {req.frames} frames, {req.steps} steps ({g.tokens:,} tokens)")
    print(f"Peak memory per card: {m.peak_gib:.1f} GiB on {args.gpus} card(s)")
    for phase in ("text", "denoise", "decode"):
        print(f"  {phase:<8} {out['memory_gib'][phase]:8.2f} GiB")
    if "speed" in out:
        sp = out["speed"]
        placed = sp["placement"]
        flags = " ".join(
            flag for key, flag in (("offload_model", "--offload-model"), ("t5_cpu", "--t5-cpu")) if placed[key]
        )
        note = (
            " (does not fit the card)"
            if not sp["fits"]
            else f" (fits only with {flags})"
            if sp["needs_offload"]
            else ""
        )
        print(f"On {args.gpus} x {gpu.name if gpu else ''}: {sp['seconds_per_video']} s per video,"
              f" {placed['peak_gib']:.1f} GiB per card{note}")  # fmt: skip
    return 0


def video_recommend(cat: Catalogue, args: argparse.Namespace) -> int:
    """Every GPU with offers, cheapest per video first, then the ones ruled out and why."""
    try:
        model, req = video_request(cat, args)
    except ValueError as exc:
        print(f"gpu-guide recommend: {exc}", file=sys.stderr)
        return 2
    plans, excluded = video_plans.rank(cat, model, req, args.videos_per_month, getattr(args, "require_cuda", None))
    tokens = video.geometry(req, video.constants(cat.rules)).tokens
    result = {
        "model": model.id, "kind": "video", "request": _request_json(req, tokens),
        "videos_per_month": args.videos_per_month,
        "options": [_plan_json(model, req, p) for p in plans],
        "excluded": [{"gpu": e.gpu.id, "name": e.gpu.name, "kind": e.why.kind.value, "reason": explain(e.why)}
                     for e in excluded],
        "pick": plans[0].gpu.id if plans else None,
    }  # fmt: skip
    if args.json:
        print(_dumps(result))
        return 0
    print(f"{model.name}: {req.width}x{req.height}, {req.frames} frames, {req.steps} steps")
    for i, r in enumerate(result["options"], 1):
        month = f"  {cny(r['month_cny'])}/月" if r["month_cny"] is not None else ""
        offload = "  需卸载" if r["needs_offload"] else ""
        print(f"{i:>2}. {r['name']:<28} ×{r['cards']:<2} {r['peak_gib']:>6.1f} GiB/卡  {r['seconds_per_video']:>8,.0f} 秒/段"
              f"  {cny(r['cny_per_video'], 2)}/段{month}{offload}")  # fmt: skip
    for e in result["excluded"]:
        print(f"  - {e['name']}: {e['reason']}")
    return 0
