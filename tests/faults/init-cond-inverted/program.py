# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a2: pl.Tensor[[16, 16], pl.FP32],
               out0: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
               out1: pl.Out[pl.Tensor[[1, 1], pl.FP32]],
               out2: pl.Out[pl.Tensor[[1, 1], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[1, 1], pl.FP32], pl.Tensor[[1, 1], pl.FP32]]:
        t3 = pl.tile.load(a2, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        t5 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        t6 = pl.tile.extract(t3, 0, 0, [16, 16], target_memory=pl.Mem.Left)
        t7 = pl.tile.extract(t3, 0, 0, [16, 16], target_memory=pl.Mem.Right)
        t8 = pl.tile.matmul_acc(t5, t6, t7, init_cond=0 == 0)
        o0 = pl.tile.store(t8, [0, 0], out0)
        return o0, out1, out2
