# test: lower
# stop-after: PlanMemory
# buffer-ir: off
# enable_buffer_ir=False keeps every kernel on Tile (S1, ST1); storage is still planned for the Tile
# path.
import pypto.language as pl

@pl.program
class select_buffer_ir_off:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.add(x, x)
        z = pl.tile.mul(y, x)
        result = pl.tile.store(z, [0, 0], out)
        return result

# ---- expected ----
# # pypto.program: select_buffer_ir_off
# import pypto.language as pl
#
# @pl.program
# class select_buffer_ir_off:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.add(x, x)
#         z: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.mul(y, x)
#         result = pl.tile.store(z, [0, 0], out)
#         return result
# ---- expected DSA_RP ----
# # pypto.program: select_buffer_ir_off
# import pypto.language as pl
#
# @pl.program
# class select_buffer_ir_off:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.add(x, x)
#         z: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.mul(y, x)
#         result = pl.tile.store(z, [0, 0], out)
#         return result
# ---- expected PTOAS ----
# # pypto.program: select_buffer_ir_off
# import pypto.language as pl
#
# @pl.program
# class select_buffer_ir_off:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.add(x, x)
#         z: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.mul(y, x)
#         result = pl.tile.store(z, [0, 0], out)
#         return result
