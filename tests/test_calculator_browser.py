"""The calculator page in Chromium at 1280 and 390 px: the flows a reader goes through, checked
against ``gpu-guide recommend`` (its Python functions) on the real site's data.

A typical serving question, quantized inference, pre-training, the CUDA filter, bad input, an
empty result with the nearest option, a shared link and a scenario's "改参数重新计算" link, a
pasted config.json, and no page-level horizontal overflow. Uses the real site built once per
session (conftest.built_site) and the browser set-up of conftest (fails under CI=true
without Chromium).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import skip_without_chromium

from generator.cli.main import build_parser
from generator.cli.workload import recommend_result
from generator.data.catalogue import Catalogue
from generator.data.records import ModelKind
from generator.data.validate import load_catalogue
from generator.formats import cny
from generator.pages.calculator import INLINE_MODELS, calculator_query, scenario_flags
from generator.pipeline import Project, generate

skip_without_chromium()

pytestmark = pytest.mark.browser

SWITCHES = {"require-cuda", "no-require-cuda", "domestic-only", "tied-embeddings", "public-ip", "no-public-ip", "grad-checkpointing",
            "no-grad-checkpointing"}  # fmt: skip
LLAMA2_7B_CONFIG = (
    '{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 11008, '
    '"num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "vocab_size": 32000, '
    '"tie_word_embeddings": false, "torch_dtype": "float16"}'
)


@pytest.fixture(scope="module")
def cat(built_site: Path) -> Catalogue:
    found, problems = load_catalogue(built_site / "data", built_site)
    assert found is not None, problems
    return found


def python(cat: Catalogue, query: str) -> dict[str, Any]:
    """``gpu-guide recommend --json`` for a calculator query (keys are its flags, switches =1)."""
    argv = ["recommend"]
    for part in query.lstrip("?").split("&"):
        key, _, value = part.partition("=")
        argv += [f"--{key}"] if key in SWITCHES and value == "1" else [f"--{key}", value.replace("%2C", ",")]
    return recommend_result(cat, build_parser().parse_args(argv))


def eligible(result: dict[str, Any]) -> list[tuple[str, int, str]]:
    """(GPU, cards, monthly yuan) of every option that qualifies, in ranking order."""
    return [(o["gpu"], o["cards"], f"{o['monthly_cost_cny']:.2f}") for o in result["options"] if o["eligible"]]


def page_rows(page) -> list[tuple[str, int, str]]:  # type: ignore[no-untyped-def]
    return [
        (g, int(c), t)
        for g, c, t in page.eval_on_selector_all(
            "#calc-table tbody tr[data-gpu]:not(.is-over)",
            "rows => rows.map(r => [r.dataset.gpu, r.dataset.cards, r.querySelector('[data-total]').dataset.total])",
        )
    ]


def open_calc(browser, server: str, query: str = "", width: int = 1280):  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/calculator/{query}")
    page.wait_for_selector("#gpu-calc[data-ready]")
    page.errors = errors  # checked by no_overflow
    return page


def query_of(page) -> str:  # type: ignore[no-untyped-def]
    return str(page.evaluate("location.search"))


def no_overflow(page) -> None:  # type: ignore[no-untyped-def]
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll <= inner, f"page scrolls sideways: {scroll} > {inner}"
    assert "NaN" not in page.text_content("#gpu-calc")
    assert page.errors == []


def test_typical_flow_matches_recommend(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    page = open_calc(browser, server)
    # With nothing chosen the calculator shows the first language model served, at the defaults.
    assert query_of(page) == "?workload=inference&model=llama-2-7b"
    assert page.get_attribute("#gpu-calc", "data-state") == "pick"
    assert page_rows(page) == eligible(python(cat, query_of(page)))
    assert page.text_content("#calc-summary").startswith("推荐：")
    # The reader types their own month: the table follows, and the address bar records it.
    page.select_option("#calc-model", "qwen2.5-7b")
    page.fill("#calc-batch", "16")
    page.fill("#calc-context", "4096")
    page.fill("#calc-hours-per-month", "200")
    page.fill("#calc-disk-gb", "2000")
    page.uncheck("#calc-public-ip")
    q = query_of(page)
    assert (
        q
        == "?workload=inference&model=qwen2.5-7b&batch=16&context=4096&hours-per-month=200&disk-gb=2000&no-public-ip=1"
    )
    want = python(cat, q)
    assert page_rows(page) == eligible(want)
    pick = want["options"][0]
    assert page.eval_on_selector("#calc-table tbody tr.is-pick", "r => r.dataset.gpu") == pick["gpu"]
    # the pick's reasons are shown, word for word as the command line prints them
    shown = page.eval_on_selector_all(
        "#calc-table tr.gpu-calc__why:not([hidden]) li", "ls => ls.map(l => l.textContent)"
    )
    assert shown[: len(pick["reasons"])] == pick["reasons"]
    assert page.text_content("#calc-cli") == "gpu-guide recommend " + " ".join(
        [
            "--workload inference",
            "--model qwen2.5-7b",
            "--batch 16",
            "--context 4096",
            "--hours-per-month 200",
            "--disk-gb 2000",
            "--no-public-ip",
        ]
    )
    no_overflow(page)
    page.close()


def test_quantized_inference(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    page = open_calc(browser, server, "?workload=inference&model=llama-3.1-70b")
    bf16 = python(cat, query_of(page))
    page.select_option("#calc-precision", "int4")
    q = query_of(page)
    assert q == "?workload=inference&model=llama-3.1-70b&precision=int4"
    int4 = python(cat, q)
    assert page_rows(page) == eligible(int4)
    # 4-bit weights: a quarter of the memory per card, so the 80 GB cards need fewer of them.
    h100 = {o["gpu"]: o for o in int4["options"]}["h100-sxm-80g"]
    assert h100["cards"] < {o["gpu"]: o for o in bf16["options"]}["h100-sxm-80g"]["cards"]
    gib = page.eval_on_selector('#calc-table tr[data-gpu="h100-sxm-80g"]', "r => r.cells[3].textContent")
    assert gib.startswith(f"{h100['per_card_gib']:.1f} / ")
    page.select_option("#calc-precision", "q4_k_m")
    assert page_rows(page) == eligible(python(cat, query_of(page)))
    page.close()


def test_a_low_precision_release_is_served_in_its_published_weights(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    """Choosing a model released in FP8 (or MXFP4) for serving selects that precision, says so, and
    the link names it; choosing a BF16 model again goes back to BF16; BF16 chosen by hand is sent."""
    released = next(m for m in cat.models.values() if m.checkpoint_precision is not None)
    plain = next(m for m in cat.models.values() if m.kind.value == "llm" and m.checkpoint_precision is None)
    own = str(released.checkpoint_precision)
    page = open_calc(browser, server, f"?workload=inference&model={plain.id}")
    assert page.input_value("#calc-precision") == "bf16"
    page.select_option("#calc-model", released.id)
    assert page.input_value("#calc-precision") == own
    assert "官方发布的权重" in page.text_content('label[for="calc-precision"]')
    q = query_of(page)
    assert f"precision={own}" in q
    assert page_rows(page) == eligible(python(cat, q))
    page.select_option("#calc-precision", "bf16")  # BF16 by hand: the link must say so, or it means the release's
    assert "precision=bf16" in query_of(page)
    page.select_option("#calc-precision", own)
    page.select_option("#calc-model", plain.id)
    assert page.input_value("#calc-precision") == "bf16" and "precision=" not in query_of(page)
    page.close()
    page = open_calc(browser, server, f"?workload=inference&model={released.id}")  # a link without a precision
    assert page.input_value("#calc-precision") == own
    assert page_rows(page) == eligible(python(cat, query_of(page)))
    no_overflow(page)
    page.close()


def test_a_runtime_link_survives_the_next_edit(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    # A model page's 换一个推理框架 link: the form holds the runtime, so changing another field keeps it
    # in the address and in the figures (calculator.js collect() rebuilds the query from the form).
    page = open_calc(browser, server, "?workload=inference&model=qwen2.5-7b&precision=q4_k_m&runtime=llama.cpp")
    assert page.input_value("#calc-runtime") == "llama.cpp"
    assert page_rows(page) == eligible(python(cat, query_of(page)))
    page.fill("#calc-batch", "8")
    page.wait_for_function("() => new URLSearchParams(location.search).get('batch') === '8'")
    q = query_of(page)
    assert "runtime=llama.cpp" in q
    assert page_rows(page) == eligible(python(cat, q))
    page.select_option("#calc-runtime", "")
    page.wait_for_function("() => !new URLSearchParams(location.search).has('runtime')")
    assert page_rows(page) == eligible(python(cat, query_of(page)))
    page.close()


def test_a_deadline_scales_the_plans_out(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    """完成期限: the field sends the deadline to the engine; the page ranks what `recommend
    --deadline-days` ranks, and every plan it shows ends in time."""
    q = "?workload=pretrain&model=llama-3.1-70b&precision=mixed&context=4096&job-tokens=10&require-cuda=1"
    page = open_calc(browser, server, q)
    page.fill("#calc-deadline-days", "5")
    page.wait_for_function("() => new URLSearchParams(location.search).get('deadline-days') === '5'")
    want = python(cat, q + "&deadline-days=5")
    assert page_rows(page) == eligible(want)
    hours = [o["job_hours"] for o in want["options"] if o["eligible"]]
    assert hours and all(h <= 5 * 24 for h in hours)
    page.close()


def test_pretraining_job_cost(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    q = "?workload=pretrain&model=llama-3.1-70b&precision=mixed&context=4096&job-tokens=10&require-cuda=1"
    page = open_calc(browser, server, q)
    want = python(cat, q)
    assert page_rows(page) == eligible(want)
    jobs = page.eval_on_selector_all("#calc-table tbody tr[data-gpu] [data-job]", "cs => cs.map(c => c.dataset.job)")
    assert jobs == [f"{o['job_cost_cny']:.2f}" for o in want["options"] if o["eligible"]]
    assert jobs == sorted(jobs, key=float), "training jobs rank by the rent to finish the job"
    assert page.text_content("#calc-last-head") == "任务租金"
    assert "任务约" in page.text_content("#calc-summary")
    # sharded multi-card training goes to a whole linked machine: bare metal or an 8-card cloud VM
    assert page.eval_on_selector("#calc-table tr.is-pick", "r => r.cells[4].textContent").startswith(
        ("裸金属", "云服务器")
    )
    no_overflow(page)
    page.close()


def test_cuda_filter_excludes_ascend(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    # rules.yaml defaults.require_cuda is true: Ascend is out until the buyer says the code can move.
    page = open_calc(browser, server, "?workload=inference&model=qwen2.5-72b")
    assert page.is_checked("#calc-require-cuda")
    assert "ascend-910b" not in [g for g, _, _ in page_rows(page)]
    page.uncheck("#calc-require-cuda")
    q = query_of(page)
    assert q.endswith("&no-require-cuda=1")
    assert "ascend-910b" in [g for g, _, _ in page_rows(page)]
    page.check("#calc-require-cuda")
    q = query_of(page)
    assert "require-cuda" not in q
    rows = page_rows(page)
    assert rows == eligible(python(cat, q))
    vendors = {g.id: g.vendor.value for g in cat.gpus.values()}
    assert rows and {vendors[g] for g, _, _ in rows} == {"NVIDIA"}
    why = page.eval_on_selector('#calc-excluded tr[data-gpu="ascend-910b"]', "r => r.cells[1].textContent")
    assert "CUDA" in why
    # only on-demand prices: every offer shown is billed by the hour or day
    page.uncheck("input[name=billing][value=monthly]")
    assert query_of(page).endswith("&billing=on_demand,daily")
    assert page_rows(page) == eligible(python(cat, query_of(page)))
    page.close()


def test_bad_input_shows_a_message_and_no_result(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    page = open_calc(browser, server, "?workload=inference&model=qwen2.5-7b", width=390)
    for text, words in (("-50", "必须大于 0"), ("100000", "不能超过 744"), ("abc", "要填一个数字")):
        page.fill("#calc-hours-per-month", text)
        message = page.text_content("#calc-hours-per-month-error")
        assert "每月使用小时" in message and words in message, message
        assert page.get_attribute("#calc-hours-per-month", "aria-invalid") == "true"
        assert page.get_attribute("#gpu-calc", "data-state") == "error"
        assert page.is_hidden("#calc-table")  # no result, never a clamped one
        box = page.eval_on_selector("#calc-hours-per-month-error", "e => e.getBoundingClientRect().right")
        assert box <= 390
        no_overflow(page)
    page.fill("#calc-hours-per-month", "300")
    assert page.text_content("#calc-hours-per-month-error") == ""
    assert page.get_attribute("#gpu-calc", "data-state") == "pick"
    # A combination the engine refuses: the prompt leaves no room for the answer.
    page.fill("#calc-context", "1024")
    page.fill("#calc-prompt-tokens", "1024")
    assert "没有留给输出" in page.text_content("#calc-prompt-tokens-error")
    # Full training has no 4-bit recipe: the precision list offers only what trains.
    page.fill("#calc-prompt-tokens", "")
    page.select_option("#calc-workload", "full")
    options = page.eval_on_selector_all("#calc-precision option", "os => os.map(o => o.value)")
    assert options == ["mixed", "bf16", "fp16", "fp32"]
    page.close()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_answer_is_on_the_first_screen(browser, server: str, width: int, height: int) -> None:  # type: ignore[no-untyped-def]
    """Issue #21: the result started 1,000–1,700 px down. Beside the form on a desktop, under the model
    choice on a phone; it stays beside the form while the reader scrolls through the inputs."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(f"{server}/calculator/")
    page.wait_for_selector("#gpu-calc[data-ready]")
    box = page.eval_on_selector("#calc-summary", "e => e.getBoundingClientRect().toJSON()")
    model = page.eval_on_selector("#calc-model", "e => e.getBoundingClientRect().toJSON()")
    assert page.text_content("#calc-summary").startswith("推荐：")
    if width >= 1000:
        assert box["bottom"] <= height and box["left"] > model["right"]  # beside the form, whole
        page.mouse.wheel(0, 300)
        page.wait_for_function("window.scrollY > 0")
        top = page.eval_on_selector("#calc-summary", "e => e.getBoundingClientRect().top")
        assert 0 <= top < height  # still in view
    else:
        assert model["bottom"] <= box["top"] and box["bottom"] - model["bottom"] <= height
        form_first = page.eval_on_selector("#calc-workload", "e => e.getBoundingClientRect().top")
        assert box["top"] < form_first  # before the rest of the form
    page.close()


