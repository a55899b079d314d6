#pragma once
// What every builder in models/ shares: the norm a Transformer runs its
// checkpoint with (the convention itself is runtime/graph/norm_attributes.h),
// a checker that compares a WeightSource with the tensors an architecture
// expects and reports every problem in one message, the conversion of the
// exported float types to float, and adding weights to a graph in the
// requested storage type.
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/graph_builder.h"
#include "runtime/graph/norm_attributes.h"

namespace normrt {

/// The norm a Transformer builder runs its checkpoint's norms with: `kind`
/// (a norm_kind_name(): "layer_norm" | "rms_norm" | "prms_norm"; not "none":
/// the model needs its norms) with the checkpoint's eps, and p only for
/// prms_norm. `model` names the builder in messages ("BERT", "Llama").
Expected<NormConfig> override_norm(const std::string& model, const std::string& kind, double eps,
                                   double p);
/// The longest sequence a graph is planned for: `requested`, or
/// `max_positions` when 0; an error outside [1, max_positions].
Expected<int64_t> planned_sequence_length(const std::string& model, int64_t requested,
                                          int64_t max_positions);

/// Collects, for one WeightSource, every tensor an architecture expects that
/// is missing, has another shape, an unsupported dtype or a wrong byte size,
/// and (in finish()) every tensor of the source nobody asked for. Usage:
///   WeightChecker check(source);
///   const SourceTensor* w = check.expect("fc.weight", {N, K});   // null if bad
///   ...
///   NORMRT_RETURN_IF_ERROR(check.finish());   // one message, all problems
class WeightChecker {
 public:
  explicit WeightChecker(const WeightSource& source) : source_(source) {}

  /// The tensor `name` if it exists with exactly `shape`, a float dtype
  /// (F32, F16, BF16, F64) and the matching byte size; null otherwise (the
  /// problem is recorded).
  const SourceTensor* expect(const std::string& name, const std::vector<int64_t>& shape);
  /// expect() and to_float(): the values, or empty if there is a problem
  /// (recorded), so a builder can run to the end and list every problem.
  std::vector<float> read(const std::string& name, const std::vector<int64_t>& shape);
  /// A tensor the architecture knows but does not use (BERT's pooler): if
  /// present it must have `shape` (else a problem is recorded), and it is
  /// reported to the source as skipped (WeightSource::skip_unused).
  void known_unused(const std::string& name, const std::vector<int64_t>& shape);
  /// Records a problem that is not about one tensor (a bad config value).
  void fail(std::string problem) { problems_.push_back(std::move(problem)); }
  /// ok, or one error: "<source>: N problems with the weights:" followed by
  /// one line per problem (missing, mis-shaped, wrong dtype, unknown). A
  /// tensor nobody asked for is unknown unless the source skips it
  /// (WeightSource::skip_unused).
  Status finish();

 private:
  const WeightSource& source_;
  std::vector<std::string> expected_;
  std::vector<std::string> problems_;
};

/// The elements of a tensor whose dtype and size expect() accepted, as float
/// (F64 rounded to nearest, F16 and BF16 widened exactly).
std::vector<float> to_float(const SourceTensor& tensor);

/// Adds a weight: a matrix (rank ≥ 2) in `matrix_dtype` (kF32, or kBF16
/// rounded to nearest even), a vector (rank ≤ 1) always as f32. Empty
/// `values` (a problem WeightChecker::read() recorded) give a weight without
/// data, which graph_validate() rejects: only for a graph that finish()'s
/// error discards.
TensorId add_weight(GraphBuilder& builder, const std::string& name, const Shape& shape,
                    const std::vector<float>& values, DataType matrix_dtype);

/// An error unless `dtype` is kF32 or kBF16 (the storage types of weights).
Status check_matrix_dtype(DataType dtype);

}  // namespace normrt
