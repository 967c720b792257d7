"""Every error the API returns, in OpenAI's shape, each leaving the server
healthy and able to serve the next request."""

import httpx
import openai
import pytest

from conftest import MODEL_NAME


def healthy(server, client):
    assert httpx.get(server.url + "/health").status_code == 200
    r = client.completions.create(model=MODEL_NAME, prompt="Hi", max_tokens=2, temperature=0)
    assert r.choices[0].text is not None


def error_of(response):
    body = response.json()
    assert set(body) == {"error"} and {"message", "type", "param", "code"} <= set(body["error"])
    assert body["error"]["code"] == response.status_code
    return body["error"]


@pytest.mark.parametrize("body, field", [
    ({"prompt": "Hi", "max_tokens": "ten"}, "max_tokens"),
    ({"prompt": "Hi", "temperature": -1}, "temperature"),
    ({"prompt": "Hi", "top_p": 1.5}, "top_p"),
    ({"prompt": "Hi", "n": 0}, "n"),
    ({"prompt": "Hi", "logprobs": 50}, "logprobs"),
    ({"prompt": 42}, "prompt"),
    ({"prompt": [10 ** 9]}, "prompt"),
    ({"prompt": "Hi", "stop": [1, 2]}, "stop"),
    ({"prompt": "Hi", "stream": "yes"}, "stream"),
])
def test_bad_fields_are_400_naming_the_field(server, client, body, field):
    r = httpx.post(server.url + "/v1/completions", json=body)
    assert r.status_code == 400
    e = error_of(r)
    assert field in e["message"] or e["param"] == field
    assert e["type"] == "BadRequestError"
    healthy(server, client)


def test_malformed_json_and_wrong_body_type(server, client):
    r = httpx.post(server.url + "/v1/completions", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "JSON" in error_of(r)["message"]
    r = httpx.post(server.url + "/v1/chat/completions", json=[1, 2])
    assert r.status_code == 400
    r = httpx.post(server.url + "/v1/chat/completions", json={"messages": [{"role": "wizard", "content": "x"}]})
    assert r.status_code == 400 and "role" in error_of(r)["message"]
    for content in ([{"type": 5}], [{"type": "image_url", "image_url": {"url": "x"}}], 7):
        r = httpx.post(server.url + "/v1/chat/completions", json={"messages": [{"role": "user", "content": content}]})
        assert r.status_code == 400 and error_of(r)["param"] == "messages[0].content"
    healthy(server, client)


def test_context_length_uses_openais_wording(server, client):
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model=MODEL_NAME, prompt="word " * 900, max_tokens=500)
    assert "maximum context length is 1024 tokens" in str(e.value)
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model=MODEL_NAME, messages=[{"role": "user", "content": "word " * 1100}])
    assert "maximum context length" in str(e.value)
    healthy(server, client)


def test_unknown_model_and_route_are_404(server, client):
    with pytest.raises(openai.NotFoundError) as e:
        client.completions.create(model="gpt-9", prompt="Hi", max_tokens=2)
    assert "gpt-9" in str(e.value)
    r = httpx.get(server.url + "/v1/nothing-here")
    assert r.status_code == 404 and error_of(r)
    healthy(server, client)


def test_oversized_body_is_413(server, client):
    r = httpx.post(server.url + "/v1/completions", content=b"x" * (64 << 20), headers={"content-type": "application/json"})
    assert r.status_code == 413 and error_of(r)
    healthy(server, client)
