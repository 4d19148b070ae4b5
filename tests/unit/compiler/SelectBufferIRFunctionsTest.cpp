// SelectBufferIRFunctions: the whole-kernel selection table (contract-rules.md S, V, W, M rows).
// Each row is one kernel: inside the contract it is selected; one feature outside keeps the whole
// kernel on Tile with a reason naming the rule. Selection runs after InitMemRef (the pipeline up to
// SelectBufferIRFunctions, verify-each on).
#include <gtest/gtest.h>

#include "compiler/passes/SelectBufferIRFunctions.h"
#include "compiler/text/Printer.h"
#include "tests/unit/compiler/PassTestSupport.h"

namespace ptodiff {
namespace {

using namespace testsupport;

constexpr const char* kVec = "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]";

struct Row {
  std::string name;
  std::string params;
  std::string body;
  std::string rule;  // empty: selected; else a rule among the reasons
  std::string result = "pl.Tensor[[16, 32], pl.FP32]";
};

void PrintTo(const Row& r, std::ostream* os) { *os << r.name; }

/// `x = load; y = OP(x...); store y` over one dtype.
Row elementwise(const std::string& name, DType dt, const std::string& expr, const std::string& rule) {
  const std::string d = "pl." + std::string(dtypeName(dt));
  const std::string t = "pl.Tensor[[16, 32], " + d + "]";
  return Row{name, "a: " + t + ", out: pl.Out[" + t + "]",
             "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
             "        y = " + expr + "\n"
             "        r = pl.tile.store(y, [0, 0], out)\n"
             "        return r\n",
             rule, t};
}

std::vector<Row> rows() {
  std::vector<Row> out;
  // ---- S9/S14: GM load/store of FP16, BF16, FP32, INT32 ----
  for (DType dt : {DType::FP16, DType::BF16, DType::FP32, DType::INT32})
    out.push_back(elementwise("S14_transfer_" + std::string(dtypeName(dt)), dt, "pl.tile.reshape(x, [16, 32])", ""));
  // ---- S9: add, mul on FP16, FP32, INT32 ----
  for (DType dt : {DType::FP16, DType::FP32, DType::INT32}) {
    out.push_back(elementwise("S9_add_" + std::string(dtypeName(dt)), dt, "pl.tile.add(x, x)", ""));
    out.push_back(elementwise("S9_mul_" + std::string(dtypeName(dt)), dt, "pl.tile.mul(x, x)", ""));
  }
  // ---- S9: the FP32-only rows ----
  for (std::string op : {"sub", "div", "maximum", "minimum"})
    out.push_back(elementwise("S9_" + op + "_FP32", DType::FP32, "pl.tile." + op + "(x, x)", ""));
  for (std::string op : {"abs", "exp", "sqrt", "neg", "relu", "log", "recip"})
    out.push_back(elementwise("S9_" + op + "_FP32", DType::FP32, "pl.tile." + op + "(x)", ""));
  for (std::string op : {"adds", "subs", "muls", "divs", "maximums", "minimums"})
    out.push_back(elementwise("S9_" + op + "_FP32", DType::FP32, "pl.tile." + op + "(x, 2.0)", ""));
  out.push_back(elementwise("S9_lrelu_FP32", DType::FP32, "pl.tile.lrelu(x, 0.1)", ""));
  // ---- outside the table ----
  out.push_back(elementwise("S9_sub_FP16_stays_Tile", DType::FP16, "pl.tile.sub(x, x)", "S9"));
  out.push_back(elementwise("S9_exp_FP16_stays_Tile", DType::FP16, "pl.tile.exp(x)", "S9"));
  out.push_back(elementwise("S9_adds_INT32_stays_Tile", DType::INT32, "pl.tile.adds(x, pl.const(1, pl.INT32))", "S9"));
  out.push_back(Row{"S12_full_then_store", "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                    "        y = pl.tile.full([16, 32], dtype=pl.FP32, value=1.5)\n"
                    "        r = pl.tile.store(y, [0, 0], out)\n        return r\n",
                    ""});
  // BF16 is transfer-only (the verifier already rejects BF16 add); a BF16 full stays on Tile.
  out.push_back(Row{"S10_full_BF16_stays_Tile", "out: pl.Out[pl.Tensor[[16, 32], pl.BF16]]",
                    "        y = pl.tile.full([16, 32], dtype=pl.BF16, value=1.5)\n"
                    "        r = pl.tile.store(y, [0, 0], out)\n        return r\n",
                    "S10", "pl.Tensor[[16, 32], pl.BF16]"});
  out.push_back(Row{"S14_INT8_Vec_load_stays_Tile", "a: pl.Tensor[[16, 32], pl.INT8], out: pl.Out[pl.Tensor[[16, 32], pl.INT8]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        r = pl.tile.store(x, [0, 0], out)\n        return r\n",
                    "S14", "pl.Tensor[[16, 32], pl.INT8]"});
  // ---- S8/V3: matching valid extents ----
  out.push_back(Row{"S8_static_partial_valid_matching", kVec,
                    "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32])\n"
                    "        y = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32])\n"
                    "        z = pl.tile.add(x, y)\n        r = pl.tile.store(z, [0, 0], out)\n        return r\n",
                    ""});
  out.push_back(Row{"S8_mismatched_valid_stays_Tile", kVec,
                    "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32])\n"
                    "        y = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        z = pl.tile.add(x, y)\n        r = pl.tile.store(z, [0, 0], out)\n        return r\n",
                    "S8"});
  out.push_back(Row{"V1_runtime_valid_same_symbol", std::string(kVec) + ", n: pl.Scalar[pl.INDEX]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n, 32])\n"
                    "        y = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n, 32])\n"
                    "        z = pl.tile.mul(x, y)\n        r = pl.tile.store(z, [0, 0], out)\n        return r\n",
                    ""});
  out.push_back(Row{"V3_runtime_valid_expressions_prove_nothing", std::string(kVec) + ", n: pl.Scalar[pl.INDEX]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n + 1, 32])\n"
                    "        y = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n + 1, 32])\n"
                    "        z = pl.tile.mul(x, y)\n        r = pl.tile.store(z, [0, 0], out)\n        return r\n",
                    "V3"});
  out.push_back(Row{"V1_set_validshape_runtime", std::string(kVec) + ", n: pl.Scalar[pl.INDEX]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        v = pl.tile.set_validshape(x, n, 32)\n"
                    "        y = pl.tile.exp(v)\n        r = pl.tile.store(y, [0, 0], out)\n        return r\n",
                    ""});
  out.push_back(Row{"V4_older_version_used_after_setter", std::string(kVec) + ", n: pl.Scalar[pl.INDEX]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        v = pl.tile.set_validshape(x, n, 32)\n"
                    "        y = pl.tile.exp(x)\n        r = pl.tile.store(y, [0, 0], out)\n"
                    "        r2 = pl.tile.store(v, [0, 0], r)\n        return r2\n",
                    "V4"});
  out.push_back(Row{"V5_setter_on_a_window", std::string(kVec) + ", n: pl.Scalar[pl.INDEX]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        s = pl.tile.slice(x, [8, 32], [0, 0])\n"
                    "        v = pl.tile.set_validshape(s, n, 32)\n"
                    "        r = pl.tile.store(v, [0, 0], out)\n        return r\n",
                    "V5"});
  out.push_back(Row{"V5_runtime_valid_inside_a_loop", std::string(kVec) + ", n: pl.Scalar[pl.INDEX]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n, 32])\n"
                    "        for i, (o,) in pl.range(2, init_values=(out,)):\n"
                    "            y = pl.tile.exp(x)\n"
                    "            o1 = pl.tile.store(y, [0, 0], o)\n"
                    "            r = pl.yield_(o1)\n"
                    "        return r\n",
                    "V5"});
  out.push_back(Row{"V5_slice_with_runtime_valid", std::string(kVec) + ", n: pl.Scalar[pl.INDEX]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        s = pl.tile.slice(x, [16, 32], [0, 0], valid_shape=[n, 32])\n"
                    "        r = pl.tile.store(s, [0, 0], out)\n        return r\n",
                    "V5"});
  out.push_back(Row{"V2_unbound_tile_result", kVec,
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        pl.tile.exp(x)\n        r = pl.tile.store(x, [0, 0], out)\n        return r\n",
                    "V2"});
  // ---- windows ----
  out.push_back(Row{"W1_static_and_nested_slices", "a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [32, 64])\n"
                    "        s = pl.tile.slice(x, [16, 32], [8, 32])\n"
                    "        t = pl.tile.slice(s, [8, 16], [4, 8])\n"
                    "        y = pl.tile.adds(t, 1.0)\n        r = pl.tile.store(y, [0, 0], out)\n        return r\n",
                    "", "pl.Tensor[[8, 16], pl.FP32]"});
  out.push_back(Row{"W16_runtime_column_offset_proven_aligned",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        b = pl.tile.get_block_idx()\n"
                    "        s = pl.tile.slice(x, [16, 16], [0, b * 8])\n"
                    "        r = pl.tile.store(s, [0, 0], out)\n        return r\n",
                    "", "pl.Tensor[[16, 16], pl.FP32]"});
  out.push_back(Row{"W16_induction_variable_offset_proven_aligned",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        for c, (o,) in pl.range(0, 48, 16, init_values=(out,)):\n"
                    "            s = pl.tile.slice(x, [16, 16], [0, c])\n"
                    "            o1 = pl.tile.store(s, [c, 0], o)\n"
                    "            r = pl.yield_(o1)\n"
                    "        return r\n",
                    "", "pl.Tensor[[64, 16], pl.FP32]"});
  out.push_back(Row{"W16_product_of_two_even_terms_proven_aligned",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        b = pl.tile.get_block_idx()\n"
                    "        s = pl.tile.slice(x, [16, 16], [0, (b * 2) * (b * 4)])\n"
                    "        r = pl.tile.store(s, [0, 0], out)\n        return r\n",
                    "", "pl.Tensor[[16, 16], pl.FP32]"});
  out.push_back(Row{"W16_induction_variable_with_an_odd_step",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        for c, (o,) in pl.range(0, 48, 12, init_values=(out,)):\n"
                    "            s = pl.tile.slice(x, [16, 16], [0, c])\n"
                    "            o1 = pl.tile.store(s, [c, 0], o)\n"
                    "            r = pl.yield_(o1)\n"
                    "        return r\n",
                    "W16", "pl.Tensor[[64, 16], pl.FP32]"});
  out.push_back(Row{"W16_induction_variable_with_an_unaligned_start",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        for c, (o,) in pl.range(4, 52, 8, init_values=(out,)):\n"
                    "            s = pl.tile.slice(x, [16, 16], [0, c])\n"
                    "            o1 = pl.tile.store(s, [0, 0], o)\n"
                    "            r = pl.yield_(o1)\n"
                    "        return r\n",
                    "W16", "pl.Tensor[[64, 16], pl.FP32]"});
  out.push_back(Row{"W16_induction_variable_with_a_runtime_start",
                    "a: pl.Tensor[[16, 64], pl.FP32], t: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        for c, (o,) in pl.range(t, 48, 16, init_values=(out,)):\n"
                    "            s = pl.tile.slice(x, [16, 16], [0, c])\n"
                    "            o1 = pl.tile.store(s, [0, 0], o)\n"
                    "            r = pl.yield_(o1)\n"
                    "        return r\n",
                    "W16", "pl.Tensor[[64, 16], pl.FP32]"});
  out.push_back(Row{"W16_scaled_while_counter_proven_aligned",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        for (o, k) in pl.while_(init_values=(out, 0)):\n"
                    "            pl.cond(k < 3)\n"
                    "            s = pl.tile.slice(x, [16, 16], [0, k * 8])\n"
                    "            o1 = pl.tile.store(s, [k * 16, 0], o)\n"
                    "            r, k1 = pl.yield_(o1, k + 1)\n"
                    "        return r\n",
                    "", "pl.Tensor[[64, 16], pl.FP32]"});
  out.push_back(Row{"W16_while_counter_unproven",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        for (o, k) in pl.while_(init_values=(out, 0)):\n"
                    "            pl.cond(k < 3)\n"
                    "            s = pl.tile.slice(x, [16, 16], [0, k * 4])\n"
                    "            o1 = pl.tile.store(s, [k * 16, 0], o)\n"
                    "            r, k1 = pl.yield_(o1, k + 1)\n"
                    "        return r\n",
                    "W16", "pl.Tensor[[64, 16], pl.FP32]"});
  out.push_back(Row{"W16_aligned_induction_variable_minus_an_unaligned_literal",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        for c, (o,) in pl.range(8, 48, 16, init_values=(out,)):\n"
                    "            s = pl.tile.slice(x, [16, 16], [0, c - 4])\n"
                    "            o1 = pl.tile.store(s, [0, 0], o)\n"
                    "            r = pl.yield_(o1)\n"
                    "        return r\n",
                    "W16", "pl.Tensor[[64, 16], pl.FP32]"});
  out.push_back(Row{"W16_unprovable_column_offset",
                    "a: pl.Tensor[[16, 64], pl.FP32], c: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        s = pl.tile.slice(x, [16, 16], [0, c])\n"
                    "        r = pl.tile.store(s, [0, 0], out)\n        return r\n",
                    "W16", "pl.Tensor[[16, 16], pl.FP32]"});
  out.push_back(Row{"W16_misaligned_literal_column_offset",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        s = pl.tile.slice(x, [16, 16], [0, 4])\n"
                    "        r = pl.tile.store(s, [0, 0], out)\n        return r\n",
                    "W16", "pl.Tensor[[16, 16], pl.FP32]"});
  out.push_back(Row{"S6_window_rows_under_32_bytes",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 4], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        s = pl.tile.slice(x, [16, 4], [0, 8])\n"
                    "        r = pl.tile.store(s, [0, 0], out)\n        return r\n",
                    "S6", "pl.Tensor[[16, 4], pl.FP32]"});
  out.push_back(Row{"W7_assemble_with_matching_pitch",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        s = pl.tile.slice(x, [16, 32], [0, 32])\n"
                    "        c = pl.tile.create([16, 64], dtype=pl.FP32)\n"
                    "        y = pl.tile.assemble(c, s, [0, 0])\n"
                    "        r = pl.tile.store(y, [0, 0], out)\n        return r\n",
                    "", "pl.Tensor[[16, 64], pl.FP32]"});
  out.push_back(Row{"W7_assemble_pitch_mismatch",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        c = pl.tile.create([16, 64], dtype=pl.FP32)\n"
                    "        y = pl.tile.assemble(c, x, [0, 32])\n"
                    "        r = pl.tile.store(y, [0, 0], out)\n        return r\n",
                    "W7", "pl.Tensor[[16, 64], pl.FP32]"});
  out.push_back(Row{"W7_assemble_into_a_window",
                    "a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 64])\n"
                    "        w = pl.tile.slice(x, [16, 32], [0, 0])\n"
                    "        p = pl.tile.slice(x, [8, 32], [8, 32])\n"
                    "        y = pl.tile.assemble(w, p, [0, 0])\n"
                    "        r = pl.tile.store(y, [0, 0], out)\n        return r\n",
                    "W7"});
  out.push_back(Row{"S19_relabel_of_a_window", "a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [32, 32])\n"
                    "        s = pl.tile.slice(x, [16, 32], [16, 0])\n"
                    "        t = pl.tile.reshape(s, [32, 16])\n"
                    "        r = pl.tile.store(t, [0, 0], out)\n        return r\n",
                    "S19", "pl.Tensor[[32, 16], pl.FP32]"});
  out.push_back(Row{"S20_slice_of_a_relabel", "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        t = pl.tile.reshape(x, [32, 16])\n"
                    "        s = pl.tile.slice(t, [16, 16], [16, 0])\n"
                    "        r = pl.tile.store(s, [0, 0], out)\n        return r\n",
                    "S20", "pl.Tensor[[16, 16], pl.FP32]"});
  out.push_back(Row{"S19_reduction", "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        s = pl.tile.col_max(x)\n"
                    "        r = pl.tile.store(s, [0, 0], out)\n        return r\n",
                    "S19", "pl.Tensor[[1, 32], pl.FP32]"});
  // ---- control flow (S16, S17, L1, L5, B1, B10) ----
  out.push_back(Row{"S16_loop_with_scalar_carry_and_tile_body", std::string(kVec) + ", n: pl.Scalar[pl.INDEX]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        for i, (o, k) in pl.range(0, n, 2, init_values=(out, 0)):\n"
                    "            y = pl.tile.exp(x)\n"
                    "            o1 = pl.tile.store(y, [0, 0], o)\n"
                    "            r, k1 = pl.yield_(o1, k + 1)\n"
                    "        return r\n",
                    ""});
  out.push_back(Row{"S16_while_and_if_without_tile_results", std::string(kVec) + ", f: pl.Scalar[pl.BOOL]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        for (k,) in pl.while_(init_values=(0,)):\n"
                    "            pl.cond(k < 2)\n"
                    "            k1 = pl.yield_(k + 1)\n"
                    "        if f:\n"
                    "            y = pl.tile.exp(x)\n"
                    "            o = pl.tile.store(y, [0, 0], out)\n"
                    "        r = pl.tile.store(x, [0, 0], out)\n        return r\n",
                    ""});
  out.push_back(Row{"S17_runtime_step", std::string(kVec) + ", s: pl.Scalar[pl.INDEX]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        for i in pl.range(0, 4, s):\n"
                    "            o = pl.tile.store(x, [0, 0], out)\n"
                    "        r = pl.tile.store(x, [0, 0], out)\n        return r\n",
                    "S17"});
  out.push_back(Row{"S17_negative_step", kVec,
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        for i in pl.range(4, 0, -1):\n"
                    "            o = pl.tile.store(x, [0, 0], out)\n"
                    "        r = pl.tile.store(x, [0, 0], out)\n        return r\n",
                    "S17"});
  // L1, B1, S16: MaterializeSemanticAliases gives Vec carries and branch results one storage.
  out.push_back(Row{"L1_tile_carry_selected_through_MaterializeSemanticAliases", kVec,
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        for i, (t,) in pl.range(2, init_values=(x,)):\n"
                    "            t1 = pl.tile.exp(t)\n"
                    "            t2 = pl.yield_(t1)\n"
                    "        r = pl.tile.store(t2, [0, 0], out)\n        return r\n",
                    ""});
  out.push_back(Row{"B1_tile_branch_result_selected_through_MaterializeSemanticAliases", std::string(kVec) + ", f: pl.Scalar[pl.BOOL]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        if f:\n"
                    "            y = pl.tile.exp(x)\n"
                    "            z = pl.yield_(y)\n"
                    "        else:\n"
                    "            z = pl.yield_(x)\n"
                    "        r = pl.tile.store(z, [0, 0], out)\n        return r\n",
                    ""});
  // L2: the entry copy of a partially valid window holds only its valid region on the Buffer path (no
  // whole-tile copy there), which an assemble writing the carry's whole window would read: such a
  // kernel stays on Tile, where the copy is whole (6-minute campaign of 2026-12-02, seed 30). Stored
  // only, the lanes are never read and the kernel is selected.
  out.push_back(Row{"L2_partially_valid_carry_copy_read_by_assemble_stays_Tile", kVec,
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        w = pl.tile.slice(x, [8, 32], [0, 0], valid_shape=[2, 8])\n"
                    "        for i, (t,) in pl.range(2, init_values=(w,)):\n"
                    "            t2 = pl.yield_(t)\n"
                    "        y = pl.tile.assemble(x, t2, [0, 0])\n"
                    "        r = pl.tile.store(y, [0, 0], out)\n        return r\n",
                    "L2"});
  out.push_back(Row{"L2_partially_valid_carry_copy_only_stored_selected", kVec,
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        w = pl.tile.slice(x, [8, 32], [0, 0], valid_shape=[2, 8])\n"
                    "        for i, (t,) in pl.range(2, init_values=(w,)):\n"
                    "            t2 = pl.yield_(t)\n"
                    "        r = pl.tile.store(t2, [0, 0], out)\n        return r\n",
                    ""});
  out.push_back(Row{"B10_branch_tensor_result_of_two_parameters",
                    std::string(kVec) + ", out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]], f: pl.Scalar[pl.BOOL]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        if f:\n"
                    "            o = pl.yield_(out)\n"
                    "        else:\n"
                    "            o = pl.yield_(out2)\n"
                    "        r = pl.tile.store(x, [0, 0], o)\n        return r\n",
                    "B10"});
  // The verifier already rejects a carry yielded as another parameter; a carry starting from a
  // branch result of two parameters still does not keep referring to one (L5 after B10).
  out.push_back(Row{"L5_tensor_carry_of_two_parameters",
                    std::string(kVec) + ", out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]], f: pl.Scalar[pl.BOOL]",
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        if f:\n"
                    "            o = pl.yield_(out)\n"
                    "        else:\n"
                    "            o = pl.yield_(out2)\n"
                    "        for i, (c,) in pl.range(2, init_values=(o,)):\n"
                    "            c1 = pl.tile.store(x, [0, 0], c)\n"
                    "            r = pl.yield_(c1)\n"
                    "        return r\n",
                    "L5"});
  // ---- cube (M1-M6) ----
  for (std::string dt : {"FP16", "BF16", "FP32"}) {
    const std::string box = dt == "FP32" ? "16" : "16";
    out.push_back(Row{"M1_cube_path_" + dt,
                      "a: pl.Tensor[[16, 32], pl." + dt + "], b: pl.Tensor[[32, 16], pl." + dt +
                          "], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                      "        am = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
                      "        bm = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)\n"
                      "        l = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
                      "        rr = pl.tile.extract(bm, 0, 0, [32, 16], target_memory=pl.Mem.Right)\n"
                      "        c = pl.tile.matmul(l, rr)\n"
                      "        c2 = pl.tile.matmul_acc(c, l, rr, init_cond=False)\n"
                      "        r = pl.tile.store(c2, [0, 0], out)\n        return r\n",
                      "", "pl.Tensor[[16, 16], pl.FP32]"});
  }
  out.push_back(Row{"M1_transposed_operand",
                    "a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                    "        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
                    "        bm = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
                    "        bt = pl.tile.transpose_view(bm)\n"
                    "        l = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
                    "        rr = pl.tile.move(bt, target_memory=pl.Mem.Right)\n"
                    "        c = pl.tile.matmul(l, rr)\n"
                    "        r = pl.tile.store(c, [0, 0], out)\n        return r\n",
                    "", "pl.Tensor[[16, 16], pl.FP32]"});
  out.push_back(Row{"M6_accumulator_read_after_matmul_acc",
                    "a: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]",
                    "        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
                    "        l = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
                    "        rr = pl.tile.move(am, target_memory=pl.Mem.Right)\n"
                    "        c = pl.tile.matmul(l, rr)\n"
                    "        c2 = pl.tile.matmul_acc(c, l, rr)\n"
                    "        o = pl.tile.store(c2, [0, 0], out)\n"
                    "        r = pl.tile.store(c, [16, 0], o)\n        return r\n",
                    "M6", "pl.Tensor[[32, 16], pl.FP32]"});
  out.push_back(Row{"M1_acc_to_vec_move_is_not_the_cube_path",
                    "a: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                    "        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
                    "        l = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
                    "        rr = pl.tile.move(am, target_memory=pl.Mem.Right)\n"
                    "        c = pl.tile.matmul(l, rr)\n"
                    "        v = pl.tile.move(c, target_memory=pl.Mem.Vec)\n"
                    "        r = pl.tile.store(v, [0, 0], out)\n        return r\n",
                    "M1", "pl.Tensor[[16, 16], pl.FP32]"});
  out.push_back(Row{"M1_vec_extract_is_not_the_cube_path", kVec,
                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                    "        e = pl.tile.extract(x, 0, 0, [16, 32], target_memory=pl.Mem.Vec)\n"
                    "        r = pl.tile.store(e, [0, 0], out)\n        return r\n",
                    "M1"});
  out.push_back(Row{"M2_INT32_Mat_tile_is_not_a_cube_operand",
                    "a: pl.Tensor[[16, 16], pl.INT32], out: pl.Out[pl.Tensor[[16, 16], pl.INT32]]",
                    "        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
                    "        x = pl.tile.load(a, [0, 0], [16, 16])\n"
                    "        r = pl.tile.store(x, [0, 0], out)\n        return r\n",
                    "M2", "pl.Tensor[[16, 16], pl.INT32]"});
  out.push_back(Row{"M5_vec_transpose_view_is_not_the_cube_path",
                    "a: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]",
                    "        x = pl.tile.load(a, [0, 0], [16, 8])\n"
                    "        t = pl.tile.transpose_view(x)\n"
                    "        r = pl.tile.store(t, [0, 0], out)\n        return r\n",
                    "M5", "pl.Tensor[[8, 16], pl.FP32]"});
  out.push_back(Row{"S22_block_queries", "a: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]",
                    "        b = pl.tile.get_block_idx()\n"
                    "        x = pl.tile.load(a, [b * 16, 0], [16, 32])\n"
                    "        r = pl.tile.store(x, [b * 16, 0], out)\n        return r\n",
                    "", "pl.Tensor[[64, 32], pl.FP32]"});
  return out;
}

SelectionVerdict verdictOf(const Row& row, const PassContext& context) {
  Program p = parseVerified(kernelProgram(row.params, row.body, row.result), row.name + ".py");
  Program planned = lowerUpTo(p, context, "InitMemRef");
  return decideBufferIRSelection(planned.functions[0], context);
}

class SelectTable : public testing::TestWithParam<Row> {};

TEST_P(SelectTable, SelectsKernelsInsideTheContractAndKeepsTheRestOnTile) {
  const Row& row = GetParam();
  SelectionVerdict v = verdictOf(row, contextFor());
  if (row.rule.empty()) {
    EXPECT_TRUE(v.selected) << describeReasons(v);
    EXPECT_TRUE(v.reasons.empty());
  } else {
    EXPECT_FALSE(v.selected);
    bool named = std::any_of(v.reasons.begin(), v.reasons.end(), [&](const SelectionReason& r) { return r.rule == row.rule; });
    EXPECT_TRUE(named) << "expected a reason citing " << row.rule << ", got:\n" << describeReasons(v);
  }
}

// C2/C8 from selection's side: a kernel selected for the Buffer path lowers under every planner.
// Selection decides on the same proofs the lowering needs (W16's alignment among them), so a
// disagreement is a compile-error on a kernel the contract promises to lower (fuzz campaign seed
// 201: an offset that is a loop's induction variable, tests/fuzz-regressions/
// fill_loop_window_offset_is_the_induction_variable).
class SelectedKernel : public testing::TestWithParam<Row> {};

TEST_P(SelectedKernel, LowersUnderEveryPlanner) {
  const Row& row = GetParam();
  Program p = parseVerified(kernelProgram(row.params, row.body, row.result), row.name + ".py");
  for (Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
    std::string failure;
    try {
      const Program lowered = lowerUpTo(p, contextFor(planner), "");
      EXPECT_EQ(lowered.findFunction("kernel")->stage, FunctionStage::Buffer) << plannerName(planner);
    } catch (const DiagnosticError& e) {
      failure = e.what();
    }
    EXPECT_EQ(failure, "") << plannerName(planner);
  }
}

std::string rowName(const testing::TestParamInfo<Row>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(SelectTable, SelectTable, testing::ValuesIn(rows()), rowName);

std::vector<Row> selectedRows() {
  std::vector<Row> out;
  for (Row& r : rows())
    if (r.rule.empty()) out.push_back(std::move(r));
  return out;
}

INSTANTIATE_TEST_SUITE_P(SelectTable, SelectedKernel, testing::ValuesIn(selectedRows()), rowName);

// ---- options, targets and the recorded verdict ----

const Row& firstSelectedRow() {
  static const std::vector<Row> all = rows();
  return *std::find_if(all.begin(), all.end(), [](const Row& r) { return r.rule.empty(); });
}

TEST(SelectBufferIR, EnableBufferIRFalseKeepsEveryKernelOnTileS1) {
  SelectionVerdict v = verdictOf(firstSelectedRow(), contextFor(Planner::PYPTO, targetA2A3(), false));
  EXPECT_FALSE(v.selected);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.reasons[0].rule, "S1");
  EXPECT_EQ(v.reasons[0].message, "enable_buffer_ir is False: every kernel stays on the Tile pipeline");
}

TEST(SelectBufferIR, TargetA5KeepsEveryKernelOnTileS21) {
  SelectionVerdict v = verdictOf(firstSelectedRow(), contextFor(Planner::PYPTO, targetA5()));
  EXPECT_FALSE(v.selected);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.reasons[0].rule, "S21");
  EXPECT_EQ(v.reasons[0].message, "target a5: every kernel stays on Tile until the A5 Buffer rollout is accepted");
}

