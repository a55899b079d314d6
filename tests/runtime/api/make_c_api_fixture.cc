// Writes the C API test's fixture: a model file of the mixed blocks
// (tests/runtime/exec/runtime_test_graphs.h), an input x and the expected
// output, both evaluated in double by the reference, as raw little-endian
// float32 files. Usage: make_c_api_fixture <directory>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/format/model_file.h"
#include "runtime_test_graphs.h"

namespace {

bool write_floats(const std::string& path, const std::vector<float>& values) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return false;
  bool ok = std::fwrite(values.data(), sizeof(float), values.size(), file) == values.size();
  return std::fclose(file) == 0 && ok;
}

// A token-id model for the typed inputs: "ids" i32 [S] → Embedding of a
// [50, 4] table whose row v is (v, v + 0.25, v + 0.5, v + 0.75), so a test
// can tell which ids were looked up → "embedding" [S, 4]; S ≤ 16. A bytes
// metadata entry "tokenizer" of 6 bytes, a NUL among them: "tk\0\xff\n!".
normrt::Graph embedding_lookup() {
  using namespace normrt;
  std::vector<float> table;
  for (int v = 0; v < 50; ++v)
    for (int d = 0; d < 4; ++d) table.push_back(static_cast<float>(v) + 0.25f * d);
  GraphBuilder b;
  TensorId ids = b.input("ids", DataType::kI32, {kSequenceDim});
  TensorId rows = b.weight("table", {50, 4}, table);
  TensorId out = b.node(OpType::kEmbedding, "lookup", {ids, rows}, {{kSequenceDim, 4}});
  b.rename(out, "embedding");
  b.output(out);
  b.metadata("tokenizer", Blob{std::string("tk\0\xff\n!", 6)});
  return b.finish(16);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <directory>\n", argv[0]);
    return 2;
  }
  const std::string directory = argv[1];
  const size_t d = 48, s = 3;
  auto weights = normrt::test::mixed_blocks_weights(d, 77);
  normrt::Status written = normrt::write_model_file(normrt::test::mixed_blocks(weights, 8, false),
                                                    directory + "/c_api.nrmt");
  if (!written) {
    std::fprintf(stderr, "%s\n", written.message().c_str());
    return 1;
  }
  // A stateful model for the state functions: out = x + h, h ← out.
  written = normrt::write_model_file(normrt::test::running_sum(4), directory + "/running_sum.nrmt");
  if (!written) {
    std::fprintf(stderr, "%s\n", written.message().c_str());
    return 1;
  }
  written = normrt::write_model_file(embedding_lookup(), directory + "/ids.nrmt");
  if (!written) {
    std::fprintf(stderr, "%s\n", written.message().c_str());
    return 1;
  }
  std::vector<float> x = normrt::test::random_values(s * d, 1.0f, 5);
  std::vector<double> expected = normrt::test::mixed_blocks_reference(weights, false, x, s);
  if (!write_floats(directory + "/c_api_x.f32", x) ||
      !write_floats(directory + "/c_api_expected.f32",
                    std::vector<float>(expected.begin(), expected.end()))) {
    std::fprintf(stderr, "cannot write the fixture files in %s\n", directory.c_str());
    return 1;
  }
  return 0;
}
