"""``gpu-guide deploy``: publish site/ to S3-compatible object storage (阿里云 OSS, 腾讯云 COS, AWS S3).

GitHub Pages is slow or unreachable from many networks in mainland China and cannot carry an
ICP-filed domain; Chinese sites are served from object storage behind a CDN. This uploads the
built site under one key prefix of one bucket:

* only files whose bytes changed: each object's ETag (the MD5 of its body, for single-part
  uploads, on all three services) is compared with the MD5 of what would be uploaded;
* text files (HTML, CSS, JS, JSON, SVG, XML, CSV, TXT) gzip-compressed, deterministically
  (no timestamp in the gzip header, so an unchanged file keeps its ETag), with
  ``Content-Encoding: gzip``; Pagefind's chunks are compressed already and go as they are;
* ``Content-Type`` by file type (UTF-8 for text), and ``Cache-Control``: a year, immutable,
  for files whose name carries a hash of their content (Material's assets, Pagefind's
  chunks), five minutes for everything else (pages, unhashed scripts, the search entry file);
* objects under the prefix that the site no longer has are deleted;
* nothing outside the prefix is listed, written or deleted: keys are ``PREFIX/path``, and
  the listing asks for ``PREFIX/`` (so ``site`` never matches ``site-old/``).

Upload order: hashed assets first, pages last, deletions after everything is up, so a reader
never gets a page that names an asset not yet uploaded.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Compressed before upload (served with Content-Encoding: gzip).
TEXT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json; charset=utf-8",
    ".svg": "image/svg+xml; charset=utf-8",
    ".xml": "application/xml; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".map": "application/json; charset=utf-8",
}
#: Sent as they are.
BINARY_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".wasm": "application/wasm",
    ".gz": "application/gzip",
}
LONG = "public, max-age=31536000, immutable"
SHORT = "public, max-age=300"

#: Names that carry a hash of their content: Material's ``bundle.a5f9d56c.min.js``, Pagefind's
#: ``zh_4bfb0d59ea.pf_fragment`` and ``pagefind.zh_4bfb0d59ea.pf_meta``.
_HASHED = re.compile(r"\.[0-9a-f]{8,}\.|_[0-9a-f]{7,}\.pf_[a-z]+$")


class DeployError(Exception):
    """A bad target, or the storage refused a request."""


@dataclass(frozen=True)
class Target:
    bucket: str
    prefix: str  #: without slashes at either end; "" for the whole bucket

    def key(self, path: str) -> str:
        return f"{self.prefix}/{path}" if self.prefix else path

    def path(self, key: str) -> str:
        return key[len(self.prefix) + 1 :] if self.prefix else key


def parse_target(url: str) -> Target:
    """``s3://bucket/prefix`` as a Target; the prefix may be empty (the whole bucket)."""
    m = re.fullmatch(r"s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:/(.*))?", url)
    if not m:
        raise DeployError(
            f"--to must be s3://BUCKET/PREFIX (bucket: lower-case letters, digits, dots, dashes); got {url!r}"
        )
    prefix = (m.group(2) or "").rstrip("/")
    parts = prefix.split("/") if prefix else []
    if any(p in ("", ".", "..") for p in parts):
        raise DeployError(f"--to: the prefix {prefix!r} has an empty, '.' or '..' part")
    return Target(m.group(1), prefix)


@dataclass(frozen=True)
class Upload:
    """One file as it will be stored."""

    path: str  #: relative to the site, with /
    body: bytes
    content_type: str
    content_encoding: str | None
    cache_control: str

    @property
    def md5(self) -> str:
        return hashlib.md5(self.body, usedforsecurity=False).hexdigest()


def prepare(site: Path, path: Path) -> Upload:
    """How one file of the site is stored: its body (compressed or not) and headers."""
    rel = path.relative_to(site).as_posix()
    raw = path.read_bytes()
    suffix = path.suffix.lower()
    cache = LONG if _HASHED.search(path.name) else SHORT
    if suffix in TEXT_TYPES:
        return Upload(rel, gzip.compress(raw, 9, mtime=0), TEXT_TYPES[suffix], "gzip", cache)
    return Upload(rel, raw, BINARY_TYPES.get(suffix, "application/octet-stream"), None, cache)


