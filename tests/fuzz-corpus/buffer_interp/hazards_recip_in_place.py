# pypto.program: recip_in_place
# expect: 15:9: hazard: overlap: buffer.recip: destination x (bytes [0, 2048)) overlaps source x (bytes [0, 2048)) first at bytes [0, 2048); buffer.recip cannot run in place
# recip writes its result over its own input (PyPTO #557: in-place reuse of an op without src ==
# dst support; a2a3 TRECIP broadcasts 1 into dst before dividing, so dst must not alias src).
import pypto.language as pl


@pl.program
class recip_in_place:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [16, 32], x)
        pl.buffer.recip(x, x)
        pl.buffer.store(x, [0, 0], [16, 32], out)
        return out
