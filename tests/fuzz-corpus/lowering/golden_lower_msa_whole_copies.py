# test: lower
# stop-after: MaterializeSemanticAliases
# rules: L2 L3 L9
# Copies that keep every lane (semantics.md §2): `tile.move` copies only the valid region, but a
# later `set_validshape` that grows the region exposes the other lanes again, with the state they
# had. So where the kernel has such an op, a compiler copy of a narrowed tile widens its source to
# the whole tile (a view), moves every lane and narrows the copy again. The first loop starts two
# carries from the narrowed `t` (entry copies, L3) and swaps them on every trip (snapshots and
# transfers, L9); the second starts from `u`, whose runtime valid rows `v` the setters state by name.
import pypto.language as pl

@pl.program
class msa_whole_copies:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], v: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[48, 32], pl.FP32]]) -> pl.Tensor[[48, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        t = pl.tile.set_validshape(x, 1, 23)
        for i, (c, d) in pl.range(n, init_values=(t, t)):
            c2, d2 = pl.yield_(d, c)
        g = pl.tile.set_validshape(c2, 16, 32)
        h = pl.tile.set_validshape(d2, 16, 32)
        o0 = pl.tile.store(g, [0, 0], out)
        o1 = pl.tile.store(h, [16, 0], o0)
        u = pl.tile.set_validshape(x, v, 32)
        for j, (e,) in pl.range(n, init_values=(u,)):
            e2 = pl.yield_(e)
        o2 = pl.tile.store(u, [32, 0], o1)
        k = pl.tile.set_validshape(e2, 16, 32)
        o3 = pl.tile.store(k, [32, 0], o2)
        return o3

# ---- expected ----
# # pypto.program: msa_whole_copies
# import pypto.language as pl
#
# @pl.program
# class msa_whole_copies:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                v: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[48, 32], pl.FP32]]) -> pl.Tensor[[48, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         t: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[1, 23])] = pl.tile.set_validshape(x, 1, 23)
#         t_in_whole_src: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(
#             t, 16, 32
#         )
#         t_in_whole: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#             t_in_whole_src, target_memory=pl.Mem.Vec
#         )
#         t_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[1, 23])] = pl.tile.set_validshape(t_in_whole, 1, 23)
#         t_in_1_whole_src: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(t, 16, 32)
#         t_in_1_whole: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#             t_in_1_whole_src, target_memory=pl.Mem.Vec
#         )
#         t_in_1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[1, 23])] = pl.tile.set_validshape(t_in_1_whole, 1, 23)
#         for i, (c, d) in pl.range(n, init_values=(t_in, t_in_1)):
#             d_snap_whole_src: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(d, 16, 32)
#             d_snap_whole: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 d_snap_whole_src, target_memory=pl.Mem.Vec
#             )
#             d_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[1, 23])] = pl.tile.set_validshape(d_snap_whole, 1, 23)
#             c_snap_whole_src: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(c, 16, 32)
#             c_snap_whole: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 c_snap_whole_src, target_memory=pl.Mem.Vec
#             )
#             c_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[1, 23])] = pl.tile.set_validshape(c_snap_whole, 1, 23)
#             c_next_whole_src: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(d_snap, 16, 32)
#             c_next_whole: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 c_next_whole_src, target_memory=pl.Mem.Vec
#             )
#             c_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[1, 23])] = pl.tile.set_validshape(c_next_whole, 1, 23)
#             d_next_whole_src: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(c_snap, 16, 32)
#             d_next_whole: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 d_next_whole_src, target_memory=pl.Mem.Vec
#             )
#             d_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[1, 23])] = pl.tile.set_validshape(d_next_whole, 1, 23)
#             c2, d2 = pl.yield_(c_next, d_next)
#         g: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(c2, 16, 32)
#         h: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(d2, 16, 32)
#         o0 = pl.tile.store(g, [0, 0], out)
#         o1 = pl.tile.store(h, [16, 0], o0)
#         u: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[v, 32])] = pl.tile.set_validshape(x, v, 32)
#         u_in_whole_src: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(
#             u, 16, 32
#         )
#         u_in_whole: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#             u_in_whole_src, target_memory=pl.Mem.Vec
#         )
#         u_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[v, 32])] = pl.tile.set_validshape(u_in_whole, v, 32)
#         for j, (e,) in pl.range(n, init_values=(u_in,)):
#             e2 = pl.yield_(e)
#         o2 = pl.tile.store(u, [32, 0], o1)
#         k: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 2048), pl.Mem.Vec] = pl.tile.set_validshape(e2, 16, 32)
#         o3 = pl.tile.store(k, [32, 0], o2)
#         return o3
