"""The editor's guide: field reference generated from the models, escaped in the template."""

from __future__ import annotations

import copy
import html as htmllib
import re
from pathlib import Path
from typing import Any

import markdown
import pytest
import yaml
from pydantic import BaseModel

from generator.data.datafiles import DATA_FILES, REFERENCES
from generator.data.records import Gpu, Offer, Scenario
from generator.data.rules import Rules
from generator.pages.contexts import EditorGuideContext
from generator.pages.editor_guide import field_docs
from generator.pages.escape import md
from generator.pages.render import Page, environment, render_page

REPO = Path(__file__).resolve().parent.parent
RULES = Rules.model_validate(yaml.safe_load((REPO / "data" / "rules.yaml").read_text(encoding="utf-8")))
TEMPLATE = REPO / "templates" / "pages" / "editor_guide.md.j2"


def by_file() -> dict[str, dict[str, Any]]:
    return {f["file"]: f for f in field_docs()}


def render(files: list[dict[str, Any]]) -> str:
    page = Page(path="editor-guide.md", title="编辑指南", description="d",
                context=EditorGuideContext(files))  # fmt: skip
    common = {"as_of": "2026-07-01", "root": ""}  # what every page gets from pages.generated_files
    return render_page(environment(REPO / "templates"), page, common).decode("utf-8")


def test_one_entry_per_data_file_with_every_record_field() -> None:
    docs = by_file()
    assert list(docs) == list(DATA_FILES)
    for name, model in (("gpus.yaml", Gpu), ("offers.yaml", Offer), ("scenarios.yaml", Scenario)):
        names = [f["name"] for f in docs[name]["fields"]]
        assert [n for n in names if "." not in n] == list(model.model_fields)
    assert docs["gpus.yaml"]["key"] == "gpus" and docs["gpus.yaml"]["record"] == "Gpu"
    assert docs["rules.yaml"]["key"] is None


def test_fields_carry_type_requirement_description_and_enum_values() -> None:
    gpus = {f["name"]: f for f in by_file()["gpus.yaml"]["fields"]}
    assert gpus["form_factor"]["choices"] == ["sxm", "pcie", "oam", "nvl"]
    assert gpus["form_factor"]["required"] is True and gpus["form_factor"]["default"] is None
    assert gpus["memory_gb"]["type"] == "数字" and gpus["memory_gb"]["limits"] == "> 0, ≤ 1024"
    assert gpus["memory_gb"]["description"] == Gpu.model_fields["memory_gb"].description
    assert gpus["fp32_tflops"]["nullable"] is True and gpus["fp32_tflops"]["required"] is True
    assert gpus["notes"]["required"] is False and gpus["notes"]["default"] == "null"
    assert gpus["unconfirmed"]["default"] == "[]" and "tdp_w" in gpus["unconfirmed"]["choices"]
    offers = {f["name"]: f for f in by_file()["offers.yaml"]["fields"]}
    assert offers["as_of"]["type"].startswith("日期") and offers["promo"]["default"] == "false"
    scen = {f["name"]: f for f in by_file()["scenarios.yaml"]["fields"]}
    # Left out, a scenario takes the rules' value: the guide names the rule, and its value when given the rules.
    assert scen["hours_per_month"]["default"] == "rules.yaml cost.hours_per_month"
    assert scen["hours_per_month"]["nullable"] is False
    scen_now = {f["name"]: f for f in next(d for d in field_docs(RULES) if d["file"] == "scenarios.yaml")["fields"]}
    assert scen_now["batch"]["default"] == f"rules.yaml defaults.batch（现为 {RULES.defaults.batch}）"
    assert scen["editor_pick.delivery"]["choices"] == ["container", "vm", "bare_metal", "unspecified"]
    assert offers["billing"]["choices"] == ["on_demand", "daily", "monthly", "spot", "reserved"]
    assert offers["per"]["default"] == "instance" and offers["currency"]["required"] is True
    providers = {f["name"]: f for f in by_file()["providers.yaml"]["fields"]}
    assert providers["extras[].item"]["choices"] == ["disk", "egress", "public_ip", "other"]


