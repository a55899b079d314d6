"""Model and Session on numpy arrays: outputs against PyTorch's float64
results (the committed fixtures) and, bit for bit, against the C API run on
the same file; dtypes, layouts, borrowing, output copies and views, state."""

import gc

import numpy as np
import pytest

import normrt
import support

# The bound of the C++ tests for these fixtures (measured errors are ~1e-6).
ATOL, RTOL = 1e-5, 1e-4


def test_model_describes_its_inputs_outputs_and_file(tiny_bert):
    model = normrt.Model(str(tiny_bert["pooled"]))
    assert [(t.name, t.dtype, t.shape) for t in model.inputs] == [("input_ids", "i32", (-1,))]
    assert [(t.name, t.dtype, t.shape) for t in model.outputs] == [("embedding", "f32", (1, 32))]
    assert model.states == []
    assert model.max_sequence_length == tiny_bert["fixture"].config["max_position_embeddings"]
    assert model.metadata("architecture") == "bert_encoder"
    assert model.metadata("pooling") == "mean_l2"
    assert model.metadata("no such key") == ""
    assert model.isa in ("scalar", "avx2", "avx512", "neon")
    assert model.passes["nodes_after"] <= model.passes["nodes_before"]
    assert model.path == str(tiny_bert["pooled"])


@pytest.mark.parametrize("s", [7, 1])
def test_last_hidden_state_matches_pytorch(tiny_bert, s):
    fixture = tiny_bert["fixture"]
    session = normrt.Session(normrt.Model(str(tiny_bert["plain"])))
    out = session.run({"input_ids": fixture.ids[:s]})
    assert list(out) == ["last_hidden_state"]
    got = out["last_hidden_state"]
    assert got.dtype == np.float32 and got.flags.c_contiguous and got.flags.writeable
    support.assert_close(got, fixture.outputs[f"last_hidden_state@{s}"], ATOL, RTOL,
                         f"last_hidden_state S={s}")


def test_pooled_embedding_matches_pytorch(tiny_bert):
    fixture = tiny_bert["fixture"]
    session = normrt.Session(normrt.Model(str(tiny_bert["pooled"])))
    got = session.run({"input_ids": fixture.ids[:7]})["embedding"]
    support.assert_close(got, fixture.outputs["embedding@7"], ATOL, RTOL, "embedding")
    assert abs(float(np.linalg.norm(got)) - 1) < 1e-6


@pytest.mark.parametrize("which", ["plain", "pooled"])
def test_outputs_equal_the_c_api_bit_for_bit(tiny_bert, capi, which):
    ids = tiny_bert["fixture"].ids[:7]
    name = "last_hidden_state" if which == "plain" else "embedding"
    want = capi.run(tiny_bert[which], {"input_ids": ids}, name)
    got = normrt.Session(normrt.Model(str(tiny_bert[which]))).run({"input_ids": ids})[name]
    assert got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_int64_ids_and_lists_give_the_int32_result(tiny_bert):
    session = normrt.Session(normrt.Model(str(tiny_bert["plain"])))
    ids = tiny_bert["fixture"].ids[:7]
    want = session.run({"input_ids": ids})["last_hidden_state"]
    for given in (ids.astype(np.int64), [int(v) for v in ids], tuple(int(v) for v in ids)):
        got = session.run({"input_ids": given})["last_hidden_state"]
        assert got.tobytes() == want.tobytes(), type(given)


def test_non_contiguous_ids_are_copied_to_the_right_values(tiny_bert):
    session = normrt.Session(normrt.Model(str(tiny_bert["plain"])))
    ids = tiny_bert["fixture"].ids[:7]
    spread = np.zeros(14, dtype=np.int32)
    spread[::2] = ids
    for dtype in (np.int32, np.int64):
        strided = spread.astype(dtype)[::2]
        assert not strided.flags.c_contiguous
        got = session.run({"input_ids": strided})["last_hidden_state"]
        want = session.run({"input_ids": np.ascontiguousarray(strided)})["last_hidden_state"]
        assert got.tobytes() == want.tobytes()


def test_int32_arrays_are_borrowed_and_int64_arrays_copied(tiny_bert):
    """C-contiguous int32 ids are read in place by every run (zero-copy);
    int64 ids are converted when bound."""
    session = normrt.Session(normrt.Model(str(tiny_bert["plain"])))
    ids = tiny_bert["fixture"].ids[:7].copy()
    changed = ids.copy()
    changed[3] = (changed[3] + 1) % 64
    want_changed = session.run({"input_ids": changed})["last_hidden_state"]
    want_original = session.run({"input_ids": ids})["last_hidden_state"]

    borrowed = ids.copy()
    session.set_input("input_ids", borrowed)
    borrowed[:] = changed  # after binding: the run sees the new values
    assert session.run()["last_hidden_state"].tobytes() == want_changed.tobytes()

    converted = ids.astype(np.int64)
    session.set_input("input_ids", converted)
    converted[:] = changed  # after binding: the run sees the values at binding
    assert session.run()["last_hidden_state"].tobytes() == want_original.tobytes()


def test_a_bound_array_stays_alive_until_rebound(tiny_bert):
    session = normrt.Session(normrt.Model(str(tiny_bert["plain"])))
    ids = tiny_bert["fixture"].ids[:7]
    want = session.run({"input_ids": ids})["last_hidden_state"]
    session.set_input("input_ids", ids.copy())  # the only reference is the session's
    gc.collect()
    np.full(4096, 63, dtype=np.int32)  # reuse freed memory, if any was freed
    assert session.run()["last_hidden_state"].tobytes() == want.tobytes()


