"""The GitHub Actions workflows run commands that exist and do what their steps say.

Each ``run:`` line is split into commands and checked against the project itself: a ``make``
target must be one the Makefile has (``make -n``), a ``gpu-guide`` command line must parse with the
real parser and choose what the step relies on, and ``make check`` must run exactly the gates the
pull-request workflow runs, so a local ``make check`` is the PR's verdict.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import yaml
from conftest import REPO

from generator.cli.main import build_parser
from generator.data.problems import OutputFormat

WORKFLOWS = REPO / ".github" / "workflows"
#: What GitHub substitutes for the expressions the run lines use (a pull request against main).
EXPRESSIONS = {"${{ github.base_ref }}": "main"}


def load(name: str) -> dict[str, Any]:
    data: dict[Any, Any] = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as true; GitHub reads it as "on".
    data["on"] = data.pop(True, data.get("on"))
    return data


def steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for job in workflow["jobs"].values() for s in job.get("steps", [])]


def commands(step: dict[str, Any]) -> list[list[str]]:
    """The commands of a step's ``run`` script, one argv each (``&&`` splits, ``> file`` dropped)."""
    script = step.get("run", "")
    for expr, value in EXPRESSIONS.items():
        script = script.replace(expr, value)
    out: list[list[str]] = []
    for line in script.splitlines():
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            argv, words = words[:cut], words[cut + 1 :]
            if ">" in argv:
                argv = argv[: argv.index(">")]
            out.append(argv)
    return [argv for argv in out if argv]


def make_dry_run(*args: str) -> list[str]:
    """The commands ``make`` would run for ``args`` (fails the test when a target does not exist)."""
    proc = subprocess.run(["make", "-n", "-C", str(REPO), "--no-print-directory", *args],
                          capture_output=True, text=True, check=False, timeout=60)  # fmt: skip
    assert proc.returncode == 0, f"make {' '.join(args)}: {proc.stderr}"
    return [line for line in proc.stdout.splitlines() if line.strip()]


def gpu_guide(argv: list[str]) -> argparse.Namespace:
    """``argv`` (``.venv/bin/gpu-guide ...``) parsed by the real command line."""
    assert Path(argv[0]).name == "gpu-guide", argv
    return build_parser().parse_args(argv[1:])


def check_command(argv: list[str]) -> None:
    """One workflow command is one the project provides."""
    if argv[0] == "make":
        make_dry_run(*argv[1:])
    elif Path(argv[0]).name == "gpu-guide":
        gpu_guide(argv)
    elif argv[0].startswith("tools/"):
        script = REPO / argv[0]
        assert script.is_file() and os.access(script, os.X_OK), f"no executable {argv[0]}"
    elif argv[:3] == [".venv/bin/python", "-m", "playwright"]:
        assert importlib.util.find_spec("playwright") is not None  # a test dependency in pyproject.toml
    else:
        # shell built-ins and control (the scheduled rebuild sets its build date with `if [ ... ]; then export ...`)
        assert argv[0] in {"cat", "echo", "if", "export"}, f"unknown command in a workflow: {argv}"


def test_every_command_the_workflows_run_exists() -> None:
    for name in ("pr.yml", "deploy.yml", "prices.yml"):
        for step in steps(load(name)):
            for argv in commands(step):
                check_command(argv)


def test_make_check_is_the_pull_request_gate() -> None:
    """``make check`` runs the PR's gates, no more and no fewer: each make target the PR runs besides
    the tests, with the same variables."""
    wf = load("pr.yml")
    gates = [argv for s in steps(wf) for argv in commands(s) if argv[0] == "make" and "test" not in argv[1:]]
    gates = [argv for argv in gates if not any(a.startswith(".venv/") for a in argv[1:])]  # the install
    assert [a[1] for a in gates] == ["lint", "data-check"]
    variables = [a for argv in gates for a in argv[2:] if "=" in a]
    pr_commands = {line for argv in gates for line in make_dry_run(*argv[1:])}
    assert set(make_dry_run("check", *variables)) == pr_commands
    # the gates check the tests' types too, and fail on data warnings with annotations on the PR
    assert any("mypy" in line and line.split()[-1] == "tests" for line in pr_commands)
    data_check = next(shlex.split(line) for line in pr_commands if "gpu-guide" in line)
    args = gpu_guide(data_check)
    assert args.command == "check" and args.strict and args.problem_format is OutputFormat.github
    assert gpu_guide(shlex.split(make_dry_run("data-check")[-1])).problem_format is OutputFormat.plain


