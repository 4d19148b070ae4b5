# test: lower
# stop-after: LowerTileToBuffer
# rules: A15 B1 M6 M7
# An accumulator phi (A15): one arm of the If continues the accumulator with matmul_acc, the other
# yields it untouched. No run reads `acc` after the write, so InitMemRef runs matmul_acc in place
# (M6), both arms yield one storage (B1) and the kernel reaches the Buffer path: the else arm is
# empty and the result is `acc`'s buffer.
import pypto.language as pl

@pl.program
class msa_accumulator_phi_buffer:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP16],
               b: pl.Tensor[[32, 16], pl.FP16],
               f: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_mat = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        l0 = pl.tile.extract(a_mat, 0, 0, [16, 16], target_memory=pl.Mem.Left)
        l1 = pl.tile.extract(a_mat, 0, 16, [16, 16], target_memory=pl.Mem.Left)
        r0 = pl.tile.extract(b_mat, 0, 0, [16, 16], target_memory=pl.Mem.Right)
        r1 = pl.tile.extract(b_mat, 16, 0, [16, 16], target_memory=pl.Mem.Right)
        acc = pl.tile.matmul(l0, r0)
        if f:
            acc2 = pl.tile.matmul_acc(acc, l1, r1)
            res = pl.yield_(acc2)
        else:
            res = pl.yield_(acc)
        r = pl.tile.store(res, [0, 0], out)
        return r

# ---- expected ----
# # pypto.program: msa_accumulator_phi_buffer
# import pypto.language as pl
#
# @pl.program
# class msa_accumulator_phi_buffer:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP16],
#                b: pl.Tensor[[32, 16], pl.FP16],
#                f: pl.Scalar[pl.BOOL],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         a_mat: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
#         b_mat: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 1024)
#         l0: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
#         l1: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 512)
#         r0: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
#         r1: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 512)
#         acc: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
#         pl.buffer.load(a, [0, 0], [16, 32], a_mat)
#         pl.buffer.load(b, [0, 0], [32, 16], b_mat)
#         pl.buffer.extract(a_mat, 0, 0, l0)
#         pl.buffer.extract(a_mat, 0, 16, l1)
#         pl.buffer.extract(b_mat, 0, 0, r0)
#         pl.buffer.extract(b_mat, 16, 0, r1)
#         pl.buffer.matmul(l0, r0, acc)
#         if f:
#             pl.buffer.matmul_acc(l1, r1, acc)
#         pl.buffer.store(acc, [0, 0], [16, 16], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: msa_accumulator_phi_buffer
# import pypto.language as pl
#
# @pl.program
# class msa_accumulator_phi_buffer:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP16],
#                b: pl.Tensor[[32, 16], pl.FP16],
#                f: pl.Scalar[pl.BOOL],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         a_mat: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         b_mat: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         l0: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc(())
#         l1: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc(())
#         r0: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc(())
#         r1: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc(())
#         acc: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc(())
#         pl.buffer.load(a, [0, 0], [16, 32], a_mat)
#         pl.buffer.load(b, [0, 0], [32, 16], b_mat)
#         pl.buffer.extract(a_mat, 0, 0, l0)
#         pl.buffer.extract(a_mat, 0, 16, l1)
#         pl.buffer.extract(b_mat, 0, 0, r0)
#         pl.buffer.extract(b_mat, 16, 0, r1)
#         pl.buffer.matmul(l0, r0, acc)
#         if f:
#             pl.buffer.matmul_acc(l1, r1, acc)
#         pl.buffer.store(acc, [0, 0], [16, 16], out)
#         return out
