"""Whether a plan's number format runs on a card, from ``rules.yaml``'s ``support`` table.

A runtime (the request's own for serving text models: vLLM, transformers or llama.cpp; PyTorch /
Hugging Face for training and image models) runs a format through one of several kernels, tried in order: FP8 runs as W8A8 on compute
capability 8.9 and newer, as weight-only Marlin on 8.0; INT4 as AWQ/GPTQ Marlin on 8.0, as the
older GPTQ kernel down to 7.0. NVIDIA cards are matched by ``compute_capability``; other vendors
by name (a kernel lists the vendors a source says it runs on). The first kernel that runs is the
plan's; its note, if any, is said next to the option; a kernel marked ``confirmed: false`` (a source names the
cards as still being worked on) and a vendor no source covers give an *unconfirmed* verdict: the
option stays listed with the note but ranks after every confirmed one. A format no kernel runs rules the card out
with the reason and the nearest formats that do run on it (an ``unsupported_format`` exclusion, its
sentence in the message table: the card, the format it cannot run, the formats to use instead).

``docs/javascripts/engine/support.js`` is the calculator's port; both read the same table
(the calculator's JSON carries ``rules.support``).
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.data.records import Gpu, ModelKind, Precision, Vendor, Workload
from generator.data.rules import Rules, RuntimeSupport, SupportKernel, SupportRules
from generator.engine.exclusion import Exclusion, ExclusionKind
from generator.engine.reason import Reason, ReasonKind
from generator.engine.request import Request


@dataclass(frozen=True)
class Verdict:
    """How a format runs on a card: the kernel used, a note, or why it cannot run."""

    kernel: str | None  # the kernel the plan uses; None when none runs or the format is not checked
    note: str | None = None  # said next to an eligible option (a slower fallback, an unconfirmed vendor)
    refusal: Exclusion | None = None  # why the card is ruled out, with the nearest formats that run
    #: False: no source confirms the format runs this way on this card (a kernel marked ``confirmed: false``,
    #: a vendor the runtime's sources do not cover): the option ranks after confirmed ones (recommend)
    confirmed: bool = True

    @property
    def runs(self) -> bool:
        return self.refusal is None


def runtime_for(req: Request, support: SupportRules) -> str:
    """The runtime a request assumes: serving text models → the request's own (``req.runtime``);
    training and image models → ``training_runtime``."""
    if req.workload is Workload.inference and req.arch.kind is not ModelKind.diffusion:
        return req.runtime.value
    return support.training_runtime


def kernel_runs(kernel: SupportKernel, gpu: Gpu) -> bool:
    """Whether ``kernel`` runs on ``gpu``: NVIDIA by compute capability, others by vendor."""
    if gpu.vendor is Vendor.nvidia:
        cc = gpu.compute_capability
        return kernel.min_cc is not None and cc is not None and cc >= kernel.min_cc - 1e-9
    return gpu.vendor in kernel.vendors


def first_kernel(rt: RuntimeSupport, precision: Precision, gpu: Gpu) -> SupportKernel | None:
    """The first of the format's kernels that runs on the card (None: none does)."""
    return next((k for k in rt.formats.get(precision, []) if kernel_runs(k, gpu)), None)


def check(gpu: Gpu, precision: Precision, runtime: str, support: SupportRules) -> Verdict:
    """Whether ``precision`` runs on ``gpu`` under ``runtime``."""
    rt = support.runtimes[runtime]
    if precision not in rt.formats:
        return Verdict(kernel=None)  # the table says nothing about this format here: not checked
    if gpu.vendor is not Vendor.nvidia and gpu.vendor not in rt.vendors:
        return Verdict(kernel=None, note=rt.unconfirmed, confirmed=False)
    kernel = first_kernel(rt, precision, gpu)
    if kernel is not None:
        return Verdict(kernel=kernel.kernel, note=kernel.note, confirmed=kernel.confirmed)
    return Verdict(kernel=None, refusal=refusal(gpu, precision, rt, support))


def refusal(gpu: Gpu, precision: Precision, rt: RuntimeSupport, support: SupportRules) -> Exclusion:
    """Why no kernel of the format runs on the card, and the nearest formats that do."""
    label = support.labels.get(precision, precision.value)
    why: Reason
    if gpu.vendor is Vendor.nvidia:
        nv = [k for k in rt.formats[precision] if k.min_cc is not None]
        floors = tuple(
            Reason(
                ReasonKind.kernel_floor_first if i == 0 else ReasonKind.kernel_floor,
                {"kernel": k.kernel, "min_cc": f"{k.min_cc:.1f}"},
            )
            for i, k in enumerate(nv)
            if k.min_cc is not None
        )
        cc = gpu.compute_capability or 0.0
        why = (
            Reason(ReasonKind.format_below_cc, {"runtime": rt.name, "floors": floors, "cc": f"{cc:.1f}"})
            if floors
            else Reason(ReasonKind.format_no_nvidia_kernel, {"runtime": rt.name, "format": label})
        )
    else:
        why = Reason(
            ReasonKind.format_no_vendor_kernel, {"runtime": rt.name, "vendor": gpu.vendor.value, "format": label}
        )
    alts = nearest_running(gpu, precision, rt, support)
    instead = (
        Reason(ReasonKind.format_instead, {"formats": "/".join(support.labels.get(a, a.value) for a in alts)})
        if alts
        else Reason(ReasonKind.format_no_alternative)
    )
    return Exclusion(
        ExclusionKind.unsupported_format, {"gpu": gpu.name, "format": label, "why": why, "instead": instead}
    )


def nearest_running(gpu: Gpu, precision: Precision, rt: RuntimeSupport, support: SupportRules) -> list[Precision]:
    """The first two formats of ``nearest[precision]`` some kernel of the runtime runs on the card."""
    return [a for a in support.nearest.get(precision, []) if first_kernel(rt, a, gpu) is not None][:2]


def check_request(gpu: Gpu, req: Request | None, rules: Rules) -> Verdict:
    """The verdict for a request's precision under the runtime it assumes. QLoRA stores the base in
    ``memory.training.qlora_weight_format`` whatever its compute dtype: both must run (the base's
    refusal first)."""
    if req is None:
        return Verdict(kernel=None)
    support = rules.support
    runtime = runtime_for(req, support)
    base_format = rules.memory.training.qlora_weight_format
    if req.workload is Workload.qlora and req.precision is not base_format:
        base = check(gpu, base_format, runtime, support)
        if not base.runs:
            return base
    return check(gpu, req.precision, runtime, support)
