"""/v1/completions through the openai SDK: plain, streamed, n > 1, logprobs,
stop, seeds, max_tokens, echo and the usage numbers."""

import httpx

from conftest import MODEL_NAME

PROMPT = "The capital of France is"


def tokenize(server, text):
    return httpx.post(server.url + "/tokenize", json={"prompt": text}).json()["tokens"]


def test_greedy_completion_and_usage(server, client):
    r = client.completions.create(model=MODEL_NAME, prompt=PROMPT, max_tokens=12, temperature=0)
    assert r.object == "text_completion" and r.model == MODEL_NAME and r.id.startswith("cmpl-")
    [choice] = r.choices
    assert choice.index == 0 and choice.finish_reason in ("length", "stop") and choice.text
    assert r.usage.prompt_tokens == len(tokenize(server, PROMPT))
    # The completion's own tokens, counted independently by re-tokenizing.
    assert r.usage.completion_tokens <= 12
    assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens
    again = client.completions.create(model=MODEL_NAME, prompt=PROMPT, max_tokens=12, temperature=0)
    assert again.choices[0].text == choice.text


def test_stream_joins_to_the_plain_response(client):
    plain = client.completions.create(model=MODEL_NAME, prompt=PROMPT, max_tokens=20, temperature=0, extra_body={"ignore_eos": True})
    chunks = list(client.completions.create(
        model=MODEL_NAME, prompt=PROMPT, max_tokens=20, temperature=0, stream=True,
        stream_options={"include_usage": True}, extra_body={"ignore_eos": True}))
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    assert text == plain.choices[0].text
    assert len(chunks) > 3  # streamed, not one chunk
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == ["length"]
    usage = chunks[-1].usage
    assert chunks[-1].choices == [] and usage.completion_tokens == 20
    assert usage.prompt_tokens == plain.usage.prompt_tokens


def test_n_and_several_prompts_number_the_choices(client):
    prompts = [PROMPT, "Once upon a time"]
    r = client.completions.create(model=MODEL_NAME, prompt=prompts, n=2, max_tokens=8, temperature=0.8, seed=7,
                                  echo=True, logprobs=0)
    assert [c.index for c in r.choices] == [0, 1, 2, 3]
    for c in r.choices:
        assert c.text.startswith(prompts[c.index // 2])  # choice k*n + i belongs to prompt k
    # Usage counts every choice's tokens (the logprobs list them; echo adds the prompt's).
    n_prompt = r.usage.prompt_tokens
    listed = sum(len(c.logprobs.tokens) for c in r.choices)
    assert listed == r.usage.completion_tokens + 2 * n_prompt


def test_seed_reproduces_a_sampled_completion(client):
    kwargs = dict(model=MODEL_NAME, prompt=PROMPT, max_tokens=16, temperature=1.0, seed=1234)
    first = client.completions.create(**kwargs).choices[0].text
    assert client.completions.create(**kwargs).choices[0].text == first
    other = {client.completions.create(**{**kwargs, "seed": s}).choices[0].text for s in range(1, 6)}
    assert len(other | {first}) > 1  # seeds matter


def test_stop_string_is_held_back_and_reported(client):
    full = client.completions.create(model=MODEL_NAME, prompt=PROMPT, max_tokens=24, temperature=0,
                                     extra_body={"ignore_eos": True}).choices[0].text
    word = full.split()[2]
    r = client.completions.create(model=MODEL_NAME, prompt=PROMPT, max_tokens=24, temperature=0, stop=[word])
    assert r.choices[0].finish_reason == "stop" and r.choices[0].stop_reason == word
    assert r.choices[0].text == full[: full.index(word)]
    streamed = "".join(c.choices[0].text for c in client.completions.create(
        model=MODEL_NAME, prompt=PROMPT, max_tokens=24, temperature=0, stop=[word], stream=True))
    assert streamed == r.choices[0].text


def test_logprobs_and_echo(server, client):
    r = client.completions.create(model=MODEL_NAME, prompt=PROMPT, max_tokens=5, temperature=0, logprobs=3,
                                  echo=True)
    lp = r.choices[0].logprobs
    n_prompt = len(tokenize(server, PROMPT))
    assert r.choices[0].text.startswith(PROMPT)
    assert len(lp.tokens) == len(lp.token_logprobs) == len(lp.top_logprobs) == n_prompt + 5
    assert lp.token_logprobs[0] is None and lp.top_logprobs[0] is None
    assert "".join(lp.tokens) == r.choices[0].text
    assert lp.text_offset[0] == 0 and lp.text_offset[1] == len(lp.tokens[0])
    for tok, top in zip(lp.tokens[n_prompt:], lp.top_logprobs[n_prompt:]):
        # Greedy: the chosen token is the most likely one, and in the top dict.
        assert top[tok] == max(top.values()) and 3 <= len(top) <= 4


def test_prompt_logprobs_score_every_prompt_token(server, client):
    r = client.completions.create(model=MODEL_NAME, prompt=PROMPT, max_tokens=2, temperature=0,
                                  extra_body={"prompt_logprobs": 1})
    scored = r.choices[0].prompt_logprobs
    ids = tokenize(server, PROMPT)
    assert len(scored) == len(ids) and scored[0] is None
    for token_id, entry in zip(ids[1:], scored[1:]):
        actual = entry[str(token_id)]  # the prompt's own token, plus the top 1
        assert actual["logprob"] <= 0 and actual["rank"] >= 1 and 1 <= len(entry) <= 2


def test_max_tokens_and_token_id_prompts(server, client):
    ids = tokenize(server, PROMPT)
    r = client.completions.create(model=MODEL_NAME, prompt=ids, max_tokens=3, temperature=0, extra_body={"ignore_eos": True})
    assert r.choices[0].finish_reason == "length" and r.usage.completion_tokens == 3
    by_text = client.completions.create(model=MODEL_NAME, prompt=PROMPT, max_tokens=3, temperature=0)
    assert r.choices[0].text == by_text.choices[0].text


def test_models_lists_the_served_name(client):
    models = client.models.list()
    assert [m.id for m in models.data] == [MODEL_NAME]
    assert models.data[0].object == "model"