// S10: BF16 arithmetic does not even reach selection: the verifier rejects it.
TEST(SelectBufferIR, BF16ArithmeticIsRejectedBeforeSelectionS10) {
  Program p = parseProgramText(kernelProgram("a: pl.Tensor[[16, 32], pl.BF16], out: pl.Out[pl.Tensor[[16, 32], pl.BF16]]",
                                             "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                             "        y = pl.tile.add(x, x)\n"
                                             "        r = pl.tile.store(y, [0, 0], out)\n        return r\n",
                                             "pl.Tensor[[16, 32], pl.BF16]"));
  std::vector<Diagnostic> d = verifyProgram(p);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].message, "tile.add: operand lhs has dtype BF16; expected FP16, FP32 or INT32");
}

TEST(SelectBufferIR, ReasonsNameTheRuleTheLineAndWhatIsWrong) {
  Row row = elementwise("r", DType::FP16, "pl.tile.exp(x)", "S9");
  SelectionVerdict v = verdictOf(row, contextFor());
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(describeReasons(v), "S9 (line 6): tile.exp on FP16 is outside the op x dtype table\n");
}

TEST(SelectBufferIR, EveryFeatureOutsideTheContractIsReportedOnceInSourceOrder) {
  Row row{"two", std::string(kVec) + ", f: pl.Scalar[pl.BOOL]",
          "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
          "        s = pl.tile.col_sum(x)\n"
          "        for i in pl.range(4, 0, -1):\n"
          "            o = pl.tile.store(x, [0, 0], out)\n"
          "        r = pl.tile.store(x, [0, 0], out)\n        return r\n",
          "S19"};
  SelectionVerdict v = verdictOf(row, contextFor());
  ASSERT_EQ(v.reasons.size(), 2u) << describeReasons(v);
  EXPECT_EQ(v.reasons[0].rule, "S19");
  EXPECT_EQ(v.reasons[1].rule, "S17");
  EXPECT_EQ(v.reasons[1].message,
            "for loop step is not a positive integer literal; the Buffer path needs a provably positive constant "
            "step");
}

