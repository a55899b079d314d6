// normrt-serve: one model file over HTTP. See serve_usage() and docs/serve.md.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "base/status.h"
#include "tools/serve/http_server.h"
#include "tools/serve/model_loader.h"
#include "tools/serve/model_service.h"
#include "tools/serve/serve_options.h"

namespace normrt::serve {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "normrt-serve: %s\n", message.c_str());
  return 1;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ModelOptions model_options(const ServeOptions& options) {
  ModelOptions model_options;
  model_options.isa = options.isa;
  model_options.fuse = options.fuse;
  model_options.fold_norm_affine = options.fuse;
  return model_options;
}

// SIGHUP: load the file again into memory of its own, check it, and make it
// the model of new requests; on any error keep serving the old one.
// --vocab, else the tokenizer the model file stores when the model has the
// pooled "embedding" output /v1/embeddings serves or is a reranker
// (/v1/rerank); a stored tokenizer does not make another model an error.
Expected<std::optional<TextTokenizer>> tokenizer_for(const ServeOptions& options,
                                                     const Model& model) {
  if (!options.vocab.empty()) {
    NORMRT_ASSIGN_OR_RETURN(TextTokenizer loaded,
                            load_tokenizer(options.vocab, model, options.keep_case));
    return std::optional<TextTokenizer>(std::move(loaded));
  }
  bool has_embedding = false;
  for (const TensorInfo& output : model.outputs()) has_embedding |= output.name == "embedding";
  if (!has_embedding && !is_reranker(model)) return std::optional<TextTokenizer>();
  return stored_tokenizer(model);
}

void reload(const ServeOptions& options, ModelService& service) {
  const uint64_t serving = service.current()->number();
  const auto start = std::chrono::steady_clock::now();
  auto failed = [&](const std::string& why) {
    service.metrics().record_reload(false);
    std::fprintf(stderr, "normrt-serve: reload failed, still serving generation %llu: %s\n",
                 static_cast<unsigned long long>(serving), why.c_str());
  };
  Expected<std::shared_ptr<const Model>> model =
      load_model_copy(options.model, model_options(options));
  if (!model) return failed(model.status().message());
  Expected<std::optional<TextTokenizer>> tokenizer = tokenizer_for(options, *model.value());
  if (!tokenizer) return failed(tokenizer.status().message());
  if (Status s = service.replace_model(model.value(), std::move(tokenizer).value()); !s) {
    return failed(s.message());
  }
  service.metrics().record_reload(true);
  service.metrics().set_model_load_seconds(seconds_since(start));
  std::fprintf(stderr, "normrt-serve: reloaded %s: generation %llu, isa %s\n",
               options.model.c_str(), static_cast<unsigned long long>(service.current()->number()),
               std::string(model.value()->isa()).c_str());
}

int serve(ServeOptions options) {
  // SIGINT, SIGTERM and SIGHUP are taken by one thread with sigwait():
  // blocked here, before any thread starts, so every thread inherits the
  // mask. A client closing its socket must not kill the server.
  sigset_t handled_signals;
  sigemptyset(&handled_signals);
  sigaddset(&handled_signals, SIGINT);
  sigaddset(&handled_signals, SIGTERM);
  sigaddset(&handled_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &handled_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // The weights are read into private memory: overwriting the file cannot
  // reach the served model (model_loader.h).
  const auto load_start = std::chrono::steady_clock::now();
  Expected<std::shared_ptr<const Model>> model =
      load_model_copy(options.model, model_options(options));
  if (!model) return fail(model.status().message());
  Expected<std::optional<TextTokenizer>> tokenizer = tokenizer_for(options, *model.value());
  if (!tokenizer) return fail(tokenizer.status().message());
  if (options.service.allow_dimensions && !tokenizer.value())
    return fail(
        "--matryoshka needs --vocab or a tokenizer stored in the model file (it applies to "
        "/v1/embeddings)");
  Expected<std::unique_ptr<ModelService>> service =
      ModelService::create(model.value(), options.service, std::move(tokenizer).value());
  if (!service) return fail(service.status().message());
  service.value()->metrics().set_model_load_seconds(seconds_since(load_start));

  HttpServer server(*service.value(), options.http);
  Expected<int> port = server.bind(options.host, options.port);
  if (!port) return fail(port.status().message());
  const bool ipv6 = options.host.find(':') != std::string::npos;
  std::printf("listening on http://%s%s%s:%d\n", ipv6 ? "[" : "", options.host.c_str(),
              ipv6 ? "]" : "", port.value());
  std::fprintf(stderr, "normrt-serve %s: %s as '%s', isa %s, %zu workers%s\n", normrt::version(),
               options.model.c_str(), options.service.model_name.c_str(),
               std::string(model.value()->isa()).c_str(), options.service.workers,
               service.value()->current()->reranks()        ? ", /v1/rerank on"
               : service.value()->current()->embeds_texts() ? ", /v1/embeddings on"
                                                            : "");
  if (const RequestMerger* merger = service.value()->current()->merger()) {
    std::fprintf(stderr, "normrt-serve: merging requests of up to %zu texts, waiting %lld ms\n",
                 merger->max_texts(), static_cast<long long>(merger->wait().count()));
  } else if (options.service.merge.wait) {
    std::fprintf(stderr, "normrt-serve: --batch-wait-ms is off: %s\n",
                 service.value()->current()->embeds_texts()
                     ? "the model runs one sequence at a time"
                     : "only /v1/embeddings requests merge");
  }
  std::fflush(stdout);
  model = Status::error("released");  // the service holds the model now; a reload may free it

  std::atomic<bool> served{false};
  std::thread signals([&] {
    while (true) {
      int signal_number = 0;
      sigwait(&handled_signals, &signal_number);
      if (served) return;  // serve() ended by itself and woke us
      if (signal_number == SIGHUP) {
        reload(options, *service.value());
        continue;
      }
      std::fprintf(stderr, "normrt-serve: %s, finishing requests in flight\n",
                   signal_number == SIGINT ? "SIGINT" : "SIGTERM");
      server.stop();
      return;
    }
  });
  Status status = server.serve();
  served = true;
  pthread_kill(signals.native_handle(), SIGTERM);  // no-op if it already returned
  signals.join();
  if (!status) return fail(status.message());
  std::fprintf(stderr, "normrt-serve: stopped\n");
  return 0;
}

}  // namespace
}  // namespace normrt::serve

int main(int argc, char** argv) {
  bool help = false;
  auto options = normrt::serve::parse_serve_options(argc, argv, &help);
  if (help) {
    if (options && options->show_version) {
      std::printf("normrt-serve %s\n", normrt::version());
    } else {
      std::fputs(normrt::serve::serve_usage(), stdout);
    }
    return 0;
  }
  if (!options) {
    std::fprintf(stderr, "normrt-serve: %s\n\n%s", options.status().message().c_str(),
                 normrt::serve::serve_usage());
    return 2;
  }
  return normrt::serve::serve(std::move(options).value());
}
