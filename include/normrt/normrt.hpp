#pragma once
/// normrt's C++ API for applications that embed the runtime.
///
///   auto model = normrt::Model::load("model.nrmt");          // once; shareable
///   auto session = normrt::Session::create(*model);           // one per thread/request stream
///   session.value()->set_input("ids", normrt::ElementType::kI64, ids.data(),
///                              normrt::TensorShape::of({ids.size()}));
///   session.value()->run();
///   auto embedding = session.value()->output("embedding");    // view, valid until the next run
///
/// A Model is immutable after load and may be used by any number of Sessions
/// on any threads at once. A Session holds one request stream's memory (the
/// activation arena, RNN state, KV cache, decoding position) and is used by
/// one thread at a time. run() allocates nothing. No exception escapes: every
/// fallible call returns a Status or an Expected<T> whose message says what
/// is wrong.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "normrt/export.h"
#include "normrt/status.h"

namespace normrt {

struct ModelOptions {
  /// Kernel ISA: "" picks the best this CPU runs (or NORMRT_ISA if set);
  /// "scalar", "avx2", "avx512", "neon" force one (an error if not runnable).
  std::string isa;
  /// Rewrite Linear → (Add) → norm → (activation) chains into fused kernels.
  bool fuse = true;
  /// Fold pre-norm gains and biases into the following linear layers' weights.
  bool fold_norm_affine = true;
  /// bf16 matrices run with their activations rounded to bf16 (one vdpbf16ps
  /// per weight pair on AVX512-BF16; oneDNN's AMX matmul where the measured
  /// table picks it): faster, ~1e-3 relative error per product. Where the CPU
  /// has neither, the accurate path runs and kernel_choices() says so. Also
  /// switched on by the environment NORMRT_BF16_ACTIVATIONS=1. No effect on
  /// f32 or int8 matrices.
  bool bf16_activations = false;
};

/// The kernel a node's matrix product runs on, chosen at load, and why.
struct KernelChoice {
  std::string node;    ///< node name
  std::string kernel;  ///< backend and kernel with the reason, e.g. "normrt (...): int8_gemv__..."
};

/// The library's version, "major.minor.patch".
NORMRT_API const char* version();

/// The element type of data handed to Session::set_input.
enum class ElementType { kF32, kI32, kI64 };
/// "f32", "i32", "i64".
NORMRT_API const char* element_type_name(ElementType type);

/// A named graph input or output as the model declares it.
struct TensorInfo {
  std::string name;
  std::string dtype;           ///< "f32", "i32"
  std::vector<int64_t> shape;  ///< -1 = the sequence length S, chosen per run
};

/// A shape of up to four dimensions, held inline: reading an output after
/// every run allocates nothing.
struct TensorShape {
  static constexpr size_t kMaxRank = 4;
  size_t rank = 0;
  size_t dims[kMaxRank] = {};
  size_t size() const { return rank; }
  size_t operator[](size_t axis) const { return dims[axis]; }
  const size_t* begin() const { return dims; }
  const size_t* end() const { return dims + rank; }
  /// {S} or {S, 48}: a shape from its dimensions (at most kMaxRank; more give rank 0).
  static TensorShape of(std::initializer_list<size_t> dims) {
    TensorShape shape;
    if (dims.size() > kMaxRank) return shape;
    for (size_t dim : dims) shape.dims[shape.rank++] = dim;
    return shape;
  }
};

/// A read-only view of a session's output, valid until its next run() or reset().
struct NORMRT_API TensorRef {
  const void* data = nullptr;
  std::string_view dtype;  ///< "f32", "i32"
  TensorShape shape;       ///< with this run's S
  size_t elements() const;
  const float* f32() const { return static_cast<const float*>(data); }
};

/// What the fusion and folding passes did at load.
struct PassSummary {
  size_t nodes_before = 0, nodes_after = 0;
  size_t fused_linear_nodes = 0;
  size_t fused_conv_nodes = 0;  ///< Conv2d nodes that absorbed a spatial norm and/or activation
  size_t folded_norms = 0;
  size_t weight_copy_bytes = 0;  ///< weights repacked into own memory (0: all used from the file)
  size_t arena_bytes = 0;        ///< activation memory of one session
  size_t unshared_bytes = 0;     ///< what it would be without buffer reuse
};

class NORMRT_API Model {
 public:
  struct Impl;  // runtime/exec/compiled_model.h
  ~Model();

