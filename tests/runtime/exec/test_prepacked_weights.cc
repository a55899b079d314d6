// Linear weights stored pre-packed in the model file: used straight from the
// mapping (no copy) when the layout is the CPU's own, repacked otherwise, and
// the results are bit-identical to a file with row-major weights.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/format/model_file.h"
#include "runtime/passes/prepack_linear_weights.h"
#include "runtime_test_graphs.h"
#include "tests/support/scratch_dir.h"

namespace normrt {
namespace {

std::vector<float> run_file(const std::string& path, const ModelOptions& options,
                            const std::vector<float>& x, size_t* copied) {
  auto model = Model::load(path, options);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  *copied = model.value()->passes().weight_copy_bytes;
  auto session = Session::create(model.value());
  REQUIRE(session.is_ok());
  REQUIRE(session.value()->set_input("x", x.data(), x.size() * 4).is_ok());
  Status ran = session.value()->run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  auto out = session.value()->output("out");
  return std::vector<float>(out->f32(), out->f32() + out->elements());
}

}  // namespace

TEST_SUITE("prepacked_weights") {
  TEST_CASE("pre-packed weights are used in place and compute the same bits") {
    Expected<Isa> isa = selected_isa();
    REQUIRE(isa.is_ok());
    const TensorLayout native = native_weight_layout(*isa);
    const std::string dir =
        test::scratch_dir(std::filesystem::temp_directory_path().string(), "prepacked-weights");
    for (bool bf16 : {false, true}) {
      for (TensorLayout layout :
           {TensorLayout::kPanels16, TensorLayout::kPanels32, TensorLayout::kPanels64}) {
        CAPTURE(bf16);
        CAPTURE(tensor_layout_name(layout));
        const size_t d = 40, s = 3;
        auto weights = test::mixed_blocks_weights(d, 9);
        const std::string plain_path = dir + "/plain.nrmt";
        const std::string packed_path = dir + "/packed.nrmt";
        REQUIRE(write_model_file(test::mixed_blocks(weights, 4, bf16), plain_path).is_ok());
        Graph packed = test::mixed_blocks(weights, 4, bf16);
        auto rewritten = prepack_linear_weights(packed, layout);
        REQUIRE(rewritten.is_ok());
        CHECK(*rewritten == 4);  // w1, w2, wq, wk
        REQUIRE(write_model_file(packed, packed_path).is_ok());

        std::vector<float> x = test::random_values(s * d, 1.0f, 3);
        for (bool fuse : {false, true}) {
          ModelOptions options;
          options.fuse = fuse;
          options.fold_norm_affine = false;  // folding makes new (owned) weights by design
          size_t plain_copied = 0, packed_copied = 0;
          std::vector<float> plain = run_file(plain_path, options, x, &plain_copied);
          std::vector<float> from_packed = run_file(packed_path, options, x, &packed_copied);
          CHECK(std::memcmp(plain.data(), from_packed.data(), plain.size() * 4) == 0);
          CHECK(plain_copied > 0);
          if (layout == native) {
            CHECK(packed_copied == 0);  // zero copy: every W borrowed from the mapping
          } else {
            CHECK(packed_copied == plain_copied);  // repacked for this CPU
          }
        }
      }
    }
  }

  TEST_CASE("a panel layout on anything but a linear W is refused at load") {
    GraphBuilder b;
    TensorId ids = b.input("ids", DataType::kI32, {kSequenceDim});
    TensorId table = b.weight("table", {64, 8}, test::random_values(64 * 8, 1.0f, 1));
    TensorId out = b.node(OpType::kEmbedding, "embed", {ids, table}, {{kSequenceDim, 8}});
    b.output(out);
    Graph graph = b.finish(4);
    Tensor& t = graph.tensors[table];
    std::vector<std::byte> packed(
        *weight_data_bytes(Tensor{t.name, t.dtype, t.shape, t.kind, {}, TensorLayout::kPanels16}));
    t.layout = TensorLayout::kPanels16;
    auto keep = std::make_shared<std::vector<std::byte>>(std::move(packed));
    t.data = {keep->data(), keep->size(), keep};
    auto model = compile_model(std::move(graph), {});
    REQUIRE_FALSE(model.is_ok());
    CHECK(model.status().message().find("has layout panels16, which only the weight W of Linear / "
                                        "FusedLinear may have") != std::string::npos);
  }
}

}  // namespace normrt
