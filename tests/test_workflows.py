"""GitHub Actions workflows parse and run the steps the project relies on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

WORKFLOWS = Path(__file__).resolve().parent.parent / ".github" / "workflows"


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as true; GitHub reads it as "on".
    data["on"] = data.pop(True, data.get("on"))
    return data


def steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for job in workflow["jobs"].values() for s in job.get("steps", [])]


def uses(workflow: dict[str, Any]) -> list[str]:
    return [s["uses"] for s in steps(workflow) if "uses" in s]


def runs(workflow: dict[str, Any]) -> str:
    return "\n".join(s.get("run", "") for s in steps(workflow))


def test_pr_workflow_tests_checks_and_comments_the_diff() -> None:
    wf = load("pr.yml")
    assert "pull_request" in wf["on"]
    assert wf["permissions"]["pull-requests"] == "write"
    checkout = next(s for s in steps(wf) if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    python = next(s for s in steps(wf) if s.get("uses", "").startswith("actions/setup-python@"))
    assert python["with"]["python-version"] == "3.11"
    script = runs(wf)
    assert "python -m playwright install --with-deps chromium" in script
    tests = next(s for s in steps(wf) if s.get("run", "").strip() == "make test")
    assert tests["env"]["GPU_GUIDE_CHROMIUM"] == "bundled"
    order = [script.index(cmd) for cmd in (
        "make lint", "make test", ".venv/bin/gpu-guide check --strict",
        ".venv/bin/gpu-guide diff --base origin/${{ github.base_ref }} > report.md",
    )]  # fmt: skip
    assert order == sorted(order)
    comment = next(s for s in steps(wf) if s.get("uses", "").startswith("marocchino/sticky-pull-request-comment@"))
    assert comment["with"]["path"] == "report.md"


def test_deploy_workflow_builds_and_publishes_site() -> None:
    wf = load("deploy.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    assert wf["permissions"]["pages"] == "write" and wf["permissions"]["id-token"] == "write"
    assert ".venv/bin/gpu-guide build --production" in runs(wf)
    upload = next(s for s in steps(wf) if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"].rstrip("/") == "site"
    assert any(u.startswith("actions/deploy-pages@") for u in uses(wf))


def test_s3_workflow_builds_and_deploys_with_its_settings() -> None:
    wf = load("deploy-s3.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    assert wf["permissions"] == {"contents": "read"}
    script = runs(wf)
    assert ".venv/bin/gpu-guide build --production" in script
    assert '.venv/bin/gpu-guide deploy --to "${{ vars.S3_TARGET }}"' in script
    assert "--endpoint" in script and "'.[deploy]'" in script
    step = next(s for s in steps(wf) if "gpu-guide deploy" in s.get("run", ""))
    assert step["env"]["AWS_SECRET_ACCESS_KEY"] == "${{ secrets.S3_SECRET_ACCESS_KEY }}"
    assert all(job["if"] == "${{ vars.S3_TARGET != '' }}" for job in wf["jobs"].values())


def test_actions_are_pinned_to_a_major_version() -> None:
    for name in ("pr.yml", "deploy.yml", "deploy-s3.yml"):
        for ref in uses(load(name)):
            assert ref.rsplit("@", 1)[1].startswith("v"), ref
