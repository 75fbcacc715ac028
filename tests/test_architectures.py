"""Attention and MoE variants sized from their papers' and runtimes' own formulas, and shapes no
model has refused at the editor's line (models.yaml), the flag (command line) and the field.

Reference figures (each computed from the published formula, not from this code):

* MLA caches (d_c + d_h^R)·l values per token (DeepSeek-V2 paper §2.1, Table 1); DeepSeek-V3's
  config.json has kv_lora_rank 512, qk_rope_head_dim 64, 61 layers: 61 × 576 × 2 bytes = 70,272 bytes
  a token in BF16, the same on every tensor-parallel card (vLLM/SGLang cache the latent as one head);
  ordinary attention with its 128 KV heads × 128 would cache 2 × 61 × 128 × 128 × 2 = 3,997,696.
* A sliding-window layer caches at most its window (Mistral-7B-v0.1 paper §2: "a fixed attention
  span", rolling buffer cache of W tokens).
* Gated DeltaNet keeps a state per head of key dim × value dim whatever the context (Qwen3-Next).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, make_project, replace_in

from generator.data.problems import render
from generator.data.validate import load_catalogue
from generator.engine.arch import Arch
from generator.engine.footprint import kv_bytes_per_sequence, kv_bytes_per_token
from generator.engine.speed import forward_flops_per_token


@pytest.fixture(scope="module")
def rules():  # type: ignore[no-untyped-def]
    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None, problems
    return cat.rules


def deepseek_v3(rules) -> Arch:  # type: ignore[no-untyped-def]
    # deepseek-ai/DeepSeek-V3 config.json (tests/fixtures/configs/deepseek-v3.json)
    return Arch.from_params(
        671, layers=61, hidden=7168, heads=128, kv_heads=128, vocab=129280, intermediate=2048, head_dim=192,
        experts=256, experts_per_token=8, active_params_b=37, kv_lora_rank=512, qk_rope_dim=64, dense_layers=3,
        shared_experts=1, defaults=rules.memory.arch_defaults,
    )  # fmt: skip


def test_latent_attention_caches_the_latent_once_per_card(rules) -> None:  # type: ignore[no-untyped-def]
    a = deepseek_v3(rules)
    assert kv_bytes_per_token(a, "bf16", rules.memory) == 70_272
    assert kv_bytes_per_sequence(a, "bf16", rules.memory, 1, 4096) == 70_272 * 4096
    # tensor parallelism does not split the latent (one copy on each of 8 cards)
    assert kv_bytes_per_token(a, "bf16", rules.memory, 8) == 70_272
    plain = Arch.from_params(671, layers=61, hidden=7168, heads=128, kv_heads=128, head_dim=128,
                             defaults=rules.memory.arch_defaults)  # fmt: skip
    assert kv_bytes_per_token(plain, "bf16", rules.memory) == 3_997_696


def test_moe_counts_dense_layers_and_shared_experts(rules) -> None:  # type: ignore[no-untyped-def]
    a = deepseek_v3(rules)
    # 58 MoE layers × 256 experts × 3 × 7168 × 2048 (the routed experts' weights)
    assert a.expert_params == 58 * 256 * 3 * 7168 * 2048
    assert a.routed_intermediate == (8 + 1) * 2048
    # forward FLOPs follow the 37B active parameters, not the 671B held
    flops = forward_flops_per_token(a, 0, rules.speed)
    assert 2 * 30e9 < flops < 2 * 37e9


def test_windowed_layers_stop_growing_at_the_window(rules) -> None:  # type: ignore[no-untyped-def]
    d = rules.memory.arch_defaults
    # Gemma 3 27B: 62 layers, 5 local (window 1024) to 1 global -> 52 windowed; 16 KV heads × 128
    gemma = Arch.from_params(27.4, layers=62, hidden=5376, heads=32, kv_heads=16, head_dim=128, window=1024,
                             window_layers=52, defaults=d)  # fmt: skip
    per_layer_token = 2 * 16 * 128 * 2
    expected = (10 * 131072 + 52 * 1024) * per_layer_token
    assert kv_bytes_per_sequence(gemma, "bf16", rules.memory, 1, 131072) == expected
    # Mistral-7B-v0.1: every layer windowed at 4096: 32k of context caches what 4k does
    mistral = Arch.from_params(7.24, layers=32, hidden=4096, heads=32, kv_heads=8, window=4096, window_layers=32,
                               defaults=d)  # fmt: skip

    def at(n: int) -> float:
        return float(kv_bytes_per_sequence(mistral, "bf16", rules.memory, 1, n))

    assert at(32768) == at(4096) == 32 * 2 * 8 * 128 * 2 * 4096
    assert at(1000) == 32 * 2 * 8 * 128 * 2 * 1000


def test_linear_attention_keeps_a_fixed_state(rules) -> None:  # type: ignore[no-untyped-def]
    # Qwen3-Next-80B-A3B: 48 layers, full attention every 4th (12), 36 Gated DeltaNet layers; state per layer:
    # 32 value heads × 128 × 128 + (4 − 1) × (2·16·128 + 32·128) convolution inputs = 548,864 values
    a = Arch.from_params(81.3, layers=48, hidden=2048, heads=16, kv_heads=2, head_dim=256, experts=512,
                         experts_per_token=10, active_params_b=3.0, linear_layers=36, linear_state=548_864,
                         shared_experts=1, defaults=rules.memory.arch_defaults)  # fmt: skip
    full = 12 * 2 * 2 * 256 * 2  # bytes per token over the 12 attention layers
    state = 36 * 548_864 * 2
    assert kv_bytes_per_sequence(a, "bf16", rules.memory, 1, 1) == full + state
    assert kv_bytes_per_sequence(a, "bf16", rules.memory, 1, 262144) == full * 262144 + state


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"heads": 32, "kv_heads": 64}, "kv_heads"),
        ({"heads": 32, "kv_heads": 12}, "kv_heads"),
        ({"hidden": 4000, "heads": 48}, "heads"),
        ({"experts": 8, "experts_per_token": 9}, "experts_per_token"),
        ({"layers": 32, "window": 4096, "window_layers": 33}, "window_layers"),
        ({"layers": 32, "linear_layers": 32, "linear_state": 10}, "linear_layers"),
        ({"layers": 4, "experts": 8, "dense_layers": 4}, "dense_layers"),
    ],
)
def test_impossible_shapes_are_refused_with_the_field(rules, fields, field) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=f"^{field}: "):
        Arch.from_params(7, defaults=rules.memory.arch_defaults, **fields)


def _problems(tmp_path: Path, old: str, new: str) -> str:
    root = make_project(tmp_path, lambda data: replace_in(data / "models.yaml", old, new, 1))
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    return render(problems)


def test_models_yaml_refuses_kv_heads_above_heads_at_its_line(tmp_path: Path) -> None:
    got = _problems(tmp_path, "    kv_heads: 32\n", "    kv_heads: 64\n")
    assert got == (
        "data/models.yaml:8:15: models[0].kv_heads: 64 KV heads is more than the 32 attention heads (heads); "
        "no model has that"
    )


def test_models_yaml_refuses_heads_that_do_not_divide_hidden(tmp_path: Path) -> None:
    got = _problems(tmp_path, "    heads: 32\n    kv_heads: 32\n", "    heads: 48\n    kv_heads: 48\n")
    assert "models[0].head_dim: hidden 4096 is not a whole number of 48 heads" in got
    assert got.startswith("data/models.yaml:")


def test_models_yaml_refuses_more_windowed_layers_than_layers(tmp_path: Path) -> None:
    got = _problems(
        tmp_path,
        "    max_context: 4096\n",
        "    sliding_window: 4096\n    sliding_window_layers: 33\n    max_context: 4096\n",
    )
    assert "models[0]: 33 windowed + 0 linear-attention layers exceed layers (32)" in got
