# test: lower-buffer
# planners: PYPTO DSA_RP PTOAS
# rules: S9 S11 S12 S13 S22 P7
# Straight-line FP32 elementwise kernel: every binary, unary and tile-scalar op of the default table.
# Scalars reach the Buffer ops already converted to the destination dtype (the INDEX literal 2
# becomes 2.0, the FP32 parameter passes unchanged); full's shape and dtype select its destination;
# recip writes a distinct destination; values the planner placed in one window share its handle and
# run in place; block queries become buffer queries.
import pypto.language as pl

@pl.program
class elementwise_fp32:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 32], pl.FP32], y: pl.Tensor[[64, 32], pl.FP32], s: pl.Scalar[pl.FP32],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
        bi = pl.tile.get_block_idx()
        row = bi * 16
        p: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(x, [row, 0], [16, 32])
        q: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.load(y, [row, 0], [16, 32])
        t1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.sub(p, q)
        t2: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.div(t1, q)
        t3: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.maximum(t2, p)
        t4: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.minimum(t3, q)
        u1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.abs(t4)
        u2: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.exp(u1)
        u3: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.sqrt(u2)
        u4: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.log(u3)
        u5: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.neg(u4)
        u6: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.relu(u5)
        r: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.recip(u6)
        v1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.adds(r, 2)
        v2: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.subs(v1, s)
        v3: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.muls(v2, -0.5)
        v4: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.divs(v3, pl.const(4, pl.INT32))
        v5: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.maximums(v4, -1.0)
        v6: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.minimums(v5, 1e3)
        v7: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.lrelu(v6, 0.125)
        f: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=3)
        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.mul(v7, f)
        o = pl.tile.store(w, [row, 0], out)
        return o

# ---- expected ----
# # pypto.program: elementwise_fp32
# import pypto.language as pl
#
# @pl.program
# class elementwise_fp32:
#     @pl.function(type=pl.FunctionType.AIV, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                x: pl.Tensor[[64, 32], pl.FP32],
#                y: pl.Tensor[[64, 32], pl.FP32],
#                s: pl.Scalar[pl.FP32],
#                out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
#         p: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         q: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
#         t1: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
#         bi = pl.buffer.get_block_idx()
#         row = bi * 16
#         pl.buffer.load(x, [row, 0], [16, 32], p)
#         pl.buffer.load(y, [row, 0], [16, 32], q)
#         pl.buffer.sub(p, q, t1)
#         pl.buffer.div(t1, q, t1)
#         pl.buffer.maximum(t1, p, t1)
#         pl.buffer.minimum(t1, q, t1)
#         pl.buffer.abs(t1, t1)
#         pl.buffer.exp(t1, t1)
#         pl.buffer.sqrt(t1, t1)
#         pl.buffer.log(t1, t1)
#         pl.buffer.neg(t1, t1)
#         pl.buffer.relu(t1, t1)
#         pl.buffer.recip(t1, p)
#         pl.buffer.adds(p, 2.0, p)
#         pl.buffer.subs(p, s, p)
#         pl.buffer.muls(p, -0.5, p)
#         pl.buffer.divs(p, 4.0, p)
#         pl.buffer.maximums(p, -1.0, p)
#         pl.buffer.minimums(p, 1000.0, p)
#         pl.buffer.lrelu(p, 0.125, p)
#         pl.buffer.full(3.0, q)
#         pl.buffer.mul(p, q, q)
#         pl.buffer.store(q, [row, 0], [16, 32], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: elementwise_fp32
# import pypto.language as pl
#
# @pl.program
# class elementwise_fp32:
#     @pl.function(type=pl.FunctionType.AIV, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                x: pl.Tensor[[64, 32], pl.FP32],
#                y: pl.Tensor[[64, 32], pl.FP32],
#                s: pl.Scalar[pl.FP32],
#                out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
#         p: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         q: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         t1: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         bi = pl.buffer.get_block_idx()
#         row = bi * 16
#         pl.buffer.load(x, [row, 0], [16, 32], p)
#         pl.buffer.load(y, [row, 0], [16, 32], q)
#         pl.buffer.sub(p, q, t1)
#         pl.buffer.div(t1, q, t1)
#         pl.buffer.maximum(t1, p, t1)
#         pl.buffer.minimum(t1, q, t1)
#         pl.buffer.abs(t1, t1)
#         pl.buffer.exp(t1, t1)
#         pl.buffer.sqrt(t1, t1)
#         pl.buffer.log(t1, t1)
#         pl.buffer.neg(t1, t1)
#         pl.buffer.relu(t1, t1)
#         pl.buffer.recip(t1, p)
#         pl.buffer.adds(p, 2.0, p)
#         pl.buffer.subs(p, s, p)
#         pl.buffer.muls(p, -0.5, p)
#         pl.buffer.divs(p, 4.0, p)
#         pl.buffer.maximums(p, -1.0, p)
#         pl.buffer.minimums(p, 1000.0, p)
#         pl.buffer.lrelu(p, 0.125, p)
#         pl.buffer.full(3.0, q)
#         pl.buffer.mul(p, q, q)
#         pl.buffer.store(q, [row, 0], [16, 32], out)
#         return out
