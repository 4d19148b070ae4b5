// The planned-Tile interpreter (interp/PlannedTileInterpreter.h).
//
// Agreement: every program of tests/programs is planned by the reference pipeline (InitMemRef ..
// VerifyTileStorage, run here from the test: interp itself never uses a pass) under each planner
// and run on the planned-Tile interpreter; its outputs must equal the value interpreter's bit for
// bit (poison masks and written flags included) and its status must be the same (semantics.md §3:
// a correct planning changes no result and fires no checker).
//
// Hand-written planned programs check the live-clobber checker's report (semantics.md §5) and
// the interpreter's choice and rejections; tests/hazards/ holds the suite of storage bugs.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/passes/Pass.h"
#include "compiler/passes/PassManager.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/text/CaseFile.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/CaseSetup.h"
#include "interp/Interpreters.h"
#include "interp/PlannedTileInterpreter.h"
#include "tests/unit/interp/InterpTestSupport.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;
using testing::compileProgram;
using testing::fp32Tensor;
using testing::kernelProgram;
using testing::lineOf;
using testing::sentinelTensor;
using testing::smallValue;

fs::path programsDir() { return fs::path(PTODIFF_TESTS_DIR) / "programs"; }

std::vector<std::string> suitePrograms() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(programsDir()))
    if (entry.path().extension() == ".py" && fs::exists(fs::path(entry.path()).replace_extension(".case.json")))
      names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// The planned program (the pipeline stopped after VerifyTileStorage) of `program`.
Program planned(const Program& program, Planner planner, const Target& target) {
  PassManagerOptions options;
  options.stopAfter = "VerifyTileStorage";
  PassContext context;
  context.planner = planner;
  context.target = &target;
  return makeLoweringPassManager(options).run(program, context).program;
}

void expectSameTensors(const RunResult& value, const RunResult& plannedRun, const std::string& what) {
  ASSERT_EQ(value.final.tensors.size(), plannedRun.final.tensors.size()) << what;
  for (const auto& [name, expected] : value.final.tensors) {
    const Tensor& actual = plannedRun.final.tensors.at(name);
    ASSERT_EQ(actual.bytes.size(), expected.bytes.size()) << what << " " << name;
    for (int64_t i = 0; i < expected.elements(); ++i) {
      const size_t k = static_cast<size_t>(i);
      if (actual.bitsAt(i) == expected.bitsAt(i) && actual.poison[k] == expected.poison[k] &&
          actual.written[k] == expected.written[k])
        continue;
      ADD_FAILURE() << what << ": " << name << "[" << i / expected.cols << ", " << i % expected.cols
                    << "] planned bits 0x" << std::hex << actual.bitsAt(i) << " poison " << int(actual.poison[k])
                    << " written " << int(actual.written[k]) << ", value bits 0x" << expected.bitsAt(i) << " poison "
                    << int(expected.poison[k]) << " written " << int(expected.written[k]) << std::dec;
      return;
    }
  }
}

class PlannedAgreement : public ::testing::TestWithParam<std::string> {};

