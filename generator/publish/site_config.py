"""Site settings an operator sets once, in ``mkdocs.yml``, and the checks on them.

``site_url`` is the public address (canonical links, JSON-LD, sitemap, robots.txt); a
production build refuses the placeholder domain, a local build warns. Under
``extra.operator`` an operator may set the ICP 备案 number shown in the footer, one
analytics script (loaded ``async``, so it never blocks rendering) and a contact line
with a link. ``!ENV`` values are read the way MkDocs reads them; a variable that is not
set is an error, never a silent fallback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from generator.data.problems import Problem, Severity

#: Hosts that mark an address as a placeholder (RFC 2606 names and local ones).
PLACEHOLDER_HOSTS = ("example.com", "example.org", "example.net", "localhost", "127.0.0.1")
#: 备案号 as the MIIT register prints it, e.g. 京ICP备12345678号-1.
ICP_PATTERN = re.compile(r"^[\u4e00-\u9fff]{1,2}ICP备\d{6,12}号(-\d{1,3})?$")


@dataclass(frozen=True)
class SiteSettings:
    """What the generator and the theme need from ``mkdocs.yml``."""

    site_url: str
    icp: str | None = None
    analytics_script: str | None = None
    contact_text: str | None = None
    contact_url: str | None = None

    @property
    def is_placeholder(self) -> bool:
        host = (urlsplit(self.site_url).hostname or "").lower()
        return any(host == h or host.endswith("." + h) for h in PLACEHOLDER_HOSTS)


def _line_of(text: str, key: str) -> int:
    """Line of ``key:`` in the config (1 when absent), for messages."""
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith(f"{key}:"):
            return i
    return 1


def read_site_settings(config: Path, *, production: bool) -> tuple[SiteSettings | None, list[Problem]]:
    """Read and check the settings; returns (settings or None, problems)."""
    from mkdocs.utils.yaml import yaml_load

    name = config.name
    try:
        text = config.read_text(encoding="utf-8")
        raw: Any = yaml_load(text)
    except OSError as exc:
        return None, [Problem(name, 1, 1, "", f"cannot read the MkDocs config: {exc.strerror or exc}")]
    except Exception as exc:
        return None, [Problem(name, 1, 1, "", f"the MkDocs config does not parse: {exc}")]
    if not isinstance(raw, dict):
        return None, [Problem(name, 1, 1, "", "the MkDocs config must be a mapping")]
    return check_settings(raw, text, name, production=production)


#: What ``site_url`` may be: the characters an address needs, none that HTML or JSON treats specially.
_PLAIN_SITE_URL = re.compile(
    r"https?://[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~%/-]*)?"
)


def check_settings(
    raw: dict[str, Any], text: str, name: str, *, production: bool
) -> tuple[SiteSettings | None, list[Problem]]:
    """The checks shared by ``gpu-guide build`` and the MkDocs plugin."""
    problems: list[Problem] = []

    def problem(key: str, path: str, message: str, severity: Severity = Severity.error) -> None:
        problems.append(Problem(name, _line_of(text, key), 1, path, message, severity))

    url = raw.get("site_url")
    if url is None:
        problem(
            "site_url",
            "site_url",
            "is not set (or names an unset !ENV variable); set the site's public https:// address",
        )
        return None, problems
    parts = urlsplit(str(url))
    if not isinstance(url, str) or parts.scheme not in ("http", "https") or not parts.hostname:
        problem("site_url", "site_url", f"must be a full http(s) address such as https://gpu.example.cn/, got {url!r}")
        return None, problems
    if not _PLAIN_SITE_URL.fullmatch(url):
        # It lands in every page's canonical link and JSON-LD: a quote or '<' would end the attribute.
        problem(
            "site_url",
            "site_url",
            "must be a plain address: scheme, host, optional port and a path of letters, digits and . - _ ~ % /, "
            f"with no quotes, spaces, <, >, query or fragment; got {url!r}",
        )
        return None, problems
    extra = raw.get("extra") or {}
    operator = extra.get("operator") or {} if isinstance(extra, dict) else {}
    if not isinstance(operator, dict):
        problem("operator", "extra.operator", "must be a mapping of icp, analytics_script, contact_text, contact_url")
        operator = {}
    known = {"icp", "analytics_script", "contact_text", "contact_url"}
    for key in sorted(set(operator) - known):
        problem(key, f"extra.operator.{key}", f"unknown setting; allowed: {', '.join(sorted(known))}")

    def text_setting(key: str) -> str | None:
        value = operator.get(key)
        if value in (None, ""):
            return None
        if not isinstance(value, str):
            problem(key, f"extra.operator.{key}", f"expected text, got {value!r}")
            return None
        return value.strip()

    icp = text_setting("icp")
    if icp and not ICP_PATTERN.match(icp):
        problem("icp", "extra.operator.icp", f"{icp!r} does not look like a 备案号 such as 京ICP备12345678号-1")
    script = text_setting("analytics_script")
    if script and urlsplit(script).scheme != "https":
        problem("analytics_script", "extra.operator.analytics_script", "must be an https:// script address")
    contact_url = text_setting("contact_url")
    if contact_url and urlsplit(contact_url).scheme not in ("https", "http", "mailto", "tel"):
        problem("contact_url", "extra.operator.contact_url", "must be an http(s), mailto: or tel: link")
    settings = SiteSettings(str(url), icp, script, text_setting("contact_text"), contact_url)
    if settings.is_placeholder:
        if production:
            problem("site_url", "site_url", f"{url} is a placeholder; a production build needs the real domain")
        else:
            problem(
                "site_url",
                "site_url",
                f"{url} is a placeholder: fine for a local build, refused by `gpu-guide build --production`",
                Severity.warning,
            )
    if any(p.severity is Severity.error for p in problems):
        return None, problems
    return settings, problems
