# test: lower
# stop-after: LowerTileToBuffer
# rules: B1 B3 B4 B8 L1 L9
# A branch inside a loop on the Buffer path: the branch result gets one destination written
# directly by both arm-local producers (B3), and the loop's backedge value (the branch result) is
# transferred into the carry storage before the yield (L9); conversion leaves only the INDEX
# carry and copies planned before it.
import pypto.language as pl

@pl.program
class msa_branches_buffer:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc,) in pl.range(n, init_values=(x,)):
            if i % 2 == 0:
                h1 = pl.tile.muls(acc, 0.5)
                h = pl.yield_(h1)
            else:
                h2 = pl.tile.adds(acc, 1.0)
                h = pl.yield_(h2)
            acc1 = pl.yield_(h)
        o = pl.tile.store(acc1, [0, 0], out)
        return o

# ---- expected ----
# # pypto.program: msa_branches_buffer
# import pypto.language as pl
#
# @pl.program
# class msa_branches_buffer:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         h1: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
#         pl.buffer.load(a, [0, 0], [16, 32], x)
#         for i in pl.range(n):
#             if i % 2 == 0:
#                 pl.buffer.muls(x, 0.5, h1)
#             else:
#                 pl.buffer.adds(x, 1.0, h1)
#             pl.buffer.copy(h1, x)
#         pl.buffer.store(x, [0, 0], [16, 32], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: msa_branches_buffer
# import pypto.language as pl
#
# @pl.program
# class msa_branches_buffer:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         h1: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(a, [0, 0], [16, 32], x)
#         for i in pl.range(n):
#             if i % 2 == 0:
#                 pl.buffer.muls(x, 0.5, h1)
#             else:
#                 pl.buffer.adds(x, 1.0, h1)
#             pl.buffer.copy(h1, x)
#         pl.buffer.store(x, [0, 0], [16, 32], out)
#         return out
