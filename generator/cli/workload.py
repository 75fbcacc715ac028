"""``gpu-guide estimate`` and ``gpu-guide recommend``: the engine from the command line.

Flags a user leaves out take their value from ``rules.yaml``'s ``defaults`` section, the
same values the scenario pages, model pages and the calculator use. ``--json`` output is
strict JSON (no NaN or Infinity).
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from generator.cli.arguments import billing_tiers, bounded, number, side_or_size, slug, whole
from generator.cli.video import is_video, refused_flags, video_estimate, video_recommend
from generator.data.catalogue import Catalogue
from generator.data.problems import DataError
from generator.data.records import Gpu, ModelKind, Offload, Optimizer, Precision, Runtime, Workload
from generator.data.validate import load_catalogue
from generator.engine import memory, speed
from generator.engine.arch import Arch, shape_problem
from generator.engine.cost import Usage
from generator.engine.flags import FLAG_OF, default_precision, request_from_flags
from generator.engine.hfconfig import ConfigError, key_line, read_config
from generator.engine.limits import context_limit, limit_text_en
from generator.engine.plans import Load
from generator.engine.recommend import Constraints, Option, Recommendation, recommend
from generator.engine.request import Request
from generator.engine.sizing import MAX_CARDS, arch_for, output_tokens, size_workload
from generator.formats import cny
from generator.pages.messages import assumption_text, explain
from generator.pipeline import Project

#: Largest cluster ``estimate --gpus`` takes: Llama 3 405B trained on 16,384 H100 (Llama 3 paper §3.3),
#: so the published large runs can be estimated. Plans still search up to ``MAX_CARDS``.
MAX_CLUSTER_GPUS = 16_384

#: Architecture fields ``--params`` may come with (each derived from the parameter count when missing).
ARCH_FLAGS = ("layers", "hidden", "heads", "kv-heads", "vocab", "intermediate", "head-dim")
#: Mixture-of-experts and embedding fields ``--params`` may come with.
MOE_FLAGS = ("experts", "experts-per-token", "active-params", "tied-embeddings")
#: What the model was built for, with ``--params`` (a catalogue model has its own ``max_context``).
LIMIT_FLAGS = ("max-context",)
#: Attention and MoE variants (latent attention, windows, linear attention, dense and shared experts):
#: flag, Arch field, help. Never derived: a model without them has none.
VARIANT_FLAGS = (
    ("kv-lora-rank", "kv_lora_rank", "multi-head latent attention: the cached latent (config.json kv_lora_rank)"),
    ("qk-rope-head-dim", "qk_rope_dim", "with --kv-lora-rank: the rotary key cached beside it"),
    ("sliding-window", "window", "tokens a windowed layer attends to (sliding_window / attention_chunk_size)"),
    ("window-layers", "window_layers", "with --sliding-window: layers that use the window"),
    ("linear-layers", "linear_layers", "linear-attention layers (no KV cache, a fixed state per sequence)"),
    ("linear-state", "linear_state", "with --linear-layers: state values per sequence per such layer"),
    ("dense-layers", "dense_layers", "MoE: leading layers with a dense MLP (first_k_dense_replace)"),
    ("shared-experts", "shared_experts", "MoE: shared experts every token passes through, in expert widths"),
)
#: Arch fields of :func:`generator.engine.arch.shape_problem` as flags.
_FLAG_OF = {"kv_heads": "kv-heads", "heads": "heads", "experts_per_token": "experts-per-token",
            "window_layers": "window-layers", "linear_layers": "linear-layers", "dense_layers": "dense-layers"}  # fmt: skip


def add_workload_arguments(p: argparse.ArgumentParser, recommend: bool) -> None:
    """The workload description both commands share, plus each one's own options."""
    p.add_argument("--workload", required=True, choices=[w.value for w in Workload])
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--model", type=slug, help="model id from data/models.yaml")
    who.add_argument("--params", type=bounded("params"), metavar="BILLIONS",
                     help="total parameters in billions (MoE: all)")  # fmt: skip
    who.add_argument("--config-json", metavar="PATH",
                     help="a Hugging Face config.json: the model's shape and parameter count read from it")  # fmt: skip
    for name in ARCH_FLAGS:
        p.add_argument(f"--{name}", type=bounded(name), help="with --params: architecture field (derived if missing)")
    p.add_argument("--experts", type=bounded("experts"), help="with --params: routed experts per MoE layer")
    p.add_argument(
        "--experts-per-token", type=bounded("experts-per-token"), help="with --experts: experts each token uses"
    )
    p.add_argument("--active-params", type=bounded("active-params"), metavar="BILLIONS",
                   help="with --experts: parameters one token passes through")  # fmt: skip
    p.add_argument("--tied-embeddings", action="store_true", help="with --params: input and output embeddings shared")
    p.add_argument("--max-context", type=bounded("max-context"), metavar="TOKENS",
                   help="with --params: the longest context the model's positions reach (config.json "
                   "max_position_embeddings); a longer request is refused")  # fmt: skip
    for flag, _field, text in VARIANT_FLAGS:
        p.add_argument(f"--{flag}", type=bounded(flag), help=f"with --params: {text}")
    p.add_argument("--precision", choices=[x.value for x in Precision],
                   help="weights and compute (default: serving a --model released in a low precision, its "
                        "published checkpoint's, e.g. fp8; an image model's pipeline dtype; else rules.yaml "
                        "defaults.precision)")  # fmt: skip
    p.add_argument("--kv-precision", choices=[x.value for x in Precision])
    p.add_argument("--batch", type=bounded("batch"), help="default: rules.yaml defaults.batch")
    p.add_argument("--context", type=bounded("context"), help="tokens per sequence (default: rules.yaml)")
    p.add_argument("--grad-checkpointing", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--optimizer", choices=[o.value for o in Optimizer])
    p.add_argument("--lora-rank", type=bounded("lora-rank"))
    p.add_argument("--zero-stage", type=int, default=None, choices=[0, 1, 2, 3],
                   help="training on several cards: ZeRO stage (default: rules.yaml)")  # fmt: skip
    p.add_argument("--prompt-tokens", type=bounded("prompt-tokens"),
                   help="serving: prompt tokens per request (with --output-tokens, context = the two together)")  # fmt: skip
    p.add_argument("--output-tokens", type=bounded("output-tokens"),
                   help="serving: tokens generated per request (default: rules.yaml defaults.output_tokens)")  # fmt: skip
    p.add_argument("--resolution", type=side_or_size,
                   help="image models: side of the square image in pixels (default: rules.yaml); "
                        "video models: WIDTHxHEIGHT, e.g. 1280x720 (default: 1280x720)")  # fmt: skip
    p.add_argument("--frames", type=whole(1, 1001),
                   help="video models: frames per video, 4n+1 (default: 81, five seconds at 16 fps)")  # fmt: skip
    p.add_argument("--offload-model", action="store_true",
                   help="video models: Wan --offload_model True (DiT and T5 on the card only in their own phase)")  # fmt: skip
    p.add_argument("--t5-cpu", action="store_true", help="video models: Wan --t5_cpu (the text encoder on the CPU)")
    p.add_argument("--offload", choices=[o.value for o in Offload],
                   help="image models: none (all parts on the GPU) or model (model CPU offload)")  # fmt: skip
    p.add_argument("--runtime", choices=[r.value for r in Runtime],
                   help="serving a language model: the software whose way of allocating memory is assumed "
                        "(default: rules.yaml defaults.runtime)")  # fmt: skip
    p.add_argument("--steps", type=bounded("steps"),
                   help="image models: denoising steps per image (default: the model's default_steps)")  # fmt: skip
    p.add_argument("--json", action="store_true", help="machine-readable output")
    if recommend:
        p.add_argument("--domestic-only", action="store_true", help="only 国产 accelerators")
        p.add_argument("--require-cuda", action=argparse.BooleanOptionalAction, default=None,
                       help="only NVIDIA GPUs (default: rules.yaml defaults.require_cuda)")  # fmt: skip
        p.add_argument("--budget", type=bounded("budget"), metavar="CNY", help="monthly budget in yuan")
        p.add_argument("--hours-per-month", type=bounded("hours-per-month"),
                       help="hours the cards run a month (default: the whole month)")  # fmt: skip
        p.add_argument("--job-tokens", type=bounded("job-tokens"), metavar="BILLIONS",
                       help="training: tokens to process")  # fmt: skip
        p.add_argument("--deadline-days", type=bounded("deadline-days"), metavar="DAYS",
                       help="training: finish within DAYS (plans scale out to meet it)")  # fmt: skip
        p.add_argument("--images-per-month", type=bounded("images-per-month"), metavar="IMAGES",
                       help="image models: images to make a month (plans rent enough copies)")  # fmt: skip
        p.add_argument("--videos-per-month", type=bounded("images-per-month"), metavar="VIDEOS",
                       help="video models: videos to make a month (priced at the month's rent over them)")  # fmt: skip
        p.add_argument("--disk-gb", type=bounded("disk-gb"))
        p.add_argument("--egress-gb", type=bounded("egress-gb"))
        p.add_argument("--public-ip", action=argparse.BooleanOptionalAction, default=None,
                       help="rent one public IP per instance (default: rules.yaml defaults.public_ip)")  # fmt: skip
        p.add_argument("--billing", type=billing_tiers, metavar="TIER[,TIER]",
                       help="billing tiers that may price an option, e.g. on_demand or on_demand,daily "
                            "(default: rules.yaml prices.pick_billing)")  # fmt: skip
    else:
        p.add_argument("--gpus", type=whole(1, MAX_CLUSTER_GPUS), default=1,
                       help="cards (tensor parallel for inference, ZeRO for training)")  # fmt: skip
        p.add_argument("--gpu-memory-gb", type=number(0, 1024, low_open=True),
                       help="a card's nominal memory; adds min_gpus to the result")  # fmt: skip
        p.add_argument("--gpu", type=slug, metavar="GPU_ID",
                       help="GPU id from data/gpus.yaml: adds a speed object (and min_gpus for its memory)")  # fmt: skip
        p.add_argument("--job-tokens", type=bounded("job-tokens"), metavar="BILLIONS",
                       help="training with --gpu: tokens to process, for train_hours and gpu_hours")  # fmt: skip
    # what a video model refuses, from the flags just declared (the parser keeps no public list of them)
    p.set_defaults(not_for_video=refused_flags(p._actions))


class UsageError(Exception):
    """A value that parses but names nothing in the data (an unknown model id)."""


def _catalogue(project: Project) -> Catalogue:
    cat, problems = load_catalogue(project.data, display_root=project.root, build_date=project.build_date)
    if cat is None:
        raise DataError(problems)
    return cat


def _with_config_json(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with the shape flags a ``--config-json`` file stands for (see :mod:`generator.engine.hfconfig`).

    Refusals name the file, the key's line and the key: ``config.json:12: num_key_value_heads: …``.
    """
    path = Path(args.config_json)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--config-json {path}: cannot read it ({exc.__class__.__name__})") from None
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    try:
        read = read_config(parsed)
    except ConfigError as exc:
        line = key_line(text, exc.key)
        raise UsageError(f"{path}{f':{line}' if line else ''}: {exc.key}: {exc.reason}") from None
    out = argparse.Namespace(**vars(args))
    for flag, value in read.flags.items():
        name = flag.replace("-", "_")
        if getattr(args, name) not in (None, False):
            raise UsageError(
                f"--{flag} describes a model given by --params; --config-json gives the file's own figures"
            )
        try:
            setattr(out, name, True if flag == "tied-embeddings" else bounded(flag)(value))
        except argparse.ArgumentTypeError as exc:
            raise UsageError(f"{path}: {flag.replace('-', '_')} read as {value}: {exc}") from None
    out.config_json = None
    return out


def _arch(cat: Catalogue, args: argparse.Namespace) -> Arch:
    """The model's shape: a ``models.yaml`` entry, a ``config.json``, or ``--params`` with whatever fields are given."""
    if getattr(args, "config_json", None) is not None:
        args = _with_config_json(args)
    names = (*ARCH_FLAGS, *MOE_FLAGS, *(f for f, _, _ in VARIANT_FLAGS), *LIMIT_FLAGS)
    shape_flags = [f for f in names if getattr(args, f.replace("-", "_")) not in (None, False)]
    if args.model is not None:
        if shape_flags:
            raise UsageError(
                f"--{shape_flags[0]} describes a model given by --params; --model uses the model's own figures"
            )
        if args.model not in cat.models:
            close = difflib.get_close_matches(args.model, list(cat.models), n=1)
            hint = f'; did you mean "{close[0]}"?' if close else f"; known: {', '.join(cat.models)}"
            raise UsageError(f'unknown model "{args.model}"{hint}')
        return arch_for(cat.models[args.model], cat.rules)
    if args.experts is None and (args.experts_per_token is not None or args.active_params is not None):
        raise UsageError("--experts-per-token and --active-params describe a mixture of experts: add --experts")
    if args.experts is not None and args.experts_per_token is not None and args.experts_per_token > args.experts:
        raise UsageError(f"--experts-per-token {args.experts_per_token} is more than --experts {args.experts}")
    if args.active_params is not None and args.active_params > args.params:
        raise UsageError(f"--active-params {args.active_params:g} is more than --params {args.params:g}")
    variants = {field: getattr(args, flag.replace("-", "_")) for flag, field, _ in VARIANT_FLAGS}
    if variants["qk_rope_dim"] is not None and variants["kv_lora_rank"] is None:
        raise UsageError("--qk-rope-head-dim belongs to latent attention: add --kv-lora-rank")
    if (variants["linear_state"] is None) != (variants["linear_layers"] is None):
        raise UsageError("--linear-layers and --linear-state go together")
    if (variants["dense_layers"] is not None or variants["shared_experts"] is not None) and args.experts is None:
        raise UsageError("--dense-layers and --shared-experts describe a mixture of experts: add --experts")
    counts: dict[str, int] = {k: v or 0 for k, v in variants.items() if k not in {"kv_lora_rank", "window"}}
    counted = [f for f in ("window_layers", "linear_layers", "dense_layers") if counts[f]]
    if counted and args.layers is None:
        raise UsageError(f"--{_FLAG_OF[counted[0]]} counts some of the layers: add --layers")
    problem = shape_problem(
        layers=args.layers, hidden=args.hidden, heads=args.heads, kv_heads=args.kv_heads, head_dim=args.head_dim,
        experts=args.experts, experts_per_token=args.experts_per_token, window=variants["window"],
        window_layers=counts["window_layers"], linear_layers=counts["linear_layers"],
        dense_layers=counts["dense_layers"], kv_lora_rank=variants["kv_lora_rank"],
    )  # fmt: skip
    if problem is not None:
        raise UsageError(f"--{_FLAG_OF[problem[0]]}: {problem[1]}")
    return Arch.from_params(
        args.params, layers=args.layers, hidden=args.hidden, heads=args.heads, kv_heads=args.kv_heads,
        vocab=args.vocab, intermediate=args.intermediate, head_dim=args.head_dim, experts=args.experts,
        experts_per_token=args.experts_per_token, active_params_b=args.active_params,
        tied_embeddings=args.tied_embeddings, defaults=cat.rules.memory.arch_defaults,
        kv_lora_rank=variants["kv_lora_rank"], window=variants["window"], qk_rope_dim=counts["qk_rope_dim"],
        window_layers=counts["window_layers"], linear_layers=counts["linear_layers"],
        linear_state=counts["linear_state"], dense_layers=counts["dense_layers"],
        shared_experts=counts["shared_experts"],
    )  # fmt: skip


def _model_limit(cat: Catalogue, args: argparse.Namespace) -> tuple[int | None, str]:
    """The longest context the model's positions reach and where it was read: ``models.yaml``'s
    ``max_context``, else ``--max-context`` (a config.json's ``max_position_embeddings``); None: no limit."""
    if args.model is not None and args.model in cat.models:
        return cat.models[args.model].max_context, "max_context"
    return args.max_context, "max_position_embeddings"


def _context_flag(args: argparse.Namespace) -> str:
    """The flag a too-long context is blamed on (workload.js contextField)."""
    if args.context is not None:
        return "--context"
    if args.prompt_tokens is not None:
        return "--prompt-tokens"
    return "--output-tokens" if args.output_tokens is not None else "--context"


def _request(cat: Catalogue, args: argparse.Namespace, gpus: int) -> Request:
    if getattr(args, "config_json", None) is not None:
        args = _with_config_json(args)
    arch = _arch(cat, args)
    image = arch.kind is ModelKind.diffusion
    if image and args.workload != Workload.inference.value:
        raise UsageError(f'"{args.model}" is an image model: it is sized for generating images (--workload inference)')
    if image and args.context is not None:
        raise UsageError("--context is for language models; an image model's size is --resolution")
    if args.runtime is not None and (image or args.workload != Workload.inference.value):
        raise UsageError("--runtime is for serving a language model (--workload inference)")
    if not image and (args.resolution is not None or args.offload is not None):
        raise UsageError("--resolution and --offload are for image models")
    if isinstance(args.resolution, tuple):
        raise UsageError("an image model's --resolution is one side (1024 for 1024×1024), not WIDTHxHEIGHT")
    if args.frames is not None or args.offload_model or args.t5_cpu or getattr(args, "videos_per_month", None):
        raise UsageError("--frames, --offload-model, --t5-cpu and --videos-per-month are for video models")
    if not image and (args.steps is not None or getattr(args, "images_per_month", None) is not None):
        raise UsageError("--steps and --images-per-month are for image models")
    context, output = _serving_lengths(cat, args, arch.kind is ModelKind.llm)
    limit = context_limit(context, *_model_limit(cat, args)) if arch.kind is ModelKind.llm else None
    if limit is not None:
        raise UsageError(f"{_context_flag(args)}: {limit_text_en(limit)}")
    values = {flag: getattr(args, flag.replace("-", "_")) for flag in FLAG_OF.values()}
    precision, _ = _precision_default(cat, args)
    return request_from_flags(
        cat.rules.defaults, arch, values, gpus=gpus, context=context, output_tokens=output, precision=precision
    )


def _precision_default(cat: Catalogue, args: argparse.Namespace) -> tuple[Precision, str]:
    """The precision used when ``--precision`` is not given, and its source (flags.PRECISION_SOURCES)."""
    model = cat.models.get(args.model) if args.model is not None else None
    return default_precision(cat.rules.defaults, model, Workload(args.workload))


def precision_used(cat: Catalogue, args: argparse.Namespace) -> dict[str, str]:
    """``{"precision": …, "precision_source": …}`` for --json: "given" when --precision named it, else
    where the default came from (the model's published checkpoint, its pipeline, or rules.yaml)."""
    if args.precision is not None:
        return {"precision": args.precision, "precision_source": "given"}
    precision, source = _precision_default(cat, args)
    return {"precision": precision.value, "precision_source": source}


#: The text output's line for a precision nobody gave (the line is English, as the rest of estimate's).
_PRECISION_LINE = {
    "checkpoint": "Precision: {p} (the model's published checkpoint; --precision to size another)",
    "pipeline": "Precision: {p} (the model's pipeline dtype; --precision to size another)",
    "rules": "Precision: {p} (rules.yaml defaults.precision; --precision to size another)",
}


def precision_line(cat: Catalogue, args: argparse.Namespace) -> str | None:
    """The line the text output starts with when --precision was not given; None when it was."""
    if args.precision is not None:
        return None
    used = precision_used(cat, args)
    return _PRECISION_LINE[used["precision_source"]].format(p=used["precision"])


def _serving_lengths(cat: Catalogue, args: argparse.Namespace, llm: bool) -> tuple[int, int | None]:
    """(context, output tokens): --prompt-tokens + --output-tokens make the context when both are given."""
    prompt, output = args.prompt_tokens, args.output_tokens
    serving = args.workload == Workload.inference.value and llm
    if (prompt is not None or output is not None) and not serving:
        raise UsageError("--prompt-tokens and --output-tokens are for serving a language model (--workload inference)")
    if prompt is not None and output is not None:
        if args.context is not None and args.context != prompt + output:
            raise UsageError(f"--context {args.context} differs from --prompt-tokens + --output-tokens "
                             f"({prompt + output}); give one or the other")  # fmt: skip
        return prompt + output, output
    context = args.context if args.context is not None else cat.rules.defaults.context
    if prompt is not None:
        if prompt >= context:
            raise UsageError(f"--prompt-tokens {prompt} leaves no room for output in a {context}-token context; "
                             "add --output-tokens or raise --context")  # fmt: skip
        return context, context - prompt
    if output is not None and output >= context:
        raise UsageError(f"--output-tokens {output} must be below the context ({context} tokens)")
    return context, (output_tokens(output, context, cat.rules) if serving else None)


def _gpu(cat: Catalogue, gpu_id: str) -> Gpu:
    if gpu_id not in cat.gpus:
        close = difflib.get_close_matches(gpu_id, list(cat.gpus), n=1)
        hint = f'; did you mean "{close[0]}"?' if close else f"; known: {', '.join(cat.gpus)}"
        raise UsageError(f'unknown GPU "{gpu_id}"{hint}')
    return cat.gpus[gpu_id]


def speed_object(req: Request, gpu: Gpu, cat: Catalogue, job_tokens_b: float | None) -> dict[str, Any] | None:
    """The ``speed`` object of ``estimate --gpu``: training time, or serving speed on ``req.gpus`` cards."""
    rules, cards = cat.rules, req.gpus
    if req.workload is not Workload.inference:
        if not job_tokens_b:
            return None
        t = speed.training_hours(req, job_tokens_b * 1e9, gpu, cards, rules)
        return {
            "gpu": gpu.id,
            "cards": cards,
            "train_hours": round(t.hours, 3),
            "gpu_hours": round(t.gpu_hours, 3),
            "mfu": round(t.mfu, 4),
            "mfu_confirmed": t.platform.confirmed,
            "goodput": rules.speed.training.goodput,
            "model_flops": t.flops,
        }
    if req.arch.kind is not ModelKind.llm:
        return None
    output = req.output_tokens or output_tokens(None, req.context, rules)
    prompt = req.context - output
    decode = speed.decode_throughput(req, gpu, cards, rules)
    prefill = speed.prefill_seconds(req, gpu, cards, rules, prompt, req.batch)
    point = speed.serve(req, gpu, cards, rules, prompt, output, req.batch)
    most, capped = speed.max_concurrency(req, gpu, cards, rules)
    return {
        "gpu": gpu.id,
        "cards": cards,
        "batch": req.batch,
        "prompt_tokens": prompt,
        "output_tokens": output,
        "decode_tokens_per_s": round(decode.tokens_per_s, 3),
        "decode_bound": decode.bound,
        "prefill_tokens_per_s": round(req.batch * prompt / prefill, 3),
        "time_to_first_token_s": round(speed.time_to_first_token(req, gpu, cards, rules, prompt), 5),
        "output_tokens_per_s": round(point.output_tokens_per_s, 3),
        "max_concurrency": most,
        "max_concurrency_capped": capped,
    }


def _option_speed(o: Option) -> dict[str, Any]:
    """Serving and training figures of one option (recommend --json); speeds after delivery losses."""
    s = o.sizing
    if s.serving is not None and o.served_tokens_per_s is not None:
        cap = s.serving.at_capacity
        share = cap.output_tokens / (cap.prompt_tokens + cap.output_tokens)
        return {
            "serving": {
                "concurrency": cap.concurrency,
                "concurrency_capped": s.serving.capped,
                "prompt_tokens": cap.prompt_tokens,
                "output_tokens": cap.output_tokens,
                "tokens_per_s": round(o.served_tokens_per_s, 3),
                "output_tokens_per_s": round(o.served_tokens_per_s * share, 3),
                "time_to_first_token_s": round(cap.ttft_s, 5),
                "decode_tokens_per_s_at_batch": round(o.decode_tokens_per_s, 3) if o.decode_tokens_per_s else None,
                "cny_per_million_tokens": round(o.cost_per_mtok_cny, 4) if o.cost_per_mtok_cny else None,
                "cny_per_million_tokens_at_batch": round(o.cost_per_mtok_at_batch_cny, 4)
                if o.cost_per_mtok_at_batch_cny
                else None,
                # the figures the pages and the calculator show: at the stated load, after the
                # delivery's speed loss (the block above is one copy at capacity, before it)
                "at_load": _load_figures(o.load),
            }
        }
    if s.train is not None and o.job_hours is not None:
        return {"training": {"gpu_hours": round(o.job_hours * (o.cards or 1), 3), "mfu": round(s.train.mfu, 4),
                             "mfu_confirmed": s.train.platform.confirmed}}  # fmt: skip
    return {}


def _load_figures(load: Load | None) -> dict[str, Any] | None:
    """A serving plan at the reader's stated load (the plan search's :class:`Load`), or None."""
    if load is None:
        return None
    return {
        "copies": load.copies,
        "concurrency_per_copy": load.per_copy,
        "tokens_per_s": round(load.tokens_per_s, 3),
        "time_to_first_token_s": round(load.ttft_s, 5),
        "user_output_tokens_per_s": round(load.user_tokens_per_s, 3),
        "cny_per_million_tokens": round(load.cost_per_mtok_cny, 4),
    }


def _dumps(value: Any) -> str:
    """Strict JSON: a NaN or infinity would be a bug, so it raises instead of printing one."""
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, allow_nan=False)


def run_estimate(project: Project, args: argparse.Namespace) -> int:
    cat = _catalogue(project)
    if is_video(cat, args):
        return video_estimate(cat, args)
    try:
        req = _request(cat, args, args.gpus)
    except (UsageError, ValueError) as exc:
        print(f"gpu-guide estimate: {exc}", file=sys.stderr)
        return 2
    est = memory.estimate(req, cat.rules.memory)
    try:
        gpu = _gpu(cat, args.gpu) if args.gpu else None
    except UsageError as exc:
        print(f"gpu-guide estimate: {exc}", file=sys.stderr)
        return 2
    if args.job_tokens is not None and gpu is None:
        print(
            "gpu-guide estimate: --job-tokens needs --gpu GPU_ID (training time depends on the card)", file=sys.stderr
        )
        return 2
    out: dict[str, Any] = {
        "total_gib": round(est.total_gib, 3),
        "breakdown": {k: round(v, 3) for k, v in est.breakdown.items()},
        "peak_phase": est.peak_phase.value,
        "gpus": req.gpus,
        "zero_stage": req.zero_stage,
        **precision_used(cat, args),
        "assumptions": [{"key": a.key, "value": a.value, "text": assumption_text(a)} for a in est.assumptions],
    }
    if est.detail:
        out["detail"] = [{"label": explain(label), "gib": round(v, 3)} for label, v in est.detail]
    memory_gb = args.gpu_memory_gb or (gpu.memory_gb if gpu else None)
    if memory_gb:
        base = replace(req, gpus=1)
        out["gpu_memory_gb"] = memory_gb
        out["usable_gib"] = round(memory.usable_gib(memory_gb, cat.rules.memory), 3)
        out["min_gpus"] = memory.min_gpus(base, memory_gb, cat.rules.memory, MAX_CARDS)
    if gpu is not None:
        out["speed"] = speed_object(req, gpu, cat, args.job_tokens)
    if args.json:
        print(_dumps(out))
        return 0
    if (line := precision_line(cat, args)) is not None:
        print(line)
    print(f"Peak memory per card: {est.total_gib:.1f} GiB on {req.gpus} card(s) ({est.peak_phase.value})")
    for k, v in est.breakdown.items():
        print(f"  {k:<17} {v:8.2f} GiB")
    for label, v in est.detail:
        print(f"    {explain(label)}: {v:.2f} GiB")
    if "min_gpus" in out:
        fits = out["min_gpus"]
        print(f"Cards of {memory_gb:g} GB needed: {fits if fits else f'more than {MAX_CARDS}'}")
    if out.get("speed"):
        print("Speed on " + f"{req.gpus} x {gpu.name if gpu else ''}:")
        for k, v in out["speed"].items():
            print(f"  {k:<24} {v}")
    for a in est.assumptions:
        print(f"  - {assumption_text(a)}")
    return 0


def recommend_options(cat: Catalogue, args: argparse.Namespace) -> Recommendation:
    """Every GPU ranked for the workload the ``recommend`` flags describe. The calculator's JavaScript
    (docs/javascripts/engine/) computes the same; tests/test_calculator_parity.py compares them.
    Raises UsageError or ValueError for a request the engine cannot size."""
    req = _request(cat, args, 1)
    tiers = cat.rules.prices.pick_billing
    for tier in args.billing or ():
        if tier not in tiers:
            raise UsageError(
                f"--billing {tier.value}: such prices are shown but never ranked "
                f"(rules.yaml prices.pick_billing: {', '.join(t.value for t in tiers)})"
            )
    usage = Usage.from_rules(cat.rules, args.hours_per_month, args.disk_gb, args.egress_gb, args.public_ip)
    c = Constraints(
        usage=usage, domestic_only=args.domestic_only, require_cuda=cat.rules.defaults.require_cuda if args.require_cuda is None else args.require_cuda,
        budget_cny_month=args.budget, job_tokens_b=args.job_tokens, billing=args.billing,
        deadline_hours=args.deadline_days * 24 if args.deadline_days is not None else None,
        images_per_month=args.images_per_month,
    )  # fmt: skip
    return recommend(cat, lambda gpu: size_workload(req, gpu, cat.rules, args.job_tokens), req.workload, c)


def recommend_result(cat: Catalogue, args: argparse.Namespace) -> dict[str, Any]:
    """What ``recommend --json`` prints: every GPU ranked (:func:`recommend_options`), with the pick.

    Each option's exclusion and reasons come twice: in words (``excluded``, ``reasons``; the reasons
    end with the exclusion's words) and as records (``exclusion``, ``reason_records``: ``{"kind":
    …, "params": {…}}``, kinds of :class:`~generator.engine.exclusion.ExclusionKind` and
    :class:`~generator.engine.reason.ReasonKind`) for programs that sort or count them."""
    rec = recommend_options(cat, args)
    rows: list[dict[str, Any]] = []
    for rank, o in enumerate(rec.options, 1):
        rows.append(
            {
                "rank": rank,
                "gpu": o.gpu.id,
                "name": o.gpu.name,
                "eligible": o.eligible,
                "cards": o.cards,
                "cards_billed": o.cards_billed,
                "cards_used": o.cards_used,
                "idle_cards": o.idle_cards if o.cards_billed else None,
                "replicas": o.replicas if o.sizing.serving is not None and o.cards_billed else None,
                "per_card_gib": round(o.sizing.per_card_gib, 3),
                "delivery": o.delivery.value,
                "offer": o.offer.id if o.offer else None,
                "monthly_cost_cny": round(o.monthly.total, 2) if o.monthly else None,
                "job_hours": round(o.job_hours, 2) if o.job_hours is not None else None,
                "job_cost_cny": round(o.job_cost_cny, 2) if o.job_cost_cny is not None else None,
                "cost_per_million_tokens_cny": round(o.cost_per_mtok_cny, 4) if o.cost_per_mtok_cny else None,
                "images_per_hour": round(o.images_per_hour, 1) if o.images_per_hour is not None else None,
                "cost_per_1000_images_cny": round(o.cost_per_kimage_cny, 4)
                if o.cost_per_kimage_cny is not None
                else None,
                **_option_speed(o),
                "excluded": explain(o.excluded) if o.excluded else None,
                "exclusion": o.excluded.record() if o.excluded else None,
                "reasons": [explain(x) for x in o.reasons] + ([explain(o.excluded)] if o.excluded else []),
                # the same reasons as records ({kind, params}: the message table's kind and figures)
                "reason_records": [x.record() for x in o.reasons],
            }
        )
    return {"options": rows, "pick": rows[0]["gpu"] if rec.pick else None, **precision_used(cat, args)}


def run_recommend(project: Project, args: argparse.Namespace) -> int:
    cat = _catalogue(project)
    if is_video(cat, args):
        return video_recommend(cat, args)
    try:
        result = recommend_result(cat, args)
    except (UsageError, ValueError) as exc:
        print(f"gpu-guide recommend: {exc}", file=sys.stderr)
        return 2
    rows = result["options"]
    if args.json:
        print(_dumps(result))
        return 0
    if (line := precision_line(cat, args)) is not None:
        print(line)
    for r in rows:
        cost = f"{cny(r['monthly_cost_cny'])}/月" if r["monthly_cost_cny"] is not None else "—"
        extra = ""
        if r["job_cost_cny"] is not None:
            extra = f"  任务 {cny(r['job_cost_cny'])}（{r['job_hours']:,.0f} 小时）"
        elif r["cost_per_million_tokens_cny"] is not None:
            extra = f"  {cny(r['cost_per_million_tokens_cny'], 2)}/百万 token"
        elif r["cost_per_1000_images_cny"] is not None:
            extra = f"  {r['images_per_hour']:,.0f} 张/小时  {cny(r['cost_per_1000_images_cny'], 2)}/千张"
        state = "" if r["eligible"] else f"  [{r['excluded']}]"
        cards = r["cards"] or "-"
        if r["cards_billed"] and r["cards_billed"] != r["cards"]:
            cards = f"{cards}/{r['cards_billed']}"
        print(
            f"{r['rank']:>2}. {r['name']:<28} ×{cards:<3} {r['per_card_gib']:>6.1f} GiB/卡  {r['delivery']:<11} {cost}{extra}{state}"
        )
    return 0
