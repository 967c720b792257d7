"""No request field silently ignored: walks tests/fixtures/server/request_fields.json
(every completions and chat field of OpenAI's and vLLM's schemas) and sends
each field with a plausible value. Honoured fields answer 200 (with their
effect checked where that is cheap), refused ones a 400 naming the field,
metadata 200 with a log line; a field outside both schemas gets 200 and
vLLM's warning naming it. Then the effects that need a template or a
reasoning parser of their own, on a second server."""

import concurrent.futures
import json
import re

import httpx
import pytest

from conftest import ROOT, SERVER_ARGS, MODEL_NAME, Server

FIELDS = json.loads((ROOT / "tests/fixtures/server/request_fields.json").read_text())
PATHS = {"completions": "/v1/completions", "chat": "/v1/chat/completions"}
BASE = {
    "completions": {"model": MODEL_NAME, "prompt": "The capital of France is", "max_tokens": 2, "temperature": 0},
    "chat": {"model": MODEL_NAME, "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 2,
             "temperature": 0},
}
# No arguments, so a forced call is a few tokens.
TOOLS = [{"type": "function", "function": {"name": "get_time", "description": "The time now",
                                           "parameters": {"type": "object", "properties": {},
                                                          "additionalProperties": False}}}]
FUNCTIONS = [t["function"] for t in TOOLS]
# The assistant's answer begun, for the model to continue (chat's echo).
PREFILL = {"messages": [{"role": "user", "content": "Name a color."},
                        {"role": "assistant", "content": "My favourite color is"}],
           "add_generation_prompt": False, "continue_final_message": True}
SAMPLED = {"temperature": 0.8, "seed": 1}


def post(server, endpoint: str, body: dict):
    """The status and the body: the JSON object, or a stream's chunks."""
    r = httpx.post(server.url + PATHS[endpoint], json=body, timeout=120)
    if r.status_code != 200 or not body.get("stream"):
        return r.status_code, r.json()
    chunks = [json.loads(line[len("data: "):]) for line in r.text.splitlines()
              if line.startswith("data: ") and line != "data: [DONE]"]
    return r.status_code, chunks


def text_of(endpoint: str, body: dict) -> str:
    choice = body["choices"][0]
    return choice["text"] if endpoint == "completions" else choice["message"]["content"]


def generated_ids(endpoint: str, body: dict) -> list[int]:
    return body["choices"][0]["token_ids"]


class Honoured:
    def __init__(self, value, extra=None, check=None):
        self.value, self.extra, self.check = value, extra or {}, check


class Refused:
    def __init__(self, value, extra=None):
        self.value, self.extra = value, extra or {}


class Metadata:
    def __init__(self, value):
        self.value, self.extra = value, {}


def check_usage(key, n):
    return lambda endpoint, body: body["usage"][key] == n


def check_all_ids(token_id):
    return lambda endpoint, body: set(generated_ids(endpoint, body)) == {token_id}


def check_stream_usage(endpoint, chunks):
    return chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] >= 1


def check_choices(n):
    return lambda endpoint, body: len(body["choices"]) == n


def check_return_token_ids(endpoint, body):
    choice = body["choices"][0]
    prompt_ids = choice["prompt_token_ids"] if endpoint == "completions" else body["prompt_token_ids"]
    return len(prompt_ids) == body["usage"]["prompt_tokens"] and \
        len(choice["token_ids"]) == body["usage"]["completion_tokens"]


def check_ids_as_tokens(endpoint, body):
    logprobs = body["choices"][0]["logprobs"]
    tokens = logprobs["tokens"] if endpoint == "completions" else [e["token"] for e in logprobs["content"]]
    return tokens and all(re.fullmatch(r"token_id:\d+", t) for t in tokens)


