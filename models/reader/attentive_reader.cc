#include "models/reader/attentive_reader.h"

#include <string>
#include <vector>

#include "models/config_checks.h"
#include "models/rnn/rnn_graph.h"
#include "models/theano_params.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {
namespace {

// The code's gate blocks are i, f, o, g (layers.py _slice 0..3); LstmCell's f, i, o, g.
const std::vector<size_t> kCodeToOpGates = {1, 0, 2, 3};

// One direction's LstmCell operands in the op's layout; empty where absent.
struct UnitWeights {
  std::vector<float> w_x;  // [4H, E + 1]: x·W + b as one matrix over [x, 1]
  std::vector<float> w_h;  // [4H, H]
  std::vector<float> b;    // [4H]
  std::vector<float> gain_x, bias_x, gain_h, bias_h;  // [4H]
  std::vector<float> gain_c, bias_c;                  // [H]
  std::vector<float> h0;                              // [H]
};

// The rest, as Linear weights [out, in].
struct HeadWeights {
  std::vector<float> embedding;  // [V, E]
  std::vector<float> bilinear;   // [2H, 2H]
  std::vector<float> att_doc, att_doc_b, att_query, att_v;
  std::vector<float> out_mean, out_query, out_query_b, out_ctx, logit, logit_b;
};

// [W_code | b] in the op's gate order: W_code [4H, E] (rows = gates, code
// order), b [4H] → [4H, E + 1].
std::vector<float> input_matrix(const std::vector<float>& w, const std::vector<float>& b, size_t h,
                                size_t e) {
  if (w.empty() || b.empty()) return {};
  std::vector<float> joined(4 * h * (e + 1));
  for (size_t r = 0; r < 4 * h; ++r) {
    for (size_t c = 0; c < e; ++c) joined[r * (e + 1) + c] = w[r * e + c];
    joined[r * (e + 1) + e] = b[r];
  }
  return permute_row_blocks(joined, h, e + 1, kCodeToOpGates);
}

std::vector<float> gates(const std::vector<float>& v, size_t h) {
  return permute_row_blocks(v, h, 1, kCodeToOpGates);
}

UnitWeights read_unit_theano(WeightChecker& w, const AttentiveReaderConfig& c,
                             const std::string& p) {
  const int64_t e = c.word_size, h = c.hidden_size, g = 4 * h;
  const auto ue = static_cast<size_t>(e), uh = static_cast<size_t>(h);
  UnitWeights u;
  const std::vector<float> b = w.read(p + "_b", {g});
  u.w_x = input_matrix(transposed(w.read(p + "_W", {e, g}), ue, 4 * uh), b, uh, ue);
  u.w_h =
      permute_row_blocks(transposed(w.read(p + "_U", {h, g}), uh, 4 * uh), uh, uh, kCodeToOpGates);
  u.b = gates(b, uh);
  if (c.norm.enabled) {
    u.gain_x = gates(w.read(p + "_s1", {g}), uh);
    u.gain_h = gates(w.read(p + "_s2", {g}), uh);
    u.gain_c = w.read(p + "_s3", {h});
    if (c.norm.is(NormKind::kLayerNorm)) {
      u.bias_x = gates(w.read(p + "_b1", {g}), uh);
      u.bias_h = gates(w.read(p + "_b2", {g}), uh);
      u.bias_c = w.read(p + "_b3", {h});
    }
  }
  if (c.learn_h0) u.h0 = w.read(p + "_h0", {h});
  return u;
}

UnitWeights read_unit_torch(WeightChecker& w, const AttentiveReaderConfig& c,
                            const std::string& p) {
  const int64_t e = c.word_size, h = c.hidden_size, g = 4 * h;
  const auto ue = static_cast<size_t>(e), uh = static_cast<size_t>(h);
  UnitWeights u;
  const std::vector<float> b = w.read(p + ".bias", {g});
  u.w_x = input_matrix(w.read(p + ".weight_ih", {g, e}), b, uh, ue);
  u.w_h = permute_row_blocks(w.read(p + ".weight_hh", {g, h}), uh, uh, kCodeToOpGates);
  u.b = gates(b, uh);
  if (c.norm.enabled) {
    const NormConfig& n = c.norm;
    u.gain_x = gates(w.read(norm_gain_name(n, p + ".norm_x"), {g}), uh);
    u.gain_h = gates(w.read(norm_gain_name(n, p + ".norm_h"), {g}), uh);
    u.gain_c = w.read(norm_gain_name(n, p + ".norm_c"), {h});
    if (n.is(NormKind::kLayerNorm)) {
      u.bias_x = gates(w.read(norm_bias_name(n, p + ".norm_x"), {g}), uh);
      u.bias_h = gates(w.read(norm_bias_name(n, p + ".norm_h"), {g}), uh);
      u.bias_c = w.read(norm_bias_name(n, p + ".norm_c"), {h});
    }
  }
  if (c.learn_h0) u.h0 = w.read(p + ".h0", {h});
  return u;
}

HeadWeights read_head_theano(WeightChecker& w, const AttentiveReaderConfig& c) {
  const int64_t h = c.hidden_size, h2 = 2 * h, a = c.answer_size, n = c.num_answers;
  const auto uh = static_cast<size_t>(h), uh2 = 2 * uh, ua = static_cast<size_t>(a);
  HeadWeights r;
  r.embedding = w.read("Wemb_word", {c.vocab_size, c.word_size});
  if (c.use_dq_sims) r.bilinear = transposed(w.read("ff_att_bi_dq", {h2, h2}), uh2, uh2);
  r.att_v = w.read("ff_att_proj", {h});
  r.att_doc = transposed(w.read("ff_att_ctx_W", {h2, h}), uh2, uh);
  r.att_doc_b = w.read("ff_att_ctx_b", {h});
  r.att_query = transposed(w.read("ff_att_q_W", {h2, h}), uh2, uh);
  if (c.use_desc_skip_c_g) r.out_mean = transposed(w.read("ff_out_mean_d_W", {h2, a}), uh2, ua);
  r.out_query = transposed(w.read("ff_out_q_W", {h2, a}), uh2, ua);
  r.out_query_b = w.read("ff_out_q_b", {a});
  r.out_ctx = transposed(w.read("ff_out_ctx_W", {h2, a}), uh2, ua);
  r.logit = transposed(w.read("ff_logit_W", {a, n}), ua, static_cast<size_t>(n));
  r.logit_b = w.read("ff_logit_b", {n});
  return r;
}

HeadWeights read_head_torch(WeightChecker& w, const AttentiveReaderConfig& c) {
  const int64_t h = c.hidden_size, h2 = 2 * h, a = c.answer_size, n = c.num_answers;
  HeadWeights r;
  r.embedding = w.read("embedding.weight", {c.vocab_size, c.word_size});
  if (c.use_dq_sims) r.bilinear = w.read("attention.bilinear.weight", {h2, h2});
  r.att_v = w.read("attention.v", {h});
  r.att_doc = w.read("attention.document.weight", {h, h2});
  r.att_doc_b = w.read("attention.document.bias", {h});
  r.att_query = w.read("attention.query.weight", {h, h2});
  if (c.use_desc_skip_c_g) r.out_mean = w.read("output.mean_document.weight", {a, h2});
  r.out_query = w.read("output.query.weight", {a, h2});
  r.out_query_b = w.read("output.query.bias", {a});
  r.out_ctx = w.read("output.context.weight", {a, h2});
  r.logit = w.read("logit.weight", {n, a});
  r.logit_b = w.read("logit.bias", {n});
  return r;
}

// The embedding table with a column of ones appended: [V, E + 1].
std::vector<float> with_ones_column(const std::vector<float>& table, size_t v, size_t e) {
  if (table.empty()) return {};
  std::vector<float> out(v * (e + 1));
  for (size_t r = 0; r < v; ++r) {
    for (size_t c = 0; c < e; ++c) out[r * (e + 1) + c] = table[r * e + c];
    out[r * (e + 1) + e] = 1.0f;
  }
  return out;
}

}  // namespace

