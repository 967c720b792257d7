"""vLLM's offline API as a drop-in (issue 12): LLM's vLLM arguments, prompt
shapes (str, TextPrompt, TokensPrompt), the progress bar, LLM.chat,
LLM.get_tokenizer(), RequestOutput.metrics and greedy parity with
transformers, on the tiny Hugging Face checkpoints of tests/fixtures/hf_models
(references from transformers and HF tokenizers; see its README)."""

import json
import os
import subprocess
import sys
import time

import pytest

from conftest import PAGODA_BIN, PYTHON_DIR, ROOT

HF = ROOT / "tests/fixtures/hf_models"
CASES = json.loads((HF / "tokenizer_cases.json").read_text())
CHECKPOINTS = ["qwen2-bf16", "llama-bf16"]


@pytest.fixture(scope="module")
def pagoda():
    import pagoda

    return pagoda


def make_llm(pagoda, name, **kwargs):
    return pagoda.LLM(model=str(HF / name), kv_cache_memory="16MiB", max_model_len=256, **kwargs)


@pytest.fixture(scope="module")
def llms(pagoda):
    # Every vLLM argument that Pagoda takes, with the values it accepts.
    return {
        name: make_llm(
            pagoda, name, dtype="auto", quantization=None, tokenizer=str(HF / name), revision=None, seed=0,
            tensor_parallel_size=1, pipeline_parallel_size=1, enforce_eager=True, trust_remote_code=False,
        )
        for name in CHECKPOINTS
    }


def reference(name):
    return json.loads((HF / "references" / name / "reference.json").read_text())


def tokenizer_cases(checkpoint):
    [entry] = [t for t in CASES["tokenizers"].values() if checkpoint in t["used_by"]]
    return entry


def greedy(pagoda, n):
    return pagoda.SamplingParams(temperature=0, max_tokens=n, ignore_eos=True)


# --- LLM(...) arguments ---------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"tensor_parallel_size": 2}, ValueError, "tensor_parallel_size"),
        ({"pipeline_parallel_size": 4}, ValueError, "pipeline_parallel_size"),
        ({"trust_remote_code": True}, ValueError, "trust_remote_code"),
        ({"swap_space_gb": 4}, TypeError, "swap_space_gb"),
        ({"no_such_argument": 1}, TypeError, "no_such_argument"),
        ({"gpu_memory_utilization": 0.5, "kv_cache_memory": "1GiB"}, ValueError, "gpu_memory_utilization"),
    ],
)
def test_refused_arguments_name_themselves(pagoda, kwargs, error, name):
    with pytest.raises(error, match=name):
        pagoda.LLM(model=str(HF / "qwen2-bf16"), **kwargs)


def test_engine_refusals_name_the_value(pagoda):
    with pytest.raises(RuntimeError, match="awq"):
        pagoda.LLM(model=str(HF / "qwen2-bf16"), quantization="awq", kv_cache_memory="16MiB")
    with pytest.raises(RuntimeError, match="int3"):
        pagoda.LLM(model=str(HF / "qwen2-bf16"), dtype="int3", kv_cache_memory="16MiB")


def test_load_format_dummy_and_refused_formats(pagoda, tmp_path):
    (tmp_path / "config.json").write_text((HF / "llama-bf16" / "config.json").read_text())
    llm = pagoda.LLM(model=str(tmp_path), load_format="dummy", kv_cache_memory="16MiB", max_model_len=128)
    [out] = llm.generate("abc", greedy(pagoda, 3), use_tqdm=False)
    assert len(out.outputs[0].token_ids) == 3
    assert len(out.prompt_token_ids) == 3  # the placeholder tokenizer: a token per byte
    with pytest.raises(RuntimeError, match="--load-format tensorizer"):
        pagoda.LLM(model=str(HF / "qwen2-bf16"), load_format="tensorizer", kv_cache_memory="16MiB")


