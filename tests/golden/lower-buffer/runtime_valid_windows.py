# test: lower-buffer
# planners: PTOAS
# rules: V4 V6 V7 V8 V11 V12 W17 C5
# More runtime valid extents: tile.set_validshape updates the shared dynamic handle of `t` in place
# (its load first states the physical extents); a window with a runtime valid row count is
# materialized inside the guard of each consumer, so no empty subview is ever created; a load whose
# valid extents are the constant-empty [0, 64] only updates the metadata, and the load and the
# store reading it are deleted; the Vec-to-Vec move onto the same window is an exact self-copy.
import pypto.language as pl

@pl.program
class runtime_valid_windows:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[64, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               m: pl.Scalar[pl.INDEX], r: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
               out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]], out3: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, 0, 4096), pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = pl.tile.set_validshape(t, n, 64)
        e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096), pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = pl.tile.exp(s)
        same: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, 0, 4096), pl.Mem.Vec, pl.TileView(valid_shape=[n, 64])] = pl.tile.move(e, target_memory=pl.Mem.Vec)
        o1 = pl.tile.store(same, [0, 0], out)
        big: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 8192), pl.Mem.Vec] = pl.tile.load(y, [0, 0], [64, 32])
        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, -1, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[m, 32])] = pl.tile.slice(big, [16, 32], [r, 0], valid_shape=[m, 32])
        a: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[m, 32])] = pl.tile.abs(w)
        o2 = pl.tile.store(a, [0, 0], out2)
        z: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, 0, 4096), pl.Mem.Vec, pl.TileView(valid_shape=[0, 64])] = pl.tile.load(x, [0, 0], [16, 64], valid_shape=[0, 64])
        o3 = pl.tile.store(z, [0, 0], out3)
        return o1

# ---- expected ----
# # pypto.program: runtime_valid_windows
# import pypto.language as pl
#
# @pl.program
# class runtime_valid_windows:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                x: pl.Tensor[[16, 64], pl.FP32],
#                y: pl.Tensor[[64, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                m: pl.Scalar[pl.INDEX],
#                r: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
#                out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
#                out3: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
#         t: pl.Buffer[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc(())
#         e: pl.Buffer[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc(())
#         big: pl.Buffer[[64, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         a: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc(())
#         z: pl.Buffer[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc(())
#         pl.buffer.load(x, [0, 0], [16, 64], t)
#         pl.buffer.set_validshape(t, [n, 64])
#         pl.buffer.set_validshape(e, [n, 64])
#         if n > 0:
#             pl.buffer.exp(t, e)
#         if n > 0:
#             pl.buffer.store(e, [0, 0], [n, 64], out)
#         pl.buffer.load(y, [0, 0], [64, 32], big)
#         pl.buffer.set_validshape(a, [m, 32])
#         if m > 0:
#             w: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, 32])] = pl.buffer.subview(
#                 big, [r, 0], [m, 32]
#             )
#             pl.buffer.abs(w, a)
#         if m > 0:
#             pl.buffer.store(a, [0, 0], [m, 32], out2)
#         pl.buffer.set_validshape(z, [0, 64])
#         return out
