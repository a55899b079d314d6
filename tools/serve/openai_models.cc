// OpenAI's model list: GET /v1/models →
//   {"object": "list", "data": [{"id": name, "object": "model",
//                                "created": unix_seconds, "owned_by": "normrt"}, ...]}
// one entry per name the model is served under (--served-name, first the
// main one); GET /v1/models/{id} → that entry, or 404 model_not_found.
// "created" is when the serving generation was loaded.
#include <chrono>

#include "tools/serve/model_service.h"

namespace normrt::serve {
namespace {

std::string model_entry(const std::string& id, const ModelGeneration& generation) {
  const auto created =
      std::chrono::duration_cast<std::chrono::seconds>(generation.created().time_since_epoch())
          .count();
  return "{\"id\": " + json_quote(id) +
         ", \"object\": \"model\", \"created\": " + std::to_string(created) +
         ", \"owned_by\": \"normrt\"}";
}

}  // namespace

Reply ModelService::models() const {
  const std::shared_ptr<const ModelGeneration> generation = current();
  std::string body =
      "{\"object\": \"list\", \"data\": [" + model_entry(options_.model_name, *generation);
  for (const std::string& alias : options_.model_aliases) {
    body += ", " + model_entry(alias, *generation);
  }
  return ok_reply(body + "]}");
}

Reply ModelService::model_object(std::string_view id) const {
  if (!serves(id)) return error_reply(unknown_model(id));
  return ok_reply(model_entry(std::string(id), *current()));
}

}  // namespace normrt::serve
