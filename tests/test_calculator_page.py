"""The calculator page's Python side: the JSON it embeds, and the links that open it preloaded.

A scenario's or a model page's "改参数重新计算" link must describe the same job: its query,
read back as ``gpu-guide recommend`` flags, must give the pick and the costs the page prints.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from conftest import REPO, REPO_BUILD_DATE, make_project, replace_in

from generator.cli.main import build_parser
from generator.cli.workload import recommend_result
from generator.data.catalogue import Catalogue
from generator.engine.bounds import BOUNDS
from generator.formats import cny
from generator.pages.calculator import (
    ARCHITECTURES,
    FORM_FIELDS,
    INLINE_MODELS,
    calculator_data,
    calculator_query,
    scenario_flags,
)
from generator.pages.plan import model_flags
from generator.pipeline import Generated, Project, generate
from generator.results.model_pages import with_format_pages

SWITCHES = {
    "require-cuda",
    "no-require-cuda",
    "domestic-only",
    "no-public-ip",
    "public-ip",
    "no-grad-checkpointing",
    "grad-checkpointing",
}


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate(Project.at(make_project(tmp_path_factory.mktemp("calc-page"))))


@pytest.fixture(scope="module")
def bundled() -> Generated:
    return generate(Project.at(REPO, build_date=REPO_BUILD_DATE))


def run_query(cat: Catalogue, query: str) -> dict[str, object]:
    argv = ["recommend"]
    for part in query.lstrip("?").split("&"):
        key, _, value = part.partition("=")
        argv += [f"--{key}"] if key in SWITCHES else [f"--{key}", value]
    return recommend_result(cat, build_parser().parse_args(argv))


def test_data_carries_only_the_offers_that_may_price(mini: Generated) -> None:
    data = calculator_data(mini.catalogue)
    # The fixture's seven offers: the spot price never ranks (rules.prices.pick_billing) and the 2025
    # survey is older than 180 days before the newest price (2026-07-01): five remain.
    assert sorted(o["id"] for o in data["offers"]) == ["bm-a100-8", "bm-h100-8", "c-4090-hour", "c-h100-hour",
                                                       "m-4090-usd"]  # fmt: skip
    a100 = next(g for g in data["gpus"] if g["id"] == "a100-sxm-80g")
    assert (a100["offers_any"], a100["offers_current"]) == (2, 1)
    # the range's middle in its own currency; the conversion happens in engine/cost.js with the rates
    h100 = next(o for o in data["offers"] if o["id"] == "bm-h100-8")
    assert (h100["price"], h100["currency"], h100["unit"]) == (85000, "CNY", "month")
    usd = next(o for o in data["offers"] if o["id"] == "m-4090-usd")
    assert usd["currency"] == "USD" and data["fx"]
    assert set(data["rules"]) == {"cost", "prices", "defaults", "delivery", "memory", "speed", "support", "decision"}
    assert set(data["bounds"]) == set(BOUNDS)
    assert data["start"] == [["workload", "inference"], ["model", "llama-2-7b"]]


def test_scenario_links_name_only_what_differs_from_the_defaults(mini: Generated) -> None:
    # serve-7b: batch 4 and 300 hours differ from rules.yaml's defaults (1, 730); bf16 and the
    # 2048-token context do not, nor does requiring CUDA (rules.yaml defaults.require_cuda).
    r = mini.results.scenarios["serve-7b"]
    assert calculator_query(scenario_flags(mini.catalogue, "serve-7b", r.request, r.usage)) == (
        "?workload=inference&model=llama-2-7b&batch=4&hours-per-month=300"
    )
    r = mini.results.scenarios["full-13b"]
    assert calculator_query(scenario_flags(mini.catalogue, "full-13b", r.request, r.usage)) == (
        "?workload=full&model=llama-2-13b&precision=mixed&job-tokens=1"
    )


def check_links(gen: Generated) -> int:
    """Every scenario's and model page's link, read back as flags, gives what the page prints."""
    cat, checked = gen.catalogue, 0
    pages = [(f"scenarios/{s}.md", r.rec, calculator_query(scenario_flags(cat, s, r.request, r.usage)))
             for s, r in gen.results.scenarios.items()]  # fmt: skip
    # a model page's link carries its request and, for serving, the month of its load scenario
    pages += [(f"models/{mp.slug}.md", mp.rec, calculator_query(model_flags(cat, mp)))
              for mp in with_format_pages(gen.results.models)]  # fmt: skip
    for path, rec, query in pages:
        text = gen.files[path].decode("utf-8")
        assert f"(../calculator.md{query})" in text, path
        got = run_query(cat, query)
        assert got["pick"] == (rec.pick.gpu.id if rec.pick else None), path
        options = got["options"]
        assert isinstance(options, list)
        for o, row in zip(rec.options, options, strict=True):
            assert row["gpu"] == o.gpu.id and row["cards"] == o.cards, path
            assert row["monthly_cost_cny"] == (round(o.monthly.total, 2) if o.monthly else None), path
            assert row["job_cost_cny"] == (round(o.job_cost_cny, 2) if o.job_cost_cny is not None else None), path
        checked += 1
    return checked


def test_links_reproduce_every_page_of_the_fixture(mini: Generated) -> None:
    assert check_links(mini) == 2 + len(with_format_pages(mini.results.models))


def test_links_reproduce_every_page_of_the_bundled_data(bundled: Generated) -> None:
    pages = with_format_pages(bundled.results.models)
    assert len(pages) > len(bundled.results.models)  # the format pages are checked too
    assert check_links(bundled) == len(bundled.results.scenarios) + len(pages)


def test_one_json_blob_on_the_calculator_page_only(mini: Generated) -> None:
    page = mini.files["calculator.md"].decode("utf-8")
    blobs = re.findall(r'<script type="application/json" id="calc-data">(.*?)</script>', page, re.S)
    assert len(blobs) == 1
    inline = json.loads(blobs[0])
    full = json.loads(json.dumps(calculator_data(mini.catalogue)))
    # everything but the models' architectures is inline, as the engine reads it
    assert {k: v for k, v in inline.items() if k not in ("models", "architectures")} == {
        k: v for k, v in full.items() if k != "models"
    }
    assert page.count("<script") == 2  # the data blob and one module: the bundle (generator.publish.bundle)
    assert page.count('<script type="module" src="../javascripts/calculator.bundle.js"></script>') == 1
    others = [p for p, body in mini.files.items() if p != "calculator.md" and b"calc-data" in body]
    assert others == []


@pytest.mark.parametrize("site", ["mini", "bundled"])
def test_the_page_carries_the_start_and_the_rest_comes_from_one_file(site: str, request: pytest.FixtureRequest) -> None:
    """The page lists the start model whole and the catalogue's first INLINE_MODELS others with
    what the form's list shows (names, kinds, sizes, default precisions); the architectures file
    holds every model whole, in the catalogue's order, so the page plus that file give exactly what
    the engine reads (calculator_data). The start model is whole inline, so the first calculation
    fetches nothing. The mini fixture's two models are all listed; the bundled site's 30 are not
    (issue #21: a list of every model is over the first-view budget at 40 copies of each)."""
    gen: Generated = request.getfixturevalue(site)
    page = gen.files["calculator.md"].decode("utf-8")
    inline = json.loads(re.findall(r'id="calc-data">(.*?)</script>', page, re.S)[0])
    full = json.loads(json.dumps(calculator_data(gen.catalogue)))
    arch = json.loads(gen.files[ARCHITECTURES])
    assert arch == full["models"]  # every model whole, in the form's order
    ids = [m["id"] for m in full["models"]]
    assert inline["architectures"]["inline"] == ["llama-2-7b"]  # the start: inference on the first language model
    assert inline["architectures"]["count"] == len(ids)
    listed = [m["id"] for m in inline["models"]]
    assert listed == ids[:INLINE_MODELS] + ([] if "llama-2-7b" in ids[:INLINE_MODELS] else ["llama-2-7b"])
    assert len(listed) == (2 if site == "mini" else INLINE_MODELS) < 30
    for short in inline["models"]:
        whole = full["models"][ids.index(short["id"])]
        if short["id"] == "llama-2-7b":
            assert short == whole and "layers" in short
        else:
            assert set(short) <= set(FORM_FIELDS) and {"id", "name", "kind", "params_b"} <= set(short)
            assert short == {k: whole[k] for k in short}
            assert "layers" not in short and "components" not in short
    path, _, version = inline["architectures"]["path"].partition("?v=")
    assert path == ARCHITECTURES == "assets/calculator-models.json"
    assert version == hashlib.sha256(gen.files[ARCHITECTURES]).hexdigest()[:12]


def test_the_architectures_file_changes_its_version_with_a_model(mini: Generated, tmp_path: Path) -> None:
    """A cached copy of an older file is never taken: the page's link names the file's digest."""
    before = mini.files

    def fewer_layers(data: Path) -> None:
        replace_in(data / "models.yaml", "    layers: 32\n", "    layers: 30\n")

    after = generate(Project.at(make_project(tmp_path, fewer_layers))).files
    assert after[ARCHITECTURES] != before[ARCHITECTURES]
    link = re.compile(rb'"path":"assets/calculator-models.json\?v=([0-9a-f]{12})"')
    assert link.findall(after["calculator.md"]) != link.findall(before["calculator.md"])


def test_a_training_scenario_headline_leads_with_the_job(mini: Generated) -> None:
    """The scenario's result box opens with the cards that work, the job's time and its rent; the month
    comes second with its hours basis. The description leads with the job rent too. The rent is the one
    the model page and the calculator link give for the same job (check_links above)."""
    for r in mini.results.scenarios.values():
        pick = r.rec.pick
        if not (r.rec.training_job and pick and pick.job_cost_cny is not None and pick.monthly):
            continue
        page = mini.files[f"scenarios/{r.scenario.id}.md"].decode("utf-8")
        box = page.split('!!! success "计算结果"', 1)[1].strip().splitlines()[0]
        rent, month = cny(pick.job_cost_cny), cny(pick.monthly.total)
        assert f"× {pick.cards_used or pick.cards} 张" in box
        assert "跑完参照任务" in box and rent in box and month in box
        assert box.index(rent) < box.index(month)  # the job first, the month second
        assert f"按每月 {pick.monthly.hours_used:,.0f} 小时计" in box
        description = page.split("description:", 1)[1].splitlines()[0]
        assert rent in description and month not in description
        break
    else:
        raise AssertionError("the fixture has no training scenario with a job")


def test_a_serving_scenario_headline_leads_with_cost_per_million_tokens(mini: Generated) -> None:
    """A serving scenario's result box opens with the workload's own measure: yuan per million tokens at
    the scenario's concurrency (its basis said), TTFT and per-user speed, the figures the pick's row
    gives; the month comes second with its hours basis."""
    for r in mini.results.scenarios.values():
        pick = r.rec.pick
        if not (pick and pick.load and pick.monthly):
            continue
        page = mini.files[f"scenarios/{r.scenario.id}.md"].decode("utf-8")
        box = page.split('!!! success "计算结果"', 1)[1].strip().splitlines()[0]
        per_mtok, month = cny(pick.load.cost_per_mtok_cny, 2), cny(pick.monthly.total)
        assert f"按 {r.request.batch} 路并发" in box and "提示与输出合计，只计 GPU 租金" in box
        assert per_mtok in box and f"首 token 约 {pick.load.ttft_s:.2f} 秒" in box
        assert box.index(per_mtok) < box.index(month)  # the measure first, the month second
        assert f"按每月 {pick.monthly.hours_used:,.0f} 小时计" in box
        assert f"每百万 token（提示与输出合计，只计 GPU 租金）约 {per_mtok}" in page.split(box, 1)[1]  # the row
        break
    else:
        raise AssertionError("the fixture has no serving scenario with a plan")


def test_the_form_has_the_runtime_a_link_brings(mini: Generated) -> None:
    # A model page's 换一个推理框架 links carry runtime=; the form must hold it, or the next change of any
    # field rebuilds the query without it (calculator.js collect() reads only the form's fields).
    page = mini.files["calculator.md"].decode("utf-8")
    select = re.search(r'<select id="calc-runtime"[^>]*>(.*?)</select>', page, re.S)
    assert select is not None
    values = re.findall(r'<option value="([^"]*)">([^<]*)</option>', select.group(1))
    # rules.yaml defaults.runtime (vllm) is the empty default; the others by the names rules.yaml gives them
    assert values == [("", "vLLM（默认）"), ("transformers", "Hugging Face transformers"), ("llama.cpp", "llama.cpp")]
    script = (REPO / "docs" / "javascripts" / "calculator.js").read_text(encoding="utf-8")
    assert re.search(r'const SELECT_FLAGS = \[[^\]]*"runtime"', script)


def test_the_calculator_data_carries_no_citations_the_engine_never_reads() -> None:
    """Rule sources and quotes stay on the pages: the calculator's payload has none at any depth, and no
    module of the JS engine reads a ``source``/``quote`` key (if one starts to, the payload must carry it)."""
    import re

    from generator.data.validate import load_catalogue
    from generator.pages.calculator import CITATION_KEYS, calculator_data

    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None, problems
    rules = calculator_data(cat)["rules"]
    found: list[str] = []

    def walk(value: object, path: str) -> None:
        if isinstance(value, dict):
            found.extend(f"{path}.{k}" for k in value if k in CITATION_KEYS)
            for k, v in value.items():
                walk(v, f"{path}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]")

    walk(rules, "rules")
    assert not found
    assert "latency_factor" in rules["speed"]["decode"]["no_peer_to_peer"]  # the figures themselves stay
    engine = REPO / "docs" / "javascripts"
    readers = re.compile(r"\.(source|sources|quote)\b|\[\"(source|sources|quote)\"\]")
    for js in [*engine.glob("engine/*.js"), engine / "calculator.js"]:
        code = "\n".join(
            line
            for line in js.read_text(encoding="utf-8").splitlines()
            if not line.strip().startswith(("//", "*", "/**"))
        )
        assert not readers.search(code), js.name
