# pypto.program: cube_kloop
# expect: pass
# expected-outputs: ../../programs/expected/cube_kloop
# tests/programs/cube_kloop.py planned by the reference pipeline under DSA_RP (ptodiff compile
# --planner DSA_RP --stop-after VerifyTileStorage): a correct planning, so the planned-Tile
# interpreter runs it clean and gives the Tile program's expected outputs bit for bit.
import pypto.language as pl

@pl.program
class cube_kloop:
    @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)
    def kernel(self,
               a: pl.Tensor[[16, 64], pl.FP16],
               b: pl.Tensor[[64, 16], pl.FP16],
               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048, addr=0)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 2048, addr=2048)
        mem_acc_2: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024, addr=0)
        mem_left_3: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512, addr=0)
        mem_right_4: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 512, addr=0)
        a_mat: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_mat_0, 0, 2048), pl.Mem.Mat] = pl.tile.load(
            a, [0, 0], [16, 64], target_memory=pl.Mem.Mat
        )
        b_mat: pl.Tile[[64, 16], pl.FP16, pl.MemRef(mem_mat_1, 2048, 2048), pl.Mem.Mat] = pl.tile.load(
            b, [0, 0], [64, 16], target_memory=pl.Mem.Mat
        )
        acc0: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_2, 0, 1024), pl.Mem.Acc] = pl.tile.create(
            [16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc
        )
        for k, (acc,) in pl.range(4, init_values=(acc0,)):
            lhs: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_left_3, 0, 512), pl.Mem.Left] = pl.tile.extract(
                a_mat, 0, k * 16, [16, 16], target_memory=pl.Mem.Left
            )
            rhs: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mem_right_4, 0, 512), pl.Mem.Right] = pl.tile.extract(
                b_mat, k * 16, 0, [16, 16], target_memory=pl.Mem.Right
            )
            acc1: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_2, 0, 1024), pl.Mem.Acc] = pl.tile.matmul_acc(
                acc, lhs, rhs, init_cond=k == 0
            )
            acc_out = pl.yield_(acc1)
        r = pl.tile.store(acc_out, [0, 0], out)
        return r