  /// Maps, validates and prepares a model file (docs/model_format.md).
  static Expected<std::shared_ptr<const Model>> load(const std::string& path,
                                                     const ModelOptions& options = {});

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  /// The state a Session carries between runs (RNN states, KV caches).
  const std::vector<TensorInfo>& states() const;
  size_t max_sequence_length() const;
  /// "" if the model runs batches of sequences (SessionOptions::max_batch,
  /// docs/runtime.md); else why not, naming the node or tensor.
  std::string_view batch_refusal() const;
  /// The kernel ISA chosen at load ("avx512", ...).
  std::string_view isa() const;
  const PassSummary& passes() const;
  /// Per node with a matrix product (Linear, FusedLinear, GruRecurrence): the
  /// backend and kernel chosen at load and the reason (docs/int8.md, docs/bf16_fast.md).
  /// NORMRT_VERBOSE=1 also prints them to stderr at load.
  const std::vector<KernelChoice>& kernel_choices() const;
  /// Whether bf16 activations were asked for (option or environment).
  bool bf16_activations() const;
  /// A metadata entry of the file as text ("" if absent or bytes).
  std::string metadata(std::string_view key) const;
  /// A bytes metadata entry (docs/model_format.md), a view valid while the
  /// Model lives; empty if absent (or not bytes). The runtime does not read it.
  std::string_view metadata_bytes(std::string_view key) const;
  /// metadata_bytes("tokenizer"): the tokenizer normrt-convert stored (its
  /// vocabulary, normalization, special tokens, max length), for
  /// normrt::Tokenizer::from_bytes (include/normrt/tokenizer.hpp); empty if
  /// the file stores none.
  std::string_view tokenizer_bytes() const { return metadata_bytes("tokenizer"); }

