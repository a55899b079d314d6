// The bidirectional attentive reader end to end: each committed fixture
// (make_fixtures.py: PyTorch float64 from the equations of Cooijmans et al.'s
// model.py and the rlnlstm / lnlstm / lstm units of layers.py; random tiny
// weights) converted from the Theano .npz and from the PyTorch port's
// safetensors, loaded fused and unfused, run on the fixture's document and
// question:
//   |probs − ref| ≤ 1e-4 · max|ref|, |alignment − ref| ≤ 1e-4 · max|ref|;
// both weight formats give bit-identical outputs (the same graph); fused and
// unfused agree to float rounding; a longer document than planned is refused;
// the converter names missing tensors and bad keys.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/models/seed_fixture_support.h"
#include "tests/support/compare.h"
#include "tests/support/scratch_dir.h"

namespace normrt::testing {
namespace {

std::string fixture(const std::string& name) {
  return std::string(NORMRT_READER_FIXTURE_DIR) + "/" + name;
}
std::string scratch_dir() { return test::scratch_dir(NORMRT_READER_SCRATCH_DIR, "reader-scratch"); }
std::string scratch(const std::string& name) { return scratch_dir() + "/" + name; }

struct Outputs {
  std::vector<float> probs, alignment;
};

Outputs run(const std::string& path, bool fuse, const std::map<std::string, IoTensor>& io) {
  auto session = Session::create(load_model(path, fuse));
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  const IoTensor& doc = io.at("document");
  const IoTensor& q = io.at("question");
  REQUIRE((*session)->set_input("document", doc.i32.data(), doc.i32.size() * 4).is_ok());
  REQUIRE((*session)->set_input("question", q.i32.data(), q.i32.size() * 4).is_ok());
  // Twice: an encoder starts every run afresh (no state carried).
  Outputs first;
  for (int i = 0; i < 2; ++i) {
    Status ran = (*session)->run();
    REQUIRE_MESSAGE(ran.is_ok(), ran.message());
    Outputs out{output_values(**session, "probs"), output_values(**session, "alignment")};
    if (i == 0)
      first = out;
    else
      CHECK((out.probs == first.probs && out.alignment == first.alignment));
  }
  return first;
}

}  // namespace

TEST_CASE("attentive reader fixtures: Theano .npz and PyTorch port, within 1e-4 of float64") {
  for (const char* norm : {"rms_norm", "layer_norm", "prms_norm", "none"}) {
    const std::string name = std::string("reader_") + norm;
    INFO(name);
    const auto io = read_io(fixture(name + ".io.safetensors"));
    std::vector<Outputs> results;
    for (const char* weights : {".npz", ".safetensors"}) {
      const std::string model = scratch(name + weights + ".nrmt");
      CHECK(convert_fixture(fixture(name + ".json"), fixture(name + weights), model) ==
            "attentive_reader");
      const Outputs fused = run(model, true, io);
      const Outputs unfused = run(model, false, io);
      const double err_probs = relative_error(fused.probs, io.at("probs").values);
      const double err_align = relative_error(fused.alignment, io.at("alignment").values);
      const double fusion = test::worst_of(relative_difference(fused.probs, unfused.probs),
                                           relative_difference(fused.alignment, unfused.alignment));
      MESSAGE(name << std::string(weights) << ": probs " << err_probs << ", alignment " << err_align
                   << " of max|ref|; fused vs unfused " << fusion);
      CHECK(err_probs <= 1e-4);
      CHECK(err_align <= 1e-4);
      CHECK(fusion <= 1e-6);
      results.push_back(fused);
    }
    CHECK(results[0].probs == results[1].probs);
    CHECK(results[0].alignment == results[1].alignment);
  }
}

TEST_CASE("attentive reader: a document longer than planned and a wrong question length fail") {
  const std::string model = scratch("reader_limits.nrmt");
  convert_fixture(fixture("reader_rms_norm.json"), fixture("reader_rms_norm.npz"), model, 8);
  auto session = Session::create(load_model(model, true));
  REQUIRE(session.is_ok());
  const std::vector<int32_t> doc(9, 1), question(4, 2), short_question(3, 2);
  REQUIRE((*session)->set_input("question", question.data(), 16).is_ok());
  Status s = (*session)->set_input("document", doc.data(), doc.size() * 4);
  if (s.is_ok()) s = (*session)->run();
  CHECK(!s.is_ok());
  CHECK(!(*session)->set_input("question", short_question.data(), 12).is_ok());
}

TEST_CASE("attentive_reader configs and weights: errors name the key or the tensors") {
  const std::string good = read_text(fixture("reader_rms_norm.json"));
  const std::string npz = fixture("reader_rms_norm.npz");
  const std::string dir = scratch_dir();
  CHECK(convert_error(good, npz, dir) == "converted");
  auto with = [&](const std::string& from, const std::string& to) {
    return replace_once(good, from, to);
  };
  CHECK(contains(convert_error(with("\"norm\": \"rms_norm\",", ""), npz, dir),
                 "key 'norm' is required"));
  CHECK(
      contains(convert_error(with("\"hidden_size\"", "\"dropout\": 1, \"hidden_size\""), npz, dir),
               "unknown key(s) 'dropout'"));
  CHECK(contains(convert_error(with("\"hidden_size\": 5", "\"hidden_size\": 6"), npz, dir),
                 "tensor 'encoder_desc_word_U' has shape [5, 20], expected [6, 24]"));
  // rlnlstm weights read as lnlstm: the LayerNorm biases are missing.
  CHECK(contains(convert_error(with("\"rms_norm\"", "\"layer_norm\""), npz, dir),
                 "missing tensor 'encoder_q_r_b3' (expected [5])"));
  // As the plain lstm, the gains are left over.
  CHECK(contains(convert_error(with("\"rms_norm\"", "\"none\""), npz, dir),
                 "unknown tensor 'encoder_desc_word_s1'"));
  CHECK(contains(convert_error(with("\"question_length\": 4", "\"question_length\": 0"), npz, dir),
                 "question_length = 0 is outside [1, 65536]"));
  CHECK(contains(
      convert_error(with("\"architecture\"", "\"weight_format\": \"torch\", \"architecture\""), npz,
                    dir),
      "missing tensor 'doc_forward.weight_ih'"));
}

}  // namespace normrt::testing
