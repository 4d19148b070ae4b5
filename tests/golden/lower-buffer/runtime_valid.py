# test: lower-buffer
# planners: DSA_RP PYPTO PTOAS
# rules: V1 V3 V6 V7 V11 V12 P1 P2
# The seed's runtime valid extents example: `cols` is not a constant, so both allocations get a
# dynamic [-1, -1] descriptor; each op defining such a tile first states the extents it produces
# with buffer.set_validshape, and the load, the add and the store run only when both extents are
# positive (`16` is a positive constant, so only `cols > 0` is tested).
import pypto.language as pl

@pl.program
class runtime_valid:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], cols: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=4096)
        loaded: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec, pl.TileView(valid_shape=[16, cols])] = pl.tile.load(x, [0, 0], [16, 64], valid_shape=[16, cols])
        doubled: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 4096, 4096), pl.Mem.Vec, pl.TileView(valid_shape=[16, cols])] = pl.tile.add(loaded, loaded)
        result = pl.tile.store(doubled, [0, 0], out)
        return result

# ---- expected ----
# # pypto.program: runtime_valid
# import pypto.language as pl
#
# @pl.program
# class runtime_valid:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                x: pl.Tensor[[16, 64], pl.FP32],
#                cols: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
#         loaded: pl.Buffer[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 0)
#         doubled: pl.Buffer[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 4096)
#         pl.buffer.set_validshape(loaded, [16, cols])
#         if cols > 0:
#             pl.buffer.load(x, [0, 0], [16, cols], loaded)
#         pl.buffer.set_validshape(doubled, [16, cols])
#         if cols > 0:
#             pl.buffer.add(loaded, loaded, doubled)
#         if cols > 0:
#             pl.buffer.store(doubled, [0, 0], [16, cols], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: runtime_valid
# import pypto.language as pl
#
# @pl.program
# class runtime_valid:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                x: pl.Tensor[[16, 64], pl.FP32],
#                cols: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
#         loaded: pl.Buffer[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc(())
#         doubled: pl.Buffer[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc(())
#         pl.buffer.set_validshape(loaded, [16, cols])
#         if cols > 0:
#             pl.buffer.load(x, [0, 0], [16, cols], loaded)
#         pl.buffer.set_validshape(doubled, [16, cols])
#         if cols > 0:
#             pl.buffer.add(loaded, loaded, doubled)
#         if cols > 0:
#             pl.buffer.store(doubled, [0, 0], [16, cols], out)
#         return out
