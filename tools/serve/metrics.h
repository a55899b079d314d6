#pragma once
// What GET /metrics reports, in Prometheus' text exposition format (0.0.4):
//
//   normrt_http_requests_total{endpoint,method,status}     counter
//   normrt_http_request_duration_seconds{endpoint}         histogram, first byte to reply
//   normrt_tokens_total{endpoint}                          counter, token ids run
//   normrt_inputs_total{endpoint}                          counter, texts / id sequences embedded
//   normrt_merged_run_requests                             histogram, requests per merged run
//   normrt_merged_texts_total                              counter, texts run in merged runs
//   normrt_merge_left_total{reason="client_gone"|"deadline"}  counter, requests that left a batch
//   normrt_queue_depth                                     gauge, requests waiting for a worker
//   normrt_workers, normrt_workers_busy                    gauges
//   normrt_inflight_bytes, normrt_inflight_bytes_limit     gauges (--max-inflight-bytes)
//   normrt_model_generation                                gauge (1, +1 per reload)
//   normrt_model_load_seconds                              gauge, the serving model's load
//   normrt_model_reloads_total{result="success"|"failure"} counter (SIGHUP)
//   normrt_build_info{version,isa}                         gauge, 1
//   process_start_time_seconds                             gauge (Unix time)
//
// "endpoint" is the route's pattern ("/v2/models/{name}/infer"), "other"
// for an unknown path, so that no label takes values from clients beyond
// the methods HTTP defines. Thread-safe.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace normrt::serve {

/// The in-flight memory budget's state, for the gauges (http_server.h).
struct InflightGauge {
  size_t used_bytes = 0;
  size_t capacity_bytes = 0;
};

class ServeMetrics {
 public:
  /// Upper bounds (seconds) of the latency histogram's buckets; +Inf follows.
  static constexpr std::array<double, 15> kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

  /// Upper bounds of the merged runs' requests-per-run buckets; +Inf follows.
  static constexpr std::array<double, 11> kMergeBuckets = {1,  2,   4,   8,   16,  32,
                                                           64, 128, 256, 512, 1024};

  ServeMetrics();

  /// One request answered (or abandoned, status 499) after `seconds`.
  void record_request(const std::string& endpoint, const std::string& method, int status,
                      double seconds);
  /// Token ids run and inputs (texts, id sequences) embedded for `endpoint`.
  void add_work(const std::string& endpoint, uint64_t tokens, uint64_t inputs);
  /// The serving model took `seconds` to load (read, verify, compile, sessions).
  /// A merged run (--batch-wait-ms) of `requests` requests and `texts` texts.
  void record_merged_run(size_t requests, size_t texts);
  /// A request left its batch before it ran, for `reason`.
  enum class MergeLeft { kClientGone, kDeadline };
  void record_merge_left(MergeLeft reason);
  void set_model_load_seconds(double seconds);
  void record_reload(bool success);

  /// The gauges read at scrape time.
  struct Gauges {
    size_t workers = 0, busy = 0, waiting = 0;
    uint64_t generation = 0;
    InflightGauge inflight;
    std::string version, isa;
  };
  /// The whole exposition text.
  std::string render(const Gauges& gauges) const;

 private:
  /// Values counted into the buckets of fixed upper bounds (+Inf follows),
  /// with their sum and count: every histogram of the exposition.
  class Histogram {
   public:
    template <size_t N>
    explicit Histogram(const std::array<double, N>& bounds)
        : bounds_(bounds.data()), size_(N), counts_(N + 1) {}
    void observe(double value);
    /// Appends `family`_bucket (cumulative, le="+Inf" last), _sum and
    /// _count; `labels` ("key=\"value\"", comma-separated) or empty.
    void render(std::string& out, const std::string& family, const std::string& labels) const;

   private:
    const double* bounds_;          // static: kBuckets, kMergeBuckets
    size_t size_;                   // bounds
    std::vector<uint64_t> counts_;  // per bucket, not cumulative; last: +Inf
    double sum_ = 0;                // exact for integer values (requests) below 2^53
    uint64_t count_ = 0;
  };
  struct Work {
    uint64_t tokens = 0, inputs = 0;
  };

  mutable std::mutex mutex_;
  std::map<std::tuple<std::string, std::string, int>, uint64_t> requests_;
  std::map<std::string, Histogram> durations_;
  std::map<std::string, Work> work_;
  Histogram merged_runs_{kMergeBuckets};  // requests per merged run
  uint64_t merged_texts_ = 0;
  uint64_t merge_left_gone_ = 0, merge_left_deadline_ = 0;
  double model_load_seconds_ = 0;
  uint64_t reloads_ok_ = 0, reloads_failed_ = 0;
  double start_time_ = 0;
};

/// `method` when it is one HTTP defines, else "other" (a label never takes
/// arbitrary client text).
std::string metrics_method_label(const std::string& method);

}  // namespace normrt::serve
