"""A stand-in for the Hugging Face Hub's file endpoints, enough for a model
download: the revision API (`/api/models/<id>/revision/<rev>`) and
`/<id>/resolve/<commit>/<file>` with HEAD, GET and byte ranges. LFS files
(*.safetensors) carry X-Linked-Etag (their SHA-256) and X-Linked-Size, the
others an ETag that is their git blob SHA-1, as the Hub sends them.

Faults for the tests: `cut` names a file whose first GET stops halfway (the
connection closes), `corrupt` a file served with one byte flipped, and
`token` a bearer token every request must carry."""

import hashlib
import http.server
import json
import pathlib
import re
import threading

COMMIT = "89abcdef0123456789abcdef0123456789abcdef"


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class HubStandIn:
    def __init__(self, repo_id: str, files: pathlib.Path, *, cut: str = "", corrupt: str = "", token: str = ""):
        self.repo_id, self.cut, self.corrupt, self.token = repo_id, cut, corrupt, token
        self.files = {p.name: p.read_bytes() for p in sorted(files.iterdir()) if p.is_file()}
        self.requests: list[tuple[str, str, str]] = []  # (method, path, Range header)
        self._cut_done = False
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_HEAD(self):
                stand_in._answer(self, head=True)

            def do_GET(self):
                stand_in._answer(self, head=False)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def _send(self, h, status: int, headers: dict, body: bytes, head: bool):
        h.send_response(status)
        for k, v in headers.items():
            h.send_header(k, str(v))
        h.end_headers()
        if not head:
            h.wfile.write(body)

    def _answer(self, h, head: bool):
        self.requests.append(("HEAD" if head else "GET", h.path, h.headers.get("Range", "")))
        if self.token and h.headers.get("Authorization") != f"Bearer {self.token}":
            return self._send(h, 401, {"Content-Length": 0}, b"", head)
        m = re.fullmatch(r"/api/models/(.+)/revision/([^/]+)", h.path)
        if m and m.group(1) == self.repo_id:
            body = json.dumps({"id": self.repo_id, "sha": COMMIT,
                               "siblings": [{"rfilename": n} for n in [*self.files, "README.md"]]}).encode()
            return self._send(h, 200, {"Content-Type": "application/json", "Content-Length": len(body)}, body, head)
        m = re.fullmatch(r"/(.+)/resolve/([^/]+)/(.+)", h.path)
        if not m or m.group(1) != self.repo_id or m.group(3) not in self.files:
            return self._send(h, 404, {"Content-Length": 0}, b"", head)
        name = m.group(3)
        data = self.files[name]
        headers = {"X-Repo-Commit": COMMIT, "Accept-Ranges": "bytes"}
        if name.endswith(".safetensors"):
            headers["X-Linked-Etag"] = f'"{hashlib.sha256(data).hexdigest()}"'
            headers["X-Linked-Size"] = len(data)
        headers["ETag"] = f'"{git_blob_sha1(data)}"'
        if name == self.corrupt:
            data = bytes([data[0] ^ 1]) + data[1:]
        start = 0
        rng = re.fullmatch(r"bytes=(\d+)-", h.headers.get("Range", ""))
        status = 200
        if rng and not head:
            start, status = int(rng.group(1)), 206
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        body = data[start:]
        headers["Content-Length"] = len(body)
        if name == self.cut and not head and not self._cut_done:
            self._cut_done = True
            h.send_response(status)
            for k, v in headers.items():
                h.send_header(k, str(v))
            h.end_headers()
            h.wfile.write(body[: len(body) // 2])
            h.wfile.flush()
            h.close_connection = True
            h.connection.shutdown(2)
            return
        self._send(h, status, headers, body, head)
