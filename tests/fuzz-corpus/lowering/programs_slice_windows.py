# pypto.program: slice_windows
# slice at static and runtime offsets with clamped valid extents, a nested slice, and a Vec
# extract. `x` has static partial valid (20, 32) of a 32x32 tile; `r` is a runtime row offset.
import pypto.language as pl


@pl.program
class slice_windows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[32, 32], pl.FP32],
               r: pl.Scalar[pl.INDEX],
               out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
               out3: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
               out4: pl.Out[pl.Tensor[[8, 16], pl.FP32]],
               out5: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 32], pl.FP32], pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]:
        x = pl.tile.load(a, [0, 0], [32, 32], valid_shape=[20, 32])
        s1 = pl.tile.slice(x, [16, 32], [8, 0])
        t1 = pl.tile.adds(s1, 1.0)
        r1 = pl.tile.store(t1, [0, 0], out1)
        s2 = pl.tile.slice(x, [8, 16], [0, 16], valid_shape=[8, 8])
        t2 = pl.tile.muls(s2, 2.0)
        r2 = pl.tile.store(t2, [0, 0], out2)
        s3 = pl.tile.slice(x, [8, 32], [r, 0])
        r3 = pl.tile.store(s3, [0, 0], out3)
        e = pl.tile.extract(x, 4, 8, [8, 16], target_memory=pl.Mem.Vec)
        t4 = pl.tile.neg(e)
        r4 = pl.tile.store(t4, [0, 0], out4)
        s5 = pl.tile.slice(s1, [8, 16], [6, 8])
        r5 = pl.tile.store(s5, [0, 0], out5)
        return r1, r2, r3, r4, r5
