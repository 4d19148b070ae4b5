#include "device/NpyFloat64.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "compiler/ir/SourceLoc.h"

namespace ptodiff::device {

namespace {

static_assert(std::endian::native == std::endian::little, "the .npy payload is written as host bytes");
constexpr std::string_view kMagic = "\x93NUMPY";

[[noreturn]] void fail(const std::string& path, const std::string& message) { throwError(path, {}, message); }

}  // namespace

void writeNpyFloat64(const std::string& path, const Float64Array& a) {
  if (a.rows < 0 || a.cols < 0 || a.values.size() != static_cast<size_t>(a.rows * a.cols))
    throw std::logic_error("writeNpyFloat64: shape does not match the values");
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(a.rows) + ", " +
                       std::to_string(a.cols) + "), }";
  // NumPy pads magic + version + length + header to a multiple of 64, ending in '\n'.
  const size_t preamble = kMagic.size() + 2 + 2;
  header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, "cannot write .npy file: " + std::string(std::strerror(errno)));
  out.write(kMagic.data(), static_cast<std::streamsize>(kMagic.size()));
  const char version[2] = {1, 0};
  out.write(version, 2);
  const char length[2] = {static_cast<char>(header.size() & 0xFF), static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(a.values.data()), static_cast<std::streamsize>(a.values.size() * 8));
  if (!out) fail(path, "cannot write .npy file: write failed");
}

Float64Array readNpyFloat64(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot read .npy file: " + std::string(std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  const std::string bytes = text.str();
  if (bytes.size() < 10 || bytes.compare(0, kMagic.size(), kMagic) != 0)
    fail(path, "not a .npy file (the magic string \\x93NUMPY is missing)");
  if (bytes[6] != 1 || bytes[7] != 0) fail(path, "unsupported .npy version (expected 1.0 for a float64 array)");
  const size_t headerLength = static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
  if (10 + headerLength > bytes.size()) fail(path, "truncated .npy header");
  const std::string header = bytes.substr(10, headerLength);
  static const std::regex kHeader(
      R"(^\{'descr': '<f8', 'fortran_order': False, 'shape': \((\d+),(?: (\d+),?)?\), *\} *\n$)");
  std::smatch m;
  if (!std::regex_match(header, m, kHeader))
    fail(path, "expected a C-order '<f8' array of rank 1 or 2, found header " + header.substr(0, 120));
  Float64Array a;
  a.rows = m[2].matched ? std::stoll(m[1]) : 1;
  a.cols = m[2].matched ? std::stoll(m[2]) : std::stoll(m[1]);
  const size_t count = static_cast<size_t>(a.rows) * static_cast<size_t>(a.cols);
  if (bytes.size() - 10 - headerLength != count * 8)
    fail(path, "the data holds " + std::to_string(bytes.size() - 10 - headerLength) + " bytes; the shape needs " +
                   std::to_string(count * 8));
  a.values.resize(count);
  std::memcpy(a.values.data(), bytes.data() + 10 + headerLength, count * 8);
  return a;
}

}  // namespace ptodiff::device
