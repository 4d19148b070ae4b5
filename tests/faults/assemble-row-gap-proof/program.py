# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a0: pl.Tensor[[10, 32], pl.FP32],
               a1: pl.Tensor[[9, 64], pl.BF16],
               a2: pl.Tensor[[40, 16], pl.FP32],
               a3: pl.Tensor[[35, 16], pl.INT32],
               off0: pl.Scalar[pl.INDEX],
               vx0: pl.Scalar[pl.INDEX],
               f0: pl.Scalar[pl.BOOL],
               off1: pl.Scalar[pl.INDEX],
               vx1: pl.Scalar[pl.INDEX],
               n0: pl.Scalar[pl.INDEX],
               vx2: pl.Scalar[pl.INDEX],
               off2: pl.Scalar[pl.INDEX],
               vx3: pl.Scalar[pl.INDEX],
               vx4: pl.Scalar[pl.INDEX],
               vx5: pl.Scalar[pl.INDEX],
               vx6: pl.Scalar[pl.INDEX],
               out0: pl.Out[pl.Tensor[[46, 32], pl.FP32]],
               out1: pl.Out[pl.Tensor[[32, 16], pl.INT32]]) -> tuple[pl.Tensor[[46, 32], pl.FP32], pl.Tensor[[32, 16], pl.INT32]]:
        t0 = pl.tile.load(a0, [6, 4], [3, 24])
        t18 = pl.tile.add(t0, t0)
        t21 = pl.tile.slice(t18, [2, 24], [0, 0])
        t22 = pl.tile.assemble(t18, t21, [1, 0])
        return out0, out1
