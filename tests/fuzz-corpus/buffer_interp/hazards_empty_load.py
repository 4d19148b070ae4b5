# pypto.program: empty_load
# expect: 15:9: hazard: empty-op: buffer.load: the destination x's valid region [16, 0] is empty; the lowering must guard an op over an empty region
# A runtime extent of 0 reaches a load without the guard the seed requires (V11: load/store/
# arithmetic execute only when both valid extents are positive).
import pypto.language as pl


@pl.program
class empty_load:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], cols: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 0)
        pl.buffer.set_validshape(x, [16, cols])
        pl.buffer.load(a, [0, 0], [16, cols], x)
        pl.buffer.store(x, [0, 0], [16, cols], out)
        return out
