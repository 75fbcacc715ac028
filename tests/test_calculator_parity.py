"""The calculator's JavaScript engine against the Python engine, on the same inputs.

docs/javascripts/engine/ is a hand-written port of generator/engine and of the command line's
request building. Seeded random inputs, written as the flags of ``gpu-guide recommend``, go to
both: Python parses them with the real argument parser and runs
:func:`generator.cli.workload.recommend_options` (what ``recommend --json`` prints), node reads the
same flags as the calculator's URL query and runs ``engine/workload.js`` over the JSON the page
embeds (:func:`generator.pages.calculator.calculator_data`). Compared for every option: the
ranking order, whether it is excluded and why, the card count, delivery form, offer, memory per
card, monthly cost, job hours and cost, serving concurrency, throughput and cost per million
tokens, and the reasons as records (kind and parameters, nested records too); and the pick. Inputs one side refuses must be refused by
the other. Every mismatch is printed with its input.

Without node the test fails under CI=true (conftest.tools_required) and is skipped elsewhere.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import MINI, REPO, skip_unless_installed

from generator.cli.main import build_parser
from generator.cli.workload import UsageError, recommend_options
from generator.data.catalogue import Catalogue
from generator.data.records import ModelKind
from generator.data.validate import load_catalogue
from generator.engine.recommend import Option, Recommendation
from generator.pages.calculator import calculator_data

NODE = shutil.which("node")
skip_unless_installed(NODE, "node is not installed (CI has it)")

ENGINE = REPO / "docs" / "javascripts" / "engine"

#: Reads {data, cases} on stdin; each case is the query's [key, value] pairs. Prints, per case,
#: {"error": [field, message]} (the form record in words, messages.js) or the options with every number unrounded.
RUNNER = """
import { recommendResult, catalogue } from %s;
import { explain } from %s;
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const { data, cases } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const cat = catalogue(data);
  const out = cases.map((pairs) => {
    const r = recommendResult(data, pairs, cat);
    if (r.errors.length) return { error: [r.errors[0].field, explain(data.messages, data.names.billing, r.errors[0].record, "form")] };
    return {
      pick: r.rec.pick ? r.rec.pick.gpu.id : null,
      options: r.rec.options.map((o) => ({
        gpu: o.gpu.id, excluded: o.excluded, cards: o.cards, delivery: o.delivery,
        cards_billed: o.cards_billed, cards_used: o.cards_used, replicas: o.replicas,
        offer: o.offer ? o.offer.id : null, fallback: o.offer_is_fallback, tentative: o.unconfirmed_support || o.unconfirmed_speed, extrapolated: o.extrapolated_speed,
        per_card_gib: o.sizing.per_card_gib, usable_gib: o.sizing.usable_gib,
        monthly: o.monthly ? o.monthly.total : null, gpu_rent: o.monthly ? o.monthly.gpu_rent : null,
        job_hours: o.job_hours, job_cost: o.job_cost_cny,
        mtok: o.cost_per_mtok_cny, mtok_at_batch: o.cost_per_mtok_at_batch_cny,
        served: o.served_tokens_per_s, decode: o.decode_tokens_per_s,
        images_per_hour: o.images_per_hour, kimage: o.cost_per_kimage_cny,
        concurrency: o.sizing.serving ? o.sizing.serving.at_capacity.concurrency : null,
        runner_ups: o.runner_ups.map((u) => [u.offer.id, u.monthly.total, u.job_cost_cny, u.cost_per_kimage_cny]),
        reasons: o.reasons,
      })),
    };
  });
  process.stdout.write(JSON.stringify(out));
});
"""

#: Relative tolerance for floats: both sides compute in IEEE doubles in the same order; only
#: library pow() and CPython 3.12's compensated sum() can differ, in the last bits.
REL = 1e-9


def run_node(data: dict[str, Any], cases: list[list[tuple[str, str]]]) -> list[dict[str, Any]]:
    assert NODE is not None, "install node (CI has it): the calculator's engine runs in it"
    script = RUNNER % (
        json.dumps((ENGINE / "workload.js").as_uri()),
        json.dumps((ENGINE.parent / "messages.js").as_uri()),
    )
    run = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        input=json.dumps({"data": data, "cases": cases}), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out: list[dict[str, Any]] = json.loads(run.stdout)
    return out


def argv(pairs: list[tuple[str, str]]) -> list[str]:
    """The query's pairs as ``recommend`` arguments: switches (=1) become bare flags."""
    out = ["recommend"]
    for key, value in pairs:
        out += [f"--{key}"] if value == "1" and key in SWITCHES else [f"--{key}", value]
    return out