TEST_P(PlannedAgreement, EveryPlannerGivesTheValueInterpretersBits) {
  const std::string name = GetParam();
  const fs::path path = programsDir() / (name + ".py");
  Program program = parseProgramFile(path.string());
  verifyOrThrow(program);
  const CaseSpec spec = parseCaseFilePath((programsDir() / (name + ".case.json")).string());
  const Function* kernel = spec.function.empty() ? program.defaultKernel() : program.findFunction(spec.function);
  ASSERT_NE(kernel, nullptr);
  const KernelArgs args = buildKernelArgs(*kernel, spec, {});
  RunConfig config;
  config.blockNum = spec.blockNum;
  config.seed = spec.seed;
  const Target& target = *findTarget(spec.target);
  config.target = target.kind;
  const RunResult value = runTileKernel(program, *kernel, args, config);

  for (Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
    const std::string what = name + " under " + std::string(plannerName(planner));
    Program plannedProgram;
    try {
      plannedProgram = planned(program, planner, target);
    } catch (const DiagnosticError& e) {
      FAIL() << what << " does not compile: " << e.what();
    }
    const Function* plannedKernel = plannedProgram.findFunction(kernel->name);
    ASSERT_NE(plannedKernel, nullptr) << what;
    ASSERT_TRUE(isPlannedTileKernel(*plannedKernel)) << what << ": the planned kernel has a tile without a MemRef";
    EXPECT_EQ(defaultInterpreter(*plannedKernel), InterpreterKind::Planned) << what;
    config.addressedPlanner = plannerAssignsAddresses(planner);
    const RunResult run = runPlannedTileKernel(plannedProgram, *plannedKernel, args, config);
    ASSERT_EQ(run.status, value.status) << what << ": " << run.diagnostic.message;
    expectSameTensors(value, run, what);
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, PlannedAgreement, ::testing::ValuesIn(suitePrograms()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// ---- hand-written planned programs ----

const char* kSignature =
    "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]";

std::string vecTile(const std::string& root, int64_t offset) {
  return "pl.Tile[[16, 32], pl.FP32, pl.MemRef(" + root + ", " + std::to_string(offset) + ", 2048), pl.Mem.Vec]";
}

/// y = OP(x) in x's storage (one root, `rootAddress` its addr= argument or ""), then y stored.
std::string inPlaceUnaryProgram(const std::string& op, const std::string& rootAddress) {
  return kernelProgram(kSignature, "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048" + rootAddress + ")\n"
                                   "        x: " + vecTile("mem_vec_0", 0) + " = pl.tile.load(a, [0, 0], [16, 32])\n"
                                   "        y: " + vecTile("mem_vec_0", 0) + " = pl.tile." + op + "(x)\n"
                                   "        o = pl.tile.store(y, [0, 0], out)\n"
                                   "        return o\n");
}

KernelArgs argsFor() {
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  return args;
}

TEST(PlannedTileInterpreter, ReusingALiveValuesStorageIsALiveClobberNamingTheOpAndItsLine) {
  // y is placed over x's storage while x is still read (PyPTO #598): the read of x at the add
  // finds y's write.
  const std::string text = kernelProgram(kSignature,
                                         "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                                         "        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
                                         "        x: " + vecTile("mem_vec_0", 0) + " = pl.tile.load(a, [0, 0], [16, 32])\n"
                                         "        y: " + vecTile("mem_vec_0", 0) + " = pl.tile.exp(x)\n"
                                         "        z: " + vecTile("mem_vec_1", 2048) + " = pl.tile.add(y, x)\n"
                                         "        o = pl.tile.store(z, [0, 0], out)\n"
                                         "        return o\n");
  const Program p = compileProgram(text);
  const RunResult r = runPlannedTileKernel(p, *p.defaultKernel(), argsFor());
  ASSERT_EQ(r.status, RunStatus::Hazard) << r.diagnostic.message;
  ASSERT_TRUE(r.hazard);
  EXPECT_EQ(r.hazard->kind, HazardKind::LiveClobber);
  EXPECT_EQ(r.hazard->loc.line, lineOf(text, "z: "));
  EXPECT_EQ(r.hazard->message(),
            "live-clobber: tile.add: reads x[0, 0] (Vec bytes [0, 4)), overwritten by tile.exp at line " +
                std::to_string(lineOf(text, "y: ")) + " (y) after tile.load at line " +
                std::to_string(lineOf(text, "x: ")) + " (x) wrote it; x is still live");
}

TEST(PlannedTileInterpreter, AnInPlaceElementwiseOpOnADeadValueIsClean) {
  // The same storage for y, but x is dead after exp: in-place reuse of the identical window.
  const std::string text = inPlaceUnaryProgram("exp", ", addr=0");
  const Program p = compileProgram(text);
  const RunResult planned = runPlannedTileKernel(p, *p.defaultKernel(), argsFor());
  const RunResult value = runTileKernel(p, *p.defaultKernel(), argsFor());
  ASSERT_EQ(planned.status, RunStatus::Ok) << planned.diagnostic.message;
  expectSameTensors(value, planned, "in-place exp");
}

TEST(PlannedTileInterpreter, AddresslessRootsArePlacedAndARecipOverItsInputIsAnOverlap) {
  const std::string text = inPlaceUnaryProgram("recip", "");
  const Program p = compileProgram(text);
  const RunResult r = runPlannedTileKernel(p, *p.defaultKernel(), argsFor());
  ASSERT_EQ(r.status, RunStatus::Hazard) << r.diagnostic.message;
  EXPECT_EQ(r.hazard->message(),
            "overlap: tile.recip: destination y (bytes [0, 2048)) overlaps source x (bytes [0, 2048)) first at bytes "
            "[0, 2048); tile.recip cannot run in place");
  // The same program from an addressed planner: its root has no address.
  RunConfig addressed;
  addressed.addressedPlanner = true;
  const RunResult a = runPlannedTileKernel(p, *p.defaultKernel(), argsFor(), addressed);
  ASSERT_EQ(a.status, RunStatus::Hazard);
  EXPECT_EQ(a.hazard->kind, HazardKind::Addressless);
  EXPECT_EQ(a.hazard->loc.line, lineOf(text, "mem_vec_0:"));
}

TEST(PlannedTileInterpreter, ATileWithoutAMemRefIsRejectedAtItsStatement) {
  const std::string text = kernelProgram(kSignature,
                                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                         "        o = pl.tile.store(x, [0, 0], out)\n"
                                         "        return o\n");
  const Program p = compileProgram(text);
  EXPECT_FALSE(isPlannedTileKernel(*p.defaultKernel()));
  EXPECT_EQ(defaultInterpreter(*p.defaultKernel()), InterpreterKind::Value);
  try {
    runPlannedTileKernel(p, *p.defaultKernel(), argsFor());
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(std::string(e.what()).find("tile.load: the result x has no MemRef; the planned-Tile interpreter runs "
                                         "programs whose tiles all carry planned storage"),
              std::string::npos)
        << e.what();
  }
}

// ---- in-place results and scratch ----

const char* kCubeSignature =
    "a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], "
    "o0: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o1: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> "
    "tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]";

/// c1 = matmul_acc(c0, l, r) with c1 at Acc byte `c1Offset`; both c0 and c1 are stored after.
std::string cubeProgram(int64_t c1Offset) {
  const std::string half = "pl.Tile[[16, 16], pl.FP16, pl.MemRef(";
  const std::string acc = "pl.Tile[[16, 16], pl.FP32, pl.MemRef(";
  return kernelProgram(
      kCubeSignature,
      "        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512, addr=0)\n"
      "        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512, addr=512)\n"
      "        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512, addr=0)\n"
      "        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 512, addr=0)\n"
      "        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 2048, addr=0)\n"
      "        am: " + half + "mem_mat_0, 0, 512), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        bm: " + half + "mem_mat_1, 512, 512), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        l: " + half + "mem_left_2, 0, 512), pl.Mem.Left] = pl.tile.extract(am, 0, 0, [16, 16], target_memory=pl.Mem.Left)\n"
      "        r: " + half + "mem_right_3, 0, 512), pl.Mem.Right] = pl.tile.extract(bm, 0, 0, [16, 16], target_memory=pl.Mem.Right)\n"
      "        c0: " + acc + "mem_acc_4, 0, 1024), pl.Mem.Acc] = pl.tile.matmul(l, r)\n"
      "        c1: " + acc + "mem_acc_4, " + std::to_string(c1Offset) + ", 1024), pl.Mem.Acc] = pl.tile.matmul_acc(c0, l, r)\n"
      "        w0 = pl.tile.store(c0, [0, 0], o0)\n"
      "        w1 = pl.tile.store(c1, [0, 0], o1)\n"
      "        return w0, w1\n");
}

KernelArgs cubeArgs() {
  KernelArgs args;
  // Small integers: exact in FP16 and in every FP32 sum, so the check does not lean on rounding.
  args.tensors["a"] = testing::bitsTensor(DType::FP16, 16, 16, [](int64_t r, int64_t c) {
    return uint64_t{0x3C00u} + static_cast<uint64_t>(((r + c) % 3) << 10);  // 1, 2 or 4
  });
  args.tensors["b"] = testing::bitsTensor(DType::FP16, 16, 16, [](int64_t r, int64_t c) {
    return uint64_t{0x3C00u} + static_cast<uint64_t>(((r * c) % 2) << 10);  // 1 or 2
  });
  args.tensors["o0"] = sentinelTensor(DType::FP32, 16, 16);
  args.tensors["o1"] = sentinelTensor(DType::FP32, 16, 16);
  return args;
}

TEST(PlannedTileInterpreter, AnAccumulatorInItsOwnWindowStartsFromACopyAndKeepsTheInputIntact) {
  const Program p = compileProgram(cubeProgram(1024));
  const RunResult planned = runPlannedTileKernel(p, *p.defaultKernel(), cubeArgs());
  ASSERT_EQ(planned.status, RunStatus::Ok) << planned.diagnostic.message;
  const RunResult value = runTileKernel(p, *p.defaultKernel(), cubeArgs());
  ASSERT_EQ(value.status, RunStatus::Ok);
  expectSameTensors(value, planned, "matmul_acc into its own window");
  // o1 = 2 * o0 (c0 + the same product), computed here independently of the interpreters.
  const Tensor &o0 = planned.final.tensors.at("o0"), &o1 = planned.final.tensors.at("o1");
  for (int64_t i = 0; i < 256; ++i) EXPECT_EQ(testing::f32At(o1, i / 16, i % 16), 2 * testing::f32At(o0, i / 16, i % 16));
}

TEST(PlannedTileInterpreter, AnInPlaceAccumulatorOverAStillLiveInputIsALiveClobber) {
  const std::string text = cubeProgram(0);
  const Program p = compileProgram(text);
  const RunResult r = runPlannedTileKernel(p, *p.defaultKernel(), cubeArgs());
  ASSERT_EQ(r.status, RunStatus::Hazard) << r.diagnostic.message;
  EXPECT_EQ(r.hazard->loc.line, lineOf(text, "w0 = "));
  EXPECT_EQ(r.hazard->message(), "live-clobber: tile.store: reads c0[0, 0] (Acc bytes [0, 4)), overwritten by "
                                 "tile.matmul_acc at line " + std::to_string(lineOf(text, "c1: ")) +
                                     " (c1) after tile.matmul at line " + std::to_string(lineOf(text, "c0: ")) +
                                     " (c0) wrote it; c0 is still live");
}

TEST(PlannedTileInterpreter, ARowReductionPoisonsItsScratchSoALaterReadOfItIsALiveClobber) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], rows: pl.Out[pl.Tensor[[16, 1], pl.FP32]], "
      "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]",
      "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
      "        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
      "        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64, addr=4096)\n"
      "        x: " + vecTile("mem_vec_0", 0) + " = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        t: " + vecTile("mem_vec_1", 2048) + " = pl.tile.exp(x)\n"
      "        s: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_2, 4096, 64), pl.Mem.Vec] = pl.tile.row_sum(x, t)\n"
      "        w0 = pl.tile.store(s, [0, 0], rows)\n"
      "        w1 = pl.tile.store(t, [0, 0], out)\n"
      "        return w0, w1\n");
  const Program p = compileProgram(text);
  KernelArgs args = argsFor();
  args.tensors["rows"] = sentinelTensor(DType::FP32, 16, 1);
  const RunResult r = runPlannedTileKernel(p, *p.defaultKernel(), args);
  ASSERT_EQ(r.status, RunStatus::Hazard) << r.diagnostic.message;
  EXPECT_EQ(r.hazard->loc.line, lineOf(text, "w1 = "));
  EXPECT_EQ(r.hazard->message(), "live-clobber: tile.store: reads t[0, 0] (Vec bytes [2048, 2052)), overwritten by "
                                 "tile.row_sum at line " + std::to_string(lineOf(text, "        s: ")) +
                                     " (s) after tile.exp at line " + std::to_string(lineOf(text, "        t: ")) +
                                     " (t) wrote it; t is still live");
}

