"""Model landing pages (results.model_pages): one stated serving load shared with a scenario, pages per
published serving format, and the active-parameter figure with its basis (issues 17 and 19).

All on the mini fixture: its serving scenario ``serve-7b`` (Llama-2-7B, BF16, 4 users, 2,048-token
context, 300 hours a month) is the load the fixture's rules name (conftest.make_project)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import MINI_BUILD_DATE, REPO, make_project, replace_in

from generator.data.catalogue import Catalogue
from generator.data.problems import render
from generator.data.records import Precision, Runtime, Workload
from generator.data.validate import load_catalogue
from generator.engine.exclusion import ExclusionKind
from generator.engine.sizing import Sizer
from generator.pages.plan import model_flags
from generator.pages.render import environment
from generator.pipeline import Project, generate
from generator.results.model_pages import model_page
from generator.results.scenarios import scenario_results

RELEASES = """    releases:
      - precision: fp8
        name: example/Llama-2-7b-FP8
        source: https://example.com/llama-2-7b-fp8
      - precision: bf16
        name: example/Llama-2-7b-BF16
        source: https://example.com/llama-2-7b-bf16
      - precision: q4_k_m
        name: example/Llama-2-7b-GGUF
        source: https://example.com/llama-2-7b-gguf
"""


def _catalogue(root: Path) -> Catalogue:
    cat, problems = load_catalogue(root / "data", root)
    assert cat is not None, render(problems)
    return cat


def _with_releases(data: Path) -> None:
    # the first model of the fixture (Llama-2-7B) ends its entry with its source line
    replace_in(
        data / "models.yaml",
        "    source: https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json\n",
        "    source: https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json\n" + RELEASES,
    )


def test_the_model_page_and_its_load_scenario_price_one_job(mini: Path) -> None:
    cat = _catalogue(mini)
    sizer = Sizer(cat.rules)
    scenario = scenario_results(cat, sizer)["serve-7b"]
    page = model_page(cat, cat.models["llama-2-7b"], Workload.inference, sizer)
    # the scenario's load, as data/scenarios.yaml of the fixture states it
    assert (page.request.batch, page.request.context) == (4, 2048)
    assert page.usage is not None and page.usage.hours_per_month == 300
    a, b = scenario.rec.pick, page.rec.pick
    assert a is not None and b is not None and a.monthly is not None and b.monthly is not None
    assert (a.gpu.id, a.cards_billed, a.offer) == (b.gpu.id, b.cards_billed, b.offer)
    assert a.monthly.gpu_rent == pytest.approx(b.monthly.gpu_rent)
    assert a.monthly.total == pytest.approx(b.monthly.total)
    assert a.cost_per_mtok_at_batch_cny is not None
    assert a.cost_per_mtok_at_batch_cny == pytest.approx(b.cost_per_mtok_at_batch_cny)


def test_the_calculator_link_carries_the_load(mini: Path) -> None:
    cat = _catalogue(mini)
    page = model_page(cat, cat.models["llama-2-7b"], Workload.inference, Sizer(cat.rules))
    flags = model_flags(cat, page)
    # 4 users and 300 hours differ from rules.defaults (batch 1, 730 hours); the context is the default
    assert flags["batch"] == "4" and flags["hours-per-month"] == "300"
    assert "context" not in flags


def test_a_load_scenario_that_serves_no_language_model_is_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    replace_in(root / "data" / "rules.yaml", "load_scenario: serve-7b", "load_scenario: full-13b")
    found, problems = load_catalogue(root / "data", root)
    assert found is None
    assert 'pages.model_pages.inference.load_scenario: scenario "full-13b" must serve a language model' in render(
        problems
    )


def test_an_unknown_load_scenario_is_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    replace_in(root / "data" / "rules.yaml", "load_scenario: serve-7b", "load_scenario: serve-70b")
    found, problems = load_catalogue(root / "data", root)
    assert found is None
    assert "pages.model_pages.inference.load_scenario" in render(problems)


def test_format_pages_only_for_published_formats_the_runtime_runs(tmp_path: Path) -> None:
    cat = _catalogue(make_project(tmp_path, _with_releases))
    page = model_page(cat, cat.models["llama-2-7b"], Workload.inference, Sizer(cat.rules))
    # BF16 is the main page's own format: no second page for it; the others in the order listed
    assert [(p.slug, p.request.precision) for p in page.format_pages] == [
        ("llama-2-7b-inference-fp8", Precision.fp8),
        ("llama-2-7b-inference-q4_k_m", Precision.q4_k_m),
    ]
    fp8 = page.format_pages[0]
    assert [r.name for r in fp8.releases] == ["example/Llama-2-7b-FP8"]
    # the same load as the main page, in its own format: the linear layers at 1 byte, the input embedding
    # and the head (32,000 x 4,096 each) kept at 2 bytes: (6.74e9 - 2 * 131,072,000) + 2 * 131,072,000 * 2
    # = 7,002,144,000 bytes = 6.52 GiB
    assert (fp8.request.batch, fp8.request.context) == (page.request.batch, page.request.context)
    assert fp8.single_card.breakdown["weights"] == pytest.approx(7_002_144_000 / 2**30, rel=1e-3)
    assert not fp8.format_pages and fp8.main_slug == "llama-2-7b-inference"


def test_a_format_page_leaves_out_cards_its_format_does_not_run_on(tmp_path: Path) -> None:
    def edit(data: Path) -> None:
        _with_releases(data)
        # the fixture's A100 made a Volta-class card (7.0): below both FP8 kernels' floors (8.9, 8.0)
        replace_in(data / "gpus.yaml", "    compute_capability: 8.0\n", "    compute_capability: 7.0\n")

    cat = _catalogue(make_project(tmp_path, edit))
    page = model_page(cat, cat.models["llama-2-7b"], Workload.inference, Sizer(cat.rules))
    fp8 = page.format_pages[0]
    a100 = fp8.rec.option_for("a100-sxm-80g")
    assert a100 is not None and a100.excluded is not None
    assert a100.excluded.kind is ExclusionKind.unsupported_format
    # Ada (8.9) and Hopper (9.0) run FP8 W8A8
    for gid in ("rtx-4090-24g", "h100-sxm-80g"):
        o = fp8.rec.option_for(gid)
        assert o is not None and (o.excluded is None or o.excluded.kind is not ExclusionKind.unsupported_format)
    assert a100.excluded.params["format"] == "FP8"


def _active(model: object) -> str:
    env = environment(REPO / "templates")
    return env.get_template("partials/active_params.md.j2").render(model=model)


def test_the_model_cards_active_figure_is_shown_with_its_basis() -> None:
    # OpenAI's gpt-oss model card (arXiv 2508.10925): "116.8B total parameters (5.1B active)"; the count
    # read from config.json with the 201,088 x 2,880 input embedding is 5.71B
    stated = SimpleNamespace(
        value_b=5.13,
        source="https://arxiv.org/abs/2508.10925",
        quote="gpt-oss-120b: 116.8B total parameters (5.1B active)",
        basis="OpenAI 模型卡的数字，不计输入词嵌入查表",
    )
    text = _active(SimpleNamespace(active_params_b=5.71, active_params_stated=stated))
    assert text.startswith(
        "每个 token 激活 5.1B（[OpenAI 模型卡的数字，不计输入词嵌入查表](https://arxiv.org/abs/2508.10925)"
    )
    assert "5.7B" in text and "config.json" in text
    # without a stated figure the page says what the count is
    assert _active(SimpleNamespace(active_params_b=12.9, active_params_stated=None)) == (
        "每个 token 激活 12.9B（按 config.json 计算）"
    )


def test_the_bundled_gpt_oss_figures_are_the_model_cards() -> None:
    # model card (arXiv 2508.10925) Table 1: active parameters 5.13B (120b) and 3.61B (20b)
    cat = _catalogue(REPO)
    for mid, value in (("gpt-oss-120b", 5.13), ("gpt-oss-20b", 3.61)):
        stated = cat.models[mid].active_params_stated
        assert stated is not None and stated.value_b == value


def test_the_main_page_and_the_index_link_the_format_pages(tmp_path: Path) -> None:
    root = make_project(tmp_path, _with_releases)
    gen = generate(Project.at(root, build_date=MINI_BUILD_DATE))
    main = gen.files["models/llama-2-7b-inference.md"].decode("utf-8")
    index = gen.files["models/index.md"].decode("utf-8")
    fp8 = gen.files["models/llama-2-7b-inference-fp8.md"].decode("utf-8")
    assert "](llama-2-7b-inference-fp8.md)" in main and "](llama-2-7b-inference-fp8.md)" in index
    # the format page names its build and links back to the main page
    assert "[example/Llama-2-7b-FP8](https://example.com/llama-2-7b-fp8)" in fp8
    assert "](llama-2-7b-inference.md)" in fp8
    # its calculator link asks for the same load in its format
    assert "(../calculator.md?workload=inference&model=llama-2-7b&precision=fp8&batch=4&hours-per-month=300)" in fp8


def _recommend(cat: Catalogue, query: str) -> dict[str, object]:
    """``gpu-guide recommend --json`` for a calculator query."""
    from generator.cli.main import build_parser
    from generator.cli.workload import recommend_result

    argv = ["recommend"]
    for part in query.lstrip("?").split("&"):
        key, _, value = part.partition("=")
        argv += [f"--{key}", value]
    return recommend_result(cat, build_parser().parse_args(argv))


def test_the_runtime_table_is_recommend_with_that_runtime(tmp_path: Path) -> None:
    from generator.pages.calculator import calculator_query

    root = make_project(tmp_path)
    cat = _catalogue(root)
    page = model_page(cat, cat.models["llama-2-7b"], Workload.inference, Sizer(cat.rules))
    # the page's own runtime (vLLM, rules.defaults.runtime) first, then the other two
    assert [c.runtime for c in page.runtimes] == [Runtime.vllm, Runtime.transformers, Runtime.llama_cpp]
    assert page.rec.pick is not None
    per_card = set()
    for choice in page.runtimes:
        query = calculator_query(model_flags(cat, page, choice.request))
        assert ("runtime=" in query) is (choice.runtime is not Runtime.vllm)
        got = _recommend(cat, query)
        assert got["pick"] == (choice.pick.gpu.id if choice.pick else None)
        rows = got["options"]
        assert isinstance(rows, list)
        row = next(r for r in rows if r["gpu"] == page.rec.pick.gpu.id)
        o = choice.on_pick
        assert o is not None and o.gpu.id == page.rec.pick.gpu.id
        assert (row["cards"], row["per_card_gib"]) == (o.cards, round(o.sizing.per_card_gib, 3))
        assert row["monthly_cost_cny"] == (round(o.monthly.total, 2) if o.monthly else None)
        assert row["cost_per_million_tokens_cny"] == (round(o.cost_per_mtok_cny, 4) if o.cost_per_mtok_cny else None)
        per_card.add(round(o.sizing.per_card_gib, 3))
    assert len(per_card) > 1  # the runtimes allocate differently (rules.yaml memory.inference.runtimes)
    # the page shows the table, one calculator link per runtime
    gen = generate(Project.at(root, build_date=MINI_BUILD_DATE))
    text = gen.files["models/llama-2-7b-inference.md"].decode("utf-8")
    assert "## 换一个推理框架" in text
    assert "runtime=transformers" in text and "runtime=llama.cpp" in text


def test_a_gguf_page_is_sized_and_ranked_under_llama_cpp(tmp_path: Path) -> None:
    from generator.pages.calculator import calculator_query

    root = make_project(tmp_path, _with_releases)
    cat = _catalogue(root)
    page = model_page(cat, cat.models["llama-2-7b"], Workload.inference, Sizer(cat.rules))
    gguf = next(p for p in page.format_pages if p.request.precision is Precision.q4_k_m)
    fp8 = next(p for p in page.format_pages if p.request.precision is Precision.fp8)
    assert gguf.request.runtime is Runtime.llama_cpp and fp8.request.runtime is Runtime.vllm
    query = calculator_query(model_flags(cat, gguf))
    assert "precision=q4_k_m" in query and "runtime=llama.cpp" in query
    got = _recommend(cat, query)
    rows = got["options"]
    assert isinstance(rows, list)
    assert got["pick"] == (gguf.rec.pick.gpu.id if gguf.rec.pick else None)
    for o, row in zip(gguf.rec.options, rows, strict=True):
        assert (row["gpu"], row["cards"], row["per_card_gib"]) == (o.gpu.id, o.cards, round(o.sizing.per_card_gib, 3))
    # llama.cpp keeps an f16 KV cache for n_ctx = 4 x 2,048 tokens: 2 x 32 layers x 4,096 x 2 bytes per token
    # = 0.5 MiB, x 8,192 tokens = 4 GiB (Llama-2-7B has no GQA)
    assert gguf.single_card.breakdown["kv_cache"] == pytest.approx(4.0, rel=1e-3)
    gen = generate(Project.at(root, build_date=MINI_BUILD_DATE))
    text = gen.files["models/llama-2-7b-inference-q4_k_m.md"].decode("utf-8")
    assert "本页的显存、卡数、速度和排名都按 llama.cpp 计算" in text
    assert "llama.cpp（本页）" in text


# GGUF file sizes as their publishers list them (GB = 10^9 bytes), against the engine's weights:
# lmstudio-community/Qwen2.5-7B-Instruct-GGUF (tree 2eecdd3): Q4_K_M 4.68 GB, Q8_0 8.1 GB;
# ggml-org/Qwen3-32B-GGUF: Q4_K_M 19.8 GB, Q8_0 34.8 GB; the files' byte counts at a pinned tree:
# bartowski/Meta-Llama-3.1-8B-Instruct-GGUF (tree bf5b95e) Q4_K_M 4,920,739,232 B, bartowski/
# Meta-Llama-3.1-70B-Instruct-GGUF (tree 83fb6e8) Q4_K_M 42,520,398,400 B, Qwen/Qwen3-32B-GGUF (tree
# 938a743) Q4_K_M 19,762,149,024 B. The engine's Q4_K_M is 4.85 bits a parameter (rules.yaml), by hand:
# 8.03e9 x 4.85 / 8 = 4.868 GB (1.1 % under 4.92), 70.55e9 x 4.85 / 8 = 42.771 GB (0.6 % over 42.52),
# 32.76e9 x 4.85 / 8 = 19.861 GB (0.5 % over 19.76). The band: within 3 % of the file.
GGUF_FILES = [("qwen2.5-7b", Precision.q4_k_m, 4.68), ("qwen2.5-7b", Precision.q8_0, 8.1),
              ("qwen3-32b", Precision.q4_k_m, 19.8), ("qwen3-32b", Precision.q8_0, 34.8),
              ("llama-3.1-8b", Precision.q4_k_m, 4.92), ("llama-3.1-70b", Precision.q4_k_m, 42.52),
              ("qwen3-32b", Precision.q4_k_m, 19.76)]  # fmt: skip
#: The engine's weights by hand (above), to pin the formula the band is checked against.
GGUF_BY_HAND = {("llama-3.1-8b", Precision.q4_k_m): 4.868, ("llama-3.1-70b", Precision.q4_k_m): 42.771,
                ("qwen3-32b", Precision.q4_k_m): 19.861}  # fmt: skip


@pytest.mark.parametrize(("mid", "precision", "gb"), GGUF_FILES)
def test_gguf_weights_match_the_published_file_size(mid: str, precision: Precision, gb: float) -> None:
    cat = _catalogue(REPO)
    sizer = Sizer(cat.rules)
    page = model_page(cat, cat.models[mid], Workload.inference, sizer)
    fmt = next(p for p in page.format_pages if p.request.precision is precision)
    assert fmt.request.runtime is Runtime.llama_cpp
    assert any(r.file_gb == gb for r in fmt.releases)  # the data carries the source's figure
    weights_gb = fmt.single_card.breakdown["weights"] * 2**30 / 1e9
    assert weights_gb == pytest.approx(gb, rel=0.03)
    if (mid, precision) in GGUF_BY_HAND:
        assert weights_gb == pytest.approx(GGUF_BY_HAND[mid, precision], abs=0.002)


def test_every_gguf_release_with_a_published_size_is_checked() -> None:
    """Each GGUF release in models.yaml that carries file_gb is one of GGUF_FILES (or R1's IQ1_S below)."""
    cat = _catalogue(REPO)
    gguf = {Precision.q4_k_m, Precision.q8_0}
    stated = {(m.id, r.precision, r.file_gb) for m in cat.models.values() for r in getattr(m, "releases", ())
              if r.precision in gguf and r.file_gb is not None}  # fmt: skip
    assert stated == set(GGUF_FILES)


def test_the_dynamic_1_58_bit_deepseek_r1_matches_unsloths_131_gb() -> None:
    # unsloth (https://unsloth.ai/blog/deepseekr1-dynamic): "quantize DeepSeek's R1 671B parameter model to
    # 131GB", MoE layers at 1.58 bits (IQ1_S), attention and the first 3 dense layers at 4/6 bits. By hand:
    # routed experts 58 layers x 256 x 3 x 7,168 x 2,048 = 653,908,770,816 at 1.5625 bits = 127.72 GB; the
    # other 17,117,633,536 at 4.5 bits = 9.63 GB; 137.35 GB, 4.8 % above the blog's 131 (whose unit the blog
    # does not say: 131 GiB would be 140.7 GB, 2.4 % below).
    cat = _catalogue(REPO)
    page = model_page(cat, cat.models["deepseek-r1"], Workload.inference, Sizer(cat.rules))
    r1 = next(p for p in page.format_pages if p.request.precision is Precision.iq1_s)
    assert r1.request.runtime is Runtime.llama_cpp and r1.slug == "deepseek-r1-inference-iq1_s"
    weights_gb = r1.single_card.breakdown["weights"] * 2**30 / 1e9
    assert weights_gb == pytest.approx(137.35, rel=2e-3)
    assert any(r.file_gb == 131 for r in r1.releases)
    assert weights_gb == pytest.approx(131, rel=0.06)


def test_the_runtime_table_says_when_a_runtimes_pick_runs_unconfirmed(tmp_path: Path) -> None:
    """A runtime whose kernel for the page's format no source confirms (rules.yaml ``confirmed: false``, as vLLM's
    GGUF IQ1_S) still gets its cheapest plan in the table, marked, with the kernel's note under the table; a
    confirmed runtime's row carries no mark. The fixture marks transformers' BF16 kernel unconfirmed."""
    note = "测试用：这个内核能否运行未经确认"

    def unconfirmed_bf16(data: Path) -> None:
        replace_in(
            data / "rules.yaml",
            "          - {kernel: BF16, min_cc: 8.0, vendors: [AMD, Huawei], source: https://github.com/huggingface/",
            f"          - {{kernel: BF16, min_cc: 8.0, confirmed: false, note: {note}, vendors: [AMD, Huawei], "
            "source: https://github.com/huggingface/",
        )

    root = make_project(tmp_path, unconfirmed_bf16)
    gen = generate(Project.at(root, build_date=MINI_BUILD_DATE))
    text = gen.files["models/llama-2-7b-inference.md"].decode("utf-8")
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| ") and " | [打开](" in line}
    hf = next(line for name, line in rows.items() if "transformers" in name)
    vllm = next(line for name, line in rows.items() if "vLLM" in name)
    assert "/百万 token（能否运行未经确认）" in hf
    assert "能否运行未经确认" not in vllm
    bullet = next(line for line in text.splitlines() if line.startswith("- **") and "transformers" in line)
    assert note in bullet