def test_gpu_memory_utilization_sizes_the_cache(pagoda):
    # A share of the available RAM for weights plus KV cache (1% is ample for this model).
    llm = pagoda.LLM(model=str(HF / "qwen2-bf16"), gpu_memory_utilization=0.01, max_model_len=128)
    [out] = llm.generate("a", greedy(pagoda, 2), use_tqdm=False)
    assert len(out.outputs[0].token_ids) == 2
    with pytest.raises(RuntimeError, match="gpu_memory_utilization"):
        pagoda.LLM(model=str(HF / "qwen2-bf16"), gpu_memory_utilization=1.5)


# --- prompts ----------------------------------------------------------------


def test_prompt_shapes(pagoda, llms):
    llm = llms["llama-bf16"]
    tok = llm.get_tokenizer()
    text = "Hello there"
    with_bos = tok.encode(text)
    ids = tok.encode(text, add_special_tokens=False)
    assert with_bos == [tok.bos_token_id] + ids  # llama's tokenizer adds <|begin_of_text|>

    p = greedy(pagoda, 3)
    [one] = llm.generate(text, p, use_tqdm=False)
    assert (one.prompt, one.prompt_token_ids) == (text, with_bos)
    outs = llm.generate(
        [text, {"prompt": text}, pagoda.TokensPrompt(prompt_token_ids=with_bos), {"prompt_token_ids": ids},
         pagoda.TextPrompt(prompt=text)],
        p, use_tqdm=False,
    )
    assert [o.prompt for o in outs] == [text, text, None, None, text]
    # Token prompts bypass the tokenizer: no BOS is added to `ids`.
    assert [o.prompt_token_ids for o in outs] == [with_bos, with_bos, with_bos, ids, with_bos]
    same = [o.outputs[0].token_ids for o in outs]
    assert same[0] == same[1] == same[2] == same[4] == one.outputs[0].token_ids

    from pagoda.inputs import TextPrompt, TokensPrompt

    assert TokensPrompt is pagoda.TokensPrompt and TextPrompt is pagoda.TextPrompt


@pytest.mark.parametrize(
    "prompt, error, match",
    [
        (5, TypeError, "int"),
        ([{"prompt": "a"}, 7], TypeError, r"prompts\[1\]"),
        ({"text": "a"}, ValueError, "'text'"),
        ({"prompt": "a", "multi_modal_data": {}}, ValueError, "multi_modal_data"),
        ({"prompt_token_ids": "abc"}, TypeError, "prompt_token_ids"),
        ({"prompt_token_ids": [1, 2.5]}, TypeError, "prompt_token_ids"),
        ({"prompt_token_ids": [1, 100000]}, ValueError, "100000"),
    ],
)
def test_bad_prompts_are_refused(pagoda, llms, prompt, error, match):
    with pytest.raises(error, match=match):
        llms["qwen2-bf16"].generate(prompt, greedy(pagoda, 1), use_tqdm=False)


def test_unsupported_generate_arguments(pagoda, llms):
    llm = llms["qwen2-bf16"]
    with pytest.raises(ValueError, match="lora_request"):
        llm.generate("a", lora_request=object(), use_tqdm=False)
    with pytest.raises(ValueError, match="priority"):
        llm.generate(["a", "b"], priority=[1, 0], use_tqdm=False)  # fcfs
    with pytest.raises(TypeError, match="unknown_kw"):
        llm.generate("a", unknown_kw=1)


# --- progress bar -------------------------------------------------------------


def test_use_tqdm_shows_a_progress_bar(pagoda, llms, capsys):
    llm = llms["qwen2-bf16"]
    llm.generate(["a", "b", "c"], greedy(pagoda, 2))
    err = capsys.readouterr().err
    assert "Processed prompts" in err and "3/3" in err and "toks/s" in err
    llm.generate(["a", "b", "c"], greedy(pagoda, 2), use_tqdm=False)
    llm.chat([{"role": "user", "content": "hi"}], greedy(pagoda, 2), use_tqdm=False)
    assert "Processed prompts" not in capsys.readouterr().err
    llm.chat([{"role": "user", "content": "hi"}], greedy(pagoda, 2))
    assert "1/1" in capsys.readouterr().err


