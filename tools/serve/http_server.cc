#include "tools/serve/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <vector>

namespace normrt::serve {
namespace {

struct Route {
  const char* path;
  const char* method;  // "GET" or "POST"
  std::function<Reply(ModelService&, const std::string& body)> handle;
};

const std::vector<Route>& routes() {
  static const std::vector<Route> kRoutes = {
      {"/v1/health", "GET", [](ModelService& s, const std::string&) { return s.health(); }},
      {"/v1/model", "GET", [](ModelService& s, const std::string&) { return s.model_info(); }},
      {"/v1/run", "POST", [](ModelService& s, const std::string& body) { return s.run(body); }},
      {"/v1/embeddings", "POST",
       [](ModelService& s, const std::string& body) { return s.embeddings(body); }},
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

void write_reply(const Reply& reply, httplib::Response& response) {
  response.status = reply.status;
  if (reply.retry_after_seconds > 0) {
    response.set_header("Retry-After", std::to_string(reply.retry_after_seconds));
  }
  response.set_content(reply.body, "application/json");
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

// The handler of a POST with a body. The body is read through our own
// receiver because httplib 0.11 enforces its payload limit on Content-Length
// bodies only, not on chunked ones.
httplib::Server::HandlerWithContentReader post_with_body(ModelService& service, const Route& route,
                                                         size_t max_body) {
  ModelService* target = &service;
  auto handle = route.handle;
  return [target, handle, max_body](const httplib::Request& request, httplib::Response& response,
                                    const httplib::ContentReader& reader) {
    if (request.is_multipart_form_data()) {
      write_reply(error_reply({415, "unsupported_media_type",
                               "multipart/form-data is not accepted: send the JSON document as "
                               "the request body"}),
                  response);
      return;
    }
    std::string body;
    bool too_large = false;
    const bool read = reader([&](const char* data, size_t size) {
      too_large = too_large || size > max_body - body.size();
      if (!too_large) body.append(data, size);
      return !too_large;
    });
    if (too_large || response.status == 413) {
      write_reply(error_reply(too_large_error(max_body)), response);
    } else if (!read) {
      write_reply(error_reply({400, "bad_http_request", "could not read the request body"}),
                  response);
    } else {
      write_reply(handle(*target, body), response);
    }
  };
}

}  // namespace

// httplib::Server listens with a backlog of 5 (compiled into Debian's
// library): a burst of clients connecting at once would see SYNs dropped and
// retried a second later. listen() again on the bound socket widens it.
class HttpServer::Server : public httplib::Server {
 public:
  void widen_backlog() { ::listen(svr_sock_, SOMAXCONN); }
};

HttpServer::HttpServer(ModelService& service, const HttpOptions& options)
    : server_(std::make_unique<Server>()) {
  Server& server = *server_;
  const size_t threads = options.http_threads;
  const size_t max_body = options.max_body_bytes;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_payload_max_length(max_body);
  server.set_read_timeout(options.timeout);
  server.set_write_timeout(options.timeout);
  server.set_keep_alive_max_count(options.keep_alive_requests);
  server.set_keep_alive_timeout(5);
  // httplib writes the headers and the body separately: with Nagle's
  // algorithm and the peer's delayed ACK every reply would wait ~40 ms.
  server.set_tcp_nodelay(true);

  for (const Route& route : routes()) {
    ModelService* target = &service;
    auto handle = route.handle;
    // GET, or a POST without a body (no Content-Length, no chunks).
    httplib::Server::Handler run = [target, handle](const httplib::Request& request,
                                                    httplib::Response& response) {
      write_reply(handle(*target, request.body), response);
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
      server.Get(route.path, run);
      server.Post(route.path, refuse);
    } else {
      server.Get(route.path, refuse);
      server.Post(route.path, run);
      server.Post(route.path, post_with_body(service, route, max_body));
    }
    server.Put(route.path, refuse);
    server.Patch(route.path, refuse);
    server.Delete(route.path, refuse);
    server.Options(route.path, [allow](const httplib::Request&, httplib::Response& response) {
      response.status = 204;
      response.set_header("Allow", allow);
    });
  }

  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [max_body](const httplib::Request& request, httplib::Response& response) {
        // Replies of our handlers already carry their JSON body.
        if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        write_reply(error_reply(library_error(request, response.status, max_body)), response);
        return httplib::Server::HandlerResponse::Handled;
      }));
  server.set_exception_handler(
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
  if (options.log) {
    server.set_logger([](const httplib::Request& request, const httplib::Response& response) {
      std::fprintf(stderr, "%s %s -> %d (%zu bytes in, %zu out)\n", request.method.c_str(),
                   request.path.c_str(), response.status, request.body.size(),
                   response.body.size());
    });
  }
}

HttpServer::~HttpServer() = default;

Expected<int> HttpServer::bind(const std::string& host, int port) {
  errno = 0;
  int bound = port;
  if (port == 0) {
    bound = server_->bind_to_any_port(host);
  } else if (!server_->bind_to_port(host, port)) {
    bound = -1;
  }
  if (bound <= 0) {
    return Status::error("cannot listen on " + host + ":" + std::to_string(port) +
                         (errno != 0 ? std::string(": ") + std::strerror(errno) : ""));
  }
  server_->widen_backlog();
  return bound;
}

Status HttpServer::serve() {
  if (!server_->listen_after_bind()) return Status::error("the HTTP server stopped with an error");
  return Status::ok();
}

void HttpServer::stop() { server_->stop(); }

bool HttpServer::running() const { return server_->is_running(); }

}  // namespace normrt::serve
