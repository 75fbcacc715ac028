"""Editing needs no code: a seventh scenario is a YAML edit and nothing else.

On a temporary copy of the real project (data, templates, mkdocs.yml), one scenario is
appended to data/scenarios.yaml; a strict build must give it a page, a row on the home
page and in the scenario index, a place in the sidebar, and no count that is stale.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from conftest import copy_repo_site

from generator.pipeline import Project, build

SEVENTH = """
  - id: qlora-14b-test
    title: 14B 模型 QLoRA 微调（测试场景）
    audience: 测试读者
    summary: 在单张卡上用 QLoRA 微调 14B 模型。
    workload: qlora
    model: qwen2.5-14b
    precision: nf4
    job_tokens_b: 0.1
    hours_per_month: 100
    editor_pick: {gpu: rtx-4090-24g, delivery: container}
    body: 测试正文。
"""

COUNT_WORDS = re.compile("[一二三四五六七八九十]+(?:个|大)(?:典型)?场景")


def test_a_seventh_scenario_needs_only_yaml(tmp_path: Path) -> None:
    root = copy_repo_site(tmp_path)
    scenarios = root / "data" / "scenarios.yaml"
    scenarios.write_text(scenarios.read_text(encoding="utf-8").rstrip("\n") + "\n" + SEVENTH, encoding="utf-8")
    n = len(yaml.safe_load(scenarios.read_text(encoding="utf-8"))["scenarios"])
    build(Project.at(root))  # strict MkDocs: a nav entry to a missing page, or a broken link, fails here
    site = root / "site"

    page = site / "scenarios" / "qlora-14b-test" / "index.html"
    assert page.is_file()
    assert "14B 模型 QLoRA 微调（测试场景）" in page.read_text(encoding="utf-8")

    home = (site / "index.html").read_text(encoding="utf-8")
    index = (site / "scenarios" / "index.html").read_text(encoding="utf-8")
    for html in (home, index):
        assert 'href="scenarios/qlora-14b-test/"' in html or 'href="qlora-14b-test/"' in html
        assert not COUNT_WORDS.search(html), COUNT_WORDS.search(html)
    assert f"{n} 个典型场景" in home

    # The sidebar (Material writes the nav into every page) lists the new scenario after the others.
    ladder = (site / "ladder" / "index.html").read_text(encoding="utf-8")
    nav = re.findall(r'href="\.\./scenarios/([a-z0-9.-]+)/"', ladder)
    assert nav[-1] == "qlora-14b-test", nav
    assert "编辑指南" not in ladder  # the editor's guide is not in the readers' navigation
