#!/usr/bin/env python3
"""Writes the inputs, case files and expected outputs of the Tile programs in tests/programs/.

For every program NAME.py this script holds a hand-written model of what that one program
computes -- not an interpreter of the text format -- following spec/semantics.md §1, §2, §6 and §7.
It is deliberately independent of the C++ interpreter: Python 3.11 standard library only, its
own rounding (exact rational arithmetic with fractions.Fraction), its own .npy writer.

Numerics (semantics.md §2, "Numerics"):
  * an FP32 or FP16 op is computed in float64 and rounded once to the dtype, round-to-nearest-even.
    For + - * / sqrt this equals the correctly rounded result (float64 has more than 2p+2 bits for
    both formats: the double-rounding theorem); exp, log, sqrt and recip are *specified* as
    "binary64 result rounded once".
  * matmul folds acc = fma(l, r, acc) from 0 in increasing k, in FP32: each step is the exact
    rational l*r + acc rounded once (Python has no math.fma, so the fold is emulated exactly).
  * INT32 add/sub/mul wrap modulo 2^32.
  * transfers copy bits; Out tensors start as the sentinel (FP32 0x7FC0DEAD, FP16 0x7E5A,
    BF16 0x7FDA, INT32 0x5EA1DEAD) and keep it wherever the program does not store.

Tiles in the models carry a physical shape, a valid prefix rectangle and per-element poison
(None). Every program here is valid: storing a poison element is a model error, so no program has
a NAME.poison.npy file.

Outputs (all rewritten bit-identically on every run):
  tests/programs/NAME.case.json             scalars, block_num, and each tensor's "file" or init
  tests/programs/inputs/NAME/TENSOR.npy     every In tensor
  tests/programs/expected/NAME/TENSOR.npy   every Out tensor's expected final bits

Usage: python3 tests/programs/make_expected.py
"""

import json
import math
import os
import random
import re
import struct
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------------------------------------
# Floating-point formats and rounding
# --------------------------------------------------------------------------------------------


class Format:
    """An IEEE binary format: precision (significand bits incl. the hidden one) and exponents."""

    def __init__(self, name, precision, emin, emax):
        self.name, self.precision, self.emin, self.emax = name, precision, emin, emax


FP32_FMT = Format("FP32", 24, -126, 127)
FP16_FMT = Format("FP16", 11, -14, 15)


def _shift(n, d, e):
    """(n * 2**e, d) as integers, for any sign of e."""
    return (n << e, d) if e >= 0 else (n, d << -e)


def round_to(fmt, x):
    """x (a float or an exact Fraction) rounded once to `fmt`, round-to-nearest-even.

    Overflow gives a signed infinity; a zero float keeps its sign; NaN is never produced by the
    reference (no program computes one), so it is rejected to keep mistakes loud.
    """
    if isinstance(x, float):
        if math.isnan(x):
            raise ArithmeticError("reference produced NaN")
        if math.isinf(x) or x == 0.0:
            return x
    q = Fraction(x)
    if q == 0:
        return 0.0
    negative = q < 0
    n, d = abs(q.numerator), q.denominator
    # floor(log2(n / d)) is bit_length(n) - bit_length(d) or one less.
    e = n.bit_length() - d.bit_length()
    low_n, low_d = _shift(n, d, -e)
    if low_n < low_d:
        e -= 1
    quantum = max(e, fmt.emin) - (fmt.precision - 1)
    sn, sd = _shift(n, d, -quantum)  # n/d in units of the quantum
    units, rest = divmod(sn, sd)
    if 2 * rest > sd or (2 * rest == sd and units % 2 == 1):
        units += 1
    if units.bit_length() + quantum > fmt.emax + 1:  # units * 2**quantum >= 2**(emax+1)
        result = math.inf
    else:
        result = math.ldexp(float(units), quantum)  # exact: at most `precision` bits in range
    return -result if negative else result


def f32(x):
    return round_to(FP32_FMT, x)


def f16(x):
    return round_to(FP16_FMT, x)


def wrap32(x):
    return ((x + 2**31) % 2**32) - 2**31


def self_check_rounding():
    """Cross-checks round_to against the C casts behind struct's 'f' and 'e' codes."""
    rng = random.Random("ptodiff/tests/programs/self-check")
    for _ in range(4000):
        x = rng.uniform(-1, 1) * 2.0 ** rng.randint(-30, 20)
        if abs(x) < 65504.0:
            want = struct.unpack("<e", struct.pack("<e", x))[0]
            assert f16(x) == want and math.copysign(1, f16(x)) == math.copysign(1, want), x
        want = struct.unpack("<f", struct.pack("<f", x))[0]
        assert f32(x) == want, x
    assert f16(65520.0) == math.inf and f16(65519.0) == 65504.0
    assert f32(1.0 + 2.0**-24) == 1.0 and f32(1.0 + 3 * 2.0**-24) == 1.0 + 2.0**-22


# --------------------------------------------------------------------------------------------
# Element types, bits and .npy files
# --------------------------------------------------------------------------------------------

FP32, FP16, BF16, INT32 = "FP32", "FP16", "BF16", "INT32"


def _float_bits(code, v):
    bits = struct.unpack("<I" if code == "f" else "<H", struct.pack("<" + code, v))[0]
    back = struct.unpack("<" + code, struct.pack("<I" if code == "f" else "<H", bits))[0]
    if not (back == v or (math.isnan(v) and math.isnan(back))):
        raise ValueError(f"{v!r} is not representable ({code})")
    return bits


DTYPES = {
    #        npy descr, struct code of the raw bits, sentinel bits
    FP32: ("<f4", "I", 0x7FC0DEAD),
    FP16: ("<f2", "H", 0x7E5A),
    BF16: ("<u2", "H", 0x7FDA),
    INT32: ("<i4", "I", 0x5EA1DEAD),
}


def encode(dtype, v):
    """The bits of value v in dtype (v must already be exactly representable)."""
    if dtype == FP32:
        return _float_bits("f", v)
    if dtype == FP16:
        return _float_bits("e", v)
    if dtype == INT32:
        assert -(2**31) <= v < 2**31, v
        return v & 0xFFFFFFFF
    raise ValueError(f"no value encoding for {dtype}")


