"""Precision × card support (rules.yaml ``support``, generator/engine/support.py).

The expectations are the runtimes' own statements, not the engine's output: vLLM's "Supported
Hardware" table (Volta = SM 7.0, Turing 7.5, Ampere 8.0/8.6, Ada 8.9, Hopper 9.0: FP8 W8A8 on Ada
and Hopper, Marlin on Ampere and newer, INT8 W8A8 on Turing and newer, AWQ on Turing and newer,
GPTQ everywhere), its FP8 page (weight-only FP8 Marlin on Ampere) and its BF16 check ("Bfloat16 is
only supported on GPUs with compute capability of at least 8.0 ... You can use float16 instead").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from generator.data.records import Gpu, Precision, Vendor, Workload
from generator.data.validate import load_catalogue
from generator.engine import support
from generator.engine.arch import Arch
from generator.engine.cost import Usage
from generator.engine.exclusion import ExclusionKind
from generator.engine.recommend import Constraints, recommend
from generator.engine.request import Request
from generator.engine.sizing import size_workload
from generator.pages.messages import explain

REPO = Path(__file__).resolve().parent.parent
_CAT, _ = load_catalogue(REPO / "data", REPO)
assert _CAT is not None
CAT = _CAT
assert CAT is not None
SUPPORT = CAT.rules.support

#: Compute capability per architecture as NVIDIA numbers them (vLLM's table footnote; sm_100 is the
#: data-centre Blackwell B200, sm_120 the GeForce / RTX PRO Blackwell parts).
ARCH_CC = {
    "Volta": {7.0},
    "Turing": {7.5},
    "Ampere": {8.0, 8.6},
    "Ada Lovelace": {8.9},
    "Hopper": {9.0},
    "Blackwell": {10.0},
    "RTX Blackwell": {12.0},
}


def verdict(gpu_id: str, precision: str, runtime: str = "vllm") -> support.Verdict:
    return support.check(CAT.gpus[gpu_id], Precision(precision), runtime, SUPPORT)


def test_every_nvidia_card_has_the_capability_of_its_architecture() -> None:
    for g in CAT.gpus.values():
        if g.vendor is Vendor.nvidia:
            assert g.compute_capability in ARCH_CC[g.architecture], g.id
        else:
            assert g.compute_capability is None, g.id


def test_capability_agrees_with_the_datasheets_tensor_formats() -> None:
    """BF16 tensor cores arrived with sm_80 and FP8 with sm_89: the datasheet figures say the same."""
    for g in CAT.gpus.values():
        if g.compute_capability is None:
            continue
        assert (g.bf16_tflops_dense is not None) == (g.compute_capability >= 8.0), g.id
        assert (g.fp8_tflops_dense is not None) == (g.compute_capability >= 8.9), g.id


def test_an_nvidia_card_without_a_capability_is_refused() -> None:
    doc = next(g for g in CAT.gpus.values() if g.id == "t4-16g").model_dump(mode="json")
    doc.pop("compute_capability")
    with pytest.raises(ValidationError, match="compute_capability is required for NVIDIA"):
        Gpu.model_validate(doc)


def test_fp8_follows_vllms_table() -> None:
    assert verdict("h100-sxm-80g", "fp8") == support.Verdict(kernel="FP8 W8A8")
    assert verdict("rtx-4090-24g", "fp8").kernel == "FP8 W8A8"  # Ada, sm_89
    a100 = verdict("a100-sxm-80g", "fp8")  # Ampere: weight-only Marlin, with the note
    assert a100.runs and a100.kernel is not None and "Marlin" in a100.kernel and a100.note is not None
    v100 = verdict("v100-sxm2-32g", "fp8")
    assert v100.refusal is not None and explain(v100.refusal).startswith(
        "V100 SXM2 32GB 不支持 FP8：vLLM 的 FP8 W8A8 要求计算能力 ≥ 8.9"
    )
    assert "这张卡是 7.0" in explain(v100.refusal)
    assert explain(v100.refusal).endswith("改用 FP16")  # INT8 W8A8 does not run on Volta either (table: ❌)
    t4 = verdict("t4-16g", "fp8")
    assert t4.refusal is not None and explain(t4.refusal).endswith("改用 INT8/FP16")  # Turing runs INT8 W8A8
    assert verdict("mi300x", "fp8").kernel == "FP8 W8A8"  # the table's AMD GPU column


def test_int4_kernels_by_generation() -> None:
    assert verdict("a100-sxm-80g", "int4") == support.Verdict(kernel="AWQ/GPTQ Marlin")
    t4 = verdict("t4-16g", "int4")  # no Marlin on Turing: the older AWQ/GPTQ kernels, noted
    assert t4.kernel == "AWQ / GPTQ" and t4.note is not None and "Marlin" in t4.note
    v100 = verdict("v100-sxm2-32g", "int4")  # Volta: GPTQ only
    assert v100.kernel == "GPTQ" and v100.note is not None and "GPTQ" in v100.note
    mi = verdict("mi300x", "int4")  # AWQ, GPTQ and Marlin: ❌ in the AMD GPU column
    assert mi.refusal is not None and "AMD" in explain(mi.refusal) and explain(mi.refusal).endswith("改用 Q4_K_M/FP16")


def test_mxfp4_follows_vllms_gpt_oss_recipe() -> None:
    """vLLM's gpt-oss recipe: runs "on NVIDIA H100, H200, B200 as well as MI300x ..."; "works on Ampere
    devices by default, using ... Marlin MXFP4 MoE"; "actively working on ensuring this model can work on
    Ampere, Ada Lovelace, and RTX 5090" (Ada and the 5090: not confirmed)."""
    for gpu in ("h100-sxm-80g", "h800-sxm-80g", "h20", "h200-sxm-141g", "b200-sxm-180g", "mi300x"):
        v = verdict(gpu, "mxfp4")
        assert v.runs and v.note is None and v.kernel is not None and "Marlin" not in v.kernel, gpu
    for gpu in ("a100-sxm-80g", "a800-sxm-80g", "a10-24g", "rtx-3090-24g"):  # Ampere: Marlin, weight-only
        v = verdict(gpu, "mxfp4")
        assert v.kernel is not None and "Marlin" in v.kernel and v.note is not None and "确认" not in v.note, gpu
    for gpu in ("rtx-4090-24g", "l40s", "rtx-5090-32g"):  # named as still being worked on
        v = verdict(gpu, "mxfp4")
        assert v.runs and v.note is not None and "未经确认" in v.note, gpu
        assert not v.confirmed, gpu  # listed with the note, ranked after confirmed options
    for gpu in ("h100-sxm-80g", "a100-sxm-80g", "b200-sxm-180g"):
        assert verdict(gpu, "mxfp4").confirmed, gpu
    for gpu in ("v100-sxm2-32g", "t4-16g"):  # no MXFP4 kernel below Ampere; BF16 needs Ampere too
        v = verdict(gpu, "mxfp4")
        assert v.refusal is not None and explain(v.refusal).endswith("这张卡上没有可替代的精度"), gpu
    ascend = verdict("ascend-910b", "mxfp4")  # no source for MXFP4 on Ascend: the BF16 build instead
    assert ascend.refusal is not None and explain(ascend.refusal).endswith("改用 BF16")


