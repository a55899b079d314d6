#include "models/order/order_embeddings.h"

#include <string>
#include <vector>

#include "models/config_checks.h"
#include "models/rnn/rnn_graph.h"
#include "models/theano_params.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {
namespace {

// The encoder's weights in the graph's layout ([out, in] matrices), read
// from either naming; empty vectors where the norm has no such parameter.
struct EncoderWeights {
  std::vector<float> embedding;         // [V, E]
  std::vector<float> w_gates, b_gates;  // [2D, E], [2D]
  std::vector<float> w_cand, b_cand;    // [D, E], [D]
  std::vector<float> u_gates, u_cand;   // [2D, D], [D, D]
  std::vector<float> gain[4], bias[4];  // s1..s4, b1..b4: 2D, D, 2D, D
  std::vector<float> w_image, b_image;  // [D, F], [D]
};

EncoderWeights read_theano(WeightChecker& w, const OrderEmbeddingConfig& c) {
  const int64_t v = c.vocab_size, e = c.word_size, d = c.dim, f = c.image_size;
  const auto ue = static_cast<size_t>(e), ud = static_cast<size_t>(d);
  EncoderWeights r;
  r.embedding = w.read("Wemb", {v, e});
  r.w_gates = transposed(w.read("encoder_W", {e, 2 * d}), ue, 2 * ud);
  r.b_gates = w.read("encoder_b", {2 * d});
  r.w_cand = transposed(w.read("encoder_Wx", {e, d}), ue, ud);
  r.b_cand = w.read("encoder_bx", {d});
  r.u_gates = transposed(w.read("encoder_U", {d, 2 * d}), ud, 2 * ud);
  r.u_cand = transposed(w.read("encoder_Ux", {d, d}), ud, ud);
  if (c.norm.enabled) {
    const int64_t widths[4] = {2 * d, d, 2 * d, d};
    for (int i = 0; i < 4; ++i) {
      const std::string n = std::to_string(i + 1);
      r.gain[i] = w.read("encoder_s" + n, {widths[i]});
      if (c.norm.is(NormKind::kLayerNorm)) r.bias[i] = w.read("encoder_b" + n, {widths[i]});
    }
  }
  r.w_image = transposed(w.read("ff_image_W", {f, d}), static_cast<size_t>(f), ud);
  r.b_image = w.read("ff_image_b", {d});
  return r;
}

EncoderWeights read_torch(WeightChecker& w, const OrderEmbeddingConfig& c) {
  const int64_t v = c.vocab_size, e = c.word_size, d = c.dim, f = c.image_size;
  EncoderWeights r;
  r.embedding = w.read("embedding.weight", {v, e});
  r.w_gates = w.read("encoder.input_gates.weight", {2 * d, e});
  r.b_gates = w.read("encoder.input_gates.bias", {2 * d});
  r.w_cand = w.read("encoder.input_candidate.weight", {d, e});
  r.b_cand = w.read("encoder.input_candidate.bias", {d});
  r.u_gates = w.read("encoder.hidden_gates.weight", {2 * d, d});
  r.u_cand = w.read("encoder.hidden_candidate.weight", {d, d});
  if (c.norm.enabled) {
    const char* names[4] = {"norm_input_gates", "norm_input_candidate", "norm_hidden_gates",
                            "norm_hidden_candidate"};
    const int64_t widths[4] = {2 * d, d, 2 * d, d};
    for (int i = 0; i < 4; ++i) {
      const std::string p = std::string("encoder.") + names[i];
      // nn.LayerNorm: weight, bias; the RMSNorm module without a bias (rln has none): scale.
      r.gain[i] = w.read(norm_gain_name(c.norm, p), {widths[i]});
      if (c.norm.is(NormKind::kLayerNorm))
        r.bias[i] = w.read(norm_bias_name(c.norm, p), {widths[i]});
    }
  }
  r.w_image = w.read("image.weight", {d, f});
  r.b_image = w.read("image.bias", {d});
  return r;
}

}  // namespace

Status check_order_embedding_config(const OrderEmbeddingConfig& c) {
  NORMRT_RETURN_IF_ERROR(check_config_range("vocab_size", c.vocab_size, 1, int64_t{1} << 24));
  NORMRT_RETURN_IF_ERROR(check_config_range("word_size", c.word_size, 1, 1 << 16));
  NORMRT_RETURN_IF_ERROR(check_config_range("dim", c.dim, 1, 1 << 16));
  NORMRT_RETURN_IF_ERROR(check_config_range("image_size", c.image_size, 1, 1 << 20));
  NORMRT_RETURN_IF_ERROR(check_config_range("num_images", c.num_images, 1, 1 << 16));
  NORMRT_RETURN_IF_ERROR(
      check_config_range("max_sentence_length", c.max_sentence_length, 1, 1 << 20));
  NORMRT_RETURN_IF_ERROR(check_seed_weight_format(c.weight_format));
  NORMRT_RETURN_IF_ERROR(check_norm_config(c.norm));
  NORMRT_RETURN_IF_ERROR(
      check_partial_width(c.norm, c.dim, "the candidate's columns", "config: p ="));
  return Status::ok();
}

