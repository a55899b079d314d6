// normrt-run: runs a model file at batch 1 on text, token ids or tensors
// (.npy or raw), prints its outputs and, with --repeat, the latency; with
// --generate, decodes after the ids (run_generate.cc). See run_usage().
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"
#include "normrt/normrt.hpp"
#include "tools/run/run_cli.h"
#include "tools/run/run_generate.h"
#include "tools/run/run_inputs.h"
#include "tools/run/run_text.h"

namespace normrt::run {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "normrt-run: %s\n", message.c_str());
  return 1;
}

// The input fed with token ids: --token-input, else the only i32 input that
// no --input gives, else among several the one the model names for decoding.
constexpr const char* kTokenTypeInput = "token_type_ids";

// True if the model has an input `name` that no --input gives.
bool has_free_input(const Model& model, const RunOptions& options, const std::string& name) {
  for (const auto& file : options.input_files) {
    if (file.first == name) return false;
  }
  for (const TensorInfo& input : model.inputs()) {
    if (input.name == name) return true;
  }
  return false;
}

// The i32 input the ids go to; `types_bound`: token_type_ids is fed from the text.
Expected<std::string> id_input(const Model& model, const RunOptions& options, bool types_bound) {
  if (!options.token_input.empty()) return options.token_input;
  const std::string named = model.metadata("decode_token_input");
  std::string name;
  bool several = false;
  for (const TensorInfo& input : model.inputs()) {
    if (input.dtype != "i32") continue;
    bool given = false;
    for (const auto& file : options.input_files) given = given || file.first == input.name;
    if (given || (types_bound && input.name == kTokenTypeInput)) continue;
    if (!name.empty()) {
      if (!named.empty()) {
        several = true;
        continue;
      }
      return Status::error(
          "the model has several i32 inputs ('" + name + "', '" + input.name +
          "'); name the token input with --token-input or give the others with --input");
    }
    name = input.name;
  }
  if (several) return named;
  if (name.empty())
    return Status::error("the model has no i32 (token id) input left for the ids; use --input");
  return name;
}

void print_output(const std::string& name, const TensorRef& out, size_t limit) {
  std::string shape;
  for (size_t dim : out.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(dim);
  std::printf("%s [%s] %s:", name.c_str(), shape.c_str(), std::string(out.dtype).c_str());
  const size_t count = limit == 0 ? out.elements() : std::min(limit, out.elements());
  double norm = 0;
  for (size_t i = 0; i < out.elements(); ++i) {
    double v = out.dtype == "i32" ? static_cast<const int32_t*>(out.data)[i] : out.f32()[i];
    norm += v * v;
    if (i < count) std::printf(" %.6g", v);
  }
  if (count < out.elements()) std::printf(" … (%zu more)", out.elements() - count);
  std::printf("\n  ‖%s‖₂ = %.6g\n", name.c_str(), std::sqrt(norm));
}

int run(const RunOptions& options) {
  ModelOptions model_options;
  model_options.isa = options.isa;
  model_options.fuse = options.fuse;
  model_options.fold_norm_affine = options.fuse;
  auto model = Model::load(options.model, model_options);
  if (!model) return fail(model.status().message());
  SessionOptions session_options;
  session_options.threads = options.threads;
  auto session = Session::create(model.value(), session_options);
  if (!session) return fail(session.status().message());

  // Inputs: they must stay alive while the session runs.
  std::vector<int32_t> ids = options.ids;
  std::vector<int32_t> type_ids;  // bound to token_type_ids when the model has it
  std::vector<InputData> files;
  std::vector<std::pair<std::string, std::pair<const void*, size_t>>> bindings;
  if (options.has_text) {
    auto encoded = text_ids(options, *model.value());
    if (!encoded) return fail(encoded.status().message());
    ids = std::move(encoded.value().ids);
    type_ids = std::move(encoded.value().type_ids);
    if (encoded.value().truncated)
      std::printf("tokens: %zu (truncated: the text is longer than the model's maximum of %zu)\n",
                  ids.size(), model.value()->max_sequence_length());
    else
      std::printf("tokens: %zu\n", ids.size());
  }
  for (const auto& [name, path] : options.input_files) {
    auto data = load_input_file(*model.value(), name, path, options.check_finite);
    if (!data) return fail(data.status().message());
    files.push_back(std::move(data).value());
  }
  // A text's segments feed a token_type_ids input (BERT sentence pairs)
  // unless --input gives it; a model without one takes the ids alone.
  const bool bind_types =
      !type_ids.empty() && has_free_input(*model.value(), options, kTokenTypeInput);
  std::string token_input;
  if (!ids.empty()) {
    auto name = id_input(*model.value(), options, bind_types);
    if (!name) return fail(name.status().message());
    token_input = *name;
  }
  if (options.generate > 0) return generate(options, model.value(), token_input, ids, files);

  if (!ids.empty()) bindings.push_back({token_input, {ids.data(), ids.size() * sizeof(int32_t)}});
  if (bind_types) {
    bindings.push_back({kTokenTypeInput, {type_ids.data(), type_ids.size() * sizeof(int32_t)}});
  }
  for (const InputData& file : files) {
    bindings.push_back({file.name, {file.bytes.data(), file.bytes.size()}});
  }
  auto bind_and_run = [&]() -> Status {
    for (const auto& [name, data] : bindings) {
      NORMRT_RETURN_IF_ERROR(session.value()->set_input(name, data.first, data.second));
    }
    return session.value()->run();
  };
  if (Status s = bind_and_run(); !s) return fail(s.message());
  for (const TensorInfo& info : model.value()->outputs()) {
    print_output(info.name, *session.value()->output(info.name), options.print_values);
  }

  if (options.repeat > 0) {
    std::vector<double> micros;
    micros.reserve(options.repeat);
    for (size_t i = 0; i < options.repeat; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (Status s = bind_and_run(); !s) return fail(s.message());
      micros.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
    }
    std::sort(micros.begin(), micros.end());
    auto at = [&](double q) {
      return micros[std::min(micros.size() - 1, size_t(q * micros.size()))];
    };
    std::printf(
        "latency over %zu runs (isa %s, %zu thread%s, %s): p50 %.1f us, p90 %.1f us, p99 %.1f us\n",
        micros.size(), std::string(model.value()->isa()).c_str(), options.threads,
        options.threads == 1 ? "" : "s", options.fuse ? "fused" : "unfused", at(0.5), at(0.9),
        at(0.99));
  }
  return 0;
}

}  // namespace
}  // namespace normrt::run

int main(int argc, char** argv) {
  bool help = false;
  auto options = normrt::run::parse_run_options(argc, argv, &help);
  if (help) {
    if (options && options->show_version) {
      std::printf("normrt-run %s\n", normrt::version());
    } else {
      std::fputs(normrt::run::run_usage(), stdout);
    }
    return 0;
  }
  if (!options) {
    std::fprintf(stderr, "normrt-run: %s\n\n%s", options.status().message().c_str(),
                 normrt::run::run_usage());
    return 2;
  }
  return normrt::run::run(*options);
}
