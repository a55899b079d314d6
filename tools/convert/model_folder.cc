#include "tools/convert/model_folder.h"

#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "formats/json/json_config.h"

namespace normrt {
namespace {

bool is_file(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string join(const std::string& dir, const std::string& name) {
  if (name.empty()) return dir;
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

// sentence-transformers 6 writes "pooling_mode": "cls" (a name, or a list of
// names for their concatenation) instead of one boolean per mode.
Expected<std::string> named_pooling_mode(const JsonConfig& config) {
  nlohmann::json value = config.root()["pooling_mode"];
  if (value.is_array() && value.size() == 1) value = value[0];
  if (!value.is_string())
    return Status::error(config.description() +
                         ": key 'pooling_mode' is not one name (a list of several modes is their "
                         "concatenation, which is not supported)");
  const std::string name = value.get<std::string>();
  for (const char* mode : {"cls", "mean", "max"})
    if (name == mode) return name;
  return Status::error(config.description() + ": pooling_mode '" + name +
                       "' is not supported; normrt pools with cls, mean or max only");
}

// The pooling of a sentence-transformers Pooling config: exactly one of the
// modes normrt builds, and none of the others.
Expected<std::string> pooling_mode(const JsonConfig& config) {
  if (config.has("pooling_mode")) return named_pooling_mode(config);
  for (const char* unsupported : {"pooling_mode_mean_sqrt_len_tokens",
                                  "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken"}) {
    NORMRT_ASSIGN_OR_RETURN(bool on, config.optional_bool(unsupported, false));
    if (on)
      return Status::error(config.description() + ": key '" + unsupported +
                           "' is true; normrt pools with cls, mean or max only");
  }
  std::string mode;
  for (auto [key, name] : {std::pair<const char*, const char*>{"pooling_mode_cls_token", "cls"},
                           {"pooling_mode_mean_tokens", "mean"},
                           {"pooling_mode_max_tokens", "max"}}) {
    NORMRT_ASSIGN_OR_RETURN(bool on, config.optional_bool(key, false));
    if (!on) continue;
    if (!mode.empty())
      return Status::error(config.description() + ": both " + mode + " and " + name +
                           " pooling are on (their concatenation is not supported)");
    mode = name;
  }
  if (mode.empty())
    return Status::error(config.description() +
                         ": no pooling mode is on (expected one of pooling_mode_cls_token, "
                         "pooling_mode_mean_tokens, pooling_mode_max_tokens)");
  return mode;
}

// modules.json: a Transformer, a Pooling, optionally a Normalize.
Status read_modules(const std::string& dir, ModelFolder& folder) {
  const std::string path = join(dir, "modules.json");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot be read");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const nlohmann::json list = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (list.is_discarded()) return Status::error(path + ": not valid JSON");
  if (!list.is_array()) return Status::error(path + ": expected a list of modules");
  bool transformer = false;
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& module = list[i];
    const std::string subject = path + ": module " + std::to_string(i);
    if (!module.is_object() || !module.contains("type") || !module["type"].is_string() ||
        (module.contains("path") && !module["path"].is_string()))
      return Status::error(subject + ": expected an object with a string 'type' and 'path'");
    const std::string type = module["type"].get<std::string>();
    const std::string module_path = module.value("path", std::string());
    const std::string last = type.substr(type.find_last_of('.') + 1);
    if (last == "Transformer" && !transformer) {
      transformer = true;
      folder.transformer_dir = join(dir, module_path);
    } else if (last == "Pooling" && transformer && folder.pooling.empty()) {
      const std::string config_path = join(join(dir, module_path), "config.json");
      NORMRT_ASSIGN_OR_RETURN(JsonConfig pooling, JsonConfig::load(config_path));
      NORMRT_ASSIGN_OR_RETURN(folder.pooling, pooling_mode(pooling));
      folder.said.push_back("pooling " + folder.pooling + " (" + join(module_path, "config.json") +
                            ")");
    } else if (last == "Normalize" && !folder.pooling.empty() && !folder.normalize) {
      folder.normalize = true;
      folder.said.push_back("L2 normalization (modules.json: Normalize)");
    } else {
      return Status::error(subject + ": '" + type +
                           "' is not supported here (normrt builds a Transformer, then a "
                           "Pooling, then optionally a Normalize module, in that order)");
    }
  }
  if (!transformer) return Status::error(path + ": no sentence_transformers.models.Transformer");
  folder.pooling_from_modules = true;
  if (folder.pooling.empty()) folder.pooling = "none";
  return Status::ok();
}

}  // namespace

bool has_tokenizer_files(const std::string& dir) {
  for (const char* name : {"tokenizer.json", "sentencepiece.bpe.model", "vocab.json", "vocab.txt"})
    if (is_file(join(dir, name))) return true;
  return false;
}

Expected<ModelFolder> read_model_folder(const std::string& dir) {
  struct stat info;
  if (::stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return Status::error("--model " + dir + ": not a directory");
  ModelFolder folder;
  folder.transformer_dir = dir;
  if (is_file(join(dir, "modules.json"))) NORMRT_RETURN_IF_ERROR(read_modules(dir, folder));
  const std::string& root = folder.transformer_dir;
  folder.config_path = join(root, "config.json");
  if (!is_file(folder.config_path))
    return Status::error("--model " + dir + ": no config.json in " + root);
  folder.weights_path = join(root, "model.safetensors");
  if (!is_file(folder.weights_path)) {
    const std::string pickle = join(root, "pytorch_model.bin");
    if (!is_file(pickle))
      return Status::error("--model " + dir + ": no model.safetensors (or pytorch_model.bin) in " +
                           root);
    folder.weights_path = pickle;  // open_weights() refuses it with the conversion command
  }
  // sentence-transformers keeps it beside modules.json; older folders in the module's.
  for (const std::string& where : {dir, root}) {
    if (folder.max_sequence_length != 0) break;
    const std::string path = join(where, "sentence_bert_config.json");
    if (!is_file(path)) continue;
    NORMRT_ASSIGN_OR_RETURN(JsonConfig st, JsonConfig::load(path));
    NORMRT_ASSIGN_OR_RETURN(bool lower, st.optional_bool("do_lower_case", false));
    if (lower)
      return Status::error(path +
                           ": do_lower_case is true (sentence-transformers lower-cases the "
                           "text before its tokenizer); not supported yet");
    if (st.has("max_seq_length") && !st.root()["max_seq_length"].is_null()) {
      NORMRT_ASSIGN_OR_RETURN(int64_t max_seq, st.require_int("max_seq_length"));
      if (max_seq < 1 || max_seq > (int64_t{1} << 20))
        return Status::error(path + ": max_seq_length " + std::to_string(max_seq) +
                             " is outside [1, 1048576]");
      folder.max_sequence_length = max_seq;
      folder.said.push_back("max sequence " + std::to_string(max_seq) +
                            " (sentence_bert_config.json)");
    }
  }
  // sentence-transformers 6 keeps it as the tokenizer's model_max_length.
  const std::string tokenizer_config = join(root, "tokenizer_config.json");
  if (folder.max_sequence_length == 0 && folder.pooling_from_modules && is_file(tokenizer_config)) {
    NORMRT_ASSIGN_OR_RETURN(JsonConfig config, JsonConfig::load(tokenizer_config));
    if (config.has("model_max_length") && config.root()["model_max_length"].is_number_integer()) {
      NORMRT_ASSIGN_OR_RETURN(int64_t max_seq, config.require_int("model_max_length"));
      if (max_seq >= 1 && max_seq <= (int64_t{1} << 20)) {  // 10^30 and such mean "unset"
        folder.max_sequence_length = max_seq;
        folder.said.push_back("max sequence " + std::to_string(max_seq) +
                              " (tokenizer_config.json: model_max_length)");
      }
    }
  }
  return folder;
}

}  // namespace normrt
