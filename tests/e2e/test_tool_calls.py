"""Tool calling and reasoning over HTTP through the openai SDK, on a server
started as vLLM's users start it (--enable-auto-tool-choice
--tool-call-parser hermes --reasoning-parser deepseek_r1). The small default
model seldom calls tools by itself, so these tests force its output with a
guided choice that spells a call in the parser's format: what is checked is
the server's parsing, streaming and response shape. A grammar applies only
after the reasoning, so the prompt closes a (empty) reasoning first, as a
template does when thinking is turned off; the forced output then spells
its own reasoning before </think> for the parser to split."""

import json
import subprocess

import openai
import pytest

from conftest import MODEL_NAME, PAGODA_BIN, SERVER_ARGS, Server

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
MESSAGES = [{"role": "user", "content": "What is the weather in Paris?<think>\n\n</think>"}]
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
REASONING = "The user asks for the weather, so I call the tool."


@pytest.fixture(scope="module")
def tools_client(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("tools"), *SERVER_ARGS, "--enable-auto-tool-choice", "--tool-call-parser",
               "hermes", "--reasoning-parser", "deepseek_r1")
    s.wait_ready()
    yield openai.OpenAI(base_url=s.url + "/v1", api_key="unused", max_retries=0, timeout=300)
    assert s.stop() == 0, s.log()


def forced(text):
    # Greedy, with room to spare: sampled, the model may spell the forced
    # text in many short tokens and run out of max_tokens.
    return {"guided_choice": [text]}


def test_auto_tool_call(tools_client):
    r = tools_client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, max_tokens=400, temperature=0,
                                             extra_body=forced(REASONING + "</think>" + CALL))
    choice = r.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    assert choice.message.reasoning_content == REASONING
    [call] = choice.message.tool_calls
    assert call.type == "function" and call.id.startswith("chatcmpl-tool-")
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}


def test_auto_tool_call_streamed(tools_client):
    chunks = list(tools_client.chat.completions.create(
        model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, max_tokens=400, temperature=0, stream=True,
        extra_body=forced(REASONING + "</think>Let me look." + CALL)))
    reasoning = "".join(getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices)
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert reasoning == REASONING
    assert content == "Let me look."
    calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    # The name comes first, with the id, then argument fragments.
    assert calls[0].id.startswith("chatcmpl-tool-") and calls[0].function.name == "get_weather"
    assert all(tc.index == 0 and tc.id is None for tc in calls[1:])
    assert json.loads("".join(tc.function.arguments or "" for tc in calls)) == {"city": "Paris"}
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["tool_calls"]


def test_tool_choice_none_leaves_markup_as_content(tools_client):
    r = tools_client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, tool_choice="none",
                                             max_tokens=400, temperature=0, extra_body=forced("</think>" + CALL))
    assert r.choices[0].message.content == CALL
    assert r.choices[0].message.tool_calls == []
    assert r.choices[0].finish_reason == "stop"


def test_plain_answer_has_no_calls(tools_client):
    r = tools_client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, tools=TOOLS, max_tokens=400, temperature=0,
                                             extra_body=forced("Hmm.</think>It is sunny."))
    assert r.choices[0].message.content == "It is sunny."
    assert r.choices[0].message.reasoning_content == "Hmm."
    assert r.choices[0].message.tool_calls == []
    assert r.choices[0].finish_reason == "stop"


def test_legacy_function_call(tools_client):
    r = tools_client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=400, temperature=0,
                                             functions=[TOOLS[0]["function"]], function_call="auto",
                                             extra_body=forced("</think>" + CALL))
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
