#include "models/transformer/torch_transformer.h"

#include <utility>
#include <vector>

#include "base/bf16.h"
#include "models/transformer/graph_split.h"
#include "models/transformer/transformer_limits.h"
#include "runtime/graph/graph_builder.h"
#include "runtime/passes/eliminate_dead_nodes.h"

namespace normrt {
namespace {

// Rows [begin, begin + count) of a row-major matrix of `cols` columns (empty
// stays empty: a problem the checker recorded).
std::vector<float> rows_of(const std::vector<float>& m, int64_t cols, int64_t begin,
                           int64_t count) {
  if (m.empty()) return {};
  return std::vector<float>(m.begin() + begin * cols, m.begin() + (begin + count) * cols);
}

// The q, k, v projections of one nn.MultiheadAttention.
struct Projections {
  TensorId w[3], b[3];
};

// Emits the graph while reading the weights; every read records its problems
// in the checker, so the build runs to the end and lists all of them.
class Emitter {
 public:
  Emitter(const TorchTransformerConfig& config, const WeightSource& source, DataType matrix_dtype)
      : c_(config), check_(source), matrix_dtype_(matrix_dtype) {}

  WeightChecker& checker() { return check_; }
  GraphBuilder& builder() { return b_; }

  TensorId weight(const std::string& name, const Shape& shape) {
    return add_weight(b_, name, shape, check_.read(name, shape), matrix_dtype_);
  }

  // y = x · Wᵀ + b for the nn.Linear `module`.
  TensorId linear(const std::string& module, TensorId x, int64_t in, int64_t out) {
    TensorId w = weight(module + ".weight", {out, in});
    TensorId bias = weight(module + ".bias", {out});
    return b_.node(OpType::kLinear, module, {x, w, bias}, {{kSequenceDim, out}});
  }

  // The configured norm of x (+ residual) with the module's weight (and bias,
  // for layer_norm). Rows: S, or `rows` for the fixed-length source.
  TensorId norm(const std::string& module, TensorId x, TensorId residual, int64_t rows) {
    const int64_t e = c_.d_model;
    TensorId gain = weight(module + ".weight", {e});
    TensorId bias = c_.norm.is(NormKind::kLayerNorm) ? weight(module + ".bias", {e}) : kNoTensor;
    std::vector<TensorId> inputs = {x, gain, bias};
    if (residual != kNoTensor) inputs.push_back(residual);
    return b_.node(norm_op_type(c_.norm.kind), module, std::move(inputs), {{rows, e}},
                   norm_attributes(c_.norm));
  }

  Projections in_proj(const std::string& module) {
    const int64_t e = c_.d_model;
    std::vector<float> w = check_.read(module + ".in_proj_weight", {3 * e, e});
    std::vector<float> bias = check_.read(module + ".in_proj_bias", {3 * e});
    Projections p;
    const char* part[3] = {"q", "k", "v"};
    for (int i = 0; i < 3; ++i) {
      p.w[i] = add_weight(b_, module + ".in_proj_weight." + part[i], {e, e},
                          rows_of(w, e, i * e, e), matrix_dtype_);
      p.b[i] = add_weight(b_, module + ".in_proj_bias." + part[i], {e}, rows_of(bias, 1, i * e, e),
                          matrix_dtype_);
    }
    return p;
  }

  // nn.MultiheadAttention `module`: queries from x (`rows` rows), keys and
  // values from kv (`kv_rows` rows); causal self-attention with an optional
  // KV cache of `cache_rows` (0: none). `keys_values`, if given, receives the
  // key and value projections' tensors.
  TensorId attention(const std::string& module, TensorId x, int64_t rows, TensorId kv,
                     int64_t kv_rows, bool causal, int64_t cache_rows,
                     TensorId* keys_values = nullptr) {
    const int64_t e = c_.d_model;
    Projections p = in_proj(module);
    const char* part[3] = {"q", "k", "v"};
    TensorId qkv[3];
    for (int i = 0; i < 3; ++i)
      qkv[i] = b_.node(OpType::kLinear, module + "." + part[i], {i == 0 ? x : kv, p.w[i], p.b[i]},
                       {{i == 0 ? rows : kv_rows, e}});
    if (keys_values != nullptr) {
      keys_values[0] = qkv[1];
      keys_values[1] = qkv[2];
    }
    std::vector<TensorId> inputs = {qkv[0], qkv[1], qkv[2]};
    if (cache_rows > 0) {
      inputs.push_back(b_.state(module + ".k_cache", DataType::kF32, {cache_rows, e}));
      inputs.push_back(b_.state(module + ".v_cache", DataType::kF32, {cache_rows, e}));
    }
    TensorId context = b_.node(OpType::kAttention, module, std::move(inputs), {{rows, e}},
                               {{"num_heads", c_.nhead}, {"causal", int64_t{causal ? 1 : 0}}});
    TensorId w = weight(module + ".out_proj.weight", {e, e});
    TensorId bias = weight(module + ".out_proj.bias", {e});
    return b_.node(OpType::kLinear, module + ".out_proj", {context, w, bias}, {{rows, e}});
  }

