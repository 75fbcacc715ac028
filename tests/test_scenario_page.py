"""What a scenario page says once (#17): a serving pick's time to first token and per-user speed are
stated in the headline box, not again in the text below it or in the assumptions; an image scenario's
hours are the hours its bill uses."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO, make_project


def test_a_serving_page_states_ttft_and_per_user_speed_once(built_mini: Path) -> None:
    page = (built_mini / "docs" / "scenarios" / "serve-7b.md").read_text(encoding="utf-8")
    before_reasons = page.split("### 各方案的理由")[0]
    headline = before_reasons.split("## 第一步")[0]
    assert headline.count("首 token 约") == 1 and headline.count("每个用户每秒约") == 1
    assert before_reasons.count("首 token 约") == 1 and before_reasons.count("每个用户每秒约") == 1
    assert "首 token 延迟约" not in page  # the idle-card figure, a different number, is not said either
    assert "路并发时每路每秒生成约" not in page


_SCENARIO = """  - id: images
    title: 出图
    audience: 测试
    summary: 按出图量计费的文生图。
    workload: inference
    model: sdxl
    precision: fp16
    batch: 1
    resolution: 1024
    images_per_month: 2000
    hours_per_month: 200
    editor_pick: {gpu: rtx-4090-24g, delivery: container}
    body: 测试正文。
"""


def _sdxl_entry() -> str:
    """The real SDXL entry of data/models.yaml (a diffusion model the mini fixture lacks)."""
    text = (REPO / "data" / "models.yaml").read_text(encoding="utf-8")
    start = text.index("  - id: sdxl\n")
    return text[start : text.index("\n\n", start) + 1]


def test_an_image_page_states_the_hours_its_bill_uses(tmp_path: Path) -> None:
    """With a monthly volume the bill is the hours that make the images, not the month's cap: the
    workload table says the billed hours (the same figure the headline's monthly cost is "按每月 N 小时计"
    for), with the cap beside it."""
    from generator.cli.main import main

    def edit(data: Path) -> None:
        models = data / "models.yaml"
        models.write_text(models.read_text(encoding="utf-8") + "\n" + _sdxl_entry(), encoding="utf-8")
        scenarios = data / "scenarios.yaml"
        scenarios.write_text(scenarios.read_text(encoding="utf-8") + _SCENARIO, encoding="utf-8")

    root = make_project(tmp_path, edit)
    assert main(["--root", str(root), "build", "--no-site"]) == 0
    page = (root / "docs" / "scenarios" / "images.md").read_text(encoding="utf-8")
    billed = re.search(r"每月约 \*\*¥[\d,]+\*\*（按每月 ([\d,]+) 小时计）", page)
    assert billed is not None
    hours = billed.group(1)
    assert int(hours.replace(",", "")) < 200  # 2,000 images take far less than the 200-hour cap
    row = next(line for line in page.splitlines() if line.startswith("| 每月使用 |"))
    assert f"约 {hours} 小时" in row and "最多用 200 小时" in row
    assert "| 每月使用 | 200 小时 |" not in page
