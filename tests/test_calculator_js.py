"""Pieces of the calculator's JavaScript in node: Python's number formats (engine/py.js) and the
config.json reader (engine/hfconfig.js). The engine as a whole: test_calculator_parity.py.

Without node the test fails under CI=true (conftest.tools_required) and is skipped elsewhere.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, skip_unless_installed

from generator.data.validate import load_catalogue
from generator.formats import cny
from generator.pages.calculator import calculator_data
from generator.pages.form_messages import FORM_ZH, form_messages_json
from generator.pages.messages import messages_json
from generator.pages.names import BILLING_NAMES

NODE = shutil.which("node")
skip_unless_installed(NODE, "node is not installed (CI has it)")

ENGINE = REPO / "docs" / "javascripts" / "engine"


def node(script: str, payload: Any) -> Any:
    assert NODE is not None, "install node (CI has it)"
    run = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        input=json.dumps(payload), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


FORMATS = """
import * as py from %s;
import fs from "fs";
const values = JSON.parse(fs.readFileSync(0, "utf8"));
"""


def test_number_formats_are_pythons() -> None:
    """fixed/grouped/round/percent/general/cny print the digits Python prints, exact halves included
    (Python rounds the exact binary value half to even; JavaScript's toFixed rounds it up)."""
    rng = random.Random(5)
    values = [0.125, 0.375, 2.5, 3.5, 0.5, 1.5, 1234.5, 9.5, 0.045, 1e-7, 12345678.125, 0.0, 730.0, 59.5, 0.995]
    values += [rng.uniform(0, 10) for _ in range(300)] + [10 ** rng.uniform(-3, 8) for _ in range(300)]
    values += [round(rng.uniform(0, 1000), 1) + 0.05 for _ in range(200)]  # near-halves at two digits
    values += [rng.randint(0, 2000) / 8 for _ in range(200)]  # exact halves and quarters
    script = (
        FORMATS % json.dumps((ENGINE / "py.js").as_uri())
        + """
const out = values.map((x) => [py.fixed(x, 0), py.fixed(x, 1), py.fixed(x, 2), py.grouped(x, 0), py.grouped(x, 2),
  py.pyRound(x), py.roundTo(x, 6), py.roundTo(x, 2), py.percent(x / 100), py.general(x), py.cny(x), py.cny(x, 2)]);
process.stdout.write(JSON.stringify(out));
"""
    )
    got = node(script, values)
    bad = []
    for x, js in zip(values, got, strict=True):
        want = [f"{x:.0f}", f"{x:.1f}", f"{x:.2f}", f"{x:,.0f}", f"{x:,.2f}", round(x), round(x, 6), round(x, 2),
                f"{x / 100:.0%}", f"{x:g}", cny(x), cny(x, 2)]  # fmt: skip
        if js != want:
            bad.append(f"{x!r}: js {js} python {want}")
    assert bad == []
    # the ties are really there: toFixed alone would have printed these differently
    assert f"{0.125:.2f}" == "0.12" and f"{2.5:.0f}" == "2" and round(0.5) == 0


def test_grouped_integers() -> None:
    script = (
        FORMATS % json.dumps((ENGINE / "py.js").as_uri())
        + """
process.stdout.write(JSON.stringify(values.map((n) => py.groupedInt(n))));
"""
    )
    ints = [0, 7, 999, 1000, 1536, 123456, 1234567, 1048576]
    assert node(script, ints) == [f"{n:,}" for n in ints]


#: Reads {texts, messages, billing}; prints readHfConfig's answer for each text, its error and note
#: in words (messages.js with the calculator's tables).
READ = """
import { readHfConfig } from %s;
import { explain } from %s;
import fs from "fs";
const { texts, messages, billing } = JSON.parse(fs.readFileSync(0, "utf8"));
const words = (r) => (r ? explain(messages, billing, r, "form") : "");
process.stdout.write(JSON.stringify(texts.map((t) => readHfConfig(t)).map((o) =>
  o.error ? { ...o, error: words(o.error) } : { ...o, note: words(o.note) })));
"""


def read_configs(texts: list[str]) -> list[dict[str, Any]]:
    """readHfConfig on each text, in node, its messages in words."""
    script = READ % (
        json.dumps((ENGINE / "hfconfig.js").as_uri()),
        json.dumps((ENGINE.parent / "messages.js").as_uri()),
    )
    out: list[dict[str, Any]] = node(
        script, {"texts": texts, "messages": messages_json() | form_messages_json(), "billing": BILLING_NAMES}
    )
    return out


LLAMA2_7B = {"hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
             "num_key_value_heads": 32, "vocab_size": 32000, "tie_word_embeddings": False}  # fmt: skip
MIXTRAL = {"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
           "num_key_value_heads": 8, "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000}  # fmt: skip


def test_config_json_gives_the_published_parameter_counts() -> None:
    tied = {**LLAMA2_7B, "tie_word_embeddings": True}
    nested = {"architectures": ["LlavaForConditionalGeneration"], "text_config": LLAMA2_7B}
    gqa = {**LLAMA2_7B, "num_key_value_heads": 8, "head_dim": 64}
    out = read_configs([json.dumps(c) for c in (LLAMA2_7B, MIXTRAL, tied, nested, gqa)])
    llama, mixtral, tied_out, nested_out, gqa_out = out
    # Llama-2-7B: 6,738,415,616 parameters (models.yaml, from the checkpoint's tensor sizes):
    # 2 x 32000 x 4096 embedding + lm_head, 32 x (4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096), + 4096.
    assert llama["total"] == 6_738_415_616
    assert llama["flags"] == {"params": "6.738415616", "layers": "32", "hidden": "4096", "heads": "32",
                              "kv-heads": "32", "vocab": "32000", "intermediate": "11008"}  # fmt: skip
    # Mixtral 8x7B: 46,702,792,704 in all and 12,879,925,248 per token (Mistral: "46.7B total, 12.9B active").
    assert mixtral["total"] == 46_702_792_704
    assert mixtral["flags"]["active-params"] == "12.879925248"
    assert (mixtral["flags"]["experts"], mixtral["flags"]["experts-per-token"]) == ("8", "2")
    # Tied embeddings: one 32000 x 4096 table fewer.
    assert tied_out["total"] == 6_738_415_616 - 32000 * 4096
    assert tied_out["flags"]["tied-embeddings"] == "1"
    # A multimodal config: the language model's shape, said so.
    assert nested_out["total"] == 6_738_415_616 and "text_config" in nested_out["note"]
    # GQA with its own head size: k/v are 8 x 64 wide, q/o 32 x 64 (2 x 4096 x 2048 + 2 x 4096 x 512 per layer).
    attention = 2 * 4096 * 2048 + 2 * 4096 * 512
    assert gqa_out["total"] == 2 * 32000 * 4096 + 32 * (attention + 3 * 4096 * 11008 + 2 * 4096) + 4096
    assert gqa_out["flags"]["head-dim"] == "64" and gqa_out["flags"]["kv-heads"] == "8"


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ("{oops", "不是合法的 JSON"),
        ("[1, 2]", "对象"),
        (json.dumps({"hidden_size": 4096}), "num_hidden_layers"),
        (json.dumps({**LLAMA2_7B, "num_hidden_layers": 0}), "正整数"),
        (json.dumps({**LLAMA2_7B, "num_key_value_heads": 64}), "不能多于注意力头数"),
        (json.dumps({**LLAMA2_7B, "num_key_value_heads": 12}), "整除"),
        (json.dumps({**LLAMA2_7B, "num_attention_heads": 48, "num_key_value_heads": 48}), "整除"),
        (json.dumps({**LLAMA2_7B, "mamba_d_state": 16}), "Mamba"),
        (json.dumps({**LLAMA2_7B, "layer_types": ["full_attention"] * 3}), "layer_types"),
        (json.dumps({**MIXTRAL, "num_experts_per_tok": None}), "num_experts_per_tok"),
        (json.dumps({**MIXTRAL, "num_experts_per_tok": 9}), "不能多于"),
    ],
)
def test_config_json_it_cannot_read_is_refused(config: str, words: str) -> None:
    (out,) = read_configs([config])
    assert "flags" not in out and words in out["error"], out


