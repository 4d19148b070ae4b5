#include "interp/Npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/ir/SourceLoc.h"

#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

using ::testing::HasSubstr;
using testing::readFileBytes;
using testing::TempDir;
using testing::writeFileBytes;

/// A hand-built .npy file: preamble of format `major`.0, `dict` padded to 64 bytes plus '\n',
/// then `payload`. Independent of the writer under test.
std::string npyBytes(int major, const std::string& dict, const std::string& payload) {
  const size_t preamble = major == 1 ? 10 : 12;
  std::string header = dict;
  const size_t unpadded = preamble + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const size_t lenBytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < lenBytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + payload;
}

std::string floatPayload(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) {
    char b[4];
    std::memcpy(b, &v, 4);
    out.append(b, 4);
  }
  return out;
}

/// Expects readNpy(path) to fail with a diagnostic naming the file whose message contains `what`.
void expectReadError(const std::string& path, const std::string& what) {
  try {
    readNpy(path);
    ADD_FAILURE() << "readNpy accepted " << path << "; expected an error containing: " << what;
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().file, path);
    EXPECT_THAT(e.diagnostic().message, HasSubstr(what));
    EXPECT_THAT(std::string(e.what()), HasSubstr(path + ": error: "));
  }
}

Tensor patternTensor(DType dt, int64_t rows, int64_t cols) {
  Tensor t(dt, rows, cols);
  for (int64_t i = 0; i < t.elements(); ++i) {
    uint64_t bits = (static_cast<uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ull;
    if (dt == DType::BOOL) bits = static_cast<uint64_t>(i % 3 == 0);
    t.setBitsAt(i, bits);
  }
  return t;
}

class NpyRoundTrip : public ::testing::TestWithParam<DType> {};

TEST_P(NpyRoundTrip, BitsDtypeAndShapeSurvive) {
  TempDir dir;
  const Tensor original = patternTensor(GetParam(), 3, 5);
  const std::string path = dir.file("t.npy");
  writeNpy(path, original);
  const Tensor back = readNpy(path);
  EXPECT_EQ(back.dtype, original.dtype);
  EXPECT_EQ(back.rows, 3);
  EXPECT_EQ(back.cols, 5);
  EXPECT_EQ(back.bytes, original.bytes);
  EXPECT_FALSE(back.anyPoison());
}

INSTANTIATE_TEST_SUITE_P(EveryExchangedDType, NpyRoundTrip,
                         ::testing::Values(DType::FP32, DType::FP16, DType::BF16, DType::INT32, DType::INT8,
                                           DType::UINT8, DType::BOOL),
                         [](const auto& info) { return std::string(dtypeName(info.param)); });

TEST(Npy, WriterEmitsFormat10HeaderAlignedTo64) {
  TempDir dir;
  const std::string path = dir.file("h.npy");
  writeNpy(path, patternTensor(DType::FP32, 3, 5));
  const std::string bytes = readFileBytes(path);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
  const size_t headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + headerLen) % 64, 0u);
  EXPECT_EQ(bytes.size(), 10 + headerLen + 3 * 5 * 4);
  const std::string header = bytes.substr(10, headerLen);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_THAT(header, HasSubstr("'descr': '<f4'"));
  EXPECT_THAT(header, HasSubstr("'fortran_order': False"));
  EXPECT_THAT(header, HasSubstr("'shape': (3, 5)"));
}

TEST(Npy, Bf16IsWrittenAsU2AndU2ReadsAsBf16) {
  TempDir dir;
  const std::string path = dir.file("bf.npy");
  writeNpy(path, patternTensor(DType::BF16, 2, 2));
  EXPECT_THAT(readFileBytes(path), HasSubstr("'descr': '<u2'"));
  EXPECT_EQ(readNpy(path).dtype, DType::BF16);
}

TEST(Npy, PoisonFlagsAreWrittenAsBool) {
  TempDir dir;
  Tensor t(DType::FP32, 2, 3);
  t.poison = {0, 1, 0, 0, 0, 1};
  const std::string path = dir.file("p.npy");
  writeNpyPoison(path, t);
  EXPECT_THAT(readFileBytes(path), HasSubstr("'descr': '|b1'"));
  const Tensor back = readNpy(path);
  EXPECT_EQ(back.dtype, DType::BOOL);
  EXPECT_EQ(back.rows, 2);
  EXPECT_EQ(back.cols, 3);
  EXPECT_EQ(back.bytes, t.poison);
}

TEST(Npy, RankOneReadsAsOneRow) {
  TempDir dir;
  const std::string path = dir.file("v.npy");
  writeFileBytes(path, npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                floatPayload({1.0f, 2.0f, 3.0f})));
  const Tensor t = readNpy(path);
  EXPECT_EQ(t.rows, 1);
  EXPECT_EQ(t.cols, 3);
  EXPECT_EQ(t.bitsAt(2), 0x40400000u);  // 3.0f
}

