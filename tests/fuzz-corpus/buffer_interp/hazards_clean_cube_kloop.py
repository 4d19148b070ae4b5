# pypto.program: cube_kloop
# expect: pass
# expected-outputs: ../../programs/expected/cube_kloop
# tests/programs/cube_kloop.py lowered by hand: K chunks extracted from Mat into Left/Right inside a
# For, and the runtime init_cond `k == 0` becomes an explicit if whose arms are matmul (initialise)
# and matmul_acc (accumulate in place), as the seed's cube recipe says.
import pypto.language as pl


@pl.program
class cube_kloop:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[16, 64], pl.FP16],
               b: pl.Tensor[[64, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_mat: pl.Buffer[[16, 64], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
        b_mat: pl.Buffer[[64, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 2048)
        lhs: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
        rhs: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
        acc: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [16, 64], a_mat)
        pl.buffer.load(b, [0, 0], [64, 16], b_mat)
        for k in pl.range(4):
            pl.buffer.extract(a_mat, 0, k * 16, lhs)
            pl.buffer.extract(b_mat, k * 16, 0, rhs)
            if k == 0:
                pl.buffer.matmul(lhs, rhs, acc)
            else:
                pl.buffer.matmul_acc(lhs, rhs, acc)
        pl.buffer.store(acc, [0, 0], [16, 16], out)
        return out
