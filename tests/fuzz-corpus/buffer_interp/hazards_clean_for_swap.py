# pypto.program: for_swap
# expect: pass
# expected-outputs: ../../programs/expected/for_swap
# tests/programs/for_swap.py lowered by hand (the seed's "Loops" example): the two tile carries
# become two buffers swapped through explicit snapshots each trip (the parallel transfer schedule),
# and only the INDEX carry remains a loop carry. The zero-trip second loop keeps its initial values;
# its body snapshots u before the in-place product overwrites it.
import pypto.language as pl


@pl.program
class for_swap:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               n: pl.Scalar[pl.INDEX],
               z: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        left_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        right_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        scratch_left: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        scratch_right: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        diff: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        pl.buffer.load(a, [0, 0], [16, 32], left_buf)
        pl.buffer.load(b, [0, 0], [16, 32], right_buf)
        for i, (k,) in pl.range(n, init_values=(0,)):
            pl.buffer.copy(right_buf, scratch_right)
            pl.buffer.copy(left_buf, scratch_left)
            pl.buffer.copy(scratch_right, left_buf)
            pl.buffer.copy(scratch_left, right_buf)
            k2 = pl.yield_(k + 16)
        for j in pl.range(z):
            pl.buffer.copy(left_buf, scratch_left)
            pl.buffer.mul(left_buf, right_buf, left_buf)
            pl.buffer.copy(scratch_left, right_buf)
        pl.buffer.sub(left_buf, right_buf, diff)
        pl.buffer.store(diff, [0, 0], [16, 32], out)
        pl.buffer.store(left_buf, [k2 - 32, 0], [16, 32], out)
        pl.buffer.store(right_buf, [k2, 0], [16, 32], out)
        return out
