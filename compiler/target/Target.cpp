#include "compiler/target/Target.h"

namespace ptodiff {

namespace {
constexpr int64_t KiB = 1024;
}  // namespace

const SpaceDesc& Target::space(MemSpace s) const {
  switch (s) {
    case MemSpace::Vec: return vec;
    case MemSpace::Mat: return mat;
    case MemSpace::Left: return left;
    case MemSpace::Right: return right;
    case MemSpace::Acc: return acc;
  }
  return vec;
}

const Target& targetA2A3() {
  static const Target t{TargetKind::A2A3, "a2a3",
                        /*vec=*/{192 * KiB, ByteRange{184 * KiB, 192 * KiB}},
                        /*mat=*/{512 * KiB, std::nullopt},
                        /*left=*/{64 * KiB, std::nullopt},
                        /*right=*/{64 * KiB, std::nullopt},
                        /*acc=*/{128 * KiB, std::nullopt}};
  return t;
}

const Target& targetA5() {
  static const Target t{TargetKind::A5, "a5",
                        /*vec=*/{248 * KiB, ByteRange{240 * KiB, 248 * KiB}},
                        /*mat=*/{512 * KiB, std::nullopt},
                        /*left=*/{64 * KiB, std::nullopt},
                        /*right=*/{64 * KiB, std::nullopt},
                        /*acc=*/{256 * KiB, std::nullopt}};
  return t;
}

const Target* findTarget(std::string_view name) {
  if (name == "a2a3") return &targetA2A3();
  if (name == "a5") return &targetA5();
  return nullptr;
}

}  // namespace ptodiff
