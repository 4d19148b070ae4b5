# test: lower-buffer
# planners: PYPTO PTOAS
# rules: P1 P2 P4 P6 P7 P10 P11 P12 P14
# The seed's planned storage views: allocation mem_vec_0 (capacity 4096, base address 8192) serves a
# full-capacity FP32[32, 32] tile and, after its lifetime, a dense FP32[16, 32] member at effective
# address 8256 and its [32, 16] relabel. The root becomes one full-valid UINT8[128, 32] buffer; the
# full-capacity member reshapes it, the interior member is a subview at row 64/32 = 2 reshaped to
# its type, and the relabel (same bytes) shares that subview. tile.reshape itself emits nothing.
# Under PTOAS the same root is addressless (symbolic origin 0): the member's offset is 64 relative
# to it, the same row 2, so only the address operands disappear.
import pypto.language as pl

@pl.program
class planned_storage_views:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], big_out: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
               out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=8192)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=12288)
        big: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_0, 8192, 4096), pl.Mem.Vec] = pl.tile.full([32, 32], dtype=pl.FP32, value=1.5)
        o1 = pl.tile.store(big, [0, 0], big_out)
        value: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 8256, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        relabel: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_vec_0, 8256, 2048), pl.Mem.Vec] = pl.tile.reshape(value, [32, 16])
        e: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_vec_1, 12288, 2048), pl.Mem.Vec] = pl.tile.exp(relabel)
        o2 = pl.tile.store(e, [0, 0], out)
        return o2

# ---- expected ----
# # pypto.program: planned_storage_views
# import pypto.language as pl
#
# @pl.program
# class planned_storage_views:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                big_out: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
#                out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
#         mem_vec_0: pl.Buffer[[128, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.alloc((), 8192)
#         big: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(mem_vec_0)
#         mem_vec_0_64: pl.Buffer[[64, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.subview(mem_vec_0, [2, 0])
#         value: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(mem_vec_0_64)
#         relabel: pl.Buffer[[32, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(mem_vec_0_64)
#         e: pl.Buffer[[32, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 12288)
#         pl.buffer.full(1.5, big)
#         pl.buffer.store(big, [0, 0], [32, 32], big_out)
#         pl.buffer.load(a, [0, 0], [16, 32], value)
#         pl.buffer.exp(relabel, e)
#         pl.buffer.store(e, [0, 0], [32, 16], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: planned_storage_views
# import pypto.language as pl
#
# @pl.program
# class planned_storage_views:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                big_out: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
#                out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
#         mem_vec_0: pl.Buffer[[128, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.alloc(())
#         big: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(mem_vec_0)
#         mem_vec_0_64: pl.Buffer[[64, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.subview(mem_vec_0, [2, 0])
#         value: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(mem_vec_0_64)
#         relabel: pl.Buffer[[32, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(mem_vec_0_64)
#         e: pl.Buffer[[32, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.full(1.5, big)
#         pl.buffer.store(big, [0, 0], [32, 32], big_out)
#         pl.buffer.load(a, [0, 0], [16, 32], value)
#         pl.buffer.exp(relabel, e)
#         pl.buffer.store(e, [0, 0], [32, 16], out)
#         return out
