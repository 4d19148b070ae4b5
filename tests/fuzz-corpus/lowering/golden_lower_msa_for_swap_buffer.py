# test: lower
# stop-after: LowerTileToBuffer
# rules: L1 L2 L4 L9 ST12 ST16
# tests/programs/for_swap.py's kernel through the whole pipeline: the swap's snapshots and
# transfers (L9) become buffer copies, the zero-trip loop's carries keep their inputs (L2: its
# initializers p1, q1 are read after it, so both get entry copies before the loop), and only the
# INDEX carries stay in the native loops (L4).
import pypto.language as pl

@pl.program
class msa_for_swap_buffer:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               z: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.load(b, [0, 0], [16, 32])
        for i, (p, q, k) in pl.range(n, init_values=(x, y, 0)):
            k1 = k + 16
            p1, q1, k2 = pl.yield_(q, p, k1)
        for j, (u, w) in pl.range(z, init_values=(p1, q1)):
            uw = pl.tile.mul(u, w)
            u1, w1 = pl.yield_(uw, u)
        d = pl.tile.sub(u1, w1)
        o0 = pl.tile.store(d, [0, 0], out)
        o1 = pl.tile.store(p1, [k2 - 32, 0], o0)
        o2 = pl.tile.store(q1, [k2, 0], o1)
        return o2

# ---- expected ----
# # pypto.program: msa_for_swap_buffer
# import pypto.language as pl
#
# @pl.program
# class msa_for_swap_buffer:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                z: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
#         x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
#         q_snap: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
#         p_snap: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 6144)
#         q1_in: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 8192)
#         u_snap: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 10240)
#         pl.buffer.load(a, [0, 0], [16, 32], x)
#         pl.buffer.load(b, [0, 0], [16, 32], y)
#         for i, (k,) in pl.range(n, init_values=(0,)):
#             k1 = k + 16
#             pl.buffer.copy(y, q_snap)
#             pl.buffer.copy(x, p_snap)
#             pl.buffer.copy(q_snap, x)
#             pl.buffer.copy(p_snap, y)
#             k2 = pl.yield_(k1)
#         pl.buffer.copy(x, p_snap)
#         pl.buffer.copy(y, q1_in)
#         for j in pl.range(z):
#             pl.buffer.mul(p_snap, q1_in, q_snap)
#             pl.buffer.copy(p_snap, u_snap)
#             pl.buffer.copy(q_snap, p_snap)
#             pl.buffer.copy(u_snap, q1_in)
#         pl.buffer.sub(p_snap, q1_in, q_snap)
#         pl.buffer.store(q_snap, [0, 0], [16, 32], out)
#         pl.buffer.store(x, [k2 - 32, 0], [16, 32], out)
#         pl.buffer.store(y, [k2, 0], [16, 32], out)
#         return out
# ---- expected DSA_RP ----
# # pypto.program: msa_for_swap_buffer
# import pypto.language as pl
#
# @pl.program
# class msa_for_swap_buffer:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                z: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
#         x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
#         y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
#         uw: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 8192)
#         d: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 8192)
#         q_snap: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
#         p_snap: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 6144)
#         p1_in: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
#         q1_in: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 6144)
#         u_snap: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 10240)
#         pl.buffer.load(a, [0, 0], [16, 32], x)
#         pl.buffer.load(b, [0, 0], [16, 32], y)
#         for i, (k,) in pl.range(n, init_values=(0,)):
#             k1 = k + 16
#             pl.buffer.copy(y, q_snap)
#             pl.buffer.copy(x, p_snap)
#             pl.buffer.copy(q_snap, x)
#             pl.buffer.copy(p_snap, y)
#             k2 = pl.yield_(k1)
#         pl.buffer.copy(x, p1_in)
#         pl.buffer.copy(y, q1_in)
#         for j in pl.range(z):
#             pl.buffer.mul(p1_in, q1_in, uw)
#             pl.buffer.copy(p1_in, u_snap)
#             pl.buffer.copy(uw, p1_in)
#             pl.buffer.copy(u_snap, q1_in)
#         pl.buffer.sub(p1_in, q1_in, d)
#         pl.buffer.store(d, [0, 0], [16, 32], out)
#         pl.buffer.store(x, [k2 - 32, 0], [16, 32], out)
#         pl.buffer.store(y, [k2, 0], [16, 32], out)
#         return out
# ---- expected PTOAS ----
# # pypto.program: msa_for_swap_buffer
# import pypto.language as pl
#
# @pl.program
# class msa_for_swap_buffer:
#     @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer, buffer_ir_selected=True)
#     def kernel(self,
#                a: pl.Tensor[[16, 32], pl.FP32],
#                b: pl.Tensor[[16, 32], pl.FP32],
#                n: pl.Scalar[pl.INDEX],
#                z: pl.Scalar[pl.INDEX],
#                out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
#         x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         uw: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         d: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         q_snap: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         p_snap: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         p1_in: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         q1_in: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         u_snap: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())
#         pl.buffer.load(a, [0, 0], [16, 32], x)
#         pl.buffer.load(b, [0, 0], [16, 32], y)
#         for i, (k,) in pl.range(n, init_values=(0,)):
#             k1 = k + 16
#             pl.buffer.copy(y, q_snap)
#             pl.buffer.copy(x, p_snap)
#             pl.buffer.copy(q_snap, x)
#             pl.buffer.copy(p_snap, y)
#             k2 = pl.yield_(k1)
#         pl.buffer.copy(x, p1_in)
#         pl.buffer.copy(y, q1_in)
#         for j in pl.range(z):
#             pl.buffer.mul(p1_in, q1_in, uw)
#             pl.buffer.copy(p1_in, u_snap)
#             pl.buffer.copy(uw, p1_in)
#             pl.buffer.copy(u_snap, q1_in)
#         pl.buffer.sub(p1_in, q1_in, d)
#         pl.buffer.store(d, [0, 0], [16, 32], out)
#         pl.buffer.store(x, [k2 - 32, 0], [16, 32], out)
#         pl.buffer.store(y, [k2, 0], [16, 32], out)
#         return out
