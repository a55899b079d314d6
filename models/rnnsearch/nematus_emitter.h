#pragma once
// The pieces of Nematus' layers (nematus/layers.py) as graph nodes, shared by
// the RNNSearch encoder and decoder builders: reading parameters by their
// Nematus names (each once, problems recorded in one WeightChecker),
// Nematus' x·W layout turned into Linear's [out, in], the norm of a
// *_lns/_lnb site, projections N(x·W + b) and GRU recurrences.
#include <map>
#include <string>
#include <vector>

#include "models/builder_support.h"
#include "models/rnnsearch/rnnsearch_builder.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {

/// A norm site's gain and bias names: "encoder_W_lns" / "encoder_W_lnb" in
/// the GRUs, "ff_state_ln_s" / "ff_state_ln_b" in the feed-forward layers.
struct NematusNormNames {
  std::string gain, bias;
};
/// The GRU site of matrix `m` of layer `prefix` ("encoder", "W").
NematusNormNames gru_site(const std::string& prefix, const std::string& m);
/// The site of feed-forward layer `prefix` ("ff_logit_lstm").
NematusNormNames ff_site(const std::string& prefix);

class NematusEmitter {
 public:
  NematusEmitter(const RnnSearchConfig& config, WeightChecker& check, DataType matrix_dtype)
      : c_(config), check_(check), matrix_dtype_(matrix_dtype) {}

  /// The graph the next nodes go to.
  void use(GraphBuilder& builder) { b_ = &builder; }
  GraphBuilder& builder() { return *b_; }
  const RnnSearchConfig& config() const { return c_; }

  /// A parameter's values, read (and checked) once; empty if it has a problem.
  const std::vector<float>& values(const std::string& name, const std::vector<int64_t>& shape);
  /// A matrix or vector weight of exactly the stored values and shape.
  TensorId weight(const std::string& name, const std::vector<int64_t>& shape);
  /// A weight `name` holding `values` (empty: a placeholder for a problem
  /// already recorded), stored as the builders store weights (add_weight()).
  TensorId weight_from(const std::string& name, const std::vector<int64_t>& shape,
                       const std::vector<float>& values);
  /// The Nematus matrix `name` [in, out] as a Linear weight [out, in] ("<name>.T").
  TensorId matrix_t(const std::string& name, int64_t in, int64_t out);

  /// N(x) over rows of n with the site's gain and bias; x itself for norm "none".
  TensorId norm(const std::string& node, TensorId x, int64_t rows, int64_t n,
                const NematusNormNames& site);
  /// N(x·W + b) of Nematus' [in, out] matrix `w` and optional bias `b` ("" for none).
  TensorId projection(const std::string& node, TensorId x, int64_t rows, const std::string& w,
                      const std::string& b, int64_t in, int64_t out, const NematusNormNames& site);

  /// A GRU's input projections [rows, 2·dim], [rows, dim] of layer `prefix`
  /// from x [rows, in]: N(x·W + b), N(x·Wx + bx) (Nematus' gru_layer, and the
  /// first half of gru_cond_layer).
  struct Projections {
    TensorId xg, xc;
  };
  Projections gru_inputs(const std::string& prefix, TensorId x, int64_t rows, int64_t in);

  /// The recurrence (GruRecurrenceCho) of `prefix`'s matrices `u` [dim, 2·dim]
  /// and `ux` [dim, dim] ("U", "Ux"; "U_nl", "Ux_nl") with their norm sites,
  /// optional biases `b_u`, `b_ux` inside the norms (gru_cond_layer's b_nl,
  /// bx_nl; "" for none), over x's `rows` rows from h0 (kNoTensor: zeros).
  /// Returns h_seq [rows, dim].
  TensorId gru(const std::string& node, Projections x, TensorId h0, int64_t rows,
               const std::string& prefix, const std::string& u, const std::string& ux,
               const std::string& b_u, const std::string& b_ux, bool reverse);

 private:
  std::vector<Attribute> gru_attributes(bool reverse) const;

  const RnnSearchConfig& c_;
  WeightChecker& check_;
  DataType matrix_dtype_;
  GraphBuilder* b_ = nullptr;
  std::map<std::string, std::vector<float>> read_;
};

/// The two graphs' nodes, emitted into emit.builder() (rnnsearch_encoder.cc,
/// rnnsearch_decoder.cc); inputs, outputs and the state as rnnsearch_builder.h.
void emit_rnnsearch_encoder(NematusEmitter& emit);
void emit_rnnsearch_decoder(NematusEmitter& emit);

}  // namespace normrt
