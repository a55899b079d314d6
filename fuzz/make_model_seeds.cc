// Writes the model_loader seed corpus (fuzz/corpus/model_loader/): tiny
// model files that together use every op, dtype, tensor kind, layout and
// attribute type the format has, so that the fuzzer starts from files that
// reach compile_model() and Session::run(). Each graph is a few hundred
// bytes of weights (dims 2..8, max_sequence_length ≤ 8): mutations then
// land in the tables rather than in weight bytes.
//
//   build/fuzz/fuzz/make_model_seeds fuzz/corpus/model_loader
//
// Every seed is checked before it is written: it compiles and runs on zeros.
// (A seed that fails only with the passes on is written with a warning.)
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/format/model_file.h"
#include "runtime/graph/graph_builder.h"
#include "runtime/passes/fuse_linear_chains.h"
#include "runtime/passes/prepack_linear_weights.h"
#include "runtime/passes/prune_tensors.h"

namespace {

using namespace normrt;
constexpr int64_t S = kSequenceDim;

/// Deterministic values in [-1, 1) (no RNG: the seeds are reproducible).
std::vector<float> values(size_t count, unsigned salt) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = std::sin(0.7f * float(i + 1) + float(salt)) * 0.9f;
  return v;
}
TensorId weight(GraphBuilder& b, const std::string& name, Shape shape, bool bf16 = false) {
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  const std::vector<float> v = values(count, static_cast<unsigned>(name.size()));
  return bf16 ? b.weight_bf16(name, std::move(shape), v) : b.weight(name, std::move(shape), v);
}

// x[S,4] → Linear+bias → LayerNorm → relu → Linear → "y": the fusion pass's chain.
Graph mlp() {
  GraphBuilder b;
  const TensorId x = b.input("x", DataType::kF32, {S, 4});
  TensorId h = b.node(OpType::kLinear, "fc1",
                      {x, weight(b, "fc1.w", {6, 4}), weight(b, "fc1.b", {6})}, {{S, 6}});
  h = b.node(OpType::kLayerNorm, "ln1", {h, weight(b, "ln1.g", {6}), weight(b, "ln1.b", {6})},
             {{S, 6}}, {{"eps", 1e-5}});
  h = b.node(OpType::kActivation, "act1", {h}, {{S, 6}}, {{"activation", std::string("relu")}});
  const TensorId y =
      b.node(OpType::kLinear, "fc2", {h, weight(b, "fc2.w", {3, 6}, true)}, {{S, 3}});
  b.rename(y, "y");
  b.output(y);
  b.metadata("architecture", std::string("mlp"));
  b.metadata("eps", 1e-5);
  b.metadata("layers", int64_t{2});
  b.metadata("sizes", std::vector<int64_t>{4, 6, 3});
  return b.finish(4);
}

// Pre-norm residual stream: RmsNorm with residual and sum, PRmsNorm, Add, Mul,
// gelu, softmax; eps added to the RMS, gains as 1 + g.
Graph residual_norms() {
  GraphBuilder b;
  const TensorId x = b.input("x", DataType::kF32, {S, 8});
  const TensorId r = b.input("r", DataType::kF32, {S, 8});
  const TensorId y =
      b.node(OpType::kRmsNorm, "rms", {x, weight(b, "rms.g", {8}), kNoTensor, r}, {{S, 8}, {S, 8}},
             {{"eps_placement", std::string("added_to_rms")},
              {"gain_convention", std::string("one_plus")}});
  const TensorId sum = y + 1;
  TensorId t = b.node(OpType::kLinear, "proj", {y, weight(b, "proj.w", {8, 8})}, {{S, 8}});
  t = b.node(OpType::kAdd, "add", {t, sum}, {{S, 8}});
  t = b.node(OpType::kPRmsNorm, "prms", {t, weight(b, "prms.g", {8}), weight(b, "prms.b", {8})},
             {{S, 8}}, {{"p", 0.5}});
  t = b.node(OpType::kActivation, "gelu", {t}, {{S, 8}},
             {{"activation", std::string("gelu_tanh")}});
  t = b.node(OpType::kMul, "scale", {t, weight(b, "scale.w", {8})}, {{S, 8}});
  t = b.node(OpType::kSoftmax, "softmax", {t}, {{S, 8}});
  b.rename(t, "probs");
  b.output(t);
  return b.finish(6);
}

