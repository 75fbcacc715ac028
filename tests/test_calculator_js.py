"""Pieces of the calculator's JavaScript in node: Python's number formats (engine/py.js) and the
config.json reader (engine/hfconfig.js). The engine as a whole: test_calculator_parity.py.

Without node the test fails under CI=true (conftest.tools_required) and is skipped elsewhere.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from typing import Any

import pytest
from conftest import REPO, skip_unless_installed

from generator.formats import cny

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


READ = """
import { readHfConfig } from %s;
import fs from "fs";
const texts = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(texts.map((t) => readHfConfig(t))));
"""

LLAMA2_7B = {"hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
             "num_key_value_heads": 32, "vocab_size": 32000, "tie_word_embeddings": False}  # fmt: skip
MIXTRAL = {"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
           "num_key_value_heads": 8, "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000}  # fmt: skip


def test_config_json_gives_the_published_parameter_counts() -> None:
    tied = {**LLAMA2_7B, "tie_word_embeddings": True}
    nested = {"architectures": ["LlavaForConditionalGeneration"], "text_config": LLAMA2_7B}
    gqa = {**LLAMA2_7B, "num_key_value_heads": 8, "head_dim": 64}
    out = node(READ % json.dumps((ENGINE / "hfconfig.js").as_uri()),
               [json.dumps(c) for c in (LLAMA2_7B, MIXTRAL, tied, nested, gqa)])  # fmt: skip
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
    (out,) = node(READ % json.dumps((ENGINE / "hfconfig.js").as_uri()), [config])
    assert "flags" not in out and words in out["error"], out