def test_an_unconfirmed_kernel_needs_its_note_and_an_uncovered_vendor_is_unconfirmed() -> None:
    from generator.data.rules import SupportKernel

    url = "https://example.org/"
    with pytest.raises(ValidationError, match="confirmed: false needs a note"):
        SupportKernel.model_validate({"kernel": "K", "min_cc": 8.9, "confirmed": False, "source": url})
    assert SupportKernel.model_validate({"kernel": "K", "min_cc": 8.9, "source": url}).confirmed  # the default
    uncovered = [
        g for g in CAT.gpus.values() if g.vendor is not Vendor.nvidia and g.vendor.value not in ("AMD", "Huawei")
    ]
    assert uncovered  # Biren
    for g in uncovered:  # a vendor vLLM's sources do not cover: kept, with the runtime's note, unconfirmed
        v = support.check(g, Precision.fp16, "vllm", SUPPORT)
        assert v.runs and not v.confirmed and v.note is not None, g.id


def test_vllm_runs_gguf_through_its_own_kernels_and_does_not_confirm_iq1_s() -> None:
    """vLLM's gguf.py runs the k-quants and Q8_0 (MMVQ / MMQ) and lists IQ1_S among its i-quants (MMVQ only;
    MoE experts through ggml_moe_a8_vec), on vLLM's 7.0 floor; its docs call GGUF "highly experimental and
    under-optimized", and no source shows a DeepSeek-R1 IQ1_S file running (a user reports loading it stuck, PR
    13167). So Q4_K_M / Q8_0 run on a V100 with a note, and IQ1_S runs on paper but unconfirmed: the option
    stays listed with its note and ranks after confirmed ones. llama.cpp runs all three, confirmed."""
    for fmt in ("q4_k_m", "q8_0"):
        v = verdict("v100-sxm2-32g", fmt)
        assert v.runs and v.confirmed and v.note is not None, fmt
    iq1 = verdict("rtx-4090-24g", "iq1_s")
    assert iq1.kernel is not None and iq1.runs
    assert not iq1.confirmed and iq1.note is not None
    for fmt in ("q4_k_m", "q8_0", "iq1_s"):
        v = verdict("rtx-4090-24g", fmt, "llama.cpp")
        assert v.runs and v.confirmed and v.note is None, fmt