# The cases both endpoints share.
COMMON = {
    "model": Honoured(MODEL_NAME, check=lambda e, b: b["model"] == MODEL_NAME),
    "stream": Honoured(True, check=lambda e, chunks: len(chunks) >= 2),
    "stream_options": Honoured({"include_usage": True}, {"stream": True}, check_stream_usage),
    "n": Honoured(2, SAMPLED, check_choices(2)),
    "best_of": Honoured(2, SAMPLED, check_choices(1)),
    "max_tokens": Honoured(1, check=check_usage("completion_tokens", 1)),
    "temperature": Honoured(0.5),
    "top_p": Honoured(0.9, SAMPLED),
    "top_k": Honoured(5, SAMPLED),
    "min_p": Honoured(0.1, SAMPLED),
    "presence_penalty": Honoured(0.5),
    "frequency_penalty": Honoured(0.5),
    "repetition_penalty": Honoured(1.2),
    "seed": Honoured(7, {"temperature": 1.0}),
    "stop": Honoured(["\n"]),
    "stop_token_ids": Honoured([28], {"return_token_ids": True, "logit_bias": {"28": 100}},
                               lambda e, b: b["choices"][0]["finish_reason"] == "stop"
                               and b["choices"][0]["stop_reason"] == 28),
    "include_stop_str_in_output": Honoured(True, {"stop": ["\n"]}),
    "ignore_eos": Honoured(True),
    "min_tokens": Honoured(2, check=check_usage("completion_tokens", 2)),
    "bad_words": Honoured(["Paris"]),
    "allowed_token_ids": Honoured([28], {"return_token_ids": True}, check_all_ids(28)),
    "logit_bias": Honoured({"28": 100}, {"return_token_ids": True}, check_all_ids(28)),
    "prompt_logprobs": Honoured(1, check=lambda e, b: (b["choices"][0] if e == "completions" else b)
                                ["prompt_logprobs"] is not None),
    "use_beam_search": Honoured(True),
    "length_penalty": Honoured(0.5, {"use_beam_search": True}),
    "skip_special_tokens": Honoured(False),
    "spaces_between_special_tokens": Honoured(False),
    "priority": Honoured(1),
    "truncate_prompt_tokens": Honoured(2, check=check_usage("prompt_tokens", 2)),
    "request_id": Honoured("walk-1", check=lambda e, b: b["id"].endswith("-walk-1")),
    "return_token_ids": Honoured(True, check=check_return_token_ids),
    "cache_salt": Honoured("tenant-a"),
    "response_format": Honoured({"type": "json_object"}, {"max_tokens": 4}),
    "structured_outputs": Honoured({"choice": ["yes", "no"]}, {"max_tokens": 4},
                                   lambda e, b: text_of(e, b) in ("yes", "no")),
    "guided_json": Honoured({"type": "object"}, {"max_tokens": 4}),
    "guided_regex": Honoured("[0-9]{2}", {"max_tokens": 4}, lambda e, b: re.fullmatch("[0-9]{2}", text_of(e, b))),
    "guided_choice": Honoured(["yes", "no"], {"max_tokens": 4}, lambda e, b: text_of(e, b) in ("yes", "no")),
    "guided_grammar": Honoured('root ::= "ok"', {"max_tokens": 4}, lambda e, b: text_of(e, b) == "ok"),
    "guided_whitespace_pattern": Honoured(" ?", {"guided_json": {"type": "object"}, "max_tokens": 4}),
    "guided_decoding_backend": Honoured("xgrammar", {"guided_choice": ["yes", "no"], "max_tokens": 4}),
    "user": Metadata("user-1"),
    "logits_processors": Refused(["my_module.MyLogitsProcessor"]),
    "kv_transfer_params": Refused({"do_remote_prefill": True}),
    "vllm_xargs": Refused({"key": 1}),
    "max_repetition_pattern_size": Refused(8),
    "min_repetition_pattern_size": Refused(2),
    "repetition_min_count": Refused(3),
}