SWITCHES = {"require-cuda", "no-require-cuda", "domestic-only", "tied-embeddings", "public-ip", "no-public-ip", "grad-checkpointing",
            "no-grad-checkpointing"}  # fmt: skip


def run_python(cat: Catalogue, pairs: list[tuple[str, str]]) -> Recommendation | str:
    """The Recommendation, or the message the command line would print for exit status 2."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv(pairs))
    except SystemExit:
        return "usage error (argparse)"
    try:
        return recommend_options(cat, args)
    except (UsageError, ValueError) as exc:
        return str(exc)


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=REL, abs_tol=1e-12)


def compare(py: Option, js: dict[str, Any]) -> list[str]:
    """What differs between one Python option and the JavaScript one at the same rank."""
    bad = []

    def same(name: str, a: Any, b: Any) -> None:
        if a != b:
            bad.append(f"{name}: python {a!r} != js {b!r}")

    def near(name: str, a: float | None, b: float | None) -> None:
        if not close(a, b):
            bad.append(f"{name}: python {a!r} != js {b!r}")

    same("gpu", py.gpu.id, js["gpu"])
    same("excluded", py.excluded.record() if py.excluded else None, js["excluded"])  # typed: {kind, params}
    same("cards", py.cards, js["cards"])
    same("cards_billed", py.cards_billed, js["cards_billed"])
    same("cards_used", py.cards_used, js["cards_used"])
    same("replicas", py.replicas, js["replicas"])
    same("delivery", py.delivery.value, js["delivery"])
    same("offer", py.offer.id if py.offer else None, js["offer"])
    same("fallback", py.offer_is_fallback, js["fallback"])
    same("tentative", py.tentative, js["tentative"])
    same("extrapolated", py.extrapolated_speed, js["extrapolated"])
    near("per_card_gib", py.sizing.per_card_gib, js["per_card_gib"])
    near("usable_gib", py.sizing.usable_gib, js["usable_gib"])
    near("monthly", py.monthly.total if py.monthly else None, js["monthly"])
    near("gpu_rent", py.monthly.gpu_rent if py.monthly else None, js["gpu_rent"])
    near("job_hours", py.job_hours, js["job_hours"])
    near("job_cost", py.job_cost_cny, js["job_cost"])
    near("cost_per_mtok", py.cost_per_mtok_cny, js["mtok"])
    near("cost_per_mtok_at_batch", py.cost_per_mtok_at_batch_cny, js["mtok_at_batch"])
    near("served_tokens_per_s", py.served_tokens_per_s, js["served"])
    near("decode_tokens_per_s", py.decode_tokens_per_s, js["decode"])
    near("images_per_hour", py.images_per_hour, js["images_per_hour"])
    near("cost_per_kimage", py.cost_per_kimage_cny, js["kimage"])
    serving = py.sizing.serving
    same("concurrency", serving.at_capacity.concurrency if serving else None, js["concurrency"])
    same("runner_ups", [u.offer.id for u in py.runner_ups], [u[0] for u in js["runner_ups"]])
    for u, (_, monthly, job, kimage) in zip(py.runner_ups, js["runner_ups"], strict=False):
        near(f"runner-up {u.offer.id} monthly", u.monthly.total, monthly)
        near(f"runner-up {u.offer.id} job", u.job_cost_cny, job)
        near(f"runner-up {u.offer.id} per 1,000 images", u.cost_per_kimage_cny, kimage)
    same("reasons", [r.record() for r in py.reasons], js["reasons"])  # typed: {kind, params}, nested records too
    return bad


# --------------------------------------------------------------------------- random inputs


@dataclass(frozen=True)
class Draw:
    """What the random inputs may name: the catalogue's models and billing tiers."""

    llms: list[str]
    images: list[str]
    tiers: list[str]
    #: Each language model's max_context (models.yaml): the drawn lengths stay within it, so the inputs
    #: stay valid (a longer context is refused: REFUSED and test_a_context_past_the_models_limit_is_refused).
    limits: dict[str, int]


