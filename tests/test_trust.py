"""Pages name the calibration group behind their speed and memory figures and its held-out record."""

from __future__ import annotations

from pathlib import Path

from conftest import MINI_BUILD_DATE

from generator.data.records import ModelKind, Precision, Runtime, Workload
from generator.data.validate import load_catalogue
from generator.engine.arch import Arch
from generator.engine.calibration import CaseResult, GroupSummary
from generator.engine.request import Request
from generator.pages.files import generated_files
from generator.pipeline import Project, generate
from generator.results.evaluate import evaluate
from generator.results.trust import GroupTrust, calibration_trust, groups_for, trust_of


def _summary(group: str, held_out: bool, cases: int, median: float, low: float, high: float) -> GroupSummary:
    worst = CaseResult("f.yaml", held_out, group, "k", "c", "output_tokens_per_s", 1.0, low)
    return GroupSummary(group, held_out, cases, median, worst, low, high)


def test_a_groups_record_is_its_held_out_median_and_range_with_its_tuning_count() -> None:
    summaries = [
        _summary("serving", False, 5, 1.0, 0.8, 1.2),
        _summary("serving", True, 3, 0.9, 0.7, 1.3),
        _summary("finetune", False, 4, 1.1, 1.0, 1.2),  # tuned only: nothing held out to show
    ]
    assert trust_of(summaries) == {"serving": GroupTrust("serving", 5, 3, 0.9, 0.7, 1.3)}


def test_each_request_names_the_groups_behind_its_figures(tmp_path: Path) -> None:
    cat, problems = load_catalogue(Path(__file__).resolve().parent.parent / "data")
    assert cat is not None, problems
    d = cat.rules.defaults
    arch = Arch.from_params(7.0, layers=32, hidden=4096, heads=32, vocab=32000, defaults=cat.rules.memory.arch_defaults)

    def req(workload: Workload, runtime: Runtime = Runtime.vllm) -> Request:
        return Request.with_defaults(d, workload, arch, Precision.bf16, runtime=runtime)

    assert groups_for(req(Workload.inference)) == ("serving", "memory", "inference_memory")
    assert groups_for(req(Workload.inference, Runtime.transformers))[0] == "serving_transformers"
    assert groups_for(req(Workload.inference, Runtime.llama_cpp))[0] == "serving_llamacpp"
    assert groups_for(req(Workload.qlora)) == ("finetune",)
    assert groups_for(req(Workload.pretrain)) == ("training",)
    unet = Arch.diffusion(2.6, (), 2, cat.rules.memory.arch_defaults)  # an image model: its time and memory groups
    assert unet.kind is ModelKind.diffusion
    image = Request.with_defaults(d, Workload.inference, unet, Precision.fp16)
    assert groups_for(image) == ("image_speed", "diffusion")
    # no calibration folder: no record, no note
    assert calibration_trust(tmp_path / "missing", cat) == {}


def test_pages_name_their_figures_group_and_its_held_out_median(mini: Path) -> None:
    project = Project.at(mini, build_date=MINI_BUILD_DATE)
    cat = generate(project).catalogue
    results = evaluate(cat)
    trust = {"serving": GroupTrust("serving", 4, 7, 0.93, 0.61, 1.42)}
    files = generated_files(cat, results, project.templates, "https://example.org/", trust)
    right = '<td style="text-align:right">'
    row = f"<tr><td>推理速度（vLLM 式调度）</td><td>每秒 token 数、首 token 延迟</td>{right}7 个</td>{right}0.93</td>{right}0.61–1.42</td></tr>"
    for page in ("scenarios/serve-7b.md", "models/llama-2-7b-inference.md"):
        body = files[page].decode()
        assert row in body
        # the same note on every page stays out of the search index (it would rank them all for 显存)
        assert body.index('<div class="gpu-trust" data-pagefind-ignore>') < body.index(row)
    # a full fine-tuning scenario's figures come from the fine-tuning group, which has no record here
    assert "这些数字的依据" not in files["scenarios/full-13b.md"].decode()
    # Control: without a record no page shows the note.
    bare = generated_files(cat, results, project.templates, "https://example.org/", {})
    assert not any("这些数字的依据" in body.decode("utf-8", "ignore") for body in bare.values())
