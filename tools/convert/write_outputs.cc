#include "tools/convert/write_outputs.h"

#include "normrt/normrt.hpp"
#include "runtime/format/model_file.h"

namespace normrt {

Status check_model_loads(const std::string& path, const std::string& name) {
  auto fail = [&](const Status& s) {
    // The loader names the temporary file; the user knows the output's name.
    std::string reason = s.message();
    if (reason.rfind(path + ": ", 0) == 0) reason.erase(0, path.size() + 2);
    return Status::error(name +
                         ": the converted model does not load, so it was not written: " + reason);
  };
  Expected<std::shared_ptr<const Model>> model = Model::load(path);
  if (!model) return fail(model.status());
  Expected<std::unique_ptr<Session>> session = Session::create(model.value());
  if (!session) return fail(session.status());
  return Status::ok();
}

Expected<uint64_t> write_checked_outputs(const std::vector<OutputGraph>& outputs,
                                         std::vector<std::string>* warnings) {
  std::vector<PendingOutput> pending;
  uint64_t bytes = 0;
  for (const OutputGraph& output : outputs) {
    Expected<std::vector<std::byte>> image = serialize_model(*output.graph);
    if (!image) return Status::error(output.target.requested + ": " + image.status().message());
    Expected<PendingOutput> file =
        PendingOutput::write(output.target, image.value().data(), image.value().size());
    if (!file) return file.status();
    bytes += image.value().size();
    pending.push_back(std::move(file).value());
  }
  // Every file loads before any is renamed into place.
  for (const PendingOutput& file : pending)
    if (Status s = check_model_loads(file.temporary_path(), file.target().requested); !s) return s;
  for (PendingOutput& file : pending) {
    std::string warning;
    if (Status s = file.commit(&warning); !s) return s;
    if (!warning.empty()) warnings->push_back(warning);
  }
  return bytes;
}

}  // namespace normrt