def draw(rng: random.Random, d: Draw) -> list[tuple[str, str]]:
    """One valid calculator state, as the ordered query pairs the calculator would write."""
    q: list[tuple[str, str]] = []

    def maybe(p: float) -> bool:
        return rng.random() < p

    def num(value: float) -> str:
        return str(int(value)) if float(value).is_integer() else repr(float(value))

    image = bool(d.images) and maybe(0.12)
    workload = "inference" if image else rng.choice(["inference"] * 4 + ["lora", "qlora", "full", "pretrain"] * 2)
    q.append(("workload", workload))
    if image:
        q.append(("model", rng.choice(d.images)))
        q.append(("precision", rng.choice(["fp16", "bf16", "fp32", "fp8"])))
        if maybe(0.6):
            q.append(("resolution", str(rng.choice([512, 768, 1024, 1536, 2048]))))
        if maybe(0.5):
            q.append(("offload", rng.choice(["none", "model"])))
        if maybe(0.5):
            q.append(("batch", str(rng.randint(1, 8))))
        if maybe(0.5):
            q.append(("steps", str(rng.choice([1, 4, 20, 28, 30, 50, 1000]))))
        if maybe(0.5):
            q.append(("images-per-month", num(rng.choice([1, 1000, 33333.3, 1e6, 3e7, 1e10]))))
    else:
        if maybe(0.6):
            q.append(("model", rng.choice(d.llms)))
        else:
            params = round(10 ** rng.uniform(-0.7, 2.9), rng.choice([0, 1, 2]))
            q.append(("params", num(max(params, 0.1))))
            if maybe(0.5):
                hidden = rng.choice([1024, 2048, 2560, 4096, 5120, 8192])
                q.append(("hidden", str(hidden)))
                q.append(("layers", str(rng.randint(8, 96))))
                heads = rng.choice([8, 16, 32, 64])
                q.append(("heads", str(heads)))
                if maybe(0.6):
                    q.append(("kv-heads", str(rng.choice([h for h in (1, 2, 4, 8, 16) if h <= heads]))))
                if maybe(0.5):
                    q.append(("vocab", str(rng.choice([32000, 128256, 151936]))))
                if maybe(0.3):
                    q.append(("intermediate", str(rng.choice([5632, 11008, 14336, 28672]))))
                layers = int(dict(q)["layers"])
                variant = rng.random()
                if variant < 0.12:  # multi-head latent attention (DeepSeek-V2/V3 shapes)
                    q.append(("kv-lora-rank", str(rng.choice([256, 512]))))
                    if maybe(0.8):
                        q.append(("qk-rope-head-dim", "64"))
                elif variant < 0.24:  # sliding-window / chunked layers (Gemma, gpt-oss, Llama 4)
                    q.append(("sliding-window", str(rng.choice([128, 512, 1024, 4096, 8192]))))
                    q.append(("window-layers", str(rng.randint(1, layers))))
                elif variant < 0.32 and layers > 1:  # linear attention (Qwen3-Next)
                    q.append(("linear-layers", str(rng.randint(1, layers - 1))))
                    q.append(("linear-state", str(rng.choice([548864, 65536]))))
            elif maybe(0.3):
                q.append(("layers", str(rng.randint(4, 120))))
            if maybe(0.2):
                experts = rng.choice([4, 8, 16, 64])
                q.append(("experts", str(experts)))
                if maybe(0.6):
                    q.append(("experts-per-token", str(rng.randint(1, min(8, experts)))))
                if maybe(0.6):
                    q.append(("active-params", num(round(params * rng.uniform(0.1, 0.5), 2) or 0.01)))
                if maybe(0.4):
                    q.append(("shared-experts", str(rng.randint(1, 2))))
                layers_given = dict(q).get("layers")
                if layers_given is not None and int(layers_given) > 1 and maybe(0.5):
                    q.append(("dense-layers", str(rng.randint(1, min(3, int(layers_given) - 1)))))
            if maybe(0.15):
                q.append(("tied-embeddings", "1"))
        serving = workload == "inference"
        if serving:
            precision = rng.choice(
                ["bf16", "fp16", "fp8", "int8", "int4", "mxfp4", "q4_k_m", "q8_0", "iq1_s", "fp32", "nf4", "mixed"]
            )
        elif workload in ("full", "pretrain"):
            precision = rng.choice(["mixed", "bf16", "fp16", "fp32"])
        else:
            precision = rng.choice(["bf16", "fp16", "mixed", "fp32", "int8", "int4", "nf4"])
        if precision != "bf16" or maybe(0.1):
            q.append(("precision", precision))
        if serving and maybe(0.15):
            q.append(("kv-precision", rng.choice(["fp8", "fp16", "bf16", "fp32"])))
        if serving and maybe(0.3):
            q.append(("runtime", rng.choice(["vllm", "transformers", "llama.cpp"])))
        if maybe(0.6):
            q.append(("batch", str(rng.choice([1, 2, 4, 8, 16, 32, 64, 256]) if serving else rng.randint(1, 8))))
        lengths = rng.random()
        if serving and lengths < 0.25:
            q.append(("prompt-tokens", str(rng.choice([128, 1000, 3072, 30000]))))
            q.append(("output-tokens", str(rng.choice([64, 512, 1024, 2048]))))
        elif lengths < 0.7:
            context = rng.choice([512, 1024, 2048, 4096, 8192, 32768, 131072])
            q.append(("context", str(context)))
            if serving and maybe(0.3):
                q.append(("output-tokens", str(rng.randint(1, context - 1))))
        if not serving:
            if workload in ("lora", "qlora") and maybe(0.3):
                q.append(("lora-rank", str(rng.choice([4, 8, 64, 256]))))
            if maybe(0.2):
                q.append(("no-grad-checkpointing", "1"))
            if maybe(0.2):
                q.append(("optimizer", rng.choice(["adamw", "adamw-8bit", "sgd"])))
            if maybe(0.3):
                q.append(("zero-stage", str(rng.randint(0, 3))))
            if maybe(0.7):
                q.append(("job-tokens", num(round(10 ** rng.uniform(-2, 3), 3))))
    if maybe(0.5):
        q.append(("hours-per-month", num(rng.choice([1, 8, 100, 200, 333.3, 500, 730, 744]))))
    if maybe(0.3):
        q.append(("disk-gb", num(rng.choice([0, 50, 500, 2000, 10000]))))
    if maybe(0.3):
        q.append(("egress-gb", num(rng.choice([0, 20, 100, 5000]))))
    if maybe(0.15):
        q.append(("no-public-ip", "1"))
    if maybe(0.2):
        q.append(("budget", num(rng.choice([100, 800, 3000, 20000, 150000, 1e6]))))
    if maybe(0.4):
        q.append(rng.choice([("require-cuda", "1"), ("no-require-cuda", "1")]))
    if maybe(0.1):
        q.append(("domestic-only", "1"))
    if maybe(0.25):
        chosen = [t for t in d.tiers if maybe(0.6)] or [d.tiers[0]]
        q.append(("billing", ",".join(chosen)))
    return within_limit(q, d.limits)


