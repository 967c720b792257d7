"""Structured outputs over HTTP through the openai SDK: every spelling a
client may use, on both endpoints, streamed and not."""

import openai
import pytest

from conftest import MODEL_NAME

CHOICES = ["Paris", "Lyon", "Marseille", "I do not know"]
MESSAGES = [{"role": "user", "content": "Which city is the capital of France?"}]


@pytest.mark.parametrize("extra_body", [
    {"guided_choice": CHOICES},
    {"structured_outputs": {"choice": CHOICES}},
])
def test_chat_choice_in_each_spelling(client, extra_body):
    r = client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=20, temperature=1.2, seed=4,
                                       n=3, extra_body=extra_body)
    for choice in r.choices:
        assert choice.message.content in CHOICES
        assert choice.finish_reason == "stop"


def test_completions_choice_streamed(client):
    chunks = list(client.completions.create(model=MODEL_NAME, prompt="The capital of France is", max_tokens=20,
                                            temperature=0.8, seed=1, stream=True,
                                            extra_body={"guided_choice": CHOICES}))
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    assert text in CHOICES
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["stop"]


@pytest.mark.parametrize("extra_body, field", [
    ({"guided_choice": ["a"], "guided_regex": "b"}, "guided_regex"),
    ({"structured_outputs": {"choice": ["a"], "unknown": 1}}, "structured_outputs.unknown"),
    ({"response_format": {"type": "json_schema"}}, "response_format"),
])
def test_bad_constraints_are_400s_naming_the_field(client, extra_body, field):
    with pytest.raises(openai.BadRequestError) as error:
        client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=5, extra_body=extra_body)
    assert error.value.body["param"] == field or field in error.value.message


ARITHMETIC = r'''
root   ::= expr
expr   ::= term (("+" | "-") term){0,3}
term   ::= factor (("*" | "/") factor){0,2}
factor ::= [1-9] [0-9]{0,2} | "(" expr ")"
'''


@pytest.mark.parametrize("spelling", ["guided_grammar", "structured_outputs"])
def test_arithmetic_grammar_outputs_parse_as_python(client, spelling):
    """Python's own parser is the reference: every finished output is an
    expression of numbers, + - * / and parentheses."""
    import ast
    extra_body = ({"guided_grammar": ARITHMETIC} if spelling == "guided_grammar"
                  else {"structured_outputs": {"grammar": ARITHMETIC}})
    finished = 0
    for seed in range(6):
        r = client.completions.create(model=MODEL_NAME, prompt="A sum to compute: ", max_tokens=80, temperature=0.9,
                                      seed=seed, extra_body=extra_body)
        text, reason = r.choices[0].text, r.choices[0].finish_reason
        if reason == "length":
            continue
        finished += 1
        tree = ast.parse(text, mode="eval")
        allowed = (ast.Expression, ast.BinOp, ast.Constant, ast.Add, ast.Sub, ast.Mult, ast.Div)
        assert all(isinstance(node, allowed) for node in ast.walk(tree)), text
        assert " " not in text
    assert finished >= 3


def test_bad_grammar_is_a_400_naming_the_line(client):
    with pytest.raises(openai.BadRequestError) as error:
        client.completions.create(model=MODEL_NAME, prompt="x", max_tokens=5,
                                  extra_body={"guided_grammar": 'root ::= "a" undefined_rule'})
    assert "undefined_rule" in error.value.message and "line 1" in error.value.message


SCHEMA = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 40},
                                           "population": {"type": "integer", "minimum": 0},
                                           "capital": {"type": "boolean"}},
          "required": ["city", "population", "capital"]}


@pytest.mark.parametrize("extra_body", [
    {"guided_json": SCHEMA},
    {"structured_outputs": {"json": SCHEMA}},
    {"response_format": {"type": "json_schema", "json_schema": {"name": "city", "schema": SCHEMA}}},
])
def test_json_schema_in_each_spelling(client, extra_body):
    """The guide's example: json.loads works and the object validates."""
    import json

    import jsonschema
    r = client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=200, temperature=0.8, seed=2,
                                       extra_body=extra_body)
    assert r.choices[0].finish_reason == "stop"
    jsonschema.validate(json.loads(r.choices[0].message.content), SCHEMA)


def test_json_object(client):
    import json
    r = client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=300, temperature=0,
                                       response_format={"type": "json_object"})
    if r.choices[0].finish_reason == "stop":
        assert isinstance(json.loads(r.choices[0].message.content), dict)
    else:
        assert r.choices[0].message.content.startswith("{")


@pytest.mark.parametrize("extra_body", [
    {"guided_regex": r"[A-Z][a-z]{2,8}, [0-9]{1,3} (years|days)"},
    {"structured_outputs": {"regex": r"(yes|no)(, because [a-z ]{1,30})?\."}},
])
def test_regex_outputs_match_in_full(client, extra_body):
    """Python's re is the reference: every finished output matches whole."""
    import re
    pattern = extra_body.get("guided_regex") or extra_body["structured_outputs"]["regex"]
    for seed in range(4):
        r = client.completions.create(model=MODEL_NAME, prompt="Answer:", max_tokens=60, temperature=0.9, seed=seed,
                                      extra_body=extra_body)
        assert r.choices[0].finish_reason == "stop"
        assert re.fullmatch(pattern, r.choices[0].text), r.choices[0].text


def test_json_whitespace_pattern(client):
    import json
    import re
    r = client.chat.completions.create(model=MODEL_NAME, messages=MESSAGES, max_tokens=200, temperature=0.8, seed=3,
                                       extra_body={"guided_json": SCHEMA, "guided_whitespace_pattern": r"\n?"})
    text = r.choices[0].message.content
    assert r.choices[0].finish_reason == "stop"
    assert json.loads(text).keys() == SCHEMA["properties"].keys()
    # Outside strings, the only whitespace is at most one newline per gap.
    outside = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    assert " " not in outside and "\n\n" not in outside and "\t" not in outside


LARK_ARITHMETIC = r'''
?start: expr
?expr: term (("+" | "-") term)~0..3
?term: NUMBER (("*" | "/") NUMBER)~0..2
NUMBER: /[1-9][0-9]{0,2}/
'''


def test_lark_grammar_outputs_parse_as_python(client):
    """vLLM accepts Lark too: the same arithmetic, Python's parser checks."""
    import ast
    finished = 0
    for seed in range(4):
        r = client.completions.create(model=MODEL_NAME, prompt="A sum to compute: ", max_tokens=80, temperature=0.9,
                                      seed=seed, extra_body={"guided_grammar": LARK_ARITHMETIC})
        if r.choices[0].finish_reason == "length":
            continue
        finished += 1
        tree = ast.parse(r.choices[0].text, mode="eval")
        assert all(isinstance(n, (ast.Expression, ast.BinOp, ast.Constant, ast.Add, ast.Sub, ast.Mult, ast.Div))
                   for n in ast.walk(tree)), r.choices[0].text
    assert finished >= 2