def decode(dtype, bits):
    if dtype == FP32:
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if dtype == FP16:
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    if dtype == INT32:
        return bits - 2**32 if bits >= 2**31 else bits
    raise ValueError(f"no value decoding for {dtype}")


class Grid:
    """A GM tensor: rows x cols element bits, row-major."""

    def __init__(self, dtype, rows, cols, fill_bits=None):
        self.dtype, self.rows, self.cols = dtype, rows, cols
        fill = DTYPES[dtype][2] if fill_bits is None else fill_bits
        self.bits = [[fill] * cols for _ in range(rows)]

    @staticmethod
    def of_values(dtype, values):
        g = Grid(dtype, len(values), len(values[0]), 0)
        for r, row in enumerate(values):
            for c, v in enumerate(row):
                g.bits[r][c] = encode(dtype, v)
        return g

    def value(self, r, c):
        return decode(self.dtype, self.bits[r][c])

    def npy_bytes(self):
        descr, code, _ = DTYPES[self.dtype]
        payload = b"".join(struct.pack("<" + code, b) for row in self.bits for b in row)
        return npy_file(descr, self.rows, self.cols, payload)


def npy_file(descr, rows, cols, payload):
    """NumPy format 1.0, C order; the header is padded so the data starts on a 64-byte boundary."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, rows, cols)
    unpadded = 10 + len(header) + 1
    header += " " * ((64 - unpadded % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + payload


# --------------------------------------------------------------------------------------------
# The tile model (semantics.md §2): values with a valid prefix rectangle and poison = None
# --------------------------------------------------------------------------------------------

VEC, MAT, LEFT, RIGHT, ACC = "Vec", "Mat", "Left", "Right", "Acc"


class Tile:
    def __init__(self, dtype, vals, vr=None, vc=None, space=VEC):
        self.dtype, self.v, self.space = dtype, vals, space
        self.R, self.C = len(vals), len(vals[0])
        self.vr = self.R if vr is None else vr
        self.vc = self.C if vc is None else vc
        assert 0 <= self.vr <= self.R and 0 <= self.vc <= self.C

    def valid(self, r, c):
        return r < self.vr and c < self.vc


def poison_grid(R, C):
    return [[None] * C for _ in range(R)]


def over_valid(R, C, vr, vc, fn):
    """R x C values: fn(r, c) inside [0,vr) x [0,vc), poison outside."""
    return [[fn(r, c) if r < vr and c < vc else None for c in range(C)] for r in range(R)]


def load(g, r0, c0, R, C, vr=None, vc=None, space=VEC):
    vr = R if vr is None else vr
    vc = C if vc is None else vc
    assert r0 + vr <= g.rows and c0 + vc <= g.cols, "load window leaves the tensor"
    return Tile(g.dtype, over_valid(R, C, vr, vc, lambda r, c: g.value(r0 + r, c0 + c)), vr, vc, space)


def store(g, t, r0, c0):
    """Writes t's valid region into g at (r0, c0); an Acc FP32 tile converts once (RNE)."""
    assert r0 + t.vr <= g.rows and c0 + t.vc <= g.cols, "store window leaves the tensor"
    if t.dtype != g.dtype:
        assert t.space == ACC and t.dtype == FP32 and g.dtype == FP16, (t.dtype, g.dtype)
    for r in range(t.vr):
        for c in range(t.vc):
            v = t.v[r][c]
            if v is None:
                raise AssertionError("model stores poison: the program would be invalid")
            if g.dtype != t.dtype:
                v = f16(v)
            g.bits[r0 + r][c0 + c] = encode(g.dtype, v)


def rounder(dtype):
    return {FP32: f32, FP16: f16, INT32: wrap32}[dtype]


def _no_signed_zero_tie(a, b):
    assert a != b or math.copysign(1, a) == math.copysign(1, b), "max/min of +0 and -0"


def _ieee_div(a, b):
    """a / b with IEEE results for a zero divisor (Python raises instead)."""
    if b == 0:
        assert a != 0, "0/0 would be NaN"
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": _ieee_div,
    "maximum": lambda a, b: (_no_signed_zero_tie(a, b), max(a, b))[1],
    "minimum": lambda a, b: (_no_signed_zero_tie(a, b), min(a, b))[1],
}


def binary(op, x, y):
    """Elementwise: valid = lhs valid, equal physical shapes and dtypes; poison propagates."""
    assert (x.R, x.C, x.dtype) == (y.R, y.C, y.dtype)
    rnd, fn = rounder(x.dtype), BINARY[op]

    def lane(r, c):
        a, b = x.v[r][c], y.v[r][c]
        return None if a is None or b is None else rnd(fn(a, b))

    return Tile(x.dtype, over_valid(x.R, x.C, x.vr, x.vc, lane), x.vr, x.vc, x.space)


def _recip(a):
    return math.copysign(math.inf, a) if a == 0 else 1.0 / a


def _exp(a):
    """binary64 exp; Python raises on overflow where IEEE gives +Inf."""
    try:
        return math.exp(a)
    except OverflowError:
        return math.inf


def _log(a):
    """binary64 log; log(+-0) = -Inf (Python raises)."""
    assert not a < 0, "log of a negative number would be NaN"
    return -math.inf if a == 0 else math.log(a)


UNARY = {
    "abs": lambda a: abs(a),  # clears the sign bit (exact)
    "neg": lambda a: -a,  # flips the sign bit (exact)
    "relu": lambda a: a if a > 0 else 0.0,  # x > 0 ? x : +0
    "exp": _exp,
    "log": _log,
    "sqrt": math.sqrt,
    "recip": _recip,
}


def unary(op, x):
    assert x.dtype in (FP32, FP16)
    rnd, fn = rounder(x.dtype), UNARY[op]

    def lane(r, c):
        a = x.v[r][c]
        return None if a is None else rnd(fn(a))

    return Tile(x.dtype, over_valid(x.R, x.C, x.vr, x.vc, lane), x.vr, x.vc, x.space)


def scalar_in(dtype, s):
    """A scalar operand converted to the tile dtype (RNE). FP literals and FP32 parameters are
    FP32 values first; the programs only use scalars for which FP32-then-FP16 equals direct FP16."""
    if dtype == INT32:
        assert isinstance(s, int)
        return wrap32(s)
    v = f32(s)
    if dtype == FP16:
        assert f16(v) == f16(s), "ambiguous double rounding of a scalar operand"
        v = f16(v)
    return v


