#pragma once
// Shared machinery of the attention kernel tests: which variants run (every
// runnable one, or only NORMRT_ISA's: CTest registers the suite once per
// ISA), random cases, running a kernel on a case laid out with padded strides
// and misaligned bases between canary-filled guards, and comparing with the
// long-double oracle.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/attention/attention.h"
#include "tests/kernels/attention_oracle.h"
#include "tests/kernels/variant_test_support.h"

namespace normrt::testing {

/// The variants under test: NORMRT_ISA's if it is set (none, with a note on
/// stdout that CTest reads as "skipped", if this CPU cannot run it), else
/// every runnable one.
std::vector<const AttentionVariant*> attention_variants_under_test();

/// NORMRT_TEST_QUICK=1: shorter sweeps (qemu, sanitizers).
bool attention_quick_mode();

/// A random case: q, k uniform in [−qk_range, qk_range), v in [−1, 1).
AttentionData random_attention(const AttentionParams& params, size_t batch, size_t query_rows,
                               size_t key_rows, uint64_t seed, float qk_range = 1.0f);

/// How run_attention() lays the operands out: `pad` floats past each row's
/// width (row strides), `batch_pad` floats between sequences, bases
/// `misalign` floats past a 64-byte boundary.
struct AttentionLayout {
  size_t pad = 0;
  size_t batch_pad = 0;
  size_t misalign = 0;
};

/// What a run wrote: out, dense (batch, query_rows, heads·d), and "" or a
/// description of the first float it wrote outside out's rows.
struct AttentionResult {
  std::vector<float> out;
  std::string stray_write;
};

/// Runs `kernel` on `data` through attention_run() (on `pool` if given).
AttentionResult run_attention(AttentionKernel kernel, const AttentionData& data,
                              const AttentionLayout& layout = {}, ThreadPool* pool = nullptr);

/// Runs `kernel` on `data` (dense layout) as `parts` callers that take the
/// residues of the task index, one after the other.
std::vector<float> run_attention_split(AttentionKernel kernel, const AttentionData& data,
                                       size_t parts);

/// "" if every element is within the oracle's tolerance (rows with no visible
/// key exactly 0), else the first failure: sequence, query row, head, column,
/// both values and the tolerance. `worst` receives max |error| / tolerance.
std::string compare_attention(const AttentionData& data, const AttentionExpected& expected,
                              const std::vector<float>& out, double* worst = nullptr);

/// "name d=.. heads=../.. S=.." for messages.
std::string describe(const AttentionData& data);

}  // namespace normrt::testing
