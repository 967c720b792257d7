"""Structured outputs through vLLM's Python API: StructuredOutputsParams in
SamplingParams (and the older GuidedDecodingParams / guided_decoding)."""

import json

import pytest

CHOICES = ["Paris", "Berlin", "no", "no idea"]


@pytest.fixture(scope="module")
def pagoda(python_dir):
    import pagoda

    return pagoda


@pytest.fixture(scope="module")
def llm(pagoda):
    return pagoda.LLM(kv_cache_memory="256MiB", max_model_len=1024)


def test_choice_holds_at_any_temperature(pagoda, llm):
    params = [
        pagoda.SamplingParams(temperature=1.5, seed=seed, max_tokens=20,
                              structured_outputs=pagoda.StructuredOutputsParams(choice=CHOICES))
        for seed in range(6)
    ]
    outputs = llm.generate(["The capital of France is"] * len(params), params)
    for out in outputs:
        assert out.outputs[0].text in CHOICES
        assert out.outputs[0].finish_reason == "stop"


def test_guided_decoding_is_the_older_name(pagoda, llm):
    params = pagoda.SamplingParams(temperature=0, max_tokens=20,
                                   guided_decoding=pagoda.GuidedDecodingParams(choice=["yes", "no"]))
    assert llm.generate(["Is the sky blue?"], params)[0].outputs[0].text in ("yes", "no")


def test_exactly_one_constraint(pagoda):
    with pytest.raises(ValueError, match="only use one kind"):
        pagoda.StructuredOutputsParams(choice=["a"], regex="a")
    with pytest.raises(ValueError, match="none is specified"):
        pagoda.StructuredOutputsParams()


def test_a_dict_schema_keeps_its_key_order(pagoda):
    schema = {"type": "object", "properties": {"zeta": {"type": "integer"}, "alpha": {"type": "string"}}}
    params = pagoda.StructuredOutputsParams(json=schema)
    assert list(json.loads(params.json)["properties"]) == ["zeta", "alpha"]
