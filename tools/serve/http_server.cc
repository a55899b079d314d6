#include "tools/serve/http_server.h"

#include <httplib.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <regex>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tools/serve/access_log.h"
#include "tools/serve/connection_dispatcher.h"
#include "tools/serve/listen_socket.h"
#include "tools/serve/memory_budget.h"
#include "tools/serve/socket_stream.h"

namespace normrt::serve {
namespace {

using Clock = std::chrono::steady_clock;

// What a route's handler sees of its request.
struct Call {
  std::string_view body;
  const httplib::Request* request = nullptr;
  RequestControl control;
  const MemoryBudget* budget = nullptr;

  // The regex group `i` of the path ("" when it did not take part).
  std::string param(size_t i) const {
    return request != nullptr && i < request->matches.size() ? request->matches[i].str() : "";
  }
};

// A route: a path pattern (an ECMAScript regex over the whole path), the name
// metrics and messages give it, its method and its handler.
struct Route {
  const char* pattern;
  const char* label;
  const char* method;  // "GET" or "POST"
  std::function<Reply(ModelService&, const Call&)> handle;
};

// The versioned v2 model paths: /v2/models/{name}[/versions/{version}]...
#define NORMRT_V2_MODEL "/v2/models/([^/]+)(?:/versions/([^/]+))?"

// A value of the Inference-Header-Content-Length header: digits only.
std::optional<size_t> json_header_bytes(const httplib::Request& request, bool* malformed) {
  *malformed = false;
  if (!request.has_header("Inference-Header-Content-Length")) return std::nullopt;
  const std::string value = request.get_header_value("Inference-Header-Content-Length");
  size_t bytes = 0;
  *malformed = value.empty() || value.size() > 18;
  for (char c : value) {
    if (c < '0' || c > '9') *malformed = true;
    bytes = bytes * 10 + static_cast<size_t>(c - '0');
  }
  return bytes;
}

const std::vector<Route>& routes() {
  static const std::vector<Route> kRoutes = {
      {"/v1/health", "/v1/health", "GET", [](ModelService& s, const Call&) { return s.health(); }},
      {"/v1/model", "/v1/model", "GET",
       [](ModelService& s, const Call&) { return s.model_info(); }},
      {"/v1/models", "/v1/models", "GET", [](ModelService& s, const Call&) { return s.models(); }},
      {"/v1/models/(.+)", "/v1/models/{id}", "GET",
       [](ModelService& s, const Call& call) { return s.model_object(call.param(1)); }},
      {"/v1/run", "/v1/run", "POST",
       [](ModelService& s, const Call& call) { return s.run(call.body, call.control); }},
      {"/v1/embeddings", "/v1/embeddings", "POST",
       [](ModelService& s, const Call& call) { return s.embeddings(call.body, call.control); }},
      {"/v1/rerank", "/v1/rerank", "POST",
       [](ModelService& s, const Call& call) { return s.rerank(call.body, call.control); }},
      {"/metrics", "/metrics", "GET",
       [](ModelService& s, const Call& call) {
         InflightGauge inflight;
         if (call.budget != nullptr) {
           inflight.used_bytes = call.budget->used();
           inflight.capacity_bytes = call.budget->capacity();
         }
         return s.metrics_text(inflight);
       }},
      {"/v2/health/live", "/v2/health/live", "GET",
       [](ModelService& s, const Call&) { return s.v2_live(); }},
      {"/v2/health/ready", "/v2/health/ready", "GET",
       [](ModelService& s, const Call&) { return s.v2_ready(); }},
      {"/v2", "/v2", "GET", [](ModelService& s, const Call&) { return s.v2_server_metadata(); }},
      {NORMRT_V2_MODEL, "/v2/models/{name}", "GET",
       [](ModelService& s, const Call& call) {
         return s.v2_model_metadata(call.param(1), call.param(2));
       }},
      {NORMRT_V2_MODEL "/ready", "/v2/models/{name}/ready", "GET",
       [](ModelService& s, const Call& call) {
         return s.v2_model_ready(call.param(1), call.param(2));
       }},
      {NORMRT_V2_MODEL "/infer", "/v2/models/{name}/infer", "POST",
       [](ModelService& s, const Call& call) {
         bool malformed = false;
         const std::optional<size_t> json_bytes = json_header_bytes(*call.request, &malformed);
         if (malformed) {
           return v2_error_reply(
               {400, "bad_http_request",
                "Inference-Header-Content-Length must be a byte count, got " +
                    json_quote(call.request->get_header_value("Inference-Header-Content-Length"))});
         }
         return s.v2_infer(call.param(1), call.param(2), call.body, json_bytes, call.control);
       }},
  };
  return kRoutes;
}

// The requests the fast lane serves: cheap, and wanted while every worker is
// busy (probes and scrapes).
bool is_fast_lane(const std::string& method, const std::string& path) {
  return method == "GET" && (path == "/v1/health" || path == "/metrics" ||
                             path == "/v2/health/live" || path == "/v2/health/ready");
}

// The route label of `path` ("other" if no route matches), for the metrics
// of requests that no handler saw (refusals, 404, 405).
std::string endpoint_label(const std::string& path) {
  static const std::vector<std::regex> kPatterns = [] {
    std::vector<std::regex> patterns;
    for (const Route& route : routes()) patterns.emplace_back(route.pattern);
    return patterns;
  }();
  for (size_t i = 0; i < kPatterns.size(); ++i) {
    if (std::regex_match(path, kPatterns[i])) return routes()[i].label;
  }
  return "other";
}

std::string endpoint_list() {
  std::string list;
  for (const Route& route : routes()) {
    list += (list.empty() ? "" : ", ") + std::string(route.method) + " " + route.label;
  }
  return list;
}

// What the serving thread knows of the request it is serving: set around
// httplib's process_request(), read by the handlers (deadline, socket) and
// the logger. One request per thread at a time, so a thread_local.
struct RequestScope {
  Connection* connection = nullptr;
  SocketStream* stream = nullptr;
  Clock::time_point started, deadline;
  std::chrono::milliseconds timeout{0};
  size_t body_bytes = 0;
  bool close_after = false;  // the connection must close after this reply
  // From the reply and the logger:
  int status = 0;
  size_t bytes_out = 0;
  std::string method, path, code;
  std::string endpoint = "other";  // the route's label, set by its handler
  long inputs_done = -1;
};
thread_local RequestScope* t_scope = nullptr;

RequestControl request_control() {
  RequestControl control;
  if (t_scope == nullptr) return control;
  control.deadline = t_scope->deadline;
  control.timeout = t_scope->timeout;
  const int fd = t_scope->connection->fd;
  control.client_gone = [fd] { return peer_has_closed(fd); };
  return control;
}

void write_reply(const Reply& reply, httplib::Response& response) {
  response.status = reply.status;
  if (reply.retry_after_seconds > 0) {
    response.set_header("Retry-After", std::to_string(reply.retry_after_seconds));
  }
  for (const auto& [name, value] : reply.headers) response.set_header(name, value);
  if (t_scope != nullptr) {
    t_scope->code = reply.code;
    t_scope->inputs_done = reply.inputs_done;
    if (reply.status == kClientClosedRequest) t_scope->close_after = true;
    if (t_scope->close_after) response.set_header("Connection", "close");
  }
  if (reply.status != kClientClosedRequest && !(reply.status == 200 && reply.body.empty())) {
    response.set_content(reply.body, reply.content_type);
  }
}

ApiError too_large_error(size_t max_body_bytes) {
  return {413, "payload_too_large",
          "the request body is larger than the limit of " + std::to_string(max_body_bytes) +
              " bytes (--max-body-bytes)"};
}

// The JSON body for an error httplib produced itself (no handler ran).
ApiError library_error(const httplib::Request& request, int status, size_t max_body_bytes) {
  switch (status) {
    case 400:
      return {400, "bad_http_request", "malformed HTTP request"};
    case 404:
      return {404, "not_found",
              "no endpoint " + request.method + " " + request.path +
                  " (endpoints: " + endpoint_list() + ")"};
    case 413:
      return too_large_error(max_body_bytes);
    case 414:
      return {414, "uri_too_long", "the request URI is too long"};
    default:
      return {
          status, "http_" + std::to_string(status),
          "HTTP error " + std::to_string(status) + " for " + request.method + " " + request.path};
  }
}

// The handler of a POST with a body, read through our own receiver: httplib
// 0.11 enforces its payload limit on Content-Length bodies only, not on
// chunked ones, and a body that stops arriving must end in a 408.
httplib::Server::HandlerWithContentReader post_with_body(ModelService& service, const Route& route,
                                                         size_t max_body,
                                                         const MemoryBudget* budget) {
  ModelService* target = &service;
  auto handle = route.handle;
  const char* label = route.label;
  return [target, handle, label, max_body, budget](const httplib::Request& request,
                                                   httplib::Response& response,
                                                   const httplib::ContentReader& reader) {
    if (t_scope != nullptr) t_scope->endpoint = label;
    auto error_reply = [&request](const ApiError& error) {
      return error_reply_for_path(error, request.path);
    };
    if (request.is_multipart_form_data()) {
      if (t_scope != nullptr) t_scope->close_after = true;  // its body is left unread
      write_reply(error_reply({415, "unsupported_media_type",
                               "multipart/form-data is not accepted: send the JSON document as "
                               "the request body"}),
                  response);
      return;
    }
    std::string body;
    // Content-Length was checked by triage (≤ max_body): one allocation.
    const std::string declared = request.get_header_value("Content-Length");
    if (!declared.empty()) body.reserve(std::min<size_t>(std::stoull(declared), max_body));
    bool too_large = false;
    const bool read = reader([&](const char* data, size_t size) {
      too_large = too_large || size > max_body - body.size();
      if (!too_large) body.append(data, size);
      if (t_scope != nullptr) t_scope->body_bytes += size;
      return !too_large;
    });
    if (too_large || response.status == 413) {
      if (t_scope != nullptr) t_scope->close_after = true;
      write_reply(error_reply(too_large_error(max_body)), response);
    } else if (!read) {
      const bool late = t_scope != nullptr &&
                        (t_scope->stream->deadline_passed() || Clock::now() >= t_scope->deadline);
      if (t_scope != nullptr) t_scope->close_after = true;
      write_reply(
          error_reply(late ? ApiError{408, "request_timeout",
                                      "the request body did not arrive within " +
                                          std::to_string(t_scope->timeout.count()) +
                                          " ms (--request-timeout-ms)"}
                           : ApiError{400, "bad_http_request", "could not read the request body"}),
          response);
    } else {
      Call call;
      call.body = body;
      call.request = &request;
      call.control = request_control();
      call.budget = budget;
      write_reply(handle(*target, call), response);
    }
  };
}

// httplib's request parsing and routing, driven on our own streams.
class RoutedServer : public httplib::Server {
 public:
  bool serve_request(httplib::Stream& stream, bool close_connection, bool& connection_closed) {
    return process_request(stream, close_connection, connection_closed, nullptr);
  }
};

}  // namespace

class HttpServer::Impl {
 public:
  Impl(ModelService& service, const HttpOptions& options);

