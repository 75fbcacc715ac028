/* Hand-written port of generator/engine/video.py: Wan 2.1 text-to-video latent tokens, DiT FLOPs
 * per pass (linear layers plus attention's T² term), seconds per video at the dense BF16 peak × MFU,
 * and the peak memory of its three phases (text encoding, denoising, VAE decode). */

const GIB = 1024 ** 3;

/** constants: the video constants of `rules` (rules.yaml speed.video). */
export function constants(rules) {
  const v = rules.speed.video;
  return {
    vae_stride_t: v.vae_stride[0], vae_stride_s: v.vae_stride[1], patch_t: v.patch_size[0], patch_s: v.patch_size[1],
    text_tokens: v.text_tokens, mfu: v.mfu, weight_bytes: v.weight_bytes,
    activation_bytes_per_token_width: v.activation_bytes_per_token_width,
    vae_decode_bytes_per_pixel_frame: v.vae_decode_bytes_per_pixel_frame, overhead_gib: v.overhead_gib,
  };
}

/** sp_scaling: speed-up of one video on `cards` cards; null where the table gives none. */
export function spScaling(rules, cards) {
  const s = rules.speed.video.sp_scaling[String(cards)];
  return s === undefined ? null : s;
}

/** geometry: latent frames, rows, columns and the DiT's token count. */
export function geometry(req, k) {
  const lf = 1 + Math.floor((req.frames - 1) / k.vae_stride_t);
  const lh = Math.floor(req.height / k.vae_stride_s);
  const lw = Math.floor(req.width / k.vae_stride_s);
  const tokens = Math.floor(lf / k.patch_t) * Math.floor(lh / k.patch_s) * Math.floor(lw / k.patch_s);
  return { latent_frames: lf, latent_h: lh, latent_w: lw, tokens };
}

/** flops_per_pass: FLOPs of one DiT pass over `tokens` video tokens. */
export function flopsPerPass(cfg, tokens, k) {
  const d = cfg.dim, f = cfg.ffn_dim, n = tokens, t = k.text_tokens;
  const linear = 2 * (6 * d * d + 2 * d * f) * n + 2 * 2 * d * d * t;
  const attention = 4 * n * n * d + 4 * n * t * d;
  return cfg.num_layers * (linear + attention);
}

/** seconds_per_video: denoising time of one video. */
export function secondsPerVideo(cfg, req, k, peakTflops, scaling = 1.0, cards = 1) {
  const g = geometry(req, k);
  const passes = req.guidance === false ? 1 : 2;
  const total = req.steps * passes * flopsPerPass(cfg, g.tokens, k);
  const rate = peakTflops * 1e12 * k.mfu * scaling;
  const seconds = rate > 0 ? total / rate : Infinity;
  return { tflops: total / 1e12, seconds, cards, videos_per_hour: seconds > 0 && Number.isFinite(seconds) ? 3600 / seconds : 0 };
}

/** memory: peak GiB per card per phase. */
export function memory(cfg, req, k, cards = 1) {
  const g = geometry(req, k);
  const dit = cfg.params * k.weight_bytes / GIB;
  const t5 = req.t5_cpu ? 0 : cfg.text_encoder_params * k.weight_bytes / GIB;
  const vae = cfg.vae_params * 4 / GIB;
  const act = g.tokens * cfg.dim * k.activation_bytes_per_token_width / GIB / cards;
  const decode = req.width * req.height * req.frames * k.vae_decode_bytes_per_pixel_frame / GIB;
  const ditIdle = req.offload_model ? 0 : dit;
  const t5Idle = req.offload_model ? 0 : t5;
  const text_gib = t5 + ditIdle + vae + k.overhead_gib;
  const denoise_gib = dit + act + t5Idle + vae + k.overhead_gib;
  const decode_gib = vae + decode + ditIdle + t5Idle + k.overhead_gib;
  return { text_gib, denoise_gib, decode_gib, peak_gib: Math.max(text_gib, denoise_gib, decode_gib) };
}

/** cost_per_video: GPU rent for one video on `cards` cards. */
export const costPerVideo = (seconds, cards, hourly) => (Number.isFinite(seconds) ? hourly * cards * seconds / 3600 : Infinity);

/** cost_per_video_minute: GPU rent per minute of finished video. */
export const costPerVideoMinute = (seconds, cards, hourly, frames, fps) => costPerVideo(seconds, cards, hourly) / (frames / fps / 60);

const phaseOf = (m) => (m.peak_gib === m.text_gib ? "video_phase_text" : m.peak_gib === m.denoise_gib ? "video_phase_denoise" : "video_phase_decode");

function offloadOf(req) {
  if (req.offload_model && req.t5_cpu) return { kind: "video_offload_both", params: {} };
  if (req.offload_model) return { kind: "video_offload_model", params: {} };
  if (req.t5_cpu) return { kind: "video_offload_t5", params: {} };
  return null;
}

const pct = (x) => `${Math.round(x * 100)}%`;

/** reasons: what is said about one video plan, as {kind, params} records (money comes formatted). */
export function reasons(cfg, req, k, s, m, scaling, cost, costPerMinute) {
  const g = geometry(req, k);
  const f = flopsPerPass(cfg, g.tokens, k);
  const share = cfg.num_layers * 4 * g.tokens * g.tokens * cfg.dim / f;
  const speed = {
    width: String(req.width), height: String(req.height), frames: req.frames, tokens: g.tokens, steps: req.steps,
    passes: { kind: req.guidance === false ? "denoise_distilled" : "denoise_cfg", params: {} },
    cards: s.cards, seconds: Math.round(s.seconds).toLocaleString("en-US"), attention_share: pct(share),
  };
  if (s.cards > 1) speed.scaling = scaling.toFixed(2);
  const mem = { peak_gib: m.peak_gib.toFixed(1), phase: { kind: phaseOf(m), params: {} } };
  const off = offloadOf(req);
  if (off !== null) mem.offload = off;
  return [
    { kind: "video_speed", params: speed },
    { kind: "video_memory", params: mem },
    { kind: "video_cost", params: { cost, cost_per_minute: costPerMinute } },
  ];
}
