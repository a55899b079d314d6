"""The official openai client (PyPI) against normrt-serve's /v1/embeddings
and /v1/models, unmodified apart from base_url and api_key."""

from __future__ import annotations

import json

import numpy as np
import openai
import pytest
from conftest import SERVED_NAME, Server, check_close, metric


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=server.url + "/v1", api_key="unused")


def as_f32(embedding) -> np.ndarray:
    return np.asarray(embedding, dtype=np.float32)


def test_default_settings_send_base64_and_decode_it(client, model):
    raw = client.embeddings.with_raw_response.create(model=SERVED_NAME, input=model.sentences)
    # The client asks for base64 by default and decodes it itself.
    assert json.loads(raw.http_request.content)["encoding_format"] == "base64"
    wire = raw.http_response.json()
    assert all(isinstance(item["embedding"], str) for item in wire["data"])
    result = raw.parse()
    assert result.model == SERVED_NAME and result.object == "list"
    assert [item.index for item in result.data] == list(range(len(model.sentences)))
    for item in result.data:
        assert len(item.embedding) == model.width
        assert abs(np.linalg.norm(as_f32(item.embedding)) - 1.0) < 1e-5
    tokens = sum(item["tokens"] for item in wire["data"])
    assert result.usage.prompt_tokens == tokens and result.usage.total_tokens == tokens


def test_base64_and_float_are_bit_identical(client, model):
    base64_result = client.embeddings.create(model=SERVED_NAME, input=model.sentences)
    float_result = client.embeddings.create(model=SERVED_NAME, input=model.sentences,
                                            encoding_format="float")
    for b, f in zip(base64_result.data, float_result.data):
        assert np.array_equal(as_f32(b.embedding), as_f32(f.embedding))
        assert as_f32(b.embedding).tobytes() == as_f32(f.embedding).tobytes()


def test_embeddings_match_pytorch(client, reference):
    result = client.embeddings.create(model=SERVED_NAME, input=reference.sentences)
    assert result.usage.prompt_tokens == sum(len(ids) for ids in reference.ids)
    for i, item in enumerate(result.data):
        check_close(item.embedding, reference.embeddings[i], f"sentence {i}")


def test_token_id_inputs_equal_their_texts(client, reference):
    texts = client.embeddings.create(model=SERVED_NAME, input=reference.sentences)
    one = client.embeddings.create(model=SERVED_NAME, input=reference.ids[0])
    many = client.embeddings.create(model=SERVED_NAME, input=reference.ids)
    assert one.usage.prompt_tokens == len(reference.ids[0])
    assert np.array_equal(as_f32(one.data[0].embedding), as_f32(texts.data[0].embedding))
    for t, m in zip(texts.data, many.data):
        assert np.array_equal(as_f32(t.embedding), as_f32(m.embedding))


def test_unknown_model_is_a_404_in_openai_shape(client):
    with pytest.raises(openai.NotFoundError) as caught:
        client.embeddings.create(model="gpt-nonexistent", input="hello")
    assert caught.value.code == "model_not_found"
    assert caught.value.body["param"] == "model" and caught.value.body["type"]
    assert "gpt-nonexistent" in caught.value.body["message"]


def test_dimensions_without_matryoshka_name_the_models_width(client, model):
    with pytest.raises(openai.BadRequestError) as caught:
        client.embeddings.create(model=SERVED_NAME, input="hello", dimensions=16)
    assert caught.value.code == "invalid_dimensions"
    assert caught.value.body["param"] == "dimensions"
    assert f"{model.width}-dimensional" in caught.value.body["message"]
    # The model's own width is always accepted.
    full = client.embeddings.create(model=SERVED_NAME, input="hello", dimensions=model.width)
    assert len(full.data[0].embedding) == model.width


def test_matryoshka_truncates_and_renormalizes(model):
    server = Server(model, "--matryoshka")
    try:
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")
        full = client.embeddings.create(model=SERVED_NAME, input=model.sentences)
        cut = client.embeddings.create(model=SERVED_NAME, input=model.sentences, dimensions=16)
        for f, c in zip(full.data, cut.data):
            prefix = np.asarray(f.embedding[:16], dtype=np.float64)
            want = prefix / np.linalg.norm(prefix)
            np.testing.assert_allclose(np.asarray(c.embedding, dtype=np.float64), want,
                                       rtol=0, atol=2e-7)
    finally:
        assert server.stop() == 0


def test_models_list_and_retrieve(client):
    ids = [m.id for m in client.models.list()]
    assert ids[0] == SERVED_NAME and "text-embedding-ada-002" in ids
    assert client.models.retrieve(SERVED_NAME).id == SERVED_NAME
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("nope")


def test_a_batch_of_1500_texts_in_one_request(client, server):
    texts = [f"sentence number {i} of a long batch" for i in range(1500)]
    before = metric(server, "normrt_inputs_total", endpoint="/v1/embeddings")
    result = client.embeddings.create(model=SERVED_NAME, input=texts)
    assert len(result.data) == 1500
    assert metric(server, "normrt_inputs_total", endpoint="/v1/embeddings") == before + 1500
    for i in (0, 777, 1499):  # each equals the text embedded alone
        alone = client.embeddings.create(model=SERVED_NAME, input=texts[i])
        assert np.array_equal(as_f32(result.data[i].embedding), as_f32(alone.data[0].embedding))