def within_limit(q: list[tuple[str, str]], limits: dict[str, int]) -> list[tuple[str, str]]:
    """The query with its lengths cut to the named model's max_context (no draw from the generator, so
    the rest of the random stream is unchanged): --context to the limit, an --output-tokens to below
    it, a --prompt-tokens to what the limit leaves beside the output."""
    pairs = dict(q)
    limit = limits.get(pairs.get("model", ""))
    if limit is None:
        return q
    prompt, output, context = (
        int(pairs[k]) if k in pairs else None for k in ("prompt-tokens", "output-tokens", "context")
    )
    out = dict(pairs)
    if context is not None and context > limit:
        out["context"] = str(limit)
        if output is not None and output >= limit:
            out["output-tokens"] = str(limit - 1)
    if prompt is not None and output is not None and prompt + output > limit:
        out["prompt-tokens"] = str(limit - output)
    return [(k, out[k]) for k, _ in q]


#: Inputs both sides must refuse (a message beside the field; exit status 2).
REFUSED: list[list[tuple[str, str]]] = [
    [("workload", "inference"), ("params", "-7")],
    [("workload", "inference"), ("params", "nan")],
    [("workload", "inference"), ("params", "7"), ("hours-per-month", "745")],
    [("workload", "inference"), ("params", "7"), ("hours-per-month", "0")],
    [("workload", "inference"), ("params", "7"), ("batch", "1.5")],
    [("workload", "inference"), ("params", "7"), ("context", "1")],
    # past the model's max_context (models.yaml): Llama-2-7B's positions stop at 4,096
    [("workload", "inference"), ("model", "llama-2-7b"), ("context", "4097")],
    [("workload", "lora"), ("model", "llama-2-7b"), ("context", "8192")],
    [("workload", "inference"), ("model", "qwen3-8b"), ("prompt-tokens", "40000"), ("output-tokens", "961")],
    [("workload", "inference"), ("params", "7"), ("prompt-tokens", "4096"), ("context", "4096")],
    [("workload", "inference"), ("params", "7"), ("output-tokens", "2048")],
    [("workload", "lora"), ("params", "7"), ("prompt-tokens", "100")],
    [("workload", "full"), ("params", "7"), ("precision", "nf4")],
    [("workload", "pretrain"), ("params", "7"), ("precision", "int4")],
    [("workload", "inference"), ("params", "7"), ("billing", "spot")],
    [("workload", "inference"), ("params", "7"), ("experts-per-token", "2")],
    [("workload", "inference"), ("params", "7"), ("experts", "4"), ("experts-per-token", "8")],
    [("workload", "inference"), ("params", "7"), ("experts", "4"), ("active-params", "9")],
    [("workload", "inference"), ("params", "7"), ("resolution", "512")],
    [("workload", "inference"), ("params", "7"), ("steps", "30")],
    [("workload", "inference"), ("params", "7"), ("images-per-month", "1000")],
    [("workload", "inference"), ("model", "sdxl"), ("steps", "0")],
    [("workload", "inference"), ("model", "sdxl"), ("steps", "2.5")],
    [("workload", "inference"), ("model", "sdxl"), ("images-per-month", "0")],
    [("workload", "inference"), ("model", "no-such-model")],
    [("workload", "lora"), ("params", "7"), ("runtime", "transformers")],
    [("workload", "inference"), ("params", "7"), ("runtime", "tgi")],
    [("workload", "inference"), ("params", "7"), ("disk-gb", "-1")],
    [("workload", "inference"), ("params", "7"), ("budget", "0")],
    [("workload", "inference"), ("params", "7"), ("job-tokens", "1000001")],
    # shapes no model has (issue 23): KV heads above heads, heads not dividing the hidden size, …
    [("workload", "inference"), ("params", "7"), ("heads", "32"), ("kv-heads", "64")],
    [("workload", "inference"), ("params", "7"), ("heads", "32"), ("kv-heads", "12")],
    [("workload", "inference"), ("params", "7"), ("hidden", "4000"), ("heads", "48")],
    [("workload", "inference"), ("params", "7"), ("layers", "32"), ("sliding-window", "4096"), ("window-layers", "40")],
    [("workload", "inference"), ("params", "7"), ("window-layers", "4")],
    [("workload", "inference"), ("params", "7"), ("layers", "32"), ("linear-layers", "32"), ("linear-state", "9")],
    [("workload", "inference"), ("params", "7"), ("linear-layers", "3")],
    [("workload", "inference"), ("params", "7"), ("qk-rope-head-dim", "64")],
    [("workload", "inference"), ("params", "7"), ("dense-layers", "3")],
    [("workload", "inference"), ("params", "70"), ("layers", "4"), ("experts", "8"), ("dense-layers", "4")],
    [("workload", "inference"), ("model", "llama-2-7b"), ("kv-lora-rank", "512")],
]