// ---- kernels LowerTileToBuffer would reject stay on Tile (fuzz campaign seed 1) ----

std::string reasonsOf(const std::string& params, const std::string& body) {
  return describeReasons(verdictOf(Row{"k", params, body, "", "pl.Tensor[[16, 32], pl.FP32]"}, contextFor()));
}

// S11: no scalar cast exists in the IR, so an INDEX scalar cannot become an FP32 operand (cases 5, 240).
TEST(SelectBufferIR, AnIndexScalarOnAnFP32TileStaysOnTileS11) {
  EXPECT_EQ(reasonsOf(std::string(kVec) + ", n: pl.Scalar[pl.INDEX]",
                      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                      "        y = pl.tile.adds(x, n)\n"
                      "        r = pl.tile.store(y, [0, 0], out)\n        return r\n"),
            "S11 (line 6): tile.adds: the scalar n of type INDEX needs a conversion to FP32 that the Buffer IR cannot "
            "state\n");
  // An FP32 scalar and literals need no conversion the IR lacks.
  EXPECT_EQ(reasonsOf(std::string(kVec) + ", s: pl.Scalar[pl.FP32]",
                      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                      "        y = pl.tile.lrelu(x, s)\n"
                      "        z = pl.tile.minimums(y, 3)\n"
                      "        r = pl.tile.store(z, [0, 0], out)\n        return r\n"),
            "");
}

