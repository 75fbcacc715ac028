"""The engine's typed exclusions and reasons, and the page's message table (generator.pages.messages)."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from dataclasses import fields
from enum import Enum
from pathlib import Path

import pytest
from conftest import REPO, docstring_ids

from generator.data.catalogue import Catalogue
from generator.data.editorial import TrendTopic
from generator.data.records import (
    Billing,
    ComponentRole,
    Currency,
    Delivery,
    ExtraItem,
    ExtraUnit,
    FormFactor,
    GpuFigure,
    GpuStatusKind,
    LinkTopology,
    Market,
    Optimizer,
    Precision,
    PriceUnit,
    ProviderKind,
    SourceTier,
    Workload,
)
from generator.data.validate import load_catalogue
from generator.engine.calibration import GROUPS
from generator.engine.exclusion import Exclusion, ExclusionKind
from generator.engine.links import fabric_reason, link_reason
from generator.engine.reason import Reason, ReasonKind, Record
from generator.engine.recommend import for_scenario
from generator.pages import names as display
from generator.pages.calculator import calculator_data
from generator.pages.form_messages import CONFIG_PART_ZH, FIELD_ZH, FORM_ZH
from generator.pages.messages import EXCLUSION_ZH, REASON_ZH, assumption_text, editor_notice, explain, messages_json

ENGINE = REPO / "generator" / "engine"
JS_ENGINE = REPO / "docs" / "javascripts" / "engine"
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def test_every_exclusion_and_reason_kind_has_a_message() -> None:
    assert set(EXCLUSION_ZH) == set(ExclusionKind)
    assert set(REASON_ZH) == set(ReasonKind)
    assert messages_json() == {
        "exclusion": {k.value: v for k, v in EXCLUSION_ZH.items()},
        "reason": {k.value: v for k, v in REASON_ZH.items()},
    }


def test_the_calculator_leaves_out_only_the_video_kinds() -> None:
    # the calculator has no video workload; its page is at its byte budget (test_page_weight)
    full, calc = messages_json(), messages_json(video=False)
    dropped = {(t, k) for t in full for k in full[t]} - {(t, k) for t in calc for k in calc[t]}
    video = {("reason", k.value) for k in ReasonKind if k.name.startswith("video")} | {
        ("exclusion", k.value) for k in ExclusionKind if k.name.startswith("video")
    }
    assert dropped == video and len(video) >= 10
    assert all(calc[t][k] == full[t][k] for t in calc for k in calc[t])


def test_reasons_and_exclusions_are_one_record_shape() -> None:
    """Both are a :class:`Record` (a kind, its parameters, one ``record()``), worded by one
    ``explain()`` through the table their class names, the tables the calculator's JSON ships; a
    nested exclusion (the editor's excluded pick) is worded from its own table. Expected text:
    REASON_ZH's editor_gpu around EXCLUSION_ZH's too_big, filled by hand."""
    # limits.Limit (a refused request) is worded from the calculator's form table (form_messages_json)
    assert {c.table for c in Record.__subclasses__()} - {"form"} == set(messages_json()) == {"exclusion", "reason"}
    assert {f.name for f in fields(Reason)} == {f.name for f in fields(Exclusion)} == {"kind", "params"}
    out = Exclusion(ExclusionKind.too_big, {"max_cards": 8})
    said = Reason(ReasonKind.editor_gpu, {"editor": "H100", "excluded": out, "computed": "A100"})
    assert explain(said) == "编辑推荐 H100（即使用到 8 张卡，每张卡的显存也不够），计算结果为 A100"
    assert said.record()["params"] == {"editor": "H100", "excluded": out.record(), "computed": "A100"}


#: Every enum a page names, with its table of display names (generator.pages.names).
DISPLAY_NAMES: list[tuple[type[Enum], dict[str, str]]] = [
    (Billing, display.BILLING_NAMES), (Delivery, display.DELIVERY_NAMES), (Workload, display.WORKLOAD_NAMES),
    (Precision, display.PRECISION_NAMES), (Optimizer, display.OPTIMIZER_NAMES),
    (SourceTier, display.SOURCE_TIER_NAMES), (LinkTopology, display.TOPOLOGY_NAMES),
    (GpuStatusKind, display.GPU_STATUS_NAMES), (Currency, display.CURRENCY_NAMES), (Market, display.MARKET_NAMES),
    (ProviderKind, display.PROVIDER_KIND_NAMES), (ExtraItem, display.EXTRA_ITEM_NAMES),
    (ExtraUnit, display.EXTRA_UNIT_NAMES), (FormFactor, display.FORM_NAMES), (PriceUnit, display.UNIT_NAMES),
    (GpuFigure, display.FIGURE_NAMES), (TrendTopic, display.TREND_TOPIC_NAMES),
    (ComponentRole, display.COMPONENT_ROLE_NAMES),
]  # fmt: skip


@pytest.mark.parametrize(("enum", "names"), DISPLAY_NAMES, ids=lambda x: getattr(x, "__name__", ""))
def test_every_enum_member_has_a_display_name(enum: type[Enum], names: dict[str, str]) -> None:
    missing = [m.value for m in enum if m.value not in names]
    assert missing == []


def test_every_calibration_group_has_a_display_name() -> None:
    """Pages name the calibration group each figure comes from (results.trust): every group of
    ``engine.calibration.GROUPS`` has its name and what it stands behind, and no name is left over."""
    assert set(display.CALIBRATION_GROUP_NAMES) == set(GROUPS)


def test_explain_fills_the_parameters() -> None:
    # Expected texts are the sentences the engine built before it returned records (tests/golden,
    # estimates.json and test_workload_cli at 6945a7b).
    link = Exclusion(ExclusionKind.no_scale_up_link, {"cards": 16, "link": "卡间只有 PCIe 4.0，没有 NVLink 等高速互联"})
    assert explain(link) == "16 卡训练需要所有卡之间都有高速互联，而卡间只有 PCIe 4.0，没有 NVLink 等高速互联"
    tiers = Exclusion(ExclusionKind.no_billing_tier, {"tiers": ("monthly",)})
    assert explain(tiers) == "这张卡没有所选计费方式（包月）的当前报价"
    two = Exclusion(ExclusionKind.no_billing_tier, {"tiers": ("on_demand", "daily")})
    assert explain(two) == "这张卡没有所选计费方式（按量、按天）的当前报价"
    fabric = Exclusion(ExclusionKind.needs_fabric, {"cards": 2, "nodes": 1, "whole": 8})
    assert explain(fabric).startswith("需要 2 张卡，要 1 台 8 卡服务器组成集群；")
    assert explain(Exclusion(ExclusionKind.too_big, {"max_cards": 1024})) == "即使用到 1,024 张卡，每张卡的显存也不够"


def test_an_unknown_parameter_is_an_error() -> None:
    with pytest.raises(KeyError):
        explain(Exclusion(ExclusionKind.too_big))  # its message names max_cards


def test_a_record_is_plain_json() -> None:
    ex = Exclusion(ExclusionKind.no_billing_tier, {"tiers": ("monthly",)})
    assert ex.record() == {"kind": "no_billing_tier", "params": {"tiers": ["monthly"]}}


def R(kind: ReasonKind, **params: object) -> Reason:
    return Reason(kind, params)  # type: ignore[arg-type]


def test_reasons_say_what_the_engine_said_before() -> None:
    """Expected texts: the sentences recommend.py, delivery.py, cost.py and support.py built with
    f-strings before they returned records (at fd6df2a), filled in by hand."""
    assert explain(R(ReasonKind.memory, per_card_gib="15.9", usable_gib="23.0", cards=1)) == (
        "每卡峰值显存约 15.9 GiB，可用约 23.0 GiB，需要 1 张卡"
    )
    month = {"hours": "730", "total": "¥1,304", "gpu_share": "98%"}
    assert (
        explain(R(ReasonKind.month_fixed, **month)) == "按月计费，每月（按用 730 小时）合计约 ¥1,304（GPU 租金占 98%）"
    )
    assert explain(R(ReasonKind.month_by_use, **month)).startswith("按小时计费，每月（按用 730 小时）")
    job = {"cards": 8, "hours": "6", "rent": "¥2,210"}
    assert explain(R(ReasonKind.job, **job)) == "参照任务在 8 张卡上约 6 小时完成，租金约 ¥2,210"
    months = R(ReasonKind.minimum_months, months=1)
    assert explain(R(ReasonKind.job, **job, minimum=months)) == (
        "参照任务在 8 张卡上约 6 小时完成，租金约 ¥2,210（按月计费，至少付满 1 个月）"
    )
    full = {"limit": R(ReasonKind.limit_kv_cache), "concurrency": 29, "tokens_per_s": "1,647", "cost": "¥2.12"}
    assert explain(R(ReasonKind.serving_capacity, **full)) == (
        "满载时按显存能放下的 KV 缓存允许的 29 路并发每秒约处理 1,647 token，每百万 token 约 ¥2.12"
    )
    assert explain(R(ReasonKind.serving_capacity, **full, replicas=8)) == (
        "满载时按显存能放下的 KV 缓存允许的 29 路并发、8 份副本每秒约处理 1,647 token，每百万 token 约 ¥2.12"
    )
    # the runtime's own cap, with its basis: llama.cpp's LLAMA_MAX_SEQ, transformers' static batch
    full |= {"limit": R(ReasonKind.limit_max_slots), "concurrency": 256}
    assert explain(R(ReasonKind.serving_capacity, **full)) == (
        "满载时按 llama.cpp 一个上下文的序列上限（LLAMA_MAX_SEQ）允许的 256 路并发每秒约处理 1,647 token，每百万 token 约 ¥2.12"
    )
    launch = R(ReasonKind.launch_slots, default=4, slots="16", ctx="65536", context=4096)
    assert explain(launch) == (
        "llama-server 不加 --parallel 只开 4 个槽位（共用 -c 的上下文），"
        "按 --parallel 16 -c 65536 启动才能同时处理这么多路（每个槽位 4,096 token）"
    )
    images = {"per_hour": "790", "cost": "¥4.56"}
    assert explain(R(ReasonKind.images, **images)) == "每小时约 790 张，每千张约 ¥4.56（只计 GPU 租金）"
    assert explain(R(ReasonKind.images, **images, volume="20,000", hours="25.3")) == (
        "每小时约 790 张，每千张约 ¥4.56（只计 GPU 租金）：每月 20,000 张约要跑 25.3 小时"
    )
    assert (
        explain(R(ReasonKind.delivery_sharded, cards=16)) == "16 卡训练需要 NVLink 等卡间高速互联和整机独享，选裸金属"
    )
    floors = (R(ReasonKind.kernel_floor_first, kernel="FP8 W8A8", min_cc="8.9"),
              R(ReasonKind.kernel_floor, kernel="FP8 Marlin", min_cc="8.0"))  # fmt: skip
    why = R(ReasonKind.format_below_cc, runtime="vLLM", floors=floors, cc="7.0")
    instead = R(ReasonKind.format_instead, formats="FP16")
    refusal = Exclusion(
        ExclusionKind.unsupported_format, {"gpu": "V100", "format": "FP8", "why": why, "instead": instead}
    )
    assert (
        explain(refusal)
        == "V100 不支持 FP8：vLLM 的 FP8 W8A8 要求计算能力 ≥ 8.9、FP8 Marlin 要求 ≥ 8.0，这张卡是 7.0；改用 FP16"
    )


def test_a_latin_word_after_a_chinese_character_gets_a_space() -> None:
    """The engine put a space before a Latin link name ("而 NVLink …", recommend.py at fd6df2a);
    the table's fill does it for every field. Control: after punctuation, no space."""
    pairs = R(ReasonKind.link_bridged_pairs, link="NVLink", pcie_gen=4)
    link = Exclusion(ExclusionKind.no_scale_up_link, {"cards": 4, "link": pairs})
    assert explain(link) == "4 卡训练需要所有卡之间都有高速互联，而 NVLink 只能两两桥接，桥接对之间走 PCIe 4.0"
    server = Exclusion(ExclusionKind.no_whole_server, {"cards": 4, "link": pairs})
    assert explain(server).endswith("这张卡的报价里没有：NVLink 只能两两桥接，桥接对之间走 PCIe 4.0")


def test_link_reason_says_what_describe_link_said(bundled: Catalogue) -> None:
    """Expected texts: links.describe_link's f-strings at 5105ef9 (before speed.py worded links by
    link_reason and describe_link went), filled in by hand from the bundled cards' fields."""
    gpus = bundled.gpus
    assert explain(link_reason(gpus["h100-sxm-80g"], 1)) == "单卡"
    assert explain(link_reason(gpus["rtx-4090-24g"], 2)) == "卡间只有 PCIe 4.0，没有 NVLink 等高速互联"
    h100 = gpus["h100-sxm-80g"]
    # HGX H100 is an NVSwitch board (NVIDIA's NVSwitch platform list); the topology is said (decision, #17)
    assert explain(link_reason(h100, 8)) == "卡间 NVLink 4 经 NVSwitch 全互联，每卡 900 GB/s"
    pcie = gpus["a100-pcie-80g"]
    assert pcie.interconnect and not pcie.has_nvlink_class_link
    speed = f"，每卡 {pcie.interconnect_gbps:g} GB/s" if pcie.interconnect_gbps else ""
    assert explain(link_reason(pcie, 2)) == f"两张卡用 {pcie.interconnect} 桥接{speed}"
    assert explain(link_reason(pcie, 4)) == (f"{pcie.interconnect} 只能两两桥接，桥接对之间走 PCIe {pcie.pcie_gen}.0")
    # across servers (decision2): the fabric between them, not "全互联" for the whole plan (worked by hand)
    assert explain(link_reason(h100, 24, 8)) == (
        "3 台服务器、每台 8 张卡：台内卡间 NVLink 4 经 NVSwitch 全互联，每卡 900 GB/s，"
        "台与台之间走平台提供的机间高速网络"
    )
    # the offer's own fabric is named (decision2, #17): AWS sells EFA, not InfiniBand or RoCE
    assert explain(link_reason(h100, 16, 8, fabric_reason("efa", 400))) == (
        "2 台服务器、每台 8 张卡：台内卡间 NVLink 4 经 NVSwitch 全互联，每卡 900 GB/s，"
        "台与台之间走 AWS EFA（Elastic Fabric Adapter）网络（每卡 400 Gb/s）"
    )
    assert explain(link_reason(h100, 16, 8, fabric_reason("roce", None))).endswith("台与台之间走 RoCE 网络")
    assert explain(link_reason(h100, 16, 8, fabric_reason("none", None))).endswith("台与台之间走平台提供的机间高速网络")
    assert explain(link_reason(h100, 8, 8)) == explain(link_reason(h100, 8))


def test_link_reason_names_each_topology(bundled: Catalogue) -> None:
    """DGX-1 V100 is a hybrid cube-mesh, not all-to-all (NVIDIA DGX-1 V100 whitepaper: "8-GPU hybrid
    cube-mesh", six NVLink 2 links per card, 25 GB/s each way: 300 GB/s per card); MI300X's 8-GPU
    platform links every pair directly (7 peer links, 896 GB/s per card). Texts written by hand."""
    v100 = bundled.gpus["v100-sxm2-32g"]
    assert v100.topology is LinkTopology.hybrid_cube_mesh and v100.has_nvlink_class_link
    assert explain(link_reason(v100, 8)) == (
        "卡间 NVLink 2 为 hybrid cube-mesh 拓扑：每张卡只与另外 4 张卡直连，并非任意两卡直连，每卡合计 300 GB/s"
    )
    assert "全互联" not in explain(link_reason(v100, 8))
    assert explain(link_reason(bundled.gpus["mi300x"], 8)) == (
        "卡间 AMD Infinity Fabric 点对点全互联（每两张卡之间一条直连链路），每卡合计 896 GB/s"
    )
    for gid in ("a100-sxm-80g", "a100-sxm-40g", "h100-sxm-80g", "h200-sxm-141g", "b200-sxm-180g"):
        assert bundled.gpus[gid].topology is LinkTopology.nvswitch, gid
    for gid in ("a100-pcie-80g", "h100-nvl-94g", "rtx-3090-24g"):
        assert bundled.gpus[gid].topology is LinkTopology.bridged_pairs, gid
    assert bundled.gpus["rtx-4090-24g"].topology is None


def test_records_are_plain_json_with_nested_records() -> None:
    job = R(ReasonKind.job, cards=8, hours="6", rent="¥1", minimum=R(ReasonKind.minimum_days, days=2))
    assert job.record() == {
        "kind": "job",
        "params": {"cards": 8, "hours": "6", "rent": "¥1", "minimum": {"kind": "minimum_days", "params": {"days": 2}}},
    }


@pytest.fixture(scope="module")
def bundled() -> Catalogue:
    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None, problems
    return cat


def every_record(cat: Catalogue) -> list[tuple[str, dict[str, object], str]]:
    """(table, record, Python's words) for every reason, exclusion and assumption of every scenario."""
    out: list[tuple[str, dict[str, object], str]] = []
    for s in cat.scenarios.values():
        for o in for_scenario(cat, s).options:
            out += [("reason", r.record(), explain(r)) for r in (*o.reasons, o.delivery_reason)]
            if o.excluded:
                out.append(("exclusion", o.excluded.record(), explain(o.excluded)))
            out += [("reason", a.message.record(), assumption_text(a)) for a in o.sizing.assumptions]
    return out


NODE = shutil.which("node")


def test_the_calculator_words_records_as_the_pages_do(bundled: Catalogue) -> None:
    """docs/javascripts/messages.js (what calculator.js shows) against generator.pages.messages, on
    every record the bundled scenarios produce (nested records, optional parts, billing names)."""
    if NODE is None:
        pytest.skip("node is not installed (CI has it)")
    cases = every_record(bundled)
    kinds = {str(r["kind"]) for _, r, _ in cases}
    assert {"memory", "delivery_sharded", "job", "serving_load", "images", "no_scale_up_link"} <= kinds
    data = calculator_data(bundled)
    script = (
        f"import {{ explain }} from {json.dumps((REPO / 'docs' / 'javascripts' / 'messages.js').as_uri())};\n"
        "import { readFileSync } from 'node:fs';\n"
        "const { messages, billing, cases } = JSON.parse(readFileSync(0, 'utf8'));\n"
        "process.stdout.write(JSON.stringify(cases.map(([t, r]) => explain(messages, billing, r, t))));\n"
    )
    payload = {
        "messages": data["messages"],
        "billing": data["names"]["billing"],
        "cases": [[t, r] for t, r, _ in cases],
    }
    run = subprocess.run([NODE, "--input-type=module", "-e", script], input=json.dumps(payload),
                         capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    js = json.loads(run.stdout)
    assert [(r, w) for (_, r, w), j in zip(cases, js, strict=True) if w != j] == []


# --------------------------------------------------------------------------- no sentences in the engine

#: Engine modules that still build Chinese sentences (shrink this list as each is converted; an entry
#: whose module no longer has any fails). Python: module -> None (whole module) or its functions allowed.
PY_LEFT: dict[str, tuple[str, ...] | None] = {}


def cjk_literals(source: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """String literals (f-string parts too) with a CJK character, outside docstrings, comments and the
    ``allowed`` functions."""
    tree = ast.parse(source)
    skip = docstring_ids(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef) and n.name in allowed:
            skip |= {id(c) for c in ast.walk(n)}
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and CJK.search(n.value) and id(n) not in skip
    ]


def js_cjk_literals(source: str) -> list[str]:
    """String and template literals with a CJK character, comments skipped (a small scanner: the
    engine's modules have no regular expression literal with a quote in it)."""
    found, i, n = [], 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c in "'\"`":
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if source[j] == "\\" else 1
            text = source[i + 1 : j]
            if CJK.search(text):
                found.append(text)
            i = j + 1
        else:
            i += 1
    return found


@pytest.mark.parametrize("path", sorted(ENGINE.glob("*.py")), ids=lambda p: p.name)
def test_no_chinese_sentence_in_the_python_engine(path: Path) -> None:
    allowed = PY_LEFT.get(path.name, ())
    source = path.read_text(encoding="utf-8")
    if allowed is None:
        assert cjk_literals(source) != [], f"{path.name} has no Chinese literal left: take it off PY_LEFT"
        return
    defined = {n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)}
    assert set(allowed) <= defined  # a renamed function would make the allowance vacuous
    assert cjk_literals(source, allowed) == []


@pytest.mark.parametrize("path", sorted(JS_ENGINE.glob("*.js")), ids=lambda p: p.name)
def test_no_chinese_sentence_in_the_js_engine(path: Path) -> None:
    assert js_cjk_literals(path.read_text(encoding="utf-8")) == []


def test_the_checks_can_fail() -> None:
    """Controls: a Chinese f-string, plain string or JS template is found; docstrings, comments and
    the allowed functions are not; and the modules converted in this change were caught before it
    (their text at fd6df2a, when they built sentences)."""
    assert cjk_literals('def f(n):\n    return f"需要 {n} 张卡"\n') == ["需要 ", " 张卡"]
    assert cjk_literals('x = "不满足国产化要求"\n') == ["不满足国产化要求"]
    assert cjk_literals('def f():\n    """中文说明"""\n    return 1  # 注释\n') == []
    assert cjk_literals('def g():\n    return "单卡"\n', ("g",)) == []
    assert js_cjk_literals('const a = `需要 ${n} 张卡`; // 注释\n/* 说明 */ const b = "x";') == ["需要 ${n} 张卡"]
    assert js_cjk_literals("const u = \"https://x\"; const s = '单卡';") == ["单卡"]
    old = {name: _at("fd6df2a", f"generator/engine/{name}") for name in ("delivery.py", "cost.py", "sizing.py")}
    old |= {
        name: _at("5105ef9", f"generator/engine/{name}")
        for name in ("training_memory.py", "inference_memory.py", "speed.py", "links.py")
    }
    assert all(cjk_literals(text) for text in old.values())
    assert js_cjk_literals(_at("fd6df2a", "docs/javascripts/engine/recommend.js"))
    assert all(js_cjk_literals(_at("f512d68", f"docs/javascripts/engine/{n}")) for n in FORM_MODULES)


#: The engine's modules that build form records (the calculator's field and config.json errors).
FORM_MODULES = ("arch.js", "hfconfig.js", "workload.js")


def test_every_form_record_has_a_message() -> None:
    """Every ``form("kind")`` and ``label(table, "kind")`` (and ``named(flag)``'s flags) in the JS
    engine has its entry in the form tables, and no entry is left unused."""
    source = "".join((JS_ENGINE / n).read_text(encoding="utf-8") for n in FORM_MODULES)
    kinds = set(re.findall(r'\bform\(\s*"(\w+)"', source))
    kinds |= {k for pair in re.findall(r'\bform\([^"()]*\? "(\w+)" : "(\w+)"', source) for k in pair}
    assert kinds == set(FORM_ZH)
    labels = set(re.findall(r'label\("(\w+)", "([\w-]+)"\)', source))
    assert {k for t, k in labels if t == "config_part"} == set(CONFIG_PART_ZH)
    known = node_value("KNOWN", JS_ENGINE / "workload.js")
    assert {k.removeprefix("no-") for k in known} == set(FIELD_ZH)


def node_value(name: str, module: Path) -> list[str]:
    """An exported Set or array of a JS module, read in node."""
    if NODE is None:
        pytest.skip("node is not installed (CI has it)")
    script = f"import {{ {name} }} from {json.dumps(module.as_uri())}; console.log(JSON.stringify([...{name}]));"
    run = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    out: list[str] = json.loads(run.stdout)
    return out


def _at(commit: str, path: str) -> str:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    run = subprocess.run(
        [git, "-C", str(REPO), "show", f"{commit}:{path}"], capture_output=True, text=True, check=False
    )
    if run.returncode != 0:
        pytest.skip(f"{commit} is not in this clone")
    return run.stdout


def test_training_assumptions_say_what_the_engine_said_before() -> None:
    """Expected texts: training_memory.py's f-strings at 5105ef9 (before it returned records),
    filled in by hand with the same figures."""
    # training_memory._states, full training in mixed precision (recipe 4 + 4 + 12 bytes, AMP copy 2)
    full = R(ReasonKind.recipe_full, precision="mixed", weight_bytes="4", grad_bytes="4", state_bytes="12")
    assert explain(full) == "全参训练，mixed 精度：每个参数权重 4 字节、梯度 4 字节、优化器状态 12 字节。"
    amp = R(ReasonKind.recipe_full, precision="mixed", weight_bytes="4", grad_bytes="4", state_bytes="12",
            autocast_bytes="2")  # fmt: skip
    assert explain(amp) == (
        "全参训练，mixed 精度：每个参数权重 4 字节、梯度 4 字节、优化器状态 12 字节，"
        "另有自动混合精度保存的 2 字节半精度权重副本（计入临时缓冲）。"
    )
    base = R(ReasonKind.base_qlora, format="nf4", bits="4.127", embedding_bits="32", compute="bf16")
    qlora = R(ReasonKind.recipe_adapter, base=base, rank="16", adapter_millions="40.0", adapter_bytes="4",
              state_bytes="8")  # fmt: skip
    assert explain(qlora) == (
        "QLoRA：底座线性层按 nf4 存储（约 4.127 位/参数），词嵌入和输出层按 32 位（PEFT prepare_model_for_kbit_training"
        " 会升为 fp32），计算精度 bf16；适配器 rank 16，约 40.0M 个参数，fp32 存储，每个适配器参数权重 4 + 梯度 4"
        " + 优化器状态 8 字节；底座没有梯度和优化器状态。"
    )
    zero = R(ReasonKind.zero_sharded, cards="8", stage="2", states=R(ReasonKind.zero_states_2))
    assert explain(zero) == "8 张卡数据并行，ZeRO-2 把优化器状态和梯度平均分到各卡（DeepSpeed 混合精度布局）。"
    peak = R(ReasonKind.peak_phase, phase=R(ReasonKind.phase_optimizer_step), peak_gib="112.9",
             other=R(ReasonKind.phase_forward_backward), other_gib="98.0")  # fmt: skip
    assert explain(peak) == (
        "峰值出现在优化器更新（step）阶段，约 112.9 GiB；前向/反向传播阶段约 98.0 GiB。表中分项是峰值时刻的占用。"
    )


def test_inference_assumptions_say_what_the_engine_said_before() -> None:
    """Expected texts: inference_memory.py's f-strings at 5105ef9, filled in by hand."""
    stored = R(ReasonKind.weights_format, precision="int4", bits="4.25", embeddings16=R(ReasonKind.embeddings_16bit),
               experts="8")  # fmt: skip
    assert (
        explain(stored)
        == "权重按 int4 存储，约 4.25 位/参数（词嵌入和输出层保持 16 位）；MoE 模型的全部 8 个专家都要放进显存。"
    )
    assert explain(R(ReasonKind.weights_format, precision="bf16", bits="16")) == "权重按 bf16 存储，约 16 位/参数。"
    mla = R(ReasonKind.kv_mla, kv_lora_rank="512", rope_dim="64")
    window = R(ReasonKind.kv_window, attention_layers="48", window_layers="36", window=4096)
    kv = R(ReasonKind.kv_cache, kv_precision="bf16", kib="69", batch="16", context="8192", mla=mla, window=window)
    assert explain(kv) == (
        "KV 缓存按 bf16 存储，每个 token 每卡约 69 KiB，按 16 路并发 × 8192 token 上下文预留"
        "；多头潜在注意力（MLA）每层每个 token 只缓存 512 + 64 个值（vLLM / SGLang 的 MLA 布局，张量并行的每张卡各存一份）"
        "；48 个注意力层中 36 个只看最近 4,096 个 token，KV 缓存按窗口封顶。"
    )
    assert (
        explain(R(ReasonKind.parallelism, cards="16", tp="8", pp="2"))
        == "16 张卡按张量并行 8 路、流水线 2 段切分模型。"
    )
    assert explain(R(ReasonKind.parallelism, cards="4", tp="4")) == "4 张卡按张量并行 4 路切分模型。"
    logits = R(ReasonKind.logits_runtime, allocates="vLLM 只为最后一个 token 算 logits")
    chunked = R(ReasonKind.prefill_chunked, runtime="vLLM", chunk=8192, setting="max_num_batched_tokens",
                batch="256", context="4096", logits=logits)  # fmt: skip
    assert explain(chunked) == (
        "预填充分块进行：vLLM 每步最多处理 8,192 个 token（max_num_batched_tokens），256 条 × 4096 token 分几步处理完，"
        "临时张量按一步中单层最大的计；vLLM 只为最后一个 token 算 logits。"
    )
    # diffusion_estimate
    image = R(ReasonKind.diffusion, where=R(ReasonKind.offload_none), precision="fp16", images="1", resolution="1024",
              passes="2", guidance=R(ReasonKind.guidance_cfg), peak=R(ReasonKind.phase_vae))  # fmt: skip
    assert explain(image) == (
        "图像生成：全部组件常驻显存，权重按 fp16 存储；每次生成 1 张 1024×1024 的图，"
        "去噪网络每步对每张图计算 2 次（含无分类器引导的负向提示）。峰值阶段：VAE 解码。"
    )
    part = R(ReasonKind.component, name="FLUX transformer", role=R(ReasonKind.role_denoiser), params_b="11.90")
    assert explain(part) == "FLUX transformer（去噪网络，11.90B 参数）"


def test_speed_assumptions_say_what_the_engine_said_before() -> None:
    """Expected texts: speed.py's f-strings at 5105ef9 (training_hours, finetune_costs,
    decode_throughput), filled in by hand."""
    mfu = R(ReasonKind.mfu, gpu="H20", tflops="148", mfu="38%", basis="Hopper 上的公开训练",
            peak_unconfirmed=R(ReasonKind.peak_unconfirmed), mfu_unconfirmed=R(ReasonKind.mfu_unconfirmed))  # fmt: skip
    assert explain(mfu) == (
        "H20 稠密 16 位算力 148 TFLOPS（厂商数据表未确认），算力利用率（MFU）按 38% 计（未经公开数据确认的保守假设）"
        "：Hopper 上的公开训练。不假设使用 FP8。"
    )
    link = R(ReasonKind.link_nvswitch, link="NVLink", gbps="900")
    assert explain(R(ReasonKind.scaling, cards="8", link=link, efficiency="100%")) == (
        "8 张卡，卡间 NVLink 经 NVSwitch 全互联，每卡 900 GB/s，多卡扩展效率按 100% 计。"
    )
    tune = R(ReasonKind.finetune, batch="1", context=2048, overhead_s="0.1",
             dequant=R(ReasonKind.finetune_dequant, passes="3", seconds="0.05"),
             checkpointing=R(ReasonKind.finetune_recompute))  # fmt: skip
    assert explain(tune) == (
        "微调按 Hugging Face Trainer / PEFT 的实测计：每个微批次（1 × 2,048 token）另有约 0.1 秒的固定开销"
        "，QLoRA 每个微批次还要把 4 位底座权重反量化 3 遍（约 0.05 秒）；开启梯度检查点，前向要重算一遍"
        "（按 Qwen 公布的单卡 A100 微调速度表校准）。"
    )
    batch = R(ReasonKind.decode_batch, batch="32", context="2048", bound=R(ReasonKind.bound_memory))
    assert explain(batch) == "32 路并发、每路上下文 2048 token；瓶颈是显存带宽（读权重）。"
    pcie = R(ReasonKind.link_pcie_only, pcie_gen=4)
    split = R(ReasonKind.decode_parallel, cards="16", tp="8", pp="2", link=pcie, comm_ms="1.5")
    assert explain(split) == (
        "16 张卡切分模型（张量并行 8 路、流水线 2 段，卡间只有 PCIe 4.0，没有 NVLink 等高速互联）："
        "每层两次 all-reduce，每步通信约 1.5 ms。"
    )


def test_the_editors_notice_is_a_plain_sentence() -> None:
    """``check``'s notice for a disagreeing editor pick: the ids the editor wrote, the nested reason
    in the page's words (delivery_sharded's message above), no record dump."""
    why = R(ReasonKind.delivery_sharded, cards=16)
    form = R(ReasonKind.editor_delivery, editor="container", rule="bare_metal", why=why)
    gpu = R(ReasonKind.editor_gpu, editor="rtx-4090-24g", computed="a100-sxm-80g")
    assert editor_notice((gpu, form)) == (
        "the editor picked rtx-4090-24g, the rules pick a100-sxm-80g; the editor picked container delivery, "
        "the rules give bare_metal (16 卡训练需要 NVLink 等卡间高速互联和整机独享，选裸金属); "
        "the page shows the rules' pick and why"
    )
