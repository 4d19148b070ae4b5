# test: lower-buffer
# planners: PTOAS
# rules: W4 W5 W6 W10 P9 P8 S12
# Assemble into other storage: `target` stays observable, so the planner gave `grown` its own
# allocation. The target is copied first, through a view of grown's storage with exactly the
# target's old valid rectangle [16, 32] (W5), then the source into the window at [16, 0]; the valid
# region grows to the full [32, 32]. Static valid rectangles are zero-offset subviews beside their
# allocation (P9). The second assemble writes `win`, which already is the placed window of canvas:
# an exact self-write needs no copy (W6).
import pypto.language as pl

@pl.program
class assemble_grow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, t: pl.Tensor[[32, 32], pl.FP32], s: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]], top: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
               third: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 32], pl.FP32], pl.Tensor[[32, 32], pl.FP32], pl.Tensor[[32, 32], pl.FP32]]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        target: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec, pl.TileView(valid_shape=[16, 32])] = pl.tile.load(t, [0, 0], [32, 32], valid_shape=[16, 32])
        source: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.load(s, [0, 0], [16, 32])
        grown: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 4096), pl.Mem.Vec] = pl.tile.assemble(target, source, [16, 0])
        o1 = pl.tile.store(grown, [0, 0], out)
        o2 = pl.tile.store(target, [0, 0], top)
        canvas: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 4096), pl.Mem.Vec] = pl.tile.full([32, 32], dtype=pl.FP32, value=2.0)
        win: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 2048, 2048), pl.Mem.Vec] = pl.tile.slice(canvas, [16, 32], [16, 0])
        same: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 4096), pl.Mem.Vec] = pl.tile.assemble(canvas, win, [16, 0])
        o3 = pl.tile.store(same, [0, 0], third)
        return o1, o2, o3

# ---- expected ----
# # pypto.program: assemble_grow
# import pypto.language as pl
#
# @pl.program
# class assemble_grow:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                t: pl.Tensor[[32, 32], pl.FP32],
#                s: pl.Tensor[[16, 32], pl.FP32],
#                out: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
#                top: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
#                third: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 32], pl.FP32], pl.Tensor[[32, 32], pl.FP32], pl.Tensor[[32, 32], pl.FP32]]:
#         target_full: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         target: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 32])] = pl.buffer.subview(
#             target_full, [0, 0], [16, 32]
#         )
#         source: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         grown: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         grown_prev: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 32])] = pl.buffer.subview(
#             grown, [0, 0], [16, 32]
#         )
#         canvas: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(t, [0, 0], [16, 32], target)
#         pl.buffer.load(s, [0, 0], [16, 32], source)
#         pl.buffer.copy(target, grown_prev)
#         grown_window: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(grown, [16, 0], [16, 32])
#         pl.buffer.copy(source, grown_window)
#         pl.buffer.store(grown, [0, 0], [32, 32], out)
#         pl.buffer.store(target, [0, 0], [16, 32], top)
#         pl.buffer.full(2.0, canvas)
#         win: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(canvas, [16, 0], [16, 32])
#         pl.buffer.store(canvas, [0, 0], [32, 32], third)
#         return out, top, third