TEST(Npy, ReadsFormats20And30) {
  TempDir dir;
  for (int major : {2, 3}) {
    const std::string path = dir.file("v" + std::to_string(major) + ".npy");
    writeFileBytes(path, npyBytes(major, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }",
                                  floatPayload({-1.5f, 0.25f})));
    const Tensor t = readNpy(path);
    EXPECT_EQ(t.rows, 1);
    EXPECT_EQ(t.cols, 2);
    EXPECT_EQ(t.bitsAt(0), 0xBFC00000u) << "format " << major;
  }
}

TEST(Npy, HeaderKeysInAnyOrderWithEitherQuotes) {
  TempDir dir;
  const std::string path = dir.file("o.npy");
  writeFileBytes(path, npyBytes(1, "{\"shape\": ( 2 , 1 ) ,'fortran_order':False,  'descr':'<i4'}",
                                std::string("\x07\0\0\0\xff\xff\xff\xff", 8)));
  const Tensor t = readNpy(path);
  EXPECT_EQ(t.dtype, DType::INT32);
  EXPECT_EQ(t.rows, 2);
  EXPECT_EQ(t.cols, 1);
  EXPECT_EQ(t.bitsAt(0), 7u);
  EXPECT_EQ(t.bitsAt(1), 0xFFFFFFFFu);
}

TEST(Npy, EmptyArrayIsAccepted) {
  TempDir dir;
  const std::string path = dir.file("e.npy");
  writeFileBytes(path, npyBytes(1, "{'descr': '|i1', 'fortran_order': False, 'shape': (0, 4), }", ""));
  const Tensor t = readNpy(path);
  EXPECT_EQ(t.rows, 0);
  EXPECT_EQ(t.cols, 4);
}

// ---- rejections ----

TEST(NpyReject, FortranOrder) {
  TempDir dir;
  const std::string path = dir.file("f.npy");
  writeFileBytes(path, npyBytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), }",
                                floatPayload({1, 2})));
  expectReadError(path, "Fortran order (expected C order");
}

TEST(NpyReject, OtherDescrs) {
  TempDir dir;
  for (const std::string descr : {"<f8", ">f4", "<i8", "<u4", "|S4", "<c8"}) {
    const std::string path = dir.file("d.npy");
    writeFileBytes(path, npyBytes(1, "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (1, 1), }",
                                  std::string(8, '\0')));
    expectReadError(path, "unsupported .npy dtype '" + descr + "' (expected one of '<f4'");
  }
}

TEST(NpyReject, RankZeroAndRankThree) {
  TempDir dir;
  const std::string scalar = dir.file("s.npy");
  writeFileBytes(scalar, npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", floatPayload({1})));
  expectReadError(scalar, "shape () of rank 0 (expected rank 1 (n,) or rank 2 (rows, cols))");
  const std::string cube = dir.file("c.npy");
  writeFileBytes(cube, npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1), }",
                                floatPayload({1})));
  expectReadError(cube, "shape (1, 1, 1) of rank 3");
}

TEST(NpyReject, TruncatedData) {
  TempDir dir;
  const std::string path = dir.file("t.npy");
  writeFileBytes(path, npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                                floatPayload({1, 2, 3})));
  expectReadError(path, "truncated .npy data: shape (2, 2) needs 16 bytes but the file holds 12");
}

TEST(NpyReject, OversizedData) {
  TempDir dir;
  const std::string path = dir.file("o.npy");
  writeFileBytes(path, npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }",
                                floatPayload({1, 2, 3})));
  expectReadError(path, "oversized .npy data: shape (1, 2) needs 8 bytes but the file holds 12");
}

TEST(NpyReject, LyingShapeIsCaughtBeforeAllocating) {
  TempDir dir;
  const std::string path = dir.file("l.npy");
  // 2^40 x 2^40 floats would be 2^82 bytes (the product overflows 64 bits); the file holds 4. The
  // element limit refuses the shape before its byte count is computed.
  writeFileBytes(path, npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, "
                                   "1099511627776), }",
                                floatPayload({1})));
  expectReadError(path, "the .npy array of shape (1099511627776, 1099511627776) has too many elements, over the "
                        "limit of 67108864");
  const std::string huge = dir.file("h.npy");
  writeFileBytes(huge, npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 1), }",
                                floatPayload({1})));
  expectReadError(huge, "dimension too large");
}