// ---- `ptodiff interp` picks the planned-Tile interpreter (tools/ptodiff/InterpCommand.cpp) ----

struct CliRun {
  int exitCode = -1;
  std::string out, err;
};

CliRun runInterp(const std::string& arguments) {
  const fs::path base = fs::temp_directory_path() / ("ptodiff_planned_cli_" + std::to_string(::getpid()));
  const std::string command = "cd '" PTODIFF_TESTS_DIR "' && '" PTODIFF_BINARY "' interp " + arguments + " >'" +
                              base.string() + ".out' 2>'" + base.string() + ".err'";
  const int status = std::system(command.c_str());
  const auto slurp = [](const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  CliRun run{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(base.string() + ".out"), slurp(base.string() + ".err")};
  fs::remove(base.string() + ".out");
  fs::remove(base.string() + ".err");
  return run;
}

TEST(PlannedTileInterpreterCli, APlannedProgramRunsPlannedByDefaultAndAnyTileProgramOnRequestOnTheValueInterpreter) {
  const CliRun planned = runInterp("hazards/clean/planned_elementwise_fp32.py");
  EXPECT_EQ(planned.exitCode, 0) << planned.err;
  EXPECT_NE(planned.out.find("status: pass\n"), std::string::npos) << planned.out;
  const CliRun forced = runInterp("hazards/clean/planned_elementwise_fp32.py --interpreter planned");
  EXPECT_EQ(forced.out, planned.out);
  // The value interpreter ignores the MemRefs and gives the same outputs (same checksums).
  const CliRun value = runInterp("hazards/clean/planned_elementwise_fp32.py --interpreter value");
  EXPECT_EQ(value.exitCode, 0) << value.err;
  const auto tensorLines = [](const std::string& text) { return text.substr(text.find("tensor ")); };
  EXPECT_EQ(tensorLines(value.out), tensorLines(planned.out));
  // A hazard of a planned program is reported by the default choice, so no flag is needed.
  const CliRun hazard = runInterp("hazards/planned_recip_in_place.py");
  EXPECT_EQ(hazard.exitCode, 1);
  EXPECT_EQ(hazard.err.rfind("hazards/planned_recip_in_place.py:15:9: hazard: overlap: tile.recip: ", 0), 0u) << hazard.err;
}

TEST(PlannedTileInterpreterCli, PlannedIsRefusedForAProgramWithoutPlannedStorage) {
  const CliRun run = runInterp("programs/elementwise_fp32.py --interpreter planned");
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_EQ(run.err, "ptodiff: error: --interpreter planned: function \"kernel\" has tiles without a MemRef; the "
                     "planned-Tile interpreter runs planned programs (ptodiff compile --stop-after VerifyTileStorage "
                     "prints one)\n");
}

TEST(PlannedTileInterpreter, InterpreterNamesRoundTrip) {
  for (InterpreterKind k : {InterpreterKind::Value, InterpreterKind::Planned, InterpreterKind::Buffer})
    EXPECT_EQ(parseInterpreter(interpreterName(k)), k);
  EXPECT_EQ(parseInterpreter("tile"), std::nullopt);
}

}  // namespace
}  // namespace ptodiff
