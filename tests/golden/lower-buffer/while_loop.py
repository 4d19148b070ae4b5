# test: lower-buffer
# planners: DSA_RP PYPTO PTOAS
# rules: L1 L4 L7 S16
# A while loop carrying a tile updated in place and an INDEX counter: the Tile carry disappears,
# the condition reads the rewritten scalar binding, and the loop keeps only `k`.
import pypto.language as pl

@pl.program
class while_loop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        t0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32])
        for (t, k) in pl.while_(init_values=(t0, 0)):
            pl.cond(k < n)
            t1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.adds(t, 1.0)
            t_out, k_out = pl.yield_(t1, k + 1)
        r = pl.tile.store(t_out, [0, 0], out)
        return r

# ---- expected ----
# # pypto.program: while_loop
# import pypto.language as pl
#
# @pl.program
# class while_loop:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                x: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         t0: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         pl.buffer.load(x, [0, 0], [16, 32], t0)
#         for (k,) in pl.while_(init_values=(0,)):
#             pl.cond(k < n)
#             pl.buffer.adds(t0, 1.0, t0)
#             k_out = pl.yield_(k + 1)
#         pl.buffer.store(t0, [0, 0], [16, 32], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: while_loop
# import pypto.language as pl
#
# @pl.program
# class while_loop:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                x: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         t0: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(x, [0, 0], [16, 32], t0)
#         for (k,) in pl.while_(init_values=(0,)):
#             pl.cond(k < n)
#             pl.buffer.adds(t0, 1.0, t0)
#             k_out = pl.yield_(k + 1)
#         pl.buffer.store(t0, [0, 0], [16, 32], out)
#         return out