def test_use_tqdm_takes_a_tqdm_factory_and_an_error_in_it_aborts_the_batch(pagoda, llms):
    llm = llms["qwen2-bf16"]
    made = []

    class Bar:
        def __init__(self, **kwargs):
            made.append(kwargs)
            self.format_dict = {"elapsed": 1.0}
            self.updates = 0

        def update(self, n):
            self.updates += n
            raise KeyboardInterrupt  # as Ctrl-C inside the bar would

        def close(self):
            pass

    params = pagoda.SamplingParams(temperature=0, max_tokens=200, ignore_eos=True)
    with pytest.raises(KeyboardInterrupt):
        llm.generate(["a", "b", "c", "d"], [greedy(pagoda, 1)] + [params] * 3, use_tqdm=Bar)
    assert made[0]["total"] == 4 and made[0]["desc"] == "Processed prompts"
    # The other requests were aborted, not left running: the engine serves on.
    [out] = llm.generate("a", greedy(pagoda, 2), use_tqdm=False)
    assert len(out.outputs[0].token_ids) == 2
    with pytest.raises(TypeError, match="use_tqdm"):
        llm.generate("a", use_tqdm="yes")


def test_priority_scheduling(pagoda):
    llm = make_llm(pagoda, "qwen2-bf16", scheduling_policy="priority")
    outs = llm.generate(["a", "b"], greedy(pagoda, 2), use_tqdm=False, priority=[1, 0])
    assert [o.prompt for o in outs] == ["a", "b"]
    with pytest.raises(ValueError, match="priority"):
        llm.generate(["a", "b"], priority=[1], use_tqdm=False)


# --- chat ---------------------------------------------------------------------


@pytest.mark.parametrize("name", CHECKPOINTS)
def test_chat_renders_and_tokenizes_as_transformers(pagoda, llms, name):
    llm = llms[name]
    conversations = CASES["chat_templates"][name]["conversations"]
    for case in conversations:
        [out] = llm.chat(case["messages"], greedy(pagoda, 2), use_tqdm=False)
        assert out.prompt == case["rendered"]
        assert out.prompt_token_ids == case["ids"]
        assert len(out.outputs[0].token_ids) == 2
    # A batch of conversations; content as a list of text parts.
    parts = [
        [{**m, "content": [{"type": "text", "text": m["content"]}]} for m in c["messages"]] for c in conversations
    ]
    outs = llm.chat(parts, greedy(pagoda, 2), use_tqdm=False)
    assert [o.prompt_token_ids for o in outs] == [c["ids"] for c in conversations]