def tile_scalar(op, x, s):
    """adds/subs/muls/divs/maximums/minimums/lrelu: the scalar converted to the dtype first."""
    rnd, sv = rounder(x.dtype), scalar_in(x.dtype, s)
    if op == "lrelu":
        fn = lambda a: a if a > 0 else rnd(a * sv)  # noqa: E731
    else:
        base = BINARY[{"adds": "add", "subs": "sub", "muls": "mul", "divs": "div",
                       "maximums": "maximum", "minimums": "minimum"}[op]]
        fn = lambda a: rnd(base(a, sv))  # noqa: E731

    def lane(r, c):
        a = x.v[r][c]
        return None if a is None else fn(a)

    return Tile(x.dtype, over_valid(x.R, x.C, x.vr, x.vc, lane), x.vr, x.vc, x.space)


def full(R, C, dtype, value):
    v = scalar_in(dtype, value)
    return Tile(dtype, [[v] * C for _ in range(R)])


def create(R, C, dtype, space=VEC):
    return Tile(dtype, poison_grid(R, C), space=space)


def _window_valid(given, size, src_valid, off):
    """slice/extract per axis: min(given or size, clamp(v_S - off, 0, size))."""
    return min(size if given is None else given, max(0, min(src_valid - off, size)))


def slice_(s, R, C, r0, c0, valid=None):
    assert r0 + R <= s.R and c0 + C <= s.C, "slice window leaves the source"
    vr = _window_valid(valid and valid[0], R, s.vr, r0)
    vc = _window_valid(valid and valid[1], C, s.vc, c0)
    vals = [[s.v[r0 + r][c0 + c] for c in range(C)] for r in range(R)]
    return Tile(s.dtype, vals, vr, vc, s.space)


def extract(s, r0, c0, R, C, space):
    """A copy of the window into `space`; valid as for slice; outside valid is poison."""
    w = slice_(s, R, C, r0, c0)
    return Tile(s.dtype, over_valid(R, C, w.vr, w.vc, lambda r, c: w.v[r][c]), w.vr, w.vc, space)


def move(t, space):
    return Tile(t.dtype, over_valid(t.R, t.C, t.vr, t.vc, lambda r, c: t.v[r][c]), t.vr, t.vc, space)


def assemble(tgt, src, r0, c0):
    """The whole physical source replaces its window; valid = the write-union (a prefix rectangle)."""
    assert r0 + src.R <= tgt.R and c0 + src.C <= tgt.C
    vals = [row[:] for row in tgt.v]
    for r in range(src.R):
        for c in range(src.C):
            vals[r0 + r][c0 + c] = src.v[r][c]
    if tgt.vr == tgt.R and tgt.vc == tgt.C:
        vr, vc = tgt.vr, tgt.vc
    elif tgt.vr == 0 or tgt.vc == 0:
        assert (r0, c0) == (0, 0), "an empty target grows only at offset 0"
        vr, vc = src.vr, src.vc
    elif c0 == 0 and src.vc == tgt.vc and r0 <= tgt.vr:  # rows grow
        vr, vc = max(tgt.vr, r0 + src.vr), tgt.vc
    elif r0 == 0 and src.vr == tgt.vr and c0 <= tgt.vc:  # columns grow
        vr, vc = tgt.vr, max(tgt.vc, c0 + src.vc)
    else:
        raise AssertionError("write-union is not a prefix rectangle")
    return Tile(tgt.dtype, vals, vr, vc, tgt.space)


def reshape(t, R2, C2):
    """Row-major reinterpretation; the flat-prefix valid rule."""
    assert t.R * t.C == R2 * C2
    flat = [v for row in t.v for v in row]
    vals = [flat[r * C2:(r + 1) * C2] for r in range(R2)]
    if t.vr == t.R and t.vc == t.C:
        return Tile(t.dtype, vals, R2, C2, t.space)
    assert t.vc == t.C or t.vr == 1, "partial valid region is not a row-major prefix"
    p = t.vr * t.vc
    if p % C2 == 0 and p // C2 <= R2:
        vr, vc = p // C2, C2
    elif p <= C2:
        vr, vc = 1, p
    else:
        raise AssertionError("reshape valid region not representable")
    return Tile(t.dtype, vals, vr, vc, t.space)


def set_valid_shape(t, vr, vc):
    return Tile(t.dtype, t.v, vr, vc, t.space)


def transpose_view(t):
    vals = [[t.v[r][c] for r in range(t.R)] for c in range(t.C)]
    return Tile(t.dtype, vals, t.vc, t.vr, t.space)


def _fma_fold(lhs, rhs, i, j, K):
    """acc = fma(l, r, acc) from +0 in increasing k, FP32, each step rounded exactly once."""
    acc = Fraction(0)
    for k in range(K):
        a, b = lhs.v[i][k], rhs.v[k][j]
        assert a is not None and b is not None, "matmul reads poison"
        acc = Fraction(f32(Fraction(a) * Fraction(b) + acc))
    return float(acc)


def matmul(lhs, rhs):
    assert lhs.space == LEFT and rhs.space == RIGHT and lhs.C == rhs.R
    assert lhs.dtype == rhs.dtype and lhs.dtype in (FP16, FP32)
    vals = over_valid(lhs.R, rhs.C, lhs.vr, rhs.vc, lambda i, j: _fma_fold(lhs, rhs, i, j, lhs.vc))
    return Tile(FP32, vals, lhs.vr, rhs.vc, ACC)


