# test: lower-buffer
# planners: PTOAS
# rules: S9 S10 S11 S14
# INT32 and FP16 arithmetic (add/mul), BF16 transfer only: an INT32 scalar operand is stated as an
# INT32 constant; BF16 moves from GM to GM through one buffer without arithmetic.
import pypto.language as pl

@pl.program
class elementwise_int32_fp16:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, i: pl.Tensor[[8, 64], pl.INT32], h: pl.Tensor[[16, 64], pl.FP16], g: pl.Tensor[[16, 64], pl.BF16],
               io: pl.Out[pl.Tensor[[8, 64], pl.INT32]], ho: pl.Out[pl.Tensor[[16, 64], pl.FP16]],
               go: pl.Out[pl.Tensor[[16, 64], pl.BF16]]) -> tuple[pl.Tensor[[8, 64], pl.INT32], pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[16, 64], pl.BF16]]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        a: pl.Tile[[8, 64], pl.INT32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(i, [0, 0], [8, 64])
        a2: pl.Tile[[8, 64], pl.INT32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.mul(a, a)
        a3: pl.Tile[[8, 64], pl.INT32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.adds(a2, 7)
        o1 = pl.tile.store(a3, [0, 0], io)
        x: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.load(h, [0, 0], [16, 64])
        x2: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.add(x, x)
        o2 = pl.tile.store(x2, [0, 0], ho)
        b: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.load(g, [0, 0], [16, 64])
        o3 = pl.tile.store(b, [0, 0], go)
        return o1, o2, o3

# ---- expected ----
# # pypto.program: elementwise_int32_fp16
# import pypto.language as pl
#
# @pl.program
# class elementwise_int32_fp16:
#     @pl.function(type=pl.FunctionType.AIV, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                i: pl.Tensor[[8, 64], pl.INT32],
#                h: pl.Tensor[[16, 64], pl.FP16],
#                g: pl.Tensor[[16, 64], pl.BF16],
#                io: pl.Out[pl.Tensor[[8, 64], pl.INT32]],
#                ho: pl.Out[pl.Tensor[[16, 64], pl.FP16]],
#                go: pl.Out[pl.Tensor[[16, 64], pl.BF16]]) -> tuple[pl.Tensor[[8, 64], pl.INT32], pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[16, 64], pl.BF16]]:
#         a: pl.Buffer[[8, 64], pl.INT32, pl.Mem.Vec] = pl.buffer.alloc(())
#         x: pl.Buffer[[16, 64], pl.FP16, pl.Mem.Vec] = pl.buffer.alloc(())
#         x2: pl.Buffer[[16, 64], pl.FP16, pl.Mem.Vec] = pl.buffer.alloc(())
#         b: pl.Buffer[[16, 64], pl.BF16, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(i, [0, 0], [8, 64], a)
#         pl.buffer.mul(a, a, a)
#         pl.buffer.adds(a, pl.const(7, pl.INT32), a)
#         pl.buffer.store(a, [0, 0], [8, 64], io)
#         pl.buffer.load(h, [0, 0], [16, 64], x)
#         pl.buffer.add(x, x, x2)
#         pl.buffer.store(x2, [0, 0], [16, 64], ho)
#         pl.buffer.load(g, [0, 0], [16, 64], b)
#         pl.buffer.store(b, [0, 0], [16, 64], go)
#         return io, ho, go
