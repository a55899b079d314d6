#ifndef NORMRT_EXPORT_H
#define NORMRT_EXPORT_H
/* NORMRT_API marks what normrt's shared libraries export: the C API
   (normrt.h), the C++ API (normrt.hpp, decode.hpp) and the tokenizer API
   (tokenizer.hpp). Everything is compiled with -fvisibility=hidden, so the
   runtime's internals and the standard-library instantiations they use stay
   inside libnormrt.so. For a consumer the attribute changes nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define NORMRT_API __attribute__((visibility("default")))
#else
#define NORMRT_API
#endif

#endif /* NORMRT_EXPORT_H */