Status check_attentive_reader_config(const AttentiveReaderConfig& c) {
  NORMRT_RETURN_IF_ERROR(check_config_range("vocab_size", c.vocab_size, 1, int64_t{1} << 24));
  NORMRT_RETURN_IF_ERROR(check_config_range("word_size", c.word_size, 1, 1 << 16));
  NORMRT_RETURN_IF_ERROR(check_config_range("hidden_size", c.hidden_size, 1, 1 << 16));
  NORMRT_RETURN_IF_ERROR(check_config_range("answer_size", c.answer_size, 1, 1 << 16));
  NORMRT_RETURN_IF_ERROR(check_config_range("num_answers", c.num_answers, 1, 1 << 24));
  NORMRT_RETURN_IF_ERROR(check_config_range("question_length", c.question_length, 1, 1 << 16));
  NORMRT_RETURN_IF_ERROR(
      check_config_range("max_document_length", c.max_document_length, 1, 1 << 20));
  NORMRT_RETURN_IF_ERROR(check_seed_weight_format(c.weight_format));
  NORMRT_RETURN_IF_ERROR(check_norm_config(c.norm));
  NORMRT_RETURN_IF_ERROR(
      check_partial_width(c.norm, c.hidden_size, "the cell's columns", "config: p ="));
  return Status::ok();
}

