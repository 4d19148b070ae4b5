# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a3: pl.Tensor[[32, 32], pl.FP32],
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.INT32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[32, 32], pl.FP32], pl.Tensor[[1, 1], pl.INT32]]:
        t8 = pl.tile.load(a3, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        t10 = pl.tile.extract(t8, 0, 0, [16, 32], target_memory=pl.Mem.Right)
        t11 = pl.tile.extract(t8, 0, 0, [32, 16], target_memory=pl.Mem.Left)
        t12 = pl.tile.matmul(t11, t10)
        t13 = pl.tile.load(a3, [0, 0], [32, 16], valid_shape=[2, 2], target_memory=pl.Mem.Mat)
        t14 = pl.tile.move(t13, target_memory=pl.Mem.Left)
        t16 = pl.tile.matmul_acc(t12, t14, t10, init_cond=True)
        return out0, out1, out2