// ids → token + position embeddings → LayerNorm → self-attention → MeanPool
// → L2Normalize, and the first token through Slice; Concat and Split.
Graph encoder() {
  GraphBuilder b;
  const TensorId ids = b.input("ids", DataType::kI32, {S});
  const TensorId tok =
      b.node(OpType::kEmbedding, "tok", {ids, weight(b, "tok.table", {5, 4}, true)}, {{S, 4}});
  const TensorId pos = b.node(OpType::kEmbedding, "pos", {weight(b, "pos.table", {8, 4})}, {{S, 4}},
                              {{"positions", int64_t{1}}});
  TensorId h = b.node(OpType::kAdd, "emb", {tok, pos}, {{S, 4}});
  h = b.node(OpType::kLayerNorm, "ln", {h, weight(b, "ln.g", {4})}, {{S, 4}});
  const TensorId qkv = b.node(OpType::kLinear, "qkv", {h, weight(b, "qkv.w", {12, 4})}, {{S, 12}});
  const TensorId q =
      b.node(OpType::kSplit, "split", {qkv}, {{S, 4}, {S, 4}, {S, 4}}, {{"axis", int64_t{1}}});
  const TensorId a = b.node(OpType::kAttention, "attn", {q, q + 1, q + 2}, {{S, 4}},
                            {{"num_heads", int64_t{2}}, {"scale", 0.5}});
  const TensorId pooled = b.node(OpType::kMeanPool, "pool", {a}, {{1, 4}});
  const TensorId unit = b.node(OpType::kL2Normalize, "l2", {pooled}, {{1, 4}}, {{"eps", 1e-12}});
  const TensorId first = b.node(OpType::kSlice, "cls", {a}, {{1, 4}},
                                {{"axis", int64_t{0}}, {"begin", int64_t{0}}, {"end", int64_t{1}}});
  const TensorId both =
      b.node(OpType::kConcat, "cat", {unit, first}, {{1, 8}}, {{"axis", int64_t{-1}}});
  b.rename(both, "embedding");
  b.output(both);
  b.output(a);
  return b.finish(8);
}

// One decoder step over a KV cache: ids → Embedding → q, k, v → Rope → causal
// grouped-query Attention (caches in state) → logits of the last token.
Graph decoder() {
  GraphBuilder b;
  const TensorId ids = b.input("ids", DataType::kI32, {S});
  const TensorId k_cache = b.state("k_cache", DataType::kF32, {8, 4});
  const TensorId v_cache = b.state("v_cache", DataType::kF32, {8, 4});
  const TensorId h = b.node(OpType::kEmbedding, "emb", {ids, weight(b, "emb.table", {6, 8})},
                            {{S, 8}}, {{"row_offset", int64_t{1}}});
  TensorId q = b.node(OpType::kLinear, "q", {h, weight(b, "q.w", {8, 8})}, {{S, 8}});
  TensorId k = b.node(OpType::kLinear, "k", {h, weight(b, "k.w", {4, 8})}, {{S, 4}});
  const TensorId v = b.node(OpType::kLinear, "v", {h, weight(b, "v.w", {4, 8})}, {{S, 4}});
  q = b.node(OpType::kRope, "rope_q", {q}, {{S, 8}}, {{"num_heads", int64_t{2}}});
  k = b.node(OpType::kRope, "rope_k", {k}, {{S, 4}},
             {{"num_heads", int64_t{1}}, {"style", std::string("interleaved")}, {"theta", 500.0}});
  const TensorId a =
      b.node(OpType::kAttention, "attn", {q, k, v, k_cache, v_cache}, {{S, 8}},
             {{"num_heads", int64_t{2}}, {"num_kv_heads", int64_t{1}}, {"causal", int64_t{1}}});
  const TensorId last =
      b.node(OpType::kSlice, "last", {a}, {{1, 8}}, {{"axis", int64_t{0}}, {"begin", int64_t{-1}}});
  const TensorId logits =
      b.node(OpType::kLinear, "lm_head", {last, weight(b, "lm.w", {6, 8})}, {{1, 6}});
  b.rename(logits, "logits");
  b.output(logits);
  return b.finish(8);
}

// A layer-normalized LSTM whose h and c are state carried between runs.
Graph lstm() {
  GraphBuilder b;
  const TensorId x = b.input("x", DataType::kF32, {S, 3});
  const TensorId h0 = b.state("h", DataType::kF32, {1, 2});
  const TensorId c0 = b.state("c", DataType::kF32, {1, 2});
  const TensorId h_seq =
      b.node(OpType::kLstmCell, "lstm",
             {x, h0, c0, weight(b, "w_x", {8, 3}), weight(b, "w_h", {8, 2}), weight(b, "b", {8}),
              weight(b, "gain_h", {8}), weight(b, "bias_h", {8}), weight(b, "gain_x", {8}),
              weight(b, "bias_x", {8}), weight(b, "gain_c", {2}), weight(b, "bias_c", {2})},
             {{S, 2}, {1, 2}, {1, 2}}, {{"norm", std::string("layer_norm")}});
  b.rename(h_seq, "h_seq");
  b.output(h_seq);
  b.state_update(h0, h_seq + 1);
  b.state_update(c0, h_seq + 2);
  return b.finish(5);
}

