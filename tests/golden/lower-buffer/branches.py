# test: lower-buffer
# planners: PYPTO PTOAS
# rules: B1 B4 B8 B9 B12 L7 P1 P2
# The seed's branch example: storage legalization gave the Tile result `chosen` one destination
# (mem_vec_2); the then arm computes the product straight into it, the else arm copies the input
# there. Conversion removes the Tile result and its yield operands and keeps the scalar result
# `off` in its relative order. A second branch yields stores to the same GM parameter from both
# arms: that result disappears and later uses name the parameter. A nested branch without results
# keeps its own yield scope; `neg` reuses input_tile's storage after its last use (PYPTO's reuse;
# PTOAS lowers the same plan without addresses).
import pypto.language as pl

@pl.program
class branches:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], flag: pl.Scalar[pl.BOOL],
               other: pl.Scalar[pl.BOOL], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
        input_tile: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        b_tile: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 32])
        if flag:
            product: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.mul(input_tile, b_tile)
            chosen, off = pl.yield_(product, 16)
        else:
            copied: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.move(input_tile, target_memory=pl.Mem.Vec)
            chosen, off = pl.yield_(copied, 0)
        stored = pl.tile.store(chosen, [off, 0], out)
        if other:
            if flag:
                neg: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.neg(chosen)
                o0 = pl.tile.store(neg, [off, 0], stored)
            o1 = pl.tile.store(b_tile, [16 - off, 0], stored)
            written = pl.yield_(o1)
        else:
            written = pl.yield_(stored)
        return written

# ---- expected ----
# # pypto.program: branches
# import pypto.language as pl
#
# @pl.program
# class branches:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                flag: pl.Scalar[pl.BOOL],
#                other: pl.Scalar[pl.BOOL],
#                out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
#         input_tile: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         b_tile: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
#         product: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
#         pl.buffer.load(a, [0, 0], [16, 32], input_tile)
#         pl.buffer.load(b, [0, 0], [16, 32], b_tile)
#         if flag:
#             pl.buffer.mul(input_tile, b_tile, product)
#             off = pl.yield_(16)
#         else:
#             pl.buffer.copy(input_tile, product)
#             off = pl.yield_(0)
#         pl.buffer.store(product, [off, 0], [16, 32], out)
#         if other:
#             if flag:
#                 pl.buffer.neg(product, input_tile)
#                 pl.buffer.store(input_tile, [off, 0], [16, 32], out)
#             pl.buffer.store(b_tile, [16 - off, 0], [16, 32], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: branches
# import pypto.language as pl
#
# @pl.program
# class branches:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                flag: pl.Scalar[pl.BOOL],
#                other: pl.Scalar[pl.BOOL],
#                out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
#         input_tile: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         b_tile: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         product: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(a, [0, 0], [16, 32], input_tile)
#         pl.buffer.load(b, [0, 0], [16, 32], b_tile)
#         if flag:
#             pl.buffer.mul(input_tile, b_tile, product)
#             off = pl.yield_(16)
#         else:
#             pl.buffer.copy(input_tile, product)
#             off = pl.yield_(0)
#         pl.buffer.store(product, [off, 0], [16, 32], out)
#         if other:
#             if flag:
#                 pl.buffer.neg(product, input_tile)
#                 pl.buffer.store(input_tile, [off, 0], [16, 32], out)
#             pl.buffer.store(b_tile, [16 - off, 0], [16, 32], out)
#         return out
