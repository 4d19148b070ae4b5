# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a1: pl.Tensor[[12, 18], pl.FP16],
               out0: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP16]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out3: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP16], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t1 = pl.tile.load(a1, [7, 2], [4, 16])
        t10 = pl.tile.assemble(t1, t1, [0, 0])
        return out0, out1, out2, out3
