# pypto.program: reserved_ub
# expect: 13:9: hazard: reserved: buffer.alloc: x: bytes [187392, 189440) touch the reserved scratch range [188416, 196608) of a2a3 Vec
# A 2 KiB buffer placed at 183 KiB on a2a3 runs into UB's hardware scratch [184 KiB, 192 KiB), which some
# ops use implicitly (TMP_UB_OFFSET): its data can be corrupted behind the program's back.
import pypto.language as pl


@pl.program
class reserved_ub:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 187392)
        pl.buffer.load(a, [0, 0], [16, 32], x)
        pl.buffer.store(x, [0, 0], [16, 32], out)
        return out
