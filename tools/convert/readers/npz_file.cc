#include "tools/convert/readers/npz_file.h"

#include <zip.h>

#include <new>
#include <vector>

#include "base/mapped_file.h"
#include "tools/convert/readers/npy_array.h"
#include "tools/convert/text_suffix.h"

namespace normrt {

namespace {

constexpr uint64_t kDeflateMaxRatio = 1032;
constexpr uint64_t kDeflateSlack = 1024;
constexpr uint64_t kStatNeeded = ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE |
                                 ZIP_STAT_COMP_METHOD | ZIP_STAT_ENCRYPTION_METHOD;

// The decompressed members; every tensor points into one of them.
struct MemberBuffers {
  std::vector<std::vector<std::byte>> members;
};

struct ArchiveCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct FileCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};

// Checks the declared sizes of member `stat` before anything is allocated.
Status check_member(const zip_stat_t& stat, uint64_t declared_so_far, const std::string& what) {
  if ((stat.valid & kStatNeeded) != kStatNeeded) {
    return Status::error(what + ": the archive lacks its name, sizes or method");
  }
  if (stat.encryption_method != ZIP_EM_NONE) {
    return Status::error(what + ": encrypted members are not supported");
  }
  if (stat.comp_method == ZIP_CM_STORE) {
    if (stat.size != stat.comp_size) {
      return Status::error(what + ": stored member size, expected " +
                           std::to_string(stat.comp_size) + " bytes (its stored size), found " +
                           std::to_string(stat.size));
    }
  } else if (stat.comp_method == ZIP_CM_DEFLATE) {
    const uint64_t most = stat.comp_size * kDeflateMaxRatio + kDeflateSlack;
    if (stat.comp_size > (UINT64_MAX - kDeflateSlack) / kDeflateMaxRatio || stat.size > most) {
      return Status::error(what + ": declared size, expected at most " + std::to_string(most) +
                           " bytes (deflate's limit for " + std::to_string(stat.comp_size) +
                           " compressed bytes), found " + std::to_string(stat.size));
    }
  } else {
    return Status::error(what + ": compression method, expected stored (0) or deflate (8), found " +
                         std::to_string(stat.comp_method));
  }
  if (stat.size > kMaxNpzTotalBytes - declared_so_far) {
    return Status::error(what + ": archive size, expected at most " +
                         std::to_string(kMaxNpzTotalBytes) +
                         " uncompressed bytes in total, found " +
                         std::to_string(declared_so_far + stat.size) + " so far");
  }
  return Status::ok();
}

Status read_member(zip_t* archive, zip_uint64_t index, const zip_stat_t& stat,
                   const std::string& what, std::vector<std::byte>* buffer) {
  std::unique_ptr<zip_file_t, FileCloser> file(zip_fopen_index(archive, index, 0));
  if (!file) return Status::error(what + ": cannot open: " + zip_strerror(archive));
  try {
    buffer->resize(static_cast<size_t>(stat.size));
  } catch (const std::bad_alloc&) {
    return Status::error(what + ": out of memory for " + std::to_string(stat.size) + " bytes");
  }
  size_t done = 0;
  while (done < buffer->size()) {
    const zip_int64_t got = zip_fread(file.get(), buffer->data() + done, buffer->size() - done);
    if (got < 0) return Status::error(what + ": " + zip_file_strerror(file.get()));
    if (got == 0) {
      return Status::error(what + ": truncated member, expected " + std::to_string(stat.size) +
                           " bytes, found " + std::to_string(done));
    }
    done += static_cast<size_t>(got);
  }
  // Read to the end so that libzip checks the CRC and finds excess data.
  std::byte extra{};
  const zip_int64_t got = zip_fread(file.get(), &extra, 1);
  if (got < 0) return Status::error(what + ": " + zip_file_strerror(file.get()));
  if (got > 0) {
    return Status::error(what + ": member longer than declared, expected " +
                         std::to_string(stat.size) + " bytes");
  }
  return Status::ok();
}

}  // namespace

Expected<std::unique_ptr<NpzFile>> parse_npz(const std::byte* data, size_t size,
                                             std::string description) {
  if (size == 0) {  // libzip would take it for an empty archive
    return Status::error(description + ": not a zip archive, expected at least 22 bytes (the " +
                         "end of central directory), found an empty file");
  }
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(data, size, 0, &error);
  if (!source) {
    const std::string message = zip_error_strerror(&error);
    zip_error_fini(&error);
    return Status::error(description + ": " + message);
  }
  std::unique_ptr<zip_t, ArchiveCloser> archive(
      zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error));
  if (!archive) {
    zip_source_free(source);
    const std::string message = zip_error_strerror(&error);
    zip_error_fini(&error);
    return Status::error(description + ": not a readable zip archive: " + message);
  }
  zip_error_fini(&error);

  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  auto buffers = std::make_shared<MemberBuffers>();
  std::vector<std::string> names;
  uint64_t declared = 0, compressed = 0;
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive.get(), static_cast<zip_uint64_t>(i), 0, &stat) != 0) {
      return Status::error(description + ": member #" + std::to_string(i) + ": " +
                           zip_strerror(archive.get()));
    }
    const std::string member = stat.name ? stat.name : "";
    const std::string what = description + ": member '" + member + "'";
    if (!ends_with(member, ".npy") || member.size() == 4) {
      return Status::error(what + ": name, expected '<tensor>.npy', found '" + member + "'");
    }
    NORMRT_RETURN_IF_ERROR(check_member(stat, declared, what));
    // Members of a zip do not overlap, so their compressed sizes fit in the
    // archive; overlapping ones (a local header hidden in another's extra
    // field) would inflate the same bytes many times over deflate's ratio.
    if (stat.comp_size > size - compressed) {
      return Status::error(what + ": compressed size " + std::to_string(stat.comp_size) +
                           " bytes, expected at most " + std::to_string(size - compressed) +
                           " (the archive's " + std::to_string(size) + " bytes less the " +
                           std::to_string(compressed) +
                           " of the members before it: members overlap)");
    }
    compressed += stat.comp_size;
    declared += stat.size;
    buffers->members.emplace_back();
    NORMRT_RETURN_IF_ERROR(read_member(archive.get(), static_cast<zip_uint64_t>(i), stat, what,
                                       &buffers->members.back()));
    names.push_back(member.substr(0, member.size() - 4));
  }

  std::unique_ptr<NpzFile> file(new NpzFile(description, buffers));
  for (size_t i = 0; i < names.size(); ++i) {
    const std::vector<std::byte>& member = buffers->members[i];
    NORMRT_ASSIGN_OR_RETURN(SourceTensor tensor,
                            parse_npy(member.data(), member.size(), names[i],
                                      description + ": member '" + names[i] + ".npy'"));
    NORMRT_RETURN_IF_ERROR(file->add(std::move(tensor)));
  }
  return file;
}

Expected<std::unique_ptr<NpzFile>> NpzFile::open(const std::string& path) {
  NORMRT_ASSIGN_OR_RETURN(MappedFile mapped, map_file(path));
  return parse_npz(mapped.data, mapped.size, path);
}

}  // namespace normrt