def test_chat_options(pagoda, llms):
    llm = llms["qwen2-bf16"]
    messages = [{"role": "user", "content": "Hi"}]
    [plain] = llm.chat(messages, greedy(pagoda, 1), use_tqdm=False, add_generation_prompt=False)
    assert not plain.prompt.endswith("<|im_start|>assistant\n")
    template = "{% for m in messages %}[{{ m.role }}|{{ m.content }}|{{ flavour }}]{% endfor %}"
    [custom] = llm.chat(messages, greedy(pagoda, 1), use_tqdm=False, chat_template=template,
                        chat_template_kwargs={"flavour": "x"})
    assert custom.prompt == "[user|Hi|x]"
    assert custom.prompt_token_ids == llm.get_tokenizer().encode("[user|Hi|x]", add_special_tokens=False)
    [cont] = llm.chat(messages + [{"role": "assistant", "content": "Hel"}], greedy(pagoda, 1), use_tqdm=False,
                      add_generation_prompt=False, continue_final_message=True)
    assert cont.prompt.endswith("<|im_start|>assistant\nHel")
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    [with_tools] = llm.chat(messages, greedy(pagoda, 1), use_tqdm=False, tools=tools,
                            chat_template="{% for t in tools %}{{ t.function.name }};{% endfor %}")
    assert with_tools.prompt == "get_weather;"
    # Content formats: "auto" gives a template that loops over the content the
    # list of parts (vLLM's detection), and one that prints it the joined text.
    parts = [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    looping = "{% for m in messages %}{% for p in m['content'] %}<{{ p.text }}>{% endfor %}{% endfor %}"
    printing = "{% for m in messages %}[{{ m.content }}]{% endfor %}"
    for template, fmt, want in [(looping, "auto", "<a><b>"), (printing, "auto", "[a\nb]"),
                                (looping, "openai", "<a><b>"), (printing, "string", "[a\nb]")]:
        [out] = llm.chat(parts, greedy(pagoda, 1), use_tqdm=False, chat_template=template,
                         chat_template_content_format=fmt)
        assert out.prompt == want, (template, fmt)
    with pytest.raises(ValueError, match="continue_final_message"):
        llm.chat(messages, continue_final_message=True, use_tqdm=False)
    with pytest.raises(ValueError, match="image_url"):
        llm.chat([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}], use_tqdm=False)
    with pytest.raises(ValueError, match="role"):
        llm.chat([{"role": "robot", "content": "x"}], use_tqdm=False)
    with pytest.raises(ValueError, match="mm_processor_kwargs"):
        llm.chat(messages, mm_processor_kwargs={}, use_tqdm=False)


# --- tokenizer ------------------------------------------------------------------


@pytest.mark.parametrize("name", CHECKPOINTS)
def test_tokenizer_matches_hf_tokenizers(llms, name):
    tok = llms[name].get_tokenizer()
    entry = tokenizer_cases(name)
    for case in entry["cases"]:
        text = case["text"]
        assert tok.encode(text, add_special_tokens=False) == case["ids"], text
        assert tok.encode(text) == case["ids_with_special"], text
        assert tok.decode(case["ids"]) == case["decode"], text
        assert tok.decode(case["ids"], skip_special_tokens=True) == case["decode_skip_special"], text
        assert tok.decode(case["ids_with_special"]) == case["decode_with_special"], text
        assert tok.decode(case["ids_with_special"], skip_special_tokens=True) == \
            case["decode_with_special_skip_special"], text

    # Sizes and special tokens, from the checkpoint's own files.
    spec = json.loads((HF / entry["tokenizer_json"]).read_text())
    vocab = set(spec["model"]["vocab"].values()) | {t["id"] for t in spec["added_tokens"]}
    assert tok.vocab_size == len(tok) == len(vocab)
    config = json.loads((HF / name / "tokenizer_config.json").read_text())
    assert tok.eos_token == config["eos_token"]
    assert tok.eos_token_id == tok.convert_tokens_to_ids(config["eos_token"]) == spec["model"]["vocab"].get(
        config["eos_token"], next(t["id"] for t in spec["added_tokens"] if t["content"] == config["eos_token"]))
    if config.get("bos_token"):
        assert tok.bos_token == config["bos_token"]
        assert tok.convert_ids_to_tokens(tok.bos_token_id) == config["bos_token"]


@pytest.mark.parametrize("name", CHECKPOINTS)
def test_tokenizer_apply_chat_template(llms, name):
    tok = llms[name].get_tokenizer()
    cases = CASES["chat_templates"][name]["conversations"]
    for case in cases:
        assert tok.apply_chat_template(case["messages"], tokenize=False, add_generation_prompt=True) == case["rendered"]
        assert tok.apply_chat_template(case["messages"], add_generation_prompt=True) == case["ids"]
    batch = tok.apply_chat_template([c["messages"] for c in cases], tokenize=False, add_generation_prompt=True)
    assert batch == [c["rendered"] for c in cases]


# --- metrics ------------------------------------------------------------------


