# test: roundtrip
# A Buffer-stage function: every buffer op, layout shorthands, TileView fields, dynamic (-1) valid
# extents, scalar control flow.
import pypto.language as pl

@pl.program
class buffer_stage:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], m: pl.Tensor[[16, 16], pl.FP16], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        b_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.Layout.ND] = pl.buffer.alloc((), 2048)
        d_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((n, 32), 4096)
        p_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        w_buf: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(a_buf, [8, 16])
        v_buf: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 16])] = pl.buffer.subview(a_buf, [0, 0], [4, 16])
        r_buf: pl.Buffer[[32, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(b_buf)
        mat: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Mat, pl.Layout.NZ] = pl.buffer.alloc((), 0)
        left: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
        right: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right, pl.Layout.ZN] = pl.buffer.alloc((), 0)
        acc: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc, pl.TileView(fractal=1024)] = pl.buffer.alloc((), 0)
        acc2: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc, pl.Layout.ZZ, pl.TileView(fractal=512)] = pl.buffer.alloc((), 1024)
        col: pl.Buffer[[16, 1], pl.FP32, pl.Mem.Vec, pl.Layout.ND] = pl.buffer.alloc((), 6144)
        dn: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Vec, pl.Layout.DN] = pl.buffer.alloc((), 6208)
        pl.buffer.set_validshape(d_buf, [n, 32])
        pl.buffer.load(a, [0, 0], [16, 32], a_buf)
        pl.buffer.load(a, [0, 0], [n, 32], d_buf)
        pl.buffer.load(m, [0, 0], [16, 16], mat)
        pl.buffer.copy(a_buf, b_buf)
        pl.buffer.extract(mat, 0, 0, left)
        pl.buffer.extract(mat, 0, 0, right)
        pl.buffer.matmul(left, right, acc)
        pl.buffer.matmul_acc(left, right, acc)
        pl.buffer.add(a_buf, b_buf, p_buf)
        pl.buffer.sub(a_buf, b_buf, p_buf)
        pl.buffer.mul(a_buf, b_buf, p_buf)
        pl.buffer.div(a_buf, b_buf, p_buf)
        pl.buffer.maximum(a_buf, b_buf, p_buf)
        pl.buffer.minimum(a_buf, b_buf, p_buf)
        pl.buffer.abs(p_buf, p_buf)
        pl.buffer.exp(p_buf, p_buf)
        pl.buffer.sqrt(p_buf, p_buf)
        pl.buffer.neg(p_buf, p_buf)
        pl.buffer.relu(p_buf, p_buf)
        pl.buffer.log(p_buf, p_buf)
        pl.buffer.recip(a_buf, p_buf)
        pl.buffer.adds(p_buf, 1.0, p_buf)
        pl.buffer.subs(p_buf, 2.0, p_buf)
        pl.buffer.muls(p_buf, -3.0, p_buf)
        pl.buffer.divs(p_buf, 4.0, p_buf)
        pl.buffer.maximums(p_buf, 0.0, p_buf)
        pl.buffer.minimums(p_buf, 6.0, p_buf)
        pl.buffer.lrelu(p_buf, 0.1, p_buf)
        pl.buffer.full(0.0, b_buf)
        bi = pl.buffer.get_block_idx()
        bn = pl.buffer.get_block_num()
        sb = pl.buffer.get_subblock_idx()
        for i, (off,) in pl.range(bi, 4, init_values=(0,)):
            if i < bn:
                nxt = pl.yield_(off + 8)
            else:
                nxt = pl.yield_(off)
            off2 = pl.yield_(nxt)
        pl.buffer.store(p_buf, [0, 0], [16, 32], out)
        return out

# ---- expected ----
# # pypto.program: buffer_stage
# import pypto.language as pl
#
# @pl.program
# class buffer_stage:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                m: pl.Tensor[[16, 16], pl.FP16],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         b_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
#         d_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc(
#             (n, 32), 4096
#         )
#         p_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         w_buf: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(a_buf, [8, 16])
#         v_buf: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 16])] = pl.buffer.subview(
#             a_buf, [0, 0], [4, 16]
#         )
#         r_buf: pl.Buffer[[32, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(b_buf)
#         mat: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
#         left: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
#         right: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
#         acc: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
#         acc2: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc, pl.Layout.ZZ, pl.TileView(fractal=512)] = pl.buffer.alloc(
#             (), 1024
#         )
#         col: pl.Buffer[[16, 1], pl.FP32, pl.Mem.Vec, pl.Layout.ND] = pl.buffer.alloc((), 6144)
#         dn: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Vec, pl.Layout.DN] = pl.buffer.alloc((), 6208)
#         pl.buffer.set_validshape(d_buf, [n, 32])
#         pl.buffer.load(a, [0, 0], [16, 32], a_buf)
#         pl.buffer.load(a, [0, 0], [n, 32], d_buf)
#         pl.buffer.load(m, [0, 0], [16, 16], mat)
#         pl.buffer.copy(a_buf, b_buf)
#         pl.buffer.extract(mat, 0, 0, left)
#         pl.buffer.extract(mat, 0, 0, right)
#         pl.buffer.matmul(left, right, acc)
#         pl.buffer.matmul_acc(left, right, acc)
#         pl.buffer.add(a_buf, b_buf, p_buf)
#         pl.buffer.sub(a_buf, b_buf, p_buf)
#         pl.buffer.mul(a_buf, b_buf, p_buf)
#         pl.buffer.div(a_buf, b_buf, p_buf)
#         pl.buffer.maximum(a_buf, b_buf, p_buf)
#         pl.buffer.minimum(a_buf, b_buf, p_buf)
#         pl.buffer.abs(p_buf, p_buf)
#         pl.buffer.exp(p_buf, p_buf)
#         pl.buffer.sqrt(p_buf, p_buf)
#         pl.buffer.neg(p_buf, p_buf)
#         pl.buffer.relu(p_buf, p_buf)
#         pl.buffer.log(p_buf, p_buf)
#         pl.buffer.recip(a_buf, p_buf)
#         pl.buffer.adds(p_buf, 1.0, p_buf)
#         pl.buffer.subs(p_buf, 2.0, p_buf)
#         pl.buffer.muls(p_buf, -3.0, p_buf)
#         pl.buffer.divs(p_buf, 4.0, p_buf)
#         pl.buffer.maximums(p_buf, 0.0, p_buf)
#         pl.buffer.minimums(p_buf, 6.0, p_buf)
#         pl.buffer.lrelu(p_buf, 0.1, p_buf)
#         pl.buffer.full(0.0, b_buf)
#         bi = pl.buffer.get_block_idx()
#         bn = pl.buffer.get_block_num()
#         sb = pl.buffer.get_subblock_idx()
#         for i, (off,) in pl.range(bi, 4, init_values=(0,)):
#             if i < bn:
#                 nxt = pl.yield_(off + 8)
#             else:
#                 nxt = pl.yield_(off)
#             off2 = pl.yield_(nxt)
#         pl.buffer.store(p_buf, [0, 0], [16, 32], out)
#         return out
