"""/v1/chat/completions through the openai SDK."""

import httpx

from conftest import MODEL_NAME

MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the capital of France? Answer in one word."},
]


def test_chat_answers_with_the_template_applied(server, client):
    r = client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=16, temperature=0)
    assert r.object == "chat.completion" and r.id.startswith("chatcmpl-")
    [choice] = r.choices
    assert choice.message.role == "assistant" and "Paris" in choice.message.content
    assert choice.finish_reason == "stop"  # the model ends its turn (EOS)
    # The prompt is the ChatML rendering, as /tokenize renders it.
    rendered = httpx.post(server.url + "/tokenize", json={"messages": MESSAGES}).json()
    assert r.usage.prompt_tokens == rendered["count"]


def test_chat_stream_opens_with_the_role_and_ends_with_the_reason(client):
    plain = client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=16, temperature=0)
    chunks = list(client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=16, temperature=0,
                                                 stream=True, stream_options={"include_usage": True}))
    assert all(c.object == "chat.completion.chunk" and c.id == chunks[0].id for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == plain.choices[0].message.content
    finishing = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert len(finishing) == 1 and finishing[0].choices[0].finish_reason == "stop"
    assert chunks[-1].usage.completion_tokens == plain.usage.completion_tokens


def test_chat_logprobs_n_and_content_parts(client):
    parts = [{"role": "user", "content": [{"type": "text", "text": "Name a colour."}]}]
    r = client.chat.completions.create(model=MODEL_NAME, messages=parts, max_completion_tokens=6, temperature=0.7,
                                       n=3, seed=3, logprobs=True, top_logprobs=2)
    assert [c.index for c in r.choices] == [0, 1, 2]
    for c in r.choices:
        entries = c.logprobs.content
        assert entries and len(entries) <= 6
        joined = "".join(e.token for e in entries)
        # A turn ended by EOS lists the EOS token, which the text leaves out.
        assert joined == c.message.content if c.finish_reason == "length" else joined.startswith(c.message.content)
        for e in entries:
            assert len(e.top_logprobs) == 2 and e.top_logprobs[0].logprob >= e.top_logprobs[1].logprob
            assert bytes(e.bytes) == e.token.encode("utf-8")
            assert e.logprob <= e.top_logprobs[0].logprob


def test_tool_and_developer_messages_render(client):
    messages = [
        {"role": "developer", "content": "Be terse."},
        {"role": "user", "content": "What's the weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18 degrees, sunny"},
    ]
    r = client.chat.completions.create(model=MODEL_NAME, messages=messages, max_tokens=8, temperature=0)
    assert r.choices[0].message.content is not None and r.usage.prompt_tokens > 20


def test_continue_final_message(server, client):
    messages = MESSAGES + [{"role": "assistant", "content": "The capital of France is"}]
    r = client.chat.completions.create(model=MODEL_NAME, messages=messages, max_tokens=4, temperature=0,
                                       extra_body={"add_generation_prompt": False, "continue_final_message": True})
    assert "Paris" in r.choices[0].message.content
