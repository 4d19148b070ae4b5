// .npy reading and writing, hand-written against the NumPy format description
// (numpy/lib/format.py's documented layout): magic "\x93NUMPY", major and minor version bytes, a
// little-endian header length (2 bytes in 1.0, 4 bytes in 2.0 and 3.0), a Python dict literal
// {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded with spaces and ending in '\n',
// then the raw array data.
//
// Input may be hostile: every length is checked against the real file size before anything is
// allocated or read, so a lying header cannot cause a huge allocation or an out-of-bounds read.
#include "interp/Npy.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string_view>

#include "compiler/ir/ResourceLimits.h"
#include "compiler/ir/SourceLoc.h"

namespace ptodiff {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kAlignment = 64;  // NumPy pads the preamble + header to a multiple of 64 bytes

struct DescrEntry {
  std::string_view descr;
  DType dtype;
};
// BF16 has no NumPy dtype; its raw bits travel as `<u2` (and `<u2` always reads as BF16).
constexpr std::array<DescrEntry, 7> kDescrs = {{{"<f4", DType::FP32},
                                                {"<f2", DType::FP16},
                                                {"<i4", DType::INT32},
                                                {"|i1", DType::INT8},
                                                {"|u1", DType::UINT8},
                                                {"|b1", DType::BOOL},
                                                {"<u2", DType::BF16}}};

std::string supportedDescrList() {
  std::string out;
  for (const auto& e : kDescrs) {
    if (!out.empty()) out += ", ";
    out += "'" + std::string(e.descr) + "'";
  }
  return out;
}

std::optional<DType> dtypeOfDescr(std::string_view descr) {
  for (const auto& e : kDescrs)
    if (e.descr == descr) return e.dtype;
  return std::nullopt;
}

std::optional<std::string_view> descrOfDType(DType dt) {
  for (const auto& e : kDescrs)
    if (e.dtype == dt) return e.descr;
  return std::nullopt;
}

[[noreturn]] void fail(const std::string& path, std::string message) {
  throwError(path, {}, std::move(message));
}

/// A header excerpt safe to print: non-printable bytes escaped, long headers shortened.
std::string quoteHeader(std::string_view header) {
  constexpr size_t kMaxShown = 120;
  std::string out;
  for (size_t i = 0; i < header.size() && i < kMaxShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(header[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (header.size() > kMaxShown) out += "...";
  return out;
}

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<uint64_t> shape;
};

/// Parses the header dict: a Python literal with exactly the keys 'descr' (a string),
/// 'fortran_order' (True/False) and 'shape' (a tuple of non-negative integers), in any order,
/// with an optional trailing comma, followed only by whitespace.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seenDescr = false, seenFortran = false, seenShape = false;
    skipSpace();
    expect('{', "'{' opening the header dict");
    skipSpace();
    while (!peekIs('}')) {
      const std::string key = parseString("a quoted key");
      skipSpace();
      expect(':', "':' after key '" + key + "'");
      skipSpace();
      if (key == "descr") {
        markSeen(seenDescr, key);
        h.descr = parseString("a quoted dtype string for 'descr'");
      } else if (key == "fortran_order") {
        markSeen(seenFortran, key);
        h.fortranOrder = parseBool();
      } else if (key == "shape") {
        markSeen(seenShape, key);
        h.shape = parseShape();
      } else {
        malformed("unexpected key '" + key + "' (expected only 'descr', 'fortran_order', 'shape')");
      }
      skipSpace();
      if (peekIs(',')) {
        ++pos_;
        skipSpace();
      } else if (!peekIs('}')) {
        malformed("expected ',' or '}' after the value of '" + key + "'");
      }
    }
    ++pos_;  // '}'
    skipSpace();
    if (pos_ != text_.size()) malformed("unexpected text after the header dict");
    if (!seenDescr || !seenFortran || !seenShape)
      malformed(std::string("missing key '") +
                (!seenDescr ? "descr" : !seenFortran ? "fortran_order" : "shape") + "'");
    return h;
  }

 private:
  [[noreturn]] void malformed(const std::string& what) const {
    fail(path_, "malformed .npy header: " + what + " at header offset " + std::to_string(pos_) +
                    " (header: " + quoteHeader(text_) + ")");
  }
  bool peekIs(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c, const std::string& what) {
    if (!peekIs(c)) malformed("expected " + what);
    ++pos_;
  }
  void markSeen(bool& seen, const std::string& key) const {
    if (seen) malformed("duplicate key '" + key + "'");
    seen = true;
  }
  std::string parseString(const std::string& what) {
    if (!peekIs('\'') && !peekIs('"')) malformed("expected " + what);
    const char quote = text_[pos_++];
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') malformed("escape sequences are not supported in header strings");
      ++pos_;
    }
    if (pos_ >= text_.size()) malformed("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }
  bool parseBool() {
    for (bool value : {true, false}) {
      const std::string_view word = value ? "True" : "False";
      if (text_.substr(pos_).starts_with(word)) {
        pos_ += word.size();
        return value;
      }
    }
    malformed("expected True or False for 'fortran_order'");
  }
  uint64_t parseDim() {
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
      malformed("expected a non-negative integer dimension in 'shape'");
    uint64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      const uint64_t digit = static_cast<uint64_t>(text_[pos_] - '0');
      if (value > (UINT64_MAX - digit) / 10) malformed("dimension too large in 'shape'");
      value = value * 10 + digit;
      ++pos_;
    }
    return value;
  }
  std::vector<uint64_t> parseShape() {
    expect('(', "a tuple '(...)' for 'shape'");
    std::vector<uint64_t> dims;
    skipSpace();
    while (!peekIs(')')) {
      // A header lists at most a handful of dimensions; stop a hostile one early.
      if (dims.size() >= 32) malformed("too many dimensions in 'shape'");
      dims.push_back(parseDim());
      skipSpace();
      if (peekIs(',')) {
        ++pos_;
        skipSpace();
      } else if (!peekIs(')')) {
        malformed("expected ',' or ')' in 'shape'");
      }
    }
    ++pos_;  // ')'
    return dims;
  }

  std::string_view text_;
  const std::string& path_;
  size_t pos_ = 0;
};

std::string shapeText(const std::vector<uint64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

uint32_t readLE(std::span<const unsigned char> bytes) {
  uint32_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | bytes[i];
  return v;
}

std::string errnoText() { return std::strerror(errno); }

/// Where the bytes come from: an open file or a buffer in memory (one parser serves both).
class NpyInput {
 public:
  virtual ~NpyInput() = default;
  virtual uint64_t size() const = 0;
  /// Reads exactly `count` bytes at the current position (the caller checked they exist).
  virtual void read(char* dst, size_t count) = 0;
};

class FileInput final : public NpyInput {
 public:
  FileInput(std::ifstream& in, uint64_t size, const std::string& path) : in_(in), size_(size), path_(path) {}
  uint64_t size() const override { return size_; }
  void read(char* dst, size_t count) override {
    if (count == 0) return;
    in_.read(dst, static_cast<std::streamsize>(count));
    if (static_cast<size_t>(in_.gcount()) != count) fail(path_, "cannot read .npy file: read failed");
  }

 private:
  std::ifstream& in_;
  uint64_t size_;
  const std::string& path_;
};

class MemoryInput final : public NpyInput {
 public:
  MemoryInput(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path) {}
  uint64_t size() const override { return bytes_.size(); }
  void read(char* dst, size_t count) override {
    if (count > bytes_.size() - pos_) fail(path_, "cannot read .npy data: read past the end");
    if (count != 0) std::memcpy(dst, bytes_.data() + pos_, count);
    pos_ += count;
  }

 private:
  std::string_view bytes_;
  const std::string& path_;
  size_t pos_ = 0;
};

struct Preamble {
  int major = 0;
  size_t size = 0;       // magic + version + header-length field
  size_t headerLen = 0;  // the dict text, padding and newline
};

Preamble readPreamble(NpyInput& in, const std::string& path) {
  const uint64_t fileSize = in.size();
  constexpr size_t kMinPreamble = 10;
  if (fileSize < kMinPreamble)
    fail(path, "truncated .npy file: " + std::to_string(fileSize) +
                   " bytes is shorter than the 10-byte .npy preamble");
  std::array<unsigned char, 12> raw{};
  in.read(reinterpret_cast<char*>(raw.data()), kMinPreamble);
  if (std::memcmp(raw.data(), kMagic.data(), kMagic.size()) != 0)
    fail(path, "not a .npy file: bad magic (expected the bytes \\x93NUMPY)");
  Preamble p;
  p.major = raw[6];
  const int minor = raw[7];
  if ((p.major != 1 && p.major != 2 && p.major != 3) || minor != 0)
    fail(path, "unsupported .npy format version " + std::to_string(p.major) + "." +
                   std::to_string(minor) + " (expected 1.0, 2.0 or 3.0)");
  if (p.major == 1) {
    p.size = 10;
    p.headerLen = readLE({raw.data() + 8, 2});
  } else {
    p.size = 12;
    if (fileSize < p.size)
      fail(path, "truncated .npy file: no room for the 4-byte header length of format " +
                     std::to_string(p.major) + ".0");
    in.read(reinterpret_cast<char*>(raw.data() + 10), 2);
    p.headerLen = readLE({raw.data() + 8, 4});
  }
  // NumPy itself refuses headers over 10000 bytes unless told otherwise; the limit (1 MiB by
  // default) keeps a hostile length from costing a large allocation.
  const uint64_t maxHeaderLen = static_cast<uint64_t>(resourceLimits().maxNpyHeaderBytes);
  if (p.headerLen > maxHeaderLen)
    fail(path, "unsupported .npy header of " + std::to_string(p.headerLen) + " bytes (expected at most " +
                   std::to_string(maxHeaderLen) + ")");
  if (p.headerLen > fileSize - p.size)
    fail(path, "truncated .npy file: the header claims " + std::to_string(p.headerLen) +
                   " bytes but only " + std::to_string(fileSize - p.size) + " follow the preamble");
  return p;
}

/// Checks descr/order/rank and returns (dtype, rows, cols).
struct ArrayShape {
  DType dtype;
  int64_t rows, cols;
};

ArrayShape checkHeader(const NpyHeader& h, const std::string& path) {
  const std::optional<DType> dt = dtypeOfDescr(h.descr);
  if (!dt)
    fail(path, "unsupported .npy dtype '" + h.descr + "' (expected one of " + supportedDescrList() +
                   "; BF16 travels as '<u2')");
  if (h.fortranOrder)
    fail(path, "unsupported .npy layout: Fortran order (expected C order, fortran_order False)");
  if (h.shape.empty() || h.shape.size() > 2)
    fail(path, "unsupported .npy shape " + shapeText(h.shape) + " of rank " +
                   std::to_string(h.shape.size()) + " (expected rank 1 (n,) or rank 2 (rows, cols))");
  const uint64_t rows = h.shape.size() == 2 ? h.shape[0] : 1;
  const uint64_t cols = h.shape.back();
  constexpr uint64_t kMaxDim = uint64_t{1} << 40;  // keeps each dimension far from int64 overflow
  if (rows > kMaxDim || cols > kMaxDim)
    fail(path, "unsupported .npy shape " + shapeText(h.shape) + ": dimension too large");
  // Before the data length is compared (rows * cols * esize may overflow) or anything allocated.
  const ResourceLimits& limits = resourceLimits();
  requireWithinLimit(path, {}, "the .npy array of shape " + shapeText(h.shape),
                     checkedElements(static_cast<int64_t>(rows), static_cast<int64_t>(cols)), dtypeSize(*dt),
                     limits.maxTensorElements, limits.maxTensorBytes);
  return {*dt, static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
}

std::string headerDict(std::string_view descr, int64_t rows, int64_t cols) {
  return "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (" +
         std::to_string(rows) + ", " + std::to_string(cols) + "), }";
}

/// Preamble + padded header for a dict: format 1.0 when the padded header fits its 2-byte
/// length field, else 2.0 (same dict, 4-byte length).
std::string encodeHeader(const std::string& dict) {
  auto paddedLength = [&](size_t preamble) {
    const size_t unpadded = preamble + dict.size() + 1;  // + '\n'
    return dict.size() + 1 + (kAlignment - unpadded % kAlignment) % kAlignment;
  };
  const bool v1 = paddedLength(10) <= 0xFFFF;
  const size_t headerLen = paddedLength(v1 ? 10 : 12);
  std::string out(kMagic);
  out += static_cast<char>(v1 ? 1 : 2);
  out += '\0';
  for (size_t i = 0; i < (v1 ? 2u : 4u); ++i) out += static_cast<char>((headerLen >> (8 * i)) & 0xFF);
  out += dict;
  out.append(headerLen - dict.size() - 1, ' ');
  out += '\n';
  return out;
}

void writeFile(const std::string& path, const std::string& header, const std::vector<uint8_t>& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, "cannot write .npy file: " + errnoText());
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  out.flush();
  if (!out) fail(path, "cannot write .npy file: " + errnoText());
}

Tensor readNpyFrom(NpyInput& in, const std::string& path) {
  const uint64_t fileSize = in.size();
  const Preamble pre = readPreamble(in, path);
  std::string headerText(pre.headerLen, '\0');
  in.read(headerText.data(), pre.headerLen);
  const ArrayShape shape = checkHeader(HeaderParser(headerText, path).parse(), path);

  const uint64_t dataBytes = static_cast<uint64_t>(shape.rows) * static_cast<uint64_t>(shape.cols) *
                             static_cast<uint64_t>(dtypeSize(shape.dtype));
  const uint64_t available = fileSize - pre.size - pre.headerLen;
  if (available < dataBytes)
    fail(path, "truncated .npy data: shape (" + std::to_string(shape.rows) + ", " +
                   std::to_string(shape.cols) + ") needs " + std::to_string(dataBytes) +
                   " bytes but the file holds " + std::to_string(available));
  if (available > dataBytes)
    fail(path, "oversized .npy data: shape (" + std::to_string(shape.rows) + ", " +
                   std::to_string(shape.cols) + ") needs " + std::to_string(dataBytes) +
                   " bytes but the file holds " + std::to_string(available) +
                   " (trailing bytes after the array)");
  Tensor t(shape.dtype, shape.rows, shape.cols);  // now known to fit in the file and the limits
  in.read(reinterpret_cast<char*>(t.bytes.data()), t.bytes.size());
  return t;
}

}  // namespace

Tensor readNpy(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path fsPath(path);
  if (!std::filesystem::exists(fsPath, ec)) fail(path, "cannot read .npy file: no such file");
  if (!std::filesystem::is_regular_file(fsPath, ec))
    fail(path, "cannot read .npy file: not a regular file");
  const uint64_t fileSize = std::filesystem::file_size(fsPath, ec);
  if (ec) fail(path, "cannot read .npy file: " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot read .npy file: " + errnoText());
  FileInput input(in, fileSize, path);
  return readNpyFrom(input, path);
}

Tensor readNpyBytes(std::string_view bytes, const std::string& name) {
  MemoryInput input(bytes, name);
  return readNpyFrom(input, name);
}

void writeNpy(const std::string& path, const Tensor& t) {
  const std::optional<std::string_view> descr = descrOfDType(t.dtype);
  if (!descr)
    fail(path, "cannot save a " + std::string(dtypeName(t.dtype)) +
                   " tensor as .npy (supported dtypes: FP32, FP16, BF16, INT32, INT8, UINT8, BOOL)");
  writeFile(path, encodeHeader(headerDict(*descr, t.rows, t.cols)), t.bytes);
}

void writeNpyPoison(const std::string& path, const Tensor& t) {
  std::vector<uint8_t> flags(t.poison.size());
  for (size_t i = 0; i < flags.size(); ++i) flags[i] = t.poison[i] ? 1 : 0;
  writeFile(path, encodeHeader(headerDict("|b1", t.rows, t.cols)), flags);
}

}  // namespace ptodiff