def test_a_type_named_below_its_record_reads_as_its_values() -> None:
    """ModelRelease and DeploymentPlan sit above Precision in records.py: their precision read
    ForwardRef('Precision') in the guide. Precision's values are the enum's, listed by hand."""
    models = {f["name"]: f for f in by_file()["models.yaml"]["fields"]}
    for name in ("releases[].precision", "deployments[].precision"):
        assert models[name]["type"] == "取值之一", models[name]
        assert {"bf16", "fp8", "int4", "mxfp4", "q4_k_m"} <= set(models[name]["choices"])
    every = [f["type"] for d in field_docs() for f in d["fields"]]
    assert not [t for t in every if "ForwardRef" in t]


def test_nested_rules_are_walked_with_dotted_names() -> None:
    names = {f["name"] for f in by_file()["rules.yaml"]["fields"]}
    assert {"memory", "memory.overhead.cuda_context_gib", "cost.hours_per_month"} <= names
    assert "memory.training.recipes.*.weights" in names
    assert "speed.scaling.nvlink[].efficiency" in names


def test_every_field_is_described_and_named_safely() -> None:
    for file in field_docs():
        for f in file["fields"]:
            assert f["description"], f"{file['file']}: {f['name']} has no description= in its model"
            assert re.fullmatch(r"[a-z0-9_]+(?:(?:\[\])?\.(?:\*\.)?[a-z0-9_]+)*", f["name"]), f["name"]


def test_guide_renders_tables_for_every_file() -> None:
    text = render(field_docs())
    for file in field_docs():
        assert f"### {md('data/' + file['file'])}" in text  # escaped as the page prints it (api_prices.yaml)
    html = markdown.markdown(text, extensions=["tables", "fenced_code"])
    rows = sum(len(f["fields"]) for f in field_docs())
    refs = [f for f in field_docs() if f["references"]]
    rows += sum(len(f["references"]) for f in refs)
    assert html.count("<tr>") == rows + len(field_docs()) + len(refs)  # one header row per table
    assert "<code>memory&#95;gb</code>" in text


def test_descriptions_are_escaped() -> None:
    files = copy.deepcopy(field_docs())
    hostile = "x | y <script>alert(1)</script> [a](javascript:alert(1)) {: onclick=1 }"
    files[0]["fields"][0]["description"] = hostile
    files[0]["summary"] = "# not a heading <b>"
    text = render(files)
    assert "<script>" not in text and "<b>" not in text and "](javascript" not in text
    html = markdown.markdown(text, extensions=["tables", "attr_list"])
    assert "<script>" not in html and not re.search(r"<[^>]*onclick", html)
    row = next(r for r in html.split("<tr>") if "alert" in r)
    assert row.count("<td>") == 4
    assert htmllib.unescape(hostile) in htmllib.unescape(re.sub(r"<[^>]+>", "", row))


def snippets() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", TEMPLATE.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("model_name", ["GpusFile", "OffersFile", "ScenariosFile"])
def test_yaml_examples_in_the_guide_are_valid(model_name: str) -> None:
    models = {m.__name__: m for _, m in DATA_FILES.values()}
    model: type[BaseModel] = models[model_name]
    key = next(iter(model.model_fields))
    matching = [s for s in snippets() if s.startswith(f"{key}:")]
    assert len(matching) == 1, f"the guide should show one {key}: example"
    model.model_validate(yaml.safe_load(matching[0]))


def test_cross_file_references_come_from_the_one_table() -> None:
    """Each entry of datafiles.REFERENCES is listed under its file, by the field as the guide names
    it (from one entry), with the target file and the key its ids live under; nothing else is."""
    docs = by_file()
    for r in REFERENCES:
        key = docs[r.file]["key"]
        field = r.field.removeprefix(f"{key}[].") if key else r.field
        assert {"field": field, "target": r.target.path, "key": r.target_key} in docs[r.file]["references"], r
    assert sum(len(d["references"]) for d in docs.values()) == len(REFERENCES)
    # read off datafiles.py by hand: an offer's gpu names a GPU, a pitfall's gpus list GPUs
    assert {"field": "gpu", "target": "data/gpus.yaml", "key": "gpus[].id"} in docs["offers.yaml"]["references"]
    assert {"field": "gpus[]", "target": "data/gpus.yaml", "key": "gpus[].id"} in docs["pitfalls.yaml"]["references"]
    assert docs["gpus.yaml"]["references"] == []
    text = render(field_docs())
    assert f"<code>{md('family_fabrics[].gpus[]')}</code> | <code>{md('data/gpus.yaml')}</code>" in text
