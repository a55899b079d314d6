// bench_rnn: one LN-LSTM and one LN-GRU step (LayerNorm everywhere), fused
// as kernels/rnn runs it, against the same step composed of separate public
// kernels, each its own sweep over memory.
//
// Benchmarks are named <impl>/<cell>/<dtype>/<H>, input size D = H:
//   fused     ln_lstm_step / ln_gru_step: the W_h (and U) GEMV with its
//             normalization in the epilogue (fused_linear), one SIMD pass for
//             the gates and the state (and the statistics of c_t), one pass
//             for h_t = σ(o)⊙tanh(LN(c_t)).
//   separate  linear(), then norm(), then each add, activate(sigmoid/tanh)
//             and multiply as its own call over the whole vector: what an
//             unfused graph executor would run. The add / subtract / multiply
//             loops are plain C++ in this file (normrt has no public
//             element-wise arithmetic kernel), compiled for the baseline ISA.
//   paired    fused and separate alternating in blocks of 16 steps inside one
//             benchmark, so both see the same background load; counters: the
//             median step time of each and the median per-pair ratio. On a
//             shared machine this ratio is the one to quote.
//   int8_vs_f32  the fused step with f32 and with int8 weights (x and h
//             quantized per step) alternating in blocks as `paired`; counters:
//             the median step time of each and the median per-pair speedup
//             f32 / int8 (issue 17's target: >= 1.8 for the LSTM at H = 1024).
//   gru_hproj:two_fused  the GRU's N(W_h·h) and N(U·h) as ln_gru_step does
//             them: two fused_linear calls, 2H and H rows.
//   gru_hproj:stacked    the alternative: one linear() over W_h and U stacked
//             (3H × H), then norm() over [0, 2H) and [2H, 3H).
//   epilogue:fused/<cell>/<H> and epilogue:separate/<cell>/<H>: only what
//             follows the normalized projections (gates, state update, LN(c_t)
//             and h_t), where the fusion acts: the per-ISA passes of
//             kernels/rnn (internal rnn_gates.h) against the separate calls.
// Both variants of a step start from the same normalized input projection
// xproj_t (ln_*_project_inputs runs once per sequence, outside the step) and
// update the state in place. The weights stay hot in the caches between
// steps (L2 or L3: 2-16 MB), as an RNN's recurrent weights do when it decodes
// step after step. One thread. A ratio table separate ÷ fused follows the run.

//
// The benchmarks live by kind in rnn_bench_step.cc and rnn_bench_epilogue.cc
// (the cells they time: rnn_bench_cells.h; the tables: rnn_bench_summary.h).

#include <benchmark/benchmark.h>

#include <iostream>
#include <vector>

#include "bench/bench_args.h"
#include "bench/rnn_bench_cells.h"
#include "bench/rnn_bench_summary.h"

namespace normrt::bench {
namespace {

constexpr const char* kDefaultMinTimeFlag = "--benchmark_min_time=0.2";

void register_benchmarks(Isa isa) {
  for (bool lstm : {false, true}) {  // gru, then lstm
    register_step_benchmarks(lstm, isa);
    register_epilogue_benchmarks(lstm, isa);
  }
}

}  // namespace
}  // namespace normrt::bench

int main(int argc, char** argv) {
  using namespace normrt::bench;
  std::vector<char*> args = with_default_min_time(argc, argv, kDefaultMinTimeFlag);
  int args_count = static_cast<int>(args.size()) - 1;
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 1;
  normrt::Expected<normrt::Isa> isa = normrt::selected_isa();
  if (!isa) {
    std::cerr << isa.status().message() << "\n";
    return 1;
  }
  benchmark::AddCustomContext("isa", normrt::isa_name(*isa));
  benchmark::AddCustomContext("threads", "1");
  register_benchmarks(*isa);
  PairedCollector collector(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&collector);
  print_summary(collector, collector.display_is_console() ? std::cout : std::cerr);
  benchmark::Shutdown();
  return 0;
}