// A reversed GRU with RMSNorm and bf16 weights, h carried in state.
Graph gru() {
  GraphBuilder b;
  const TensorId x = b.input("x", DataType::kF32, {S, 3});
  const TensorId h0 = b.state("h", DataType::kF32, {1, 2});
  const TensorId h_seq =
      b.node(OpType::kGruCellBa, "gru",
             {x, h0, weight(b, "w_x", {4, 3}, true), weight(b, "w_h", {4, 2}, true),
              weight(b, "w", {2, 3}, true), weight(b, "u", {2, 2}, true), weight(b, "gain_h", {4}),
              kNoTensor, weight(b, "gain_x", {4})},
             {{S, 2}, {1, 2}}, {{"norm", std::string("rms_norm")}, {"reverse", int64_t{1}}});
  b.rename(h_seq, "h_seq");
  b.output(h_seq);
  b.state_update(h0, h_seq + 1);
  return b.finish(4);
}

// RNNSearch's pieces: a GruRecurrenceCho over projected inputs (h in state,
// pRMSNorm in the recurrence) feeding an AdditiveAttention over the inputs.
Graph recurrence_attention() {
  GraphBuilder b;
  const TensorId x = b.input("x", DataType::kF32, {S, 3});
  const TensorId h0 = b.state("h", DataType::kF32, {1, 2});
  const TensorId xg = b.node(OpType::kLinear, "xg", {x, weight(b, "xg.w", {4, 3})}, {{S, 4}});
  const TensorId xc = b.node(OpType::kLinear, "xc", {x, weight(b, "xc.w", {2, 3})}, {{S, 2}});
  const TensorId h_seq =
      b.node(OpType::kGruRecurrenceCho, "gru",
             {xg, xc, h0, weight(b, "w_g", {4, 2}), weight(b, "w_c", {2, 2}, true),
              weight(b, "b_g", {4}), weight(b, "gain_g", {4})},
             {{S, 2}, {1, 2}}, {{"norm", std::string("prms_norm")}, {"p", 0.5}});
  const TensorId keys = b.node(OpType::kLinear, "keys", {x, weight(b, "keys.w", {2, 3})}, {{S, 2}});
  const TensorId context =
      b.node(OpType::kAdditiveAttention, "attend",
             {h_seq, keys, weight(b, "att.v", {2}), weight(b, "att.c", {1}), x}, {{S, 3}, {S, S}});
  b.rename(context, "context");
  b.output(context);
  b.output(context + 1);
  b.state_update(h0, h_seq + 1);
  return b.finish(4);
}

// mlp() after the fusion pass (FusedLinear nodes in the file) with its
// Linear weights packed in 16-column panels (a version-2 file).
Expected<Graph> fused_packed() {
  Graph graph = mlp();
  NORMRT_RETURN_IF_ERROR(fuse_linear_chains(graph));
  prune_tensors(graph);  // the absorbed nodes' intermediates
  NORMRT_RETURN_IF_ERROR(prepack_linear_weights(graph, TensorLayout::kPanels16));
  return graph;
}

// Compiles `graph` and runs it once on zeros (S = 2).
Status compile_and_run(const Graph& graph, const ModelOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, compile_model(graph, options));
  NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::create(model));
  std::vector<std::byte> zeros(4096);
  for (TensorId id : graph.inputs) {
    const Tensor& input = graph.tensors[id];
    const size_t bytes = shape_elements(input.shape, 2) * data_type_size(input.dtype);
    NORMRT_RETURN_IF_ERROR(session->set_input(input.name, zeros.data(), bytes));
  }
  return session->run();
}

// Writes `graph` if it compiles and runs without the passes (the file's own
// validity); a failure with the default options is reported, not fatal: the
// fuzzer runs both option sets.
bool write_seed(const std::string& dir, const std::string& name, Expected<Graph> graph) {
  const std::string path = dir + "/" + name + ".nrmt";
  if (!graph) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), graph.status().message().c_str());
    return false;
  }
  ModelOptions plain;
  plain.fuse = plain.fold_norm_affine = false;
  Status status = compile_and_run(*graph, plain);
  if (status) status = write_model_file(*graph, path);
  if (!status) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), status.message().c_str());
    return false;
  }
  if (Status passes = compile_and_run(*graph, {}); !passes) {
    std::fprintf(stderr, "%s: warning: fails with the default options: %s\n", name.c_str(),
                 passes.message().c_str());
  }
  std::printf("wrote %s\n", path.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;
  ok &= write_seed(dir, "mlp", mlp());
  ok &= write_seed(dir, "residual_norms", residual_norms());
  ok &= write_seed(dir, "encoder", encoder());
  ok &= write_seed(dir, "decoder", decoder());
  ok &= write_seed(dir, "lstm", lstm());
  ok &= write_seed(dir, "gru", gru());
  ok &= write_seed(dir, "recurrence_attention", recurrence_attention());
  ok &= write_seed(dir, "fused_packed", fused_packed());
  return ok ? 0 : 1;
}
