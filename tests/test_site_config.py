"""Operator settings in mkdocs.yml: checked once, in one place, for every way of building."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_project, replace_in

from generator.cli.main import main
from generator.data.problems import Severity
from generator.publish.site_config import check_settings, read_site_settings


def settings(raw: dict, production: bool = False):  # type: ignore[no-untyped-def, type-arg]
    return check_settings(raw, "site_url: x\nextra:\n  operator:\n    icp: x\n", "mkdocs.yml", production=production)


def test_placeholder_domain_warns_locally_and_is_refused_in_production() -> None:
    ok, problems = settings({"site_url": "https://gpu-guide.example.com/"})
    assert ok is not None and ok.is_placeholder
    assert [p.severity for p in problems] == [Severity.warning]
    refused, problems = settings({"site_url": "https://gpu-guide.example.com/"}, production=True)
    assert refused is None
    assert [p.format() for p in problems] == [
        "mkdocs.yml:1:1: site_url: https://gpu-guide.example.com/ is a placeholder; "
        "a production build needs the real domain"
    ]
    real, problems = settings({"site_url": "https://gpu.jygpu.cn/"}, production=True)
    assert real is not None and not real.is_placeholder and problems == []


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"site_url": None}, "site_url: is not set (or names an unset !ENV variable)"),
        ({"site_url": "javascript:alert(1)"}, "site_url: must be a full http(s) address"),
        ({"site_url": "https://a.cn/", "extra": {"operator": {"icp": "备案中"}}}, "extra.operator.icp: '备案中' does not look"),
        ({"site_url": "https://a.cn/", "extra": {"operator": {"analytics_script": "http://x.cn/a.js"}}},
         "extra.operator.analytics_script: must be an https:// script address"),
        ({"site_url": "https://a.cn/", "extra": {"operator": {"contact_url": "javascript:x"}}},
         "extra.operator.contact_url: must be an http(s), mailto: or tel: link"),
        ({"site_url": "https://a.cn/", "extra": {"operator": {"icpp": "x"}}}, "extra.operator.icpp: unknown setting"),
    ],
)  # fmt: skip
def test_bad_settings_are_errors(raw: dict, message: str) -> None:  # type: ignore[type-arg]
    result, problems = settings(raw)
    assert result is None
    assert any(message in p.format() for p in problems), [p.format() for p in problems]


def test_good_operator_settings_pass() -> None:
    ok, problems = settings(
        {"site_url": "https://gpu.jygpu.cn/", "extra": {"operator": {
            "icp": "蜀ICP备12345678号-1", "analytics_script": "https://hm.baidu.com/hm.js?abc",
            "contact_text": "纠错", "contact_url": "mailto:editor@jygpu.cn"}}}, production=True)  # fmt: skip
    assert problems == [] and ok is not None and ok.icp == "蜀ICP备12345678号-1"


def test_env_site_url_must_be_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nsite_url: !ENV GPU_GUIDE_TEST_URL\n", encoding="utf-8")
    monkeypatch.delenv("GPU_GUIDE_TEST_URL", raising=False)
    result, problems = read_site_settings(config, production=False)
    assert result is None and "site_url: is not set" in problems[0].format()
    monkeypatch.setenv("GPU_GUIDE_TEST_URL", "https://gpu.jygpu.cn/")
    result, problems = read_site_settings(config, production=False)
    assert result is not None and result.site_url == "https://gpu.jygpu.cn/"


def test_production_build_refuses_the_placeholder_and_footer_shows_icp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    assert main(["--root", str(root), "build", "--production"]) == 1
    err = capsys.readouterr().err
    assert "site_url: https://fixture.example.com/ is a placeholder; a production build needs the real domain" in err
    assert not (root / "site").exists()
    replace_in(root / "mkdocs.yml", "site_url: https://fixture.example.com/", "site_url: https://gpu.jygpu.cn/\n"
               "extra:\n  operator:\n    icp: 蜀ICP备12345678号-1\n    contact_text: 纠错\n    contact_url: mailto:e@jygpu.cn")  # fmt: skip
    assert main(["--root", str(root), "build", "--production"]) == 0
    html = (root / "site" / "index.html").read_text(encoding="utf-8")
    assert "蜀ICP备12345678号-1" in html and 'href="mailto:e@jygpu.cn"' in html
    assert '<link rel="canonical" href="https://gpu.jygpu.cn/">' in html