CASES = {
    "completions": {
        **COMMON,
        "prompt": Honoured("Hello"),
        "logprobs": Honoured(2, check=lambda e, b: len(b["choices"][0]["logprobs"]["top_logprobs"][0]) >= 2),
        "echo": Honoured(True, check=lambda e, b: b["choices"][0]["text"].startswith("The capital of France is")),
        "add_special_tokens": Honoured(False),
        "return_tokens_as_token_ids": Honoured(True, {"logprobs": 1}, check_ids_as_tokens),
        "suffix": Refused("and that is all."),
        "prompt_embeds": Refused(["AAAAAA=="]),
    },
    "chat": {
        **COMMON,
        "messages": Honoured([{"role": "user", "content": "Hi"}]),
        "add_special_tokens": Honoured(True),
        "max_completion_tokens": Honoured(1, check=check_usage("completion_tokens", 1)),
        "logprobs": Honoured(True, check=lambda e, b: b["choices"][0]["logprobs"]["content"]),
        "top_logprobs": Honoured(2, {"logprobs": True},
                                 lambda e, b: len(b["choices"][0]["logprobs"]["content"][0]["top_logprobs"]) == 2),
        "tools": Honoured(TOOLS, {"tool_choice": "none"}),
        "tool_choice": Honoured("required", {"tools": TOOLS, "parallel_tool_calls": False, "max_tokens": 40},
                                lambda e, b: b["choices"][0]["message"]["tool_calls"]),
        "parallel_tool_calls": Honoured(False, {"tools": TOOLS, "tool_choice": "required", "max_tokens": 40},
                                        lambda e, b: len(b["choices"][0]["message"]["tool_calls"]) == 1),
        "functions": Honoured(FUNCTIONS, {"function_call": "none"}),
        "function_call": Honoured({"name": "get_time"}, {"functions": FUNCTIONS, "max_tokens": 20},
                                  lambda e, b: b["choices"][0]["message"]["function_call"]["name"] == "get_time"),
        "add_generation_prompt": Honoured(False),
        "continue_final_message": Honoured(True, {k: v for k, v in PREFILL.items() if k != "continue_final_message"}),
        "chat_template_kwargs": Honoured({"custom": 1}),
        "documents": Honoured([{"title": "Doc", "text": "Some text."}]),
        "reasoning_effort": Honoured("low"),
        "include_reasoning": Honoured(False),
        "echo": Honoured(True, PREFILL,
                         lambda e, b: b["choices"][0]["message"]["content"].startswith("My favourite color is")),
        "return_tokens_as_token_ids": Honoured(True, {"logprobs": True}, check_ids_as_tokens),
        "metadata": Metadata({"team": "walk"}),
        "safety_identifier": Metadata("hashed-user"),
        "prompt_cache_key": Metadata("cache-key"),
        "prompt_cache_retention": Metadata("24h"),
        "prompt_cache_options": Metadata({"mode": "implicit", "ttl": "30m"}),
        "chat_template": Refused("{{ messages[0].content }}"),
        "mm_processor_kwargs": Refused({"fps": 2}),
        "structural_tag": Refused('{"structures": [], "triggers": []}'),
        "audio": Refused({"voice": "alloy", "format": "wav"}),
        "modalities": Refused(["text", "audio"]),
        "prediction": Refused({"type": "content", "content": "Hello"}),
        "moderation": Refused({"model": "omni-moderation-latest"}),
        "web_search_options": Refused({}),
        "verbosity": Refused("low"),
        "store": Refused(True),
        "service_tier": Refused("flex"),
    },
}


def test_every_schema_field_has_a_case():
    for endpoint in PATHS:
        missing = set(FIELDS[endpoint]) - set(CASES[endpoint])
        assert not missing, f"{endpoint}: no case for {sorted(missing)}"


WALK = [(e, f) for e in PATHS for f in sorted(FIELDS[e])]


@pytest.fixture(scope="module")
def walk(server):
    """Every field's request, sent together: the engine batches them, so
    the walk takes a few seconds."""
    def send(endpoint, field):
        case = CASES[endpoint][field]
        return post(server, endpoint, {**BASE[endpoint], **case.extra, field: case.value})

    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
        futures = {key: pool.submit(send, *key) for key in WALK if key[1] in CASES[key[0]]}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.parametrize("endpoint, field", WALK)
