# test: lower
# stop-after: LowerTileToBuffer
# rules: A15 L3 B1 M6
# An accumulator phi through a local K loop (A15): the then arm continues the accumulator with a
# loop of matmul_acc, the else arm yields it untouched. The If lies in no loop and nothing reads
# `acc` after it, so the loop's carry takes `acc`'s storage without an entry copy (L3: the else
# arm's yield is no read, since no run takes both arms), and the kernel reaches the Buffer path:
# the loop updates `acc`'s buffer in place and the result is that buffer on either arm.
import pypto.language as pl

@pl.program
class msa_accumulator_phi_loop_buffer:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 48], pl.FP16],
               b: pl.Tensor[[48, 16], pl.FP16],
               f: pl.Scalar[pl.BOOL],
               n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_mat = pl.tile.load(a, [0, 0], [16, 48], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [48, 16], target_memory=pl.Mem.Mat)
        l0 = pl.tile.extract(a_mat, 0, 0, [16, 16], target_memory=pl.Mem.Left)
        r0 = pl.tile.extract(b_mat, 0, 0, [16, 16], target_memory=pl.Mem.Right)
        acc = pl.tile.matmul(l0, r0)
        if f:
            for k, (c,) in pl.range(n, init_values=(acc,)):
                lk = pl.tile.extract(a_mat, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)
                rk = pl.tile.extract(b_mat, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)
                c2 = pl.tile.matmul_acc(c, lk, rk)
                c3 = pl.yield_(c2)
            res = pl.yield_(c3)
        else:
            res = pl.yield_(acc)
        r = pl.tile.store(res, [0, 0], out)
        return r

# ---- expected ----
# # pypto.program: msa_accumulator_phi_loop_buffer
# import pypto.language as pl
#
# @pl.program
# class msa_accumulator_phi_loop_buffer:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 48], pl.FP16],
#                b: pl.Tensor[[48, 16], pl.FP16],
#                f: pl.Scalar[pl.BOOL],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         a_mat: pl.Buffer[[16, 48], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
#         b_mat: pl.Buffer[[48, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 1536)
#         l0: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
#         r0: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
#         acc: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
#         pl.buffer.load(a, [0, 0], [16, 48], a_mat)
#         pl.buffer.load(b, [0, 0], [48, 16], b_mat)
#         pl.buffer.extract(a_mat, 0, 0, l0)
#         pl.buffer.extract(b_mat, 0, 0, r0)
#         pl.buffer.matmul(l0, r0, acc)
#         if f:
#             for k in pl.range(n):
#                 pl.buffer.extract(a_mat, 0, k * 16, l0)
#                 pl.buffer.extract(b_mat, k * 16, 0, r0)
#                 pl.buffer.matmul_acc(l0, r0, acc)
#         pl.buffer.store(acc, [0, 0], [16, 16], out)
#         return out
# ---- expected DSA_RP ----
# # pypto.program: msa_accumulator_phi_loop_buffer
# import pypto.language as pl
#
# @pl.program
# class msa_accumulator_phi_loop_buffer:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 48], pl.FP16],
#                b: pl.Tensor[[48, 16], pl.FP16],
#                f: pl.Scalar[pl.BOOL],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         a_mat: pl.Buffer[[16, 48], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
#         b_mat: pl.Buffer[[48, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 1536)
#         l0: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
#         r0: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
#         acc: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
#         lk: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
#         rk: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
#         pl.buffer.load(a, [0, 0], [16, 48], a_mat)
#         pl.buffer.load(b, [0, 0], [48, 16], b_mat)
#         pl.buffer.extract(a_mat, 0, 0, l0)
#         pl.buffer.extract(b_mat, 0, 0, r0)
#         pl.buffer.matmul(l0, r0, acc)
#         if f:
#             for k in pl.range(n):
#                 pl.buffer.extract(a_mat, 0, k * 16, lk)
#                 pl.buffer.extract(b_mat, k * 16, 0, rk)
#                 pl.buffer.matmul_acc(lk, rk, acc)
#         pl.buffer.store(acc, [0, 0], [16, 16], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: msa_accumulator_phi_loop_buffer
# import pypto.language as pl
#
# @pl.program
# class msa_accumulator_phi_loop_buffer:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 48], pl.FP16],
#                b: pl.Tensor[[48, 16], pl.FP16],
#                f: pl.Scalar[pl.BOOL],
#                n: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         a_mat: pl.Buffer[[16, 48], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         b_mat: pl.Buffer[[48, 16], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc(())
#         l0: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc(())
#         r0: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc(())
#         acc: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc(())
#         lk: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Left] = pl.buffer.alloc(())
#         rk: pl.Buffer[[16, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc(())
#         pl.buffer.load(a, [0, 0], [16, 48], a_mat)
#         pl.buffer.load(b, [0, 0], [48, 16], b_mat)
#         pl.buffer.extract(a_mat, 0, 0, l0)
#         pl.buffer.extract(b_mat, 0, 0, r0)
#         pl.buffer.matmul(l0, r0, acc)
#         if f:
#             for k in pl.range(n):
#                 pl.buffer.extract(a_mat, 0, k * 16, lk)
#                 pl.buffer.extract(b_mat, k * 16, 0, rk)
#                 pl.buffer.matmul_acc(lk, rk, acc)
#         pl.buffer.store(acc, [0, 0], [16, 16], out)
#         return out
