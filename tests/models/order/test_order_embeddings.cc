// Order embeddings end to end: each committed fixture (make_fixtures.py:
// PyTorch float64 from the equations of ivendrov/order-embedding's model.py
// and the rlngru / lngru / gru units of layers.py; random tiny weights)
// converted from the Theano .npz and from the PyTorch port's safetensors,
// fused (Linear → norm made FusedLinear) and unfused, run on the fixture's
// caption and images:
//   sentence, image_embeddings, order_violation each within 1e-4 · max|ref|;
// both weight formats give bit-identical outputs; fused ≡ unfused to float
// rounding; converter errors name the key or the tensor.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/models/seed_fixture_support.h"
#include "tests/support/scratch_dir.h"

namespace normrt::testing {
namespace {

std::string fixture(const std::string& name) {
  return std::string(NORMRT_ORDER_FIXTURE_DIR) + "/" + name;
}
std::string scratch_dir() { return test::scratch_dir(NORMRT_ORDER_SCRATCH_DIR, "order-scratch"); }
std::string scratch(const std::string& name) { return scratch_dir() + "/" + name; }

const char* const kOutputs[] = {"sentence", "image_embeddings", "order_violation"};

std::vector<std::vector<float>> run(const std::string& path, bool fuse,
                                    const std::map<std::string, IoTensor>& io,
                                    size_t* fused_linears = nullptr) {
  auto model = load_model(path, fuse);
  if (fused_linears) *fused_linears = model->passes().fused_linear_nodes;
  auto session = Session::create(model);
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  const IoTensor& ids = io.at("ids");
  const IoTensor& images = io.at("images");
  REQUIRE((*session)->set_input("ids", ids.i32.data(), ids.i32.size() * 4).is_ok());
  REQUIRE((*session)->set_input("images", images.f32.data(), images.f32.size() * 4).is_ok());
  Status ran = (*session)->run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  std::vector<std::vector<float>> out;
  for (const char* name : kOutputs) out.push_back(output_values(**session, name));
  return out;
}

}  // namespace

TEST_CASE("order embedding fixtures: Theano .npz and PyTorch port, within 1e-4 of float64") {
  for (const char* norm : {"rms_norm", "layer_norm", "prms_norm", "none"}) {
    const std::string name = std::string("order_") + norm;
    INFO(name);
    const auto io = read_io(fixture(name + ".io.safetensors"));
    std::vector<std::vector<std::vector<float>>> results;
    for (const char* weights : {".npz", ".safetensors"}) {
      const std::string model = scratch(name + weights + ".nrmt");
      CHECK(convert_fixture(fixture(name + ".json"), fixture(name + weights), model) ==
            "order_embeddings");
      size_t fused_linears = 0;
      const auto fused = run(model, true, io, &fused_linears);
      const auto unfused = run(model, false, io);
      // The two input projections with their norms: Linear → norm fused.
      CHECK(fused_linears == (std::string(norm) == "none" ? 0u : 2u));
      for (size_t i = 0; i < 3; ++i) {
        const double err = relative_error(fused[i], io.at(kOutputs[i]).values);
        const double fusion = relative_difference(fused[i], unfused[i]);
        MESSAGE(name << std::string(weights) << " " << std::string(kOutputs[i]) << ": " << err
                     << " of max|ref|; fused vs unfused " << fusion);
        CHECK(err <= 1e-4);
        CHECK(fusion <= 1e-6);
      }
      results.push_back(fused);
    }
    CHECK(results[0] == results[1]);
  }
}

TEST_CASE(
    "order embeddings: each score is Σ max(0, sentence − image)² of the graph's own outputs") {
  const std::string model = scratch("order_prms_norm.npz.nrmt");
  convert_fixture(fixture("order_prms_norm.json"), fixture("order_prms_norm.npz"), model);
  const auto io = read_io(fixture("order_prms_norm.io.safetensors"));
  const auto out = run(model, true, io);
  const std::vector<float>& s = out[0];
  const size_t d = s.size();
  REQUIRE(out[1].size() == d * out[2].size());
  for (size_t j = 0; j < out[2].size(); ++j) {
    double e = 0;
    for (size_t t = 0; t < d; ++t) {
      const double gap = double(s[t]) - out[1][j * d + t];
      if (gap > 0) e += gap * gap;
    }
    CHECK(std::fabs(out[2][j] - e) <= 1e-6 * e + 1e-12);
    // Both embeddings lie on the unit sphere's positive orthant.
    for (size_t t = 0; t < d; ++t) CHECK(out[1][j * d + t] >= 0.0f);
  }
}

TEST_CASE("order_embeddings configs and weights: errors name the key or the tensors") {
  const std::string good = read_text(fixture("order_rms_norm.json"));
  const std::string npz = fixture("order_rms_norm.npz");
  const std::string dir = scratch_dir();
  CHECK(convert_error(good, npz, dir) == "converted");
  auto with = [&](const std::string& from, const std::string& to) {
    return replace_once(good, from, to);
  };
  CHECK(contains(convert_error(with("\"norm\": \"rms_norm\",", ""), npz, dir),
                 "key 'norm' is required"));
  CHECK(contains(convert_error(with("\"dim\": 8", "\"dim\": 9"), npz, dir),
                 "tensor 'encoder_U' has shape [8, 16], expected [9, 18]"));
  CHECK(contains(convert_error(with("\"rms_norm\"", "\"layer_norm\""), npz, dir),
                 "missing tensor 'encoder_b4' (expected [8])"));
  CHECK(contains(convert_error(with("\"rms_norm\"", "\"none\""), npz, dir),
                 "unknown tensor 'encoder_s1'"));
  CHECK(contains(convert_error(with("\"num_images\": 3", "\"num_images\": 0"), npz, dir),
                 "num_images = 0 is outside"));
  CHECK(contains(convert_error(with("\"dim\"", "\"abs\": 2, \"dim\""), npz, dir), "'abs'"));
}

}  // namespace normrt::testing
