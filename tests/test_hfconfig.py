"""config.json reading (``--config-json`` and the calculator's paste box) on the published configs
of the catalogue's models, copied verbatim into ``tests/fixtures/configs/`` (sources in its README).

The expected counts are the model cards' and the checkpoints' own figures, not this code's:

* DeepSeek-V3 (README_WEIGHTS.md): "Total parameters: 671B", "Activation parameters: 36.7B
  (including 0.9B for the output Head)" — the active figure leaves out the input embedding lookup;
* Qwen3-8B: "Number of Parameters: 8.2B; Number of Paramaters (Non-Embedding): 6.95B"; Qwen3-14B 14.8B /
  13.2B and Qwen3-32B 32.8B / 31.2B on their cards;
* Qwen3-30B-A3B: "30.5B in total and 3.3B activated"; Qwen3-235B-A22B: "235B in total and 22B
  activated"; Qwen3-Next-80B-A3B: "80B in total and 3B activated" (model cards).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from generator.engine.hfconfig import ConfigError, key_line, read_config

CONFIGS = REPO / "tests" / "fixtures" / "configs"
ENGINE = REPO / "docs" / "javascripts" / "engine"


def load(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    return loaded


def test_every_fixture_is_read() -> None:
    names = sorted(p.stem for p in CONFIGS.glob("*.json"))
    assert len(names) >= 5
    for name in names:
        assert read_config(load(name)).total > 0


def test_deepseek_v3_latent_attention_and_moe() -> None:
    r = read_config(load("deepseek-v3"))
    assert abs(r.total / 1e9 - 671) < 0.5
    active_without_lookup = float(r.flags["active-params"]) - 129280 * 7168 / 1e9
    assert abs(active_without_lookup - 36.7) / 36.7 < 0.01
    assert r.flags["kv-lora-rank"] == "512" and r.flags["qk-rope-head-dim"] == "64"
    assert (r.flags["experts"], r.flags["experts-per-token"]) == ("256", "8")
    assert (r.flags["dense-layers"], r.flags["shared-experts"], r.flags["intermediate"]) == ("3", "1", "2048")


@pytest.mark.parametrize(
    ("name", "total_b", "active_b", "with_embeddings"),
    [
        ("qwen3-30b-a3b", 30.5, 3.3, True),
        ("qwen3-235b-a22b", 235, 22, True),
        # Qwen3-Next's "3B activated" leaves the embedding and lm_head (0.62B) out
        ("qwen3-next-80b-a3b", 80, 3, False),
    ],
)
def test_qwen3_moe_counts_match_the_model_cards(
    name: str, total_b: float, active_b: float, with_embeddings: bool
) -> None:
    r = read_config(load(name))
    assert abs(r.total / 1e9 - total_b) / total_b < 0.02
    embeddings = 0 if with_embeddings else 2 * 151936 * int(r.flags["hidden"]) / 1e9
    assert abs(float(r.flags["active-params"]) - embeddings - active_b) / active_b < 0.1  # the cards round


@pytest.mark.parametrize(("name", "total_b", "non_embedding_b"), [("qwen3-14b", 14.8, 13.2), ("qwen3-32b", 32.8, 31.2)])
def test_larger_qwen3_dense_counts_match_the_model_cards(name: str, total_b: float, non_embedding_b: float) -> None:
    """Qwen3-14B card: "Number of Parameters: 14.8B", "(Non-Embedding): 13.2B"; Qwen3-32B: 32.8B, 31.2B."""
    r = read_config(load(name))
    assert round(r.total / 1e9, 1) == total_b
    assert round(r.total / 1e9 - 2 * 151936 * 5120 / 1e9, 1) == non_embedding_b


def test_qwen3_dense_counts_match_the_model_card() -> None:
    r = read_config(load("qwen3-8b"))
    assert round(r.total / 1e9, 1) == 8.2
    assert round(r.total / 1e9 - 2 * 151936 * 4096 / 1e9, 2) == 6.95
    assert "sliding-window" not in r.flags  # use_sliding_window: false


def test_qwen3_next_linear_layers_and_state() -> None:
    r = read_config(load("qwen3-next-80b-a3b"))
    # full_attention_interval 4 of 48 layers; state 32 × 128 × 128 + 3 × (2·16·128 + 32·128)
    assert r.flags["linear-layers"] == "36"
    assert r.flags["linear-state"] == str(32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128))


@pytest.mark.parametrize(
    ("name", "total_b", "active_b", "windowed"), [("gpt-oss-120b", 116.83, 5.13, 18), ("gpt-oss-20b", 20.91, 3.61, 12)]
)
def test_gpt_oss_counts_match_the_model_card(name: str, total_b: float, active_b: float, windowed: int) -> None:
    """gpt-oss model card (arXiv 2508.10925) Table 1: 116.83B total / 5.13B active (120b), 20.91B / 3.61B (20b);
    the active count leaves out the input embedding lookup (201,088 × 2,880). The reader leaves out the
    biases (experts, attention, router) and the attention sinks: under 0.05 %. Attention alternates a
    128-token window and the full context (layer_types)."""
    r = read_config(load(name))
    assert abs(r.total / 1e9 - total_b) / total_b < 0.0005
    assert round(float(r.flags["active-params"]) - 201088 * 2880 / 1e9, 2) == active_b
    assert (r.flags["sliding-window"], r.flags["window-layers"]) == ("128", str(windowed))
    assert (r.flags["head-dim"], r.flags["experts-per-token"]) == ("64", "4")


def test_llama_70b_config_gives_the_distills_checkpoint_size() -> None:
    """DeepSeek-R1-Distill-Llama-70B's model.safetensors.index.json (copy in bojieli/ai-infra-book @
    5af9f8f1, calculations/sources/deepseek-r1-distill-llama-70b/) says total_size 141,107,412,992 bytes
    of BF16 tensors: the parameter count Llama-3.1-70B-Instruct's config.json gives, to the parameter."""
    assert read_config(load("llama-3.1-70b-instruct")).total * 2 == 141_107_412_992


