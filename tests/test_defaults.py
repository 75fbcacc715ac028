"""One source of defaults: ``rules.yaml``'s ``defaults``. A request has no default of its own, and
the command line, the engine and the calculator's JS take every value the reader leaves out from
that section: with every default changed, each of them follows."""

from __future__ import annotations

import dataclasses
import inspect
import json
import shutil
import subprocess

import pytest
from conftest import REPO, skip_unless_installed

from generator.cli.main import build_parser
from generator.cli.workload import _request
from generator.data.catalogue import Catalogue
from generator.data.records import ModelKind, Offload, Optimizer, Precision, Runtime, Workload
from generator.data.rules import DefaultRules
from generator.data.validate import load_catalogue
from generator.engine.request import Request
from generator.engine.sizing import arch_for
from generator.pages.calculator import calculator_data

NODE = shutil.which("node")
ENGINE = REPO / "docs" / "javascripts" / "engine"

#: Every default changed to another valid value (none of them the bundled rules.yaml's).
CHANGED = {
    "precision": Precision.fp16,
    "batch": 7,
    "context": 3000,
    "grad_checkpointing": False,
    "optimizer": Optimizer.sgd,
    "lora_rank": 8,
    "zero_stage": 1,
    "output_tokens": 100,
    "resolution": 512,
    "offload": Offload.model,
    "steps": 12,
    "runtime": Runtime.transformers,
}
#: Request fields the defaults give (output_tokens only to serving, steps to the image model's
#: sizing, precision to the flag readers).
GIVEN = ("batch", "context", "grad_checkpointing", "optimizer", "lora_rank", "zero_stage", "resolution", "offload",
         "runtime")  # fmt: skip


@pytest.fixture(scope="module")
def changed() -> Catalogue:
    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None, problems
    for name, value in CHANGED.items():
        assert getattr(cat.rules.defaults, name) != value, name  # a change the test can see
    defaults = cat.rules.defaults.model_copy(update=CHANGED)
    return dataclasses.replace(cat, rules=cat.rules.model_copy(update={"defaults": defaults}))


def test_no_default_of_its_own() -> None:
    """Request's fields are all required, DefaultRules' too (rules.yaml states each), and
    with_defaults leaves each keyword None (taken from the rules) but ``gpus``, the card count a
    sizing starts from, which rules.yaml does not hold."""
    assert [f.name for f in dataclasses.fields(Request) if f.default is not dataclasses.MISSING] == []
    assert [f.name for f in dataclasses.fields(Request) if f.default_factory is not dataclasses.MISSING] == []
    assert [n for n, f in DefaultRules.model_fields.items() if not f.is_required()] == []
    params = inspect.signature(Request.with_defaults).parameters.values()
    own = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty and p.default is not None}
    assert own == {"gpus": 1}


def test_with_defaults_takes_every_default_from_the_rules(changed: Catalogue) -> None:
    d = changed.rules.defaults
    arch = arch_for(next(m for m in changed.models.values() if m.kind is ModelKind.llm), changed.rules)
    req = Request.with_defaults(d, Workload.lora, arch, Precision.bf16)
    assert {n: getattr(req, n) for n in GIVEN} == {n: CHANGED[n] for n in GIVEN}


def test_the_command_line_takes_every_default_from_the_rules(changed: Catalogue) -> None:
    model = next(m.id for m in changed.models.values() if m.kind is ModelKind.llm)
    args = build_parser().parse_args(["recommend", "--workload", "lora", "--model", model])
    req = _request(changed, args, 1)
    assert {n: getattr(req, n) for n in (*GIVEN, "precision")} == {n: CHANGED[n] for n in (*GIVEN, "precision")}
    serving = _request(
        changed, build_parser().parse_args(["recommend", "--workload", "inference", "--model", model]), 1
    )
    assert (serving.context, serving.output_tokens) == (3000, 100)


def test_the_calculator_takes_every_default_from_the_rules(changed: Catalogue) -> None:
    skip_unless_installed(NODE, "node is not installed (CI has it)")
    assert NODE is not None
    model = next(m.id for m in changed.models.values() if m.kind is ModelKind.llm)
    script = f"""
import {{ buildRequest, parseFlags }} from {json.dumps((ENGINE / "workload.js").as_uri())};
import fs from "fs";
const {{ data, cases }} = JSON.parse(fs.readFileSync(0, "utf8"));
const out = cases.map((q) => {{ const r = buildRequest(data, parseFlags(q, data).values); delete r.arch; return r; }});
process.stdout.write(JSON.stringify(out));
"""
    cases = [[["workload", "lora"], ["model", model]], [["workload", "inference"], ["model", model]]]
    run = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, check=False,
                         input=json.dumps({"data": calculator_data(changed), "cases": cases}))  # fmt: skip
    assert run.returncode == 0, run.stderr
    lora, serving = json.loads(run.stdout)
    want = {n: v.value if hasattr(v, "value") else v for n, v in CHANGED.items() if n in (*GIVEN, "precision")}
    assert {n: lora[n] for n in want} == want
    assert (serving["context"], serving["output_tokens"]) == (3000, 100)
