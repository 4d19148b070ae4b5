# test: lower
# stop-after: InitMemRef
# rules: W1 W4 A18 A20 A21 P14
# InitMemRef on a straight-line Vec kernel: one root per allocation identity; slices at their byte
# offset in the frame they cut (nested slices keep the parent's 128-byte pitch; a runtime row offset
# prints -1) with their byte span as size; reshape and set_validshape share their input's storage;
# an assemble whose target is dead afterwards writes in place, one whose target is read later gets
# storage of its own (semantics.md §3 copies the target first).
import pypto.language as pl

@pl.program
class init_memref_views:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 32], pl.FP32], r: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[96, 32], pl.FP32]]) -> pl.Tensor[[96, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [32, 32])
        top = pl.tile.slice(x, [16, 32], [8, 0])
        inner = pl.tile.slice(top, [8, 16], [4, 8])
        moving = pl.tile.slice(x, [8, 32], [r, 0])
        flat = pl.tile.reshape(top, [64, 8])
        part = pl.tile.set_validshape(x, 20, 32)
        canvas = pl.tile.create([16, 32], dtype=pl.FP32)
        filled = pl.tile.assemble(canvas, inner, [0, 8])
        kept = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)
        grown = pl.tile.assemble(kept, inner, [8, 16])
        sum = pl.tile.add(kept, grown)
        o0 = pl.tile.store(filled, [0, 0], out)
        o1 = pl.tile.store(sum, [16, 0], o0)
        o2 = pl.tile.store(moving, [32, 0], o1)
        o3 = pl.tile.store(part, [40, 0], o2)
        o4 = pl.tile.store(flat, [0, 0], o3)
        return o4

# ---- expected ----
# # pypto.program: init_memref_views
# import pypto.language as pl
#
# @pl.program
# class init_memref_views:
#     @pl.function(type=pl.FunctionType.InCore)
#     def kernel(self,
#                a: pl.Tensor[[32, 32], pl.FP32],
#                r: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[96, 32], pl.FP32]]) -> pl.Tensor[[96, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         x: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 32])
#         top: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 1024, 2048), pl.Mem.Vec] = pl.tile.slice(
#             x, [16, 32], [8, 0]
#         )
#         inner: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_0, 1568, 960), pl.Mem.Vec] = pl.tile.slice(
#             top, [8, 16], [4, 8]
#         )
#         moving: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_0, -1, 1024), pl.Mem.Vec] = pl.tile.slice(
#             x, [8, 32], [r, 0]
#         )
#         flat: pl.Tile[[64, 8], pl.FP32, pl.MemRef(mem_vec_0, 1024, 2048), pl.Mem.Vec] = pl.tile.reshape(top, [64, 8])
#         part: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec, pl.TileView(valid_shape=[20, 32])] = pl.tile.set_validshape(x, 20, 32)
#         canvas: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.create(
#             [16, 32], dtype=pl.FP32
#         )
#         filled: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.assemble(
#             canvas, inner, [0, 8]
#         )
#         kept: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.full(
#             [16, 32], dtype=pl.FP32, value=1.0
#         )
#         grown: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.assemble(
#             kept, inner, [8, 16]
#         )
#         sum: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec] = pl.tile.add(kept, grown)
#         o0 = pl.tile.store(filled, [0, 0], out)
#         o1 = pl.tile.store(sum, [16, 0], o0)
#         o2 = pl.tile.store(moving, [32, 0], o1)
#         o3 = pl.tile.store(part, [40, 0], o2)
#         o4 = pl.tile.store(flat, [0, 0], o3)
#         return o4