def test_qwen25_vl_counts_its_vision_tower_on_top_of_the_language_model() -> None:
    """Qwen2.5-VL-7B: the language model is Qwen2.5-7B's shape; the vision tower (HF
    Qwen2_5_VisionTransformerPretrainedModel) is a Conv3d patch embedding 3 × 2 × 14 × 14 → 1280, 32 blocks
    of qkv + proj (4 × 1280²) and a gated MLP (3 × 1280 × 3420), and the merger 5120 → 5120 → 3584: by hand
    676,034,560, about the "675 million parameters" the Qwen2-VL report gives its ViT of the same width
    and depth."""
    vl, text = read_config(load("qwen2.5-vl-7b-instruct")), read_config(load("qwen2.5-7b"))
    by_hand = 3 * 2 * 14 * 14 * 1280 + 32 * (4 * 1280 * 1280 + 3 * 1280 * 3420) + 5120 * (5120 + 3584)
    assert vl.total - text.total == by_hand
    assert abs(by_hand - 675e6) / 675e6 < 0.01
    # the same language model, but the VL release's positions stop at 128,000 (Qwen2.5-7B's: 131,072)
    assert {k: v for k, v in vl.flags.items() if k not in {"params", "max-context"}} == {
        k: v for k, v in text.flags.items() if k not in {"params", "max-context"}
    }
    assert (vl.flags["max-context"], text.flags["max-context"]) == ("128000", "131072")
    without = {k: v for k, v in load("qwen2.5-vl-7b-instruct").items() if k != "vision_config"}
    assert read_config(without).total == text.total  # no vision_config, no tower


