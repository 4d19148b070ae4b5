# pypto.program: blocks_cube
# Three blocks share B; block i multiplies its 16-row slab of A and stores rows 16*i of both
# outputs (FP32 and FP16).
import pypto.language as pl


@pl.program
class blocks_cube:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[48, 16], pl.FP16],
               b: pl.Tensor[[16, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[48, 16], pl.FP32]],
               out16: pl.Out[pl.Tensor[[48, 16], pl.FP16]]) -> tuple[pl.Tensor[[48, 16], pl.FP32], pl.Tensor[[48, 16], pl.FP16]]:
        idx = pl.tile.get_block_idx()
        a_mat = pl.tile.load(a, [idx * 16, 0], [16, 16], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        lhs = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        rhs = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(lhs, rhs)
        r1 = pl.tile.store(c, [idx * 16, 0], out)
        r2 = pl.tile.store(c, [idx * 16, 0], out16)
        return r1, r2
