# pypto.program: store_extents_mismatch
# expect: 16:9: hazard: valid: buffer.store: extents [16, 32] differ from the valid region [16, 24] of the source x
# The buffer holds a [16, cols] valid region but the store writes [16, 32]: store's extents must
# equal SRC's valid region (the lanes past `cols` were never loaded).
import pypto.language as pl


@pl.program
class store_extents_mismatch:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], cols: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 0)
        pl.buffer.set_validshape(x, [16, cols])
        pl.buffer.load(a, [0, 0], [16, cols], x)
        pl.buffer.store(x, [0, 0], [16, 32], out)
        return out