def test_kimi_k2_is_deepseek_v3s_layout_with_384_experts() -> None:
    """Kimi-K2-Instruct, summed by hand from its config.json as HF ``DeepseekV3ForCausalLM`` builds it
    (the reader's rule, worked out here term by term): per layer MLA attention 101,124,096 (q_a 7168×1536
    + its norm, q_b 1536×64×192, kv_a 7168×576 + its norm, kv_b 512×64×256, o 64×128×7168), 60 MoE layers
    of 384 experts × 3×7168×2048 + router + 1 shared expert, 1 dense layer 3×7168×18432, two norms a
    layer, untied 163,840 × 7168 tables and the final norm: 1,026,408,209,408. The model card says "Total
    Parameters 1T, Activated Parameters 32B" (ratios 1.026 and 1.027; 0.990 without the embedding lookup)."""
    r = read_config(load("kimi-k2-instruct"))
    attention = 7168 * 1536 + 1536 + 1536 * 64 * 192 + 7168 * 576 + 512 + 512 * 64 * 256 + 64 * 128 * 7168
    expert = 3 * 7168 * 2048
    moe = 384 * expert + 384 * 7168 + expert
    by_hand = 61 * attention + 60 * moe + 3 * 7168 * 18432 + 61 * 2 * 7168 + 2 * 163840 * 7168 + 7168
    assert r.total == by_hand == 1_026_408_209_408
    assert abs(r.total / 1e12 - 1) < 0.03
    active = by_hand - 60 * (384 - 8) * expert
    assert float(r.flags["active-params"]) * 1e9 == pytest.approx(active)
    assert abs((active - 163840 * 7168) / 1e9 - 32) / 32 < 0.02
    assert (r.flags["kv-lora-rank"], r.flags["qk-rope-head-dim"]) == ("512", "64")
    assert (r.flags["experts"], r.flags["experts-per-token"], r.flags["shared-experts"]) == ("384", "8", "1")
    assert (r.flags["dense-layers"], r.flags["intermediate"], r.flags["head-dim"]) == ("1", "2048", "192")


def test_llama4_scout_chunked_attention_shared_expert_and_vision_encoder() -> None:
    """Llama-4-Scout-17B-16E-Instruct's model card: "17B activated, 109B total parameters". By hand from
    its config.json: per layer attention 2×5120² + 2×5120×1024, 16 experts and 1 shared expert of
    3×5120×8192 (every layer MoE: interleave_moe_layer_step 1), router 16×5120, two norms; untied
    202,048 × 5120 tables: 107,769,861,120 for the language model. The vision encoder (HF
    ``Llama4VisionModel``): patch Linear 3×14²×1408, class token, 577 position embeddings, 34 blocks of
    4×1408² + 2×1408×5632, the pixel-shuffle MLP 5632×4096 + 4096×4096, and the projector 4096×5120:
    871,304,448. Total 108.64B (ratio 0.997 to the card); a token passes through 17.17B (1.010)."""
    r = read_config(load("llama-4-scout-17b-16e-instruct"))
    expert = 3 * 5120 * 8192
    layer = 2 * 5120 * 5120 + 2 * 5120 * 1024 + 17 * expert + 16 * 5120 + 2 * 5120
    text = 48 * layer + 2 * 202048 * 5120 + 5120
    vision = 3 * 14 * 14 * 1408 + 1408 + 577 * 1408 + 34 * (4 * 1408 * 1408 + 2 * 1408 * 5632)
    vision += 5632 * 4096 + 4096 * 4096 + 4096 * 5120
    assert (text, vision) == (107_769_861_120, 871_304_448)
    assert r.total == text + vision
    assert abs(r.total / 1e9 - 109) / 109 < 0.01
    active = text - 48 * 15 * expert
    assert float(r.flags["active-params"]) * 1e9 == pytest.approx(active)
    assert abs(active / 1e9 - 17) / 17 < 0.02
    # chunked attention (attention_chunk_size 8192) on 3 of every 4 layers; one shared expert
    assert (r.flags["sliding-window"], r.flags["window-layers"]) == ("8192", "36")
    assert (r.flags["experts"], r.flags["experts-per-token"], r.flags["shared-experts"]) == ("16", "1", "1")
    assert "vision_config" in r.note


GEMMA2_9B = {"model_type": "gemma2", "hidden_size": 3584, "intermediate_size": 14336, "num_attention_heads": 16,
             "num_hidden_layers": 42, "num_key_value_heads": 8, "head_dim": 256, "sliding_window": 4096,
             "vocab_size": 256000}  # fmt: skip


