#pragma once
// The byte layout of a normrt model file, version 1: field offsets, record
// sizes, codes and limits shared by the writer and the reader. The
// specification is docs/model_format.md; keep the two in step.
//
// Every integer is little-endian. Offsets named "absolute" count from the first
// byte of the file; string references count from the start of the string table.
#include <cstddef>
#include <cstdint>

namespace normrt::model_format {

inline constexpr char kMagic[4] = {'N', 'R', 'M', 'T'};
constexpr uint32_t kVersion = 3;  ///< the newest version this reader knows
/// Version 2 added the linear panel layouts (codes 1-3); a writer stamps 2 only
/// when a tensor uses one, so files without them stay readable by version-1 readers.
constexpr uint32_t kFirstVersionWithPanels = 2;
/// Version 3 added dtype 3, int8 weights (runtime/graph/int8_weight.h); stamped
/// only when a tensor is int8.
constexpr uint32_t kFirstVersionWithInt8 = 3;
constexpr uint32_t kHeaderSize = 128;
/// Weights start at absolute offsets that are multiples of this (cache line,
/// and every SIMD load width), so a page-aligned mapping serves them directly.
constexpr uint64_t kDataAlignment = 64;

// Header fields (absolute offsets).
constexpr size_t kMagicField = 0x00;       // u8[4] "NRMT"
constexpr size_t kVersionField = 0x04;     // u32
constexpr size_t kHeaderSizeField = 0x08;  // u32
constexpr size_t kFlagsField = 0x0C;       // u32, 0
constexpr size_t kFileSizeField = 0x10;    // u64
constexpr size_t kChecksumField = 0x18;    // u64, XXH3-64 of every other byte
constexpr size_t kChecksumFieldSize = 8;
constexpr size_t kSectionTableField = 0x20;  // kSectionCount × {u64 offset, u64 size}
constexpr size_t kTensorCountField = 0x70;   // u32
constexpr size_t kNodeCountField = 0x74;     // u32
constexpr size_t kReservedField = 0x78;      // u64, 0

/// The sections, in the order of the header's section table (and of the
/// writer's file layout).
enum Section : size_t { kTensorTable, kNodeTable, kGraphTable, kStringTable, kData, kSectionCount };
constexpr const char* kSectionNames[kSectionCount] = {"tensor table", "node table", "graph table",
                                                      "string table", "data section"};
constexpr size_t section_offset_field(size_t section) { return kSectionTableField + 16 * section; }
constexpr size_t section_size_field(size_t section) {
  return kSectionTableField + 16 * section + 8;
}

// Tensor record: kTensorRecordSize bytes, one per tensor, id = index.
constexpr size_t kTensorRecordSize = 64;
constexpr size_t kTensorNameRef = 0x00;     // u32 offset, u32 length
constexpr size_t kTensorDtype = 0x08;       // u8
constexpr size_t kTensorKind = 0x09;        // u8
constexpr size_t kTensorLayout = 0x0A;      // u8
constexpr size_t kTensorRank = 0x0B;        // u8
constexpr size_t kTensorReserved = 0x0C;    // u32, 0
constexpr size_t kTensorDims = 0x10;        // i64[4], unused ones 0
constexpr size_t kTensorDataOffset = 0x30;  // u64, absolute; 0 unless weight
constexpr size_t kTensorDataSize = 0x38;    // u64; 0 unless weight
constexpr size_t kMaxRank = 4;

// Node record: kNodeFixedSize bytes, then u32 inputs[], u32 outputs[], attributes.
constexpr size_t kNodeFixedSize = 24;
constexpr size_t kNodeNameRef = 0x00;         // u32 offset, u32 length
constexpr size_t kNodeOp = 0x08;              // u16
constexpr size_t kNodeReserved = 0x0A;        // u16, 0
constexpr size_t kNodeInputCount = 0x0C;      // u32
constexpr size_t kNodeOutputCount = 0x10;     // u32
constexpr size_t kNodeAttributeCount = 0x14;  // u32

// Attribute record: kAttributeFixedSize bytes, then i64[count] for an int list.
constexpr size_t kAttributeFixedSize = 24;
constexpr size_t kAttributeNameRef = 0x00;   // u32 offset, u32 length
constexpr size_t kAttributeType = 0x08;      // u8
constexpr size_t kAttributeReserved = 0x09;  // u8[3], 0
constexpr size_t kAttributeCount = 0x0C;     // u32, int list length; 0 otherwise
constexpr size_t kAttributeValue = 0x10;     // i64 | f64 | string ref | 0
/// Attribute type codes: the index of the alternative in normrt::AttributeValue.
enum AttributeType : uint8_t {
  kInt = 0,
  kFloat = 1,
  kString = 2,
  kIntList = 3,
  kBytes = 4,  ///< graph metadata only; the value is a reference into the string table
  kAttributeTypeCount
};

// Graph table: kGraphFixedSize bytes, then u32 inputs[], u32 outputs[],
// {u32 state, u32 value}[], metadata attribute records.
constexpr size_t kGraphFixedSize = 24;
constexpr size_t kGraphInputCount = 0x00;         // u32
constexpr size_t kGraphOutputCount = 0x04;        // u32
constexpr size_t kGraphStateUpdateCount = 0x08;   // u32
constexpr size_t kGraphMetadataCount = 0x0C;      // u32
constexpr size_t kGraphMaxSequenceLength = 0x10;  // i64

// Codes beyond normrt::DataType and the layouts.
constexpr uint8_t kDtypeInt8 = 3;       ///< int8 weights, version 3 and later
constexpr uint8_t kLayoutRowMajor = 0;  ///< the only layout of version 1; 1-3 = panels (v2)

// Limits that keep every size derived from a file bounded.
constexpr size_t kMaxNameBytes = 1024;               ///< tensor, node and attribute names
constexpr size_t kMaxStringBytes = size_t{1} << 20;  ///< string attribute values
constexpr size_t kMaxBlobBytes = size_t{256} << 20;  ///< bytes metadata values
constexpr int64_t kMaxSequenceLength = int64_t{1} << 20;
/// A tensor's bytes at S = max_sequence_length stay below this, so every later
/// size computation (plans, arenas) is free of overflow.
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 48;

}  // namespace normrt::model_format
