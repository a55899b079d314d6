#pragma once
// Force-included into every test (tests/CMakeLists.txt): doctest prints a
// const char* in INFO / MESSAGE / CHECK values as a pointer, and the kernels'
// variants are named by const char*. These print the text instead; comparisons
// are unchanged (CHECK(a == b) on two const char* still compares pointers).
// (DOCTEST_CONFIG_TREAT_CHAR_STAR_AS_STRING would do it, but Debian's
// doctest 2.4.9 does not compile with it.)
#include <doctest/doctest.h>

namespace doctest {
template <>
struct StringMaker<const char*> {
  static String convert(const char* text) { return text != nullptr ? String(text) : "(null)"; }
};
template <>
struct StringMaker<char*> {
  static String convert(const char* text) { return StringMaker<const char*>::convert(text); }
};
}  // namespace doctest
