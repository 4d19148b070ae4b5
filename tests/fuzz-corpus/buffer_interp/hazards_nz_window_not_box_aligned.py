# pypto.program: nz_window_not_box_aligned
# expect: 20:9: hazard: align: buffer.subview: rows (window of a_mat at [1, 0]): base address 32 of a boxed NZ handle is not a multiple of its 512-byte box
# A row window of an NZ Mat buffer at row 1: NZ stores whole 16 x 16 FP16 boxes, so the window's
# base (32 bytes into a box) is not box-aligned and its own NZ addressing names the wrong bytes.
import pypto.language as pl


@pl.program
class nz_window_not_box_aligned:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_mat: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
        b_mat: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 2048)
        lhs: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
        rhs: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
        c: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [32, 32], a_mat)
        pl.buffer.load(b, [0, 0], [32, 16], b_mat)
        rows: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.subview(a_mat, [1, 0])
        pl.buffer.copy(rows, lhs)
        pl.buffer.copy(b_mat, rhs)
        pl.buffer.matmul(lhs, rhs, c)
        pl.buffer.store(c, [0, 0], [16, 16], out)
        return out
