# test: lower
# stop-after: MaterializeSemanticAliases
# rules: L3 L9 M14
# Copies of a col-major (DN) tile: `tile.move` gives its result the space's row-major layout, so
# MaterializeSemanticAliases copies a DN tile as its transposed (row-major) view and views the copy
# back. The loop starts from `t`, a transposed view of `x`, which is stored after the loop (an entry
# copy, L3), and yields `u`, the transposed view of a value in other storage (a transfer, L9).
import pypto.language as pl

@pl.program
class msa_transposed_copies:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 16], pl.FP32]],
               out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        t = pl.tile.transpose_view(x)
        for i, (c,) in pl.range(n, init_values=(t,)):
            v = pl.tile.transpose_view(c)
            w = pl.tile.adds(v, 1.0)
            u = pl.tile.transpose_view(w)
            r = pl.yield_(u)
        o = pl.tile.store(r, [0, 0], out)
        o2 = pl.tile.store(x, [0, 0], out2)
        return o, o2

# ---- expected ----
# # pypto.program: msa_transposed_copies
# import pypto.language as pl
#
# @pl.program
# class msa_transposed_copies:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[32, 16], pl.FP32]],
#                out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         t: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(x)
#         t_in_nd: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.transpose_view(t)
#         t_in_moved: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#             t_in_nd, target_memory=pl.Mem.Vec
#         )
#         t_in: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(t_in_moved)
#         for i, (c,) in pl.range(n, init_values=(t_in,)):
#             v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.transpose_view(c)
#             w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.adds(v, 1.0)
#             u: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(w)
#             c_next_nd: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.transpose_view(u)
#             c_next_moved: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 c_next_nd, target_memory=pl.Mem.Vec
#             )
#             c_next: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(c_next_moved)
#             r = pl.yield_(c_next)
#         o = pl.tile.store(r, [0, 0], out)
#         o2 = pl.tile.store(x, [0, 0], out2)
#         return o, o2
