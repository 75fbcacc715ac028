"""The editorial files (claims, ownership, buyers, trends): the exact text an editor sees
for a mistake, at the line they typed, and the files being optional."""

from __future__ import annotations

from pathlib import Path

from conftest import make_project, replace_in

from generator.data.problems import render
from generator.data.validate import load_catalogue


def problems_after(tmp_path: Path, edit) -> str:  # type: ignore[no-untyped-def]
    root = make_project(tmp_path, edit)
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    return render(problems)


def test_editorial_files_are_optional(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        for name in ("claims.yaml", "ownership.yaml", "buyers.yaml", "trends.yaml"):
            (data / name).unlink()

    root = make_project(tmp_path, edit)
    cat, problems = load_catalogue(root / "data", root)
    assert problems == []
    assert cat is not None
    assert cat.claims.claims == [] and cat.buyers.buyers == [] and cat.trends.facts == []
    assert cat.ownership is None


def test_a_check_without_its_parameters_says_which(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "claims.yaml", "check: {kind: price_ratio, gpu: a100-sxm-80g, versus: h100-sxm-80g, stated: 0.6}",
                   "check: {kind: price_ratio, gpu: a100-sxm-80g}")  # fmt: skip

    assert problems_after(tmp_path, edit) == (
        "data/claims.yaml:16:12: claims[1].check: check kind price_ratio needs versus, stated; add them"
    )


def test_unknown_kind_and_unknown_ids_are_named(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "claims.yaml", "kind: spec_value, gpu: h100-sxm-80g", "kind: spec, gpu: h100-sxm-81g")
        replace_in(data / "buyers.yaml", "- scenario: serve-7b", "- scenario: serve-8b")

    assert problems_after(tmp_path, edit) == "\n".join(
        [
            'data/buyers.yaml:8:19: buyers[0].workloads[0].scenario: unknown scenario id "serve-8b"; '
            'did you mean "serve-7b"?',
            "data/claims.yaml:26:19: claims[3].check.kind: must be one of tflops_ratio, spec_value, fit_share, "
            'price_rank, price_ratio, scaling, memory, card_fits; got "spec"; did you mean "spec_value"?',
            'data/claims.yaml:26:30: claims[3].check.gpu: unknown gpu id "h100-sxm-81g"; did you mean "h100-sxm-80g"?',
        ]
    )


def test_an_input_without_source_must_be_marked_as_assumption(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "ownership.yaml", "resale_fraction: {value: 0.2, assumption: true,",
                   "resale_fraction: {value: 0.2, assumption: false,")  # fmt: skip

    assert problems_after(tmp_path, edit) == (
        "data/ownership.yaml:38:20: defaults.resale_fraction: an input without a source must say assumption: true; "
        "a sourced figure goes in a list"
    )


def test_ownership_defaults_must_name_a_listed_entry(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "ownership.yaml", "electricity: half-yuan", "electricity: half-yaun")

    assert problems_after(tmp_path, edit) == (
        'data/ownership.yaml:35:16: defaults.electricity: no electricity entry has id "half-yaun"; '
        'did you mean "half-yuan"?'
    )


def test_buyer_workload_is_a_scenario_or_a_model_page(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "buyers.yaml", "- scenario: serve-7b", "- scenario: serve-7b\n        workload: lora")
        replace_in(data / "buyers.yaml", "- model: llama-2-13b\n        workload: inference", "- model: llama-2-13b")

    assert problems_after(tmp_path, edit) == "\n".join(
        [
            "data/buyers.yaml:8:9: buyers[0].workloads[0]: give either scenario, or model and workload",
            "data/buyers.yaml:10:9: buyers[0].workloads[1]: a model page needs both model and workload",
        ]
    )


def test_a_share_above_one_is_refused(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "claims.yaml", "cards: 8, stated: 0.9}", "cards: 8, stated: 90}")

    assert problems_after(tmp_path, edit) == (
        "data/claims.yaml:46:67: claims[7].check.stated: a share is at most 1 (0.9 for 90%), got 90"
    )