def test_pr_workflow_runs_gates_then_posts_the_diff_report() -> None:
    wf = load("pr.yml")
    assert "pull_request" in wf["on"]
    assert wf["permissions"]["pull-requests"] == "write"
    all_steps = steps(wf)
    checkout = next(s for s in all_steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0  # `gpu-guide diff` reads the base branch's history
    tests = next(s for s in all_steps if ["make", "test"] in commands(s))
    # conftest reads this choice: Playwright's own Chromium, which the install step downloads
    assert tests["env"]["GPU_GUIDE_CHROMIUM"] == "bundled"
    install = next(s for s in all_steps if any(a[:3] == [".venv/bin/python", "-m", "playwright"] for a in commands(s)))

    def index(match: str) -> int:
        return next(i for i, s in enumerate(all_steps) if any(match in " ".join(a) for a in commands(s)))

    diff_step = next(s for s in all_steps if any(a[1:2] == ["diff"] for a in commands(s) if len(a) > 1))
    diff = next(a for a in commands(diff_step) if a[1:2] == ["diff"])
    assert gpu_guide(diff).base == "origin/main"
    order = [all_steps.index(install), index("make lint"), index("make test"), index("make data-check"),
             all_steps.index(diff_step)]  # fmt: skip
    assert order == sorted(order)
    report = diff_step["run"].split("> ", 1)[1].split()[0]
    comment = next(s for s in all_steps if s.get("uses", "").startswith("marocchino/sticky-pull-request-comment@"))
    assert comment["with"]["path"] == report


def test_deploy_workflow_builds_for_production_and_publishes_site() -> None:
    wf = load("deploy.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    assert wf["permissions"]["pages"] == "write" and wf["permissions"]["id-token"] == "write"
    builds = [gpu_guide(a) for s in steps(wf) for a in commands(s) if Path(a[0]).name == "gpu-guide"]
    assert [(b.command, b.production, b.no_site) for b in builds] == [("build", True, False)]
    upload = next(s for s in steps(wf) if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"].rstrip("/") == "site"  # where `gpu-guide build` writes the site
    assert any(s.get("uses", "").startswith("actions/deploy-pages@") for s in steps(wf))


def test_s3_workflow_builds_and_deploys_with_its_settings() -> None:
    wf = load("deploy-s3.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    assert wf["permissions"] == {"contents": "read"}
    script = "\n".join(s.get("run", "") for s in steps(wf))
    assert ".venv/bin/gpu-guide build --production" in script
    assert '.venv/bin/gpu-guide deploy --to "${{ vars.S3_TARGET }}"' in script
    assert "--endpoint" in script and "'.[deploy]'" in script
    step = next(s for s in steps(wf) if "gpu-guide deploy" in s.get("run", ""))
    assert step["env"]["AWS_SECRET_ACCESS_KEY"] == "${{ secrets.S3_SECRET_ACCESS_KEY }}"
    assert all(job["if"] == "${{ vars.S3_TARGET != '' }}" for job in wf["jobs"].values())


def test_actions_are_pinned_to_a_major_version() -> None:
    for name in ("pr.yml", "deploy.yml", "deploy-s3.yml", "prices.yml"):
        for ref in (s["uses"] for s in steps(load(name)) if "uses" in s):
            assert ref.rsplit("@", 1)[1].startswith("v"), ref


def test_prices_workflow_imports_weekly_and_opens_a_pr_with_the_change_report() -> None:
    wf = load("prices.yml")
    assert "schedule" in wf["on"] and "workflow_dispatch" in wf["on"]
    assert wf["permissions"] == {"contents": "write", "pull-requests": "write"}
    all_steps = steps(wf)
    argvs = [a for s in all_steps for a in commands(s)]
    refresh = next(a for a in argvs if a[0] == "tools/prices-refresh")
    # the script runs `gpu-guide prices import` for each provider: that line parses with the real parser
    script = (REPO / refresh[0]).read_text(encoding="utf-8")
    line = next(ln.strip() for ln in script.splitlines() if ".venv/bin/gpu-guide prices import" in ln)
    cmd = re.search(r"\.venv/bin/gpu-guide prices import .*?--url \"\$url\"", line)
    assert cmd is not None, line
    sample = {"$work/$provider.csv": "lambdalabs.csv", "$day": "2026-11-30", "$url": "https://example.org/c.zip"}
    words = [sample.get(w, w) for w in shlex.split(cmd.group())]
    args = gpu_guide(words)
    assert (args.command, args.prices_command, args.source) == ("prices", "import", "gpuhunt")
    # every provider the workflow fetches is one the mapping file imports
    mapping = yaml.safe_load((REPO / "data" / "imports" / "gpuhunt.yaml").read_text(encoding="utf-8"))
    assert set(refresh[1:]) <= {p["catalog"] for p in mapping["providers"]}
    builds = [gpu_guide(a) for a in argvs if Path(a[0]).name == "gpu-guide" and a[1] == "build"]
    assert [(b.command, b.no_site) for b in builds] == [("build", True)]  # docs/ current in the PR
    diff_step = next(s for s in all_steps if "gpu-guide diff" in s.get("run", ""))
    diff = next(a for a in commands(diff_step) if a[1:2] == ["diff"])
    assert gpu_guide(diff).base == "origin/main"
    report = next(a for a in commands(diff_step) if a[0] == "cat")
    body = diff_step["run"].rsplit("> ", 1)[1].split()[0]
    assert report[1:] == ["import.md", "diff.md"] and diff_step["run"].count("> diff.md") == 1
    pr = next(s for s in all_steps if s.get("uses", "").startswith("peter-evans/create-pull-request@"))
    assert pr["with"]["body-path"] == body
    assert "data/offers.yaml" in pr["with"]["add-paths"].split()
    order = [argvs.index(refresh), argvs.index(next(a for a in argvs if a[1:2] == ["build"])), argvs.index(diff)]
    assert order == sorted(order) and all_steps.index(diff_step) < all_steps.index(pr)
