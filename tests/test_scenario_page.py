"""What a scenario page says once (#17): a serving pick's time to first token and per-user speed are
stated in the headline box, not again in the text below it or in the assumptions; an image scenario's
hours are the hours its bill uses."""

from __future__ import annotations

from pathlib import Path


def test_a_serving_page_states_ttft_and_per_user_speed_once(built_mini: Path) -> None:
    page = (built_mini / "docs" / "scenarios" / "serve-7b.md").read_text(encoding="utf-8")
    before_reasons = page.split("### 各方案的理由")[0]
    headline = before_reasons.split("## 第一步")[0]
    assert headline.count("首 token 约") == 1 and headline.count("每个用户每秒约") == 1
    assert before_reasons.count("首 token 约") == 1 and before_reasons.count("每个用户每秒约") == 1
    assert "首 token 延迟约" not in page  # the idle-card figure, a different number, is not said either
    assert "路并发时每路每秒生成约" not in page
