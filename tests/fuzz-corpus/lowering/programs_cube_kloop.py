# pypto.program: cube_kloop
# A K loop: each iteration extracts a 16-wide K chunk of A and a 16-high chunk of B from Mat into
# Left/Right and accumulates with matmul_acc, whose runtime init_cond (k == 0) starts the
# accumulator on the first trip. The initial Acc comes from `create` and is fully overwritten.
import pypto.language as pl


@pl.program
class cube_kloop:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 64], pl.FP16],
               b: pl.Tensor[[64, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_mat = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [64, 16], target_memory=pl.Mem.Mat)
        acc0 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for k, (acc,) in pl.range(4, init_values=(acc0,)):
            lhs = pl.tile.extract(a_mat, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)
            rhs = pl.tile.extract(b_mat, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)
            acc1 = pl.tile.matmul_acc(acc, lhs, rhs, init_cond=k == 0)
            acc_out = pl.yield_(acc1)
        r = pl.tile.store(acc_out, [0, 0], out)
        return r
