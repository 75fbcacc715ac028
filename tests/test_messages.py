"""The engine's typed exclusions and reasons, and the page's message table (generator.pages.messages)."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from enum import Enum
from pathlib import Path

import pytest
from conftest import REPO

from generator.data.catalogue import Catalogue
from generator.data.records import Billing, Delivery, Optimizer, Precision, Workload
from generator.data.validate import load_catalogue
from generator.engine.exclusion import Exclusion, ExclusionKind
from generator.engine.links import describe_link, link_reason
from generator.engine.reason import Reason, ReasonKind, brief
from generator.engine.recommend import for_scenario
from generator.pages.calculator import calculator_data
from generator.pages.messages import EXCLUSION_ZH, REASON_ZH, assumption_text, explain, messages_json
from generator.pages.names import BILLING_NAMES, DELIVERY_NAMES, OPTIMIZER_NAMES, PRECISION_NAMES, WORKLOAD_NAMES

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


@pytest.mark.parametrize(
    ("enum", "names"),
    [(Billing, BILLING_NAMES), (Delivery, DELIVERY_NAMES), (Workload, WORKLOAD_NAMES),
     (Precision, PRECISION_NAMES), (Optimizer, OPTIMIZER_NAMES)],
)  # fmt: skip
def test_every_enum_member_has_a_display_name(enum: type[Enum], names: dict[str, str]) -> None:
    missing = [m.value for m in enum if m.value not in names]
    assert missing == []


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
    full = {"concurrency": 29, "tokens_per_s": "1,647", "cost": "¥2.12"}
    assert explain(R(ReasonKind.serving_capacity, **full)) == (
        "满载时按显存可容纳的 29 路并发每秒约处理 1,647 token，每百万 token 约 ¥2.12"
    )
    assert explain(R(ReasonKind.serving_capacity, **full, replicas=8)) == (
        "满载时按显存可容纳的 29 路并发、8 份副本每秒约处理 1,647 token，每百万 token 约 ¥2.12"
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


def test_link_reason_says_what_describe_link_says(bundled: Catalogue) -> None:
    """describe_link stays for speed.py's sentences; both must say the same for every card and count."""
    for gpu in bundled.gpus.values():
        for cards in (1, 2, 3, 4, 8, 16):
            assert explain(link_reason(gpu, cards)) == describe_link(gpu, cards), (gpu.id, cards)
            for node in (None, 8):
                assert explain(link_reason(gpu, cards, node)) == describe_link(gpu, cards, node), (gpu.id, cards)


def test_records_are_plain_json_with_nested_records() -> None:
    job = R(ReasonKind.job, cards=8, hours="6", rent="¥1", minimum=R(ReasonKind.minimum_days, days=2))
    assert job.record() == {
        "kind": "job",
        "params": {"cards": 8, "hours": "6", "rent": "¥1", "minimum": {"kind": "minimum_days", "params": {"days": 2}}},
    }
    assert brief(job) == "job(cards=8, hours=6, rent=¥1, minimum=minimum_days(days=2))"


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
            out += [("reason", a.message.record(), assumption_text(a)) for a in o.sizing.assumptions if a.message]
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

#: Engine modules that still build Chinese sentences (being changed elsewhere this session; shrink
#: this list as each is converted). Python: module -> None (whole module) or its functions still allowed.
PY_LEFT: dict[str, tuple[str, ...] | None] = {
    "speed.py": None,
    "inference_memory.py": None,
    "training_memory.py": None,
    "links.py": ("describe_link",),  # speed.py's sentences use it; link_reason is the record
}
#: The calculator's form errors (JavaScript only: the command line's are argparse's).
JS_LEFT = {"arch.js", "hfconfig.js", "workload.js"}


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, kinds)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }


def cjk_literals(source: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """String literals (f-string parts too) with a CJK character, outside docstrings, comments and the
    ``allowed`` functions."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
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
    found = js_cjk_literals(path.read_text(encoding="utf-8"))
    if path.name in JS_LEFT:
        assert found != [], f"{path.name} has no Chinese literal left: take it off JS_LEFT"
    else:
        assert found == []


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
    assert all(cjk_literals(text) for text in old.values())
    assert js_cjk_literals(_at("fd6df2a", "docs/javascripts/engine/recommend.js"))


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
