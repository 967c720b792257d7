"""Tool calling and reasoning over HTTP through the openai SDK, on servers
started as vLLM's users start them (--enable-auto-tool-choice
--tool-call-parser hermes; --reasoning-parser deepseek_r1). The small
default model seldom calls tools by itself, so the "auto" tests force its
output with a guided choice that spells a call in the parser's format: what
is checked is the server's parsing, streaming and response shape. Under
"required" and a named function the grammar engine does the forcing, on
the model's own sampled output."""

import json
import subprocess

import openai
import pytest

from conftest import MODEL_NAME, PAGODA_BIN, SERVER_ARGS, Server

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 30}}, "required": ["city"]}}}]
MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def _client(server):
    return openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=300)


@pytest.fixture(scope="module")
def tools_client(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("tools"), *SERVER_ARGS, "--enable-auto-tool-choice", "--tool-call-parser",
               "hermes")
    s.wait_ready()
    yield _client(s)
    assert s.stop() == 0, s.log()


@pytest.fixture(scope="module")
def reasoning_client(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("reasoning"), *SERVER_ARGS, "--reasoning-parser", "deepseek_r1")
    s.wait_ready()
    yield _client(s)
    assert s.stop() == 0, s.log()


def forced(text):
    # Greedy, with room to spare: sampled, the model may spell the forced
    # text in many short tokens and run out of max_tokens.
    return {"guided_choice": [text]}


def test_auto_tool_call(tools_client):
    r = tools_client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, max_tokens=400,
                                             temperature=0, extra_body=forced(CALL))
    choice = r.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    [call] = choice.message.tool_calls
    assert call.type == "function" and call.id.startswith("chatcmpl-tool-")
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}


def test_auto_tool_call_streamed(tools_client):
    chunks = list(tools_client.chat.completions.create(
        model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, max_tokens=400, temperature=0, stream=True,
        extra_body=forced("Let me look." + CALL)))
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == "Let me look."
    calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    # The name comes first, with the id, then argument fragments.
    assert calls[0].id.startswith("chatcmpl-tool-") and calls[0].function.name == "get_weather"
    assert all(tc.index == 0 and tc.id is None for tc in calls[1:])
    assert json.loads("".join(tc.function.arguments or "" for tc in calls)) == {"city": "Paris"}
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["tool_calls"]


def test_tool_choice_none_leaves_markup_as_content(tools_client):
    r = tools_client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, tool_choice="none",
                                             max_tokens=400, temperature=0, extra_body=forced(CALL))
    assert r.choices[0].message.content == CALL
    assert r.choices[0].message.tool_calls == []
    assert r.choices[0].finish_reason == "stop"


def test_plain_answer_has_no_calls(tools_client):
    r = tools_client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, max_tokens=400,
                                             temperature=0, extra_body=forced("It is sunny."))
    assert r.choices[0].message.content == "It is sunny."
    assert r.choices[0].message.tool_calls == []
    assert r.choices[0].finish_reason == "stop"


@pytest.mark.parametrize("stream", [False, True])
def test_unclosed_reasoning_is_all_reasoning(reasoning_client, stream):
    """deepseek_r1: the output is reasoning until </think>, which this model
    never writes."""
    kwargs = dict(model=MODEL_NAME, messages=MESSAGES, max_tokens=12, temperature=0)
    if stream:
        chunks = list(reasoning_client.chat.completions.create(stream=True, **kwargs))
        reasoning = "".join(getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices)
        content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    else:
        message = reasoning_client.chat.completions.create(**kwargs).choices[0].message
        reasoning, content = message.reasoning_content, message.content or ""
    assert reasoning and content == ""


def test_reasoning_closed_in_the_prompt_constrains_the_answer(reasoning_client):
    """A prompt that closes the reasoning (as a template with thinking off
    does): the grammar applies at once and the output is all answer."""
    messages = [{"role": "user", "content": "Is Paris in France?<think>\n\n</think>"}]
    for seed in range(3):
        r = reasoning_client.chat.completions.create(model=MODEL_NAME, messages=messages, max_tokens=10,
                                                     temperature=1.0, seed=seed,
                                                     extra_body={"guided_choice": ["yes", "no"]})
        message = r.choices[0].message
        assert message.content in ("yes", "no")
        assert message.reasoning_content is None


def test_legacy_function_call(tools_client):
    r = tools_client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=400, temperature=0,
                                             functions=[TOOLS[0]["function"]], function_call="auto",
                                             extra_body=forced(CALL))
    assert r.choices[0].finish_reason == "function_call"
    assert r.choices[0].message.function_call.name == "get_weather"
    assert json.loads(r.choices[0].message.function_call.arguments) == {"city": "Paris"}


def test_auto_needs_the_flag(client):
    with pytest.raises(openai.BadRequestError) as error:
        client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, max_tokens=5)
    assert "--enable-auto-tool-choice" in error.value.message
    assert error.value.body["param"] == "tool_choice"


@pytest.mark.parametrize("flags, says", [
    (["--tool-call-parser", "nope"], "hermes"),
    (["--reasoning-parser", "nope"], "deepseek_r1"),
    (["--enable-auto-tool-choice"], "--tool-call-parser"),
])
def test_bad_parser_flags_are_refused_at_start(flags, says):
    r = subprocess.run([str(PAGODA_BIN), "serve", "--port", "0", *flags], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert says in r.stdout + r.stderr


def _validate(arguments, schema):
    import jsonschema
    jsonschema.validate(json.loads(arguments), schema)


@pytest.mark.parametrize("stream", [False, True])
def test_required_tool_choice_always_calls_a_tool(tools_client, stream):
    """The grammar holds the output to valid calls: the arguments validate
    against the tool's schema on every seed."""
    for seed in range(3):
        kwargs = dict(model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, tool_choice="required", max_tokens=300,
                      temperature=0.8, seed=seed)
        if not stream:
            choice = tools_client.chat.completions.create(**kwargs).choices[0]
            assert choice.finish_reason == "tool_calls", choice
            assert choice.message.tool_calls, choice
            for call in choice.message.tool_calls:
                assert call.function.name == "get_weather"
                _validate(call.function.arguments, TOOLS[0]["function"]["parameters"])
            continue
        chunks = list(tools_client.chat.completions.create(stream=True, **kwargs))
        calls = {}
        for c in chunks:
            for tc in (c.choices[0].delta.tool_calls or []) if c.choices else []:
                entry = calls.setdefault(tc.index, {"name": None, "arguments": ""})
                if tc.function.name:
                    entry["name"] = tc.function.name
                entry["arguments"] += tc.function.arguments or ""
        assert calls and all(e["name"] == "get_weather" for e in calls.values())
        for e in calls.values():
            _validate(e["arguments"], TOOLS[0]["function"]["parameters"])
        assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["tool_calls"]


def test_named_tool_choice_calls_that_tool(tools_client):
    r = tools_client.chat.completions.create(
        model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, max_tokens=300, temperature=0.8, seed=1,
        tool_choice={"type": "function", "function": {"name": "get_weather"}})
    choice = r.choices[0]
    [call] = choice.message.tool_calls
    assert call.function.name == "get_weather"
    _validate(call.function.arguments, TOOLS[0]["function"]["parameters"])
    assert choice.message.content is None
    assert choice.finish_reason == "stop"
