"""``gpu-guide check`` lint: data that validates but is probably wrong, with exact messages."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import replace_in

from generator.cli.main import main
from generator.data.problems import render
from generator.pipeline import Project, generate
from generator.results.lint import lint

TODAY = dt.date(2026, 8, 1)


def lint_text(root: Path) -> str:
    gen = generate(Project.at(root))
    return render(lint(gen.catalogue, gen.results, today=TODAY))


def test_mini_fixture_lints_clean(mini: Path) -> None:
    assert lint_text(mini) == ""


def test_sparse_looking_tensor_figure(mini: Path) -> None:
    replace_in(mini / "data" / "gpus.yaml", "fp16_tflops_dense: 989.4", "fp16_tflops_dense: 1978.9")
    assert lint_text(mini) == (
        "data/gpus.yaml:57:24: gpus[2].fp16_tflops_dense: warning: 1978.9 is 30x the FP32 figure; that looks like "
        "a sparse figure: halve it if the datasheet says 'with sparsity'"
    )


def test_fp8_more_than_twice_bf16(mini: Path) -> None:
    replace_in(mini / "data" / "gpus.yaml", "fp8_tflops_dense: 330.3", "fp8_tflops_dense: 660.6")
    assert lint_text(mini) == (
        "data/gpus.yaml:17:23: gpus[0].fp8_tflops_dense: warning: FP8 (660.6) is more than twice BF16 (165.2); "
        "check for a sparse figure"
    )


def test_bandwidth_that_does_not_fit_the_memory_type(mini: Path) -> None:
    replace_in(mini / "data" / "gpus.yaml", "memory_bandwidth_gbps: 2039", "memory_bandwidth_gbps: 600")
    assert lint_text(mini) == (
        "data/gpus.yaml:33:28: gpus[1].memory_bandwidth_gbps: warning: 600 GB/s does not fit HBM2e (1000-10000 GB/s "
        "per card); is this the NVLink bandwidth?"
    )


def test_old_and_future_prices(mini: Path) -> None:
    replace_in(mini / "data" / "offers.yaml", "as_of: 2026-06-01", "as_of: 2025-06-01")
    replace_in(mini / "data" / "offers.yaml", "as_of: 2026-07-01", "as_of: 2026-09-01")
    assert lint_text(mini) == "\n".join(
        [
            "data/offers.yaml:8:12: offers[0].as_of: date is in the future",
            "data/offers.yaml:36:12: offers[3].as_of: warning: price is 426 days old (over 180); check it and update as_of",
        ]
    )


def test_price_outlier_and_per_card_mixup(mini: Path) -> None:
    extra = "".join(
        f"""  - id: extra-{i}
    gpu: rtx-4090-24g
    delivery: container
    cards: {cards}
    price_cny: {price}
    unit: hour
    as_of: 2026-07-01
    provider: Fixture Cloud
    source: https://example.com/prices
"""
        for i, (cards, price) in enumerate([(1, 2.1), (1, 1.9), (8, 2.0)])
    )
    path = mini / "data" / "offers.yaml"
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    assert lint_text(mini) == "\n".join(
        [
            "data/offers.yaml:57:5: offers[6]: warning: ¥182 per card-month is far from the median ¥1,424 of the other "
            "container offers for rtx-4090-24g; per-card vs per-instance mix-up?",
            "data/offers.yaml:60:12: offers[6].cards: warning: ¥2/hour for 8 cards is under ¥0.5 per card-hour; is the "
            "price per card? then set cards: 1",
        ]
    )


def test_check_strict_fails_on_warnings_and_annotates_under_actions(
    mini: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.pipeline import build

    build(Project.at(mini), site=False)
    replace_in(mini / "data" / "gpus.yaml", "fp8_tflops_dense: 330.3", "fp8_tflops_dense: 660.6")
    build(Project.at(mini), site=False)
    assert main(["--root", str(mini), "check"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main(["--root", str(mini), "check", "--strict"]) == 1
    err = capsys.readouterr().err
    assert (
        "::warning file=data/gpus.yaml,line=17,col=23::gpus[0].fp8_tflops_dense: FP8 (660.6) is more than twice "
        "BF16 (165.2); check for a sparse figure"
    ) in err.splitlines()


def test_price_age_is_configurable(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from generator.pipeline import build

    replace_in(mini / "data" / "offers.yaml", "as_of: 2026-06-01", "as_of: 2025-06-01")
    build(Project.at(mini), site=False)
    gen = generate(Project.at(mini))
    assert lint(gen.catalogue, gen.results, today=TODAY, max_price_age_days=500) == []
    main(["--root", str(mini), "check", "--max-price-age", "100000"])
    assert "days old" not in capsys.readouterr().err