def test_gemma_ties_embeddings_when_the_key_is_absent() -> None:
    """Gemma 2 9B has 9,241,705,984 parameters (the checkpoint's count, 9.24B on its model card) with one
    embedding table; counted untied it would be 256000 × 3584 = 0.92B (10 %) too many."""
    r = read_config(GEMMA2_9B)
    assert r.flags["tied-embeddings"] == "1"
    # per layer q,o 3584×4096, k,v 3584×2048, MLP 3×3584×14336; Gemma 2 has 4 norms a layer (2 counted here)
    attention = 2 * 3584 * 4096 + 2 * 3584 * 2048
    assert r.total == 256000 * 3584 + 42 * (attention + 3 * 3584 * 14336 + 2 * 3584) + 3584
    assert abs(r.total - 9_241_705_984) / 9_241_705_984 < 0.001
    assert (r.flags["sliding-window"], r.flags["window-layers"]) == ("4096", "21")  # alternating


#: Gemma 3 27B's config.json keys (no copy of the file was found in a named repository, so this is
#: typed from the shape, without the keys the reader does not use): like the published file, the
#: text_config gives no vocab_size, so HF's Gemma3TextConfig default fills it in.
GEMMA3_27B = {"model_type": "gemma3", "mm_tokens_per_image": 256,
              "text_config": {"head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504,
                              "model_type": "gemma3_text", "num_attention_heads": 32, "num_hidden_layers": 62,
                              "num_key_value_heads": 16, "query_pre_attn_scalar": 168, "sliding_window": 1024},
              "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                                "model_type": "siglip_vision_model", "num_attention_heads": 16,
                                "num_hidden_layers": 27, "patch_size": 14, "vision_use_head": False}}  # fmt: skip


def test_gemma3_takes_its_family_defaults_and_counts_siglip() -> None:
    """HF ``Gemma3TextConfig`` defaults vocab_size to 262,208 (transformers
    models/gemma3/configuration_gemma3.py), and Google's "Gemma explained: What's new in Gemma 3" prints
    the 27B's ``Gemma3TextScaledWordEmbedding(262208, 5376)``: a Gemma 3 text_config without vocab_size is
    that vocabulary, not an error. One tied table; per layer q,o 5376×4096, k,v 5376×2048, MLP
    3×5376×21504; five sliding layers (window 1024) to one global: 52 of 62. The SigLIP tower (HF
    ``SiglipVisionModel``, 27 blocks of width 1152, 4096 patches of 14² at 896²) and the projector to
    5376: 422,659,584, the Gemma 3 report's "400M variant of the SigLIP encoder"."""
    r = read_config(GEMMA3_27B)
    assert (r.flags["vocab"], r.flags["head-dim"], r.flags["tied-embeddings"]) == ("262208", "128", "1")
    layer = 2 * 5376 * 4096 + 2 * 5376 * 2048 + 3 * 5376 * 21504 + 2 * 5376
    text = 262208 * 5376 + 62 * layer + 5376
    vision = 3 * 14 * 14 * 1152 + 64 * 64 * 1152 + 27 * (4 * 1152 * 1152 + 2 * 1152 * 4304) + 1152 * 5376
    assert vision == 422_659_584 and abs(vision / 400e6 - 1) < 0.1
    assert r.total == text + vision
    assert abs(r.total / 1e9 - 27) / 27 < 0.02
    assert (r.flags["sliding-window"], r.flags["window-layers"]) == ("1024", "52")
    # keys absent altogether take Gemma3TextConfig's other defaults: head_dim 256, 4 KV heads, window 4096
    bare = read_config({"model_type": "gemma3_text", "hidden_size": 2304, "intermediate_size": 9216,
                        "num_attention_heads": 8, "num_hidden_layers": 26})  # fmt: skip
    assert (bare.flags["head-dim"], bare.flags["kv-heads"], bare.flags["sliding-window"]) == ("256", "4", "4096")


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"num_key_value_heads": 128}, "num_key_value_heads"),
        ({"num_key_value_heads": 5}, "num_key_value_heads"),
        ({"num_attention_heads": 48, "num_key_value_heads": 48, "head_dim": None}, "num_attention_heads"),
        ({"num_hidden_layers": 0}, "num_hidden_layers"),
        ({"num_experts_per_tok": 200}, "num_experts_per_tok"),
        ({"mamba_d_state": 16}, "mamba_d_state"),
        ({"first_k_dense_replace": 94}, "first_k_dense_replace"),
    ],
)
def test_impossible_configs_are_refused_with_the_key(change: dict, key: str) -> None:  # type: ignore[type-arg]
    cfg = {**load("qwen3-235b-a22b"), **change}
    with pytest.raises(ConfigError) as err:
        read_config(cfg)
    assert err.value.key == key


