# test: lower
# stop-after: MaterializeSemanticAliases
# rules: B1 B2 B3 B4 B5
# Branch destinations (seed 003): `chosen` gets a fresh destination; the then arm's product is an
# arm-local fresh producer, so it writes the destination directly (its own allocation is deleted,
# B3, B4); the else arm yields `x`, defined outside the branch and read after it, so `x` keeps its
# storage and the arm copies it into the destination (B2, B4). `same` is yielded from one window
# in both arms, which it keeps (B1). `both` has two direct producers writing one destination.
import pypto.language as pl

@pl.program
class msa_branches:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], flag: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.load(b, [0, 0], [16, 32])
        if flag:
            product = pl.tile.mul(x, y)
            chosen, same = pl.yield_(product, y)
        else:
            chosen, same = pl.yield_(x, y)
        if flag:
            s1 = pl.tile.adds(x, 1.0)
            both = pl.yield_(s1)
        else:
            s2 = pl.tile.muls(y, 2.0)
            both = pl.yield_(s2)
        o0 = pl.tile.store(chosen, [0, 0], out)
        o1 = pl.tile.store(same, [16, 0], o0)
        o2 = pl.tile.store(both, [32, 0], o1)
        o3 = pl.tile.store(x, [48, 0], o2)
        return o3

# ---- expected ----
# # pypto.program: msa_branches
# import pypto.language as pl
#
# @pl.program
# class msa_branches:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                flag: pl.Scalar[pl.BOOL],
#                out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])
#         if flag:
#             product: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 2048), pl.Mem.Vec] = pl.tile.mul(x, y)
#             chosen, same = pl.yield_(product, y)
#         else:
#             chosen_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 2048), pl.Mem.Vec] = pl.tile.move(
#                 x, target_memory=pl.Mem.Vec
#             )
#             chosen, same = pl.yield_(chosen_next, y)
#         if flag:
#             s1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_6, 0, 2048), pl.Mem.Vec] = pl.tile.adds(x, 1.0)
#             both = pl.yield_(s1)
#         else:
#             s2: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_6, 0, 2048), pl.Mem.Vec] = pl.tile.muls(y, 2.0)
#             both = pl.yield_(s2)
#         o0 = pl.tile.store(chosen, [0, 0], out)
#         o1 = pl.tile.store(same, [16, 0], o0)
#         o2 = pl.tile.store(both, [32, 0], o1)
#         o3 = pl.tile.store(x, [48, 0], o2)
#         return o3