def test_field(server, walk, endpoint, field):
    case = CASES[endpoint][field]
    status, got = walk[(endpoint, field)]
    if isinstance(case, Refused):
        assert status == 400, got
        error = got["error"]
        assert error["param"] == field or field in error["message"], error
        return
    assert status == 200, got
    if isinstance(case, Metadata):
        assert re.search(r"request metadata .*" + re.escape(json.dumps(field)), server.log()), field
    elif case.check is not None:
        assert case.check(endpoint, got), got


@pytest.mark.parametrize("endpoint, field, value", [
    ("completions", "suffix", ""),
    ("completions", "prompt_embeds", []),
    ("completions", "logits_processors", []),
    ("chat", "modalities", ["text"]),
    ("chat", "store", False),
    ("chat", "service_tier", "auto"),
    ("chat", "service_tier", "default"),
    ("chat", "max_repetition_pattern_size", 0),
    ("chat", "kv_transfer_params", {}),
])
def test_a_refused_field_that_asks_for_nothing_is_accepted(server, endpoint, field, value):
    status, got = post(server, endpoint, {**BASE[endpoint], field: value})
    assert status == 200, got


@pytest.mark.parametrize("endpoint", PATHS)
def test_unknown_fields_are_accepted_with_vllms_warning(server, endpoint):
    # Each endpoint's own fields are unknown to the other.
    other = "messages" if endpoint == "completions" else "prompt"
    body = {**BASE[endpoint], "frobnicate_level": 3, other: BASE["chat" if endpoint == "completions" else
                                                                  "completions"][other]}
    status, got = post(server, endpoint, body)
    assert status == 200, got
    warning = ("The following fields were present in the request but ignored: {"
               + ", ".join(repr(f) for f in sorted(["frobnicate_level", other])) + "}")
    assert warning in server.log()


def test_spaces_between_special_tokens_gives_vllms_text_either_way(server):
    # Two special tokens in a row: Hugging Face's fast decoders, and so
    # vLLM's text, put no space between them whatever the flag.
    im_start = httpx.post(server.url + "/tokenize", json={"prompt": "<|im_start|>", "add_special_tokens": False}
                          ).json()["tokens"]
    assert len(im_start) == 1
    texts = set()
    for spaces in (True, False):
        body = {**BASE["completions"], "max_tokens": 3, "allowed_token_ids": im_start, "ignore_eos": True,
                "skip_special_tokens": False, "spaces_between_special_tokens": spaces}
        status, got = post(server, "completions", body)
        assert status == 200, got
        texts.add(got["choices"][0]["text"])
    assert texts == {"<|im_start|>" * 3}


def test_return_token_ids_streams_prompt_ids_first_then_deltas(server):
    for endpoint in PATHS:
        body = {**BASE[endpoint], "stream": True, "return_token_ids": True, "max_tokens": 3}
        status, chunks = post(server, endpoint, body)
        assert status == 200
        if endpoint == "chat":
            prompt_ids = [c["prompt_token_ids"] for c in chunks if "prompt_token_ids" in c]
        else:
            prompt_ids = [c["choices"][0]["prompt_token_ids"] for c in chunks if "prompt_token_ids" in c["choices"][0]]
        assert len(prompt_ids) == 1 and prompt_ids[0]
        generated = [t for c in chunks for choice in c["choices"] for t in choice.get("token_ids", [])]
        assert len(generated) == 3


def test_return_token_ids_are_the_tokenizers(server):
    # The prompt's ids are what /tokenize makes of it, and the generated ids
    # spell the returned text.
    body = {**BASE["completions"], "max_tokens": 5, "return_token_ids": True}
    status, got = post(server, "completions", body)
    assert status == 200, got
    choice = got["choices"][0]
    tokenized = httpx.post(server.url + "/tokenize", json={"prompt": body["prompt"]}).json()["tokens"]
    assert choice["prompt_token_ids"] == tokenized
    for endpoint in PATHS:
        status, got = post(server, endpoint, {**BASE[endpoint], "max_tokens": 5, "ignore_eos": True,
                                              "return_token_ids": True})
        assert status == 200, got
        ids = got["choices"][0]["token_ids"]
        assert len(ids) == got["usage"]["completion_tokens"] == 5
        text = httpx.post(server.url + "/detokenize", json={"tokens": ids}).json()["prompt"]
        assert text == text_of(endpoint, got)


