# test: lower-buffer
# planners: PYPTO DSA_RP PTOAS
# rules: P1 P2 P5 C6 C7 S9
# The seed's representation example: three planned windows become three typed allocations at the
# original allocation definitions, tile ops become destination-passing Buffer ops, and the store's
# tensor alias returns the GM parameter. The addressed planners pass each final address exactly once
# (both print the same for this plan, which either could have made); PTOAS omits the address operand.
import pypto.language as pl

@pl.program
class representation:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, A: pl.Tensor[[16, 32], pl.FP32], B: pl.Tensor[[16, 32], pl.FP32],
               Out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)
        lhs: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(A, [0, 0], [16, 32])
        rhs: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 2048, 2048), pl.Mem.Vec] = pl.tile.load(B, [0, 0], [16, 32])
        total: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = pl.tile.add(lhs, rhs)
        result = pl.tile.store(total, [0, 0], Out)
        return result

# ---- expected ----
# # pypto.program: representation
# import pypto.language as pl
#
# @pl.program
# class representation:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                A: pl.Tensor[[16, 32], pl.FP32],
#                B: pl.Tensor[[16, 32], pl.FP32],
#                Out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         lhs: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         rhs: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
#         total: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
#         pl.buffer.load(A, [0, 0], [16, 32], lhs)
#         pl.buffer.load(B, [0, 0], [16, 32], rhs)
#         pl.buffer.add(lhs, rhs, total)
#         pl.buffer.store(total, [0, 0], [16, 32], Out)
#         return Out
# ---- expected PTOAS ----
# # pypto.program: representation
# import pypto.language as pl
#
# @pl.program
# class representation:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
#     def kernel(self,
#                A: pl.Tensor[[16, 32], pl.FP32],
#                B: pl.Tensor[[16, 32], pl.FP32],
#                Out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
#         lhs: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         rhs: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         total: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(A, [0, 0], [16, 32], lhs)
#         pl.buffer.load(B, [0, 0], [16, 32], rhs)
#         pl.buffer.add(lhs, rhs, total)
#         pl.buffer.store(total, [0, 0], [16, 32], Out)
#         return Out
