# pypto.program: window_past_parent
# expect: 15:9: hazard: valid: buffer.subview: window rows [24, 40) do not fit the parent whole's 32 rows
# A runtime-offset window of 16 rows at row 24 of a 32-row parent: rows [24, 40) do not fit (a
# caller precondition the lowering leaves to run time, seed W15).
import pypto.language as pl


@pl.program
class window_past_parent:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[32, 32], pl.FP32], row: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        whole: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [32, 32], whole)
        window: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(whole, [row, 0])
        pl.buffer.store(window, [0, 0], [16, 32], out)
        return out