def local_files(site: Path) -> list[Upload]:
    """Every file of the built site, hashed assets first and pages last (see the module doc)."""
    found = []
    for p in sorted(site.rglob("*")):
        if p.is_symlink():
            raise DeployError(f"{p}: a symbolic link in the site; deploy uploads plain files only")
        if p.is_file():
            found.append(prepare(site, p))
    return sorted(found, key=lambda u: (u.cache_control != LONG, u.path.endswith(".html"), u.path))


@dataclass(frozen=True)
class Summary:
    uploaded: list[str]
    unchanged: int
    deleted: list[str]


def remote_etags(client: Any, target: Target) -> dict[str, str]:
    """Path -> ETag of every object under the prefix (and only there)."""
    out: dict[str, str] = {}
    listing = {"Bucket": target.bucket, "Prefix": target.key("")}
    for page in client.get_paginator("list_objects_v2").paginate(**listing):
        for obj in page.get("Contents", []):
            key = str(obj["Key"])
            if target.prefix and not key.startswith(target.prefix + "/"):
                continue  # never trust a listing to stay inside the prefix
            out[target.path(key)] = str(obj.get("ETag", "")).strip('"')
    return out


def deploy(site: Path, target: Target, client: Any, *, say: Callable[[str], None], dry_run: bool = False) -> Summary:
    """Make the objects under ``target`` match ``site``: upload what changed, delete what is gone.
    ``say`` gets the one-line summary of what was done (the command line prints it)."""
    if not (site / "index.html").is_file():
        raise DeployError(f"{site}: no index.html; run `gpu-guide build --production` first")
    files = local_files(site)
    try:
        remote = remote_etags(client, target)
        uploaded = []
        for up in files:
            if remote.get(up.path) == up.md5:
                continue
            uploaded.append(up.path)
            if dry_run:
                continue
            extra = {"ContentEncoding": up.content_encoding} if up.content_encoding else {}
            client.put_object(
                Bucket=target.bucket,
                Key=target.key(up.path),
                Body=up.body,
                ContentType=up.content_type,
                CacheControl=up.cache_control,
                ContentMD5=_b64md5(up.body),
                **extra,
            )
        present = {u.path for u in files}
        gone = sorted(p for p in remote if p not in present)
        if not dry_run:
            for chunk in _chunks(gone, 1000):
                client.delete_objects(
                    Bucket=target.bucket,
                    Delete={"Objects": [{"Key": target.key(p)} for p in chunk], "Quiet": True},
                )
    except DeployError:
        raise
    except Exception as exc:  # botocore's ClientError, EndpointConnectionError, NoCredentialsError, …
        raise DeployError(f"storage: {type(exc).__name__}: {exc}") from None
    verb = "would upload" if dry_run else "uploaded"
    say(f"{verb} {len(uploaded)}, unchanged {len(files) - len(uploaded)}, "
        f"{'would delete' if dry_run else 'deleted'} {len(gone)} under s3://{target.bucket}/{target.prefix}")  # fmt: skip
    return Summary(uploaded, len(files) - len(uploaded), gone)


def _b64md5(body: bytes) -> str:
    import base64

    return base64.b64encode(hashlib.md5(body, usedforsecurity=False).digest()).decode("ascii")


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def s3_client(
    endpoint: str | None,
    region: str | None,
    access_key: str | None,
    secret_key: str | None,
    *,
    path_style: bool = False,
) -> Any:
    """A boto3 S3 client for the endpoint: virtual-host addressing (OSS and COS require it) unless
    ``path_style`` (local test servers). Keys not given: boto3's own lookup."""
    try:
        import boto3
        from botocore.config import Config
    except ImportError:
        raise DeployError("deploy needs boto3: pip install -e '.[deploy]'") from None
    config = Config(s3={"addressing_style": "path" if path_style else "virtual"},
                    retries={"max_attempts": 5, "mode": "standard"})  # fmt: skip
    return boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint,
        region_name=region or "us-east-1",
        aws_access_key_id=access_key,
        aws_secret_access_key=secret_key,
        config=config,
    )