def test_chat_echo_streams_the_prefill_first(server):
    body = {**BASE["chat"], **PREFILL, "stream": True, "echo": True}
    status, chunks = post(server, "chat", body)
    assert status == 200
    contents = [c["choices"][0]["delta"].get("content") for c in chunks if c["choices"]]
    assert contents[:2] == ["", "My favourite color is"]
    # Without a message of the answer's role there is nothing to echo.
    status, got = post(server, "chat", {**BASE["chat"], "echo": True, "max_tokens": 2})
    assert status == 200
    plain = post(server, "chat", BASE["chat"])[1]
    assert got["choices"][0]["message"]["content"] == plain["choices"][0]["message"]["content"]


def test_truncation_keeps_the_last_tokens_and_echo_shows_them(server):
    prompt = "one two three four five six seven"
    ids = httpx.post(server.url + "/tokenize", json={"prompt": prompt}).json()["tokens"]
    body = {**BASE["completions"], "prompt": prompt, "truncate_prompt_tokens": 3, "echo": True,
            "return_token_ids": True}
    status, got = post(server, "completions", body)
    assert status == 200, got
    assert got["choices"][0]["prompt_token_ids"] == ids[-3:]
    assert got["choices"][0]["text"].startswith(" five six seven")
    # -1: as many as leave room for max_tokens; past that room, a 400.
    status, got = post(server, "completions", {**BASE["completions"], "truncate_prompt_tokens": -1})
    assert status == 200, got
    status, got = post(server, "completions", {**BASE["completions"], "truncate_prompt_tokens": 1023})
    assert status == 400 and got["error"]["param"] == "truncate_prompt_tokens"


TEMPLATE = ("{% if reasoning_effort is defined %}effort={{ reasoning_effort }}\n{% endif %}"
            "{% for d in documents or [] %}doc={{ d.title }}\n{% endfor %}"
            "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
            "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


@pytest.fixture(scope="module")
def template_server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fields-template")
    (tmp / "template.jinja").write_text(TEMPLATE)
    s = Server(tmp, *SERVER_ARGS, "--chat-template", str(tmp / "template.jinja"), "--reasoning-parser", "deepseek_r1")
    s.wait_ready()
    yield s
    assert s.stop() == 0, s.log()


def rendered_prompt(server, body: dict) -> str:
    status, got = post(server, "chat", {**BASE["chat"], **body, "return_token_ids": True})
    assert status == 200, got
    return httpx.post(server.url + "/detokenize", json={"tokens": got["prompt_token_ids"]}).json()["prompt"]


def test_reasoning_effort_and_documents_reach_the_template(template_server):
    assert rendered_prompt(template_server, {}).startswith("<|im_start|>user")
    assert rendered_prompt(template_server, {"reasoning_effort": "high"}).startswith("effort=high\n")
    # The request's field wins over a kwarg of the same name, as vLLM merges them.
    prompt = rendered_prompt(template_server, {"reasoning_effort": "low",
                                               "chat_template_kwargs": {"reasoning_effort": "high"}})
    assert prompt.startswith("effort=low\n")
    prompt = rendered_prompt(template_server, {"documents": [{"title": "A", "text": "x"}, {"title": "B", "text": "y"}]})
    assert prompt.startswith("doc=A\ndoc=B\n<|im_start|>user")
    status, got = post(template_server, "chat", {**BASE["chat"], "reasoning_effort": "extreme"})
    assert status == 400 and got["error"]["param"] == "reasoning_effort"


def test_include_reasoning_false_drops_the_reasoning(template_server):
    # deepseek_r1 without a </think>: the whole output is reasoning.
    status, got = post(template_server, "chat", {**BASE["chat"], "max_tokens": 4})
    assert status == 200 and got["choices"][0]["message"]["reasoning_content"], got
    status, got = post(template_server, "chat", {**BASE["chat"], "max_tokens": 4, "include_reasoning": False})
    assert status == 200 and got["choices"][0]["message"]["reasoning_content"] is None, got
