// normrt-serve: one model file over HTTP. See serve_usage() and docs/serve.md.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "tools/serve/http_server.h"
#include "tools/serve/model_service.h"
#include "tools/serve/serve_options.h"

namespace normrt::serve {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "normrt-serve: %s\n", message.c_str());
  return 1;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int serve(ServeOptions options) {
  // SIGINT and SIGTERM are taken by one thread with sigwait(): blocked here,
  // before any thread starts, so every thread inherits the mask. A client
  // closing its socket must not kill the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  ModelOptions model_options;
  model_options.isa = options.isa;
  model_options.fuse = options.fuse;
  model_options.fold_norm_affine = options.fuse;
  Expected<std::shared_ptr<const Model>> model = Model::load(options.model, model_options);
  if (!model) return fail(model.status().message());
  std::optional<text::BertTokenizer> tokenizer;
  if (!options.vocab.empty()) {
    Expected<text::BertTokenizer> loaded =
        load_tokenizer(options.vocab, *model.value(), options.keep_case);
    if (!loaded) return fail(loaded.status().message());
    tokenizer = std::move(loaded).value();
  }
  options.service.model_name = base_name(options.model);
  Expected<std::unique_ptr<ModelService>> service =
      ModelService::create(model.value(), options.service, std::move(tokenizer));
  if (!service) return fail(service.status().message());

  HttpServer server(*service.value(), options.http);
  Expected<int> port = server.bind(options.host, options.port);
  if (!port) return fail(port.status().message());
  const bool ipv6 = options.host.find(':') != std::string::npos;
  std::printf("listening on http://%s%s%s:%d\n", ipv6 ? "[" : "", options.host.c_str(),
              ipv6 ? "]" : "", port.value());
  std::fprintf(stderr, "normrt-serve: %s, isa %s, %zu workers%s\n", options.model.c_str(),
               std::string(model.value()->isa()).c_str(), options.service.workers,
               service.value()->embeddings_enabled() ? ", /v1/embeddings on" : "");
  std::fflush(stdout);

  std::atomic<bool> served{false};
  std::thread stopper([&] {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    if (served) return;  // serve() ended by itself and woke us
    std::fprintf(stderr, "normrt-serve: %s, finishing requests in flight\n",
                 signal_number == SIGINT ? "SIGINT" : "SIGTERM");
    // A stop() before the server runs would be lost.
    while (!server.running() && !served) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    server.stop();
  });
  Status status = server.serve();
  served = true;
  pthread_kill(stopper.native_handle(), SIGTERM);  // no-op if it already returned
  stopper.join();
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
    std::fputs(normrt::serve::serve_usage(), stdout);
    return 0;
  }
  if (!options) {
    std::fprintf(stderr, "normrt-serve: %s\n\n%s", options.status().message().c_str(),
                 normrt::serve::serve_usage());
    return 2;
  }
  return normrt::serve::serve(std::move(options).value());
}
