"""Every failure is a normrt.Error subclass (by the status the C API would
return) carrying normrt's own message."""

import numpy as np
import pytest

import normrt


def test_the_error_classes_form_a_hierarchy():
    for cls in (normrt.InvalidArgumentError, normrt.LoadError, normrt.RunError,
                normrt.OutOfMemoryError, normrt.InternalError):
        assert issubclass(cls, normrt.Error)
        assert cls.__module__ == "normrt"
    assert issubclass(normrt.InvalidArgumentError, ValueError)
    assert issubclass(normrt.OutOfMemoryError, MemoryError)


def test_a_missing_model_file_is_a_load_error_naming_it(tmp_path):
    path = tmp_path / "absent.nrmt"
    with pytest.raises(normrt.LoadError, match="absent.nrmt: cannot open"):
        normrt.Model(str(path))


def test_a_malformed_model_file_is_a_load_error(tmp_path):
    path = tmp_path / "garbage.nrmt"
    path.write_bytes(b"not a model file" * 8)
    with pytest.raises(normrt.LoadError, match="garbage.nrmt"):
        normrt.Model(str(path))


def test_an_unknown_isa_is_a_load_error(tiny_bert):
    with pytest.raises(normrt.LoadError, match="bogus"):
        normrt.Model(str(tiny_bert["plain"]), isa="bogus")


@pytest.fixture
def session(tiny_bert):
    return normrt.Session(normrt.Model(str(tiny_bert["plain"])))


def test_an_unknown_input_names_the_known_ones(session):
    with pytest.raises(normrt.InvalidArgumentError, match=r"no input 'ids' \(inputs: input_ids\)"):
        session.set_input("ids", np.array([1, 2], dtype=np.int32))


def test_a_token_id_out_of_range_is_a_run_error(session):
    with pytest.raises(normrt.RunError, match="64"):
        session.run({"input_ids": np.array([2, 64, 3], dtype=np.int32)})


def test_an_int64_id_beyond_int32_names_the_value_and_index(session):
    ids = np.array([2, 5, 2**40, 3], dtype=np.int64)
    with pytest.raises(normrt.InvalidArgumentError, match=r"value 1099511627776 at index 2"):
        session.set_input("input_ids", ids)


def test_float_data_for_token_ids_is_refused(session):
    with pytest.raises(normrt.InvalidArgumentError, match="f32 data cannot feed input 'input_ids'"):
        session.set_input("input_ids", np.array([1.0, 2.0]))


def test_an_unsupported_dtype_is_named(session):
    with pytest.raises(normrt.InvalidArgumentError, match="numpy dtype uint8 is not accepted"):
        session.set_input("input_ids", np.array([1, 2], dtype=np.uint8))


def test_a_float64_value_beyond_float32_is_refused(mlp):
    session = normrt.Session(normrt.Model(str(mlp["path"])))
    x = mlp["io"]["x"].astype(np.float64)
    x[2, 1] = 1e300
    with pytest.raises(normrt.InvalidArgumentError, match=r"value 1e\+300.* at flat index 11"):
        session.set_input("x", x)


def test_shapes_that_do_not_fit_name_the_range(session, tiny_bert):
    longest = tiny_bert["fixture"].config["max_position_embeddings"]
    with pytest.raises(normrt.InvalidArgumentError, match=rf"1 ≤ S ≤ {longest}"):
        session.set_input("input_ids", np.zeros(longest + 1, dtype=np.int32))
    with pytest.raises(normrt.InvalidArgumentError, match="does not fit input"):
        session.set_input("input_ids", np.zeros((2, 3), dtype=np.int32))
    with pytest.raises(normrt.InvalidArgumentError, match="more than 4 dimensions"):
        session.set_input("input_ids", np.zeros((1, 1, 1, 1, 2), dtype=np.int32))


def test_unknown_outputs_and_states_are_invalid_arguments(session, tiny_bert):
    session.run({"input_ids": tiny_bert["fixture"].ids[:3]})
    with pytest.raises(normrt.InvalidArgumentError, match="nope"):
        session.output("nope")
    with pytest.raises(normrt.InvalidArgumentError, match="nope"):
        session.output("nope", copy=False)
    with pytest.raises(normrt.InvalidArgumentError, match="nope"):
        session.state("nope")


def test_too_many_threads_is_an_error_naming_the_limit(tiny_bert):
    model = normrt.Model(str(tiny_bert["plain"]))
    limit = normrt.max_session_threads()
    with pytest.raises(normrt.InvalidArgumentError, match=str(limit)):
        normrt.Session(model, threads=limit + 1)


def test_a_state_of_the_wrong_size_is_refused(lstm):
    model = normrt.Model(str(lstm["path"]))
    session = normrt.Session(model)
    name = model.states[0].name
    with pytest.raises(normrt.InvalidArgumentError, match=name):
        session.set_state(name, np.zeros(3, dtype=np.float32))
    with pytest.raises(normrt.InvalidArgumentError, match="float32"):
        session.set_state(name, np.zeros(3, dtype=np.int32))


def test_tokenizer_errors_carry_normrt_messages(tmp_path):
    with pytest.raises(normrt.LoadError, match="nothing_here"):
        normrt.Tokenizer.from_folder(str(tmp_path / "nothing_here"))
    with pytest.raises(normrt.LoadError, match="offset"):
        normrt.Tokenizer.from_bytes(b"NRTK\x01\x63 not a tokenizer")


def test_sentence_encoder_errors(tiny_bert, mlp, tmp_path):
    with pytest.raises(normrt.InvalidArgumentError, match="stores no tokenizer"):
        normrt.SentenceEncoder(str(tiny_bert["pooled"]))
    with pytest.raises(normrt.InvalidArgumentError, match="one i32 input"):
        normrt.SentenceEncoder(str(mlp["path"]), tokenizer=str(tmp_path))