def models_of(cat: Catalogue) -> Draw:
    return Draw(
        llms=[m.id for m in cat.models.values() if m.kind is ModelKind.llm],
        images=[m.id for m in cat.models.values() if m.kind is ModelKind.diffusion],
        tiers=[t.value for t in cat.rules.prices.pick_billing],
        limits={m.id: m.max_context for m in cat.models.values() if m.kind is ModelKind.llm and m.max_context},
    )


@dataclass(frozen=True)
class Run:
    """Cases and what each engine made of them, in case order."""

    cases: list[list[tuple[str, str]]]
    python: list[Recommendation | str]
    node: list[dict[str, Any]]


def run_both(cat: Catalogue, cases: list[list[tuple[str, str]]]) -> Run:
    """Both engines on every case."""
    node = run_node(calculator_data(cat), cases)
    assert len(node) == len(cases)
    return Run(cases, [run_python(cat, pairs) for pairs in cases], node)


def check(run: Run) -> tuple[list[str], int]:
    """The mismatches between the engines (each with its input), and how many cases ranked."""
    problems: list[str] = []
    ranked = 0
    for pairs, py, js in zip(run.cases, run.python, run.node, strict=True):
        query = "&".join(f"{k}={v}" for k, v in pairs)
        if isinstance(py, str) or "error" in js:
            if not (isinstance(py, str) and "error" in js):
                problems.append(
                    f"{query}: python {py if isinstance(py, str) else 'ranked'}; js {js.get('error', 'ranked')}"
                )
            continue
        ranked += 1
        if [o.gpu.id for o in py.options] != [o["gpu"] for o in js["options"]]:
            problems.append(
                f"{query}: ranking python {[o.gpu.id for o in py.options]} js {[o['gpu'] for o in js['options']]}"
            )
            continue
        pick = py.pick.gpu.id if py.pick else None
        if pick != js["pick"]:
            problems.append(f"{query}: pick python {pick} js {js['pick']}")
        for p, j in zip(py.options, js["options"], strict=True):
            problems += [f"{query}: {p.gpu.id} {b}" for b in compare(p, j)]
    return problems, ranked


