# test: roundtrip
# Scalar expressions: precedence and the parentheses it needs, negative and float literals,
# comparisons, boolean operators, pl.const.
import pypto.language as pl

@pl.program
class expressions:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INT32], f: pl.Scalar[pl.FP32], b: pl.Scalar[pl.BOOL]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.BOOL]]:
        e1 = n + 2 * 3 - 4
        e2 = (n + 2) * (3 - n)
        e3 = n - (2 - n)
        e4 = n // 2 % 3
        e5 = n // (2 % 3)
        e6 = -n + -(n * 2)
        e7 = - -n
        e8 = ((n))
        f1 = 1.5 + 1e-3 - 2.
        f2 = .25 * 1E10 + 123456789.0
        f3 = -0.0 + 1e999
        f4 = f * 0.1
        c1 = n < 4
        c2 = n >= 4 and n != 7 or not b
        c3 = not (b and c1)
        c4 = (n < 4) == b
        c5 = b and (c1 or c2)
        c6 = b or c1 and c2
        k1 = pl.const(7, pl.INT32)
        k2 = pl.const(-1, pl.INT64) * 3
        k3 = pl.const(2.5, pl.FP32)
        k4 = pl.const(True, pl.BOOL)
        t = True
        return e1 + e2 + e3, c2

# ---- expected ----
# # pypto.program: expressions
# import pypto.language as pl
#
# @pl.program
# class expressions:
#     @pl.function(type=pl.FunctionType.AIV)
#     def kernel(self,
#                n: pl.Scalar[pl.INDEX],
#                m: pl.Scalar[pl.INT32],
#                f: pl.Scalar[pl.FP32],
#                b: pl.Scalar[pl.BOOL]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.BOOL]]:
#         e1 = n + 2 * 3 - 4
#         e2 = (n + 2) * (3 - n)
#         e3 = n - (2 - n)
#         e4 = n // 2 % 3
#         e5 = n // (2 % 3)
#         e6 = -n + -(n * 2)
#         e7 = --n
#         e8 = n
#         f1 = 1.5 + 0.001 - 2.0
#         f2 = 0.25 * 1e+10 + 123456789.0
#         f3 = -0.0 + 1e999
#         f4 = f * 0.1
#         c1 = n < 4
#         c2 = n >= 4 and n != 7 or not b
#         c3 = not (b and c1)
#         c4 = (n < 4) == b
#         c5 = b and (c1 or c2)
#         c6 = b or c1 and c2
#         k1 = pl.const(7, pl.INT32)
#         k2 = pl.const(-1, pl.INT64) * 3
#         k3 = pl.const(2.5, pl.FP32)
#         k4 = pl.const(True, pl.BOOL)
#         t = True
#         return e1 + e2 + e3, c2
