#pragma once
// The checks the builders' check_<model>_config functions make of a config
// struct (after reading, before building), with their "config: ..." messages:
// a field within its range, and pRMSNorm's p keeping at least one column of
// the narrowest width it normalizes.
#include <cstdint>
#include <string>

#include "base/status.h"
#include "runtime/graph/norm_attributes.h"

namespace normrt {

/// "config: <field> = <value> is outside [<lo>, <hi>]" unless lo ≤ value ≤ hi.
Status check_config_range(const std::string& field, int64_t value, int64_t lo, int64_t hi);

/// For prms_norm: "config: p = <p> keeps floor(p·<width>) = 0 <what>" when
/// norm_stat_count() of `width` is 0 (`what`: "of the cell's columns"); ok
/// for any other norm. `norm` must have passed check_norm_config().
Status check_partial_keeps_one(const NormConfig& norm, int64_t width, const std::string& what);

/// "config: weight_format '<f>' is not theano or torch" unless it is one of
/// them (the seed models' two checkpoint layouts).
Status check_seed_weight_format(const std::string& weight_format);

}  // namespace normrt