@pytest.fixture(scope="module")
def bundled() -> Catalogue:
    cat, problems = load_catalogue(REPO / "data", REPO)
    assert cat is not None, problems
    return cat


@pytest.fixture(scope="module")
def random_run(bundled: Catalogue) -> Run:
    """600 drawn cases through both engines, computed once for the two tests below."""
    rng = random.Random(13)
    return run_both(bundled, [draw(rng, models_of(bundled)) for _ in range(600)])


def test_engines_agree_on_random_inputs(random_run: Run) -> None:
    problems, ranked = check(random_run)
    assert problems == [], "\n".join(problems[:40])
    # The inputs are valid: (almost) every case ranks the GPUs.
    assert ranked >= 590


def test_the_random_inputs_reach_every_branch(random_run: Run) -> None:
    """The drawn cases do exercise what the comparison is for (so the test cannot pass vacuously)."""
    recs = [r for r in random_run.python if not isinstance(r, str)]
    options = [o for r in recs for o in r.options]
    excluded = {o.excluded.kind for o in options if o.excluded}
    assert sum(1 for r in recs if r.pick) > 300
    assert sum(1 for r in recs if r.pick is None) > 10  # empty results too
    assert sum(1 for o in options if o.cards and o.cards > 8) > 50  # pipeline stages beyond one server
    assert sum(1 for o in options if o.job_cost_cny is not None) > 1000
    assert sum(1 for o in options if o.cost_per_mtok_cny is not None) > 1000
    assert sum(1 for o in options if o.cost_per_kimage_cny is not None) > 200  # image plans
    assert sum(1 for o in options if o.cost_per_kimage_cny is not None and o.plan and o.plan.instances > 1) > 20
    assert sum(1 for o in options if o.offer_is_fallback) > 20
    assert sum(1 for o in options if o.offer and o.offer.currency.value == "USD") > 100
    assert sum(1 for o in options if o.monthly and o.monthly.billing.value == "fixed_month") > 20
    assert sum(1 for o in options if o.sizing.serving and o.sizing.serving.capped) > 20
    assert len(excluded) >= 6, excluded
    assert sum(1 for o in options if o.eligible and o.unconfirmed_support) > 5  # gpt-oss MXFP4 on Ada / RTX 5090
    assert sum(1 for o in options if o.eligible and o.unconfirmed_speed) > 20  # serving on a † card
    assert sum(1 for o in options if o.eligible and o.extrapolated_speed) > 5  # tensor parallel on 4090s (no P2P)
    refusals = [o.excluded.params for o in options if o.excluded and o.excluded.kind == "unsupported_format"]
    assert sum(1 for r in refusals if r["format"] == "BF16") > 20  # BF16 jobs on V100/T4 (support.py's refusal)
    below_cc = [r for r in refusals if getattr(r["why"], "kind", None) == "format_below_cc" and r["format"] != "BF16"]
    assert len(below_cc) > 5
    notes = [[str(r.params.get("note", "")) for r in o.reasons] for o in options]
    assert sum(1 for o in notes if any("混合精度按 FP16" in n for n in o)) > 5
    assert sum(1 for o, n in zip(options, notes, strict=True) if any("Marlin" in x for x in n) and o.eligible) > 5
    # --runtime llama.cpp refusing a non-GGUF format
    assert sum(1 for r in refusals if getattr(r["why"], "params", {}).get("runtime") == "llama.cpp") > 5
    for runtime in ("vllm", "transformers", "llama.cpp"):  # each runtime's sizing compared
        assert sum(1 for c in random_run.cases if ("runtime", runtime) in c) > 10, runtime


