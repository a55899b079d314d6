#include "tools/convert/weights_file.h"

#include "tools/convert/readers/npz_file.h"
#include "tools/convert/readers/safetensors_file.h"
#include "tools/convert/text_suffix.h"

namespace normrt {

std::string pickle_to_safetensors_command(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  // clone(): safetensors refuses tensors that share memory (tied embeddings).
  return "python3 -c \"import torch; from safetensors.torch import save_file; "
         "save_file({k: v.clone().contiguous() for k, v in torch.load('" +
         path + "', map_location='cpu', weights_only=True).items()}, '" + dir +
         "model.safetensors', metadata={'format': 'pt'})\"";
}

Expected<std::unique_ptr<WeightSource>> open_weights(const std::string& path) {
  if (ends_with(path, ".safetensors")) {
    NORMRT_ASSIGN_OR_RETURN(auto file, SafetensorsFile::open(path));
    return std::unique_ptr<WeightSource>(std::move(file));
  }
  if (ends_with(path, ".npz")) {
    NORMRT_ASSIGN_OR_RETURN(auto file, NpzFile::open(path));
    return std::unique_ptr<WeightSource>(std::move(file));
  }
  for (const char* pickle : {".bin", ".pt", ".pth"})
    if (ends_with(path, pickle))
      return Status::error(path +
                           ": PyTorch pickle weights are not read (unpickling runs code); "
                           "convert them to safetensors once, with PyTorch and safetensors:\n  " +
                           pickle_to_safetensors_command(path));
  return Status::error(path + ": unknown weights format, expected a .safetensors or .npz file");
}

}  // namespace normrt
