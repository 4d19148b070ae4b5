# pypto.program: misaligned_base
# expect: 13:9: hazard: align: buffer.alloc: y: base address 8200 is not 32-byte aligned
# A planner placed a Vec buffer at byte 8200, which is not 32-byte aligned.
import pypto.language as pl


@pl.program
class misaligned_base:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 8200)
        pl.buffer.load(a, [0, 0], [16, 32], x)
        pl.buffer.exp(x, y)
        pl.buffer.store(y, [0, 0], [16, 32], out)
        return out