def test_engines_refuse_the_same_inputs(bundled: Catalogue) -> None:
    got = run_node(calculator_data(bundled), REFUSED)
    for pairs, js in zip(REFUSED, got, strict=True):
        py = run_python(bundled, pairs)
        assert isinstance(py, str), f"python ranked {pairs}"
        assert "error" in js, f"js ranked {pairs}"
        field, message = js["error"]
        assert (
            field in {k for k, _ in pairs} | {"context", "experts", "layers", "linear-state", "kv-lora-rank"}
            and message
        ), (
            pairs,
            js["error"],
        )


#: Jobs a deadline pushes onto many servers: A100 plans beyond the 2,048 cards Ampere's MFU holds on
#: cross the provider's fabric with a discount (rules.yaml measured_gpus, speed.scaling.fabrics).
MULTI_NODE = [
    [("workload", "pretrain"), ("model", "llama-3.1-405b"), ("precision", "mixed"), ("job-tokens", "2000"),
     ("deadline-days", "60")],
    [("workload", "pretrain"), ("model", "llama-3.1-70b"), ("precision", "mixed"), ("job-tokens", "15000"),
     ("deadline-days", "30")],
    [("workload", "full"), ("model", "llama-3.1-8b"), ("precision", "mixed"), ("job-tokens", "2000"),
     ("deadline-days", "2")],
]  # fmt: skip


