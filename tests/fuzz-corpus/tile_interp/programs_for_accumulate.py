# pypto.program: for_accumulate
# A For loop (start 1, stop 8, step 2: four trips) carrying a tile, an FP32 scalar and the output
# tensor; each trip stores its accumulator to the band (i // 2) * 16. Rows 80..95 stay sentinel.
import pypto.language as pl


@pl.program
class for_accumulate:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[96, 32], pl.FP32]]) -> pl.Tensor[[96, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        for i, (acc, f, o) in pl.range(1, 8, 2, init_values=(x, 1.0, out)):
            t = pl.tile.muls(acc, f)
            acc1 = pl.tile.add(t, x)
            f1 = f * 0.5
            o1 = pl.tile.store(acc1, [i // 2 * 16, 0], o)
            acc2, f2, o2 = pl.yield_(acc1, f1, o1)
        fin = pl.tile.muls(acc2, f2)
        o3 = pl.tile.store(fin, [64, 0], o2)
        return o3
