// The structural reducer's candidate transformations (spec/fuzz.md, "Reduction"): each one turns a
// program (and the case it runs under) into smaller programs. They work on any program file —
// Tile, planned Tile or Buffer stage, generated or hand-written — because they edit the IR, not a
// generator's choices. A candidate is only a proposal: the reducer prints, re-parses and verifies
// it before it is ever run, so a transformation may produce invalid programs (a replacement of the
// wrong type, a name moved out of its scope) and stays simple.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/IR.h"
#include "compiler/text/CaseFile.h"

namespace ptodiff::fuzz {

class InputFolder;

/// What the reducer shrinks: the program and the case it runs under (dropping a parameter drops its
/// case entry, which would otherwise name a parameter the kernel no longer has; shrinking a tensor
/// points its case entry at a cut .npy file in `inputs`, which lives as long as a state uses it).
struct ReduceState {
  Program program;
  CaseSpec spec;
  std::shared_ptr<InputFolder> inputs = nullptr;

  ReduceState clone() const { return ReduceState{program.clone(), spec, inputs}; }
};

/// The transformations in the order the reducer tries them: biggest and cheapest first.
enum class Transform : uint8_t {
  DropFunction,     // a function other than the kernel
  DropBlocks,       // a multi-block launch runs fewer blocks (one block's index becomes a constant)
  DeleteStatement,  // any statement; uses of what it bound become a same-typed live value, a loop's
                    // initial values, an operand, or (scalars) a literal
  InlineControl,    // an If becomes one of its arms; a For/While becomes one trip of its body
  DropCarry,        // one iter_arg of a For/While (its uses become the initial value)
  ShrinkShape,      // every shape halved on an axis at once (tiles, windows, offsets, tensors and
                    // their inputs), or the tensors of one shape alone, keeping alignment rules
  ShrinkValid,      // one constant valid extent halved (or 1) everywhere it is written
  ParamToConstant,  // a runtime scalar parameter becomes the case's value everywhere
  OpToFull,         // a Tile op becomes `pl.tile.full` of its result type
  SimplifyScalar,   // a scalar expression becomes one of its operands, a scalar name the literal 0
  DTypeToFp32,      // every FP16 (or BF16) in the program becomes FP32
  DropParam,        // a parameter nothing refers to (and its case entry)
};
std::span<const Transform> transformOrder();
/// "drop-function", "delete-statement", ... (progress lines, tests).
std::string_view transformName(Transform t);

struct Candidate {
  std::string what;  // one line for people: "delete-statement at 14:9 (x = tile.add)"
  ReduceState state;
};

/// Every candidate of `t` on `state`, in program order (pre-order: a compound statement before
/// the statements inside it). `state.program` must be verified (transformations read the types the
/// verifier filled in). The result is a function of the input only.
std::vector<Candidate> candidatesOf(Transform t, const ReduceState& state);

/// A program's size, compared lexicographically: the reducer keeps a candidate only when it is
/// strictly smaller, so the greedy loop always terminates.
struct ProgramSize {
  int64_t statements = 0;  // every statement, nested ones included (fuzz::countStatements)
  int64_t ops = 0;         // calls other than pl.tile.full / pl.const
  int64_t names = 0;       // name references, binders and parameters
  int64_t nodes = 0;       // expression nodes
  int64_t narrowFloats = 0;  // FP16/BF16 mentions in types and dtype arguments
  int64_t blocks = 0;        // the case's block count (measureState; 0 from measureProgram)
  int64_t elements = 0;      // tensor parameter elements, plus physical and valid elements of
                             // every tile/buffer value (verifier-inferred types)
  auto operator<=>(const ProgramSize&) const = default;
};
ProgramSize measureProgram(const Program& p);
/// measureProgram plus the case's block count: what the reducer compares.
ProgramSize measureState(const ReduceState& s);

/// Elements of every tensor parameter of every function (the summary's "tensor elements").
int64_t tensorElements(const Program& p);

}  // namespace ptodiff::fuzz
