# test: lower
# stop-after: MaterializeSemanticAliases
# rules: L2 L8 A3 A5 A6 A7 S16
# While carries and nested loops: the while carry `t` starts from `t0`, which nothing else reads,
# so `t1` writes the carry storage in place. The nest's outer carry `e` feeds the inner loop, which
# advances it in place: the outer result `e1`, read after the nest, takes the outer carry's initial
# value only when no outer trip ran, and then the inner loop did not run either (A7), so it observes
# nothing the inner loop overwrote. One storage serves e0, e, g, g1 and e1, without copies (until
# 2026-12-02 evening the inner loop advanced an entry copy `e_in` made on every outer trip, and the
# outer backedge transferred it back). Zero trips of either loop keep the input (L2).
import pypto.language as pl

@pl.program
class msa_while_nested:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        t0 = pl.tile.load(a, [0, 0], [16, 32])
        for (t, k) in pl.while_(init_values=(t0, 0)):
            pl.cond(k < n)
            t1 = pl.tile.adds(t, 1.0)
            t2, k2 = pl.yield_(t1, k + 1)
        e0 = pl.tile.muls(t2, 2.0)
        for i, (e,) in pl.range(m, init_values=(e0,)):
            for j, (g,) in pl.range(i, init_values=(e,)):
                g1 = pl.tile.exp(g)
                g2 = pl.yield_(g1)
            e1 = pl.yield_(g2)
        o0 = pl.tile.store(t2, [0, 0], out)
        o1 = pl.tile.store(e1, [16, 0], o0)
        return o1

# ---- expected ----
# # pypto.program: msa_while_nested
# import pypto.language as pl
#
# @pl.program
# class msa_while_nested:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                m: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         t0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         for (t, k) in pl.while_(init_values=(t0, 0)):
#             pl.cond(k < n)
#             t1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.adds(t, 1.0)
#             t2, k2 = pl.yield_(t1, k + 1)
#         e0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.muls(t2, 2.0)
#         for i, (e,) in pl.range(m, init_values=(e0,)):
#             for j, (g,) in pl.range(i, init_values=(e,)):
#                 g1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.exp(g)
#                 g2 = pl.yield_(g1)
#             e1 = pl.yield_(g2)
#         o0 = pl.tile.store(t2, [0, 0], out)
#         o1 = pl.tile.store(e1, [16, 0], o0)
#         return o1
