# pypto.program: fill_loop_window_offset_is_the_induction_variable
import pypto.language as pl

@pl.program
class fill_loop_window_offset_is_the_induction_variable:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[4, 32], pl.FP32],
               out0: pl.Out[pl.Tensor[[4, 32], pl.FP32]]) -> pl.Tensor[[4, 32], pl.FP32]:
        t0 = pl.tile.load(a, [0, 0], [4, 32])
        t1 = pl.tile.create([4, 32], dtype=pl.FP32)
        for i0, (c0,) in pl.range(0, 32, 8, init_values=(t1,)):
            t2 = pl.tile.slice(t0, [4, 8], [0, i0])
            t3 = pl.tile.assemble(c0, t2, [0, i0])
            r0 = pl.yield_(t3)
        out1 = pl.tile.store(r0, [0, 0], out0)
        return out1
