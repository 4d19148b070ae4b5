#include "fuzz/gen/ProgramGen.h"

#include <algorithm>
#include <mutex>
#include <ostream>

#include <rapidcheck/gen/Create.h>
#include <rapidcheck/gen/Exec.h>

#include "compiler/text/Printer.h"
#include "fuzz/gen/detail/KernelGenerator.h"

namespace ptodiff::fuzz {

GeneratedCase::GeneratedCase(const GeneratedCase& other)
    : program(other.program.clone()),
      scalarSets(other.scalarSets),
      inputSeed(other.inputSeed),
      tensorInits(other.tensorInits),
      blockNum(other.blockNum),
      features(other.features),
      inContract(other.inContract),
      sibling(other.sibling) {}

GeneratedCase& GeneratedCase::operator=(const GeneratedCase& other) {
  if (this != &other) *this = GeneratedCase(other);
  return *this;
}

rc::Gen<FeatureSet> genFeatureSet(const GenConfig& config) {
  if (config.features) return rc::gen::just(*config.features);
  return rc::gen::exec([percent = config.featurePercent] {
    detail::Choices choose;
    FeatureSet set;
    for (Feature f : allFeatures())
      if (choose.chance(percent)) set.insert(f);
    return set;
  });
}

namespace {

/// `kernel`, then with one chance in config.secondKernelEvery a second kernel of a third of the size
/// with one scalar set.
/// Call inside rc::gen::exec. The draw comes after the first kernel, so it leaves that kernel's
/// picks alone, and it shrinks toward no second kernel.
GeneratedCase generateKernels(const GenConfig& config, FeatureSet features, int size) {
  GeneratedCase out = detail::KernelGenerator(config, features, size).generate();
  if (config.secondKernelEvery <= 0 || detail::Choices().below(config.secondKernelEvery) != config.secondKernelEvery - 1)
    return out;
  // One scalar set: the first kernel already varies the runtime paths, the second adds the program
  // shape (a case of two kernels costs little more than one).
  GenConfig secondConfig = config;
  secondConfig.scalarSets = 1;
  GeneratedCase second = detail::KernelGenerator(secondConfig, features, size / 3, "kernel_b").generate();
  out.program.functions.push_back(std::move(second.program.functions.front()));
  out.sibling = GeneratedCase::Sibling{"kernel_b", std::move(second.scalarSets), std::move(second.tensorInits),
                                       second.blockNum, second.inContract};
  return out;
}

CaseScalar caseScalar(const ScalarValue& value) {
  CaseScalar s;
  switch (value.dtype) {
    case DType::BOOL:
      s.kind = CaseScalar::Kind::Bool;
      s.b = value.i != 0;
      break;
    case DType::FP32:
      s.kind = CaseScalar::Kind::Float;
      s.f = value.f;
      break;
    default:
      s.kind = CaseScalar::Kind::Int;
      s.i = value.i;
      break;
  }
  return s;
}

/// The spec running `function` on scalar set `set` (none: no scalars).
CaseSpec specFor(const std::string& function, const std::map<std::string, ScalarValue>* set, uint64_t inputSeed,
                 const std::map<std::string, TensorInit>& inits, int64_t blockNum) {
  CaseSpec spec;
  spec.function = function;
  spec.blockNum = blockNum;
  spec.seed = inputSeed;
  spec.tensors = inits;
  if (set)
    for (const auto& [name, value] : *set) spec.scalars[name] = caseScalar(value);
  return spec;
}

/// The specs running `function` on each of `sets` (one without scalars when there is none).
void appendSpecs(std::vector<CaseSpec>& out, const std::string& function,
                 const std::vector<std::map<std::string, ScalarValue>>& sets, uint64_t inputSeed,
                 const std::map<std::string, TensorInit>& inits, int64_t blockNum, bool inContract) {
  for (size_t set = 0; set < std::max<size_t>(sets.size(), 1); ++set) {
    CaseSpec spec = specFor(function, set < sets.size() ? &sets[set] : nullptr, inputSeed, inits, blockNum);
    if (!inContract) spec.expectBufferPath = false;
    out.push_back(std::move(spec));
  }
}

}  // namespace

rc::Gen<GeneratedCase> genCaseWith(FeatureSet features, const GenConfig& config) {
  return rc::gen::withSize([features, config](int size) {
    return rc::gen::exec([features, config, size] { return generateKernels(config, features, size); });
  });
}

rc::Gen<GeneratedCase> genCase(const GenConfig& config) {
  return rc::gen::withSize([config](int size) {
    return rc::gen::exec([config, size] {
      // The subset is the first pick: shrinking it switches features off and regenerates.
      const FeatureSet features = *genFeatureSet(config);
      return generateKernels(config, features, size);
    });
  });
}

GeneratedCase generateCase(uint64_t seed, int size, const GenConfig& config) {
  // RapidCheck binds the exec handler in a process-wide static (rc::detail::ImplicitParam), so
  // two threads generating at once would record each other's picks.
  static std::mutex generation;
  std::lock_guard<std::mutex> lock(generation);
  return genCase(config)(rc::Random(seed), std::clamp(size, 0, rc::kNominalSize)).value();
}

uint64_t caseSeed(uint64_t campaignSeed, uint64_t index) {
  // splitmix64 of the campaign seed advanced `index + 1` steps: independent, well-mixed seeds.
  uint64_t z = campaignSeed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

CaseSpec caseSpecFor(const GeneratedCase& c, size_t set) {
  return specFor("kernel", &c.scalarSets.at(set), c.inputSeed, c.tensorInits, c.blockNum);
}

std::vector<CaseSpec> caseSpecsOf(const GeneratedCase& c) {
  std::vector<CaseSpec> specs;
  appendSpecs(specs, "kernel", c.scalarSets, c.inputSeed, c.tensorInits, c.blockNum, c.inContract);
  if (c.sibling)
    appendSpecs(specs, c.sibling->function, c.sibling->scalarSets, c.inputSeed, c.sibling->tensorInits,
                c.sibling->blockNum, c.sibling->inContract);
  return specs;
}

namespace {

void showScalarSets(const std::vector<std::map<std::string, ScalarValue>>& sets, std::ostream& os) {
  for (size_t i = 0; i < sets.size(); ++i) {
    os << "scalar set " << i << ":";
    for (const auto& [name, v] : sets[i]) {
      os << " " << name << "=";
      if (v.dtype == DType::FP32) os << v.f;
      else if (v.dtype == DType::BOOL) os << (v.i ? "True" : "False");
      else os << v.i;
    }
    os << "\n";
  }
}

}  // namespace

void showValue(const GeneratedCase& c, std::ostream& os) {
  os << "features: " << c.features.toString() << (c.inContract ? "" : " (out of contract)") << "\n";
  os << "block_num: " << c.blockNum << ", input seed: " << c.inputSeed << "\n";
  showScalarSets(c.scalarSets, os);
  if (c.sibling) {
    os << "second kernel " << c.sibling->function << (c.sibling->inContract ? "" : " (out of contract)")
       << ", block_num: " << c.sibling->blockNum << "\n";
    showScalarSets(c.sibling->scalarSets, os);
  }
  os << printProgram(c.program);
}

}  // namespace ptodiff::fuzz
