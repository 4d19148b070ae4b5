# pypto.program: cube_acc_forms
# matmul, then matmul_acc with init_cond omitted (accumulate), literal False (accumulate) and
# literal True (overwrite); each accumulator is stored to its own 16-row band of `out`. Then a
# matmul whose Left has partial valid (12 rows, K = 24 of 32): only k < 24 is folded and only 12
# rows reach `out16` (FP16).
import pypto.language as pl


@pl.program
class cube_acc_forms:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP16],
               b: pl.Tensor[[32, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[64, 16], pl.FP32]],
               out16: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> tuple[pl.Tensor[[64, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP16]]:
        a_mat = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        l0 = pl.tile.extract(a_mat, 0, 0, [16, 16], target_memory=pl.Mem.Left)
        l1 = pl.tile.extract(a_mat, 0, 16, [16, 16], target_memory=pl.Mem.Left)
        r0 = pl.tile.extract(b_mat, 0, 0, [16, 16], target_memory=pl.Mem.Right)
        r1 = pl.tile.extract(b_mat, 16, 0, [16, 16], target_memory=pl.Mem.Right)
        c0 = pl.tile.matmul(l0, r0)
        o0 = pl.tile.store(c0, [0, 0], out)
        c1 = pl.tile.matmul_acc(c0, l1, r1)
        o1 = pl.tile.store(c1, [16, 0], o0)
        c2 = pl.tile.matmul_acc(c1, l0, r1, init_cond=False)
        o2 = pl.tile.store(c2, [32, 0], o1)
        c3 = pl.tile.matmul_acc(c2, l1, r0, init_cond=True)
        o3 = pl.tile.store(c3, [48, 0], o2)
        a_part = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 24], target_memory=pl.Mem.Mat)
        l_part = pl.tile.move(a_part, target_memory=pl.Mem.Left)
        r_full = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        cp = pl.tile.matmul(l_part, r_full)
        o4 = pl.tile.store(cp, [0, 0], out16)
        return o3, o4
