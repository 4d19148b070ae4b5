# test: lower
# stop-after: PlanMemory
# The planners on a straight-line Vec kernel. PYPTO: `d` reuses `x` in place (x's last read is the
# add defining d, an in-place-safe op reading exactly x's window); `r = recip(d)` never shares d's
# storage (recip cannot run in place); `w = muls(s, ...)` reads a window `s` of `e`, so it never
# lands on e's storage (W13); later values reuse roots whose lifetimes ended. DSA_RP keeps every
# identity's root and packs addresses by lifetime; PTOAS keeps identities without addresses.
import pypto.language as pl

@pl.program
class plan_straight:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 64])
        y = pl.tile.load(b, [0, 0], [16, 64])
        d = pl.tile.add(x, y)
        r = pl.tile.recip(d)
        e = pl.tile.exp(r)
        s = pl.tile.slice(e, [16, 32], [0, 32])
        w = pl.tile.muls(s, 2.0)
        o0 = pl.tile.store(w, [0, 0], out)
        f = pl.tile.full([16, 64], dtype=pl.FP32, value=0.5)
        g = pl.tile.mul(f, y)
        o1 = pl.tile.store(g, [16, 0], o0)
        o2 = pl.tile.store(e, [32, 0], o1)
        return o2

# ---- expected ----
# # pypto.program: plan_straight
# import pypto.language as pl
#
# @pl.program
# class plan_straight:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 64], pl.FP32],
#                b: pl.Tensor[[16, 64], pl.FP32],
#                out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=4096)
#         mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=8192)
#         x: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64])
#         y: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 4096, 4096), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 64])
#         d: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.add(x, y)
#         r: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, 8192, 4096), pl.Mem.Vec] = pl.tile.recip(d)
#         e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.exp(r)
#         s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 128, 3968), pl.Mem.Vec] = pl.tile.slice(e, [16, 32], [0, 32])
#         w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 8192, 2048), pl.Mem.Vec] = pl.tile.muls(s, 2.0)
#         o0 = pl.tile.store(w, [0, 0], out)
#         f: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, 8192, 4096), pl.Mem.Vec] = pl.tile.full(
#             [16, 64], dtype=pl.FP32, value=0.5
#         )
#         g: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 4096, 4096), pl.Mem.Vec] = pl.tile.mul(f, y)
#         o1 = pl.tile.store(g, [16, 0], o0)
#         o2 = pl.tile.store(e, [32, 0], o1)
#         return o2
# ---- expected DSA_RP ----
# # pypto.program: plan_straight
# import pypto.language as pl
#
# @pl.program
# class plan_straight:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 64], pl.FP32],
#                b: pl.Tensor[[16, 64], pl.FP32],
#                out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=4096)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=8192)
#         mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)
#         mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=8192)
#         mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
#         mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)
#         mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=12288)
#         x: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64])
#         y: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 4096, 4096), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 64])
#         d: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, 8192, 4096), pl.Mem.Vec] = pl.tile.add(x, y)
#         r: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, 0, 4096), pl.Mem.Vec] = pl.tile.recip(d)
#         e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, 8192, 4096), pl.Mem.Vec] = pl.tile.exp(r)
#         s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 8320, 3968), pl.Mem.Vec] = pl.tile.slice(
#             e, [16, 32], [0, 32]
#         )
#         w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 2048), pl.Mem.Vec] = pl.tile.muls(s, 2.0)
#         o0 = pl.tile.store(w, [0, 0], out)
#         f: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_6, 0, 4096), pl.Mem.Vec] = pl.tile.full(
#             [16, 64], dtype=pl.FP32, value=0.5
#         )
#         g: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_7, 12288, 4096), pl.Mem.Vec] = pl.tile.mul(f, y)
#         o1 = pl.tile.store(g, [16, 0], o0)
#         o2 = pl.tile.store(e, [32, 0], o1)
#         return o2
# ---- expected PTOAS ----
# # pypto.program: plan_straight
# import pypto.language as pl
#
# @pl.program
# class plan_straight:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 64], pl.FP32],
#                b: pl.Tensor[[16, 64], pl.FP32],
#                out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         x: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64])
#         y: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 64])
#         d: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, 0, 4096), pl.Mem.Vec] = pl.tile.add(x, y)
#         r: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, 0, 4096), pl.Mem.Vec] = pl.tile.recip(d)
#         e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, 0, 4096), pl.Mem.Vec] = pl.tile.exp(r)
#         s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 128, 3968), pl.Mem.Vec] = pl.tile.slice(e, [16, 32], [0, 32])
#         w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 2048), pl.Mem.Vec] = pl.tile.muls(s, 2.0)
#         o0 = pl.tile.store(w, [0, 0], out)
#         f: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_6, 0, 4096), pl.Mem.Vec] = pl.tile.full(
#             [16, 64], dtype=pl.FP32, value=0.5
#         )
#         g: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_7, 0, 4096), pl.Mem.Vec] = pl.tile.mul(f, y)
#         o1 = pl.tile.store(g, [16, 0], o0)
#         o2 = pl.tile.store(e, [32, 0], o1)
#         return o2
