// Random planned kernels (RapidCheck): straight-line Vec code with windows and assembles, row
// reductions whose tmp_tile may be any visible tile (PT6: the reduction writes poison over it), For
// loops with constant or runtime trip counts carrying tiles (swaps and rotations included), and
// branches yielding tiles, run through InitMemRef, selection, each planner and VerifyTileStorage with
// verify-each on. Properties:
//   - the pipeline either accepts the kernel, or rejects it only because a carry keeps two trips'
//     generations of a value alive (L9, which needs MaterializeSemanticAliases' copies);
//   - an accepted plan never lets a value be read after its bytes were overwritten, on any explored
//     path (PlannerStorageOracle.h, independent of the planners' liveness);
//   - a kernel selected for the Buffer path is never rejected.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "compiler/text/Printer.h"
#include "tests/unit/compiler/PassTestSupport.h"
#include "tests/unit/compiler/PlannerStorageOracle.h"

namespace ptodiff {
namespace {

using namespace testsupport;

/// An int in [lo, hi), drawn uniformly at every size (RapidCheck scales inRange with the size,
/// which would make small cases straight-line only); shrinking still heads toward `lo`.
int draw(int lo, int hi) { return *rc::gen::resize(100, rc::gen::inRange(lo, hi)); }

template <class T>
T drawOf(const std::vector<T>& items) { return items[static_cast<size_t>(draw(0, static_cast<int>(items.size())))]; }

/// Writes a random kernel; every name is fresh, so scoping needs no care beyond the region stack.
class KernelWriter {
 public:
  std::string program() {
    body_.clear();
    scopes_.push_back({});
    tensor_ = "out";
    line(2, fresh16() + " = pl.tile.load(a, [0, 0], [16, 32])");
    statements(2, draw(3, 12), 0);
    // Store what is still live so late reads of every kind of value happen.
    for (int i = 0, n = draw(1, 4); i < n; ++i) store(2);
    line(2, "return " + tensor_);
    return "@pl.program\nclass random_kernel:\n    @pl.function(type=pl.FunctionType.InCore)\n"
           "    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], f: pl.Scalar[pl.BOOL],\n"
           "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n" +
           body_;
  }

 private:
  struct Scope {
    std::vector<std::string> full;    // [16, 32] tiles
    std::vector<std::string> halves;  // [8, 32] tiles
  };
  std::string body_;
  std::vector<Scope> scopes_;
  std::string tensor_;
  int next_ = 0;

  static std::string tuple(const std::vector<std::string>& items) {
    std::string out = "(";
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out + (items.size() == 1 ? ",)" : ")");
  }

  void line(int depth, const std::string& text) { body_ += std::string(depth * 4, ' ') + text + "\n"; }
  std::string name(const char* stem) { return std::string(stem) + std::to_string(next_++); }
  std::string fresh16() {
    std::string n = name("t");
    scopes_.back().full.push_back(n);
    return n;
  }
  std::string fresh8() {
    std::string n = name("h");
    scopes_.back().halves.push_back(n);
    return n;
  }
  std::vector<std::string> visible(bool halves) const {
    std::vector<std::string> out;
    for (const Scope& s : scopes_)
      for (const std::string& v : halves ? s.halves : s.full) out.push_back(v);
    return out;
  }
  std::string pick(bool halves = false) { return drawOf(visible(halves)); }

  void store(int depth) {
    std::string o = name("o");
    line(depth, o + " = pl.tile.store(" + pick() + ", [0, 0], " + tensor_ + ")");
    tensor_ = o;
  }

  void statements(int depth, int count, int nesting) {
    for (int i = 0; i < count; ++i) statement(depth, nesting);
  }

  void statement(int depth, int nesting) {
    const int kind = draw(0, nesting < 2 ? 12 : 10);
    switch (kind) {
      case 0: line(depth, fresh16() + " = pl.tile.load(a, [0, 0], [16, 32])"); return;
      case 1: {
        std::string op = drawOf<std::string>({"add", "mul", "sub", "maximum"});
        std::string x = pick(), y = pick();
        line(depth, fresh16() + " = pl.tile." + op + "(" + x + ", " + y + ")");
        return;
      }
      case 2: {
        std::string op = drawOf<std::string>({"exp", "neg", "recip", "abs"});
        std::string x = pick();
        line(depth, fresh16() + " = pl.tile." + op + "(" + x + ")");
        return;
      }
      case 3: {
        std::string x = pick();
        line(depth, fresh16() + " = pl.tile.adds(" + x + ", 1.0)");
        return;
      }
      case 4: line(depth, fresh16() + " = pl.tile.full([16, 32], dtype=pl.FP32, value=0.5)"); return;
      case 5: {
        std::string x = pick();
        std::string row = drawOf<std::string>({"0", "8"});
        line(depth, fresh8() + " = pl.tile.slice(" + x + ", [8, 32], [" + row + ", 0])");
        return;
      }
      case 6: {
        if (visible(true).empty()) return statement(depth, nesting);
        std::string t = pick(), s = pick(true);
        std::string row = drawOf<std::string>({"0", "8"});
        line(depth, fresh16() + " = pl.tile.assemble(" + t + ", " + s + ", [" + row + ", 0])");
        return;
      }
      case 7:
      case 8: store(depth); return;
      case 9: {
        // A row reduction writes poison over its tmp (PT6): any visible tile, often one read later.
        std::string op = drawOf<std::string>({"row_sum", "row_max", "row_min"});
        std::string x = pick(), tmp = pick();
        line(depth, name("m") + " = pl.tile." + op + "(" + x + ", " + tmp + ")");
        return;
      }
      case 10: loop(depth, nesting); return;
      default: branch(depth, nesting); return;
    }
  }

