"""The README's serving examples (curl and the openai SDK) run as written
against a live server, with only the address changed to the test server's."""

import json
import re
import subprocess
import sys

from conftest import ROOT


def serving_section():
    readme = (ROOT / "README.md").read_text()
    return re.search(r"## Serving.*?(?=\n## )", readme, re.S).group(0)


def test_curl_example(server):
    [curl] = re.findall(r"```sh\n(curl .*?)```", serving_section(), re.S)
    command = curl.replace("http://127.0.0.1:8000", server.url)
    out = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300, check=True)
    body = json.loads(out.stdout)
    assert body["object"] == "chat.completion" and body["choices"][0]["message"]["content"]


def test_openai_sdk_example(server):
    [example] = re.findall(r"```python\n(.*?)```", serving_section(), re.S)
    code = example.replace("http://127.0.0.1:8000", server.url)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.strip()) > 10  # the streamed haiku
