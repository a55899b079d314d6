#pragma once
// The checks the builders' check_<model>_config functions make of a config
// struct (after reading, before building), with their "config: ..." messages:
// a field within its range, and pRMSNorm's p keeping at least one column of
// the narrowest width it normalizes (also for the JSON readers and --p).
#include <cstdint>
#include <string>

#include "base/status.h"
#include "runtime/graph/norm_attributes.h"

namespace normrt {

/// "config: <field> = <value> is outside [<lo>, <hi>]" unless lo ≤ value ≤ hi.
Status check_config_range(const std::string& field, int64_t value, int64_t lo, int64_t hi);

/// For prms_norm: an error unless floor(p·width) ≥ 1 (norm_stat_count(), the
/// kernel's rule) for the narrowest width the model normalizes, `what` (ok
/// for any other norm, and for width ≤ 0). The message starts with `p_name`,
/// how the caller's input names p: "key 'p' = 0.1 leaves pRMSNorm no element
/// to average over hidden_size = 7 (floor(p·7) = 0): p must be at least 1/7 =
/// 0.142857" ("config: p =" for a builder's struct, "--p" for the option).
Status check_partial_width(const NormConfig& norm, int64_t width, const std::string& what,
                           const std::string& p_name);

/// "config: weight_format '<f>' is not theano or torch" unless it is one of
/// them (the seed models' two checkpoint layouts).
Status check_seed_weight_format(const std::string& weight_format);

}  // namespace normrt