def test_key_line_points_into_the_file() -> None:
    text = (CONFIGS / "deepseek-v3.json").read_text(encoding="utf-8")
    line = key_line(text, "kv_lora_rank")
    assert line is not None and '"kv_lora_rank": 512' in text.splitlines()[line - 1]


READ = """
import { readHfConfig } from %s;
import fs from "fs";
const texts = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(texts.map((t) => readHfConfig(t))));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (CI has it)")
def test_the_calculators_reader_agrees_on_every_fixture() -> None:
    names = sorted(p.stem for p in CONFIGS.glob("*.json"))
    typed = [json.dumps(GEMMA2_9B), json.dumps(GEMMA3_27B)]
    texts = [(CONFIGS / f"{n}.json").read_text(encoding="utf-8") for n in names] + typed
    run = subprocess.run(["node", "--input-type=module", "-e", READ % json.dumps((ENGINE / "hfconfig.js").as_uri())],
                         input=json.dumps(texts), capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    for text, js in zip(texts, json.loads(run.stdout), strict=True):
        py = read_config(json.loads(text))
        assert js["total"] == py.total
        assert js["flags"].keys() == py.flags.keys()
        assert all(float(js["flags"][k]) == float(v) for k, v in py.flags.items()), (js["flags"], py.flags)
        assert js["maxContext"] == py.max_context


# --------------------------------------------------------------------------- the command line


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from generator.cli.main import main

    code = main(["--root", str(REPO), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_estimate_reads_a_published_config(capsys: pytest.CaptureFixture[str]) -> None:
    """DeepSeek-V3 from its config.json: the KV cache is the latent's, 61 × 576 × 2 bytes a token."""
    code, out, err = _cli(capsys, "estimate", "--workload", "inference", "--config-json",
                          str(CONFIGS / "deepseek-v3.json"), "--precision", "fp8", "--gpus", "8", "--batch", "1",
                          "--context", "4096", "--json")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["breakdown"]["kv_cache"] == pytest.approx(61 * 576 * 2 * 4096 / 2**30, abs=0.001)


