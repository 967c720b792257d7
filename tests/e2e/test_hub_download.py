"""Model ids downloaded from the Hugging Face Hub into its cache layout, as
huggingface_hub does, tested against a local stand-in for the Hub's file
endpoints (hub_stand_in.py): this machine has no route to the Hub. A cut
connection is resumed with a Range request, a wrong checksum is refused,
HF_TOKEN is sent, and an unreachable Hub is named with the cache path looked
at."""

import os
import subprocess

import httpx

from conftest import PAGODA_BIN, ROOT, Server
from hub_stand_in import COMMIT, HubStandIn

TINY = ROOT / "tests/fixtures/hf_models/qwen2-bf16"
REPO = "tiny-org/tiny-qwen2"


def hub_env(tmp_path, endpoint: str, **extra) -> dict:
    return {"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_TOKEN": "", **extra}


def serve_exit(tmp_path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([str(PAGODA_BIN), "serve", "--port", "0", REPO, "--kv-cache-memory", "16MiB"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, **env})


def test_download_resumes_a_cut_connection_then_serves_from_the_cache(tmp_path):
    hub = HubStandIn(REPO, TINY, cut="model.safetensors", token="secret-token")
    try:
        s = Server(tmp_path, REPO, "--kv-cache-memory", "16MiB", env=hub_env(tmp_path, hub.url, HF_TOKEN="secret-token"))
        try:
            s.wait_ready()
            r = httpx.post(s.url + "/v1/completions", json={"prompt": [1, 2, 3], "max_tokens": 2}, timeout=60)
            assert r.status_code == 200, r.text
            assert "Resuming model.safetensors at byte" in s.log()
        finally:
            assert s.stop() == 0, s.log()
    finally:
        hub.close()
    ranged = [(m, p, rng) for m, p, rng in hub.requests if p.endswith("/model.safetensors") and rng]
    assert ranged, hub.requests  # the second GET asked for the rest only
    repo = tmp_path / "hub" / "models--tiny-org--tiny-qwen2"
    assert (repo / "refs" / "main").read_text() == COMMIT
    snapshot = repo / "snapshots" / COMMIT
    for f in TINY.iterdir():
        assert (snapshot / f.name).is_symlink() and (snapshot / f.name).read_bytes() == f.read_bytes()
    assert not (snapshot / "README.md").exists()  # only what a model needs
    assert not list((repo / "blobs").glob("*.incomplete"))

    # The Hub gone, the cache serves.
    s = Server(tmp_path, REPO, "--kv-cache-memory", "16MiB", env=hub_env(tmp_path, "http://127.0.0.1:1"))
    try:
        s.wait_ready()
    finally:
        assert s.stop() == 0, s.log()


def test_a_wrong_checksum_is_refused_and_removed(tmp_path):
    hub = HubStandIn(REPO, TINY, corrupt="model.safetensors")
    try:
        r = serve_exit(tmp_path, hub_env(tmp_path, hub.url))
    finally:
        hub.close()
    assert r.returncode != 0
    assert "model.safetensors does not match its checksum" in r.stderr
    repo = tmp_path / "hub" / "models--tiny-org--tiny-qwen2"
    assert not list((repo / "blobs").glob("*.incomplete"))


def test_a_missing_token_and_an_unreachable_hub_are_named(tmp_path):
    hub = HubStandIn(REPO, TINY, token="secret-token")
    try:
        r = serve_exit(tmp_path, hub_env(tmp_path, hub.url))
    finally:
        hub.close()
    assert r.returncode != 0 and "HF_TOKEN" in r.stderr

    r = serve_exit(tmp_path, hub_env(tmp_path, "http://127.0.0.1:1"))
    assert r.returncode != 0
    assert "cannot be reached" in r.stderr
    assert str(tmp_path / "hub" / "models--tiny-org--tiny-qwen2" / "refs" / "main") in r.stderr

    r = serve_exit(tmp_path, hub_env(tmp_path, "http://127.0.0.1:1", HF_HUB_OFFLINE="1"))
    assert r.returncode != 0 and "HF_HUB_OFFLINE" in r.stderr
