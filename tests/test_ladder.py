"""The ladder ranks confirmed tensor figures only; unconfirmed ones are listed after, marked 未排名."""

from __future__ import annotations

from pathlib import Path

from conftest import make_project, replace_in

from generator.data.validate import load_catalogue
from generator.pages.rows import ladder_rows
from generator.results.ladder import ladder


def test_an_unconfirmed_figure_never_outranks_a_confirmed_one(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        # the fixture's H100 (989.4 TFLOPS, the fastest) with its BF16 figure marked unconfirmed
        replace_in(
            data / "gpus.yaml",
            "    source: https://resources.nvidia.com/en-us-gpu-resources/h100-datasheet-24306",
            "    source: https://resources.nvidia.com/en-us-gpu-resources/h100-datasheet-24306\n"
            "    unconfirmed: [bf16_tflops_dense]",
        )

    cat, problems = load_catalogue(make_project(tmp_path, edit) / "data")
    assert cat is not None, problems
    rows = ladder_rows(cat, ladder(cat))
    assert [(r.id, r.rank_label) for r in rows] == [
        ("a100-sxm-80g", "1"),
        ("rtx-4090-24g", "2"),
        ("h100-sxm-80g", "未排名"),
    ]


def test_confirmed_cards_rank_by_dense_tflops(tmp_path: Path) -> None:
    cat, problems = load_catalogue(make_project(tmp_path) / "data")
    assert cat is not None, problems
    frame = ladder(cat)
    assert list(frame["id"]) == ["h100-sxm-80g", "a100-sxm-80g", "rtx-4090-24g"]
    assert list(frame["ranked"]) == [True, True, True]
