# pypto.program: addressless_under_pypto
# expect: 16:9: hazard: addressless: buffer.alloc: tmp: Vec FP32 [1, 2048] has no address, but the program comes from an addressed planner (PYPTO, DSA_RP), which gives every allocation its final address
# A program from the PYPTO planner (every other allocation has its address) holds one allocation
# without an address: the scratch slipped past every guard (seed 004's review: an unaddressed tmp
# tile on A5 at level3).
import pypto.language as pl


@pl.program
class addressless_under_pypto:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
        tmp: pl.Buffer[[1, 2048], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        pl.buffer.load(a, [0, 0], [16, 32], x)
        pl.buffer.exp(x, y)
        pl.buffer.store(y, [0, 0], [16, 32], out)
        return out
