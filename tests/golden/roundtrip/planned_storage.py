# test: roundtrip
# A Tile program after memory planning: storage roots with and without addr=, MemRef parts,
# TileView fields that differ from each space's implicit view, symbolic valid extents.
import pypto.language as pl

@pl.program
class planned_storage:
    @pl.function(type=pl.FunctionType.AIC)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], rows: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048, addr=0)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=2048)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 1024)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.MemorySpace.Right, 1024)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, size=1024)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128, addr=None)
        am: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_mat_0, 0, 1024), pl.Mem.Mat, pl.TileView(valid_shape=[rows, 32])] = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[rows, 32], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat, pl.MemRef(mem_mat_1, 2048, 1024)] = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        l: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_left_2, 0, 1024), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major, fractal=512)] = pl.tile.move(am, target_memory=pl.Mem.Left)
        r: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_right_3, 0, 1024), pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_4, 0, 1024), pl.Mem.Acc, pl.TileView(valid_shape=[rows, 16])] = pl.tile.matmul(l, r)
        v: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_5, 64, 64), pl.Mem.Vec] = pl.tile.create([16, 1], dtype=pl.FP32)
        w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, fractal=1024)] = pl.tile.move(c, target_memory=pl.Mem.Vec)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc, pl.TileView(fractal=512, slayout=pl.TileLayout.col_major)] = pl.tile.create([16, 16], pl.FP32, pl.Mem.Acc)
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return o

# ---- expected ----
# # pypto.program: planned_storage
# import pypto.language as pl
#
# @pl.program
# class planned_storage:
#     @pl.function(type=pl.FunctionType.AIC)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP16],
#                b: pl.Tensor[[32, 16], pl.FP16],
#                rows: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
#         mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048, addr=0)
#         mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=2048)
#         mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 1024)
#         mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 1024)
#         mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024)
#         mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
#         am: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_mat_0, 0, 1024), pl.Mem.Mat, pl.TileView(valid_shape=[rows, 32])] = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[rows, 32], target_memory=pl.Mem.Mat)
#         bm: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_mat_1, 2048, 1024), pl.Mem.Mat] = pl.tile.load(
#             b, [0, 0], [32, 16], target_memory=pl.Mem.Mat
#         )
#         l: pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_left_2, 0, 1024), pl.Mem.Left] = pl.tile.move(
#             am, target_memory=pl.Mem.Left
#         )
#         r: pl.Tile[[32, 16], pl.FP16, pl.MemRef(mem_right_3, 0, 1024), pl.Mem.Right] = pl.tile.move(
#             bm, target_memory=pl.Mem.Right
#         )
#         c: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_4, 0, 1024), pl.Mem.Acc, pl.TileView(valid_shape=[rows, 16])] = pl.tile.matmul(l, r)
#         v: pl.Tile[[16, 1], pl.FP32, pl.MemRef(mem_vec_5, 64, 64), pl.Mem.Vec] = pl.tile.create([16, 1], dtype=pl.FP32)
#         w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, fractal=1024)] = pl.tile.move(c, target_memory=pl.Mem.Vec)
#         t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc, pl.TileView(slayout=pl.TileLayout.col_major, fractal=512)] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
#         o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)
#         return o
