"""The 60-second version of the soak test (bench/soak.py): 1,000 concurrent
clients against its own `pagoda serve`, then the issue's end checks (KV cache
empty, nothing running or waiting, RSS within 5% of its value after warm-up,
no 5xx, every request answered as it should be). The script's exit status
carries the checks; this test also makes sure the run really exercised what
it claims to."""

import json
import subprocess
import sys

from conftest import PAGODA_BIN, ROOT

CLIENTS = 1000


def test_soak_60_seconds(tmp_path):
    report_path = tmp_path / "soak.json"
    command = [sys.executable, str(ROOT / "bench/soak.py"), "--duration", "60", "--warmup", "20",
               "--clients", str(CLIENTS), "--report-interval", "10", "--drain-timeout", "10",
               "--pagoda-bin", str(PAGODA_BIN), "--server-log", str(tmp_path / "server.log"),
               "--json", str(report_path)]
    # The bound only stops a hung run: start-up, 60 s, a 10 s drain, a 60 s idle wait, a 60 s shutdown.
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr[-5000:]}"
    report = json.loads(report_path.read_text())
    checks = {c["name"]: c["passed"] for c in report["checks"]}
    assert all(checks.values()), checks
    assert {"KV cache usage is 0", "no request running", "no 5xx", "server exits 0 on SIGTERM"} <= set(checks)
    totals = report["totals"]
    # The mix happened: answers, refusals of malformed requests, client hang-ups.
    assert totals.get("ok", 0) > 0 and totals.get("rejected", 0) > 0 and totals.get("disconnected", 0) > 0, totals
    # The server held (nearly) every client's request at once: full concurrency.
    assert report["peak_running_plus_waiting"] >= 0.9 * CLIENTS, report["peak_running_plus_waiting"]
