"""``gpu-guide deploy`` against a local S3-compatible server (moto in server mode on 127.0.0.1)."""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.cli.serve import free_port
from generator.publish.deploy import LONG, SHORT, DeployError, deploy, parse_target, s3_client

REPO = Path(__file__).resolve().parent.parent
KEYS = ("testing-key", "testing-secret")


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture
def bucket(endpoint: str, request: pytest.FixtureRequest) -> tuple[Any, str]:
    client = s3_client(endpoint, "us-east-1", *KEYS, path_style=True)
    name = "site-" + hashlib.md5(request.node.name.encode()).hexdigest()[:10]
    client.create_bucket(Bucket=name)
    # Neighbours that deploy must never touch: another prefix, a sibling whose name starts alike, the root.
    for key in ("other/keep.html", "www-old/index.html", "root.txt"):
        client.put_object(Bucket=name, Key=key, Body=b"keep")
    return client, name


@pytest.fixture
def site(built_mini: Path, tmp_path: Path) -> Path:
    out = tmp_path / "site"
    shutil.copytree(built_mini / "site", out)
    return out


def objects(client: Any, name: str) -> dict[str, str]:
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=name)
    return {o["Key"]: o["ETag"].strip('"') for p in pages for o in p.get("Contents", [])}


def quiet(_: str) -> None:
    pass


def test_first_upload_puts_every_file_with_its_headers(bucket: tuple[Any, str], site: Path) -> None:
    client, name = bucket
    summary = deploy(site, parse_target(f"s3://{name}/www"), client, say=quiet)
    files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assert sorted(summary.uploaded) == files and summary.deleted == []
    stored = objects(client, name)
    assert {k for k in stored if k.startswith("www/")} == {f"www/{f}" for f in files}

    page = client.get_object(Bucket=name, Key="www/index.html")
    assert page["ContentType"] == "text/html; charset=utf-8"
    assert page["ContentEncoding"] == "gzip" and page["CacheControl"] == SHORT
    assert gzip.decompress(page["Body"].read()) == (site / "index.html").read_bytes()

    asset = next(f for f in files if f.startswith("assets/javascripts/bundle.") and f.endswith(".min.js"))
    head = client.head_object(Bucket=name, Key=f"www/{asset}")
    assert head["CacheControl"] == LONG and head["ContentType"].startswith("text/javascript")

    fragment = next(f for f in files if f.startswith("pagefind/fragment/"))
    head = client.head_object(Bucket=name, Key=f"www/{fragment}")
    assert head["CacheControl"] == LONG and "ContentEncoding" not in head  # Pagefind's chunks are gzip already
    entry = client.head_object(Bucket=name, Key="www/pagefind/pagefind-entry.json")
    assert entry["CacheControl"] == SHORT  # unhashed: names the current chunks

    svg = next(f for f in files if f.endswith(".svg"))
    assert client.head_object(Bucket=name, Key=f"www/{svg}")["ContentType"] == "image/svg+xml; charset=utf-8"


def test_a_second_deploy_uploads_only_what_changed_and_deletes_what_is_gone(
    bucket: tuple[Any, str], site: Path
) -> None:
    client, name = bucket
    target = parse_target(f"s3://{name}/www/")
    deploy(site, target, client, say=quiet)
    before = objects(client, name)

    again = deploy(site, target, client, say=quiet)
    assert again.uploaded == [] and again.deleted == [] and objects(client, name) == before

    about = site / "about" / "index.html"
    about.write_text(about.read_text(encoding="utf-8").replace("</body>", "<p>改</p></body>"), encoding="utf-8")
    gone = sorted(p for p in (site / "gpus").iterdir() if p.is_dir())[0]
    shutil.rmtree(gone)
    said: list[str] = []
    third = deploy(site, target, client, say=said.append)
    assert third.uploaded == ["about/index.html"]
    assert third.deleted == [f"gpus/{gone.name}/index.html"]
    assert said == [f"uploaded 1, unchanged {third.unchanged}, deleted 1 under s3://{name}/www"]
    after = objects(client, name)
    assert f"www/gpus/{gone.name}/index.html" not in after
    for key in ("other/keep.html", "www-old/index.html", "root.txt"):
        assert client.get_object(Bucket=name, Key=key)["Body"].read() == b"keep"


def test_dry_run_writes_nothing(bucket: tuple[Any, str], site: Path) -> None:
    client, name = bucket
    before = objects(client, name)
    summary = deploy(site, parse_target(f"s3://{name}/www"), client, dry_run=True, say=quiet)
    assert summary.uploaded and objects(client, name) == before


@pytest.mark.parametrize("url", ["s3://B/x", "https://bucket/x", "s3://bucket/a/../b", "s3://bucket//x", "s3://b"])
def test_bad_targets_are_refused(url: str) -> None:
    with pytest.raises(DeployError):
        parse_target(url)


def test_the_command_line(bucket: tuple[Any, str], site: Path, endpoint: str) -> None:
    client, name = bucket
    env = dict(os.environ, AWS_ACCESS_KEY_ID=KEYS[0], AWS_SECRET_ACCESS_KEY=KEYS[1], PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-m", "generator", "deploy", "--to", f"s3://{name}/cli", "--endpoint", endpoint,
           "--path-style", "--site", str(site)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("uploaded ") and ", deleted 0 under s3://" in done.stdout
    assert client.head_object(Bucket=name, Key="cli/index.html")["ContentEncoding"] == "gzip"
    missing = subprocess.run(cmd[:-1] + [str(site / "nope")], capture_output=True, text=True, env=env, timeout=120, check=False)  # fmt: skip
    assert missing.returncode == 1 and "no index.html" in missing.stderr