def test_float32_input_matches_pytorch_and_float64_is_converted(mlp, capi):
    x, want = mlp["io"]["x"], mlp["io"]["logits"]
    session = normrt.Session(normrt.Model(str(mlp["path"])))
    got = session.run({"x": x})["logits"]
    support.assert_close(got, want.astype(np.float64), 1e-4 * float(np.abs(want).max()), 0, "mlp")
    assert got.tobytes() == capi.run(mlp["path"], {"x": x}, "logits").tobytes()
    as_f64 = session.run({"x": x.astype(np.float64)})["logits"]
    assert as_f64.tobytes() == got.tobytes()
    fortran = np.asfortranarray(x)
    assert not fortran.flags.c_contiguous
    assert session.run({"x": fortran})["logits"].tobytes() == got.tobytes()


def test_float32_arrays_are_borrowed(mlp):
    x = mlp["io"]["x"]
    session = normrt.Session(normrt.Model(str(mlp["path"])))
    doubled = session.run({"x": 2 * x})["logits"]
    bound = x.copy()
    session.set_input("x", bound)
    bound *= 2
    assert session.run()["logits"].tobytes() == doubled.tobytes()


def test_outputs_are_copies_and_views_keep_the_session_alive(tiny_bert):
    ids = tiny_bert["fixture"].ids
    session = normrt.Session(normrt.Model(str(tiny_bert["plain"])))
    first = session.run({"input_ids": ids[:7]})["last_hidden_state"]
    kept = first.copy()
    first[:] = 0  # a copy: writing it changes nothing in the session
    assert session.output("last_hidden_state").tobytes() == kept.tobytes()

    view = session.output("last_hidden_state", copy=False)
    assert not view.flags.writeable
    assert view.tobytes() == kept.tobytes()
    second = session.run({"input_ids": ids[:7][::-1]})["last_hidden_state"]  # same S
    assert view.tobytes() == second.tobytes()  # a view: the next run overwrote it

    del session
    gc.collect()
    assert view.tobytes() == second.tobytes()  # the view kept the session's memory alive


def test_threads_and_isa_options_give_the_same_model(tiny_bert):
    ids = tiny_bert["fixture"].ids[:7]
    want = tiny_bert["fixture"].outputs["last_hidden_state@7"]
    for options in ({"isa": "scalar"}, {"fuse": False, "fold_norm_affine": False}):
        model = normrt.Model(str(tiny_bert["plain"]), **options)
        got = normrt.Session(model, threads=2).run({"input_ids": ids})["last_hidden_state"]
        support.assert_close(got, want, ATOL, RTOL, str(options))
    assert normrt.Model(str(tiny_bert["plain"]), isa="scalar").isa == "scalar"


def test_bf16_activations_option_reaches_the_kernels(tiny_bert, models):
    """A bf16 model loaded with bf16_activations: the option is recorded, every
    matrix product names its kernel, and the output stays within the bf16
    bound of the float64 reference (what the C++ tests allow for bf16)."""
    fixture = tiny_bert["fixture"]
    path = fixture.convert(models, "--dtype", "bf16")
    ids = fixture.ids[:7]
    accurate = normrt.Model(str(path))
    fast = normrt.Model(str(path), bf16_activations=True)
    assert fast.bf16_activations and not accurate.bf16_activations
    assert len(fast.kernel_choices) == len(accurate.kernel_choices) > 0
    assert all(isinstance(node, str) and kernel for node, kernel in fast.kernel_choices)
    got = normrt.Session(fast).run({"input_ids": ids})["last_hidden_state"]
    want = fixture.outputs["last_hidden_state@7"]
    scale = float(np.max(np.abs(want)))
    assert float(np.max(np.abs(got - want))) <= 5e-2 * scale


def test_state_carries_between_runs_and_resets(lstm):
    x, want = lstm["io"]["x"], lstm["io"]["h_seq"]
    model = normrt.Model(str(lstm["path"]))
    assert {t.name for t in model.states}
    whole = normrt.Session(model).run({"x": x})["h_seq"]
    support.assert_close(whole, want.astype(np.float64), 1e-4 * float(np.abs(want).max()), 0,
                         "lstm")

    steps = normrt.Session(model)
    rows = [steps.run({"x": x[t : t + 1]})["h_seq"][0] for t in range(len(x))]
    assert steps.position == len(x)
    support.assert_close(np.stack(rows), whole.astype(np.float64), 1e-6, 1e-5, "step by step")

    fork = normrt.Session(model)
    fork.copy_state_from(steps)
    assert fork.position == steps.position
    for state in model.states:
        assert fork.state(state.name).tobytes() == steps.state(state.name).tobytes()

    steps.reset()
    assert steps.position == 0
    for state in model.states:
        assert not steps.state(state.name).any()
    assert steps.run({"x": x})["h_seq"].tobytes() == whole.tobytes()

    name = model.states[0].name
    seeded = np.full(steps.state(name).shape, 0.5, dtype=np.float32)
    steps.set_state(name, seeded)
    assert steps.state(name).tobytes() == seeded.tobytes()


def test_profile_counts_runs_per_node(tiny_bert):
    session = normrt.Session(normrt.Model(str(tiny_bert["plain"])), profile=True)
    for _ in range(3):
        session.run({"input_ids": tiny_bert["fixture"].ids[:5]})
    nodes = session.profile()
    assert nodes and all(node["runs"] == 3 for node in nodes)
    assert {"name", "op", "norm", "nanoseconds", "runs"} <= set(nodes[0])
    session.profile_reset()
    assert all(node["runs"] == 0 for node in session.profile())