def matmul_acc(acc, lhs, rhs, init):
    """Product lanes = product (init) or acc + product (one add); the rest of a touched 16x16 box
    is poison; untouched boxes keep acc."""
    prod = matmul(lhs, rhs)
    pr, pc = lhs.vr, rhs.vc
    touched = {(r // 16, c // 16) for r in range(pr) for c in range(pc)}

    def lane(r, c):
        if r < pr and c < pc:
            p, a = prod.v[r][c], acc.v[r][c]
            if init:
                return p
            return None if a is None else f32(a + p)
        return None if (r // 16, c // 16) in touched else acc.v[r][c]

    vals = [[lane(r, c) for c in range(acc.C)] for r in range(acc.R)]
    return Tile(FP32, vals, acc.vr, acc.vc, ACC)


def _fold(values, op):
    assert all(v is not None for v in values)
    assert all(not (v == 0 and math.copysign(1, v) < 0) for v in values), "-0 in a fold"
    acc = values[0]
    for v in values[1:]:
        acc = f32(acc + v) if op == "sum" else (max(acc, v) if op == "max" else min(acc, v))
    return acc


def row_reduce(op, t):
    vals = [[_fold(t.v[r][:t.vc], op) if r < t.vr else None] for r in range(t.R)]
    return Tile(t.dtype, vals, t.vr, 1, t.space)


def col_reduce(op, t):
    vals = [[_fold([t.v[r][c] for r in range(t.vr)], op) if c < t.vc else None for c in range(t.C)]]
    return Tile(t.dtype, vals, 1, t.vc, t.space)


# --------------------------------------------------------------------------------------------
# Cases: inputs, scalars, launch, outputs
# --------------------------------------------------------------------------------------------


class Case:
    def __init__(self, name):
        self.name = name
        self.rng = random.Random("ptodiff/tests/programs/" + name)
        self.inputs, self.outputs, self.scalars = {}, {}, {}
        self.block_num = 1

    # ---- inputs ----
    def values(self, rows, cols, gen):
        return [[gen() for _ in range(cols)] for _ in range(rows)]

    def uniform(self, fmt, lo, hi):
        return lambda: round_to(fmt, self.rng.uniform(lo, hi))

    def signed(self, fmt, lo, hi):
        """Magnitude in [lo, hi] with a random sign (keeps divisors away from zero)."""
        return lambda: round_to(fmt, self.rng.choice((-1.0, 1.0)) * self.rng.uniform(lo, hi))

    def input(self, name, dtype, values):
        g = Grid.of_values(dtype, values)
        self.inputs[name] = g
        return g

    def input_bits(self, name, dtype, bits):
        g = Grid(dtype, len(bits), len(bits[0]), 0)
        g.bits = [row[:] for row in bits]
        self.inputs[name] = g
        return g

    def scalar(self, name, value):
        self.scalars[name] = value
        return value

    def output(self, name, dtype, rows, cols):
        g = Grid(dtype, rows, cols)
        self.outputs[name] = g
        return g

    # ---- files ----
    def case_json(self):
        tensors = {n: {"file": f"inputs/{self.name}/{n}.npy"} for n in self.inputs}
        tensors.update({n: {"init": "sentinel"} for n in self.outputs})
        doc = {"function": "kernel", "scalars": self.scalars, "tensors": tensors,
               "block_num": self.block_num}
        return json.dumps(doc, indent=2) + "\n"


PROGRAMS = []


def program(fn):
    PROGRAMS.append(fn)
    return fn


# --------------------------------------------------------------------------------------------
# The programs' models (one per NAME.py; read the program next to its model)
# --------------------------------------------------------------------------------------------


@program
def elementwise_fp32(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -4, 4)))
    b = k.input("b", FP32, k.values(16, 32, k.signed(FP32_FMT, 0.5, 4)))
    out = k.output("out", FP32, 112, 32)
    x, y = load(a, 0, 0, 16, 32), load(b, 0, 0, 16, 32)
    s, d = binary("add", x, y), binary("sub", x, y)
    results = [s, d, binary("mul", x, y), binary("div", x, y), binary("maximum", x, y),
               binary("minimum", x, y), binary("mul", s, d)]
    for band, t in enumerate(results):
        store(out, t, 16 * band, 0)


@program
def unary_fp32(k):
    mix_vals = k.values(16, 32, k.uniform(FP32_FMT, -3, 3))
    mix_vals[0][0], mix_vals[0][1], mix_vals[5][17], mix_vals[9][30] = 0.0, -0.0, -0.0, 0.0
    mix_vals[3][3], mix_vals[3][4] = 1.0, -1.0
    mix = k.input("mix", FP32, mix_vals)
    pos_vals = k.values(16, 32, k.uniform(FP32_FMT, 0.25, 8))
    pos_vals[1][1], pos_vals[2][2], pos_vals[4][4] = 1.0, 4.0, 0.25
    pos = k.input("pos", FP32, pos_vals)
    out = k.output("out", FP32, 112, 32)
    m, p = load(mix, 0, 0, 16, 32), load(pos, 0, 0, 16, 32)
    results = [unary("exp", m), unary("sqrt", p), unary("log", p), unary("recip", m),
               unary("abs", m), unary("neg", m), unary("relu", m)]
    for band, t in enumerate(results):
        store(out, t, 16 * band, 0)


@program
def scalar_ops_fp32(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -3, 3)))
    s = f32(k.scalar("s", 0.3))  # the FP32 scalar parameter's value
    out = k.output("out", FP32, 128, 32)
    x = load(a, 0, 0, 16, 32)
    results = [tile_scalar("adds", x, 1.5), tile_scalar("subs", x, s), tile_scalar("muls", x, s),
               tile_scalar("divs", x, 3.0),
               tile_scalar("maximums", x, f32(s - 1.0)),  # FP32 scalar arithmetic, IEEE binary32
               tile_scalar("minimums", x, 0.75), tile_scalar("lrelu", x, 0.1),
               tile_scalar("divs", x, s)]
    for band, t in enumerate(results):
        store(out, t, 16 * band, 0)


@program
def fp16_arith(k):
    a = k.input("a", FP16, k.values(16, 16, k.uniform(FP16_FMT, -4, 4)))
    b = k.input("b", FP16, k.values(16, 16, k.uniform(FP16_FMT, 0.5, 2)))
    out = k.output("out", FP16, 272, 16)
    x, y = load(a, 0, 0, 16, 16), load(b, 0, 0, 16, 16)
    results = [binary(op, x, y) for op in ("add", "sub", "mul", "div", "maximum", "minimum")]
    results += [unary("exp", x), unary("sqrt", y), unary("log", y), unary("recip", y)]
    results += [tile_scalar("adds", x, 0.5), tile_scalar("muls", x, 1.5),
                tile_scalar("lrelu", x, 0.25)]
    results += [unary("abs", x), unary("neg", x), unary("relu", x)]
    results.append(binary("add", x, full(16, 16, FP16, 0.3)))
    for band, t in enumerate(results):
        store(out, t, 16 * band, 0)


