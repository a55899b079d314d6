"""LangChain's OpenAIEmbeddings (langchain-openai, PyPI) against normrt-serve
with its defaults except base_url, api_key and check_embedding_ctx_length.

check_embedding_ctx_length=False is unavoidable here, for two reasons:
with it True (the default) LangChain tokenizes every text with tiktoken,
whose BPE file (cl100k_base) is downloaded from the internet at first use,
which this machine cannot reach; and it then sends cl100k token ids, which
are not this model's ids (LangChain's own docs say to turn it off for
OpenAI-compatible servers that are not OpenAI). With it False, LangChain
sends the texts. Its default model name, text-embedding-ada-002, is served
as an alias (--served-name); chunk_size (1000 texts per request) is its
default."""

from __future__ import annotations

import numpy as np
import openai
import pytest
from conftest import LANGCHAIN_DEFAULT_MODEL, SERVED_NAME, check_close, metric
from langchain_openai import OpenAIEmbeddings


@pytest.fixture(scope="module")
def embeddings(server):
    return OpenAIEmbeddings(base_url=server.url + "/v1", api_key="unused",
                            check_embedding_ctx_length=False)


def test_defaults_are_langchains(embeddings):
    assert embeddings.model == LANGCHAIN_DEFAULT_MODEL
    assert embeddings.chunk_size == 1000


def test_embed_documents_in_requests_of_1000(embeddings, server, model):
    texts = [f"document {i}: {model.sentences[i % len(model.sentences)]}" for i in range(1200)]
    before = metric(server, "normrt_http_requests_total", endpoint="/v1/embeddings",
                    method="POST", status="200")
    vectors = embeddings.embed_documents(texts)
    after = metric(server, "normrt_http_requests_total", endpoint="/v1/embeddings",
                   method="POST", status="200")
    assert after - before == 2  # 1000 + 200
    assert len(vectors) == 1200 and all(len(v) == model.width for v in vectors)
    # The same floats as the openai client asking for floats.
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")
    for i in (0, 999, 1000, 1199):
        want = client.embeddings.create(model=SERVED_NAME, input=texts[i], encoding_format="float")
        assert np.array_equal(np.float32(vectors[i]), np.float32(want.data[0].embedding))


def test_embed_query_matches_pytorch(embeddings, reference):
    for i, sentence in enumerate(reference.sentences):
        check_close(embeddings.embed_query(sentence), reference.embeddings[i], f"sentence {i}")
