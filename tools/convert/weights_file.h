#pragma once
// The weights file a conversion reads, opened by its extension.
#include <memory>
#include <string>

#include "base/status.h"
#include "models/weight_source.h"

namespace normrt {

/// .safetensors, or .npz (normrt's RNN/MLP weights, or a Nematus
/// checkpoint). A PyTorch pickle (.bin, .pt, .pth) is refused with the
/// command that turns it into safetensors.
Expected<std::unique_ptr<WeightSource>> open_weights(const std::string& path);

/// The one-line command that writes model.safetensors beside the PyTorch
/// pickle `path` (pytorch_model.bin): torch.load with weights_only=True.
std::string pickle_to_safetensors_command(const std::string& path);

}  // namespace normrt
