"""The workload flags of ``gpu-guide estimate`` / ``recommend`` and the :class:`Request` they
describe, both ways: the command line builds a request from its flags
(:func:`request_from_flags`, in :mod:`generator.cli.workload`) and the pages write the flags of a
request into calculator links (:func:`request_flags`, in :mod:`generator.pages.calculator`). The
calculator's URL keys are the same flag names, so a link opens what ``recommend`` would compute.
One table, :data:`FLAG_OF`, names the flag of each request field.
"""

from __future__ import annotations

from collections.abc import Mapping

from generator.data.catalogue import Catalogue
from generator.data.records import ModelKind, Offload, OpenModel, Optimizer, Precision, Runtime, Workload
from generator.data.rules import DefaultRules
from generator.engine.arch import Arch
from generator.engine.request import Request
from generator.engine.sizing import output_tokens as default_output_tokens

#: The flag (without dashes) of each :class:`Request` field a person may give.
FLAG_OF: dict[str, str] = {
    "workload": "workload",
    "precision": "precision",
    "kv_precision": "kv-precision",
    "batch": "batch",
    "context": "context",
    "grad_checkpointing": "grad-checkpointing",
    "optimizer": "optimizer",
    "lora_rank": "lora-rank",
    "zero_stage": "zero-stage",
    "output_tokens": "output-tokens",
    "resolution": "resolution",
    "offload": "offload",
    "steps": "steps",
    "runtime": "runtime",
}

#: Where a request's precision came from when the flags name none (:func:`default_precision`):
#: the model's published weights, an image model's pipeline dtype, or rules.yaml defaults.precision.
PRECISION_SOURCES = ("checkpoint", "pipeline", "rules")


def default_precision(defaults: DefaultRules, model: OpenModel | None, workload: Workload) -> tuple[Precision, str]:
    """The precision a request without ``--precision`` is sized in, and where it came from
    (one of :data:`PRECISION_SOURCES`).

    Serving a language model released in a low precision sizes its published weights
    (``checkpoint_precision``: Kimi K2 and DeepSeek-V3's FP8, gpt-oss's MXFP4), as its model page
    does; an image model runs in its ``pipeline_precision``. Everything else, fine-tuning included
    (an FP8 checkpoint is upcast to train it), takes ``rules.yaml defaults.precision``. The
    calculator's ``defaultPrecision`` (docs/javascripts/engine/workload.js) is the same rule.
    """
    if model is not None and workload is Workload.inference:
        if model.kind is ModelKind.llm and model.checkpoint_precision is not None:
            return model.checkpoint_precision, "checkpoint"
        if model.kind is ModelKind.diffusion and model.pipeline_precision is not None:
            return model.pipeline_precision, "pipeline"
    return Precision(defaults.precision), "rules"


#: A flag's value as parsed: text for the enums, numbers, a switch, or None when not given.
FlagValue = str | int | float | bool | None


def request_from_flags(
    defaults: DefaultRules, arch: Arch, values: Mapping[str, FlagValue], *, gpus: int, context: int,
    output_tokens: int | None, precision: Precision | None = None,
) -> Request:  # fmt: skip
    """The request the flags describe (``values`` keyed by :data:`FLAG_OF`'s flags; None: not given,
    so rules.yaml's default). ``context`` and ``output_tokens`` come worked out by the caller (a
    prompt and an output may make the context); ``precision`` is the one to use when the flags name
    none (:func:`default_precision`; None: rules.yaml's)."""

    def text(flag: str) -> str | None:
        value = values.get(flag)
        return None if value is None else str(value)

    def whole(flag: str) -> int | None:
        value = values.get(flag)
        return None if value is None else int(value)

    kv, optimizer, offload, runtime = text("kv-precision"), text("optimizer"), text("offload"), text("runtime")
    switch = values.get("grad-checkpointing")
    return Request.with_defaults(
        defaults, Workload(str(values["workload"])), arch, Precision(text("precision") or precision or defaults.precision),
        kv_precision=None if kv is None else Precision(kv), batch=whole("batch"), context=context,
        grad_checkpointing=None if switch is None else bool(switch),
        optimizer=None if optimizer is None else Optimizer(optimizer), lora_rank=whole("lora-rank"),
        gpus=gpus, zero_stage=whole("zero-stage"), output_tokens=output_tokens, resolution=whole("resolution"),
        offload=None if offload is None else Offload(offload), steps=whole("steps"),
        runtime=None if runtime is None else Runtime(runtime),
    )  # fmt: skip


def request_flags(cat: Catalogue, model_id: str, req: Request, job_tokens_b: float | None) -> dict[str, str]:
    """The ``recommend`` flags that describe ``req`` for a model of the data, leaving out every value the
    command line (and the calculator) would assume anyway. The precision is written whenever it is not
    rules.yaml's, even where it is the model's own default (a link says FP8 for an FP8 checkpoint)."""
    d = cat.rules.defaults
    model = cat.models[model_id]
    flags: dict[str, str] = {FLAG_OF["workload"]: req.workload.value, "model": model_id}
    if req.precision is not d.precision or req.precision is not default_precision(d, model, req.workload)[0]:
        flags[FLAG_OF["precision"]] = req.precision.value
    if req.kv_precision is not None:
        flags[FLAG_OF["kv_precision"]] = req.kv_precision.value
    if req.batch != d.batch:
        flags[FLAG_OF["batch"]] = num(req.batch)
    if model.kind is ModelKind.diffusion:
        if req.resolution != d.resolution:
            flags[FLAG_OF["resolution"]] = num(req.resolution)
        if req.offload is not d.offload:
            flags[FLAG_OF["offload"]] = req.offload.value
        if req.steps is not None:
            flags[FLAG_OF["steps"]] = num(req.steps)
        return flags
    if req.context != d.context:
        flags[FLAG_OF["context"]] = num(req.context)
    if req.workload is Workload.inference:
        if req.output_tokens is not None and req.output_tokens != default_output_tokens(None, req.context, cat.rules):
            flags[FLAG_OF["output_tokens"]] = num(req.output_tokens)
        if req.runtime is not d.runtime:
            flags[FLAG_OF["runtime"]] = req.runtime.value
        return flags
    if req.grad_checkpointing is not d.grad_checkpointing:
        flag = FLAG_OF["grad_checkpointing"]
        flags[f"no-{flag}" if d.grad_checkpointing else flag] = "1"
    if req.optimizer is not d.optimizer:
        flags[FLAG_OF["optimizer"]] = req.optimizer.value
    if req.workload in (Workload.lora, Workload.qlora) and req.lora_rank != d.lora_rank:
        flags[FLAG_OF["lora_rank"]] = num(req.lora_rank)
    if req.zero_stage != d.zero_stage:
        flags[FLAG_OF["zero_stage"]] = num(req.zero_stage)
    if job_tokens_b is not None:
        flags["job-tokens"] = num(job_tokens_b)
    return flags


def num(value: float) -> str:
    """A number as the command line reads it back exactly: 730, 0.1, 2.5."""
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))