// V5/V6: a setter makes its storage's valid state dynamic even with constant extents (case 29).
TEST(SelectBufferIR, StorageUpdatedByASetterStaysInStraightLineCodeV5) {
  EXPECT_EQ(reasonsOf(kVec,
                      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                      "        v = pl.tile.set_validshape(x, 8, 32)\n"
                      "        for i, (o,) in pl.range(2, init_values=(out,)):\n"
                      "            y = pl.tile.exp(v)\n"
                      "            o1 = pl.tile.store(y, [0, 0], o)\n"
                      "            r = pl.yield_(o1)\n"
                      "        return r\n"),
            "V5 (line 8): the storage of 'x' has dynamic valid state (runtime or zero extents, or a set_validshape) "
            "and is used inside a loop or branch; dynamic valid state stays in straight-line code\n");
  // The same setter in straight-line code is selected (V1).
  EXPECT_EQ(reasonsOf(kVec,
                      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                      "        v = pl.tile.set_validshape(x, 8, 32)\n"
                      "        y = pl.tile.exp(v)\n"
                      "        r = pl.tile.store(y, [0, 0], out)\n        return r\n"),
            "");
}

// V5: storage with dynamic valid state is neither relabelled nor windowed (cases 75, 218).
TEST(SelectBufferIR, StorageWithDynamicValidStateIsNeitherRelabelledNorWindowedV5) {
  EXPECT_EQ(reasonsOf(kVec,
                      "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[0, 32])\n"
                      "        v = pl.tile.reshape(x, [32, 16])\n"
                      "        r = pl.tile.store(x, [0, 0], out)\n        return r\n"),
            "V5 (line 6): the storage of 'x' has dynamic valid state (runtime or zero extents, or a set_validshape) "
            "and is relabelled or assembled; reshape, transpose_view and assemble need static valid extents\n");
  EXPECT_EQ(reasonsOf(kVec,
                      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                      "        v = pl.tile.set_validshape(x, 8, 32)\n"
                      "        s = pl.tile.slice(v, [8, 32], [0, 0])\n"
                      "        r = pl.tile.store(s, [0, 0], out)\n        return r\n"),
            "V5 (line 7): the storage of 'x' has dynamic valid state (runtime or zero extents, or a set_validshape) "
            "and a window is cut from it; windows need a static-valid parent\n");
}

