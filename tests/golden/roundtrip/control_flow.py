# test: roundtrip
# Loops in all three pl.range arities, loop-carried values, a branch nested in a loop, an if
# without results, and pl.while_ loops.
import pypto.language as pl

@pl.program
class control_flow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], flag: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i in pl.range(0, 4, 1):
            pass
        for j in pl.range(1, n):
            pass
        for k in pl.range(n, 0, -1):
            pass
        for i, (acc,) in pl.range(4, init_values=[x]):
            if i % 2 == 0:
                h = pl.tile.muls(acc, 0.5)
                nxt = pl.yield_(h)
            else:
                nxt = pl.yield_(acc)
            acc2 = pl.yield_(nxt)
        for i, (t, cnt) in pl.range(0, n, 2, init_values=(acc2, 0)):
            for j in pl.range(2):
                if flag and j == 1:
                    pl.yield_()
            t2 = pl.tile.adds(t, 1.0)
            t3, cnt2 = pl.yield_(t2, cnt + 1)
        for (u, c) in pl.while_(init_values=(t3, cnt2)):
            pl.cond(c > 0 and not flag)
            u1 = pl.tile.exp(u)
            u2, c1 = pl.yield_(u1, c - 1)
        for (m,) in pl.while_(init_values=(n,)):
            pl.cond(m < 100)
            m2: pl.Scalar[pl.INDEX] = pl.yield_(m * 2)
        if flag:
            row = pl.yield_(m2 // 4)
        else:
            row = pl.yield_(-(m2 % 3) + 1)
        o = pl.tile.store(u2, [row, 0], out)
        return o

# ---- expected ----
# # pypto.program: control_flow
# import pypto.language as pl
#
# @pl.program
# class control_flow:
#     @pl.function(type=pl.FunctionType.InCore)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                flag: pl.Scalar[pl.BOOL],
#                out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
#         x = pl.tile.load(a, [0, 0], [16, 32])
#         for i in pl.range(4):
#             pass
#         for j in pl.range(1, n):
#             pass
#         for k in pl.range(n, 0, -1):
#             pass
#         for i, (acc,) in pl.range(4, init_values=(x,)):
#             if i % 2 == 0:
#                 h = pl.tile.muls(acc, 0.5)
#                 nxt = pl.yield_(h)
#             else:
#                 nxt = pl.yield_(acc)
#             acc2 = pl.yield_(nxt)
#         for i, (t, cnt) in pl.range(0, n, 2, init_values=(acc2, 0)):
#             for j in pl.range(2):
#                 if flag and j == 1:
#                     pl.yield_()
#             t2 = pl.tile.adds(t, 1.0)
#             t3, cnt2 = pl.yield_(t2, cnt + 1)
#         for (u, c) in pl.while_(init_values=(t3, cnt2)):
#             pl.cond(c > 0 and not flag)
#             u1 = pl.tile.exp(u)
#             u2, c1 = pl.yield_(u1, c - 1)
#         for (m,) in pl.while_(init_values=(n,)):
#             pl.cond(m < 100)
#             m2: pl.Scalar[pl.INDEX] = pl.yield_(m * 2)
#         if flag:
#             row = pl.yield_(m2 // 4)
#         else:
#             row = pl.yield_(-(m2 % 3) + 1)
#         o = pl.tile.store(u2, [row, 0], out)
#         return o
