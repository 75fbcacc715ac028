"""The engine's typed exclusions and the page's message table (generator.pages.messages)."""

from __future__ import annotations

import ast
import re
from enum import Enum
from pathlib import Path

import pytest

from generator.data.records import Billing, Delivery, Optimizer, Precision, Workload
from generator.engine.exclusion import Exclusion, ExclusionKind
from generator.pages.messages import EXCLUSION_ZH, explain, messages_json
from generator.pages.names import BILLING_NAMES, DELIVERY_NAMES, OPTIMIZER_NAMES, PRECISION_NAMES, WORKLOAD_NAMES

ENGINE = Path(__file__).resolve().parents[1] / "generator" / "engine"
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def test_every_exclusion_kind_has_a_message() -> None:
    assert set(EXCLUSION_ZH) == set(ExclusionKind)
    assert messages_json()["exclusion"] == {k.value: v for k, v in EXCLUSION_ZH.items()}


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


#: The converted parts of the engine: whole modules, or (module, functions).
CONVERTED: list[tuple[str, tuple[str, ...] | None]] = [
    ("exclusion.py", None),
    ("recommend.py", ("evaluate_gpu", "_no_plan_reason", "_no_offer_reason")),
]


def cjk_literals(source: str, functions: tuple[str, ...] | None) -> list[str]:
    """String literals with a CJK character, in the whole source or in the named functions."""
    tree = ast.parse(source)
    roots: list[ast.AST] = [tree]
    if functions is not None:
        roots = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in functions]
    return [
        n.value
        for r in roots
        for n in ast.walk(r)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and CJK.search(n.value)
    ]


@pytest.mark.parametrize(("module", "functions"), CONVERTED)
def test_no_chinese_in_the_converted_engine(module: str, functions: tuple[str, ...] | None) -> None:
    source = (ENGINE / module).read_text(encoding="utf-8")
    defined = {n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)}
    assert set(functions or ()) <= defined  # a renamed function would make the check vacuous
    assert cjk_literals(source, functions) == []


def test_the_check_can_fail() -> None:
    """Control: a function that builds a Chinese sentence is found."""
    assert cjk_literals('def evaluate_gpu():\n    return f"不满足{1}"\n', ("evaluate_gpu",)) != []
    assert cjk_literals('x = "不满足国产化要求"\n', None) == ["不满足国产化要求"]
