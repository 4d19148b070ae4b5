# test: lower
# stop-after: MaterializeSemanticAliases
# rules: W9 P11 P14 W1
# Copies the storage plan needs before any planner runs (InitMemRef, kept by MSA):
# - `y = assemble(x, x, [0, 0])` assembles a tile into itself: its source is its target's bytes, so
#   it cannot write in place (W9) and gets storage of its own (the planned run copies x first).
# - `row` is a one-row window of 256-byte rows and `win` a window at a runtime row offset: a
#   relabel reinterprets a dense tile from a static base (P11, P14), so each relabel reads a dense
#   copy (`row_dense`, `win_dense`). `band` keeps the dense pitch at a static offset: no copy.
# - A row reduction writes poison over its tmp (semantics.md §2): `s` is read again later and `t`
#   is also the reduced tile, so each reduction gets a private scratch copy (`s_scratch`,
#   `t_scratch`); `q`, read by nothing else, is used as scratch directly.
import pypto.language as pl

@pl.program
class msa_storage_copies:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], r: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[40, 64], pl.FP32]],
               out2: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> tuple[pl.Tensor[[40, 64], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
        x = pl.tile.load(a, [0, 0], [16, 64])
        y = pl.tile.assemble(x, x, [0, 0])
        row = pl.tile.slice(y, [1, 16], [0, 0])
        flat = pl.tile.reshape(row, [2, 8])
        win = pl.tile.slice(y, [8, 8], [r, 8])
        tr = pl.tile.transpose_view(win)
        band = pl.tile.slice(y, [8, 64], [8, 0])
        dense = pl.tile.reshape(band, [16, 32])
        s = pl.tile.load(a, [0, 0], [16, 64])
        m = pl.tile.row_min(y, s)
        t = pl.tile.adds(s, 1.0)
        m2 = pl.tile.row_max(t, t)
        q = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        m3 = pl.tile.row_sum(t, q)
        u = pl.tile.add(m, m2)
        u2 = pl.tile.add(u, m3)
        o0 = pl.tile.store(t, [0, 0], out)
        o1 = pl.tile.store(flat, [16, 0], o0)
        o2 = pl.tile.store(tr, [16, 8], o1)
        o3 = pl.tile.store(dense, [24, 0], o2)
        o4 = pl.tile.store(u2, [0, 0], out2)
        return o3, o4

# ---- expected ----
# # pypto.program: msa_storage_copies
# import pypto.language as pl
#
# @pl.program
# class msa_storage_copies:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
#     def kernel(self,
#                a: pl.Tensor[[16, 64], pl.FP32],
#                r: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[40, 64], pl.FP32]],
#                out2: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> tuple[pl.Tensor[[40, 64], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
#         mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
#         mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
#         mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
#         mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
#         mem_vec_12: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
#         mem_vec_13: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 64)
#         x: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64])
#         y: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096), pl.Mem.Vec] = pl.tile.assemble(x, x, [0, 0])
#         row: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 64), pl.Mem.Vec] = pl.tile.slice(y, [1, 16], [0, 0])
#         row_dense: pl.Tile[[1, 16], pl.FP32, pl.MemRef(mem_vec_2, 0, 64), pl.Mem.Vec] = pl.tile.move(
#             row, target_memory=pl.Mem.Vec
#         )
#         flat: pl.Tile[[2, 8], pl.FP32, pl.MemRef(mem_vec_2, 0, 64), pl.Mem.Vec] = pl.tile.reshape(row_dense, [2, 8])
#         win: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_1, -1, 1824), pl.Mem.Vec] = pl.tile.slice(y, [8, 8], [r, 8])
#         win_dense: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_3, 0, 256), pl.Mem.Vec] = pl.tile.move(
#             win, target_memory=pl.Mem.Vec
#         )
#         tr: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_3, 0, 256), pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(win_dense)
#         band: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.slice(
#             y, [8, 64], [8, 0]
#         )
#         dense: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.reshape(
#             band, [16, 32]
#         )
#         s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, 0, 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64])
#         s_scratch: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, 0, 4096), pl.Mem.Vec] = pl.tile.create(
#             [16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec
#         )
#         m: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_6, 0, 64), pl.Mem.Vec] = pl.tile.row_min(y, s_scratch)
#         t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_7, 0, 4096), pl.Mem.Vec] = pl.tile.adds(s, 1.0)
#         t_scratch: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_8, 0, 4096), pl.Mem.Vec] = pl.tile.create(
#             [16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec
#         )
#         m2: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_9, 0, 64), pl.Mem.Vec] = pl.tile.row_max(t, t_scratch)
#         q: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_10, 0, 4096), pl.Mem.Vec] = pl.tile.full(
#             [16, 64], dtype=pl.FP32, value=0.0
#         )
#         m3: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_11, 0, 64), pl.Mem.Vec] = pl.tile.row_sum(t, q)
#         u: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_12, 0, 64), pl.Mem.Vec] = pl.tile.add(m, m2)
#         u2: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_13, 0, 64), pl.Mem.Vec] = pl.tile.add(u, m3)
#         o0 = pl.tile.store(t, [0, 0], out)
#         o1 = pl.tile.store(flat, [16, 0], o0)
#         o2 = pl.tile.store(tr, [16, 8], o1)
#         o3 = pl.tile.store(dense, [24, 0], o2)
#         o4 = pl.tile.store(u2, [0, 0], out2)
#         return o3, o4
