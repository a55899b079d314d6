#ifndef NORMRT_EXPORT_H
#define NORMRT_EXPORT_H
/* NORMRT_API marks what normrt's shared libraries export: the C API
   (normrt.h), the C++ API (normrt.hpp, decode.hpp) and the tokenizer API
   (tokenizer.hpp). Everything is compiled with -fvisibility=hidden, so the
   runtime's internals stay inside libnormrt.so (and cmake/normrt_exports.map
   keeps the standard-library instantiations in too). For a consumer the attribute changes nothing.
   NORMRT_LOCAL marks the private Impl of an exported class, which would
   otherwise inherit the class's visibility. */
#if defined(__GNUC__) || defined(__clang__)
#define NORMRT_API __attribute__((visibility("default")))
#define NORMRT_LOCAL __attribute__((visibility("hidden")))
#else
#define NORMRT_API
#define NORMRT_LOCAL
#endif

#endif /* NORMRT_EXPORT_H */
