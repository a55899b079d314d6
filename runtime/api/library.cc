// The shared library's own translation unit: everything else comes from the
// static layers linked in whole (runtime/CMakeLists.txt). It records the
// version for `strings libnormrt.so`.
extern "C" {
extern const char normrt_library_version[];
const char normrt_library_version[] = "normrt " NORMRT_VERSION_STRING;
}