  ModelService& service;
  HttpOptions options;
  RoutedServer router;
  MemoryBudget budget;
  ListenSocket listen;
  ConnectionDispatcher dispatcher;

 private:
  void add_routes();
  ConnectionDispatcher::Route route(const RequestHead* head, Connection& connection);
  bool serve_one(Connection& connection, bool last);
  void log_refusal(const Connection& connection, const RequestHead* head, const Reply& reply);
};

HttpServer::Impl::Impl(ModelService& service, const HttpOptions& options)
    : service(service),
      options(options),
      budget(options.max_inflight_bytes),
      dispatcher(
          ConnectionDispatcher::Options{options.http_threads, options.request_timeout,
                                        options.keep_alive_timeout, options.keep_alive_requests},
          [this](const RequestHead* head, Connection& c) { return route(head, c); },
          [this](Connection& c, bool last) { return serve_one(c, last); },
          [this](const Connection& c, const RequestHead* head, const Reply& reply) {
            log_refusal(c, head, reply);
          }) {
  add_routes();
}

void HttpServer::Impl::add_routes() {
  const size_t max_body = options.max_body_bytes;
  router.set_payload_max_length(max_body);
  router.set_keep_alive_max_count(options.keep_alive_requests);
  router.set_keep_alive_timeout(
      std::chrono::duration_cast<std::chrono::seconds>(options.keep_alive_timeout).count());
  for (const Route& route : routes()) {
    ModelService* target = &service;
    auto handle = route.handle;
    const char* label = route.label;
    const MemoryBudget* budget_ptr = &budget;
    // GET, or a POST without a body (no Content-Length, no chunks).
    httplib::Server::Handler run = [target, handle, label, budget_ptr](
                                       const httplib::Request& request,
                                       httplib::Response& response) {
      if (t_scope != nullptr) t_scope->endpoint = label;
      Call call;
      call.body = request.body;
      call.request = &request;
      call.control = request_control();
      call.budget = budget_ptr;
      write_reply(handle(*target, call), response);
    };
    const std::string allow = std::string(route.method) + ", OPTIONS";
    httplib::Server::Handler refuse = [allow, label, method = std::string(route.method)](
                                          const httplib::Request& request,
                                          httplib::Response& response) {
      if (t_scope != nullptr) t_scope->endpoint = label;
      response.set_header("Allow", allow);
      write_reply(error_reply_for_path({405, "method_not_allowed",
                                        request.method + " " + request.path +
                                            ": method not allowed (use " + method + ")"},
                                       request.path),
                  response);
    };
    if (std::string(route.method) == "GET") {
      router.Get(route.pattern, run);
      router.Post(route.pattern, refuse);
    } else {
      router.Get(route.pattern, refuse);
      router.Post(route.pattern, run);
      router.Post(route.pattern, post_with_body(service, route, max_body, &budget));
    }
    router.Put(route.pattern, refuse);
    router.Patch(route.pattern, refuse);
    router.Delete(route.pattern, refuse);
    router.Options(route.pattern, [allow](const httplib::Request&, httplib::Response& response) {
      response.status = 204;
      response.set_header("Allow", allow);
    });
  }

  router.set_error_handler(httplib::Server::HandlerWithResponse(
      [max_body](const httplib::Request& request, httplib::Response& response) {
        // Replies of our handlers already carry their JSON body; a client
        // that left gets none.
        if (!response.body.empty() || response.status == kClientClosedRequest) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        // After a request httplib could not parse, the rest of the connection
        // cannot be trusted to start at a request: close it.
        if ((response.status == 400 || response.status == 414) && t_scope != nullptr) {
          t_scope->close_after = true;
        }
        write_reply(
            error_reply_for_path(library_error(request, response.status, max_body), request.path),
            response);
        return httplib::Server::HandlerResponse::Handled;
      }));
  router.set_exception_handler([](const httplib::Request& request, httplib::Response& response,
                                  std::exception_ptr error) {
    std::string what = "unknown exception";
    try {
      if (error) std::rethrow_exception(error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    write_reply(error_reply_for_path({500, "internal", "internal error: " + what}, request.path),
                response);
  });
  router.set_logger([](const httplib::Request& request, const httplib::Response& response) {
    if (t_scope == nullptr) return;
    t_scope->status = response.status;
    t_scope->bytes_out = response.body.size();
    t_scope->method = request.method;
    t_scope->path = request.path;
  });
}

ConnectionDispatcher::Route HttpServer::Impl::route(const RequestHead* head, Connection& c) {
  using Lane = ConnectionDispatcher::Lane;
  if (head == nullptr) return {Lane::kWorker, {}};  // httplib answers it (400)
  ApiResult<BodyFraming> framing = body_framing(*head, options.max_body_bytes);
  if (!framing) return {Lane::kRefuse, error_reply_for_path(framing.error(), head->path)};
  if (is_fast_lane(head->method, head->path)) return {Lane::kFastLane, {}};
  if (framing->kind != BodyFraming::Kind::kNone) {
    // A chunked body may have the most bytes allowed; so may a compressed
    // one once httplib has inflated it.
    const bool sized = framing->kind == BodyFraming::Kind::kLength && !head->compressed_body;
    const size_t body_bytes = sized ? static_cast<size_t>(framing->length) : options.max_body_bytes;
    const size_t bytes = service.request_bytes(body_bytes);
    if (!budget.try_reserve(bytes, &c.reservation)) {
      return {Lane::kRefuse,
              error_reply_for_path(
                  {503, "overloaded",
                   "overloaded: the requests in flight hold " + std::to_string(budget.used()) +
                       " of the " + std::to_string(budget.capacity()) +
                       " bytes they may use together (--max-inflight-bytes) and this "
                       "one needs " +
                       std::to_string(bytes) + "; retry later"},
                  head->path)};
    }
  }
  return {Lane::kWorker, {}};
}

bool HttpServer::Impl::serve_one(Connection& c, bool last) {
  RequestScope scope;
  scope.connection = &c;
  scope.started = c.request_started;
  scope.deadline = c.request_started + options.request_timeout;
  scope.timeout = options.request_timeout;
  SocketStream stream(c, scope.deadline, options.timeout);
  scope.stream = &stream;
  const auto wall = std::chrono::system_clock::now();
  t_scope = &scope;
  bool closed = false;
  const bool written = router.serve_request(stream, last, closed);
  t_scope = nullptr;
  if (scope.status != 0) {
    service.metrics().record_request(
        scope.endpoint, scope.method, scope.status,
        std::chrono::duration<double>(Clock::now() - scope.started).count());
  }
  if (options.log && scope.status != 0) {
    AccessRecord record;
    record.when = wall;
    record.peer = c.peer;
    record.method = scope.method;
    record.path = scope.path;
    record.status = scope.status;
    record.bytes_in = scope.body_bytes;
    record.bytes_out = scope.bytes_out;
    record.milliseconds =
        std::chrono::duration<double, std::milli>(Clock::now() - scope.started).count();
    record.code = scope.code;
    record.inputs_done = scope.inputs_done;
    write_log_line(access_log_line(record));
  }
  return written && !closed && !scope.close_after && !stream.failed();
}

void HttpServer::Impl::log_refusal(const Connection& c, const RequestHead* head,
                                   const Reply& reply) {
  service.metrics().record_request(
      head != nullptr ? endpoint_label(head->path) : "other", head != nullptr ? head->method : "",
      reply.status, std::chrono::duration<double>(Clock::now() - c.request_started).count());
  if (!options.log) return;
  AccessRecord record;
  record.when = std::chrono::system_clock::now();
  record.peer = c.peer;
  record.method = head != nullptr ? head->method : "";
  record.path = head != nullptr ? head->path : "";
  record.status = reply.status;
  record.bytes_out = reply.body.size();
  record.milliseconds =
      std::chrono::duration<double, std::milli>(Clock::now() - c.request_started).count();
  record.code = reply.code;
  write_log_line(access_log_line(record));
}

HttpServer::HttpServer(ModelService& service, const HttpOptions& options)
    : impl_(std::make_unique<Impl>(service, options)) {}

HttpServer::~HttpServer() = default;

Expected<int> HttpServer::bind(const std::string& host, int port) {
  NORMRT_ASSIGN_OR_RETURN(ListenSocket socket, ListenSocket::open(host, port));
  impl_->listen = std::move(socket);
  return impl_->listen.port();
}

Status HttpServer::serve() {
  if (impl_->listen.fd() < 0) return Status::error("serve() before a successful bind()");
  Status status = impl_->dispatcher.run(impl_->listen.fd());
  impl_->listen.close();
  return status;
}

void HttpServer::stop() { impl_->dispatcher.stop(); }

bool HttpServer::running() const { return impl_->dispatcher.running(); }

}  // namespace normrt::serve