  TensorId feed_forward(const std::string& layer, TensorId x, int64_t rows) {
    const int64_t e = c_.d_model, f = c_.dim_feedforward;
    TensorId w1 = weight(layer + "linear1.weight", {f, e});
    TensorId b1 = weight(layer + "linear1.bias", {f});
    TensorId up = b_.node(OpType::kLinear, layer + "linear1", {x, w1, b1}, {{rows, f}});
    const std::string act = c_.activation == "gelu" ? "gelu_erf" : "relu";
    TensorId a = b_.node(OpType::kActivation, layer + "activation", {up}, {{rows, f}},
                         {{"activation", act}});
    TensorId w2 = weight(layer + "linear2.weight", {e, f});
    TensorId b2 = weight(layer + "linear2.bias", {e});
    return b_.node(OpType::kLinear, layer + "linear2", {a, w2, b2}, {{rows, e}});
  }

  // One residual block: post-norm norm(h + f(h)), pre-norm h + f(norm(h)).
  template <typename Block>
  TensorId residual(const std::string& norm_module, TensorId h, int64_t rows, Block block) {
    if (!c_.norm_first) return norm(norm_module, block(h), h, rows);
    TensorId out = block(norm(norm_module, h, kNoTensor, rows));
    return b_.node(OpType::kAdd, norm_module + ".residual", {out, h}, {{rows, c_.d_model}});
  }

  TensorId encoder_layer(int64_t index, TensorId h, int64_t l) {
    const std::string at = "transformer.encoder.layers." + std::to_string(index) + ".";
    h = residual(at + "norm1", h, l,
                 [&](TensorId x) { return attention(at + "self_attn", x, l, x, l, false, 0); });
    return residual(at + "norm2", h, l, [&](TensorId x) { return feed_forward(at, x, l); });
  }

  TensorId decoder_layer(int64_t index, TensorId h, TensorId memory, int64_t l,
                         int64_t cache_rows) {
    const std::string at = "transformer.decoder.layers." + std::to_string(index) + ".";
    const int64_t s = kSequenceDim;
    h = residual(at + "norm1", h, s, [&](TensorId x) {
      return attention(at + "self_attn", x, s, x, s, true, cache_rows);
    });
    CrossKeysValues& cross = cross_.emplace_back();
    h = residual(at + "norm2", h, s, [&](TensorId x) {
      return attention(at + "multihead_attn", x, s, memory, l, false, 0, cross.tensors);
    });
    return residual(at + "norm3", h, s, [&](TensorId x) { return feed_forward(at, x, s); });
  }

  /// Per decoder layer, its cross-attention's key and value projections of
  /// the memory: what an encoder part hands to a decoder part.
  struct CrossKeysValues {
    TensorId tensors[2] = {kNoTensor, kNoTensor};
  };
  const std::vector<CrossKeysValues>& cross_keys_values() const { return cross_; }