@program
def int32_arith(k):
    rand_i32 = lambda: k.rng.randint(-(2**31), 2**31 - 1)  # noqa: E731
    a_vals = k.values(16, 16, rand_i32)
    b_vals = k.values(16, 16, rand_i32)
    a_vals[0][0], b_vals[0][0] = 2**31 - 1, 1  # add wraps to INT_MIN
    a_vals[0][1], b_vals[0][1] = -(2**31), 1  # sub wraps to INT_MAX
    a_vals[0][2], b_vals[0][2] = 65536, 65536  # mul wraps to 0
    a = k.input("a", INT32, a_vals)
    b = k.input("b", INT32, b_vals)
    out = k.output("out", INT32, 112, 16)
    x, y = load(a, 0, 0, 16, 16), load(b, 0, 0, 16, 16)
    results = [binary(op, x, y) for op in ("add", "sub", "mul", "maximum", "minimum")]
    results += [tile_scalar("adds", x, 2000000011), tile_scalar("muls", x, -7)]
    for band, t in enumerate(results):
        store(out, t, 16 * band, 0)


@program
def full_create_assemble(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    b = k.input("b", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    out = k.output("out", FP32, 32, 32)
    x, y = load(a, 0, 0, 16, 32), load(b, 0, 0, 16, 32)
    c = create(16, 32, FP32)
    c1 = assemble(c, slice_(x, 16, 16, 0, 16), 0, 0)
    c2 = assemble(c1, slice_(x, 16, 16, 0, 0), 0, 16)
    c3 = assemble(c2, slice_(y, 8, 16, 2, 8), 4, 8)
    f = full(16, 32, FP32, 0.1)
    store(out, binary("add", c3, f), 0, 0)
    store(out, f, 16, 0)


@program
def assemble_grow(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    b = k.input("b", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    out1 = k.output("out1", FP32, 16, 32)
    out2 = k.output("out2", FP32, 16, 32)
    out3 = k.output("out3", FP32, 16, 32)
    rows_grown = assemble(load(a, 0, 0, 16, 32, 8, 32), load(b, 0, 0, 8, 32), 8, 0)
    assert (rows_grown.vr, rows_grown.vc) == (16, 32)
    store(out1, rows_grown, 0, 0)
    cols_grown = assemble(load(a, 0, 0, 16, 32, 16, 16), load(b, 0, 0, 16, 8), 0, 16)
    assert (cols_grown.vr, cols_grown.vc) == (16, 24)
    store(out2, cols_grown, 0, 0)
    empty = set_valid_shape(create(16, 32, FP32), 0, 0)
    filled = assemble(empty, load(b, 0, 8, 8, 16), 0, 0)
    assert (filled.vr, filled.vc) == (8, 16)
    store(out3, tile_scalar("muls", filled, 2.0), 0, 0)


@program
def slice_windows(k):
    a = k.input("a", FP32, k.values(32, 32, k.uniform(FP32_FMT, -2, 2)))
    r = k.scalar("r", 14)
    out1 = k.output("out1", FP32, 16, 32)
    out2 = k.output("out2", FP32, 8, 16)
    out3 = k.output("out3", FP32, 8, 32)
    out4 = k.output("out4", FP32, 8, 16)
    out5 = k.output("out5", FP32, 8, 16)
    x = load(a, 0, 0, 32, 32, 20, 32)
    s1 = slice_(x, 16, 32, 8, 0)
    assert (s1.vr, s1.vc) == (12, 32)
    store(out1, tile_scalar("adds", s1, 1.0), 0, 0)
    s2 = slice_(x, 8, 16, 0, 16, valid=(8, 8))
    store(out2, tile_scalar("muls", s2, 2.0), 0, 0)
    s3 = slice_(x, 8, 32, r, 0)
    assert (s3.vr, s3.vc) == (6, 32)
    store(out3, s3, 0, 0)
    e = extract(x, 4, 8, 8, 16, VEC)
    assert (e.vr, e.vc) == (8, 16)
    store(out4, unary("neg", e), 0, 0)
    s5 = slice_(s1, 8, 16, 6, 8)
    assert (s5.vr, s5.vc) == (6, 16)
    store(out5, s5, 0, 0)


@program
def reshape_views(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    out1 = k.output("out1", FP32, 32, 16)
    out2 = k.output("out2", FP32, 8, 64)
    out3 = k.output("out3", FP32, 8, 64)
    out4 = k.output("out4", FP32, 64, 8)
    out5 = k.output("out5", FP32, 8, 64)
    x = load(a, 0, 0, 16, 32)
    store(out1, tile_scalar("adds", reshape(x, 32, 16), 1.0), 0, 0)
    store(out2, reshape(x, 8, 64), 0, 0)
    y = load(a, 0, 0, 16, 32, 4, 32)
    y_wide = reshape(y, 8, 64)
    assert (y_wide.vr, y_wide.vc) == (2, 64)
    store(out3, tile_scalar("muls", y_wide, -2.0), 0, 0)
    y_narrow = reshape(y, 64, 8)
    assert (y_narrow.vr, y_narrow.vc) == (16, 8)
    store(out4, y_narrow, 0, 0)
    z_wide = reshape(load(a, 0, 0, 16, 32, 1, 24), 8, 64)
    assert (z_wide.vr, z_wide.vc) == (1, 24)
    store(out5, z_wide, 0, 0)


@program
def set_validshape(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    vr, vc = k.scalar("vr", 9), k.scalar("vc", 24)
    out1 = k.output("out1", FP32, 16, 32)
    out2 = k.output("out2", FP32, 16, 32)
    out3 = k.output("out3", FP32, 16, 32)
    x = load(a, 0, 0, 16, 32)
    small = set_valid_shape(x, 4, 8)
    store(out1, unary("exp", small), 0, 0)
    store(out2, tile_scalar("adds", set_valid_shape(small, 16, 32), 1.0), 0, 0)
    store(out3, tile_scalar("muls", set_valid_shape(x, vr, vc), 3.0), 0, 0)



@program
def runtime_valid_load(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    b = k.input("b", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    c = k.input("c", FP32, k.values(20, 32, k.uniform(FP32_FMT, -9, 9)))
    vr, vc, ro = k.scalar("vr", 11), k.scalar("vc", 20), k.scalar("ro", 16)
    out1 = k.output("out1", FP32, 16, 32)
    out2 = k.output("out2", FP32, 20, 32)
    x = load(a, 0, 0, 16, 32, vr, vc)
    y = load(b, 0, 0, 16, 32, vr, vc)
    store(out1, binary("mul", binary("add", x, y), x), 0, 0)
    u = load(c, ro, 0, 8, 32, 20 - ro, 32)
    store(out2, unary("sqrt", unary("abs", u)), ro, 0)


@program
def partial_store(k):
    a = k.input("a", FP32, k.values(20, 40, k.uniform(FP32_FMT, -2, 2)))
    out = k.output("out", FP32, 16, 40)
    x = load(a, 12, 8, 16, 32, 8, 24)
    store(out, tile_scalar("muls", unary("exp", x), 0.5), 2, 4)
    store(out, load(a, 0, 0, 16, 32, 3, 32), 12, 8)


@program
def reductions(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -4, 4)))
    rows = k.output("rows", FP32, 16, 4)
    cols = k.output("cols", FP32, 4, 32)
    x = load(a, 0, 0, 16, 32)
    p = load(a, 0, 0, 16, 32, 12, 20)
    for col, t in enumerate([row_reduce("sum", x), row_reduce("max", x), row_reduce("min", x),
                             row_reduce("sum", p)]):
        store(rows, t, 0, col)
    for row, t in enumerate([col_reduce("sum", x), col_reduce("max", x), col_reduce("min", x),
                             col_reduce("sum", p)]):
        store(cols, t, row, 0)


@program
def cube_fp16(k):
    a = k.input("a", FP16, k.values(16, 32, k.uniform(FP16_FMT, -2, 2)))
    b = k.input("b", FP16, k.values(32, 16, k.uniform(FP16_FMT, -2, 2)))
    out32 = k.output("out32", FP32, 16, 16)
    out16 = k.output("out16", FP16, 16, 16)
    lhs = move(load(a, 0, 0, 16, 32, space=MAT), LEFT)
    rhs = move(load(b, 0, 0, 32, 16, space=MAT), RIGHT)
    c = matmul(lhs, rhs)
    store(out32, c, 0, 0)
    store(out16, c, 0, 0)


@program
def cube_fp32_transpose(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    bt = k.input("bt", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    out = k.output("out", FP32, 16, 16)
    out16 = k.output("out16", FP16, 16, 16)
    lhs = move(load(a, 0, 0, 16, 32, space=MAT), LEFT)
    rhs = move(transpose_view(load(bt, 0, 0, 16, 32, space=MAT)), RIGHT)
    c = matmul(lhs, rhs)
    store(out, c, 0, 0)
    store(out16, c, 0, 0)


@program
def cube_kloop(k):
    a = k.input("a", FP16, k.values(16, 64, k.uniform(FP16_FMT, -2, 2)))
    b = k.input("b", FP16, k.values(64, 16, k.uniform(FP16_FMT, -2, 2)))
    out = k.output("out", FP32, 16, 16)
    a_mat, b_mat = load(a, 0, 0, 16, 64, space=MAT), load(b, 0, 0, 64, 16, space=MAT)
    acc = create(16, 16, FP32, ACC)
    for step in range(4):
        lhs = extract(a_mat, 0, step * 16, 16, 16, LEFT)
        rhs = extract(b_mat, step * 16, 0, 16, 16, RIGHT)
        acc = matmul_acc(acc, lhs, rhs, init=(step == 0))
    store(out, acc, 0, 0)


@program
def cube_acc_forms(k):
    a = k.input("a", FP16, k.values(16, 32, k.uniform(FP16_FMT, -2, 2)))
    b = k.input("b", FP16, k.values(32, 16, k.uniform(FP16_FMT, -2, 2)))
    out = k.output("out", FP32, 64, 16)
    out16 = k.output("out16", FP16, 16, 16)
    a_mat, b_mat = load(a, 0, 0, 16, 32, space=MAT), load(b, 0, 0, 32, 16, space=MAT)
    l0, l1 = extract(a_mat, 0, 0, 16, 16, LEFT), extract(a_mat, 0, 16, 16, 16, LEFT)
    r0, r1 = extract(b_mat, 0, 0, 16, 16, RIGHT), extract(b_mat, 16, 0, 16, 16, RIGHT)
    c0 = matmul(l0, r0)
    store(out, c0, 0, 0)
    c1 = matmul_acc(c0, l1, r1, init=False)  # init_cond omitted: accumulate
    store(out, c1, 16, 0)
    c2 = matmul_acc(c1, l0, r1, init=False)
    store(out, c2, 32, 0)
    c3 = matmul_acc(c2, l1, r0, init=True)
    store(out, c3, 48, 0)
    l_part = move(load(a, 0, 0, 16, 32, 12, 24, space=MAT), LEFT)
    cp = matmul(l_part, move(b_mat, RIGHT))
    assert (cp.vr, cp.vc) == (12, 16)
    store(out16, cp, 0, 0)


@program
def cube_acc_boxes(k):
    a = k.input("a", FP16, k.values(16, 16, k.uniform(FP16_FMT, -2, 2)))
    a2 = k.input("a2", FP16, k.values(16, 16, k.uniform(FP16_FMT, -2, 2)))
    b = k.input("b", FP16, k.values(16, 32, k.uniform(FP16_FMT, -2, 2)))
    out = k.output("out", FP32, 16, 32)
    lhs = move(load(a, 0, 0, 16, 16, space=MAT), LEFT)
    lhs2 = move(load(a2, 0, 0, 16, 16, space=MAT), LEFT)
    rhs = move(load(b, 0, 0, 16, 32, space=MAT), RIGHT)
    rhs_half = move(load(b, 0, 0, 16, 32, 16, 16, space=MAT), RIGHT)
    c2 = matmul_acc(matmul(lhs, rhs), lhs2, rhs_half, init=False)
    store(out, c2, 0, 0)


@program
def for_swap(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    b = k.input("b", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    n, z = k.scalar("n", 3), k.scalar("z", 0)
    out = k.output("out", FP32, 64, 32)
    p, q, cnt = load(a, 0, 0, 16, 32), load(b, 0, 0, 16, 32), 0
    for _ in range(n):
        p, q, cnt = q, p, cnt + 16
    u, w = p, q
    for _ in range(z):
        u, w = binary("mul", u, w), u
    store(out, binary("sub", u, w), 0, 0)
    store(out, p, cnt - 32, 0)
    store(out, q, cnt, 0)


@program
def for_accumulate(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    out = k.output("out", FP32, 96, 32)
    x = load(a, 0, 0, 16, 32)
    acc, f = x, f32(1.0)
    for i in range(1, 8, 2):
        acc = binary("add", tile_scalar("muls", acc, f), x)
        f = f32(f * 0.5)
        store(out, acc, (i // 2) * 16, 0)
    store(out, tile_scalar("muls", acc, f), 64, 0)


@program
def nested_control(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    m = k.scalar("m", 0)
    out = k.output("out", FP32, 32, 32)
    acc = load(a, 0, 0, 16, 32)
    for i in range(4):
        acc = tile_scalar("adds", acc, 1.0) if i % 2 == 0 else tile_scalar("muls", acc, 2.0)
        for _ in range(i):
            acc = tile_scalar("subs", acc, 0.5)
    store(out, acc, 0, 0)
    e = acc
    for _ in range(m):
        for _ in range(3):
            e = unary("exp", e)
    store(out, e, 16, 0)


@program
def while_loop(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    n, z, flag = k.scalar("n", 3), k.scalar("z", 0), k.scalar("flag", True)
    out = k.output("out", FP32, 64, 32)
    x = load(a, 0, 0, 16, 32)
    t, cnt = x, 0
    while cnt < n:
        t = tile_scalar("muls", t, 0.5) if cnt % 2 == 0 else binary("add", t, x)
        cnt += 1
    store(out, t, 0, 0)
    store(out, x, cnt * 8 if flag else cnt + 40, 0)
    u, c = t, z
    while c > 0:
        u, c = unary("exp", u), c - 1
    store(out, u, 48, 0)


@program
def blocks_if(k):
    k.block_num = 4
    a = k.input("a", FP32, k.values(64, 32, k.uniform(FP32_FMT, -2, 2)))
    out = k.output("out", FP32, 64, 32)
    nb, sub = k.block_num, 0  # get_subblock_idx() is always 0
    for idx in range(nb):  # blocks run one after another, block 0 first
        x = load(a, idx * 16 + sub, 0, 16, 32)
        y = unary("exp", x) if idx % 2 == 0 else tile_scalar("muls", x, -1.5)
        store(out, y, (nb - 1 - idx) * 16, 0)


@program
def blocks_cube(k):
    k.block_num = 3
    a = k.input("a", FP16, k.values(48, 16, k.uniform(FP16_FMT, -2, 2)))
    b = k.input("b", FP16, k.values(16, 16, k.uniform(FP16_FMT, -2, 2)))
    out = k.output("out", FP32, 48, 16)
    out16 = k.output("out16", FP16, 48, 16)
    for idx in range(k.block_num):
        lhs = move(load(a, idx * 16, 0, 16, 16, space=MAT), LEFT)
        rhs = move(load(b, 0, 0, 16, 16, space=MAT), RIGHT)
        c = matmul(lhs, rhs)
        store(out, c, idx * 16, 0)
        store(out16, c, idx * 16, 0)


@program
def transfer_bits(k):
    """A bit-level model: every op of this program is a transfer, so only bits move."""
    rng = k.rng
    specials32 = [0x7FC01234, 0xFFC00001, 0x7F800001, 0xFFA5A5A5, 0x7F800000, 0xFF800000,
                  0x80000000, 0x00000001, 0x807FFFFF, 0x7FC0DEAD, 0x7F7FFFFF]
    specials16 = [0x7E01, 0xFE5A, 0x7C01, 0xFD00, 0x7C00, 0xFC00, 0x8000, 0x0001, 0x83FF, 0x7E5A]
    specials_bf = [0x7FC1, 0xFF81, 0x7F80, 0xFF80, 0x8000, 0x0001, 0x7FDA, 0xFFFF]

    def bits_grid(rows, cols, width, specials):
        g = [[rng.getrandbits(width) for _ in range(cols)] for _ in range(rows)]
        for i, s in enumerate(specials):
            g[(5 * i) % rows][(7 * i + 3) % cols] = s
        return g

    f = k.input_bits("f", FP32, bits_grid(16, 32, 32, specials32))
    h = k.input_bits("h", FP16, bits_grid(16, 16, 16, specials16))
    g = k.input_bits("g", BF16, bits_grid(16, 16, 16, specials_bf))
    n = k.input_bits("n", INT32, bits_grid(16, 8, 32, [0x80000000, 0x7FFFFFFF, 0x5EA1DEAD]))
    outf = k.output("outf", FP32, 16, 32)
    outh = k.output("outh", FP16, 16, 16)
    outg = k.output("outg", BF16, 8, 32)
    outn = k.output("outn", INT32, 16, 8)
    for r in range(16):
        outf.bits[r] = f.bits[(r + 8) % 16][:]  # halves swapped by the two assembles
        outh.bits[r] = h.bits[r][:]
        outn.bits[r] = n.bits[r][:]
    flat_g = [v for row in g.bits for v in row]
    for r in range(8):
        outg.bits[r] = flat_g[r * 32:(r + 1) * 32]


@program
def specials_fp32(k):
    big = k.input("big", FP32, k.values(16, 32, k.uniform(FP32_FMT, 80, 95)))
    z_vals = k.values(16, 32, k.signed(FP32_FMT, 0.5, 2))
    z_vals[0][0], z_vals[0][1], z_vals[7][9], z_vals[15][31] = 0.0, -0.0, -0.0, 0.0
    z = k.input("z", FP32, z_vals)
    huge = k.input("huge", FP32, k.values(16, 32, k.signed(FP32_FMT, 1e37, 3e38)))
    tiny = k.input("tiny", FP32, k.values(16, 32, k.signed(FP32_FMT, 1e-39, 1e-37)))
    out = k.output("out", FP32, 128, 32)
    b, w = load(big, 0, 0, 16, 32), load(z, 0, 0, 16, 32)
    h, t = load(huge, 0, 0, 16, 32), load(tiny, 0, 0, 16, 32)
    results = [unary("exp", b), unary("exp", unary("neg", b)), unary("log", unary("abs", w)),
               binary("div", h, w), unary("recip", h), tile_scalar("muls", t, 0.001),
               binary("add", h, h), unary("sqrt", unary("abs", t))]
    for band, r in enumerate(results):
        store(out, r, 16 * band, 0)


@program
def fp16_edges(k):
    a = k.input("a", FP16, k.values(16, 16, k.signed(FP16_FMT, 0.001, 0.01)))
    big = k.input("big", FP16, k.values(16, 16, k.signed(FP16_FMT, 200, 300)))
    s = f32(k.scalar("s", 0.3))
    assert f16(s) != s, "the scalar must need a conversion to FP16"
    out = k.output("out", FP16, 80, 16)
    mm_big = k.output("mm_big", FP16, 16, 16)
    mm_tiny = k.output("mm_tiny", FP16, 16, 16)
    x, y = load(a, 0, 0, 16, 16), load(big, 0, 0, 16, 16)
    results = [tile_scalar("muls", x, 0.01), tile_scalar("adds", x, s), binary("mul", y, y),
               tile_scalar("lrelu", x, s), binary("div", x, y)]
    for band, r in enumerate(results):
        store(out, r, 16 * band, 0)
    big_mat, tiny_mat = load(big, 0, 0, 16, 16, space=MAT), load(a, 0, 0, 16, 16, space=MAT)
    store(mm_big, matmul(move(big_mat, LEFT), move(big_mat, RIGHT)), 0, 0)
    store(mm_tiny, matmul(move(tiny_mat, LEFT), move(tiny_mat, RIGHT)), 0, 0)


@program
def scalar_exprs(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    b = k.input("b", INT32, k.values(16, 8, lambda: k.rng.randint(-(2**31), 2**31 - 1)))
    s = k.scalar("s", 1.0 + 2.0**-12)
    q, iv, flag = k.scalar("q", -5), k.scalar("iv", 2147483000), k.scalar("flag", False)
    out = k.output("out", FP32, 80, 32)
    outi = k.output("outi", INT32, 16, 8)
    x = load(a, 0, 0, 16, 32)
    e = f32(f32(f32(s * s) - 1.0) * 4096.0)  # every FP32 scalar op rounds to binary32
    assert e == 2.0  # float64 would give 2 + 2^-12
    r1, r2 = q // 4 + 2, q % 4  # Python's floor semantics: 0 and 3
    store(out, tile_scalar("adds", x, e), r1 * 16, 0)
    if flag or (r2 == 3 and not flag):
        store(out, tile_scalar("muls", x, 2.0), 16, 0)
    if not flag and q > 0:
        store(out, tile_scalar("muls", x, 4.0), 32, 0)
    store(out, set_valid_shape(x, q + 5, 32), 32, 0)  # empty: writes nothing
    store(out, x, r2 * 16, 0)
    acc, cnt = x, 0
    while cnt < 3 and (cnt != 1 or flag):
        acc, cnt = tile_scalar("adds", acc, 1.0), cnt + 1
    store(out, acc, 64, 0)
    wrapped = wrap32(iv + 1000)  # INT32 scalar arithmetic wraps
    store(outi, tile_scalar("adds", load(b, 0, 0, 16, 8), wrapped), 0, 0)


@program
def transpose_vec(k):
    a = k.input("a", FP32, k.values(16, 32, k.uniform(FP32_FMT, -2, 2)))
    c = k.scalar("c", 8)
    out = k.output("out", FP32, 32, 16)
    out2 = k.output("out2", FP32, 16, 8)
    x = load(a, 0, 0, 16, 32)
    store(out, tile_scalar("adds", transpose_view(x), 1.0), 0, 0)
    store(out2, slice_(x, 16, 8, 0, c), 0, 0)


# --------------------------------------------------------------------------------------------
# Consistency with the program files, and writing everything
# --------------------------------------------------------------------------------------------

PARAM_RE = re.compile(
    r"(\w+):\s*(?:pl\.(Out|InOut)\[)?pl\.(Tensor|Scalar)\[(?:\[(\d+),\s*(\d+)\],\s*)?pl\.(\w+)\]")


def program_params(name):
    """(name, direction, kind, shape, dtype) of each parameter of the program's kernel."""
    with open(os.path.join(HERE, name + ".py"), encoding="utf-8") as f:
        text = f.read()
    header = text[text.index("def kernel(self,"):]
    header = header[:header.index("->")]
    params = []
    for m in PARAM_RE.finditer(header):
        shape = (int(m.group(4)), int(m.group(5))) if m.group(4) else None
        params.append((m.group(1), m.group(2) or "In", m.group(3), shape, m.group(6)))
    return params


def check_signature(name, case):
    """The model's tensors and scalars must be exactly the program's parameters."""
    seen = set()
    for pname, direction, kind, shape, dtype in program_params(name):
        seen.add(pname)
        if kind == "Scalar":
            assert pname in case.scalars, f"{name}: model has no value for scalar {pname}"
            continue
        grid = case.inputs.get(pname) if direction == "In" else case.outputs.get(pname)
        assert grid is not None, f"{name}: model has no {direction} tensor {pname}"
        assert (grid.rows, grid.cols) == shape and grid.dtype == dtype, f"{name}: {pname} type"
    extra = (set(case.inputs) | set(case.outputs) | set(case.scalars)) - seen
    assert not extra, f"{name}: model names {sorted(extra)} that the program lacks"


def write_bytes(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def write_folder(folder, grids):
    """Writes NAME.npy per grid and removes stale .npy files left from earlier versions."""
    for stale in os.listdir(folder) if os.path.isdir(folder) else []:
        if stale.endswith(".npy") and stale[:-4] not in grids:
            os.remove(os.path.join(folder, stale))
    for tname, grid in grids.items():
        write_bytes(os.path.join(folder, tname + ".npy"), grid.npy_bytes())


def main():
    self_check_rounding()
    names = []
    for model in PROGRAMS:
        name = model.__name__
        names.append(name)
        case = Case(name)
        model(case)
        check_signature(name, case)
        write_folder(os.path.join(HERE, "inputs", name), case.inputs)
        write_folder(os.path.join(HERE, "expected", name), case.outputs)
        write_bytes(os.path.join(HERE, name + ".case.json"), case.case_json().encode("utf-8"))
    missing = sorted(f[:-3] for f in os.listdir(HERE)
                     if f.endswith(".py") and f != "make_expected.py" and f[:-3] not in names)
    if missing:
        sys.exit(f"programs without a model: {missing}")
    print(f"wrote inputs, cases and expected outputs of {len(names)} programs")


if __name__ == "__main__":
    main()
