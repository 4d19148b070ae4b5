# test: lower-buffer
# planners: PYPTO DSA_RP PTOAS
# rules: W4 W6 W16 W17
# The assemble copy writes through a fully valid view of the source's physical window
# (spec/lowering.md step 6): `part` is valid [8, 1] but the Tile semantics replace the whole [8, 8]
# window of canvas, so the destination window and a zero-offset bridge of the source are both
# fully valid. Found by the fuzz campaign (tests/fuzz-regressions/assemble_partial_valid_source_whole_window):
# a window carrying the source's valid tuple copied only [8, 1] of the 64 lanes.
import pypto.language as pl

@pl.program
class assemble_partial_valid_source:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        canvas: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(
            a, [0, 0], [16, 32]
        )
        other: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.load(
            b, [0, 0], [16, 32]
        )
        part: pl.Tile[[8, 8], pl.FP32, pl.MemRef(mem_vec_1, 2592, 928), pl.Mem.Vec, pl.TileView(valid_shape=[8, 1])] = pl.tile.slice(other, [8, 8], [4, 8], valid_shape=[8, 1])
        placed: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.assemble(
            canvas, part, [8, 0]
        )
        result = pl.tile.store(placed, [0, 0], out)
        return result

# ---- expected ----
# # pypto.program: assemble_partial_valid_source
# import pypto.language as pl
#
# @pl.program
# class assemble_partial_valid_source:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         canvas: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         other: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
#         pl.buffer.load(a, [0, 0], [16, 32], canvas)
#         pl.buffer.load(b, [0, 0], [16, 32], other)
#         part: pl.Buffer[[8, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 1])] = pl.buffer.subview(
#             other, [4, 8], [8, 1]
#         )
#         placed_window: pl.Buffer[[8, 8], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(canvas, [8, 0], [8, 8])
#         part_as: pl.Buffer[[8, 8], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(part, [0, 0], [8, 8])
#         pl.buffer.copy(part_as, placed_window)
#         pl.buffer.store(canvas, [0, 0], [16, 32], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: assemble_partial_valid_source
# import pypto.language as pl
#
# @pl.program
# class assemble_partial_valid_source:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         canvas: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         other: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(a, [0, 0], [16, 32], canvas)
#         pl.buffer.load(b, [0, 0], [16, 32], other)
#         part: pl.Buffer[[8, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 1])] = pl.buffer.subview(
#             other, [4, 8], [8, 1]
#         )
#         placed_window: pl.Buffer[[8, 8], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(canvas, [8, 0], [8, 8])
#         part_as: pl.Buffer[[8, 8], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(part, [0, 0], [8, 8])
#         pl.buffer.copy(part_as, placed_window)
#         pl.buffer.store(canvas, [0, 0], [16, 32], out)
#         return out
