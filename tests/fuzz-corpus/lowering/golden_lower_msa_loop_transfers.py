# test: lower
# stop-after: MaterializeSemanticAliases
# rules: L8 L9 L10 A3 S16
# The parallel transfer schedule (seed 003): the first loop swaps two carries, so both sources
# overlap a destination and are snapshotted into scratch before either carry is written; the
# second rotates three carries (a 3-cycle); the third fans one value out to two carries: the
# producer `f1` writes carry `f` directly (A3) and the second carry copies it from there without a
# snapshot (its source overlaps no destination written). Every carry's initializer, iter_arg,
# backedge value and result name one storage.
import pypto.language as pl

@pl.program
class msa_loop_transfers:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[112, 32], pl.FP32]]) -> pl.Tensor[[112, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.load(b, [0, 0], [16, 32])
        for i, (p, q) in pl.range(n, init_values=(x, y)):
            p1, q1 = pl.yield_(q, p)
        r0 = pl.tile.adds(p1, 1.0)
        s0 = pl.tile.adds(q1, 2.0)
        t0 = pl.tile.adds(p1, 3.0)
        for j, (r, s, t) in pl.range(n, init_values=(r0, s0, t0)):
            r1, s1, t1 = pl.yield_(s, t, r)
        f0 = pl.tile.muls(r1, 0.5)
        g0 = pl.tile.muls(s1, 0.25)
        for k, (f, g) in pl.range(n, init_values=(f0, g0)):
            f1 = pl.tile.adds(f, 1.0)
            f2, g2 = pl.yield_(f1, f1)
        o0 = pl.tile.store(p1, [0, 0], out)
        o1 = pl.tile.store(q1, [16, 0], o0)
        o2 = pl.tile.store(r1, [32, 0], o1)
        o3 = pl.tile.store(s1, [48, 0], o2)
        o4 = pl.tile.store(t1, [64, 0], o3)
        o5 = pl.tile.store(f2, [80, 0], o4)
        o6 = pl.tile.store(g2, [96, 0], o5)
        return o6

# ---- expected ----
# # pypto.program: msa_loop_transfers
# import pypto.language as pl
#
# @pl.program
# class msa_loop_transfers:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[112, 32], pl.FP32]]) -> pl.Tensor[[112, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_9: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_12: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])
#         for i, (p, q) in pl.range(n, init_values=(x, y)):
#             q_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_8, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 q, target_memory=pl.Mem.Vec
#             )
#             p_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_9, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 p, target_memory=pl.Mem.Vec
#             )
#             p_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 q_snap, target_memory=pl.Mem.Vec
#             )
#             q_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 p_snap, target_memory=pl.Mem.Vec
#             )
#             p1, q1 = pl.yield_(p_next, q_next)
#         r0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.adds(p1, 1.0)
#         s0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.adds(q1, 2.0)
#         t0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec] = pl.tile.adds(p1, 3.0)
#         for j, (r, s, t) in pl.range(n, init_values=(r0, s0, t0)):
#             s_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_10, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 s, target_memory=pl.Mem.Vec
#             )
#             t_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_11, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 t, target_memory=pl.Mem.Vec
#             )
#             r_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_12, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 r, target_memory=pl.Mem.Vec
#             )
#             r_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 s_snap, target_memory=pl.Mem.Vec
#             )
#             s_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 t_snap, target_memory=pl.Mem.Vec
#             )
#             t_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 r_snap, target_memory=pl.Mem.Vec
#             )
#             r1, s1, t1 = pl.yield_(r_next, s_next, t_next)
#         f0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 2048), pl.Mem.Vec] = pl.tile.muls(r1, 0.5)
#         g0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_6, 0, 2048), pl.Mem.Vec] = pl.tile.muls(s1, 0.25)
#         for k, (f, g) in pl.range(n, init_values=(f0, g0)):
#             f1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 2048), pl.Mem.Vec] = pl.tile.adds(f, 1.0)
#             g_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_6, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 f1, target_memory=pl.Mem.Vec
#             )
#             f2, g2 = pl.yield_(f1, g_next)
#         o0 = pl.tile.store(p1, [0, 0], out)
#         o1 = pl.tile.store(q1, [16, 0], o0)
#         o2 = pl.tile.store(r1, [32, 0], o1)
#         o3 = pl.tile.store(s1, [48, 0], o2)
#         o4 = pl.tile.store(t1, [64, 0], o3)
#         o5 = pl.tile.store(f2, [80, 0], o4)
#         o6 = pl.tile.store(g2, [96, 0], o5)
#         return o6
