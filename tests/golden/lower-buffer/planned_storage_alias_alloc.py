# test: lower-buffer
# planners: PYPTO
# rules: P6 P14 P17 W1 W2 W17
# Shared addressed storage whose interior member is a window parent: a subview of a relabelled
# byte view is not legal for PTOAS, so the window parent `x` gets an alias allocation at its planned
# address, while the plain member `y` stays a UINT8 subview reshaped to its type. The window at
# rows [4, 12) of x inherits x's pitch and carries its valid tuple. Addressed planners only: the
# addressless form of this plan fails closed under PTOAS with [P17] (an interior window parent).
import pypto.language as pl

@pl.program
class planned_storage_alias_alloc:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=1024)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024, addr=0)
        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 1024, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        w: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_0, 1536, 1024), pl.Mem.Vec] = pl.tile.slice(x, [8, 32], [4, 0])
        e: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.tile.exp(w)
        o1 = pl.tile.store(e, [0, 0], out)
        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 3072, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        o2 = pl.tile.store(y, [0, 0], out2)
        return o1, o2

# ---- expected ----
# # pypto.program: planned_storage_alias_alloc
# import pypto.language as pl
#
# @pl.program
# class planned_storage_alias_alloc:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                out: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
#                out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
#         mem_vec_0: pl.Buffer[[128, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.alloc((), 1024)
#         x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 1024)
#         mem_vec_0_2048: pl.Buffer[[64, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.subview(mem_vec_0, [64, 0])
#         y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(mem_vec_0_2048)
#         e: pl.Buffer[[8, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         pl.buffer.load(a, [0, 0], [16, 32], x)
#         w: pl.Buffer[[8, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(x, [4, 0], [8, 32])
#         pl.buffer.exp(w, e)
#         pl.buffer.store(e, [0, 0], [8, 32], out)
#         pl.buffer.load(a, [0, 0], [16, 32], y)
#         pl.buffer.store(y, [0, 0], [16, 32], out2)
#         return out, out2
