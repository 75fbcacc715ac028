"""A context longer than the model's positions is refused (generator/engine/limits.py and its JS twin
in docs/javascripts/engine/workload.js): the typed record, the command line's error, the calculator's
error, and the two engines agreeing. Limits by hand: Llama-2-7B's models.yaml max_context is 4,096
(its config.json max_position_embeddings); Qwen3-8B's config.json (tests/fixtures/configs/qwen3-8b.json)
says "max_position_embeddings": 40960."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest
from conftest import REPO

from generator.data.validate import load_catalogue
from generator.engine.limits import Limit, LimitKind, context_limit, limit_text_en
from generator.pages.calculator import calculator_data
from generator.pages.form_messages import FORM_ZH

CONFIGS = REPO / "tests" / "fixtures" / "configs"
ENGINE = REPO / "docs" / "javascripts" / "engine"


def test_a_context_up_to_the_limit_fits_and_one_more_token_is_refused() -> None:
    assert context_limit(4096, 4096, "max_context") is None
    assert context_limit(1, None, "max_context") is None  # no stated limit (--params)
    got = context_limit(4097, 4096, "max_context")
    assert got == Limit(LimitKind.context_over_model, {"context": 4097, "limit": 4096, "key": "max_context"})
    assert got.record() == {
        "kind": "context_over_model",
        "params": {"context": 4097, "limit": 4096, "key": "max_context"},
    }
    assert limit_text_en(got) == (
        "a 4097-token context is longer than the model supports: its max_context is 4096 tokens"
    )
    with pytest.raises(ValueError, match="unknown limit key"):
        context_limit(1, 2, "n_ctx")


def test_the_form_table_names_the_limit() -> None:
    words = FORM_ZH["context_over_model"].format(context="4097", limit="4096", key="max_context")
    assert words == "上下文 4097 token 超过了这个模型支持的长度：它的 max_context 是 4096 token"


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from generator.cli.main import main

    code = main(["--root", str(REPO), *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("args", "flag", "context", "limit", "key"),
    [
        (["--model", "llama-2-7b", "--context", "4097"], "--context", 4097, 4096, "max_context"),
        # 3,600 + 512 = 4,112 tokens
        (["--model", "llama-2-7b", "--prompt-tokens", "3600", "--output-tokens", "512"], "--prompt-tokens", 4112,
         4096, "max_context"),
        (["--config-json", str(CONFIGS / "qwen3-8b.json"), "--context", "40961"], "--context", 40961, 40960,
         "max_position_embeddings"),
        (["--params", "7", "--max-context", "2048", "--output-tokens", "2048", "--context", "2049"], "--context", 2049,
         2048, "max_position_embeddings"),
    ],
)  # fmt: skip
def test_the_command_line_refuses_a_context_past_the_limit(
    capsys: pytest.CaptureFixture[str], args: list[str], flag: str, context: int, limit: int, key: str
) -> None:
    code, out, err = _cli(capsys, "estimate", "--workload", "inference", *args)
    assert code == 2 and out == ""
    assert f"{flag}: a {context}-token context is longer than the model supports: its {key} is {limit} tokens" in err
    assert "Traceback" not in err


def test_the_command_line_sizes_a_context_at_the_limit(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["--model", "llama-2-7b", "--context", "4096"],
                 ["--config-json", str(CONFIGS / "qwen3-8b.json"), "--context", "40960"],
                 ["--params", "7", "--context", "500000"], ["--params", "7", "--max-context", "4096", "--context", "4096"]):  # fmt: skip
        code, _, err = _cli(capsys, "estimate", "--workload", "inference", *args)
        assert code == 0, (args, err)


def test_training_is_held_to_the_limit_too(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "estimate", "--workload", "lora", "--model", "llama-2-7b", "--context", "8192")
    assert code == 2 and "its max_context is 4096 tokens" in err


def test_a_catalogue_model_takes_no_max_context_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "estimate", "--workload", "inference", "--model", "llama-2-7b", "--max-context", "2048")
    assert code == 2 and "--max-context describes a model given by --params" in err


def test_a_config_json_sets_max_context_from_max_position_embeddings() -> None:
    from generator.engine.hfconfig import read_config

    r = read_config(json.loads((CONFIGS / "qwen3-8b.json").read_text(encoding="utf-8")))
    assert r.max_context == 40960 and r.flags["max-context"] == "40960"
    # Qwen2.5-VL-7B keeps it at the top level ("max_position_embeddings": 128000), Llama 4 in text_config
    vl = read_config(json.loads((CONFIGS / "qwen2.5-vl-7b-instruct.json").read_text(encoding="utf-8")))
    assert vl.flags["max-context"] == "128000"
    scout = read_config(json.loads((CONFIGS / "llama-4-scout-17b-16e-instruct.json").read_text(encoding="utf-8")))
    assert scout.flags["max-context"] == "10485760"


#: Reads {data, cases, grid}; prints each case's first error as [field, record, words], and contextLimit on the grid.
RUNNER = """
import { recommendResult, catalogue, contextLimit } from %s;
import { explain } from %s;
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const { data, cases, grid } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const cat = catalogue(data);
  const errors = cases.map((pairs) => {
    const r = recommendResult(data, pairs, cat);
    if (!r.errors.length) return null;
    const e = r.errors[0];
    return [e.field, e.record, explain(data.messages, data.names.billing, e.record, "form")];
  });
  const limits = grid.map(([c, l, k]) => contextLimit(c, l, k));
  process.stdout.write(JSON.stringify({ errors, limits }));
});
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (CI has it)")
def test_the_calculator_refuses_the_same_contexts_in_the_readers_words() -> None:
    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None, problems
    cases: list[list[tuple[str, str]]] = [
        [("workload", "inference"), ("model", "llama-2-7b"), ("context", "4097")],
        [("workload", "inference"), ("model", "llama-2-7b"), ("prompt-tokens", "3600"), ("output-tokens", "512")],
        [("workload", "lora"), ("model", "qwen3-8b"), ("context", "131072")],
        [("workload", "inference"), ("model", "llama-2-7b"), ("context", "4096")],  # at the limit: ranks
        [("workload", "inference"), ("params", "7"), ("max-context", "2048"), ("context", "2049")],
        [("workload", "inference"), ("model", "llama-2-7b"), ("max-context", "2048")],
    ]
    grid: list[tuple[int, int | None, str]] = [
        (c, lim, k) for c in (1, 4095, 4096, 4097, 10**6) for lim in (None, 4096, 40960)
        for k in ("max_context", "max_position_embeddings")
    ]  # fmt: skip
    script = RUNNER % (
        json.dumps((ENGINE / "workload.js").as_uri()),
        json.dumps((ENGINE.parent / "messages.js").as_uri()),
    )
    run = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=300,
                         input=json.dumps({"data": calculator_data(cat), "cases": cases, "grid": grid}), check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    got: dict[str, Any] = json.loads(run.stdout)
    e0, e1, e2, e3, e4, e5 = got["errors"]
    assert e0[0] == "context" and e0[1]["kind"] == "context_over_model"
    assert e0[1]["params"] == {"context": "4097", "limit": "4096", "key": "max_context"}
    assert e0[2] == "上下文 4097 token 超过了这个模型支持的长度：它的 max_context 是 4096 token"
    assert e1[0] == "prompt-tokens" and e1[1]["params"]["context"] == "4112"
    assert e2[0] == "context" and e2[1]["params"] == {"context": "131072", "limit": "40960", "key": "max_context"}
    assert e3 is None
    assert e4[0] == "context" and e4[1]["params"] == {
        "context": "2049",
        "limit": "2048",
        "key": "max_position_embeddings",
    }
    assert e5[0] == "max-context" and e5[1]["kind"] == "shape_with_model"  # a catalogue model has its own limit
    # the JS check is the Python one, figure for figure (its params are the figures as text)
    for (c, lim, k), js in zip(grid, got["limits"], strict=True):
        py = context_limit(c, lim, k)
        expect = None if py is None else {"table": "form", "kind": py.kind.value,
                                          "params": {p: str(v) for p, v in py.params.items()}}  # fmt: skip
        assert js == expect, (c, lim, k)


def test_every_catalogue_language_model_states_a_limit() -> None:
    """The check has something to hold each catalogue language model to (models.yaml max_context)."""
    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None, problems
    missing = [m.id for m in cat.models.values() if m.kind.value == "llm" and m.max_context is None]
    assert missing == []
