/* Hand-written port of generator/engine/image_speed.py: seconds per image of a diffusion pipeline
 * on one card (denoiser steps × passes × 2·P·T at the dense 16-bit peak × the denoiser's
 * efficiency, plus text encoding and VAE decode), and images per hour. */

const SECONDS_PER_HOUR = 3600;

const DENOISERS = ["unet", "transformer"];

/** steps_of: the request's steps, else the model's default, else rules.defaults.steps. */
export function stepsOf(req, rules) {
  if (req.steps !== null && req.steps !== undefined) return req.steps;
  return req.arch.default_steps || rules.defaults.steps;
}

/** peak_tflops: the dense 16-bit tensor peak the pipeline runs at. */
export function peakTflops(gpu, precision) {
  if (precision === "bf16" && gpu.bf16_tflops_dense !== null) return gpu.bf16_tflops_dense;
  return gpu.fp16_tflops_dense || gpu.bf16_tflops_dense || gpu.fp32_tflops || 0;
}

/** seconds_per_image: one image of `req` on one card of `gpu`. */
export function secondsPerImage(req, gpu, rules) {
  const r = rules.speed.image;
  const parts = req.arch.components;
  const denoiser = parts.find((c) => DENOISERS.includes(c.role));
  const role = denoiser.role;
  const side = req.resolution / (r.latent_downsample * r.token_latents[role]);
  const tokens = side * side + (req.arch.denoiser_text_tokens || 0);
  const steps = stepsOf(req, rules);
  const denoise = steps * req.arch.denoiser_passes * 2 * denoiser.params * tokens;
  let text = 0;
  for (const c of parts) if (c.role === "text_encoder") text += 2 * c.params * r.text_tokens;
  const upcast = req.precision === "fp16" && parts.some((c) => c.fp32_decode_in_fp16);
  const mp = req.resolution * req.resolution / 1e6;
  const vae = r.vae_decode_tflops_per_megapixel * 1e12 * mp * (upcast ? r.fp32_decode_slowdown : 1.0);
  const factor = r.architecture_factor[gpu.architecture];
  const rate = peakTflops(gpu, req.precision) * 1e12 * r.efficiency[role] * (factor === undefined ? 1.0 : factor);
  const total = denoise + text + vae;
  if (rate <= 0) return { steps, seconds: Infinity, denoise_s: Infinity, tflops: total / 1e12, images_per_hour: 0 };
  const seconds = total / rate;
  return { steps, seconds, denoise_s: denoise / rate, tflops: total / 1e12, images_per_hour: SECONDS_PER_HOUR / seconds };
}

/** cost_per_kimage: GPU rent per 1,000 images at `imagesPerHour`. */
export const costPerKimage = (imagesPerHour, hourlyCny) => (imagesPerHour > 0 ? hourlyCny / imagesPerHour * 1000 : Infinity);
