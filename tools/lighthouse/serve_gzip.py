"""Serve a built site the way a static host with compression does (for `make lighthouse`).

Text files (HTML, CSS, JS, JSON, SVG, XML) go gzip-compressed with ``Content-Encoding: gzip``
when the browser accepts it; directory URLs serve their index.html. Usage:
``python tools/lighthouse/serve_gzip.py SITE_DIR PORT``.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import sys
from pathlib import Path

TEXT = {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".csv"}


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix in TEXT and path.is_file() and "gzip" in self.headers.get("Accept-Encoding", ""):
            body = gzip.compress(path.read_bytes(), 6, mtime=0)
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(str(path)))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "public, max-age=300")
            self.end_headers()
            import io

            return io.BytesIO(body)
        return super().send_head()


if __name__ == "__main__":
    site, port = sys.argv[1], int(sys.argv[2])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=site))
    server.serve_forever()