// W17: zero-valid slice windows have no Buffer form (case 179).
TEST(SelectBufferIR, AZeroValidWindowStaysOnTileW17) {
  EXPECT_EQ(reasonsOf(kVec,
                      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                      "        s = pl.tile.slice(x, [8, 32], [0, 0], valid_shape=[0, 32])\n"
                      "        r = pl.tile.store(x, [0, 0], out)\n        return r\n"),
            "W17 (line 6): tile.slice: the window 's' has a zero valid extent on axis 0; zero-valid windows stay on "
            "Tile\n");
}

TEST(SelectBufferIRPass, RecordsTheVerdictInTheFunctionAndPrintsIt) {
  const Row& row = firstSelectedRow();
  Program p = parseVerified(kernelProgram(row.params, row.body, row.result));
  Program selected = lowerUpTo(p, contextFor(), "SelectBufferIRFunctions");
  ASSERT_TRUE(selected.functions[0].bufferIRSelected.has_value());
  EXPECT_TRUE(*selected.functions[0].bufferIRSelected);
  EXPECT_NE(printProgram(selected).find("@pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)"),
            std::string::npos);
}

// S2: a verdict is recorded once and never recomputed, even when the kernel would now be selected.
TEST(SelectBufferIRPass, NeverRecomputesARecordedVerdictS2) {
  const Row& row = firstSelectedRow();
  std::string text = kernelProgram(row.params, row.body, row.result);
  text.replace(text.find("type=pl.FunctionType.InCore"), std::string("type=pl.FunctionType.InCore").size(),
               "type=pl.FunctionType.InCore, buffer_ir_selected=False");
  Program p = parseVerified(text);
  Program planned = lowerUpTo(p, contextFor(), "InitMemRef");
  Program before = planned.clone();
  bool changed = createSelectBufferIRFunctionsPass()->run(planned, contextFor());
  EXPECT_FALSE(changed);
  EXPECT_EQ(planned.functions[0].bufferIRSelected, std::optional<bool>(false));
  EXPECT_TRUE(structurallyEqual(before, planned)) << firstDifference(before, planned);
}

TEST(SelectBufferIRPass, LeavesOrchestrationFunctionsWithoutAVerdict) {
  Program p = parseVerified(R"(@pl.program
class t:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        return a
)");
  Program selected = lowerUpTo(p, contextFor(), "SelectBufferIRFunctions");
  EXPECT_FALSE(selected.functions[0].bufferIRSelected.has_value());
}

TEST(SelectBufferIRPass, PostconditionRequiresAVerdictPerKernel) {
  const Row& row = firstSelectedRow();
  Program p = parseVerified(kernelProgram(row.params, row.body, row.result));
  EXPECT_EQ(createSelectBufferIRFunctionsPass()->checkPostcondition(p, contextFor()).size(), 1u);
}

}  // namespace
}  // namespace ptodiff
