# test: lower-buffer
# planner: PTOAS
# rules: P1 P2 P5 C6 C7 S9
# The representation example under PTOAS: allocations are identities without addresses, so every
# buffer.alloc omits its address operand (the interpreter and the external assembler place them).
import pypto.language as pl

@pl.program
class representation_ptoas:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, A: pl.Tensor[[16, 32], pl.FP32], B: pl.Tensor[[16, 32], pl.FP32],
               Out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        lhs: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.load(A, [0, 0], [16, 32])
        rhs: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = pl.tile.load(B, [0, 0], [16, 32])
        total: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.add(lhs, rhs)
        prod: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.mul(total, rhs)
        result = pl.tile.store(prod, [0, 0], Out)
        return result

# ---- expected ----
# # pypto.program: representation_ptoas
# import pypto.language as pl
#
# @pl.program
# class representation_ptoas:
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
#         pl.buffer.mul(total, rhs, total)
#         pl.buffer.store(total, [0, 0], [16, 32], Out)
#         return Out
