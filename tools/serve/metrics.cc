#include "tools/serve/metrics.h"

#include <charconv>
#include <chrono>

namespace normrt::serve {
namespace {

// The shortest text that reads back as `value` ("0.005", not %.17g's
// "0.0050000000000000001"), as Prometheus' own clients print bounds.
std::string number(double value) {
  char text[40];
  const std::to_chars_result end =
      std::to_chars(text, text + sizeof text, value, std::chars_format::general);
  return std::string(text, end.ptr);
}

// Label values are ours (route patterns, versions, ISA names), but escape
// as the format requires anyway.
std::string label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void header(std::string& out, const char* name, const char* type, const char* help) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

std::string metrics_method_label(const std::string& method) {
  for (const char* known : {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"}) {
    if (method == known) return method;
  }
  return "other";
}

void ServeMetrics::Histogram::observe(double value) {
  size_t bucket = 0;
  while (bucket < size_ && value > bounds_[bucket]) ++bucket;
  ++counts_[bucket];
  sum_ += value;
  ++count_;
}

void ServeMetrics::Histogram::render(std::string& out, const std::string& family,
                                     const std::string& labels) const {
  const std::string before_le = labels.empty() ? "" : labels + ",";
  const std::string braces = labels.empty() ? "" : "{" + labels + "}";
  uint64_t cumulative = 0;
  for (size_t b = 0; b <= size_; ++b) {
    cumulative += counts_[b];
    const std::string le = b < size_ ? number(bounds_[b]) : "+Inf";
    out +=
        family + "_bucket{" + before_le + "le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
  }
  out += family + "_sum" + braces + " " + number(sum_) + "\n";
  out += family + "_count" + braces + " " + std::to_string(count_) + "\n";
}

ServeMetrics::ServeMetrics() {
  start_time_ =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void ServeMetrics::record_request(const std::string& endpoint, const std::string& method,
                                  int status, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{endpoint, metrics_method_label(method), status}];
  durations_.try_emplace(endpoint, kBuckets).first->second.observe(seconds);
}

void ServeMetrics::add_work(const std::string& endpoint, uint64_t tokens, uint64_t inputs) {
  std::lock_guard<std::mutex> lock(mutex_);
  Work& work = work_[endpoint];
  work.tokens += tokens;
  work.inputs += inputs;
}

void ServeMetrics::record_merged_run(size_t requests, size_t texts) {
  std::lock_guard<std::mutex> lock(mutex_);
  merged_runs_.observe(double(requests));
  merged_texts_ += texts;
}

void ServeMetrics::record_merge_left(MergeLeft reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++(reason == MergeLeft::kClientGone ? merge_left_gone_ : merge_left_deadline_);
}

void ServeMetrics::set_model_load_seconds(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  model_load_seconds_ = seconds;
}

void ServeMetrics::record_reload(bool success) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++(success ? reloads_ok_ : reloads_failed_);
}

std::string ServeMetrics::render(const Gauges& gauges) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  header(out, "normrt_http_requests_total", "counter",
         "Requests answered, by endpoint, method and status (499: the client left first).");
  for (const auto& [key, count] : requests_) {
    const auto& [endpoint, method, status] = key;
    out += "normrt_http_requests_total{endpoint=\"" + label(endpoint) + "\",method=\"" +
           label(method) + "\",status=\"" + std::to_string(status) + "\"} " +
           std::to_string(count) + "\n";
  }
  header(out, "normrt_http_request_duration_seconds", "histogram",
         "Time from a request's first byte to its reply.");
  for (const auto& [endpoint, histogram] : durations_)
    histogram.render(out, "normrt_http_request_duration_seconds",
                     "endpoint=\"" + label(endpoint) + "\"");
  header(out, "normrt_tokens_total", "counter", "Token ids run through the model.");
  for (const auto& [endpoint, work] : work_) {
    out += "normrt_tokens_total{endpoint=\"" + label(endpoint) + "\"} " +
           std::to_string(work.tokens) + "\n";
  }
  header(out, "normrt_inputs_total", "counter", "Texts and token-id sequences embedded.");
  for (const auto& [endpoint, work] : work_) {
    out += "normrt_inputs_total{endpoint=\"" + label(endpoint) + "\"} " +
           std::to_string(work.inputs) + "\n";
  }
  header(out, "normrt_merged_run_requests", "histogram",
         "Requests per merged run (--batch-wait-ms): _count runs, _sum requests.");
  merged_runs_.render(out, "normrt_merged_run_requests", "");
  header(out, "normrt_merged_texts_total", "counter", "Texts run in merged runs.");
  out += "normrt_merged_texts_total " + std::to_string(merged_texts_) + "\n";
  header(out, "normrt_merge_left_total", "counter",
         "Requests that left their batch before it ran, by reason.");
  out +=
      "normrt_merge_left_total{reason=\"client_gone\"} " + std::to_string(merge_left_gone_) + "\n";
  out +=
      "normrt_merge_left_total{reason=\"deadline\"} " + std::to_string(merge_left_deadline_) + "\n";
  auto gauge = [&](const char* name, const char* help, const std::string& value) {
    header(out, name, "gauge", help);
    out += std::string(name) + " " + value + "\n";
  };
  gauge("normrt_queue_depth", "Requests waiting for a worker.", std::to_string(gauges.waiting));
  gauge("normrt_workers", "Sessions that run requests (--workers).",
        std::to_string(gauges.workers));
  gauge("normrt_workers_busy", "Sessions running a request now.", std::to_string(gauges.busy));
  gauge("normrt_inflight_bytes", "Memory reserved by the requests in flight.",
        std::to_string(gauges.inflight.used_bytes));
  gauge("normrt_inflight_bytes_limit", "The in-flight memory budget (--max-inflight-bytes).",
        std::to_string(gauges.inflight.capacity_bytes));
  gauge("normrt_model_generation", "The serving model's generation (1, +1 per reload).",
        std::to_string(gauges.generation));
  gauge("normrt_model_load_seconds",
        "Time the serving model took to load: read, verify, compile, make its sessions.",
        number(model_load_seconds_));
  header(out, "normrt_model_reloads_total", "counter", "Model reloads (SIGHUP), by result.");
  out += "normrt_model_reloads_total{result=\"success\"} " + std::to_string(reloads_ok_) + "\n";
  out += "normrt_model_reloads_total{result=\"failure\"} " + std::to_string(reloads_failed_) + "\n";
  header(out, "normrt_build_info", "gauge", "The normrt version and the kernels' ISA.");
  out += "normrt_build_info{version=\"" + label(gauges.version) + "\",isa=\"" + label(gauges.isa) +
         "\"} 1\n";
  gauge("process_start_time_seconds", "Start time of the process since the Unix epoch.",
        number(start_time_));
  return out;
}

}  // namespace normrt::serve
