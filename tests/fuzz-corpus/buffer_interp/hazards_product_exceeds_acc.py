# pypto.program: product_exceeds_acc
# expect: 23:9: hazard: valid: buffer.matmul: the product [32, 64] does not fit operand c's shape [32, 32]
# The product of a [32, 32] Left and a [32, 64] Right is [32, 64], but the accumulator holds only
# [32, 32]: the matmul would write past its destination (stands in for "Acc overlaps Left", which a
# verified Buffer program cannot express: Left and Acc are different memories).
import pypto.language as pl


@pl.program
class product_exceeds_acc:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        a_mat: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
        b_mat: pl.Buffer[[32, 64], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 2048)
        lhs: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
        rhs: pl.Buffer[[32, 64], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
        c: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [32, 32], a_mat)
        pl.buffer.load(b, [0, 0], [32, 64], b_mat)
        pl.buffer.copy(a_mat, lhs)
        pl.buffer.copy(b_mat, rhs)
        pl.buffer.matmul(lhs, rhs, c)
        pl.buffer.store(c, [0, 0], [32, 32], out)
        return out
