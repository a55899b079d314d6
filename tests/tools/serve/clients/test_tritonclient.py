"""tritonclient[http] (PyPI) against normrt-serve's KServe v2 / Open
Inference Protocol endpoints: health, metadata, inference on texts (BYTES)
and on token ids (INT32, INT64), JSON and binary tensors (the client's
default), output selection, the request id."""

from __future__ import annotations

import numpy as np
import openai
import pytest
import tritonclient.http as httpclient
from conftest import SERVED_NAME, check_close
from tritonclient.utils import InferenceServerException


@pytest.fixture(scope="module")
def client(server):
    return httpclient.InferenceServerClient(f"127.0.0.1:{server.port}")


@pytest.fixture(scope="module")
def openai_floats(server, model):
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")
    result = client.embeddings.create(model=SERVED_NAME, input=model.sentences,
                                      encoding_format="float")
    return np.array([item.embedding for item in result.data], dtype=np.float32)


def texts_input(sentences: list[str], binary: bool) -> httpclient.InferInput:
    data = np.array([s.encode("utf-8") for s in sentences], dtype=np.object_)
    tensor = httpclient.InferInput("text", [len(sentences)], "BYTES")
    tensor.set_data_from_numpy(data, binary_data=binary)
    return tensor


def test_health_and_metadata(client, model):
    assert client.is_server_live() and client.is_server_ready()
    assert client.is_model_ready(SERVED_NAME)
    assert client.is_model_ready(SERVED_NAME, model_version="1")
    assert not client.is_model_ready("nope")
    server = client.get_server_metadata()
    assert server["name"] == "normrt" and "binary_tensor_data" in server["extensions"]
    metadata = client.get_model_metadata(SERVED_NAME)
    assert metadata["name"] == SERVED_NAME and metadata["versions"] == ["1"]
    inputs = {t["name"]: t for t in metadata["inputs"]}
    assert inputs["input_ids"]["datatype"] == "INT32" and inputs["input_ids"]["shape"] == [-1]
    assert inputs["text"]["datatype"] == "BYTES" and inputs["text"]["shape"] == [-1]
    assert metadata["outputs"] == [{"name": "embedding", "datatype": "FP32",
                                    "shape": [-1, model.width]}]


def test_texts_with_the_clients_defaults_are_binary(client, model, openai_floats):
    result = client.infer(SERVED_NAME, [texts_input(model.sentences, True)])
    response = result.get_response()
    assert response["model_name"] == SERVED_NAME
    assert response["outputs"][0]["parameters"]["binary_data_size"] == openai_floats.nbytes
    got = result.as_numpy("embedding")
    assert got.dtype == np.float32 and got.shape == (len(model.sentences), model.width)
    assert np.array_equal(got, openai_floats)


def test_texts_as_json_with_an_id_and_a_selected_output(client, model, openai_floats):
    result = client.infer(SERVED_NAME, [texts_input(model.sentences, False)],
                          outputs=[httpclient.InferRequestedOutput("embedding", binary_data=False)],
                          request_id="request-42")
    response = result.get_response()
    assert response["id"] == "request-42"
    assert "data" in response["outputs"][0]
    assert np.array_equal(result.as_numpy("embedding"), openai_floats)


@pytest.mark.parametrize("datatype", ["INT32", "INT64"])
@pytest.mark.parametrize("binary", [True, False])
def test_token_ids(client, reference, datatype, binary):
    ids = np.array(reference.ids[0], dtype=np.int32 if datatype == "INT32" else np.int64)
    tensor = httpclient.InferInput("input_ids", [len(ids)], datatype)
    tensor.set_data_from_numpy(ids, binary_data=binary)
    result = client.infer(SERVED_NAME, [tensor], model_version="1")
    got = result.as_numpy("embedding")
    assert got.shape == (1, 384)
    check_close(got[0], reference.embeddings[0], "sentence 0 by ids")
    texts = client.infer(SERVED_NAME, [texts_input(reference.sentences[:1], True)])
    assert np.array_equal(got, texts.as_numpy("embedding"))


def test_errors_are_exceptions_with_the_servers_message(client):
    with pytest.raises(InferenceServerException) as caught:
        client.infer("nope", [texts_input(["a"], True)])
    assert caught.value.status() == "404" and "'nope' is not served here" in caught.value.message()
    bad = httpclient.InferInput("input_ids", [2], "FP32")
    bad.set_data_from_numpy(np.array([1.0, 2.0], dtype=np.float32))
    with pytest.raises(InferenceServerException) as caught:
        client.infer(SERVED_NAME, [bad])
    assert caught.value.status() == "400" and "datatype FP32" in caught.value.message()