def test_int8_needs_turing_in_vllm_and_bitsandbytes() -> None:
    assert verdict("t4-16g", "int8").runs and not verdict("v100-sxm2-32g", "int8").runs
    # bitsandbytes: "LLM.int8() 7.5+", "NF4/FP4 quantization 6.0+"
    assert not verdict("v100-sxm2-32g", "int8", "transformers").runs
    assert verdict("v100-sxm2-32g", "nf4", "transformers").runs


def test_mixed_precision_trains_in_fp16_below_ampere() -> None:
    v100 = verdict("v100-sxm2-32g", "mixed", "transformers")
    assert v100.kernel is not None and v100.kernel.startswith("FP16") and v100.note is not None
    assert verdict("a100-sxm-80g", "mixed", "transformers") == support.Verdict(kernel="BF16 autocast")


def test_a_vendor_no_source_covers_is_kept_unconfirmed() -> None:
    br = verdict("br100", "fp8")
    assert br.runs and br.note == SUPPORT.runtimes["vllm"].unconfirmed


def test_every_kernel_names_where_it_runs() -> None:
    for rt in SUPPORT.runtimes.values():
        assert rt.formats
        for kernels in rt.formats.values():
            for k in kernels:
                assert k.min_cc is not None or k.vendors, k.kernel
    for p, alts in SUPPORT.nearest.items():
        assert p not in alts and set(alts) <= set(SUPPORT.labels)


def test_fp8_serving_never_picks_a_card_that_cannot_run_it() -> None:
    req = Request.with_defaults(CAT.rules.defaults, Workload.inference,
                                Arch.from_params(8, defaults=CAT.rules.memory.arch_defaults), Precision.fp8)  # fmt: skip
    rec = recommend(CAT, lambda g: size_workload(req, g, CAT.rules), Workload.inference,
                    Constraints(usage=Usage.from_rules(CAT.rules)))  # fmt: skip
    for o in rec.options:
        cc = o.gpu.compute_capability
        if cc is not None and cc < 8.0 and o.cards is not None:
            assert o.excluded is not None and o.excluded.kind is ExclusionKind.unsupported_format, o.gpu.id
            assert o.excluded.params["format"] == "FP8" and "不支持 FP8" in explain(o.excluded), o.gpu.id
        if o.eligible and cc is not None and cc < 8.9:
            assert any("Marlin" in explain(r) for r in o.reasons), o.gpu.id  # weight-only, said so
    assert rec.pick is not None and (rec.pick.gpu.compute_capability or 0) >= 8.0


def test_qlora_needs_its_4bit_base_to_run() -> None:
    """QLoRA stores the base in NF4 whatever its compute dtype: a card bitsandbytes does not cover
    (Ascend: vendor covered by the table, no NF4 kernel for it) is ruled out even for bf16 compute."""
    arch = Arch.from_params(7, defaults=CAT.rules.memory.arch_defaults)
    req = Request.with_defaults(CAT.rules.defaults, Workload.qlora, arch, Precision.bf16)
    refused = support.check_request(CAT.gpus["ascend-910b"], req, CAT.rules).refusal
    assert refused is not None and refused.params["format"] == "NF4" and "NF4" in explain(refused)
    assert support.check_request(CAT.gpus["a100-sxm-80g"], req, CAT.rules).runs
