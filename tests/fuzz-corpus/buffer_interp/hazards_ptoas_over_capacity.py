# pypto.program: ptoas_over_capacity
# expect: 15:9: hazard: capacity: buffer.alloc: addressless allocations need 196608 B of Vec (this one: 65536 B at 131072); the usable capacity of a2a3 Vec is 188416 B
# Three addressless 64 KiB Vec allocations (PTOAS): the third ends at 192 KiB, past the 184 KiB
# that a2a3 UB leaves to allocations.
import pypto.language as pl


@pl.program
class ptoas_over_capacity:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[128, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        x: pl.Buffer[[128, 128], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        y: pl.Buffer[[128, 128], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        z: pl.Buffer[[128, 128], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        pl.buffer.load(a, [0, 0], [128, 128], x)
        pl.buffer.exp(x, y)
        pl.buffer.add(x, y, z)
        pl.buffer.store(z, [0, 0], [128, 128], out)
        return out
