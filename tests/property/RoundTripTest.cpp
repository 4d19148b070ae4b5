// Properties of the text format: the printer and parser are inverse on every syntactically valid
// program, and the parser fails cleanly on damaged text.
//
// For random programs p (GenTextProgram.h): parse(print(p)) is structurally equal to p, and
// printing the reparsed program gives the same text (the canonical form is a fixpoint).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "tests/property/GenTextProgram.h"

namespace ptodiff {
namespace {

RC_GTEST_PROP(TextRoundTrip, ParsePrintIsIdentity, ()) {
  std::shared_ptr<const Program> p = *testgen::genTextProgram();
  const std::string printed = printProgram(*p);
  auto source = std::make_shared<SourceFile>();
  source->name = "printed.py";
  source->text = printed;
  Program reparsed;
  try {
    reparsed = parseProgram(source);
  } catch (const DiagnosticError& e) {
    RC_FAIL("printed program does not parse: " + formatDiagnostic(e.diagnostic(), source.get()) +
            "\nprinted text:\n" + printed);
  }
  if (!structurallyEqual(*p, reparsed))
    RC_FAIL("parse(print(p)) differs from p at " + firstDifference(*p, reparsed) + "\nprinted text:\n" + printed);
  const std::string reprinted = printProgram(reparsed);
  if (reprinted != printed)
    RC_FAIL("printing is not a fixpoint\nfirst print:\n" + printed + "\nsecond print:\n" + reprinted);
}

/// Random edits of a printed program: delete, insert or duplicate characters and lines.
std::string mutate(std::string text) {
  static const std::string kAlphabet = "()[]{},:.=+-*/%<>!@#\"' \n\t\\abxyz0159_eEpl";
  for (int edits = *rc::gen::inRange(1, 6); edits > 0 && !text.empty(); --edits) {
    size_t at = *rc::gen::inRange<size_t>(0, text.size());
    switch (*rc::gen::inRange(0, 4)) {
      case 0: text.erase(at, 1); break;
      case 1: text.insert(at, 1, kAlphabet[*rc::gen::inRange<size_t>(0, kAlphabet.size())]); break;
      case 2: {  // duplicate the line holding `at`
        size_t begin = text.rfind('\n', at);
        begin = begin == std::string::npos ? 0 : begin + 1;
        size_t end = text.find('\n', at);
        end = end == std::string::npos ? text.size() : end + 1;
        text.insert(begin, text.substr(begin, end - begin));
        break;
      }
      default: text.insert(at, "    "); break;
    }
  }
  return text;
}

// Whatever text the parser accepts round-trips, and whatever it rejects is rejected with a
// located diagnostic, never another exception or a crash.
RC_GTEST_PROP(TextRoundTrip, MutatedTextFailsCleanlyOrRoundTrips, ()) {
  std::shared_ptr<const Program> p = *testgen::genTextProgram();
  const std::string text = mutate(printProgram(*p));
  Program parsed;
  try {
    parsed = parseProgramText(text, "mutated.py");
  } catch (const DiagnosticError& e) {
    RC_TAG("rejected");
    RC_ASSERT(e.diagnostic().loc.known());
    RC_ASSERT(!e.diagnostic().message.empty());
    return;
  }
  RC_TAG("accepted");
  const std::string printed = printProgram(parsed);
  Program reparsed = parseProgramText(printed, "reprinted.py");
  if (!structurallyEqual(parsed, reparsed))
    RC_FAIL("accepted text does not round-trip at " + firstDifference(parsed, reparsed) + "\ntext:\n" + text +
            "\nprinted:\n" + printed);
}

}  // namespace
}  // namespace ptodiff
