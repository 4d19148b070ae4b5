# pypto.program: cube_fp16
# expect: pass
# expected-outputs: ../../programs/expected/cube_fp16
# tests/programs/cube_fp16.py lowered by hand (the seed's "Matrix storage" recipe): GM -> Mat (NZ)
# -> Left (NZ) / Right (ZN) by copy -> matmul into an FP32 Acc (NZ, fractal 1024) -> stores to FP32
# GM and, with one round-to-nearest-even conversion, to FP16 GM.
import pypto.language as pl


@pl.program
class cube_fp16:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP16],
               b: pl.Tensor[[32, 16], pl.FP16],
               out32: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
               out16: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP16]]:
        a_mat: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
        b_mat: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 1024)
        lhs: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
        rhs: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
        c: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [16, 32], a_mat)
        pl.buffer.load(b, [0, 0], [32, 16], b_mat)
        pl.buffer.copy(a_mat, lhs)
        pl.buffer.copy(b_mat, rhs)
        pl.buffer.matmul(lhs, rhs, c)
        pl.buffer.store(c, [0, 0], [16, 16], out32)
        pl.buffer.store(c, [0, 0], [16, 16], out16)
        return out32, out16