def test_request_metrics(pagoda, llms):
    before = time.time()
    outs = llms["qwen2-bf16"].generate(["a", "b"], greedy(pagoda, 3), use_tqdm=False)
    after = time.time()
    for out in outs:
        m = out.metrics
        assert isinstance(m, pagoda.RequestMetrics)
        times = [m.arrival_time, m.first_scheduled_time, m.first_token_time, m.last_token_time, m.finished_time]
        assert all(isinstance(t, float) for t in times), m
        # Wall-clock seconds like time.time() (the clocks are converted, so allow a millisecond).
        assert before - 1e-3 <= m.arrival_time and m.finished_time <= after + 1e-3
        assert times == sorted(times), m
        assert m.time_in_queue == pytest.approx(m.first_scheduled_time - m.arrival_time, abs=1e-6)
        assert m.time_in_queue >= 0
        assert "RequestMetrics(arrival_time=" in repr(out)


# --- greedy parity --------------------------------------------------------------


@pytest.mark.parametrize("name, dtype", [("qwen2-bf16", "auto"), ("llama-bf16", "auto"), ("qwen2-bf16", "float32")])
def test_greedy_matches_transformers(pagoda, llms, name, dtype):
    # transformers ran in float32 on the stored bf16 values, which float32 holds exactly.
    llm = llms[name] if dtype == "auto" else make_llm(pagoda, name, dtype=dtype)
    ref = reference(name)
    g = ref["greedy"]
    prompt = pagoda.TokensPrompt(prompt_token_ids=ref["sequences"][g["from_seq"]])
    [out] = llm.generate(prompt, greedy(pagoda, g["steps"]), use_tqdm=False)
    # Identical up to the first near-tie (top-2 margin under 2e-3); after it
    # either token is right.
    ties = [i for i, margin in enumerate(g["margins"]) if margin < 2e-3]
    n = ties[0] if ties else g["steps"]
    assert n > 0
    assert out.outputs[0].token_ids[:n] == g["tokens"][:n]


# --- console script and vLLM's server module -------------------------------------


def run_module(module, *args):
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=ROOT)


def test_cli_module_and_api_server_run_the_binary(pagoda_bin, python_dir):
    cli = run_module("pagoda.cli", "--help")
    direct = subprocess.run(["pagoda", "--help"], executable=pagoda_bin, capture_output=True, text=True, timeout=120)
    assert cli.returncode == direct.returncode == 0
    assert cli.stdout == direct.stdout and "serve" in cli.stdout

    server = run_module("pagoda.entrypoints.openai.api_server", "--help")
    serve = subprocess.run(["pagoda", "serve", "--help"], executable=pagoda_bin, capture_output=True, text=True,
                           timeout=120)
    assert server.returncode == serve.returncode == 0
    assert server.stdout == serve.stdout and "--model" in server.stdout

    # A refused flag is the binary's refusal, with its exit status.
    bad = run_module("pagoda.entrypoints.openai.api_server", "--no-such-flag")
    direct_bad = subprocess.run([str(pagoda_bin), "serve", "--no-such-flag"], capture_output=True, text=True,
                                timeout=120)
    assert bad.returncode == direct_bad.returncode != 0
    assert "no-such-flag" in bad.stderr + bad.stdout


# --- generation_config.json ----------------------------------------------


def test_default_sampling_params_come_from_generation_config(pagoda, llms):
    """As vLLM: the model's recommended values (qwen2-bf16's
    generation_config.json) under generation_config="auto", vLLM's own under
    "vllm"; generate() with no SamplingParams uses them."""
    recommended = json.loads((HF / "qwen2-bf16" / "generation_config.json").read_text())
    p = llms["qwen2-bf16"].get_default_sampling_params()
    assert (p.temperature, p.top_p, p.top_k) == pytest.approx(
        (recommended["temperature"], recommended["top_p"], recommended["top_k"]))
    assert p.repetition_penalty == pytest.approx(recommended["repetition_penalty"])
    plain = make_llm(pagoda, "qwen2-bf16", generation_config="vllm").get_default_sampling_params()
    default = pagoda.SamplingParams()
    assert (plain.temperature, plain.top_p, plain.top_k) == (default.temperature, default.top_p, default.top_k)
