"""Price history as open data, the data licence (CC BY 4.0) and llms.txt, on the mini fixture.

Expected values by hand from tests/fixtures/mini/data/offers.yaml (see tests/test_market.py's header):
the H100 container price c-h100-hour is ¥15/hour on 2026-06-01 (x 730 = ¥10,950 a card-month); the test
adds a July price of ¥14/hour (¥10,220) that replaces it.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from conftest import make_project

from generator.pipeline import Generated, Project, generate


def _with_july_price(data: Path) -> None:
    offers = data / "offers.yaml"
    text = offers.read_text(encoding="utf-8")
    newer = text[text.index("  - id: c-h100-hour") : text.index("  - id: old-a100-survey")]
    newer = newer.replace("c-h100-hour", "c-h100-hour-july").replace("2026-06-01", "2026-07-01")
    newer = newer.replace("price: 15", "price: 14").replace("¥15/时", "¥14/时") + "    replaces: c-h100-hour\n"
    offers.write_text(text + newer, encoding="utf-8")


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate(Project.at(make_project(tmp_path_factory.mktemp("history"), _with_july_price)))


def test_price_history_groups_a_products_prices_oldest_first(gen: Generated) -> None:
    rows = list(csv.DictReader(io.StringIO(gen.files["data/price_history.csv"].decode("utf-8"))))
    h100 = [r for r in rows if r["series"] == "c-h100-hour"]
    assert [(r["id"], r["as_of"], r["card_month_cny"], r["status"], r["replaces"]) for r in h100] == [
        ("c-h100-hour", "2026-06-01", "10950", "history", ""),
        ("c-h100-hour-july", "2026-07-01", "10220", "current", "c-h100-hour"),
    ]
    # every offer of the edition is in the history, once; sorted by GPU, provider, series, date
    assert sorted(r["id"] for r in rows) == sorted(o.id for o in gen.catalogue.offers)
    keys = [(r["gpu"], r["provider"], r["series"], r["as_of"], r["id"]) for r in rows]
    assert keys == sorted(keys)


def test_price_history_json_states_its_licence(gen: Generated) -> None:
    body = json.loads(gen.files["data/price_history.json"])
    assert (body["license"], body["license_url"]) == ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/")
    assert len(body["records"]) == len(gen.catalogue.offers)
    licence = gen.files["data/LICENSE.txt"].decode("utf-8")
    assert "Creative Commons" in licence and "https://creativecommons.org/licenses/by/4.0/legalcode" in licence


def test_llms_txt_lists_every_page_and_every_open_data_file_once(gen: Generated) -> None:
    text = gen.files["llms.txt"].decode("utf-8")
    assert text.startswith("# GPU 算力租赁选型指南\n\n> ")
    links = re.findall(r"^- \[[^\n]*?\]\((https://fixture\.example\.com/[^)]*)\)", text, flags=re.M)
    # a retired comparison URL's redirect page (front matter `redirect:`) is no page to list
    md = [p for p in gen.files if p.endswith(".md")]
    pages = [p for p in md if b"\nredirect: " not in gen.files[p].split(b"\n---\n", 1)[0]]
    assert len(pages) < len(md), "the mini fixture retires comparison URLs; no redirect page was found"
    data = [p for p in gen.files if p.startswith("data/")]
    assert len(links) == len(set(links)) == len(pages) + len(data)
    for path in data:
        assert f"(https://fixture.example.com/{path})" in text, path
    # two pages by hand: the home page is the site root, a scenario its directory URL
    assert "(https://fixture.example.com/)" in text
    assert "(https://fixture.example.com/scenarios/serve-7b/)" in text
    assert "CC BY 4.0" in text and "fields: id, provider, provider_name, gpu" in text


def test_llms_txt_is_deterministic(gen: Generated, tmp_path: Path) -> None:
    again = generate(Project.at(make_project(tmp_path, _with_july_price)))
    assert again.files["llms.txt"] == gen.files["llms.txt"]
    assert again.files["data/price_history.csv"] == gen.files["data/price_history.csv"]


def test_the_footer_states_the_licence_and_links_work(built_mini: Path) -> None:
    site = built_mini / "site"
    for page in ("index.html", "scenarios/serve-7b/index.html"):
        html = (site / page).read_text(encoding="utf-8")
        assert 'href="https://creativecommons.org/licenses/by/4.0/" rel="license noopener"' in html, page
        found = re.search(r'href="([^"]*data/LICENSE\.txt)"', html)
        assert found is not None, page
        target = (site / page).parent / found.group(1)
        assert target.resolve().is_file(), (page, found.group(1))
    assert (site / "llms.txt").is_file() and (site / "data" / "price_history.json").is_file()
    assert (Path(__file__).resolve().parent.parent / "LICENSE-DATA").read_text(encoding="utf-8").count("CC BY 4.0") >= 1
