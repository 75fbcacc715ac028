"""Wan 2.1 text-to-video estimates (generator/engine/video.py) checked by hand, and against video.js.

Shapes from the Wan repo's configs (wan/configs/wan_t2v_14B.py: dim 5120, ffn_dim 13824, 40 layers,
40 heads; wan_t2v_1_3B.py: dim 1536, ffn_dim 8960, 30 layers, 12 heads; vae_stride (4, 8, 8),
patch_size (1, 2, 2)). The hand-worked numbers below were computed on paper from those shapes,
not copied from the engine's output.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from dataclasses import asdict

import pytest
from conftest import REPO, skip_unless_installed

from generator.data.validate import load_catalogue
from generator.engine import video
from generator.engine.video import DitConfig, VideoRequest

_CAT, _ = load_catalogue(REPO / "data", REPO)
assert _CAT is not None
CAT = _CAT
RULES = CAT.rules
K = video.constants(RULES)

# Parameter counts: 14e9 / 1.3e9 the model names; umt5-xxl encoder 5.68e9 (embedding 256,384 x 4,096
# plus 24 layers of 4 x 4,096^2 attention and 3 x 4,096 x 10,240 gated FFN); Wan-VAE 1.27e8 (UNCONFIRMED).
WAN_14B = DitConfig(
    dim=5120, ffn_dim=13824, num_layers=40, num_heads=40, params=14e9, text_encoder_params=5.68e9, vae_params=1.27e8
)
WAN_1_3B = DitConfig(
    dim=1536, ffn_dim=8960, num_layers=30, num_heads=12, params=1.3e9, text_encoder_params=5.68e9, vae_params=1.27e8
)
P720 = VideoRequest(width=1280, height=720, frames=81, steps=50)
P480 = VideoRequest(width=832, height=480, frames=81, steps=50)


def test_tokens_from_frames_and_resolution() -> None:
    """81 frames -> 1 + 80/4 = 21 latent frames; 720/8 = 90, 1280/8 = 160 latents; 2x2 patches ->
    21 x 45 x 80 = 75,600 tokens. 832x480: 104 x 60 latents -> 21 x 52 x 30 = 32,760."""
    g = video.geometry(P720, K)
    assert (g.latent_frames, g.latent_h, g.latent_w, g.tokens) == (21, 90, 160, 75_600)
    assert video.geometry(P480, K).tokens == 32_760
    assert video.geometry(VideoRequest(width=1280, height=720, frames=1, steps=50), K).tokens == 3_600


def test_flops_per_pass_by_hand() -> None:
    """14B at 720p, per block: linear 2 x (6 x 5120^2 + 2 x 5120 x 13824) x 75,600 = 45,185,236,992,000;
    cross-attention k/v on 512 prompt tokens 4 x 5120^2 x 512 = 53,687,091,200; self-attention
    4 x 75,600^2 x 5120 = 117,050,572,800,000; cross-attention scores 4 x 75,600 x 512 x 5120 =
    792,723,456,000. Sum 163,082,220,339,200 per block, x 40 blocks."""
    assert video.flops_per_pass(WAN_14B, 75_600, K) == 40 * 163_082_220_339_200
    # attention's T^2 term is most of the work at 720p: 117.05 / 163.08 = 0.7177
    assert video.attention_share(WAN_14B, 75_600, K) == pytest.approx(0.71774, abs=1e-4)
    # 1.3B at 480p (32,760 tokens), per block: attention 4 x 32,760^2 x 1536 = 6.5939e12 of
    # 2 x 41,680,896 x 32,760 + 4 x 1536^2 x 512 + 6.5939e12 + 4 x 32,760 x 512 x 1536 = 9.4297e12
    assert video.attention_share(WAN_1_3B, 32_760, K) == pytest.approx(0.6993, abs=5e-4)
    # doubling the tokens more than doubles the FLOPs (the T^2 term)
    assert video.flops_per_pass(WAN_14B, 2 * 75_600, K) > 3 * video.flops_per_pass(WAN_14B, 75_600, K)


def test_seconds_per_video_against_the_wan_table() -> None:
    """50 steps x 2 passes (classifier-free guidance) x 6.5233e15 FLOPs on one A100 (312 TFLOPS dense
    BF16) at MFU 0.63 = 6.5233e17 / 1.9656e14 = 3318.7 s; the Wan README table (UNCONFIRMED, an image)
    gives 3342.6 s."""
    s = video.seconds_per_video(WAN_14B, P720, K, peak_tflops=312.0)
    assert s.seconds == pytest.approx(3318.7, rel=1e-3)
    assert 0.95 <= 3342.6 / s.seconds <= 1.05
    no_cfg = video.seconds_per_video(WAN_14B, VideoRequest(1280, 720, 81, 50, guidance=False), K, 312.0)
    assert no_cfg.seconds == pytest.approx(s.seconds / 2)
    eight = video.seconds_per_video(WAN_14B, P720, K, 312.0, scaling=video.sp_scaling(RULES, 8) or 0.0, cards=8)
    assert 0.95 <= 469.9 / eight.seconds <= 1.05
    assert video.sp_scaling(RULES, 3) is None


def test_memory_phases_by_hand() -> None:
    """14B at 720p on one card without offload, GiB (2^30 bytes): DiT 14e9 x 2 = 26.077; activations
    75,600 x 5120 x 5.8 = 2.0908; umt5-xxl 5.68e9 x 2 = 10.580; VAE in fp32 1.27e8 x 4 = 0.473;
    overhead 1. Denoising: 26.077 + 2.091 + 10.580 + 0.473 + 1 = 40.221."""
    m = video.memory(WAN_14B, P720, K)
    assert m.denoise_gib == pytest.approx(40.221, abs=2e-3)
    assert m.peak_gib == m.denoise_gib
    off = video.memory(WAN_14B, VideoRequest(1280, 720, 81, 50, offload_model=True, t5_cpu=True), K)
    # offloaded: only the DiT, its activations, the VAE and the overhead: 26.077 + 2.091 + 0.473 + 1
    assert off.peak_gib == pytest.approx(29.641, abs=2e-3)
    assert off.text_gib == pytest.approx(1.473, abs=2e-3)
    # sequence parallel over 8 cards splits the activations: 2.0908 / 8 = 0.2614
    assert video.memory(WAN_14B, P720, K, cards=8).denoise_gib == pytest.approx(40.221 - 2.0908 + 0.2614, abs=2e-3)


def test_cost_per_video_and_per_minute() -> None:
    """3600 s on 2 cards at 10 CNY/h = 20 CNY; 81 frames at 16 fps = 5.0625 s of video -> 20 / (5.0625/60)."""
    assert video.cost_per_video(3600.0, 2, 10.0) == pytest.approx(20.0)
    assert video.cost_per_video_minute(3600.0, 2, 10.0, 81, 16.0) == pytest.approx(20.0 * 60 / 5.0625)
    assert video.cost_per_video(float("inf"), 1, 10.0) == float("inf")


NODE = shutil.which("node")
RUNNER = """
import * as v from %s;
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const { rules, cases } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const k = v.constants(rules);
  const out = cases.map(([cfg, req, peak, cards]) => {
    const s = v.secondsPerVideo(cfg, req, k, peak, v.spScaling(rules, cards) ?? 1.0, cards);
    const m = v.memory(cfg, req, k, cards);
    const rs = v.reasons(cfg, req, k, s, m, v.spScaling(rules, cards) ?? 1.0, "¥1.00", "¥2.00");
    return { reasons: rs, tokens: v.geometry(req, k).tokens, flops: v.flopsPerPass(cfg, v.geometry(req, k).tokens, k),
             seconds: s.seconds, tflops: s.tflops, peak: m.peak_gib, text: m.text_gib, decode: m.decode_gib };
  });
  process.stdout.write(JSON.stringify(out));
});
"""


def test_python_and_js_agree() -> None:
    skip_unless_installed(NODE, "node is not installed (CI has it)")
    assert NODE is not None
    rng = random.Random(19)
    cases = []
    for _ in range(60):
        cfg = rng.choice([WAN_14B, WAN_1_3B])
        req = VideoRequest(
            width=rng.choice([832, 1280, 480, 720]),
            height=rng.choice([480, 720, 832]),
            frames=rng.choice([1, 17, 33, 81, 121]),
            steps=rng.choice([20, 30, 50]),
            guidance=rng.random() < 0.7,
            offload_model=rng.random() < 0.5,
            t5_cpu=rng.random() < 0.5,
        )
        cases.append((cfg, req, rng.choice([125.0, 312.0, 989.0]), rng.choice([1, 2, 3, 4, 8])))
    path = REPO / "docs" / "javascripts" / "engine" / "video.js"
    payload = {
        "rules": {"speed": {"video": RULES.speed.video.model_dump()}},
        "cases": [[asdict(c), asdict(r), p, n] for c, r, p, n in cases],
    }
    got = subprocess.run(
        [NODE, "--input-type=module", "-e", RUNNER % json.dumps(path.as_uri())],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    js = json.loads(got.stdout)
    assert len(js) == len(cases)
    for (cfg, req, peak, n), out in zip(cases, js, strict=True):
        g = video.geometry(req, K)
        s = video.seconds_per_video(cfg, req, K, peak, video.sp_scaling(RULES, n) or 1.0, n)
        m = video.memory(cfg, req, K, n)
        assert out["tokens"] == g.tokens, req
        rs = video.reasons(cfg, req, K, s, m, video.sp_scaling(RULES, n) or 1.0, "¥1.00", "¥2.00")
        assert out["reasons"] == [r.record() for r in rs], req
        assert out["flops"] == pytest.approx(video.flops_per_pass(cfg, g.tokens, K), rel=1e-12), req
        assert out["seconds"] == pytest.approx(s.seconds, rel=1e-12), req
        assert out["tflops"] == pytest.approx(s.tflops, rel=1e-12), req
        assert out["peak"] == pytest.approx(m.peak_gib, rel=1e-12), req
        assert out["text"] == pytest.approx(m.text_gib, rel=1e-12), req
        assert out["decode"] == pytest.approx(m.decode_gib, rel=1e-12), req


def test_calibration_cases_stay_in_band() -> None:
    """docs-dev/calibration/video*.yaml through `gpu-guide calibrate`'s path: the tuning cases within
    2% (the MFU and the scaling were set on them), the held-out RTX 4090 case (README: "about 4
    minutes") within 0.8-1.25."""
    from generator.data.calibration import load_calibration
    from generator.engine.calibration import run

    files, problems = load_calibration(REPO / "docs-dev" / "calibration")
    assert not problems
    results = [r for r in run(files, CAT.gpus, RULES) if r.group == "video"]
    assert {r.held_out for r in results} == {False, True}
    for r in results:
        band = (0.8, 1.25) if r.held_out else (0.98, 1.02)
        assert band[0] <= r.ratio <= band[1], (r.id, r.ratio)


def test_reasons_are_worded_from_the_message_table() -> None:
    """8 cards, 14B 720p: the speed, memory and cost records and their Chinese sentences."""
    from generator.pages.messages import explain

    scaling = video.sp_scaling(RULES, 8) or 0.0
    s = video.seconds_per_video(WAN_14B, P720, K, 312.0, scaling, 8)
    off = VideoRequest(1280, 720, 81, 50, offload_model=True)
    m = video.memory(WAN_14B, off, K, 8)
    rs = video.reasons(WAN_14B, off, K, s, m, scaling, "¥10.00", "¥118.52")
    assert [r.kind.value for r in rs] == ["video_speed", "video_memory", "video_cost"]
    text = [explain(r) for r in rs]
    # 3318.7 s / 7.113 = 466.6 s; attention 117.05 / 163.08 = 72%
    assert "1280×720、81 帧（75,600 个潜空间 token）、50 步" in text[0] and "约 467 秒" in text[0]
    assert "72%" in text[0] and "7.11 倍" in text[0]
    # offloaded: text phase 10.580 + 0.473 + 1 = 12.05 < denoise 26.077 + 2.0908/8 + 0.473 + 1 = 27.81
    assert text[1] == "每张卡显存峰值约 27.8 GiB，出现在去噪（DiT）阶段（DiT 与文本编码器只在各自的阶段放进显卡）"
    assert text[2] == "每段视频租金约 ¥10.00，每分钟成片约 ¥118.52（只计 GPU 租金）"
