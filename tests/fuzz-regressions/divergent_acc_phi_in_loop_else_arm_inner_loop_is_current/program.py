# pypto.program: generated
import pypto.language as pl

@pl.program
class generated:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a2: pl.Tensor[[16, 16], pl.FP32],
               nk0: pl.Scalar[pl.INDEX],
               out0: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t3 = pl.tile.load(a2, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        t5 = pl.tile.extract(t3, 0, 0, [16, 16], target_memory=pl.Mem.Right)
        t6 = pl.tile.extract(t3, 0, 0, [16, 16], target_memory=pl.Mem.Left)
        t7 = pl.tile.matmul(t6, t5)
        for i0, (c0,) in pl.range(nk0, init_values=(t7,)):
            if False:
                t10 = pl.tile.matmul(t6, t5)
                r3 = pl.yield_(t10)
            else:
                for i1, (c1,) in pl.range(0, init_values=(c0,)):
                    r4 = pl.yield_(c1)
                r3 = pl.yield_(r4)
            r2 = pl.yield_(r3)
        o0 = pl.tile.store(r2, [0, 0], out0)
        return o0