def test_engines_agree_on_multi_node_plans(bundled: Catalogue) -> None:
    from generator.engine.speed import platform

    run = run_both(bundled, MULTI_NODE)
    problems, ranked = check(run)
    assert problems == [], "\n".join(problems[:40])
    assert ranked == len(MULTI_NODE)
    options = [o for r in run.python if not isinstance(r, str) for o in r.options]
    beyond = [
        o
        for o in options
        if o.plan is not None
        and o.plan.instances > 1
        and o.plan.cards_used > platform(o.gpu, bundled.rules.speed).measured_gpus
    ]
    assert beyond, "no plan crosses nodes beyond its platform's measured cluster"


def test_engines_agree_on_the_mini_fixture(tmp_path: Path) -> None:
    """The fixture's four offers include a per-card price, a range and a bare-metal node."""
    cat, problems = load_catalogue(MINI / "data", MINI)
    if cat is None:  # the fixture borrows the real rules (conftest.make_project)
        from conftest import make_project

        root = make_project(tmp_path)
        cat, problems = load_catalogue(root / "data", root)
    assert cat is not None, problems
    rng = random.Random(7)
    cases = [draw(rng, models_of(cat)) for _ in range(150)]
    found, ranked = check(run_both(cat, cases))
    assert found == [], "\n".join(found[:40])
    assert ranked >= 140


def test_engines_serve_a_low_precision_release_in_its_own_precision(bundled: Catalogue) -> None:
    """Without a precision, both engines serve a model released in FP8 or MXFP4 in its published
    weights (flags.default_precision, workload.js defaultPrecision): the same plans as naming it."""
    released = [m for m in bundled.models.values() if m.checkpoint_precision is not None]
    assert released, "the bundled data has no model with checkpoint_precision"
    bare = [[("workload", "inference"), ("model", m.id)] for m in released]
    named = [[*q, ("precision", str(m.checkpoint_precision))] for q, m in zip(bare, released, strict=True)]
    run = run_both(bundled, bare + named)
    problems, ranked = check(run)
    assert problems == [], "\n".join(problems[:40])
    assert ranked == len(run.cases)
    half = len(bare)
    for m, without, given in zip(released, run.node[:half], run.node[half:], strict=True):
        assert [o["per_card_gib"] for o in without["options"]] == [o["per_card_gib"] for o in given["options"]], m.id


#: Experts-only formats whose other weights are not 16-bit (rules.yaml experts_only_rest_bits): unsloth's
#: dynamic 1.58-bit DeepSeek-R1 under llama.cpp, and gpt-oss's MXFP4 (rest at 16) beside it.
EXPERTS_ONLY = [
    [("workload", "inference"), ("model", "deepseek-r1"), ("precision", "iq1_s"), ("runtime", "llama.cpp")],
    [("workload", "inference"), ("model", "deepseek-r1"), ("precision", "iq1_s"), ("batch", "16"), ("context", "4096")],
    [("workload", "inference"), ("model", "gpt-oss-120b"), ("precision", "mxfp4"), ("runtime", "llama.cpp")],
]  # fmt: skip


def test_engines_agree_on_experts_only_formats(bundled: Catalogue) -> None:
    problems, ranked = check(run_both(bundled, EXPERTS_ONLY))
    assert problems == [], "\n".join(problems[:40])
    assert ranked == len(EXPERTS_ONLY)
