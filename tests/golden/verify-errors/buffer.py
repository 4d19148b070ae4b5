# Verifier errors: stages and Buffer-stage functions.
@pl.program
class buffer_op_in_tile_function:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.load(a, [0, 0], [16, 32])
        pl.buffer.add(x, x, y)  # error: buffer.add: Buffer-stage op in a Tile-stage function; expected pl.tile.* ops (or stage=pl.FunctionIRStage.Buffer on the function)
        return out
# -----
@pl.program
class tile_op_in_buffer_function:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])  # error: tile.load: Tile-stage op in a Buffer-stage function; expected pl.buffer.* ops
        return out
# -----
@pl.program
class unannotated_buffer_assignment:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_buf = pl.buffer.alloc((), 0)  # error: buffer.alloc: result needs a pl.Buffer[...] annotation; expected NAME: pl.Buffer[[R, C], DTYPE, pl.Mem.SPACE] = ...
        pl.buffer.load(a, [0, 0], [16, 32], a_buf)
        pl.buffer.store(a_buf, [0, 0], [16, 32], out)
        return out
# -----
@pl.program
class buffer_op_result_assigned:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        r_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
        pl.buffer.load(a, [0, 0], [16, 32], a_buf)
        done = pl.buffer.exp(a_buf, r_buf)  # error: buffer.exp: returns nothing; expected an expression statement, not an assignment
        return out
# -----
@pl.program
class buffer_dtype_mismatch:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        h_buf: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
        pl.buffer.load(a, [0, 0], [16, 32], a_buf)
        pl.buffer.add(a_buf, a_buf, h_buf)  # error: buffer.add: operand dtypes differ (FP32 vs FP16); expected equal dtypes
        return out
# -----
@pl.program
class buffer_store_to_in_tensor:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        pl.buffer.load(a, [0, 0], [16, 32], a_buf)
        pl.buffer.store(a_buf, [0, 0], [16, 32], a)  # error: buffer.store: output_tensor refers to In parameter 'a'; expected an Out or InOut parameter (or a tensor derived from one)
        return out
# -----
@pl.program
class buffer_carried_by_loop:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        for i, (b,) in pl.range(0, 4, 1, init_values=(a_buf,)):  # error: loop carry 'b' is pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] in a Buffer-stage function; expected only scalar carries
            b2 = pl.yield_(b)
        return out
# -----
@pl.program
class subview_window_outside_parent:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        root: pl.Buffer[[128, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.alloc((), 8192)
        w: pl.Buffer[[64, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.subview(root, [96, 0])  # error: buffer.subview: window at [96, 0] of extent [64, 32] lies outside the [128, 32] parent; expected it inside on both axes
        return out
# -----
@pl.program
class reshape_changes_byte_count:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        root: pl.Buffer[[128, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.alloc((), 8192)
        v: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(root)  # error: buffer.reshape: result pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] does not reinterpret the 4096 bytes of pl.Buffer[[128, 32], pl.UINT8, pl.Mem.Vec]; expected the same space and byte count
        return out
# -----
@pl.program
class set_validshape_on_static_descriptor:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        pl.buffer.set_validshape(a_buf, [n, 32])  # error: buffer.set_validshape: the buffer's valid descriptor is static (full); expected a dynamic one (valid_shape=[-1, -1])
        return out
# -----
@pl.program
class matmul_accumulator_dtype:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 16], pl.INT8],
               out: pl.Out[pl.Tensor[[16, 16], pl.INT32]]) -> pl.Tensor[[16, 16], pl.INT32]:
        l: pl.Buffer[[16, 32], pl.INT8, pl.Mem.Left] = pl.buffer.alloc((), 0)
        r: pl.Buffer[[32, 16], pl.INT8, pl.Mem.Right] = pl.buffer.alloc((), 0)
        acc: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
        pl.buffer.matmul(l, r, acc)  # error: buffer.matmul: accumulator is FP32 for INT8 operands; expected INT32
        return out
# -----
@pl.program
class unannotated_buffer_alias:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        alias = a_buf  # error: assignment to 'alias' in a Buffer-stage function has no type annotation; expected alias: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = ...
        return out
