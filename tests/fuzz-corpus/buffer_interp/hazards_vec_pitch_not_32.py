# pypto.program: vec_pitch_not_32
# expect: 13:9: hazard: align: buffer.alloc: x: row pitch 16 B is not a multiple of 32 B
# A Vec FP32 [16, 4] buffer has 16-byte rows; UB rows must be a multiple of 32 bytes (seed S6), so
# the hardware cannot address it.
import pypto.language as pl


@pl.program
class vec_pitch_not_32:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 4], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 4], pl.FP32]]) -> pl.Tensor[[16, 4], pl.FP32]:
        x: pl.Buffer[[16, 4], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [16, 4], x)
        pl.buffer.store(x, [0, 0], [16, 4], out)
        return out
