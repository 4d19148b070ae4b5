// Shared by the device tests: a program with a loop count, an If and a runtime valid extent (the
// matrix-mode example), exporting it, and running the ptodiff binary or a shell command.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/text/CaseFile.h"
#include "compiler/text/Parser.h"
#include "device/Export.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff::testing {

/// n: loop count (each trip stores a band of 16 rows: rows 0..47), f: which arm's result is stored
/// at rows 64..79, vr: valid rows of a runtime-valid load stored at rows 96..111. Rows 48..63 and
/// 80..95 are never written: sentinel bands. Every planner lowers it to a Buffer-stage kernel.
inline constexpr const char* kMatrixProgram = R"(import pypto.language as pl


@pl.program
class matrix:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               n: pl.Scalar[pl.INDEX],
               f: pl.Scalar[pl.BOOL],
               vr: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[112, 32], pl.FP32]]) -> pl.Tensor[[112, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc, o) in pl.range(0, n, 1, init_values=(x, out)):
            acc1 = pl.tile.add(acc, x)
            o1 = pl.tile.store(acc1, [i * 16, 0], o)
            acc2, o2 = pl.yield_(acc1, o1)
        if f:
            y1 = pl.tile.exp(acc2)
            y = pl.yield_(y1)
        else:
            y2 = pl.tile.muls(acc2, -1.5)
            y = pl.yield_(y2)
        o3 = pl.tile.store(y, [64, 0], o2)
        xv = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[vr, 32])
        w = pl.tile.abs(xv)
        o4 = pl.tile.store(w, [96, 0], o3)
        return o4
)";

inline constexpr const char* kMatrixCase = R"({
  "function": "kernel",
  "scalars": {"n": 2, "f": true, "vr": 16},
  "seed": 7
})";

/// Writes matrix.py and matrix.case.json into `dir`.
inline void writeMatrixProgram(const TempDir& dir) {
  writeFileBytes(dir.file("matrix.py"), kMatrixProgram);
  writeFileBytes(dir.file("matrix.case.json"), kMatrixCase);
}

inline device::ExportCase matrixCase(const TempDir& dir) {
  writeMatrixProgram(dir);
  device::ExportCase c;
  c.program = parseProgramFile(dir.file("matrix.py"));
  c.spec = parseCaseFilePath(dir.file("matrix.case.json"));
  c.origin = {{"kind", "program"}, {"program", dir.file("matrix.py")}};
  return c;
}

struct CommandResult {
  int status = -1;
  std::string output;  // stdout and stderr together
};

/// Runs `command` with sh, capturing both streams.
inline CommandResult runShell(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string ptodiffBinary() { return PTODIFF_BINARY; }

/// An executable shell script at `path`.
inline void writeScript(const std::string& path, const std::string& body) {
  writeFileBytes(path, "#!/bin/sh\n" + body);
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

}  // namespace ptodiff::testing