  const Impl& impl() const { return *impl_; }
  explicit Model(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

struct SessionOptions {
  /// Intra-op threads of this session: 1 the calling thread only; 0 as many
  /// as this process may use (available_cpus()); at most
  /// max_session_threads(): more is an error, not a clamp.
  size_t threads = 1;
  /// Time every node (steady clock; adds ~50 ns a node).
  bool profile = false;
  /// The most sequences one run may take (≥ 1), if the model runs batches
  /// (Model::batch_refusal() is empty). The session's activation memory
  /// grows with it: max_batch × PassSummary::arena_bytes.
  size_t max_batch = 1;
};

/// The most intra-op threads a Session accepts (1024, on any machine: a
/// bound on absurd values such as 20,000, not a tuning advice — beyond the
/// CPUs the process may use, threads only wait for each other).
NORMRT_API size_t max_session_threads();

/// The CPUs this process may run on (its affinity mask: taskset, cgroup
/// cpusets), at least 1 and at most max_session_threads(): what
/// SessionOptions::threads = 0 resolves to.
NORMRT_API size_t available_cpus();

/// Time spent per node over the runs since the session was created or
/// profile_reset() was called.
struct NodeProfile {
  std::string name;
  std::string op;  ///< "Linear", "FusedLinear", "LayerNorm", ...
  std::string
      norm;  ///< "layer_norm", "rms_norm", "prms_norm", or "" if the node does not normalize
  uint64_t nanoseconds = 0;
  uint64_t runs = 0;
};

class NORMRT_API Session {
 public:
  struct Impl;  // runtime/exec/session_impl.h
  ~Session();

  static Expected<std::unique_ptr<Session>> create(std::shared_ptr<const Model> model,
                                                   const SessionOptions& options = {});

  /// Binds a graph input to described data: its element type and shape
  /// (the input's, TensorInfo::shape, with S in [1, max_sequence_length()]).
  ///  - The input's own type (f32 for f32, i32 for i32): borrowed until run()
  ///    returns, no copy.
  ///  - i64 for an i32 input (token ids as Hugging Face tokenizers and ONNX
  ///    Runtime hold them): every value is checked to fit int32 (else an
  ///    error naming the value and its index, and nothing is bound) and
  ///    converted into the session's own buffer now, without allocating; the
  ///    caller's buffer may change or go away at once.
  ///  - Anything else is an error naming both types: data are never
  ///    reinterpreted.
  /// A batch: an input declared [S, ...] also takes [B, S, ...], B sequences
  /// of S tokens (padded to one S; 1 ≤ B ≤ SessionOptions::max_batch), if
  /// the model runs batches. Every input of a run has the same B and S; an
  /// output with S then has the batch's tokens as rows, packed: B·S rows
  /// (sequence b at [b·S, b·S + S)), or with a mask only the real tokens,
  /// sequence after sequence (sequence b at rows [Σ_{c<b} L_c, Σ_{c≤b} L_c),
  /// L_c its mask's ones); an output of one row per sequence (a pooled
  /// embedding) has B rows.
  Status set_input(std::string_view name, ElementType type, const void* data,
                   const TensorShape& shape);
  /// Untyped: binds `bytes` of caller memory (borrowed until run() returns)
  /// taken as the input's declared type (f32 or i32); `bytes` fixes S. An
  /// int64 array passed here would be read as two int32 per value: give
  /// int64 ids to the typed overload. Kept for compatibility.
  Status set_input(std::string_view name, const void* data, size_t bytes);
  /// Which tokens of a batch are real: `mask` [B, S] of 0/1 (i32 or i64, as
  /// Hugging Face tokenizers give attention_mask), each row ones then zeros
  /// (right padding; a 1 after a 0 is an error naming the row and column).
  /// The padded tokens are removed before the first op (no work is spent on
  /// them): attention and pooling see each sequence's real tokens only, and
  /// token outputs hold the real rows packed (see set_input). Copied now;
  /// applies to the runs whose inputs have the same [B, S] until set again
  /// (a run with another [B, S] is an error); null `mask` clears it (every
  /// token real).
  Status set_attention_mask(ElementType type, const void* mask, const TensorShape& shape);
  /// Runs the graph on the bound inputs; then, if the model keeps state (RNN
  /// state, a KV cache), advances position() by S. A stateless model (an
  /// encoder) runs every input from position 0.
  Status run();
  /// A graph output of the last run.
  Expected<TensorRef> output(std::string_view name) const;
  /// Tokens fed to this session since creation or reset() (the KV cache fill).
  size_t position() const;
  /// The intra-op threads this session runs on (SessionOptions::threads,
  /// with 0 resolved to available_cpus()).
  size_t threads() const;
  /// Zeroes the state (RNN state, KV cache) and the position.
  void reset();

  /// A state tensor (Model::states()) as the last run left it; valid until
  /// the next run(), reset() or state write.
  Expected<TensorRef> state(std::string_view name) const;
  /// Overwrites one state tensor with `bytes` (exactly its size), e.g. a
  /// decoder's initial state computed from an encoder's output.
  Status set_state(std::string_view name, const void* data, size_t bytes);
  /// Makes this session's state and position a copy of `other`'s (a session
  /// of the same Model): how beam search forks and reorders hypotheses.
  /// Copies every state byte; allocates nothing.
  Status copy_state_from(const Session& other);

  const std::vector<NodeProfile>& profile() const;
  void profile_reset();

  const Model& model() const;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace normrt
