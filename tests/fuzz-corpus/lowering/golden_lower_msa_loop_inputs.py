# test: lower
# stop-after: MaterializeSemanticAliases
# rules: L2 L3 L8 A3 A4 A7 A8
# Loop-input isolation: `x` is read again after the first loop, so the loop advances a private
# entry copy `x_in` made before it (the copy runs before the loop, so a zero-trip run still
# leaves the result equal to `x`: L2); its producer `acc1` writes the copy directly (A3). The second
# loop starts two carries from one tile: their initial windows overlap, so both get entry copies
# (`x` is also read later). The third starts from a window `w` of `y` (not a whole allocation): an
# entry copy; `v1` keeps its own storage and the backedge value `u1`, an add reading exactly the
# carry's window, writes it in place (A3). The last loop's input `z0` is used by nothing else: the
# carry takes its storage and `z1` writes it in place.
import pypto.language as pl

@pl.program
class msa_loop_inputs:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[96, 32], pl.FP32]]) -> pl.Tensor[[96, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc,) in pl.range(n, init_values=(x,)):
            acc1 = pl.tile.add(acc, acc)
            acc2 = pl.yield_(acc1)
        d = pl.tile.sub(acc2, x)
        for j, (c, e) in pl.range(n, init_values=(x, x)):
            c1 = pl.tile.adds(c, 1.0)
            e1 = pl.tile.muls(e, 2.0)
            c2, e2 = pl.yield_(c1, e1)
        y = pl.tile.load(b, [0, 0], [32, 32])
        w = pl.tile.slice(y, [16, 32], [16, 0])
        for k, (v,) in pl.range(n, init_values=(w,)):
            v1 = pl.tile.exp(v)
            u1 = pl.tile.add(v1, v)
            v2 = pl.yield_(u1)
        z0 = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)
        for m, (z,) in pl.range(n, init_values=(z0,)):
            z1 = pl.tile.muls(z, 3.0)
            z2 = pl.yield_(z1)
        o0 = pl.tile.store(d, [0, 0], out)
        o1 = pl.tile.store(c2, [16, 0], o0)
        o2 = pl.tile.store(e2, [32, 0], o1)
        o3 = pl.tile.store(v2, [48, 0], o2)
        o4 = pl.tile.store(z2, [64, 0], o3)
        o5 = pl.tile.store(x, [80, 0], o4)
        return o5

# ---- expected ----
# # pypto.program: msa_loop_inputs
# import pypto.language as pl
#
# @pl.program
# class msa_loop_inputs:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[32, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[96, 32], pl.FP32]]) -> pl.Tensor[[96, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_10: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_11: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_12: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_13: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         x_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_10, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#             x, target_memory=pl.Mem.Vec
#         )
#         for i, (acc,) in pl.range(n, init_values=(x_in,)):
#             acc1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_10, 0, 2048), pl.Mem.Vec] = pl.tile.add(acc, acc)
#             acc2 = pl.yield_(acc1)
#         d: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.sub(acc2, x)
#         x_in_1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_11, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#             x, target_memory=pl.Mem.Vec
#         )
#         x_in_2: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_12, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#             x, target_memory=pl.Mem.Vec
#         )
#         for j, (c, e) in pl.range(n, init_values=(x_in_1, x_in_2)):
#             c1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_11, 0, 2048), pl.Mem.Vec] = pl.tile.adds(c, 1.0)
#             e1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_12, 0, 2048), pl.Mem.Vec] = pl.tile.muls(e, 2.0)
#             c2, e2 = pl.yield_(c1, e1)
#         y: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 4096), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [32, 32])
#         w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 2048, 2048), pl.Mem.Vec] = pl.tile.slice(
#             y, [16, 32], [16, 0]
#         )
#         w_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_13, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#             w, target_memory=pl.Mem.Vec
#         )
#         for k, (v,) in pl.range(n, init_values=(w_in,)):
#             v1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_6, 0, 2048), pl.Mem.Vec] = pl.tile.exp(v)
#             u1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_13, 0, 2048), pl.Mem.Vec] = pl.tile.add(v1, v)
#             v2 = pl.yield_(u1)
#         z0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_8, 0, 2048), pl.Mem.Vec] = pl.tile.full(
#             [16, 32], dtype=pl.FP32, value=1.0
#         )
#         for m, (z,) in pl.range(n, init_values=(z0,)):
#             z1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_8, 0, 2048), pl.Mem.Vec] = pl.tile.muls(z, 3.0)
#             z2 = pl.yield_(z1)
#         o0 = pl.tile.store(d, [0, 0], out)
#         o1 = pl.tile.store(c2, [16, 0], o0)
#         o2 = pl.tile.store(e2, [32, 0], o1)
#         o3 = pl.tile.store(v2, [48, 0], o2)
#         o4 = pl.tile.store(z2, [64, 0], o3)
#         o5 = pl.tile.store(x, [80, 0], o4)
#         return o5
