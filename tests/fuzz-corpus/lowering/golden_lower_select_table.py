# test: lower
# stop-after: SelectBufferIRFunctions
# Whole-kernel selection (S3, ST1): one kernel per verdict. load -> add -> mul -> store is selected;
# load -> reduction -> store stays on Tile (S19); a BF16 full stays on Tile (S10: BF16 is
# transfer-only; BF16 add does not even verify); elementwise operands
# with different valid extents stay on Tile (S8); a runtime column offset that is a multiple of
# 8 FP32 elements is provably aligned (W16) and selected; BF16 transfers and the INT8 cube path
# are selected.
import pypto.language as pl

@pl.program
class select_table:
    @pl.function(type=pl.FunctionType.InCore)
    def add_mul(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],
                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        lhs = pl.tile.load(a, [0, 0], [16, 32])
        rhs = pl.tile.load(b, [0, 0], [16, 32])
        total = pl.tile.add(lhs, rhs)
        prod = pl.tile.mul(total, rhs)
        result = pl.tile.store(prod, [0, 0], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def reduce(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        s = pl.tile.col_sum(x)
        result = pl.tile.store(s, [0, 0], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def bf16_full(self, out: pl.Out[pl.Tensor[[16, 32], pl.BF16]]) -> pl.Tensor[[16, 32], pl.BF16]:
        y = pl.tile.full([16, 32], dtype=pl.BF16, value=1.5)
        result = pl.tile.store(y, [0, 0], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def bf16_copy(self, a: pl.Tensor[[16, 32], pl.BF16], out: pl.Out[pl.Tensor[[16, 32], pl.BF16]]) -> pl.Tensor[[16, 32], pl.BF16]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        result = pl.tile.store(x, [0, 0], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def valid_mismatch(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32])
        y = pl.tile.load(a, [0, 0], [16, 32])
        z = pl.tile.add(x, y)
        result = pl.tile.store(z, [0, 0], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def aligned_window(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 64])
        blk = pl.tile.get_block_idx()
        col = blk * 8 + 16
        w = pl.tile.slice(x, [16, 16], [0, col])
        y = pl.tile.adds(w, 1.0)
        result = pl.tile.store(y, [0, 0], out)
        return result

    @pl.function(type=pl.FunctionType.InCore)
    def cube(self, a: pl.Tensor[[16, 32], pl.INT8], b: pl.Tensor[[32, 32], pl.INT8],
             out: pl.Out[pl.Tensor[[16, 32], pl.INT32]]) -> pl.Tensor[[16, 32], pl.INT32]:
        a_mat = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        a_l = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        b_r = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(a_l, b_r)
        result = pl.tile.store(c, [0, 0], out)
        return result

# ---- expected ----
# # pypto.program: select_table
# import pypto.language as pl
#
# @pl.program
# class select_table:
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def add_mul(self,
#                 a: pl.Tensor[[16, 32], pl.FP32],
#                 b: pl.Tensor[[16, 32], pl.FP32],
#                 out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         lhs: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         rhs: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])
#         total: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.add(lhs, rhs)
#         prod: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.mul(total, rhs)
#         result = pl.tile.store(prod, [0, 0], out)
#         return result
#
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
#     def reduce(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         s: pl.Tile[[1, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 128), pl.Mem.Vec] = pl.tile.col_sum(x)
#         result = pl.tile.store(s, [0, 0], out)
#         return result
#
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
#     def bf16_full(self, out: pl.Out[pl.Tensor[[16, 32], pl.BF16]]) -> pl.Tensor[[16, 32], pl.BF16]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
#         y: pl.Tile[[16, 32], pl.BF16, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.full(
#             [16, 32], dtype=pl.BF16, value=1.5
#         )
#         result = pl.tile.store(y, [0, 0], out)
#         return result
#
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def bf16_copy(self,
#                   a: pl.Tensor[[16, 32], pl.BF16],
#                   out: pl.Out[pl.Tensor[[16, 32], pl.BF16]]) -> pl.Tensor[[16, 32], pl.BF16]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
#         x: pl.Tile[[16, 32], pl.BF16, pl.MemRef(mem_vec_0, 0, 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         result = pl.tile.store(x, [0, 0], out)
#         return result
#
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=False)
#     def valid_mismatch(self,
#                        a: pl.Tensor[[16, 32], pl.FP32],
#                        out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
#         x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32])
#         y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
#         z: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = pl.tile.add(x, y)
#         result = pl.tile.store(z, [0, 0], out)
#         return result
#
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def aligned_window(self,
#                        a: pl.Tensor[[16, 64], pl.FP32],
#                        out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
#         mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024)
#         x: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64])
#         blk = pl.tile.get_block_idx()
#         col = blk * 8 + 16
#         w: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, -1, 3904), pl.Mem.Vec] = pl.tile.slice(x, [16, 16], [0, col])
#         y: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 1024), pl.Mem.Vec] = pl.tile.adds(w, 1.0)
#         result = pl.tile.store(y, [0, 0], out)
#         return result
#
#     @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
#     def cube(self,
#              a: pl.Tensor[[16, 32], pl.INT8],
#              b: pl.Tensor[[32, 32], pl.INT8],
#              out: pl.Out[pl.Tensor[[16, 32], pl.INT32]]) -> pl.Tensor[[16, 32], pl.INT32]:
#         mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512)
#         mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024)
#         mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512)
#         mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 1024)
#         mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 2048)
#         a_mat: pl.Tile[[16, 32], pl.INT8, pl.MemRef(mem_mat_0, 0, 512), pl.Mem.Mat] = pl.tile.load(
#             a, [0, 0], [16, 32], target_memory=pl.Mem.Mat
#         )
#         b_mat: pl.Tile[[32, 32], pl.INT8, pl.MemRef(mem_mat_1, 0, 1024), pl.Mem.Mat] = pl.tile.load(
#             b, [0, 0], [32, 32], target_memory=pl.Mem.Mat
#         )
#         a_l: pl.Tile[[16, 32], pl.INT8, pl.MemRef(mem_left_2, 0, 512), pl.Mem.Left] = pl.tile.move(
#             a_mat, target_memory=pl.Mem.Left
#         )
#         b_r: pl.Tile[[32, 32], pl.INT8, pl.MemRef(mem_right_3, 0, 1024), pl.Mem.Right] = pl.tile.move(
#             b_mat, target_memory=pl.Mem.Right
#         )
#         c: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_acc_4, 0, 2048), pl.Mem.Acc] = pl.tile.matmul(a_l, b_r)
#         result = pl.tile.store(c, [0, 0], out)
#         return result
