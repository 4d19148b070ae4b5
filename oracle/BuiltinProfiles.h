// The tolerance profiles of oracle/profiles/*.json, compiled into the library by
// oracle/CMakeLists.txt (the JSON files stay the one source of truth: the built-in `cpu` profile is
// exactly what `--tolerance-profile oracle/profiles/cpu.json` reads).
#pragma once

#include <span>
#include <string_view>

namespace ptodiff::oracle {

struct BuiltinProfileText {
  std::string_view name;  // "cpu", "a2a3", "a5"
  std::string_view json;  // the file's text
};

/// Generated into the build folder (BuiltinProfiles.cpp) from oracle/profiles/.
std::span<const BuiltinProfileText> builtinProfileTexts();

}  // namespace ptodiff::oracle