Expected<Graph> build_attentive_reader(const AttentiveReaderConfig& config,
                                       const WeightSource& source) {
  NORMRT_RETURN_IF_ERROR(check_attentive_reader_config(config));
  const TheanoParamSource params(source);
  WeightChecker weights(params);
  const bool theano = config.weight_format == "theano";
  // The code's layer prefixes and the port's module names, in the same order.
  const char* theano_units[4] = {"encoder_desc_word", "encoder_desc_word_r", "encoder_q",
                                 "encoder_q_r"};
  const char* torch_units[4] = {"doc_forward", "doc_backward", "query_forward", "query_backward"};
  UnitWeights units[4];
  for (int i = 0; i < 4; ++i)
    units[i] = theano ? read_unit_theano(weights, config, theano_units[i])
                      : read_unit_torch(weights, config, torch_units[i]);
  const HeadWeights w =
      theano ? read_head_theano(weights, config) : read_head_torch(weights, config);

  const NormConfig& norm = config.norm;
  const bool normalized = norm.enabled;
  const int64_t e1 = config.word_size + 1, h = config.hidden_size, g = 4 * h, h2 = 2 * h;
  const int64_t a = config.answer_size, n = config.num_answers, q_len = config.question_length;
  GraphBuilder b;
  auto add = [&](const std::string& name, const Shape& shape, const std::vector<float>& values) {
    return add_weight(b, name, shape, values, DataType::kF32);
  };
  auto maybe = [&](const std::string& name, const Shape& shape, const std::vector<float>& values,
                   bool present) { return present ? add(name, shape, values) : kNoTensor; };

  const TensorId table = add("embedding.ones", {config.vocab_size, e1},
                             with_ones_column(w.embedding, static_cast<size_t>(config.vocab_size),
                                              static_cast<size_t>(config.word_size)));
  const TensorId doc_ids = b.input("document", DataType::kI32, {kSequenceDim});
  const TensorId q_ids = b.input("question", DataType::kI32, {q_len});
  const TensorId doc =
      b.node(OpType::kEmbedding, "document.embedding", {doc_ids, table}, {{kSequenceDim, e1}});
  const TensorId question =
      b.node(OpType::kEmbedding, "question.embedding", {q_ids, table}, {{q_len, e1}});

  std::vector<Attribute> cell = norm_attributes(norm);
  cell.push_back(norm_selection_attribute(norm));
  cell.push_back({"placement", std::string(normalized ? "projections_and_cell" : "none")});
  const bool ln = norm.is(NormKind::kLayerNorm);
  // One direction over `x` ([rows, E + 1]); returns (h_seq, h_last).
  auto unit = [&](int i, TensorId x, int64_t rows, bool reverse) {
    const UnitWeights& u = units[i];
    const std::string p = torch_units[i];
    std::vector<TensorId> inputs = {x,
                                    maybe(p + ".h0", {1, h}, u.h0, config.learn_h0),
                                    kNoTensor,
                                    add(p + ".w_x", {g, e1}, u.w_x),
                                    add(p + ".w_h", {g, h}, u.w_h),
                                    add(p + ".b", {g}, u.b),
                                    maybe(p + ".gain_h", {g}, u.gain_h, normalized),
                                    maybe(p + ".bias_h", {g}, u.bias_h, ln),
                                    maybe(p + ".gain_x", {g}, u.gain_x, normalized),
                                    maybe(p + ".bias_x", {g}, u.bias_x, ln),
                                    maybe(p + ".gain_c", {h}, u.gain_c, normalized),
                                    maybe(p + ".bias_c", {h}, u.bias_c, ln)};
    std::vector<Attribute> attributes = cell;
    attributes.push_back({"reverse", int64_t(reverse ? 1 : 0)});
    b.node(OpType::kLstmCell, p, inputs, {{rows, h}, {1, h}}, attributes);
    return std::pair{b.last_outputs()[0], b.last_outputs()[1]};
  };
  const TensorId doc_fwd = unit(0, doc, kSequenceDim, false).first;
  const TensorId doc_bwd = unit(1, doc, kSequenceDim, true).first;
  const TensorId desc = b.node(OpType::kConcat, "document.concat", {doc_fwd, doc_bwd},
                               {{kSequenceDim, h2}}, {{"axis", int64_t(1)}});
  const TensorId q_fwd = unit(2, question, q_len, false).second;
  const TensorId q_bwd = unit(3, question, q_len, true).second;
  const TensorId q =
      b.node(OpType::kConcat, "question.concat", {q_fwd, q_bwd}, {{1, h2}}, {{"axis", int64_t(1)}});

  // Attention over the document positions (build_attention).
  const TensorId keys = b.node(OpType::kLinear, "attention.document",
                               {desc, add("attention.document.weight", {h, h2}, w.att_doc),
                                add("attention.document.bias", {h}, w.att_doc_b)},
                               {{kSequenceDim, h}});
  const TensorId query = b.node(OpType::kLinear, "attention.query",
                                {q, add("attention.query.weight", {h, h2}, w.att_query)}, {{1, h}});
  TensorId similarity = kNoTensor;
  if (config.use_dq_sims) {
    const TensorId bilinear = add("attention.bilinear.weight", {h2, h2}, w.bilinear);
    const TensorId doc_proj = b.node(OpType::kLinear, "attention.bilinear.document",
                                     {desc, bilinear}, {{kSequenceDim, h2}});
    const TensorId q_proj =
        b.node(OpType::kLinear, "attention.bilinear.query", {q, bilinear}, {{1, h2}});
    similarity =
        b.node(OpType::kMatMul, "attention.similarity", {doc_proj, q_proj}, {{kSequenceDim, 1}});
  }
  b.node(OpType::kAdditiveAttention, "attention",
         {query, keys, add("attention.v", {h}, w.att_v), kNoTensor, desc, similarity},
         {{1, h2}, {1, kSequenceDim}});
  const TensorId context = b.last_outputs()[0];
  const TensorId alignment = b.last_outputs()[1];

  // The answer: g = tanh(ctx·W_c + q·W_o + b_o [+ mean(desc)·W_m]).
  TensorId answer = b.node(OpType::kLinear, "output.context",
                           {context, add("output.context.weight", {a, h2}, w.out_ctx)}, {{1, a}});
  const TensorId from_q = b.node(OpType::kLinear, "output.query",
                                 {q, add("output.query.weight", {a, h2}, w.out_query),
                                  add("output.query.bias", {a}, w.out_query_b)},
                                 {{1, a}});
  answer = b.node(OpType::kAdd, "output.add_query", {answer, from_q}, {{1, a}});
  if (config.use_desc_skip_c_g) {
    const TensorId mean = b.node(OpType::kMeanPool, "document.mean", {desc}, {{1, h2}});
    const TensorId from_mean =
        b.node(OpType::kLinear, "output.mean_document",
               {mean, add("output.mean_document.weight", {a, h2}, w.out_mean)}, {{1, a}});
    answer = b.node(OpType::kAdd, "output.add_mean", {answer, from_mean}, {{1, a}});
  }
  answer = b.node(OpType::kActivation, "output.tanh", {answer}, {{1, a}},
                  {{"activation", std::string("tanh")}});
  const TensorId logits = b.node(
      OpType::kLinear, "logit",
      {answer, add("logit.weight", {n, a}, w.logit), add("logit.bias", {n}, w.logit_b)}, {{1, n}});
  const TensorId probs = b.node(OpType::kSoftmax, "probs", {logits}, {{1, n}});
  b.rename(probs, "probs");
  b.rename(alignment, "alignment");
  b.output(probs);
  b.output(alignment);
  b.metadata("architecture", std::string("attentive_reader"));
  b.metadata("norm", std::string(norm_name(norm)));
  NORMRT_RETURN_IF_ERROR(weights.finish());
  return b.finish(config.max_document_length);
}

}  // namespace normrt