TEST(NpyReject, LyingHeaderLength) {
  TempDir dir;
  const std::string path = dir.file("h.npy");
  writeFileBytes(path, std::string("\x93NUMPY\x01\x00\xff\xff{'descr'", 17));
  expectReadError(path, "truncated .npy file: the header claims 65535 bytes but only 7 follow the preamble");
  const std::string v2 = dir.file("h2.npy");
  writeFileBytes(v2, std::string("\x93NUMPY\x02\x00\x00\x00\x01\x00{}", 14));
  expectReadError(v2, "the header claims 65536 bytes");
  const std::string huge = dir.file("h3.npy");
  writeFileBytes(huge, std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f{}", 14));
  expectReadError(huge, "unsupported .npy header of 2147483647 bytes (expected at most 1048576)");
}

TEST(NpyReject, BadMagicShortFileAndUnknownVersion) {
  TempDir dir;
  const std::string magic = dir.file("m.npy");
  writeFileBytes(magic, std::string("PK\x03\x04 this is a zip file, not npy"));
  expectReadError(magic, "not a .npy file: bad magic");
  const std::string shortFile = dir.file("s.npy");
  writeFileBytes(shortFile, "\x93NUM");
  expectReadError(shortFile, "truncated .npy file: 4 bytes is shorter than the 10-byte .npy preamble");
  const std::string version = dir.file("v.npy");
  writeFileBytes(version, npyBytes(4, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", floatPayload({1})));
  expectReadError(version, "unsupported .npy format version 4.0 (expected 1.0, 2.0 or 3.0)");
}

TEST(NpyReject, MalformedHeaderDicts) {
  TempDir dir;
  const std::string payload = floatPayload({1});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{'descr': '<f4', 'fortran_order': False}", "missing key 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), 'extra': 1}", "unexpected key 'extra'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1, 1)}", "duplicate key 'descr'"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (1, 1)}", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (1, 1)}", "expected True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, -1)}", "expected a non-negative integer dimension in 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [1, 1]}", "expected a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1)} junk", "unexpected text after the header dict"},
      {"'descr': '<f4'", "expected '{' opening the header dict"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1", "expected ',' or ')'"},
  };
  for (const auto& [dict, message] : cases) {
    const std::string path = dir.file("bad.npy");
    writeFileBytes(path, npyBytes(1, dict, payload));
    SCOPED_TRACE(dict);
    expectReadError(path, "malformed .npy header: " + message);
  }
}

TEST(NpyReject, UnreadablePaths) {
  TempDir dir;
  expectReadError(dir.file("missing.npy"), "cannot read .npy file: no such file");
  expectReadError(dir.path().string(), "cannot read .npy file: not a regular file");
}

TEST(NpyReject, WritingUnsupportedDtypeOrIntoMissingFolder) {
  TempDir dir;
  const std::string path = dir.file("i64.npy");
  try {
    writeNpy(path, Tensor(DType::INT64, 1, 1));
    ADD_FAILURE() << "an INT64 tensor was written";
  } catch (const DiagnosticError& e) {
    EXPECT_THAT(e.diagnostic().message, HasSubstr("cannot save a INT64 tensor as .npy"));
  }
  const std::string nowhere = dir.file("no/such/folder/x.npy");
  try {
    writeNpy(nowhere, Tensor(DType::FP32, 1, 1));
    ADD_FAILURE() << "wrote into a missing folder";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().file, nowhere);
    EXPECT_THAT(e.diagnostic().message, HasSubstr("cannot write .npy file"));
  }
}

TEST(NpyReject, EveryTruncationAndByteCorruptionIsADiagnostic) {
  // Hostile input: every prefix of a valid file, and every single-byte corruption of its
  // preamble and header, must either read or fail with a DiagnosticError (never anything else).
  TempDir dir;
  const std::string valid = dir.file("valid.npy");
  writeNpy(valid, patternTensor(DType::INT32, 2, 3));
  const std::string bytes = readFileBytes(valid);
  const std::string path = dir.file("mutant.npy");
  auto readsOrDiagnoses = [&](const std::string& content) {
    writeFileBytes(path, content);
    try {
      readNpy(path);
    } catch (const DiagnosticError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "non-diagnostic exception: " << e.what();
    }
  };
  for (size_t len = 0; len < bytes.size(); ++len) {
    writeFileBytes(path, bytes.substr(0, len));
    EXPECT_THROW(readNpy(path), DiagnosticError) << "prefix of " << len << " bytes";
  }
  for (size_t i = 0; i < 64 + 10 && i < bytes.size(); ++i)
    for (int value : {0x00, 0x20, 0x27, 0x28, 0x29, 0x2C, 0x30, 0x39, 0x7B, 0x7D, 0x80, 0xFF}) {
      std::string mutant = bytes;
      mutant[i] = static_cast<char>(value);
      readsOrDiagnoses(mutant);
    }
}

}  // namespace
}  // namespace ptodiff
