# pypto.program: mat_past_space_end
# expect: 12:9: hazard: bounds: buffer.alloc: a_mat: bytes [520192, 528384) leave a2a3 Mat [0, 524288)
# An 8 KiB Mat buffer placed at 508 KiB runs past the end of the 512 KiB L1.
import pypto.language as pl


@pl.program
class mat_past_space_end:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a_mat: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 520192)
        lhs: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
        rhs: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
        c: pl.Buffer[[64, 64], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [64, 64], a_mat)
        pl.buffer.copy(a_mat, lhs)
        pl.buffer.copy(a_mat, rhs)
        pl.buffer.matmul(lhs, rhs, c)
        pl.buffer.store(c, [0, 0], [64, 64], out)
        return out
