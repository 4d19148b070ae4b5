# test: lower
# stop-after: SelectBufferIRFunctions
# target: a5
# On the A5 target every kernel stays on Tile until its rollout is accepted (S21).
import pypto.language as pl

@pl.program
class select_a5:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.add(x, x)
        result = pl.tile.store(y, [0, 0], out)
        return result

# ---- expected ----
# # pypto.program: select_a5
# import pypto.language as pl
#
# @pl.program
# class select_a5:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.add(x, x)
#         result = pl.tile.store(y, [0, 0], out)
#         return result
