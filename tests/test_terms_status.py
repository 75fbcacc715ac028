"""Providers' billing terms (increment, stopped-instance billing, tax) and GPUs' supply status, each with
its source: shown where the data has them, the cost model's assumption named where it has not."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import REPO, make_project, replace_in

from generator.data.problems import render
from generator.data.validate import load_catalogue
from generator.pipeline import Generated, Project, generate

TERMS = """    terms:
      increment:
        unit: second
        as_of: 2026-06-01
        source: https://example.com/billing
        quote: 按秒计费
      tax:
        included: true
        invoice: 增值税专用发票
        as_of: 2026-06-01
        source: https://example.com/invoice
        quote: 价格均含税
"""
STATUS = """    status:
      - kind: discontinued
        since: 2025-08-22
        source: https://example.org/report
        quote: production halted
        note: 据报道停产
      - kind: export_restricted
        since: 2025-04-09
        source: https://example.org/licence
        quote: licence required
"""


def _edit(data: Path) -> None:
    replace_in(data / "providers.yaml", "    url: https://example.com\n", "    url: https://example.com\n" + TERMS)
    gpus = (data / "gpus.yaml").read_text(encoding="utf-8")
    at = gpus.index("  - id: h100-sxm-80g")
    end = gpus.index("\n  - id:", at + 1) if "\n  - id:" in gpus[at + 1 :] else len(gpus)
    (data / "gpus.yaml").write_text(gpus[:end].rstrip("\n") + "\n" + STATUS + gpus[end:].lstrip("\n"), encoding="utf-8")


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    """The mini site with the terms and the statuses above, generated once for the page tests."""
    return generate(Project.at(make_project(tmp_path_factory.mktemp("terms"), _edit)))


def test_a_providers_own_terms_are_shown_with_their_sources_and_the_rest_as_assumptions(edited: Generated) -> None:
    gen = edited
    page = gen.files["providers/fixture-cloud.md"].decode("utf-8")
    assert "| 按量计费粒度 | 按秒计费（2026-06-01） | [链接](https://example.com/billing) |" in page
    assert "| 是否含税 | 标价含税，增值税专用发票（2026-06-01） | [链接](https://example.com/invoice) |" in page
    # not in the data: the cost model's assumption, said so
    assert "| 关机后是否计费 | 未找到可引用来源；本站按关机后只收数据盘计（编辑假设） | — |" in page
    other = gen.files["providers/fixture-market.md"].decode("utf-8")
    assert other.count("（编辑假设）") >= 3 and "按秒计费" not in other


def test_a_gpus_status_is_shown_with_its_source(edited: Generated) -> None:
    gen = edited
    page = gen.files["gpus/h100-sxm-80g.md"].decode("utf-8")
    assert '!!! warning "供货状态"' in page
    assert "\n    - **停产**（2025-08-22 起，[来源](https://example.org/report)）：据报道停产\n" in page
    # each status is its own list item (both on one line rendered as one bullet: issue seen at 1280 px)
    assert "\n    - **出口管制**（2025-04-09 起，[来源](https://example.org/licence)）\n" in page
    assert "供货状态" not in gen.files["gpus/a100-sxm-80g.md"].decode("utf-8")


def test_a_term_without_a_source_is_refused_at_its_line(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        _edit(data)
        replace_in(data / "providers.yaml", "        source: https://example.com/billing\n", "")

    root = make_project(tmp_path, edit)
    _, problems = load_catalogue(root / "data", root)
    assert "providers[0].terms.increment.source: " in render(problems)
    assert render(problems).startswith("data/providers.yaml:")


def test_h20_carries_its_sourced_export_and_production_status() -> None:
    gpus = yaml.safe_load((REPO / "data" / "gpus.yaml").read_text(encoding="utf-8"))["gpus"]
    h20 = next(g for g in gpus if g["id"] == "h20")
    kinds = {s["kind"]: s for s in h20["status"]}
    assert set(kinds) == {"export_restricted", "discontinued"}
    assert all(s["source"].startswith("https://") and s["quote"] for s in kinds.values())
    assert str(kinds["export_restricted"]["since"]) == "2025-04-09"  # the date the quote itself gives
