# test: lower-buffer
# planners: PTOAS
# rules: W1 W2 W12 W14 W15 W16 L4 L5 L7
# Runtime row windows cut inside a loop: each trip's subview is defined where the slice is written,
# inside the body, from the allocation-level handle; the runtime row offset i * 16 needs no
# alignment proof because whole rows keep the 128-byte pitch. The destination has its own
# allocation, so the window and the destination are disjoint even though the window may lie anywhere
# in `whole`. A nested branch cuts a second window from the first (nested slices keep the pitch).
import pypto.language as pl

@pl.program
class loop_windows:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64, 32], pl.FP32], odd: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        whole: pl.Tile[[64, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 8192), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 32])
        for i, (dst,) in pl.range(4, init_values=(out,)):
            w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, -1, 2048), pl.Mem.Vec] = pl.tile.slice(whole, [16, 32], [i * 16, 0])
            e: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.exp(w)
            o = pl.tile.store(e, [i * 16, 0], dst)
            if odd:
                half: pl.Tile[[8, 32], pl.FP32, pl.MemRef(mem_vec_0, -1, 1024), pl.Mem.Vec] = pl.tile.slice(w, [8, 32], [8, 0])
                o2 = pl.tile.store(half, [i * 16, 0], o)
                next = pl.yield_(o2)
            else:
                next = pl.yield_(o)
            r = pl.yield_(next)
        return r

# ---- expected ----
# # pypto.program: loop_windows
# import pypto.language as pl
#
# @pl.program
# class loop_windows:
#     @pl.function(type=pl.FunctionType.AIV, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                x: pl.Tensor[[64, 32], pl.FP32],
#                odd: pl.Scalar[pl.BOOL],
#                out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
#         whole: pl.Buffer[[64, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         e: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(x, [0, 0], [64, 32], whole)
#         for i in pl.range(4):
#             w: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(whole, [i * 16, 0], [16, 32])
#             pl.buffer.exp(w, e)
#             pl.buffer.store(e, [i * 16, 0], [16, 32], out)
#             if odd:
#                 half: pl.Buffer[[8, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(w, [8, 0], [8, 32])
#                 pl.buffer.store(half, [i * 16, 0], [8, 32], out)
#         return out