# --------------------------------------------------------------------------- form errors as records

#: The engine before its form errors became records (the last commit whose JS built the sentences).
BEFORE = "f512d68"

#: Reads {data, cases, configs, old}; prints, per case, [field, words] of recommendResult's first error
#: (null when it ranked) and per config readHfConfig's error or note in words. With `old` the modules
#: return the sentences themselves (BEFORE), else form records worded by messages.js.
FORMS = """
import { recommendResult, catalogue } from %s;
import { readHfConfig } from %s;
import { explain } from %s;
import fs from "fs";
const { data, cases, configs, old } = JSON.parse(fs.readFileSync(0, "utf8"));
const cat = catalogue(data);
const words = (r) => (!r ? "" : old ? r : explain(data.messages, data.names.billing, r, "form"));
const errors = cases.map((pairs) => {
  const r = recommendResult(data, pairs, cat);
  return r.errors.length ? [r.errors[0].field, old ? r.errors[0].message : words(r.errors[0].record),
    old ? null : r.errors[0].record.kind] : null;
});
const read = configs.map((t) => { const o = readHfConfig(t); return o.error ? words(o.error) : words(o.note); });
process.stdout.write(JSON.stringify({ errors, read }));
"""


def _engine_at(commit: str, into: Path) -> Path:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    names = subprocess.run([git, "-C", str(REPO), "ls-tree", "--name-only", commit, "docs/javascripts/engine/"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    if names.returncode != 0:
        pytest.skip(f"{commit} is not in this clone")
    for name in names.stdout.split():
        text = subprocess.run([git, "-C", str(REPO), "show", f"{commit}:{name}"],
                              capture_output=True, text=True, check=True).stdout  # fmt: skip
        (into / "engine").mkdir(parents=True, exist_ok=True)
        (into / "engine" / Path(name).name).write_text(text, encoding="utf-8")
    (into / "messages.js").write_text((ENGINE.parent / "messages.js").read_text(encoding="utf-8"), encoding="utf-8")
    return into / "engine"


def _form_cases(data: dict[str, Any]) -> list[list[tuple[str, str]]]:
    """One query for each form error the calculator can give (and a few more of the same kinds)."""
    llm = next(m["id"] for m in data["models"] if m["kind"] == "llm")
    image = next(m["id"] for m in data["models"] if m["kind"] == "diffusion")
    w = [("workload", "inference"), ("params", "7")]
    return [
        [*w, ("layers", "3.5")], [("workload", "inference"), ("params", "abc")],
        [("workload", "inference"), ("params", "1e999")], [*w, ("hours-per-month", "-50")],
        [*w, ("batch", "0")], [*w, ("hours-per-month", "100000")], [*w, ("params", "7")],
        [*w, ("no-public-ip", "1"), ("no-public-ip", "1")], [("workload", "foo"), ("params", "7")],
        [*w, ("precision", "fp2")], [("workload", "inference"), ("model", " ")], [*w, ("billing", "on_demand,x")],
        [*w, ("domestic-only", "2")], [*w, ("grad-checkpointing", "1"), ("no-grad-checkpointing", "1")],
        [("params", "7")], [("workload", "inference")], [*w, ("model", llm)],
        [("workload", "inference"), ("model", llm), ("layers", "32")],
        [("workload", "inference"), ("model", "no-such-model")], [*w, ("experts-per-token", "2")],
        [*w, ("experts", "8"), ("experts-per-token", "9")], [*w, ("experts", "8"), ("active-params", "9")],
        [*w, ("qk-rope-head-dim", "64")], [*w, ("linear-layers", "4")], [*w, ("linear-state", "4")],
        [*w, ("dense-layers", "1")], [*w, ("window-layers", "4"), ("sliding-window", "4096")],
        [*w, ("heads", "32"), ("kv-heads", "64")], [*w, ("heads", "32"), ("kv-heads", "12")],
        [*w, ("hidden", "4096"), ("heads", "48")], [*w, ("layers", "32"), ("window-layers", "4")],
        [*w, ("layers", "8"), ("window-layers", "6"), ("sliding-window", "4096"), ("linear-layers", "4"),
         ("linear-state", "1000")],
        [*w, ("layers", "8"), ("linear-layers", "8"), ("linear-state", "1000")],
        [*w, ("layers", "8"), ("experts", "8"), ("dense-layers", "8")],
        [("workload", "lora"), ("params", "7"), ("prompt-tokens", "100")],
        [*w, ("prompt-tokens", "100"), ("output-tokens", "100"), ("context", "300")],
        [*w, ("prompt-tokens", "5000"), ("context", "4096")], [*w, ("output-tokens", "5000"), ("context", "4096")],
        [("workload", "lora"), ("model", image)], [("workload", "inference"), ("model", image), ("context", "4096")],
        [("workload", "lora"), ("params", "7"), ("runtime", "vllm")], [*w, ("resolution", "1024")],
        [*w, ("offload", "model")], [*w, ("steps", "20")], [*w, ("context", "1")],
        [("workload", "full"), ("params", "7"), ("precision", "int4")], [*w, ("billing", "spot")],
        [*w, ("billing", "on_demand,reserved")],
    ]  # fmt: skip


def _form_configs() -> list[str]:
    moe = {**MIXTRAL, "num_experts_per_tok": 2}
    vision = {"model_type": "qwen2_5_vl", "vision_config": {"depth": 32}, **LLAMA2_7B}
    nested = {"architectures": ["LlavaForConditionalGeneration"], "text_config": LLAMA2_7B}
    return ["{oops", "[1, 2]", json.dumps({"hidden_size": 4096}), json.dumps({**LLAMA2_7B, "num_hidden_layers": 0}),
            json.dumps({**LLAMA2_7B, "qk_rope_head_dim": -1, "kv_lora_rank": 512}),
            json.dumps({**LLAMA2_7B, "num_key_value_heads": 64}), json.dumps({**LLAMA2_7B, "num_key_value_heads": 12}),
            json.dumps({**LLAMA2_7B, "num_attention_heads": 48, "num_key_value_heads": 48}),
            json.dumps({**LLAMA2_7B, "ssm_cfg": {}}), json.dumps({**LLAMA2_7B, "attn_layer_period": 8}),
            json.dumps({**LLAMA2_7B, "layer_types": ["full_attention"] * 3}),
            json.dumps({**LLAMA2_7B, "intermediate_size": None}), json.dumps({**MIXTRAL, "num_experts_per_tok": None}),
            json.dumps({**MIXTRAL, "num_experts_per_tok": 9}), json.dumps({**moe, "intermediate_size": None}),
            json.dumps({**moe, "first_k_dense_replace": 2, "moe_intermediate_size": 1024, "intermediate_size": None}),
            json.dumps({**moe, "first_k_dense_replace": 32}), json.dumps(vision),
            json.dumps({**LLAMA2_7B, "model_type": "qwen3_next"}), json.dumps(nested), json.dumps(LLAMA2_7B)]  # fmt: skip


#: The one wording that changed on purpose: a Latin word after a Chinese character now gets its
#: space (messages.js's rule for every message), "用了Mamba" -> "用了 Mamba".
SPACED = {"这个模型用了Jamba 的 Mamba 层": "这个模型用了 Jamba 的 Mamba 层"}


def test_form_errors_read_as_they_did_when_the_engine_built_them(tmp_path: Path) -> None:
    """The calculator's form and config.json errors, worded from the form tables, say what the JS
    engine's own sentences said at BEFORE, field for field; and the queries reach every form kind."""
    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None, problems
    data = calculator_data(cat)
    payload = {"data": data, "cases": _form_cases(data), "configs": _form_configs()}
    old_engine = _engine_at(BEFORE, tmp_path / "old")
    uris = [
        json.dumps(p.as_uri()) for p in (ENGINE / "workload.js", ENGINE / "hfconfig.js", ENGINE.parent / "messages.js")
    ]
    old_uris = [
        json.dumps(p.as_uri())
        for p in (old_engine / "workload.js", old_engine / "hfconfig.js", old_engine.parent / "messages.js")
    ]
    new = node(FORMS % tuple(uris), {**payload, "old": False})
    old = node(FORMS % tuple(old_uris), {**payload, "old": True})
    assert None not in new["errors"] and None not in old["errors"]
    assert [e[:2] for e in new["errors"]] == [e[:2] for e in old["errors"]]
    for was, now in SPACED.items():
        old["read"] = [r.replace(was, now) for r in old["read"]]
    assert new["read"] == old["read"]
    kinds = {e[2] for e in new["errors"]}
    # context_over_model came after BEFORE (the old engine ranks those queries): tests/test_limits.py words it
    assert set(FORM_ZH) - kinds == {k for k in FORM_ZH if k.startswith("config_")} | {"context_over_model"}


#: Reads {data, pairs}; prints recommendResult's errors as [field, kind, words] (words from the form tables).
ONE_FORM = """
import { recommendResult } from %s;
import { explain } from %s;
import fs from "fs";
const { data, pairs } = JSON.parse(fs.readFileSync(0, "utf8"));
const r = recommendResult(data, pairs);
process.stdout.write(JSON.stringify((r.errors || []).map((e) =>
  [e.field, e.record.kind, explain(data.messages, data.names.billing, e.record, "form")])));
"""


def test_a_precision_one_recipe_table_lacks_is_refused_in_the_readers_words() -> None:
    """Full training takes one card's recipe from ``recipes`` and several cards' from
    ``zero_recipes``. A precision only the first has (fp16 here) used to reach the engine, whose
    English error the form showed as it was; the form now offers only what both tables have.
    Expected words: FORM_ZH's training_precision (its space before the list included) with
    PRECISION_NAMES, written out by hand."""
    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None, problems
    data = calculator_data(cat)
    training = data["rules"]["memory"]["training"]
    recipes = training["recipes"]
    training["recipes"] = {p: recipes[p] for p in ("mixed", "bf16", "fp16", "fp32")}
    training["zero_recipes"] = {p: r for p, r in training["zero_recipes"].items() if p != "fp16"}
    uris = tuple(json.dumps(p.as_uri()) for p in (ENGINE / "workload.js", ENGINE.parent / "messages.js"))
    pairs = [["workload", "full"], ["params", "7"], ["precision", "fp16"]]
    got = node(ONE_FORM % uris, {"data": data, "pairs": pairs})
    assert got == [
        ["precision", "training_precision", "全参训练和预训练只支持 混合精度（BF16 计算 + FP32 主权重）、BF16、FP32"]
    ]
    # control: with both tables whole, fp16 full training ranks (no error)
    training["zero_recipes"]["fp16"] = training["zero_recipes"]["bf16"]
    assert node(ONE_FORM % uris, {"data": data, "pairs": pairs}) == []


def test_every_form_message_has_words_of_its_own() -> None:
    """No form template is only its parameters (the old ``engine`` kind, ``{text}``, passed an English
    engine message straight to the reader)."""
    bare = [k for k, t in FORM_ZH.items() if not re.sub(r"\{\w+\}|\[|\]", "", t).strip()]
    assert bare == []
    assert not re.sub(r"\{\w+\}|\[|\]", "", "{text}").strip()  # control: the old entry is caught


def test_moe_expert_dispatch_is_pythons() -> None:
    """speed.js's expertDispatchSeconds / prefillDispatchSeconds equal speed.py's for a host cost per routed
    expert (an older llama.cpp build: rules.yaml speed.runtime_builds; the current runtimes have 0, so the
    page-level parity cases never reach it): Mixtral-like and DeepSeek-like shapes, batches and prompts
    across the 512-token ubatch."""
    from generator.data.records import Runtime
    from generator.engine import speed
    from generator.engine.arch import Arch

    cat, _ = load_catalogue(REPO / "data", REPO)
    assert cat is not None
    rt = dict(cat.rules.speed.runtimes)
    rt[Runtime.llama_cpp] = rt[Runtime.llama_cpp].model_copy(update={"host_us_per_routed_expert": 140.0})
    rules = cat.rules.model_copy(update={"speed": cat.rules.speed.model_copy(update={"runtimes": rt})})
    defaults = rules.memory.arch_defaults
    archs = [
        Arch.from_params(46.7, layers=32, hidden=4096, experts=8, experts_per_token=2, defaults=defaults),
        Arch.from_params(671.0, layers=61, hidden=7168, intermediate=2048, experts=256, experts_per_token=8,
                         dense_layers=3, shared_experts=1, active_params_b=37.55, defaults=defaults),
        Arch.from_params(7.0, layers=32, hidden=4096, defaults=defaults),
    ]  # fmt: skip
    tokens = [1, 2, 16, 511, 512, 513, 1024, 3584]
    cases = [(i, n) for i in range(len(archs)) for n in tokens]
    want = [
        [
            speed.expert_dispatch_seconds(archs[i], Runtime.llama_cpp, rules, n),
            speed._prefill_dispatch_seconds(archs[i], Runtime.llama_cpp, rules, n),
        ]
        for i, n in cases
    ]
    payload = {
        "archs": [{"layers": a.layers, "dense_layers": a.dense_layers, "experts": a.experts,
                   "experts_per_token": a.experts_per_token} for a in archs],
        "cases": cases,
        "rules": {"speed": {"runtimes": {"llama.cpp": {"host_us_per_routed_expert": 140.0}}},
                  "memory": {"inference": {"runtimes": {"llama.cpp": {
                      "max_batched_tokens": rules.memory.inference.runtimes[Runtime.llama_cpp].max_batched_tokens}}}}},
    }  # fmt: skip
    script = f"""
import * as s from {json.dumps((ENGINE / "speed.js").as_uri())};
import fs from "fs";
const p = JSON.parse(fs.readFileSync(0, "utf8"));
const out = p.cases.map(([i, n]) => [s.expertDispatchSeconds(p.archs[i], "llama.cpp", p.rules, n),
  s.prefillDispatchSeconds(p.archs[i], "llama.cpp", p.rules, n)]);
process.stdout.write(JSON.stringify(out));
"""
    got = node(script, payload)
    assert [x for row in got for x in row] == pytest.approx([x for row in want for x in row], rel=1e-12)
    assert want[0][0] == pytest.approx(32 * 2 * 140e-6)  # one Mixtral token: 32 layers x 2 experts x 140 us
