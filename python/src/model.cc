#include "model.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include "errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace normrt::python {
namespace {

nb::tuple shape_tuple(const std::vector<int64_t>& shape) {
  nb::list dims;
  for (int64_t dim : shape) dims.append(dim);
  return nb::tuple(dims);
}

nb::dict passes_dict(const PassSummary& p) {
  nb::dict d;
  d["nodes_before"] = p.nodes_before;
  d["nodes_after"] = p.nodes_after;
  d["fused_linear_nodes"] = p.fused_linear_nodes;
  d["folded_norms"] = p.folded_norms;
  d["weight_copy_bytes"] = p.weight_copy_bytes;
  d["arena_bytes"] = p.arena_bytes;
  d["unshared_bytes"] = p.unshared_bytes;
  return d;
}

PyModel load(const std::string& path, const std::string& isa, bool fuse, bool fold_norm_affine,
             bool bf16_activations) {
  ModelOptions options;
  options.isa = isa;
  options.fuse = fuse;
  options.fold_norm_affine = fold_norm_affine;
  options.bf16_activations = bf16_activations;
  Expected<std::shared_ptr<const Model>> loaded = Status::error("");
  {
    nb::gil_scoped_release release;  // mapping, validating and packing take milliseconds
    loaded = Model::load(path, options);
  }
  return PyModel{value_or_throw(std::move(loaded), ErrorKind::kLoadFailed), path};
}

}  // namespace

void bind_model(nb::module_& m) {
  nb::class_<TensorInfo>(m, "TensorInfo",
                         "A graph input, output or state as the model declares it.")
      .def_ro("name", &TensorInfo::name)
      .def_ro("dtype", &TensorInfo::dtype, "The element type: f32 or i32.")
      .def_prop_ro(
          "shape", [](const TensorInfo& t) { return shape_tuple(t.shape); },
          nb::for_getter(nb::sig("def shape(self) -> tuple[int, ...]")),
          nb::for_getter("Dimensions; -1 is the sequence length S, chosen per run."))
      .def("__repr__", [](const TensorInfo& t) {
        return "TensorInfo(name=" + nb::cast<std::string>(nb::repr(nb::str(t.name.c_str()))) +
               ", dtype='" + t.dtype +
               "', shape=" + nb::cast<std::string>(nb::repr(shape_tuple(t.shape))) + ")";
      });

  nb::class_<PyModel>(m, "Model",
                      "A model file (.nrmt), mapped, validated and prepared once. Immutable: "
                      "any number of Sessions may use it from any threads.")
      .def(nb::new_(&load), "path"_a, nb::kw_only(), "isa"_a = "", "fuse"_a = true,
           "fold_norm_affine"_a = true, "bf16_activations"_a = false,
           "Loads a model file. isa: empty (the best this CPU runs, or NORMRT_ISA), "
           "scalar, avx2, avx512 or neon. fuse: fuse Linear → norm chains. "
           "fold_norm_affine: fold pre-norm gains into the following linear layers. "
           "bf16_activations: bf16 matrices run with activations rounded to bf16 (faster, "
           "~1e-3 relative error per product; where the CPU lacks AVX512-BF16 and AMX the "
           "accurate path runs, kernel_choices says which). "
           "Raises LoadError with normrt's message.")
      .def_ro("path", &PyModel::path)
      .def_prop_ro("inputs", [](const PyModel& m) { return m.model->inputs(); })
      .def_prop_ro("outputs", [](const PyModel& m) { return m.model->outputs(); })
      .def_prop_ro(
          "states", [](const PyModel& m) { return m.model->states(); },
          "State a Session carries between runs (RNN states, KV caches).")
      .def_prop_ro("max_sequence_length",
                   [](const PyModel& m) { return m.model->max_sequence_length(); })
      .def_prop_ro(
          "batch_refusal", [](const PyModel& m) { return std::string(m.model->batch_refusal()); },
          "'' if the model runs batches (Session(max_batch=...)); else why not.")
      .def_prop_ro(
          "isa", [](const PyModel& m) { return std::string(m.model->isa()); },
          "The kernel ISA chosen at load.")
      .def_prop_ro(
          "bf16_activations", [](const PyModel& m) { return m.model->bf16_activations(); },
          "Whether bf16 activations were asked for (option or NORMRT_BF16_ACTIVATIONS).")
      .def_prop_ro(
          "kernel_choices",
          [](const PyModel& m) {
            nb::list choices;
            for (const KernelChoice& c : m.model->kernel_choices())
              choices.append(nb::make_tuple(c.node, c.kernel));
            return choices;
          },
          nb::for_getter(nb::sig("def kernel_choices(self) -> list[tuple[str, str]]")),
          nb::for_getter("Per node with a matrix product: (node, backend and kernel with the "
                         "reason), as chosen at load."))
      .def_prop_ro(
          "passes", [](const PyModel& m) { return passes_dict(m.model->passes()); },
          nb::for_getter(nb::sig("def passes(self) -> dict[str, int]")),
          nb::for_getter("What the fusion and folding passes did, and the session arena's size."))
      .def(
          "metadata", [](const PyModel& m, std::string_view key) { return m.model->metadata(key); },
          "key"_a, "A metadata entry of the file as text (empty if absent or bytes).")
      .def(
          "metadata_bytes",
          [](const PyModel& m, std::string_view key) {
            const std::string_view bytes = m.model->metadata_bytes(key);
            return nb::bytes(bytes.data(), bytes.size());
          },
          "key"_a,
          "A bytes metadata entry of the file (b'' if absent); \"tokenizer\": the tokenizer "
          "normrt-convert stored, for Tokenizer.from_bytes.")
      .def("__repr__", [](const PyModel& m) {
        return "Model(" + nb::cast<std::string>(nb::repr(nb::str(m.path.c_str()))) + ", isa='" +
               std::string(m.model->isa()) + "')";
      });
}

}  // namespace normrt::python
