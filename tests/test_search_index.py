"""The built site's search: Pagefind's chunked index instead of Material's one big index."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

from generator.publish.search_index import SUBDIR, UNUSED, index_site


def tree(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_materials_search_is_gone(built_site: Path) -> None:
    site = built_site / "site"
    assert not (site / "search").exists()
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "search_index" not in home  # (Material names its worker in __config; nothing loads it: test_search_browser)


def test_pagefind_indexes_every_page_in_chinese(built_site: Path) -> None:
    site = built_site / "site"
    entry = json.loads((site / SUBDIR / "pagefind-entry.json").read_text(encoding="utf-8"))
    every = [p for p in site.rglob("index.html") if SUBDIR not in p.parts and p.parent != site / "404"]
    # a retired URL's redirect page (comparisons.yaml retired) is kept out of the index
    pages = [p for p in every if '<meta name="robots" content="noindex">' not in p.read_text(encoding="utf-8")]
    assert len(pages) < len(every), "the bundled data retires comparison URLs; none became a redirect page"
    assert list(entry["languages"]) == ["zh"]
    assert entry["languages"]["zh"]["page_count"] == len(pages)
    assert not [name for name in UNUSED if (site / SUBDIR / name).exists()]


def test_every_page_names_its_kind_and_indexes_only_its_article(built_site: Path) -> None:
    site = built_site / "site"
    want = {"gpus/h20": "GPU", "models/qwen2.5-7b-lora": "模型", "scenarios/lora-7b": "场景",
            "providers/autodl": "平台", "compare/h100-sxm-80g-vs-a100-sxm-80g": "对比",
            "gpus": "指南", "ladder": "指南", ".": "指南"}  # fmt: skip
    for path, kind in want.items():
        html = (site / path / "index.html").read_text(encoding="utf-8")
        assert re.findall(r'data-pagefind-meta="kind:([^"]*)"', html) == [kind], path
        assert html.count("data-pagefind-body") == 1, path
        body = html.index("data-pagefind-body")
        assert html.index('class="md-sidebar') < body, "the sidebar stays out of the index"


def test_the_index_is_deterministic(built_mini: Path, tmp_path: Path) -> None:
    copies = []
    for name in ("one", "two"):
        site = tmp_path / name
        shutil.copytree(built_mini / "site", site, ignore=shutil.ignore_patterns(SUBDIR))
        index_site(site)
        copies.append(tree(site / SUBDIR))
    assert copies[0] == copies[1] == tree(built_mini / "site" / SUBDIR)
    assert len(copies[0]) > 3
