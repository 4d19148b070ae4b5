# pypto.program: stale_valid_load
# expect: 15:9: hazard: valid: buffer.load: extents [16, 32] differ from the valid region [16, 8] of the destination x
# The handle's descriptor was narrowed to [16, cols] but the load still names the old full extents
# (a use of an older metadata version, seed V4): load's extents must equal DST's valid region.
import pypto.language as pl


@pl.program
class stale_valid_load:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], cols: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 0)
        pl.buffer.set_validshape(x, [16, cols])
        pl.buffer.load(a, [0, 0], [16, 32], x)
        pl.buffer.store(x, [0, 0], [16, cols], out)
        return out
