# pypto.program: acc_not_box_aligned
# expect: 17:9: hazard: align: buffer.alloc: c: base address 512 of a boxed NZ handle is not a multiple of its 1024-byte box
# The accumulator is placed at L0C byte 512, inside a 1024-byte FP32 Acc box (fractal 1024): the
# matmul's box writes would straddle two boxes.
import pypto.language as pl


@pl.program
class acc_not_box_aligned:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_mat: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
        b_mat: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 512)
        lhs: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
        rhs: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
        c: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 512)
        pl.buffer.load(a, [0, 0], [16, 16], a_mat)
        pl.buffer.load(b, [0, 0], [16, 16], b_mat)
        pl.buffer.copy(a_mat, lhs)
        pl.buffer.copy(b_mat, rhs)
        pl.buffer.matmul(lhs, rhs, c)
        pl.buffer.store(c, [0, 0], [16, 16], out)
        return out