@pytest.mark.parametrize(
    ("config", "context", "kv_bytes"),
    [
        # Kimi K2: the MLA latent, 61 layers × (512 + 64) values × 2 bytes a token, as DeepSeek-V3's
        ("kimi-k2-instruct", 32768, 61 * 576 * 2 * 32768),
        # Llama 4 Scout at 131,072 tokens: 12 global layers cache the whole context, the 36 chunked
        # layers at most one 8,192-token chunk; K and V, 8 KV heads × 128, 2 bytes (7.125 GiB), split
        # over the 8 cards by KV head (the MLA latent above is whole on every card)
        ("llama-4-scout-17b-16e-instruct", 131072, (12 * 131072 + 36 * 8192) * 2 * 8 * 128 * 2 // 8),
    ],
)
def test_estimate_sizes_the_kv_cache_of_the_new_architectures(
    capsys: pytest.CaptureFixture[str], config: str, context: int, kv_bytes: int
) -> None:
    code, out, err = _cli(capsys, "estimate", "--workload", "inference", "--config-json",
                          str(CONFIGS / f"{config}.json"), "--precision", "fp8", "--gpus", "8", "--batch", "1",
                          "--context", str(context), "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["breakdown"]["kv_cache"] == pytest.approx(kv_bytes / 2**30, abs=0.001)


@pytest.mark.parametrize("card_gb", [96, 141])
def test_kimi_k2_fp8_at_128k_needs_16_h20_or_h200_as_moonshot_says(
    capsys: pytest.CaptureFixture[str], card_gb: int
) -> None:
    """Moonshot's deploy guidance (huggingface.co/moonshotai/Kimi-K2-Instruct, docs/deploy_guidance.md):
    "The smallest deployment unit for Kimi-K2 FP8 weights with 128k seqlen on mainstream H200 or H20
    platform is a cluster with 16 GPUs". Sized from its config.json: 16 cards of 96 GB (H20) or 141 GB
    (H200). On eight H200 the estimate is 135.9 GiB a card against 135.4 usable: a close call, as the
    guidance's "smallest" implies."""
    code, out, err = _cli(capsys, "estimate", "--workload", "inference", "--config-json",
                          str(CONFIGS / "kimi-k2-instruct.json"), "--precision", "fp8", "--context", "131072",
                          "--gpu-memory-gb", str(card_gb), "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["min_gpus"] == 16


@pytest.mark.parametrize(("precision", "cards"), [("bf16", 4), ("fp8", 2), ("int4", 1)])
def test_llama4_scout_needs_the_h100s_metas_scripts_use(
    capsys: pytest.CaptureFixture[str], precision: str, cards: int
) -> None:
    """Fixstars ran Meta's llama-models scripts for Llama-4-Scout-17B-16E-Instruct
    (blog.us.fixstars.com/running-llama-4-scout-on-a-single-nvidia-h100-using-int4-quantization): BF16
    with NGPUS=4, fp8_mixed "in an environment with 2 H100 GPUs", int4_mixed on one ("Llama 4 Scout can
    be loaded onto a single NVIDIA H100 with INT4 quantization", Meta's release). Sized from its
    config.json on 80 GB cards at a 4,096-token context."""
    code, out, err = _cli(capsys, "estimate", "--workload", "inference", "--config-json",
                          str(CONFIGS / "llama-4-scout-17b-16e-instruct.json"), "--precision", precision,
                          "--context", "4096", "--gpu-memory-gb", "80", "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["min_gpus"] == cards


def test_recommend_reads_a_published_config(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, "recommend", "--workload", "inference", "--config-json",
                          str(CONFIGS / "qwen3-30b-a3b.json"), "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["options"]


def test_a_config_with_an_impossible_shape_names_file_line_and_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "config.json"
    text = (
        (CONFIGS / "qwen3-8b.json")
        .read_text(encoding="utf-8")
        .replace('"num_key_value_heads": 8', '"num_key_value_heads": 64')
    )
    bad.write_text(text, encoding="utf-8")
    code, _, err = _cli(capsys, "estimate", "--workload", "inference", "--config-json", str(bad))
    line = key_line(text, "num_key_value_heads")
    assert code == 2
    assert f"{bad}:{line}: num_key_value_heads: 64 KV heads is more than the 32 attention heads" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--heads", "32", "--kv-heads", "64"], "--kv-heads: 64 KV heads is more than the 32 attention heads"),
        (["--hidden", "4000", "--heads", "48"], "--heads: hidden size 4000 is not a whole number of 48 heads"),
        (["--layers", "32", "--sliding-window", "4096", "--window-layers", "40"], "--window-layers: 40 windowed"),
        (["--window-layers", "4"], "--window-layers counts some of the layers: add --layers"),
    ],
)
def test_impossible_shape_flags_are_refused(capsys: pytest.CaptureFixture[str], flags: list[str], words: str) -> None:
    code, _, err = _cli(capsys, "estimate", "--workload", "inference", "--params", "7", *flags)
    assert code == 2 and words in err, err


def test_config_json_and_shape_flags_do_not_mix(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "estimate", "--workload", "inference", "--config-json",
                        str(CONFIGS / "qwen3-8b.json"), "--layers", "40")  # fmt: skip
    assert code == 2 and "--layers" in err


# --------------------------------------------------------------------------- the catalogue against its configs

#: Catalogue model → the published config.json kept for it. The R1 distills keep their base model's
#: config (the distill's own config.json has the same shape fields; see the fixtures' README).
CATALOGUE_CONFIGS = {
    "deepseek-v3": "deepseek-v3",
    "deepseek-r1": "deepseek-v3",
    "qwen2.5-7b": "qwen2.5-7b",
    "qwen2.5-14b": "qwen2.5-14b",
    "qwen2.5-32b": "qwen2.5-32b",
    "deepseek-r1-distill-qwen-7b": "qwen2.5-7b",
    "deepseek-r1-distill-qwen-14b": "qwen2.5-14b",
    "deepseek-r1-distill-qwen-32b": "qwen2.5-32b",
    "qwen3-8b": "qwen3-8b",
    "qwen3-14b": "qwen3-14b",
    "qwen3-32b": "qwen3-32b",
    "qwen3-30b-a3b": "qwen3-30b-a3b",
    "qwen3-235b-a22b": "qwen3-235b-a22b",
    "qwen3-next-80b-a3b": "qwen3-next-80b-a3b",
    "gpt-oss-120b": "gpt-oss-120b",
    "gpt-oss-20b": "gpt-oss-20b",
    "llama-3.1-70b": "llama-3.1-70b-instruct",
    "deepseek-r1-distill-llama-70b": "llama-3.1-70b-instruct",
    "qwen2.5-vl-7b": "qwen2.5-vl-7b-instruct",
    "kimi-k2": "kimi-k2-instruct",
    "llama-4-scout": "llama-4-scout-17b-16e-instruct",
}
#: models.yaml field → the flag read_config prints for it.
FIELDS = {"layers": "layers", "hidden": "hidden", "heads": "heads", "kv_heads": "kv-heads", "vocab": "vocab",
          "intermediate": "intermediate", "experts": "experts", "experts_per_token": "experts-per-token",
          "shared_experts": "shared-experts", "dense_layers": "dense-layers", "kv_lora_rank": "kv-lora-rank",
          "qk_rope_head_dim": "qk-rope-head-dim", "linear_attention_layers": "linear-layers",
          "linear_state_values": "linear-state", "sliding_window": "sliding-window",
          "sliding_window_layers": "window-layers"}  # fmt: skip


@pytest.fixture(scope="module")
def catalogue_models():  # type: ignore[no-untyped-def]
    from generator.data.validate import load_catalogue

    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None, problems
    return cat.models


def test_every_fixture_belongs_to_a_catalogue_model() -> None:
    assert {p.stem for p in CONFIGS.glob("*.json")} == set(CATALOGUE_CONFIGS.values())


@pytest.mark.parametrize(("model_id", "config"), sorted(CATALOGUE_CONFIGS.items()))
def test_the_catalogue_agrees_with_its_config_json(catalogue_models, model_id: str, config: str) -> None:  # type: ignore[no-untyped-def]
    """Each shape field in models.yaml is what config.json says; params_b within 0.1 % of the count read
    (the reader leaves out biases and per-head norms, models.yaml keeps the checkpoint's exact count)."""
    m = catalogue_models[model_id]
    r = read_config(load(config))
    for field, flag in FIELDS.items():
        value = getattr(m, field)
        assert (str(value) if value is not None else None) == r.flags.get(flag), (model_id, field)
    assert (m.head_dim is None) == ("head-dim" not in r.flags) and str(m.head_dim or "") == r.flags.get("head-dim", "")
    assert m.tied_embeddings == ("tied-embeddings" in r.flags)
    assert m.max_context == r.max_context  # models.yaml's max_context is the config's max_position_embeddings
    assert abs(m.params_b * 1e9 - r.total) / r.total < 0.001, (model_id, m.params_b, r.total)
    if m.active_params_b is not None:
        assert abs(m.active_params_b - float(r.flags["active-params"])) / m.active_params_b < 0.01