 private:
  std::vector<CrossKeysValues> cross_;
  const TorchTransformerConfig& c_;
  WeightChecker check_;
  GraphBuilder b_;
  DataType matrix_dtype_;
};

// The encoder part keeps what the cross-attention keys and values need and
// outputs them; the decoder part reads them as inputs in their place.
template <class CrossList>
void split_torch_transformer(Graph& graph, const CrossList& cross, TorchTransformerPart part) {
  if (part == TorchTransformerPart::kEncoder) graph.outputs.clear();
  for (size_t layer = 0; layer < cross.size(); ++layer) {
    for (int i = 0; i < 2; ++i) {
      const std::string name = cross_attention_input_name(static_cast<int64_t>(layer), i == 1);
      const TensorId tensor = cross[layer].tensors[i];
      if (part == TorchTransformerPart::kEncoder) {
        graph.tensors[tensor].name = name;
        graph.outputs.push_back(tensor);
      } else {
        cut_to_input(graph, tensor, name);
      }
    }
  }
  eliminate_dead_nodes(graph);
}

}  // namespace

std::string cross_attention_input_name(int64_t layer, bool values) {
  return "transformer.decoder.layers." + std::to_string(layer) + ".multihead_attn." +
         (values ? "values" : "keys");
}

Status check_torch_transformer_config(const TorchTransformerConfig& c) {
  for (Status s :
       {check_config_range("Transformer", "src_vocab_size", c.src_vocab_size, 1, kMaxVocab),
        check_config_range("Transformer", "tgt_vocab_size", c.tgt_vocab_size, 1, kMaxVocab),
        check_config_range("Transformer", "d_model", c.d_model, 1, kMaxWidth),
        check_config_range("Transformer", "nhead", c.nhead, 1, c.d_model),
        check_config_range("Transformer", "num_encoder_layers", c.num_encoder_layers, 0,
                           kMaxLayers),
        check_config_range("Transformer", "num_decoder_layers", c.num_decoder_layers, 0,
                           kMaxLayers),
        check_config_range("Transformer", "dim_feedforward", c.dim_feedforward, 1, 4 * kMaxWidth),
        check_config_range("Transformer", "max_positions", c.max_positions, 1, kMaxPositions)}) {
    if (!s) return s;
  }
  if (c.d_model % c.nhead != 0)
    return Status::error("Transformer config: d_model = " + std::to_string(c.d_model) +
                         " is not divisible by nhead = " + std::to_string(c.nhead));
  if (c.activation != "relu" && c.activation != "gelu")
    return Status::error("Transformer config: activation '" + c.activation +
                         "' is not one of relu, gelu");
  if (!c.norm.enabled)
    return Status::error("Transformer config: norm 'none' would drop the model's norms");
  return check_norm_config(c.norm);
}

Expected<Graph> build_torch_transformer(const TorchTransformerConfig& config,
                                        const WeightSource& weights, DataType matrix_dtype,
                                        const TorchTransformerBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(check_torch_transformer_config(config));
  NORMRT_RETURN_IF_ERROR(check_matrix_dtype(matrix_dtype));
  const int64_t l = options.source_length, p = config.max_positions;
  NORMRT_RETURN_IF_ERROR(
      check_config_range("Transformer", "source_length (build option)", l, 1, p));
  const int64_t max_t = options.max_target_length == 0 ? p : options.max_target_length;
  NORMRT_RETURN_IF_ERROR(
      check_config_range("Transformer", "max_target_length (build option)", max_t, 1, p));

  const int64_t e = config.d_model;
  Emitter emit(config, weights, matrix_dtype);
  GraphBuilder& b = emit.builder();
  WeightChecker& check = emit.checker();

  // Learned positions: rows [0, L) for the source (a fixed slice, kept f32:
  // an Add operand; bf16 values when the table is bf16, so both agree), rows
  // from the session position for the target (an Embedding position node).
  std::vector<float> positions = check.read("pos_embedding.weight", {p, e});
  if (matrix_dtype == DataType::kBF16)
    for (float& v : positions) v = float_from_bf16(bf16_from_float(v));
  TensorId pos_table = add_weight(b, "pos_embedding.weight", {p, e}, positions, matrix_dtype);
  TensorId src_pos = add_weight(b, "pos_embedding.weight[0:L]", {l, e}, rows_of(positions, e, 0, l),
                                DataType::kF32);

  TensorId src_ids = b.input("src_ids", DataType::kI32, {l});
  TensorId src_table = emit.weight("src_embedding.weight", {config.src_vocab_size, e});
  TensorId h = b.node(OpType::kEmbedding, "src_embedding", {src_ids, src_table}, {{l, e}});
  h = b.node(OpType::kAdd, "src_embedding.add_positions", {h, src_pos}, {{l, e}});
  for (int64_t i = 0; i < config.num_encoder_layers; ++i) h = emit.encoder_layer(i, h, l);
  if (config.encoder_final_norm) h = emit.norm("transformer.encoder.norm", h, kNoTensor, l);
  const TensorId memory = h;

  TensorId tgt_ids = b.input("tgt_ids", DataType::kI32, {kSequenceDim});
  TensorId tgt_table = emit.weight("tgt_embedding.weight", {config.tgt_vocab_size, e});
  h = b.node(OpType::kEmbedding, "tgt_embedding", {tgt_ids, tgt_table}, {{kSequenceDim, e}});
  TensorId tgt_pos = b.node(OpType::kEmbedding, "pos_embedding", {pos_table}, {{kSequenceDim, e}},
                            {{"positions", int64_t{1}}});
  h = b.node(OpType::kAdd, "tgt_embedding.add_positions", {h, tgt_pos}, {{kSequenceDim, e}});
  const int64_t cache_rows = options.kv_cache ? max_t : 0;
  for (int64_t i = 0; i < config.num_decoder_layers; ++i)
    h = emit.decoder_layer(i, h, memory, l, cache_rows);
  if (config.decoder_final_norm)
    h = emit.norm("transformer.decoder.norm", h, kNoTensor, kSequenceDim);
  TensorId logits = emit.linear("generator", h, e, config.tgt_vocab_size);
  NORMRT_RETURN_IF_ERROR(check.finish());

  b.rename(logits, "logits");
  b.output(logits);
  b.metadata("architecture", std::string("torch_transformer"));
  b.metadata("norm", std::string(norm_name(config.norm)));
  b.metadata("eps", config.norm.eps);
  if (config.norm.is(NormKind::kPRmsNorm)) b.metadata("p", config.norm.p);
  b.metadata("norm_first", int64_t{config.norm_first ? 1 : 0});
  b.metadata("activation", config.activation);
  b.metadata("source_length", l);
  b.metadata("kv_cache", int64_t{options.kv_cache ? 1 : 0});
  if (options.part != TorchTransformerPart::kWhole) {
    b.metadata("part",
               std::string(options.part == TorchTransformerPart::kEncoder ? "encoder" : "decoder"));
  }
  Graph graph = b.finish(max_t);
  if (options.part != TorchTransformerPart::kWhole) {
    split_torch_transformer(graph, emit.cross_keys_values(), options.part);
  }
  return graph;
}

}  // namespace normrt
