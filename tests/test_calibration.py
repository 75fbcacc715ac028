"""The calibration set: every published case in docs-dev/calibration/ through the engine.

Prints each ratio (run with ``-s`` to see them, or ``gpu-guide calibrate``) and asserts the
bands of issue 11: per group (tuning and held-out files apart) the median within 0.8–1.25,
every case within 0.5–2. Any ``*.yaml`` dropped into the folder is read and checked the same
way, so held-out cases somebody else keeps can be added without touching this file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.cli.calibrate import CASE_BAND, MEDIAN_BAND, band_failures, markdown_table
from generator.data.calibration import load_calibration
from generator.data.catalogue import Catalogue
from generator.data.validate import load_catalogue
from generator.engine.calibration import CaseResult, run, summarise
from generator.engine.request import Request

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "docs-dev" / "calibration"


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    cat, problems = load_catalogue(REPO / "data")
    assert cat is not None, problems
    return cat


@pytest.fixture(scope="module")
def results(catalogue: Catalogue) -> list[CaseResult]:
    files, problems = load_calibration(CASES)
    assert not problems, problems
    return run(files, catalogue.gpus, catalogue.rules)


def test_print_every_ratio(results: list[CaseResult]) -> None:
    for r in results:
        print(f"{'held-out' if r.held_out else 'tuning'} {r.group} {r.kind} {r.id}: ratio {r.ratio:.2f}")
    print(markdown_table(summarise(results)))
    assert results


def test_every_case_within_half_to_double(results: list[CaseResult]) -> None:
    outside = [f"{r.id} {r.ratio:.2f}" for r in results if not CASE_BAND[0] <= r.ratio <= CASE_BAND[1]]
    assert not outside


def test_every_group_median_within_the_band(results: list[CaseResult]) -> None:
    for s in summarise(results):
        assert MEDIAN_BAND[0] <= s.median <= MEDIAN_BAND[1], (s.group, s.held_out, s.median)


def test_the_set_covers_what_issue_11_asks(results: list[CaseResult], catalogue: Catalogue) -> None:
    training = [r for r in results if r.group == "training"]
    serving = [r for r in results if r.group == "serving"]
    assert len(training) >= 8 and len(serving) >= 8
    # fine-tuning is its own group (issue 18), tuned and held out, LoRA, QLoRA and full fine-tuning
    finetune = [r for r in results if r.group == "finetune"]
    assert {r.held_out for r in finetune} == {False, True} and {r.kind for r in finetune} >= {"lora", "qlora", "full"}
    assert {r.kind for r in serving} >= {"decode_single", "decode_tp", "decode_quant", "throughput", "ttft"}
    files, _ = load_calibration(CASES)
    gpus = {c.gpu for f in files.values() for c in f.training} | {c.gpu for f in files.values() for c in f.serving}
    assert len({catalogue.gpus[g].architecture for g in gpus}) >= 2  # GPU generations
    # about a third of the cases held out, reported apart
    held = [r for r in results if r.held_out]
    assert 0.25 <= len(held) / len(results) <= 0.6
    assert {s.held_out for s in summarise(results)} == {False, True}


def test_every_case_names_its_source_place_and_words() -> None:
    files, _ = load_calibration(CASES)
    for f in files.values():
        for case in [*f.training, *f.serving, *f.diffusion, *f.memory, *f.image_speed, *f.video]:
            assert str(case.source).startswith("http") and case.where.strip() and case.quote.strip(), case.id


def test_a_dropped_in_file_is_checked_and_a_wrong_case_is_caught(tmp_path: Path, catalogue: Catalogue) -> None:
    """Control: a held-out file someone adds is read; a case 3x off the published figure fails the band."""
    folder = tmp_path / "cal"
    shutil.copytree(CASES, folder)
    text = (CASES / "training.yaml").read_text(encoding="utf-8")
    case = text[text.index("  - id: llama2-7b-pretrain") : text.index("  - id: llama2-13b-pretrain")]
    wrong = case.replace("id: llama2-7b-pretrain", "id: llama2-7b-wrong").replace(
        "published: 184320", "published: 552960"
    )
    (folder / "extra-heldout.yaml").write_text(
        f"description: a new held-out file\nheld_out: true\ntraining:\n{wrong}", encoding="utf-8"
    )
    files, problems = load_calibration(folder)
    assert not problems and "extra-heldout.yaml" in files
    found = run(files, catalogue.gpus, catalogue.rules)
    failures = band_failures(found, summarise(found))
    assert any("llama2-7b-wrong" in line for line in failures)


def test_a_bad_case_file_is_reported_at_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "cal"
    folder.mkdir()
    (folder / "bad.yaml").write_text(
        "description: x\nheld_out: false\ntraining:\n  - id: x\n    metric: gpu_hours\n", encoding="utf-8"
    )
    files, problems = load_calibration(folder)
    assert not files and problems and all(p.file == "bad.yaml" for p in problems)


def test_a_serving_case_is_predicted_and_reported_under_its_runtime(tmp_path: Path, catalogue: Catalogue) -> None:
    """A case measured on transformers is predicted with the transformers runtime and reported in its own
    group; llama-bench's pp 512 (prompt tokens per second) is 512 tokens over the predicted prefill time."""
    folder = tmp_path / "cal"
    folder.mkdir()
    case = """  - id: {id}
    kind: {kind}
    model: Llama 2 7B
    arch: {{params_b: 6.74, layers: 32, hidden: 4096, heads: 32, kv_heads: 32, intermediate: 11008, vocab: 32000}}
    gpu: a100-sxm-80g
    gpus: 1
    runtime: {runtime}
    precision: bf16
    batch: 1
    prompt_tokens: {prompt}
    output_tokens: {output}
    metric: {metric}
    published: {published}
    engine: x
    source: https://example.org/
    where: x
    quote: x
    confidence: high
"""
    cases = [
        case.format(id="hf", kind="decode_single", runtime="transformers", prompt=1, output=128,
                    metric="output_tokens_per_s", published=30),
        case.format(id="vllm", kind="decode_single", runtime="vllm", prompt=1, output=128,
                    metric="output_tokens_per_s", published=90),
        case.format(id="pp", kind="ttft", runtime="llama.cpp", prompt=512, output=1,
                    metric="prompt_tokens_per_s", published=8000),
    ]  # fmt: skip
    (folder / "x.yaml").write_text("description: x\nheld_out: false\nserving:\n" + "".join(cases), encoding="utf-8")
    files, problems = load_calibration(folder)
    assert not problems
    by_id = {r.id: r for r in run(files, catalogue.gpus, catalogue.rules)}
    assert by_id["hf"].group == "serving_transformers" and by_id["vllm"].group == "serving"
    assert by_id["pp"].group == "serving_llamacpp"
    # the same model and card: transformers' host floor makes it slower than vLLM
    assert by_id["hf"].predicted < by_id["vllm"].predicted
    from generator.data.records import Precision, Runtime, Workload
    from generator.engine import speed
    from generator.engine.calibration import _arch

    arch = _arch(files["x.yaml"].serving[2].arch, catalogue.rules)
    req = Request.with_defaults(
        catalogue.rules.defaults, Workload.inference, arch, Precision.bf16, batch=1, context=513, gpus=1,
        runtime=Runtime.llama_cpp,
    )  # fmt: skip
    prefill = speed.prefill_seconds(req, catalogue.gpus["a100-sxm-80g"], 1, catalogue.rules, 512, 1)
    assert by_id["pp"].predicted == pytest.approx(512 / prefill)


def test_the_readme_calibration_table_is_the_one_calibrate_prints(results: list[CaseResult]) -> None:
    """The README's table is re-measured whenever a case, a rule or the engine moves a ratio: it must be
    exactly `gpu-guide calibrate --markdown`'s table (regenerate it from that command's output)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = markdown_table(summarise(results))
    head = table.splitlines()[0]
    assert head in readme
    start = readme.index(head)
    end = readme.find("\n\n", start)
    assert readme[start:end] == table