def test_what_readers_type_is_read(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    """Issue #21: a full-width digit (a Chinese IME's ７) was refused; 只看国产 with 代码依赖 CUDA
    found nothing; no billing tier said 计费方式不认识“”; full fine-tuning kept pure BF16."""
    page = open_calc(browser, server, "?workload=inference&model=qwen2.5-72b")
    page.fill("#calc-hours-per-month", "２００")
    assert query_of(page).endswith("&hours-per-month=200")
    assert page.get_attribute("#gpu-calc", "data-state") == "pick"
    assert page.text_content("#calc-hours-per-month-error") == ""
    page.check("#calc-domestic-only")
    assert not page.is_checked("#calc-require-cuda")
    q = query_of(page)
    assert "domestic-only=1" in q and "no-require-cuda=1" in q
    rows = page_rows(page)
    vendors = {g.id: g.vendor.value for g in cat.gpus.values()}
    assert rows == eligible(python(cat, q)) and rows and "NVIDIA" not in {vendors[g] for g, _, _ in rows}
    page.uncheck("#calc-domestic-only")
    for box in page.query_selector_all("input[name=billing]"):
        box.uncheck()
    assert page.get_attribute("#gpu-calc", "data-state") == "error"
    message = page.text_content("#calc-billing-error")
    assert "至少勾选一种计费方式" in message and "“”" not in page.text_content("#gpu-calc")
    page.close()
    page = open_calc(browser, server, "?workload=lora&model=qwen2.5-7b")
    assert page.input_value("#calc-precision") == "bf16"
    page.select_option("#calc-workload", "full")
    assert page.input_value("#calc-precision") == "mixed"
    assert "precision=mixed" in query_of(page)
    no_overflow(page)
    page.close()


def test_empty_result_says_why_and_shows_the_nearest(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    page = open_calc(browser, server, "?workload=inference&model=qwen2.5-7b&budget=100")
    assert page.get_attribute("#gpu-calc", "data-state") == "empty"
    want = python(cat, query_of(page))
    assert want["pick"] is None
    cheapest = next(o for o in want["options"] if o["monthly_cost_cny"] is not None)
    text = page.text_content("#calc-summary")
    assert "超出月预算 ¥100" in text
    over = cheapest["monthly_cost_cny"] - 100
    assert f"超出预算 ¥{over:,.0f}" in text and cheapest["name"] in text
    assert page.eval_on_selector("#calc-table tr.is-over", "r => r.dataset.gpu") == cheapest["gpu"]
    # Too big for any card: says so, with the largest card's memory at the most cards tried.
    page.goto(f"{server}/calculator/?workload=full&params=3000&require-cuda=1")
    page.wait_for_selector("#gpu-calc[data-ready]")
    assert page.get_attribute("#gpu-calc", "data-state") == "empty"
    text = page.text_content("#calc-summary")
    assert "即使用到 64 张卡" in text and "用 64 张时每张卡仍需约" in text
    page.close()


def test_shared_link_reproduces_the_result(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    page = open_calc(browser, server)
    page.select_option("#calc-model", "")
    page.fill("#calc-params", "32")
    page.select_option("#calc-workload", "qlora")
    page.fill("#calc-job-tokens", "0.5")
    page.fill("#calc-hours-per-month", "120")
    page.check("#calc-domestic-only")
    page.uncheck("#calc-domestic-only")
    page.fill("#calc-budget", "50000")
    url = page.url
    rows = page_rows(page)
    summary = page.text_content("#calc-summary")
    assert rows
    other = browser.new_page(viewport={"width": 390, "height": 900})
    other.goto(url)
    other.wait_for_selector("#gpu-calc[data-ready]")
    assert page_rows(other) == rows
    assert other.text_content("#calc-summary") == summary
    assert other.input_value("#calc-params") == "32"
    assert other.input_value("#calc-workload") == "qlora"
    assert other.url == url
    other.close()
    page.close()


def test_scenario_link_opens_the_scenario(browser, server: str, built_site: Path) -> None:  # type: ignore[no-untyped-def]
    gen = generate(Project.at(built_site))
    r = gen.results.scenarios["pretrain-70b"]
    assert r.rec.pick is not None and r.rec.pick.monthly is not None
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/scenarios/pretrain-70b/")
    page.click("text=改参数重新计算")
    page.wait_for_selector("#gpu-calc[data-ready]")
    assert query_of(page) == calculator_query(scenario_flags(gen.catalogue, "pretrain-70b", r.request, r.usage))
    assert page.eval_on_selector("#calc-table tr.is-pick", "r => r.dataset.gpu") == r.rec.pick.gpu.id
    total = page.eval_on_selector("#calc-table tr.is-pick [data-total]", "c => c.dataset.total")
    assert total == f"{r.rec.pick.monthly.total:.2f}"
    page.close()


def test_config_json_fills_the_model(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    page = open_calc(browser, server, "?workload=inference&params=7")
    page.click("text=粘贴 config.json 自动填写")
    page.fill("#calc-config", "{not json")
    page.click("#calc-config-read")
    assert "不是合法的 JSON" in page.text_content("#calc-config-message")
    page.fill("#calc-config", '{"hidden_size": 4096}')
    page.click("#calc-config-read")
    assert "num_hidden_layers" in page.text_content("#calc-config-message")
    page.fill("#calc-config", LLAMA2_7B_CONFIG)
    page.click("#calc-config-read")
    # 6,738,415,616 parameters: the figure Meta's model card rounds to 7B (and models.yaml's llama-2-7b)
    assert "6,738,415,616" in page.text_content("#calc-config-message")
    q = query_of(page)
    assert q.startswith("?workload=inference&params=6.738415616&layers=32&hidden=4096&heads=32&kv-heads=32")
    assert page_rows(page) == eligible(python(cat, q))
    page.close()


@pytest.mark.parametrize("width", [1280, 1024, 390])
def test_no_sideways_scroll_and_cards_on_a_phone(browser, server: str, width: int) -> None:  # type: ignore[no-untyped-def]
    """Nor inside the results' box: at 1024 px the table needed 663 px of a 565 px box and scrolled
    there; the results become cards wherever the box is narrower than the table (a container query)."""
    for q in ("", "?workload=pretrain&model=llama-3.1-405b&precision=mixed&job-tokens=100",
              "?workload=inference&model=qwen2.5-7b&budget=100", "?workload=inference&params=-1",
              "?workload=inference&model=sdxl&precision=fp16&resolution=2048"):  # fmt: skip
        page = open_calc(browser, server, q, width=width)
        no_overflow(page)
        # the title's hidden permalink (¶) took a blank second line under it on a phone
        assert page.evaluate("() => document.querySelector('article h1 .headerlink').getClientRects().length") == 0
        for sel in ("#calc-hours-per-month", "#calc-model", "#calc-workload", "#calc-budget"):
            w, style = page.evaluate(
                f"() => {{ const s = getComputedStyle(document.querySelector('{sel}'));"
                " return [parseFloat(s.borderTopWidth), s.borderTopStyle]; }"
            )
            assert w >= 1 and style != "none", sel
        if page.get_attribute("#gpu-calc", "data-state") == "pick":
            box = page.evaluate(
                "() => { const r = document.querySelector('#calc-table tr.is-pick');"
                " const b = c => r.querySelector(c).getBoundingClientRect();"
                " return [b('.gpu-calc__gpu').left, b('.gpu-calc__gpu').right, b('.gpu-calc__month').right,"
                " document.querySelector('#calc-table thead').getBoundingClientRect().height]; }"
            )
            left, right, month_right, head = box
            assert left >= 0 and right <= width and month_right <= width
            inner, room = page.evaluate(
                "() => { const w = document.querySelector('.gpu-calc__tablewrap'); return [w.scrollWidth, w.clientWidth]; }"
            )
            assert inner <= room, (q, inner, room)
            if width == 390:
                assert head == 0, "on a phone the table becomes cards (no header row)"
        page.close()


def test_home_page_links_the_calculator(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page()
    page.goto(f"{server}/")
    links = page.eval_on_selector_all("article a", "as => as.map(a => a.getAttribute('href'))")
    assert any(h and h.rstrip("/").endswith("calculator") for h in links), links
    page.close()


@pytest.mark.parametrize("word", ["constructor", "__proto__", "toString", "hasOwnProperty"])
def test_a_prototype_name_in_the_link_is_a_message_not_a_crash(browser, server: str, word: str) -> None:  # type: ignore[no-untyped-def]
    """Issue 23: ``?workload=constructor`` read ``Object.prototype.constructor`` as the list of
    precisions, threw an uncaught TypeError and blanked the results."""
    page = open_calc(browser, server, f"?workload={word}&model=llama-2-7b")
    assert page.errors == []
    assert page.text_content("#calc-workload-error") == f"用法不认识“{word}”"
    assert page.get_attribute("#gpu-calc", "data-state") == "error"
    page.close()
    page = open_calc(browser, server, f"?workload=inference&model=llama-2-7b&precision={word}")
    assert page.errors == []
    assert page.text_content("#calc-precision-error") == f"精度不认识“{word}”"
    page.close()


def _pick(result: dict[str, Any]) -> dict[str, Any]:
    return next(o for o in result["options"] if o["eligible"])


def test_headlines_lead_with_the_workloads_own_measure(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    """Serving leads with ¥ per million tokens at the stated load, its TTFT and per-user speed;
    images with images per hour and ¥ per 1,000; the month comes second, with its hours."""
    q = "?workload=inference&model=llama-2-7b"
    page = open_calc(browser, server, q)
    head = page.text_content("#calc-summary") or ""
    at = _pick(python(cat, q))["serving"]["at_load"]
    measure = f"每百万 token 约 {cny(at['cny_per_million_tokens'], 2)}"
    assert measure in head
    assert f"首 token 约 {at['time_to_first_token_s']:.2f} 秒" in head
    assert f"每个用户每秒约 {at['user_output_tokens_per_s']:.1f} token" in head
    assert "每月约" in head and head.index(measure) < head.index("每月约")
    assert "小时）" in head  # the month's hours basis
    no_overflow(page)
    page.close()

    q = "?workload=inference&model=sdxl"
    page = open_calc(browser, server, q)
    head = page.text_content("#calc-summary") or ""
    pick = _pick(python(cat, q))
    assert f"每小时约 {pick['images_per_hour']:,.0f} 张图" in head
    assert f"每千张约 {cny(pick['cost_per_1000_images_cny'], 2)}" in head
    no_overflow(page)
    page.close()


def test_every_row_opens_into_its_memory_breakdown(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    q = "?workload=inference&model=llama-2-7b"
    page = open_calc(browser, server, q)
    pick = _pick(python(cat, q))
    parts = page.eval_on_selector_all(
        "#calc-table tr.is-pick + tr.gpu-calc__why details.gpu-calc__memory tr[data-part]",
        "rs => rs.map(r => [r.dataset.part, parseFloat(r.cells[1].textContent)])",
    )
    got = dict(parts)
    assert {"weights", "overhead", "total"} <= set(got)
    # the engine's per-card peak, and the parts add up to it (each shown to 0.1 GiB)
    assert abs(got["total"] - pick["per_card_gib"]) <= 0.05
    shown = [v for k, v in parts if k != "total"]
    assert abs(sum(shown) - got["total"]) <= 0.05 * len(shown) + 0.05
    # Llama-2-7B in BF16: 6.74e9 parameters x 2 bytes = 12.6 GiB of weights (the model card's count)
    assert abs(got["weights"] - 6.74e9 * 2 / 2**30) < 0.15
    # another row's reasons are made when it is first opened (not drawn for thirty rows up front), and
    # open into the same breakdown: that card's own peak
    second = next(o for o in python(cat, q)["options"] if o["eligible"] and o["gpu"] != pick["gpu"])
    row = page.locator(f'#calc-table tbody tr[data-gpu="{second["gpu"]}"]')
    assert page.locator("#calc-table tr.gpu-calc__why").count() == 1  # the pick's only
    row.locator("button").click()
    total = row.locator("xpath=following-sibling::tr[1]").locator('details.gpu-calc__memory tr[data-part="total"]')
    total_text = (total.locator("td").nth(1).text_content() or "").split()[0]
    assert abs(float(total_text) - second["per_card_gib"]) <= 0.05
    row.locator("button").click()
    assert page.locator("#calc-table tr.gpu-calc__why:not([hidden])").count() == 1  # closed again
    page.close()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_nothing_moves_while_the_first_result_is_drawn(browser, server: str, width: int, height: int) -> None:  # type: ignore[no-untyped-def]
    """Lighthouse counted the fields the script hides and the result it draws as layout shifts (CLS 0.059 on
    a phone): the HTML now hides what the start's inputs do not show, holds the table, excluded cards and
    link box back until the first result, and keeps the result's room on a phone."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.add_init_script(
        "window.__shifts = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) "
        "window.__shifts.push(e.value); }).observe({type: 'layout-shift', buffered: true});"
    )
    page.goto(f"{server}/calculator/")
    page.wait_for_selector("#gpu-calc[data-ready]")
    page.wait_for_timeout(300)  # a shift is reported after the frame that made it
    assert sum(page.evaluate("window.__shifts")) < 0.005
    page.close()


def test_serving_rows_show_the_measure_they_rank_by(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    """Serving ranks by ¥ per million tokens at the reader's load (``serving.at_load``), so the last
    column shows that figure, headed 本负载, and the sentence under the pick names it (it said 每月合计
    and showed the at-capacity figure while the rows were ordered by the load's)."""
    q = "?workload=inference&model=qwen2.5-7b&batch=16&context=4096"
    page = open_calc(browser, server, q)
    want = python(cat, q)
    assert page_rows(page) == eligible(want)
    shown = page.eval_on_selector_all(
        "#calc-table tbody tr[data-gpu]:not(.is-over) [data-permtok]", "cs => cs.map(c => c.dataset.permtok)"
    )
    at_load = [o["serving"]["at_load"]["cny_per_million_tokens"] for o in want["options"] if o["eligible"]]
    assert [float(s) for s in shown] == pytest.approx(at_load, abs=6e-5)
    assert page.text_content("#calc-last-head") == "每百万 token（本负载）"
    assert "按本负载下每百万 token 的成本从低到高排列" in page.text_content("#calc-summary")
    page.close()


def test_image_rows_show_images_per_hour_and_cost_per_thousand(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    """Image plans rank by ¥ per 1,000 images: each row shows it with images per hour (was "—")."""
    q = "?workload=inference&model=sdxl&precision=fp16"
    page = open_calc(browser, server, q)
    want = python(cat, q)
    pick = next(o for o in want["options"] if o["eligible"])
    cell = page.eval_on_selector("#calc-table tr.is-pick", "r => r.querySelector('.gpu-calc__last').textContent")
    assert cell == f"{cny(pick['cost_per_1000_images_cny'], 2)}（每小时 {pick['images_per_hour']:,.0f} 张）"
    assert page.text_content("#calc-last-head") == "每千张图"
    assert "按每千张图的成本从低到高排列" in page.text_content("#calc-summary")
    page.close()


def test_architectures_come_once_after_the_first_result(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    """The page carries the start model's architecture: its result needs no fetch. Every other model's
    comes from assets/calculator-models.json, fetched once (with its version), then any model is ranked
    as ``recommend`` ranks it."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "calculator-models.json" in r.url else None)
    page.goto(f"{server}/calculator/")
    page.wait_for_selector("#gpu-calc[data-ready]")
    assert len(fetched) == 1 and "calculator-models.json?v=" in fetched[0]
    page.select_option("#calc-model", "qwen2.5-7b")
    assert page.get_attribute("#gpu-calc", "data-state") == "pick"
    assert page_rows(page) == eligible(python(cat, query_of(page)))
    assert len(fetched) == 1
    page.close()


def test_a_link_to_another_model_waits_for_its_architecture(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    """A link naming a model whose architecture the page does not carry ranks it once the file is here."""
    q = "?workload=inference&model=qwen2.5-7b&batch=8"
    page = open_calc(browser, server, q)
    assert page.get_attribute("#gpu-calc", "data-state") == "pick"
    assert page_rows(page) == eligible(python(cat, q))
    no_overflow(page)
    page.close()


def test_an_architecture_file_that_does_not_come_is_said_in_words(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    """Offline after the page loaded: the link's model cannot be sized, and the summary says what to do
    (no result built from a model without its architecture, no script error)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route("**/calculator-models.json*", lambda route: route.abort())
    page.goto(f"{server}/calculator/?workload=inference&model=qwen2.5-7b")
    page.wait_for_selector("#gpu-calc[data-ready]")
    assert page.get_attribute("#gpu-calc", "data-state") == "error"
    assert "模型结构数据没有载入" in page.text_content("#calc-summary")
    assert page.eval_on_selector_all("#calc-table tbody tr", "rows => rows.length") == 0
    # the start model's own architecture is on the page: choosing it still gives its result
    page.select_option("#calc-model", "llama-2-7b")
    assert page.get_attribute("#gpu-calc", "data-state") == "pick"
    assert errors == []
    page.close()


def model_options(page) -> list[tuple[str, str, bool]]:  # type: ignore[no-untyped-def]
    """(group label, value, disabled) of every option of the model list, in order."""
    return [
        (g, v, d)
        for g, v, d in page.eval_on_selector_all(
            "#calc-model option",
            "os => os.map(o => [o.parentElement.label || '', o.value, o.disabled])",
        )
    ]


def test_the_list_has_every_model_once_the_file_is_here(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    """The page lists the first few models (the start among them) and says the rest are coming; once
    the file is here the list holds every model of the catalogue, grouped, in its order (issue #21)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.route("**/calculator-models.json*", lambda route: route.abort())
    page.goto(f"{server}/calculator/")
    page.wait_for_selector("#gpu-calc[data-ready]")
    first = model_options(page)
    assert [v for _, v, _ in first[:INLINE_MODELS]] == list(cat.models)[:INLINE_MODELS]
    assert first[INLINE_MODELS] == ("", "（其余模型载入中……）", True)
    assert first[-1] == ("", "", False)  # 自己填参数量 / 粘贴 config.json
    assert page.eval_on_selector("#calc-model", "s => s.value") == "llama-2-7b"
    assert page.get_attribute("#gpu-calc", "data-state") == "pick"  # the start needs no file
    page.close()
    page = open_calc(browser, server)
    groups = {ModelKind.llm: "语言模型", ModelKind.diffusion: "图像模型"}
    want = [(groups[ModelKind.llm], m.id, False) for m in cat.models.values() if m.kind is ModelKind.llm]
    want += [(groups[ModelKind.diffusion], m.id, False) for m in cat.models.values() if m.kind is ModelKind.diffusion]
    assert model_options(page) == [*want, ("", "", False)]
    # every model but the video ones: the calculator has no video workload yet (generator/pages/calculator.py)
    listed = [m for m in cat.models.values() if m.kind is not ModelKind.video]
    assert len(want) == len(listed) > INLINE_MODELS + 1 and len(listed) < len(cat.models)
    assert page.eval_on_selector("#calc-model", "s => s.value") == "llama-2-7b"
    no_overflow(page)
    page.close()


def test_a_link_to_an_unlisted_model_takes_its_default_precision(browser, server: str, cat: Catalogue) -> None:  # type: ignore[no-untyped-def]
    """Kimi K2 comes with the file only: a link naming it waits for it, the form then shows the model
    chosen and its published FP8 weights as the precision, and the result is ``recommend``'s. A
    further edit keeps that precision (the link it writes says fp8, as ``recommend`` would size it)."""
    assert list(cat.models).index("kimi-k2") >= INLINE_MODELS
    assert cat.models["kimi-k2"].checkpoint_precision is not None
    assert cat.models["kimi-k2"].checkpoint_precision.value == "fp8"
    q = "?workload=inference&model=kimi-k2"
    page = open_calc(browser, server, q)
    assert page.eval_on_selector("#calc-model", "s => s.value") == "kimi-k2"
    assert page.eval_on_selector("#calc-model", "s => s.selectedOptions[0].textContent").startswith("Kimi")
    assert page.eval_on_selector("#calc-precision", "s => s.value") == "fp8"
    assert page.get_attribute("#gpu-calc", "data-state") == "pick"
    assert page_rows(page) == eligible(python(cat, q))
    page.fill("#calc-batch", "4")
    assert query_of(page) == "?workload=inference&model=kimi-k2&batch=4&precision=fp8"
    assert page_rows(page) == eligible(python(cat, query_of(page)))
    no_overflow(page)
    page.close()
