# pypto.program: empty_subview
# expect: 15:9: hazard: empty-op: buffer.subview: creates an empty window of whole (valid [0, 32]); an empty subview must stay inside the guard that skips its consumer
# A dynamic-valid window created with 0 valid rows outside any guard (seed V12: dynamic-valid
# subviews are materialised at their guarded consumers, so the empty path never builds one).
import pypto.language as pl


@pl.program
class empty_subview:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[32, 32], pl.FP32], rows: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        whole: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [32, 32], whole)
        window: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, 32])] = pl.buffer.subview(whole, [8, 0], [rows, 32])
        pl.buffer.store(window, [0, 0], [rows, 32], out)
        return out
