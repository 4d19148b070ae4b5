# test: lower
# stop-after: InitMemRef
# rules: A3 A18 A19 A21 M6 W4
# InitMemRef with control flow: carries, loop and branch results carry no MemRef (they denote the
# storage of what is bound to them); the accumulator's matmul_acc stays in place because only the
# loop (through its carry) reads the accumulator again; an assemble into a value defined before the
# loop, which the next trip reads again, gets storage of its own.
import pypto.language as pl

@pl.program
class init_memref_control:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 16], pl.FP16],
               v: pl.Tensor[[16, 32], pl.FP32], flag: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
               vout: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[64, 32], pl.FP32]]:
        a_mat = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [64, 16], target_memory=pl.Mem.Mat)
        acc0 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for k, (acc,) in pl.range(4, init_values=(acc0,)):
            lhs = pl.tile.extract(a_mat, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)
            rhs = pl.tile.extract(b_mat, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)
            acc1 = pl.tile.matmul_acc(acc, lhs, rhs, init_cond=k == 0)
            acc_out = pl.yield_(acc1)
        o = pl.tile.store(acc_out, [0, 0], out)
        x = pl.tile.load(v, [0, 0], [16, 32])
        piece = pl.tile.full([8, 32], dtype=pl.FP32, value=2.0)
        for i, (t,) in pl.range(2, init_values=(vout,)):
            y = pl.tile.assemble(x, piece, [8, 0])
            t1 = pl.tile.store(y, [i * 16, 0], t)
            t_out = pl.yield_(t1)
        if flag:
            e = pl.tile.exp(x)
            chosen = pl.yield_(e)
        else:
            chosen = pl.yield_(x)
        w = pl.tile.slice(chosen, [8, 32], [8, 0])
        last = pl.tile.store(w, [32, 0], t_out)
        return o, last

# ---- expected ----
# # pypto.program: init_memref_control
# import pypto.language as pl
#
# @pl.program
# class init_memref_control:
#     @pl.function(type=pl.FunctionType.InCore)
#     def kernel(self,
#                a: pl.Tensor[[16, 64], pl.FP16],
#                b: pl.Tensor[[64, 16], pl.FP16],
#                v: pl.Tensor[[16, 32], pl.FP32],
#                flag: pl.Scalar[pl.BOOL],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
#                vout: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[64, 32], pl.FP32]]:
#         mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
#         mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048)
#         mem_acc_2: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024)
#         mem_left_3: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)
#         mem_right_4: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 512)
#         mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_6: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
#         mem_vec_7: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         a_mat: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_mat_0, 0, 2048), pl.Mem.Mat] = pl.tile.load(
#             a, [0, 0], [16, 64], target_memory=pl.Mem.Mat
#         )
#         b_mat: pl.Tile[[64, 16], pl.FP16, pl.MemRef(mem_mat_1, 0, 2048), pl.Mem.Mat] = pl.tile.load(
#             b, [0, 0], [64, 16], target_memory=pl.Mem.Mat
#         )
#         acc0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_2, 0, 1024), pl.Mem.Acc] = pl.tile.create(
#             [16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc
#         )
#         for k, (acc,) in pl.range(4, init_values=(acc0,)):
#             lhs: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_left_3, 0, 512), pl.Mem.Left] = pl.tile.extract(
#                 a_mat, 0, k * 16, [16, 16], target_memory=pl.Mem.Left
#             )
#             rhs: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_right_4, 0, 512), pl.Mem.Right] = pl.tile.extract(
#                 b_mat, k * 16, 0, [16, 16], target_memory=pl.Mem.Right
#             )
#             acc1: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_2, 0, 1024), pl.Mem.Acc] = pl.tile.matmul_acc(
#                 acc, lhs, rhs, init_cond=k == 0
#             )
#             acc_out = pl.yield_(acc1)
#         o = pl.tile.store(acc_out, [0, 0], out)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_5, 0, 2048), pl.Mem.Vec] = pl.tile.load(v, [0, 0], [16, 32])
#         piece: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_6, 0, 1024), pl.Mem.Vec] = pl.tile.full(
#             [8, 32], dtype=pl.FP32, value=2.0
#         )
#         for i, (t,) in pl.range(2, init_values=(vout,)):
#             y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_7, 0, 2048), pl.Mem.Vec] = pl.tile.assemble(
#                 x, piece, [8, 0]
#             )
#             t1 = pl.tile.store(y, [i * 16, 0], t)
#             t_out = pl.yield_(t1)
#         if flag:
#             e: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_8, 0, 2048), pl.Mem.Vec] = pl.tile.exp(x)
#             chosen = pl.yield_(e)
#         else:
#             chosen = pl.yield_(x)
#         w: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_8, 1024, 1024), pl.Mem.Vec] = pl.tile.slice(
#             chosen, [8, 32], [8, 0]
#         )
#         last = pl.tile.store(w, [32, 0], t_out)
#         return o, last