  void loop(int depth, int nesting) {
    const int carries = draw(0, 3);
    std::vector<std::string> inits, args;
    for (int i = 0; i < carries; ++i) {
      inits.push_back(pick());
      args.push_back(name("c"));
    }
    std::string outer = tensor_, carried = name("oc");
    std::string bound = drawOf<std::string>({"0", "1", "2", "3", "n"});
    std::vector<std::string> binders = args, values = inits;
    binders.push_back(carried);
    values.push_back(outer);
    std::string head = "for " + name("i") + ", " + tuple(binders) + " in pl.range(" + bound +
                       ", init_values=" + tuple(values) + "):";
    line(depth, head);
    scopes_.push_back({});
    for (const std::string& a : args) scopes_.back().full.push_back(a);
    tensor_ = carried;
    statements(depth + 1, draw(1, 5), nesting + 1);
    std::vector<std::string> yielded;
    for (int i = 0; i < carries; ++i) yielded.push_back(pick());  // swaps and rotations arise here
    std::string innerTensor = tensor_;
    scopes_.pop_back();
    std::vector<std::string> results;
    for (int i = 0; i < carries; ++i) results.push_back(fresh16());
    std::string result = name("o");
    std::string y;
    for (const std::string& r : results) y += r + ", ";
    y += result + " = pl.yield_(";
    for (const std::string& v : yielded) y += v + ", ";
    y += innerTensor + ")";
    line(depth + 1, y);
    tensor_ = result;
  }

  void branch(int depth, int nesting) {
    const int results = draw(0, 3);
    line(depth, "if f:");
    std::vector<std::string> names;
    for (int i = 0; i < results; ++i) names.push_back(name("b"));
    std::string saved = tensor_;
    for (int arm = 0; arm < 2; ++arm) {
      if (arm == 1) line(depth, "else:");
      scopes_.push_back({});
      tensor_ = saved;
      statements(depth + 1, draw(1, 4), nesting + 1);
      std::vector<std::string> yielded;
      for (int i = 0; i < results; ++i) yielded.push_back(pick());
      scopes_.pop_back();
      if (results == 0) continue;
      std::string y;
      for (size_t i = 0; i < names.size(); ++i) y += (i ? ", " : "") + names[i];
      y += " = pl.yield_(";
      for (size_t i = 0; i < yielded.size(); ++i) y += (i ? ", " : "") + yielded[i];
      line(depth + 1, y + ")");
    }
    tensor_ = saved;  // stores inside an arm write GM; the name stays the outer one
    for (const std::string& n : names) scopes_.back().full.push_back(n);
  }
};

RC_GTEST_PROP(PlannerRandomPrograms, PlansAreSoundOrRejectedForAGenerationOverlap, ()) {
  const std::string text = KernelWriter().program();
  Program program;
  try {
    program = parseVerified(text, "random.py");
  } catch (const DiagnosticError& e) {
    RC_FAIL("the generator wrote an invalid program: " + std::string(e.what()) + "\n" + text);
  }
  for (Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
    Program planned;
    try {
      planned = lowerUpTo(program, contextFor(planner), "VerifyTileStorage");
    } catch (const DiagnosticError& e) {
      const std::string what = e.what();
      if (what.find("VerifyTileStorage [L9]") == std::string::npos)
        RC_FAIL(std::string(plannerName(planner)) + " rejected the kernel: " + what + "\n" + text);
      Program plannedAnyway = lowerUpTo(program, contextFor(planner), "PlanMemory");
      // MaterializeSemanticAliases legalizes every selected kernel's loops and branches: an L9
      // rejection may only remain on the Tile path (a loop left as it was, L11).
      if (plannedAnyway.functions[0].bufferIRSelected != std::optional<bool>(false))
        RC_FAIL(std::string(plannerName(planner)) + " rejected a selected kernel: " + what + "\n" + text);
      // How precise the rejection is: whether the plan it refused really reads clobbered bytes.
      bool clobbers = !oracle_test::StorageOracle(plannedAnyway.functions[0], 64).run().empty();
      RC_TAG(clobbers ? "rejected: generations (L9), clobber confirmed" : "rejected: generations (L9), conservative");
      continue;
    }
    std::vector<std::string> problems = oracle_test::StorageOracle(planned.functions[0], 64).run();
    if (!problems.empty())
      RC_FAIL(std::string(plannerName(planner)) + ": " + problems.front() + "\nplanned program:\n" +
              printProgram(planned));
    RC_TAG(*planned.functions[0].bufferIRSelected ? "accepted: Buffer path" : "accepted: Tile path");
  }
}

}  // namespace
}  // namespace ptodiff
