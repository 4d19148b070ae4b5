# pypto.program: reshape_views
# reshape of full tiles and of partially valid row-major prefixes (the flat-prefix valid rule):
# (4, 32) -> [8, 64] gives (2, 64); (4, 32) -> [64, 8] gives (16, 8); (1, 24) -> [8, 64] gives (1, 24).
import pypto.language as pl


@pl.program
class reshape_views:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               out1: pl.Out[pl.Tensor[[32, 16], pl.FP32]],
               out2: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
               out3: pl.Out[pl.Tensor[[8, 64], pl.FP32]],
               out4: pl.Out[pl.Tensor[[64, 8], pl.FP32]],
               out5: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[8, 64], pl.FP32], pl.Tensor[[64, 8], pl.FP32], pl.Tensor[[8, 64], pl.FP32]]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        tall = pl.tile.reshape(x, [32, 16])
        t1 = pl.tile.adds(tall, 1.0)
        r1 = pl.tile.store(t1, [0, 0], out1)
        wide = pl.tile.reshape(x, [8, 64])
        r2 = pl.tile.store(wide, [0, 0], out2)
        y = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[4, 32])
        y_wide = pl.tile.reshape(y, [8, 64])
        t3 = pl.tile.muls(y_wide, -2.0)
        r3 = pl.tile.store(t3, [0, 0], out3)
        y_narrow = pl.tile.reshape(y, [64, 8])
        r4 = pl.tile.store(y_narrow, [0, 0], out4)
        z = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[1, 24])
        z_wide = pl.tile.reshape(z, [8, 64])
        r5 = pl.tile.store(z_wide, [0, 0], out5)
        return r1, r2, r3, r4, r5
