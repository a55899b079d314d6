#include "tools/serve/http_server.h"

#include <httplib.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
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

struct Route {
  const char* path;
  const char* method;  // "GET" or "POST"
  std::function<Reply(ModelService&, const std::string& body, const RequestControl&)> handle;
};

const std::vector<Route>& routes() {
  static const std::vector<Route> kRoutes = {
      {"/v1/health", "GET",
       [](ModelService& s, const std::string&, const RequestControl&) { return s.health(); }},
      {"/v1/model", "GET",
       [](ModelService& s, const std::string&, const RequestControl&) { return s.model_info(); }},
      {"/v1/run", "POST",
       [](ModelService& s, const std::string& body, const RequestControl& control) {
         return s.run(body, control);
       }},
      {"/v1/embeddings", "POST",
       [](ModelService& s, const std::string& body, const RequestControl& control) {
         return s.embeddings(body, control);
       }},
  };
  return kRoutes;
}

std::string endpoint_list() {
  std::string list;
  for (const Route& route : routes()) {
    list += (list.empty() ? "" : ", ") + std::string(route.method) + " " + route.path;
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
  if (t_scope != nullptr) {
    t_scope->code = reply.code;
    t_scope->inputs_done = reply.inputs_done;
    if (reply.status == kClientClosedRequest) t_scope->close_after = true;
    if (t_scope->close_after) response.set_header("Connection", "close");
  }
  if (reply.status != kClientClosedRequest) response.set_content(reply.body, "application/json");
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
                                                         size_t max_body) {
  ModelService* target = &service;
  auto handle = route.handle;
  return [target, handle, max_body](const httplib::Request& request, httplib::Response& response,
                                    const httplib::ContentReader& reader) {
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
      write_reply(handle(*target, body, request_control()), response);
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
    // GET, or a POST without a body (no Content-Length, no chunks).
    httplib::Server::Handler run = [target, handle](const httplib::Request& request,
                                                    httplib::Response& response) {
      write_reply(handle(*target, request.body, request_control()), response);
    };
    const std::string allow = std::string(route.method) + ", OPTIONS";
    httplib::Server::Handler refuse = [allow, method = std::string(route.method),
                                       path = std::string(route.path)](
                                          const httplib::Request& request,
                                          httplib::Response& response) {
      response.set_header("Allow", allow);
      write_reply(
          error_reply({405, "method_not_allowed",
                       request.method + " " + path + ": method not allowed (use " + method + ")"}),
          response);
    };
    if (std::string(route.method) == "GET") {
      router.Get(route.path, run);
      router.Post(route.path, refuse);
    } else {
      router.Get(route.path, refuse);
      router.Post(route.path, run);
      router.Post(route.path, post_with_body(service, route, max_body));
    }
    router.Put(route.path, refuse);
    router.Patch(route.path, refuse);
    router.Delete(route.path, refuse);
    router.Options(route.path, [allow](const httplib::Request&, httplib::Response& response) {
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
        write_reply(error_reply(library_error(request, response.status, max_body)), response);
        return httplib::Server::HandlerResponse::Handled;
      }));
  router.set_exception_handler(
      [](const httplib::Request&, httplib::Response& response, std::exception_ptr error) {
        std::string what = "unknown exception";
        try {
          if (error) std::rethrow_exception(error);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        write_reply(error_reply({500, "internal", "internal error: " + what}), response);
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
  if (!framing) return {Lane::kRefuse, error_reply(framing.error())};
  if (head->method == "GET" && head->path == "/v1/health") return {Lane::kFastLane, {}};
  if (framing->kind != BodyFraming::Kind::kNone) {
    const size_t body_bytes = framing->kind == BodyFraming::Kind::kLength
                                  ? static_cast<size_t>(framing->length)
                                  : options.max_body_bytes;  // chunked: the most it may be
    const size_t bytes = service.request_bytes(body_bytes);
    if (!budget.try_reserve(bytes, &c.reservation)) {
      return {
          Lane::kRefuse,
          error_reply({503, "overloaded",
                       "overloaded: the requests in flight hold " + std::to_string(budget.used()) +
                           " of the " + std::to_string(budget.capacity()) +
                           " bytes they may use together (--max-inflight-bytes) and this "
                           "one needs " +
                           std::to_string(bytes) + "; retry later"})};
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
