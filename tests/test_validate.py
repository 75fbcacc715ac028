"""Schema and cross-reference errors: the exact text an editor sees, at the right line."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_project, replace_in

from generator.data.problems import render
from generator.data.validate import load_catalogue


def problems_after(tmp_path: Path, edit) -> str:  # type: ignore[no-untyped-def]
    root = make_project(tmp_path, edit)
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    return render(problems)


def test_mini_fixture_is_valid(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    cat, problems = load_catalogue(root / "data", root)
    assert problems == []
    assert cat is not None and list(cat.gpus) == ["rtx-4090-24g", "a100-sxm-80g", "h100-sxm-80g"]


def test_schema_errors_all_at_once_with_fixes(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "offers.yaml", "    price: 2\n", '    price: "¥1.96/时"\n')
        replace_in(data / "offers.yaml", "unit: hour\n    price: 15\n", "unit: hours\n    price: 15\n")
        replace_in(data / "offers.yaml", "as_of: 2026-06-01\n", "as_of: 2026-06-01\n    sourse: x\n")
        replace_in(data / "gpus.yaml", "name: A100 80GB SXM", "name: 2025-01-01")
        replace_in(data / "gpus.yaml", "memory_gb: 24", "memory_gb: -24")
        replace_in(
            data / "gpus.yaml",
            "    source: https://resources",
            "    source: javascript:alert(1)\n    x_source: https://resources",
        )

    assert problems_after(tmp_path, edit) == "\n".join(
        [
            "data/gpus.yaml:10:16: gpus[0].memory_gb: must be above 0, got -24",
            "data/gpus.yaml:26:11: gpus[1].name: expected text, got the date 2025-01-01 (YAML reads the bare "
            '2025-01-01 that way); put it in quotes: "2025-01-01"',
            'data/gpus.yaml:69:13: gpus[2].source: only http:// or https:// links are allowed, got "javascript:alert(1)"',
            'data/gpus.yaml:70:5: gpus[2].x_source: unknown field "x_source"; did you mean "source"?',
            'data/offers.yaml:9:12: offers[0].price: expected a number, got text "¥1.96/时"; write 1.96 and give '
            "the unit in its own field",
            'data/offers.yaml:74:11: offers[5].unit: must be one of hour, day, month, year; got "hours"; did you mean '
            '"hour"?',
            'data/offers.yaml:78:5: offers[5].sourse: unknown field "sourse"; did you mean "source"?',
        ]
    )


def test_missing_field_points_at_the_entry(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "models.yaml", "    license: Llama 2 Community License\n", "", 1)

    assert problems_after(tmp_path, edit) == 'data/models.yaml:2:5: models[0].license: missing required field "license"'


def test_price_forms(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(
            data / "offers.yaml", "price_low: 80000\n    price_high: 90000", "price_low: 95000\n    price_high: 90000"
        )
        replace_in(data / "offers.yaml", "    price: 15\n", "")
        # One card of a one-card instance: "per: card" makes no sense there.
        replace_in(data / "offers.yaml", "    cards: 1\n", "    cards: 1\n    per: card\n")

    assert problems_after(tmp_path, edit) == "\n".join(
        [
            "data/offers.yaml:2:5: offers[0]: per: card is for one card of a multi-card instance; with cards: 1 "
            "leave per out",
            "data/offers.yaml:55:5: offers[4]: price_low (95000) is above price_high (90000); swap them",
            "data/offers.yaml:69:5: offers[5]: no price: set price, or price_low and price_high for a range",
        ]
    )


def test_cross_references_and_duplicate_ids(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "offers.yaml", "gpu: a100-sxm-80g", "gpu: a100-sxm-8g")
        replace_in(data / "offers.yaml", "provider: fixture-market", "provider: fixture-markt")
        replace_in(data / "scenarios.yaml", "model: llama-2-13b", "model: llama-3-13b")
        replace_in(data / "offers.yaml", "id: c-h100-hour", "id: c-4090-hour")
        replace_in(data / "pitfalls.yaml", "scenario: serve-7b", "scenario: nowhere")

    assert problems_after(tmp_path, edit) == "\n".join(
        [
            'data/offers.yaml:16:15: offers[1].provider: unknown provider id "fixture-markt"; did you mean '
            '"fixture-market"?',
            'data/offers.yaml:43:10: offers[3].gpu: unknown gpu id "a100-sxm-8g"; did you mean "a100-sxm-80g"?',
            'data/offers.yaml:68:9: offers[5].id: duplicate id "c-4090-hour" (first used at line 2); ids must be unique',
            'data/pitfalls.yaml:13:15: pitfalls[1].scenario: unknown scenario id "nowhere" in scenarios.yaml',
            'data/scenarios.yaml:19:12: scenarios[1].model: unknown model id "llama-3-13b"; did you mean "llama-2-13b"?',
        ]
    )


def test_loader_problems_come_through(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "offers.yaml", "    cards: 1\n", "    cards: 1\n    cards: 2\n")
        replace_in(data / "gpus.yaml", "domestic: false", "domestic: no")

    assert problems_after(tmp_path, edit) == "\n".join(
        [
            'data/gpus.yaml:9:15: gpus[0].domestic: "no" is ambiguous: write true or false, or quote it ("no") if it '
            "is text",
            'data/offers.yaml:6:5: offers[0].cards: duplicate key "cards" (first at line 5); remove one of them',
        ]
    )


def test_schema_errors_and_broken_references_in_one_run(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        replace_in(data / "offers.yaml", "    price: 2\n", "    price: -2\n")
        replace_in(data / "offers.yaml", "gpu: a100-sxm-80g", "gpu: a100-sxm-8g")
        replace_in(data / "scenarios.yaml", "    batch: 4\n", "    batch: four\n")
        replace_in(data / "scenarios.yaml", "model: llama-2-13b", "model: llama-3-13b")

    assert problems_after(tmp_path, edit) == "\n".join(
        [
            "data/offers.yaml:9:12: offers[0].price: must be above 0, got -2",
            'data/offers.yaml:43:10: offers[3].gpu: unknown gpu id "a100-sxm-8g"; did you mean "a100-sxm-80g"?',
            'data/scenarios.yaml:9:12: scenarios[0].batch: expected a whole number, got text "four"',
            'data/scenarios.yaml:19:12: scenarios[1].model: unknown model id "llama-3-13b"; did you mean "llama-2-13b"?',
        ]
    )


@pytest.mark.parametrize(
    ("written", "message"),
    [
        (
            '"730"',
            'cost.hours_per_month: expected a number, got text "730"; write 730 and give the unit in its own field',
        ),
        ("true", "cost.hours_per_month: expected a number, got the boolean true"),
        ("yes", 'cost.hours_per_month: "yes" is ambiguous: write true or false'),
    ],
)
def test_rules_are_validated_as_strictly_as_other_files(tmp_path: Path, written: str, message: str) -> None:
    root = make_project(tmp_path)
    replace_in(root / "data" / "rules.yaml", "  hours_per_month: 730 ", f"  hours_per_month: {written} ")
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    [line] = [p.format() for p in problems]
    assert line.startswith("data/rules.yaml:7:20: ")
    assert message in line, line


def test_scale_out_fabric_rules_name_the_missing_entry_and_the_missing_source(tmp_path: Path) -> None:
    """Every providers.yaml fabric kind but `none` needs a scaling entry; a confirmed one needs a source."""
    root = make_project(tmp_path)
    rules = root / "data" / "rules.yaml"
    text = rules.read_text(encoding="utf-8")
    start = text.index("      efa:\n")
    end = text.index("    unknown_fabric:")
    rules.write_text(text[:start] + text[end:], encoding="utf-8")
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    [line] = [p.format() for p in problems]
    assert line.startswith("data/rules.yaml:") and "speed.scaling" in line
    assert "fabrics needs an entry for efa" in line, line

    root2 = make_project(tmp_path / "b")
    rules2 = root2 / "data" / "rules.yaml"
    text2 = rules2.read_text(encoding="utf-8")
    at = text2.index("      efa:\n")
    efa = text2[at:].replace("        confirmed: false\n", "        confirmed: true\n", 1)
    rules2.write_text(text2[:at] + efa, encoding="utf-8")
    cat2, problems2 = load_catalogue(root2 / "data", root2)
    assert cat2 is None
    [line2] = [p.format() for p in problems2]
    assert "speed.scaling.fabrics.efa" in line2 and "a confirmed figure needs its source" in line2, line2
