# test: lower
# stop-after: PlanMemory
# The planners around loops: `x`, defined before the loop and read in it, lives to the loop's end,
# so no value of the body reuses it; values defined and dead within one trip reuse each other's
# storage; MaterializeSemanticAliases gives the carry `acc` one storage: `nxt` writes `acc0`'s
# allocation in place (A3), which stays live over the whole loop and after it (the kernel is selected:
# L1, S16).
import pypto.language as pl

@pl.program
class plan_loop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[80, 32], pl.FP32]]) -> pl.Tensor[[80, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (o,) in pl.range(4, init_values=(out,)):
            t = pl.tile.exp(x)
            u = pl.tile.muls(t, 2.0)
            v = pl.tile.add(u, x)
            o1 = pl.tile.store(v, [i * 16, 0], o)
            o_out = pl.yield_(o1)
        acc0 = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)
        for j, (acc,) in pl.range(n, init_values=(acc0,)):
            nxt = pl.tile.add(acc, x)
            acc_out = pl.yield_(nxt)
        last = pl.tile.store(acc_out, [64, 0], o_out)
        return last

# ---- expected ----
# # pypto.program: plan_loop
# import pypto.language as pl
#
# @pl.program
# class plan_loop:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[80, 32], pl.FP32]]) -> pl.Tensor[[80, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         for i, (o,) in pl.range(4, init_values=(out,)):
#             t: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.exp(x)
#             u: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.muls(t, 2.0)
#             v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.add(u, x)
#             o1 = pl.tile.store(v, [i * 16, 0], o)
#             o_out = pl.yield_(o1)
#         acc0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.full(
#             [16, 32], dtype=pl.FP32, value=0.0
#         )
#         for j, (acc,) in pl.range(n, init_values=(acc0,)):
#             nxt: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.add(acc, x)
#             acc_out = pl.yield_(nxt)
#         last = pl.tile.store(acc_out, [64, 0], o_out)
#         return last
# ---- expected DSA_RP ----
# # pypto.program: plan_loop
# import pypto.language as pl
#
# @pl.program
# class plan_loop:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[80, 32], pl.FP32]]) -> pl.Tensor[[80, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
#         mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
#         mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         for i, (o,) in pl.range(4, init_values=(out,)):
#             t: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.exp(x)
#             u: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.muls(t, 2.0)
#             v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 2048, 2048), pl.Mem.Vec] = pl.tile.add(u, x)
#             o1 = pl.tile.store(v, [i * 16, 0], o)
#             o_out = pl.yield_(o1)
#         acc0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 2048, 2048), pl.Mem.Vec] = pl.tile.full(
#             [16, 32], dtype=pl.FP32, value=0.0
#         )
#         for j, (acc,) in pl.range(n, init_values=(acc0,)):
#             nxt: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 2048, 2048), pl.Mem.Vec] = pl.tile.add(acc, x)
#             acc_out = pl.yield_(nxt)
#         last = pl.tile.store(acc_out, [64, 0], o_out)
#         return last
# ---- expected PTOAS ----
# # pypto.program: plan_loop
# import pypto.language as pl
#
# @pl.program
# class plan_loop:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[80, 32], pl.FP32]]) -> pl.Tensor[[80, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         for i, (o,) in pl.range(4, init_values=(out,)):
#             t: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.exp(x)
#             u: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.muls(t, 2.0)
#             v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.add(u, x)
#             o1 = pl.tile.store(v, [i * 16, 0], o)
#             o_out = pl.yield_(o1)
#         acc0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec] = pl.tile.full(
#             [16, 32], dtype=pl.FP32, value=0.0
#         )
#         for j, (acc,) in pl.range(n, init_values=(acc0,)):
#             nxt: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_4, 0, 2048), pl.Mem.Vec] = pl.tile.add(acc, x)
#             acc_out = pl.yield_(nxt)
#         last = pl.tile.store(acc_out, [64, 0], o_out)
#         return last
