# test: roundtrip
# Several functions of every type, InOut parameters, result tuples, a function without a result
# annotation and one whose body is only `pass`.
import pypto.language as pl

@pl.program
class functions:
    @pl.function(type=pl.FunctionType.Orchestration)
    def orchestrate(self, a: pl.Tensor[[16, 32], pl.FP32]):
        pass

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, io: pl.InOut[pl.Tensor[[16, 16], pl.BF16]], k: pl.Scalar[pl.INT64]) -> tuple[pl.Tensor[[16, 16], pl.BF16], pl.Scalar[pl.INT64]]:
        return io, k

    @pl.function(type=pl.FunctionType.AIV, stage=pl.FunctionIRStage.Tile)
    def vector(self, x: pl.Tensor[[8, 64], pl.INT32], y: pl.Tensor[[8, 64], pl.INT8], z: pl.Tensor[[8, 64], pl.UINT8], out: pl.Out[pl.Tensor[[8, 64], pl.INT32]]):
        t = pl.tile.load(x, [0, 0], [8, 64])
        o = pl.tile.store(t, [0, 0], out)
        return

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self) -> pl.Scalar[pl.INDEX]:
        return 0

# ---- expected ----
# # pypto.program: functions
# import pypto.language as pl
#
# @pl.program
# class functions:
#     @pl.function(type=pl.FunctionType.Orchestration)
#     def orchestrate(self, a: pl.Tensor[[16, 32], pl.FP32]):
#         pass
#
#     @pl.function(type=pl.FunctionType.AIC)
#     def cube(self,
#              io: pl.InOut[pl.Tensor[[16, 16], pl.BF16]],
#              k: pl.Scalar[pl.INT64]) -> tuple[pl.Tensor[[16, 16], pl.BF16], pl.Scalar[pl.INT64]]:
#         return io, k
#
#     @pl.function(type=pl.FunctionType.AIV)
#     def vector(self,
#                x: pl.Tensor[[8, 64], pl.INT32],
#                y: pl.Tensor[[8, 64], pl.INT8],
#                z: pl.Tensor[[8, 64], pl.UINT8],
#                out: pl.Out[pl.Tensor[[8, 64], pl.INT32]]):
#         t = pl.tile.load(x, [0, 0], [8, 64])
#         o = pl.tile.store(t, [0, 0], out)
#         return
#
#     @pl.function(type=pl.FunctionType.InCore)
#     def kernel(self) -> pl.Scalar[pl.INDEX]:
#         return 0
