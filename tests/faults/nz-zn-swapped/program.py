# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a4: pl.Tensor[[3, 3], pl.INT8],
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.INT32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out3: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.INT32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t12 = pl.tile.load(a4, [0, 0], [16, 32], valid_shape=[2, 3], target_memory=pl.Mem.Mat)
        return out0, out1, out2, out3
