# test: roundtrip
# Every Tile op family, written partly in non-canonical spellings (keywords, tuples, None for an
# omitted optional argument, pl.MemorySpace) that the printer normalises.
import pypto.language as pl

@pl.program
class tile_ops:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[32, 16], pl.FP16],
               s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.load(tensor=a, offsets=(0, 0), shapes=(16, 32), valid_shape=None)
        z = pl.tile.load(a, [0, 0], [16, 32], [8, 32], pl.MemorySpace.Vec)
        e1 = pl.tile.add(x, y)
        e2 = pl.tile.sub(e1, y)
        e3 = pl.tile.mul(e2, y)
        e4 = pl.tile.div(e3, y)
        e5 = pl.tile.maximum(e4, y)
        e6 = pl.tile.minimum(e5, y)
        u1 = pl.tile.abs(e6)
        u2 = pl.tile.exp(u1)
        u3 = pl.tile.sqrt(u2)
        u4 = pl.tile.neg(u3)
        u5 = pl.tile.relu(u4)
        u6 = pl.tile.log(u5)
        u7 = pl.tile.recip(u6)
        s1 = pl.tile.adds(u7, s)
        s2 = pl.tile.subs(s1, 1.0)
        s3 = pl.tile.muls(s2, -0.5)
        s4 = pl.tile.divs(s3, 3.0)
        s5 = pl.tile.maximums(s4, 0.0)
        s6 = pl.tile.minimums(s5, 1e30)
        s7 = pl.tile.lrelu(s6, slope=0.01)
        f = pl.tile.full([16, 32], pl.FP32, 2.0)
        c = pl.tile.create(shape=[16, 32], dtype=pl.FP32)
        sl = pl.tile.slice(s7, [8, 16], [0, 16], valid_shape=[8, 8])
        asm = pl.tile.assemble(c, sl, [8, 0])
        rs = pl.tile.reshape(asm, [32, 16])
        sv = pl.tile.set_validshape(rs, 16, 16)
        col = pl.tile.row_sum(f, z)
        rmax = pl.tile.row_max(f, z)
        rmin = pl.tile.row_min(f, z)
        csum = pl.tile.col_sum(f)
        cmax = pl.tile.col_max(f)
        cmin = pl.tile.col_min(f)
        wt = pl.tile.load(w, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        l = pl.tile.extract(wt, 0, 0, [16, 16], pl.Mem.Left)
        r = pl.tile.move(wt, target_memory=pl.Mem.Right)
        rt = pl.tile.transpose_view(r)
        acc = pl.tile.matmul(l, rt)
        acc2 = pl.tile.matmul_acc(acc, l, rt)
        acc3 = pl.tile.matmul_acc(acc2, l, rt, init_cond=True)
        bi = pl.tile.get_block_idx()
        bn = pl.tile.get_block_num()
        sb = pl.tile.get_subblock_idx()
        result = pl.tile.store(e6, [bi * 0, 0], out)
        return result

# ---- expected ----
# # pypto.program: tile_ops
# import pypto.language as pl
#
# @pl.program
# class tile_ops:
#     @pl.function(type=pl.FunctionType.InCore)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                w: pl.Tensor[[32, 16], pl.FP16],
#                s: pl.Scalar[pl.FP32],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         x: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         y = pl.tile.load(a, [0, 0], [16, 32])
#         z = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32], target_memory=pl.Mem.Vec)
#         e1 = pl.tile.add(x, y)
#         e2 = pl.tile.sub(e1, y)
#         e3 = pl.tile.mul(e2, y)
#         e4 = pl.tile.div(e3, y)
#         e5 = pl.tile.maximum(e4, y)
#         e6 = pl.tile.minimum(e5, y)
#         u1 = pl.tile.abs(e6)
#         u2 = pl.tile.exp(u1)
#         u3 = pl.tile.sqrt(u2)
#         u4 = pl.tile.neg(u3)
#         u5 = pl.tile.relu(u4)
#         u6 = pl.tile.log(u5)
#         u7 = pl.tile.recip(u6)
#         s1 = pl.tile.adds(u7, s)
#         s2 = pl.tile.subs(s1, 1.0)
#         s3 = pl.tile.muls(s2, -0.5)
#         s4 = pl.tile.divs(s3, 3.0)
#         s5 = pl.tile.maximums(s4, 0.0)
#         s6 = pl.tile.minimums(s5, 1e+30)
#         s7 = pl.tile.lrelu(s6, 0.01)
#         f = pl.tile.full([16, 32], dtype=pl.FP32, value=2.0)
#         c = pl.tile.create([16, 32], dtype=pl.FP32)
#         sl = pl.tile.slice(s7, [8, 16], [0, 16], valid_shape=[8, 8])
#         asm = pl.tile.assemble(c, sl, [8, 0])
#         rs = pl.tile.reshape(asm, [32, 16])
#         sv = pl.tile.set_validshape(rs, 16, 16)
#         col = pl.tile.row_sum(f, z)
#         rmax = pl.tile.row_max(f, z)
#         rmin = pl.tile.row_min(f, z)
#         csum = pl.tile.col_sum(f)
#         cmax = pl.tile.col_max(f)
#         cmin = pl.tile.col_min(f)
#         wt = pl.tile.load(w, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
#         l = pl.tile.extract(wt, 0, 0, [16, 16], target_memory=pl.Mem.Left)
#         r = pl.tile.move(wt, target_memory=pl.Mem.Right)
#         rt = pl.tile.transpose_view(r)
#         acc = pl.tile.matmul(l, rt)
#         acc2 = pl.tile.matmul_acc(acc, l, rt)
#         acc3 = pl.tile.matmul_acc(acc2, l, rt, init_cond=True)
#         bi = pl.tile.get_block_idx()
#         bn = pl.tile.get_block_num()
#         sb = pl.tile.get_subblock_idx()
#         result = pl.tile.store(e6, [bi * 0, 0], out)
#         return result