Expected<Graph> build_order_embeddings(const OrderEmbeddingConfig& config,
                                       const WeightSource& source) {
  NORMRT_RETURN_IF_ERROR(check_order_embedding_config(config));
  const TheanoParamSource params(source);
  WeightChecker weights(params);
  const EncoderWeights w =
      config.weight_format == "theano" ? read_theano(weights, config) : read_torch(weights, config);
  const NormConfig& norm = config.norm;
  const bool normalized = norm.enabled;
  const int64_t e = config.word_size, d = config.dim, f = config.image_size;
  const int64_t b_images = config.num_images;
  GraphBuilder b;
  auto add = [&](const std::string& name, const Shape& shape, const std::vector<float>& values) {
    return add_weight(b, name, shape, values, DataType::kF32);
  };

  const TensorId ids = b.input("ids", DataType::kI32, {kSequenceDim});
  const TensorId table = add("Wemb", {config.vocab_size, e}, w.embedding);
  const TensorId words = b.node(OpType::kEmbedding, "embedding", {ids, table}, {{kSequenceDim, e}});
  // The input projections x·W + b, then their norms (the fusion pass makes
  // one FusedLinear of each pair).
  auto projection = [&](const std::string& name, const std::vector<float>& matrix,
                        const std::vector<float>& bias, int64_t n, int norm_index) {
    TensorId y =
        b.node(OpType::kLinear, name,
               {words, add(name + ".weight", {n, e}, matrix), add(name + ".bias", {n}, bias)},
               {{kSequenceDim, n}});
    if (!normalized) return y;
    const std::string nn = name + ".norm";
    const TensorId gain = add(nn + ".gain", {n}, w.gain[norm_index]);
    const TensorId nbias =
        norm.is(NormKind::kLayerNorm) ? add(nn + ".bias", {n}, w.bias[norm_index]) : kNoTensor;
    return b.node(norm_op_type(norm.kind), nn, {y, gain, nbias}, {{kSequenceDim, n}},
                  norm_attributes(norm));
  };
  const TensorId xg = projection("encoder.input_gates", w.w_gates, w.b_gates, 2 * d, 0);
  const TensorId xc = projection("encoder.input_candidate", w.w_cand, w.b_cand, d, 1);
  std::vector<Attribute> cell = norm_attributes(norm);
  cell.push_back(norm_selection_attribute(norm));
  auto norm_vector = [&](const std::string& name, int64_t n, const std::vector<float>& values,
                         bool bias) {
    if (!normalized || (bias && !norm.is(NormKind::kLayerNorm))) return kNoTensor;
    return add(name, {n}, values);
  };
  b.node(OpType::kGruRecurrenceCho, "encoder",
         {xg, xc, kNoTensor, add("encoder.hidden_gates.weight", {2 * d, d}, w.u_gates),
          add("encoder.hidden_candidate.weight", {d, d}, w.u_cand), kNoTensor,
          norm_vector("encoder.norm_hidden_gates.gain", 2 * d, w.gain[2], false),
          norm_vector("encoder.norm_hidden_gates.bias", 2 * d, w.bias[2], true), kNoTensor,
          norm_vector("encoder.norm_hidden_candidate.gain", d, w.gain[3], false),
          norm_vector("encoder.norm_hidden_candidate.bias", d, w.bias[3], true)},
         {{kSequenceDim, d}, {1, d}}, cell);
  TensorId sentence = b.last_outputs()[1];
  // build_sentence_encoder: abs, then l2norm.
  if (config.abs) sentence = b.node(OpType::kAbs, "sentence.abs", {sentence}, {{1, d}});
  sentence = b.node(OpType::kL2Normalize, "sentence.l2norm", {sentence}, {{1, d}});
  b.rename(sentence, "sentence");
  // build_image_encoder: linear, l2norm, then abs.
  const TensorId images = b.input("images", DataType::kF32, {b_images, f});
  TensorId image =
      b.node(OpType::kLinear, "image",
             {images, add("image.weight", {d, f}, w.w_image), add("image.bias", {d}, w.b_image)},
             {{b_images, d}});
  image = b.node(OpType::kL2Normalize, "image.l2norm", {image}, {{b_images, d}});
  if (config.abs) image = b.node(OpType::kAbs, "image.abs", {image}, {{b_images, d}});
  b.rename(image, "image_embeddings");
  const TensorId scores =
      b.node(OpType::kOrderViolation, "order_violation", {sentence, image}, {{1, b_images}});
  b.rename(scores, "order_violation");
  b.output(sentence);
  b.output(image);
  b.output(scores);
  b.metadata("architecture", std::string("order_embeddings"));
  b.metadata("norm", std::string(norm_name(norm)));
  NORMRT_RETURN_IF_ERROR(weights.finish());
  return b.finish(config.max_sentence_length);
}

}  // namespace normrt
