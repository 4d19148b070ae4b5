# pypto.program: loop_swap_no_snapshot
# expect: mismatch: out[0, 0]
# expected-outputs: ../programs/expected/for_swap
# tests/programs/for_swap.py lowered WITHOUT the swap snapshot (PyPTO #1641 / the seed's L9
# parallel transfer schedule): the body copies right into left and then left into right, so after
# one trip both buffers hold b. No storage checker can see this in a Buffer-only run — every copy is
# between distinct, disjoint buffers — so the bug shows as wrong values: the run passes, and `out`
# differs from the independently computed expected output of the Tile program (first at [0, 0],
# where the Tile semantics store b - a and this program stores b - b = 0). The planned-Tile
# interpreter's live-clobber checker is the one that attributes it.
import pypto.language as pl


@pl.program
class loop_swap_no_snapshot:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               n: pl.Scalar[pl.INDEX],
               z: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        left_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        right_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        diff: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
        pl.buffer.load(a, [0, 0], [16, 32], left_buf)
        pl.buffer.load(b, [0, 0], [16, 32], right_buf)
        for i, (k,) in pl.range(n, init_values=(0,)):
            pl.buffer.copy(right_buf, left_buf)
            pl.buffer.copy(left_buf, right_buf)
            k2 = pl.yield_(k + 16)
        pl.buffer.sub(left_buf, right_buf, diff)
        pl.buffer.store(diff, [0, 0], [16, 32], out)
        pl.buffer.store(left_buf, [k2 - 32, 0], [16, 32], out)
        pl.buffer.store(right_buf, [k2, 0], [16, 32], out)
        return out
